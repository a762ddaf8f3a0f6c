package main

import (
	"bytes"
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

	"github.com/felixge/fgprof"
	"github.com/google/pprof/profile"

	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
	"github.com/atolldb/atoll/internal/profiling"
)

// caseProfiler captures profiles while a case's rounds (or its measured
// schedule) run, and writes each, its samples labelled with the case and
// its API (pprof labels "case" and "api", so that profiles of several
// cases can be merged and still told apart), as a profile and a flame
// graph into dir. Members are profiled over their admin addresses; those
// of one process (the embedded cluster, which holds the client too)
// share one profile: pass one admin address. With client set (members in
// other processes), wall-clock profiles of this process, the client, are
// taken too, in-process with fgprof.
type caseProfiler struct {
	dir    string
	kinds  []string
	admins []string
	client bool
	warn   io.Writer
}

// profileKinds are the profiles a case can take: CPU and allocations of
// the members, and wall-clock time (fgprof: on-CPU and off-CPU alike, so
// the flame graph shows where a request waits).
var profileKinds = []string{"cpu", "allocs", "wall"}

// profilerFrames match the functions of the profilers themselves: the
// admin handlers (which start the CPU profile and compute deltas), the
// CPU profile's writer, and fgprof's sampling. runtime/pprof.Do and the
// label functions are not among them: the member runs its work under
// them.
var profilerFrames = regexp.MustCompile(`^(net/http/pprof\.|internal/profile\.|github\.com/felixge/fgprof\.|runtime/pprof\.profileWriter|runtime/pprof\.\(\*profileBuilder\))`)

// topN is the number of functions kept in a profile's flat top list.
const topN = 8

func (p *caseProfiler) Start(ctx context.Context, c workload.Case, rounds time.Duration) func() []report.Profile {
	seconds := max(1, int(math.Ceil(rounds.Seconds())))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  []report.Profile
		errs []string
	)
	keep := func(prof report.Profile, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err.Error())
			return
		}
		got = append(got, prof)
	}
	for i, admin := range p.admins {
		for _, kind := range p.kinds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keep(p.capture(ctx, c.ID(), c.API, i, admin, kind, seconds))
			}()
		}
	}
	var stopClient func() error
	var clientWall bytes.Buffer
	if p.client && slices.Contains(p.kinds, "wall") {
		stopClient = fgprof.Start(&clientWall, fgprof.FormatPprof)
	}
	return func() []report.Profile {
		if stopClient != nil {
			if err := stopClient(); err != nil {
				keep(report.Profile{}, fmt.Errorf("client wall-clock profile: %w", err))
			} else if prof, err := profile.Parse(bytes.NewReader(clientWall.Bytes())); err != nil {
				keep(report.Profile{}, fmt.Errorf("client wall-clock profile: %w", err))
			} else {
				keep(p.write(c.ID(), c.API, "client", "client", "wall", seconds, prof))
			}
		}
		wg.Wait()
		for _, e := range errs {
			fmt.Fprintf(p.warn, "  %s: profile: %s\n", c.ID(), e)
		}
		slices.SortFunc(got, func(a, b report.Profile) int { return strings.Compare(a.File, b.File) })
		return got
	}
}

// capture takes one profile of member (0-based) at admin while the case
// id runs through api, and writes it.
func (p *caseProfiler) capture(ctx context.Context, id, api string, member int, admin, kind string, seconds int) (report.Profile, error) {
	_, prof, err := profiling.Fetch(ctx, admin, kind, seconds)
	if err != nil {
		return report.Profile{}, err
	}
	return p.write(id, api, fmt.Sprintf("member%d", member+1), admin, kind, seconds, prof)
}

// write labels the samples of one profile taken while the case id ran
// through api (who is "member1", "client"...; from the admin address, or
// "client"), writes it and its flame graph, and summarizes it.
func (p *caseProfiler) write(id, api, who, from, kind string, seconds int, prof *profile.Profile) (report.Profile, error) {
	labelSamples(prof, map[string]string{"case": id, "api": api})
	stem := filepath.Join(p.dir, fmt.Sprintf("%s.%s.%s", slug(id), who, kind))
	f, err := os.Create(stem + ".pb.gz")
	if err != nil {
		return report.Profile{}, err
	}
	if err := prof.Write(f); err != nil {
		_ = f.Close()
		return report.Profile{}, fmt.Errorf("writing the %s profile of %s: %w", kind, from, err)
	}
	if err := f.Close(); err != nil {
		return report.Profile{}, err
	}
	// The flame graph and the top list leave out the profilers' own work
	// (the CPU profile's buffers and encoding show in the allocation
	// profile taken at the same time); the profile keeps everything.
	prof.FilterSamplesByName(nil, profilerFrames, nil, nil)
	g, err := profiling.NewFlameGraph(prof, fmt.Sprintf("%s profile of %s during %s (%ds)", kind, from, id, seconds))
	if err != nil {
		return report.Profile{}, err
	}
	svg, err := os.Create(stem + ".svg")
	if err != nil {
		return report.Profile{}, err
	}
	if err := g.WriteSVG(svg); err != nil {
		_ = svg.Close()
		return report.Profile{}, err
	}
	if err := svg.Close(); err != nil {
		return report.Profile{}, err
	}
	return report.Profile{Member: from, Kind: kind, API: api, File: stem + ".pb.gz", Top: flatTop(prof, topN)}, nil
}

// labelSamples sets the string labels on every sample of p.
func labelSamples(p *profile.Profile, labels map[string]string) {
	for _, s := range p.Sample {
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		for k, v := range labels {
			s.Label[k] = []string{v}
		}
	}
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
