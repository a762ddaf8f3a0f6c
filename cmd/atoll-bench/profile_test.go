package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
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
			assert.Equal(t, tc.want, got)
		})
	}
	top := flatTop(p, 1)
	require.Len(t, top, 1)
	assert.Equal(t, "store.ScanKV", top[0].Function)
}

// TestClientWallProfile takes a wall-clock profile of this process while
// a goroutine waits, as a case against member processes does, and finds
// the wait in it, every sample labelled with the case and its API.
func TestClientWallProfile(t *testing.T) {
	dir := t.TempDir()
	cs := workload.ACases(10)[4] // A3 sum IDS, SQL
	p := &caseProfiler{dir: dir, kinds: []string{"wall"}, client: true, warn: io.Discard}
	stop := p.Start(context.Background(), cs, time.Second)
	waitedHere(300 * time.Millisecond)
	got := stop()
	require.Len(t, got, 1)
	prof := got[0]
	assert.Equal(t, report.Profile{Member: "client", Kind: "wall", API: "SQL", File: filepath.Join(dir, "A3-sum-IDS-SQL.client.wall.pb.gz"), Top: prof.Top}, prof)
	assert.FileExists(t, filepath.Join(dir, "A3-sum-IDS-SQL.client.wall.svg"))
	f, err := os.Open(prof.File)
	require.NoError(t, err)
	defer f.Close()
	pp, err := profile.Parse(f)
	require.NoError(t, err)
	require.NotEmpty(t, pp.Sample)
	waited := false
	for _, s := range pp.Sample {
		assert.Equal(t, map[string][]string{"case": {"A3/sum IDS/SQL"}, "api": {"SQL"}}, s.Label)
		for _, l := range s.Location {
			for _, line := range l.Line {
				waited = waited || strings.HasSuffix(line.Function.Name, ".waitedHere")
			}
		}
	}
	assert.True(t, waited, "the wall-clock profile shows the goroutine that waited (off CPU)")
}

//go:noinline
func waitedHere(d time.Duration) { time.Sleep(d) }
