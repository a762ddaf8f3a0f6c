package main

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/pprof/profile"
)

// stacks builds a CPU profile from leaf-last stacks and their values.
func stacks(samples map[string]int64, paths map[string][]string) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	loc := map[string]*profile.Location{}
	at := func(name string) *profile.Location {
		if l, ok := loc[name]; ok {
			return l
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Function, p.Location, loc[name] = append(p.Function, f), append(p.Location, l), l
		return l
	}
	for key, v := range samples {
		s := &profile.Sample{Value: []int64{1, v}}
		path := paths[key]
		for i := len(path) - 1; i >= 0; i-- {
			s.Location = append(s.Location, at(path[i]))
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func TestFlatTop(t *testing.T) {
	paths := map[string][]string{
		"scan":  {"main", "runtime/pprof.Do", "exec.run", "store.ScanKV"},
		"read":  {"main", "exec.run", "exec.readInto"},
		"read2": {"main", "other", "exec.readInto"},
		"pprof": {"main", "runtime/pprof.profileWriter", "compress/flate.deflate"},
		"start": {"main", "net/http/pprof.(*handler).ServeHTTP", "runtime/pprof.StartCPUProfile"},
		"neg":   {"main", "delta.noise"},
	}
	p := stacks(map[string]int64{"scan": 50, "read": 30, "read2": 10, "pprof": 5, "start": 5, "neg": -5}, paths)
	for _, tc := range []struct {
		name   string
		filter bool
		want   []string // function: percent
	}{
		{"everything", false, []string{"store.ScanKV: 50.0", "exec.readInto: 40.0", "compress/flate.deflate: 5.0", "runtime/pprof.StartCPUProfile: 5.0", "delta.noise: 0.0"}},
		{"without the profiler", true, []string{"store.ScanKV: 55.6", "exec.readInto: 44.4", "delta.noise: 0.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := p.Copy()
			if tc.filter {
				q.FilterSamplesByName(nil, profilerFrames, nil, nil)
			}
			top := flatTop(q, 8)
			var got []string
			for _, e := range top {
				got = append(got, fmt.Sprintf("%s: %.1f", e.Function, math.Round(e.Percent*10)/10))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("top %v, want %v", got, tc.want)
			}
		})
	}
	if top := flatTop(p, 1); len(top) != 1 || top[0].Function != "store.ScanKV" {
		t.Errorf("top 1: %v", top)
	}
}
