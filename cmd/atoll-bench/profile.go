package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
	"github.com/atolldb/atoll/internal/profiling"
)

// memberProfiler captures a CPU and an allocation profile of every member
// (by its admin address) while a case's rounds run, and writes each as
// the raw profile and a flame graph into dir. Members of one process
// (the embedded cluster) share one profile: pass one admin address.
type memberProfiler struct {
	dir    string
	admins []string
	warn   io.Writer
}

// profileKinds are the profiles taken per case and member.
var profileKinds = []string{"cpu", "allocs"}

// profilerFrames match the functions of the profilers themselves: the
// admin handlers (which start the CPU profile and compute deltas) and the
// CPU profile's writer. runtime/pprof.Do and the label functions are not
// among them: the member runs its work under them.
var profilerFrames = regexp.MustCompile(`^(net/http/pprof\.|internal/profile\.|github\.com/felixge/fgprof\.|runtime/pprof\.profileWriter|runtime/pprof\.\(\*profileBuilder\))`)

// topN is the number of functions kept in a profile's flat top list.
const topN = 8

func (p *memberProfiler) Start(ctx context.Context, c workload.Case, rounds time.Duration) func() []report.Profile {
	seconds := max(1, int(math.Ceil(rounds.Seconds())))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  []report.Profile
		errs []string
	)
	for i, admin := range p.admins {
		for _, kind := range profileKinds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				prof, err := p.capture(ctx, c.ID(), i, admin, kind, seconds)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err.Error())
					return
				}
				got = append(got, prof)
			}()
		}
	}
	return func() []report.Profile {
		wg.Wait()
		for _, e := range errs {
			fmt.Fprintf(p.warn, "  %s: profile: %s\n", c.ID(), e)
		}
		slices.SortFunc(got, func(a, b report.Profile) int { return strings.Compare(a.File, b.File) })
		return got
	}
}

// capture takes one profile of one member while the case id runs.
func (p *memberProfiler) capture(ctx context.Context, id string, member int, admin, kind string, seconds int) (report.Profile, error) {
	raw, prof, err := profiling.Fetch(ctx, profiling.Admin{Addr: admin}, kind, seconds)
	if err != nil {
		return report.Profile{}, err
	}
	stem := filepath.Join(p.dir, fmt.Sprintf("%s.member%d.%s", slug(id), member+1, kind))
	if err := os.WriteFile(stem+".pb.gz", raw, 0o644); err != nil {
		return report.Profile{}, err
	}
	// The flame graph and the top list leave out the profilers' own work
	// (the CPU profile's buffers and encoding show in the allocation
	// profile taken at the same time); the raw profile keeps everything.
	prof.FilterSamplesByName(nil, profilerFrames, nil, nil)
	g, err := profiling.NewFlameGraph(prof, fmt.Sprintf("%s profile of %s during %s (%ds)", kind, admin, id, seconds))
	if err != nil {
		return report.Profile{}, err
	}
	f, err := os.Create(stem + ".svg")
	if err != nil {
		return report.Profile{}, err
	}
	if err := g.WriteSVG(f); err != nil {
		_ = f.Close()
		return report.Profile{}, err
	}
	if err := f.Close(); err != nil {
		return report.Profile{}, err
	}
	return report.Profile{Member: admin, Kind: kind, File: stem + ".pb.gz", Top: flatTop(prof, topN)}, nil
}

// flatTop returns the n functions with the largest flat value (samples
// in the function itself, inlined callees included in their own name) of
// the profile's default sample type, with their share of the total.
func flatTop(p *profile.Profile, n int) []report.TopEntry {
	if len(p.SampleType) == 0 {
		return nil
	}
	idx := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			idx = i
		}
	}
	flat := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		if idx >= len(s.Value) || len(s.Location) == 0 {
			continue
		}
		v := max(s.Value[idx], 0) // a delta profile may hold small negative values
		total += v
		name := "?"
		if lines := s.Location[0].Line; len(lines) > 0 && lines[0].Function != nil {
			name = lines[0].Function.Name
		}
		flat[name] += v
	}
	if total == 0 {
		return nil
	}
	var out []report.TopEntry
	for name, v := range flat {
		out = append(out, report.TopEntry{Function: name, Percent: 100 * float64(v) / float64(total)})
	}
	slices.SortFunc(out, func(a, b report.TopEntry) int {
		if a.Percent != b.Percent {
			if a.Percent > b.Percent {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Function, b.Function)
	})
	return out[:min(n, len(out))]
}

// slug turns a case id into a file name: "A3/sum IDS/SQL" → "A3-sum-IDS-SQL".
func slug(id string) string {
	var b strings.Builder
	dash := false
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(r)
		dash = false
	}
	return strings.TrimSuffix(b.String(), "-")
}
