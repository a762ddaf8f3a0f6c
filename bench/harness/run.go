package harness

import (
	"context"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/atolldb/atoll/bench/latency"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
	"github.com/atolldb/atoll/internal/jrand"
	"github.com/atolldb/atoll/pkg/client"
)

// Config selects the workloads and sets their protocol.
type Config struct {
	WorkloadA, WorkloadB bool
	Threads              int
	AEntries, BEntries   int
	AWarmup, ADuration   time.Duration
	BWarmup, BDuration   time.Duration
	Rounds               int
	// Only, when set, runs only the cases whose id ("A3/sum IDS/SQL",
	// "B COMPACT SMALL/read/MAP") it matches.
	Only *regexp.Regexp
	// Kinds and Sizes of workload B to run (default: all, in the
	// workload's order).
	Kinds, Sizes []string
	// Rates, when set, runs the latency mode (RateProtocol) instead of the
	// throughput mode: each selected case that a rate matches (the first
	// that does) runs one schedule at that rate, with the warm-up and
	// round duration of its workload as the warm-up and the schedule's
	// length, and Threads as the requests in flight at most. Cases no rate
	// matches are left out.
	Rates []Rate
}

// Rate is the rate of the cases whose id Cases matches (every case when
// Cases is nil), in requests per second per API.
type Rate struct {
	Cases     *regexp.Regexp
	PerSecond float64
}

// RateFor returns the rate of the case id, and false when no rate
// matches it.
func (c Config) RateFor(id string) (float64, bool) {
	for _, r := range c.Rates {
		if r.Cases == nil || r.Cases.MatchString(id) {
			return r.PerSecond, true
		}
	}
	return 0, false
}

// Full and Quick are the workloads' full protocol and a protocol that runs
// both workloads in under a minute (the workloads' smoke sizes).
var (
	Full = Config{WorkloadA: true, WorkloadB: true, Threads: 8, AEntries: 100_000, BEntries: 100_000,
		AWarmup: 2 * time.Second, ADuration: 4 * time.Second, BWarmup: 2 * time.Second, BDuration: 3 * time.Second, Rounds: 3}
	Quick = Config{WorkloadA: true, WorkloadB: true, Threads: 8, AEntries: 2_000, BEntries: 2_000,
		AWarmup: 100 * time.Millisecond, ADuration: 300 * time.Millisecond, BWarmup: 100 * time.Millisecond, BDuration: 200 * time.Millisecond, Rounds: 1}
)

// Validate checks every figure of the configuration.
func (c Config) Validate() error {
	if !c.WorkloadA && !c.WorkloadB {
		return &ConfigError{Flag: "workloads", Value: "none", Why: "select workload A, B or both"}
	}
	if c.WorkloadA && c.AEntries < 1 {
		return &ConfigError{Flag: "a-entries", Value: fmt.Sprint(c.AEntries), Why: "want at least 1"}
	}
	if c.WorkloadB && c.BEntries < 1 {
		return &ConfigError{Flag: "b-entries", Value: fmt.Sprint(c.BEntries), Why: "want at least 1"}
	}
	for _, k := range c.Kinds {
		if !slices.Contains(workload.BKinds, k) {
			return &ConfigError{Flag: "kinds", Value: k, Why: "want one of " + strings.Join(workload.BKinds, ", ")}
		}
	}
	for _, s := range c.Sizes {
		if !slices.Contains(workload.BSizes, s) {
			return &ConfigError{Flag: "sizes", Value: s, Why: "want one of " + strings.Join(workload.BSizes, ", ")}
		}
	}
	if len(c.Rates) > 0 {
		for _, r := range c.Rates {
			if err := (RateProtocol{Rate: r.PerSecond, Threads: c.Threads, Warmup: c.AWarmup, Duration: c.ADuration}).Validate(); err != nil {
				return err
			}
			if err := (RateProtocol{Rate: r.PerSecond, Threads: c.Threads, Warmup: c.BWarmup, Duration: c.BDuration}).Validate(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := (Protocol{Threads: c.Threads, Warmup: c.AWarmup, Duration: c.ADuration, Rounds: c.Rounds}).Validate(); err != nil {
		return err
	}
	return (Protocol{Threads: c.Threads, Warmup: c.BWarmup, Duration: c.BDuration, Rounds: c.Rounds}).Validate()
}

// Observer follows a run: messages between cases (loading), and each
// case as it starts, changes phase and ends. done counts the case's
// operations completed so far. Calls come from one goroutine.
type Observer interface {
	Message(msg string)
	CaseStart(c workload.Case, expected time.Duration, done *atomic.Int64)
	Phase(c workload.Case, p Phase)
	CaseDone(c report.Case)
}

// Profiler captures profiles while a case's rounds (or its measured
// schedule) run: Start is called as they start, with their total
// duration; the function it returns is called when they ended and
// returns what was captured.
type Profiler interface {
	Start(ctx context.Context, c workload.Case, rounds time.Duration) (stop func() []report.Profile)
}

// Run runs the selected workloads on the cluster c is connected to, in
// the workload's order, and adds every case and every workload B map to
// out (its environment is the caller's to fill). A case that fails is
// recorded with its error and the run goes on; loading errors end the run.
func Run(ctx context.Context, c *client.Client, cfg Config, obs Observer, prof Profiler, out *report.Run) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	out.ClientThreads, out.Rounds = cfg.Threads, cfg.Rounds
	if len(cfg.Rates) > 0 {
		out.RateMode, out.Rounds = true, 1
	}
	if cfg.WorkloadA {
		out.AEntries = cfg.AEntries
		out.AWarmupSeconds, out.ADurationSeconds = report.Float(cfg.AWarmup.Seconds()), report.Float(cfg.ADuration.Seconds())
	}
	if cfg.WorkloadB {
		out.BEntries = cfg.BEntries
		out.BWarmupSeconds, out.BDurationSeconds = report.Float(cfg.BWarmup.Seconds()), report.Float(cfg.BDuration.Seconds())
	}
	if out.WorkloadB == nil {
		out.WorkloadB = map[string]report.BInfo{}
	}
	r := &runner{c: c, cfg: cfg, obs: obs, prof: prof, out: out}
	if cfg.WorkloadA {
		if err := r.workloadA(ctx); err != nil {
			return err
		}
	}
	if cfg.WorkloadB {
		if err := r.workloadB(ctx); err != nil {
			return err
		}
	}
	return nil
}

type runner struct {
	c    *client.Client
	cfg  Config
	obs  Observer
	prof Profiler
	out  *report.Run
}

func (r *runner) selected(cs workload.Case) bool {
	if len(r.cfg.Rates) > 0 {
		if _, ok := r.cfg.RateFor(cs.ID()); !ok {
			return false
		}
	}
	return r.cfg.Only == nil || r.cfg.Only.MatchString(cs.ID())
}

func (r *runner) workloadA(ctx context.Context) error {
	cases := workload.ACases(r.cfg.AEntries)
	if !slices.ContainsFunc(cases, r.selected) {
		return nil
	}
	n := r.cfg.AEntries
	r.obs.Message(fmt.Sprintf("workload A: loading 4 maps of %d entries", n))
	t0 := time.Now()
	if err := workload.LoadA(ctx, r.c, n, r.cfg.Threads); err != nil {
		return fmt.Errorf("workload A: %w", err)
	}
	r.obs.Message(fmt.Sprintf("workload A: loaded in %.1fs", time.Since(t0).Seconds()))
	p := Protocol{Threads: r.cfg.Threads, Warmup: r.cfg.AWarmup, Duration: r.cfg.ADuration, Rounds: r.cfg.Rounds}
	for _, cs := range cases {
		if r.selected(cs) {
			r.runCase(ctx, cs, p)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return workload.DestroyA(ctx, r.c)
}

func (r *runner) workloadB(ctx context.Context) error {
	kinds, sizes := r.cfg.Kinds, r.cfg.Sizes
	if len(kinds) == 0 {
		kinds = workload.BKinds
	}
	if len(sizes) == 0 {
		sizes = workload.BSizes
	}
	n := r.cfg.BEntries
	p := Protocol{Threads: r.cfg.Threads, Warmup: r.cfg.BWarmup, Duration: r.cfg.BDuration, Rounds: r.cfg.Rounds}
	for _, size := range workload.BSizes {
		if !slices.Contains(sizes, size) {
			continue
		}
		for _, kind := range workload.BKinds {
			if !slices.Contains(kinds, kind) {
				continue
			}
			read, err := workload.BReadCase(kind, size, n)
			if err != nil {
				return err
			}
			write, err := workload.BWriteCase(kind, size, n)
			if err != nil {
				return err
			}
			var queries []workload.Case
			if workload.Queryable(kind) {
				queries = workload.BQueryCases(kind, size, n)
			}
			if !slices.ContainsFunc(append([]workload.Case{read, write}, queries...), r.selected) {
				continue
			}
			group := workload.BGroup(kind, size)
			key := strings.TrimPrefix(group, "B ")
			t0 := time.Now()
			r.obs.Message(fmt.Sprintf("%s: loading %d entries", group, n))
			if err := workload.LoadB(ctx, r.c, kind, size, n, r.cfg.Threads); err != nil {
				return fmt.Errorf("%s: %w", group, err)
			}
			loadSeconds := time.Since(t0).Seconds()
			info, err := workload.DescribeB(ctx, r.c, kind, size, n)
			if err != nil {
				return fmt.Errorf("%s: %w", group, err)
			}
			r.out.WorkloadB[key] = report.BInfo{
				Map: info.Map, Entries: n, LoadSeconds: report.Float(loadSeconds),
				ValueDataTotalSize: info.ValueDataSize, ByteArrayLength: info.ByteArrayLength,
				OwnedEntryCount: info.OwnedEntryCount, OwnedEntryMemoryCost: info.OwnedEntryMemoryCost,
				MemoryCostPerEntry: report.Float(info.MemoryCostPerEntry()),
				BackupEntryCount:   info.BackupEntryCount, BackupEntryMemoryCost: info.BackupEntryMemoryCost,
			}
			r.out.BOrder = append(r.out.BOrder, key)
			r.obs.Message(fmt.Sprintf("%s: loaded in %.1fs, value %d B, memory cost %.1f B/entry", group, loadSeconds, info.ValueDataSize, info.MemoryCostPerEntry()))
			if r.selected(read) {
				r.runCase(ctx, read, p)
			}
			if len(queries) > 0 {
				if err := workload.Exec(ctx, r.c, workload.BMapping(kind, size)); err != nil {
					return fmt.Errorf("%s: %w", group, err)
				}
				for _, q := range queries {
					if r.selected(q) {
						r.runCase(ctx, q, p)
					}
				}
				if err := workload.Exec(ctx, r.c, workload.BDropMapping(kind, size)); err != nil {
					return fmt.Errorf("%s: %w", group, err)
				}
			}
			if r.selected(write) {
				r.runCase(ctx, write, p)
			}
			if err := workload.DestroyB(ctx, r.c, kind, size); err != nil {
				return fmt.Errorf("%s: %w", group, err)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return nil
}

// runCase measures one case by the protocol p (throughput mode) or,
// when the configuration has rates, at the case's rate with p's warm-up
// and round duration (latency mode), and records it.
func (r *runner) runCase(ctx context.Context, cs workload.Case, p Protocol) {
	var done atomic.Int64
	rate, rateMode := r.cfg.RateFor(cs.ID())
	rp := RateProtocol{Rate: rate, Threads: p.Threads, Warmup: p.Warmup, Duration: p.Duration}
	expected, measured := p.Expected(), time.Duration(p.Rounds)*p.Duration
	if rateMode {
		expected, measured = rp.Expected(), rp.Duration
	}
	r.obs.CaseStart(cs, expected, &done)
	t0 := time.Now()
	want := cs.Want
	rc := report.Case{ID: cs.ID(), Group: cs.Group, Name: cs.Name, API: cs.API, Map: cs.Map, Text: cs.Text, Expected: &want,
		OpsPerSecMedian: report.NaN(), P50ms: report.NaN(), P90ms: report.NaN(), P99ms: report.NaN(), P999ms: report.NaN(),
		P9999ms: report.NaN(), Maxms: report.NaN(), ProcessCPU: report.NaN()}
	hooks := Hooks{Phase: func(ph Phase) { r.obs.Phase(cs, ph) }}
	hooks.Rounds = func() func() {
		cpu0, t0 := ProcessCPU(), time.Now()
		var stop func() []report.Profile
		if r.prof != nil {
			stop = r.prof.Start(ctx, cs, measured)
		}
		return func() {
			rc.ProcessCPU = report.Float((ProcessCPU() - cpu0).Seconds() / time.Since(t0).Seconds())
			if stop != nil {
				rc.Profiles = stop()
			}
		}
	}
	newOp := func(t int) Op {
		rnd := jrand.New(cs.Seed + int64(t))
		return func(ctx context.Context) (int64, error) { return cs.Run(ctx, r.c, rnd) }
	}
	var (
		check   int64
		checked bool
		hist    *latency.Histogram
		err     error
	)
	if rateMode {
		var m RateMeasurement
		m, err = MeasureRate(ctx, rp, cs.ID(), cs.Want, newOp, &done, hooks)
		check, checked, hist = m.Check, m.Checked, m.Latency
		if err == nil {
			keptUp := m.KeptUp
			rc.Rate, rc.AchievedRate, rc.KeptUp = report.Float(rate), report.Float(m.AchievedRate), &keptUp
			rc.Scheduled, rc.Unsent, rc.Ops = m.Scheduled, m.Unsent, m.Completed
			rc.RoundOpsPerSec = []float64{m.AchievedRate}
			rc.OpsPerSecMedian = report.Float(m.AchievedRate)
		}
	} else {
		var m Measurement
		m, err = Measure(ctx, p, cs.ID(), cs.Want, newOp, &done, hooks)
		check, checked, hist = m.Check, m.Checked, m.Latency
		if err == nil {
			rc.Ops = m.Ops
			rc.RoundOpsPerSec = m.RoundOpsPerSec
			rc.OpsPerSecMedian = report.Float(m.OpsPerSec)
		}
	}
	if checked {
		rc.Check = &check
	}
	if err == nil {
		err = rc.SetLatency(hist)
	}
	if err != nil {
		rc.Error = err.Error()
		rc.OpsPerSecMedian = report.NaN()
	}
	rc.Load1 = report.Float(LoadAverage())
	rc.Seconds = report.Float(time.Since(t0).Seconds())
	r.out.Cases = append(r.out.Cases, rc)
	r.obs.CaseDone(rc)
}

// ProcessCPU is the CPU time this process has used (user and system).
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LoadAverage is the host's one-minute load average (NaN where
// /proc/loadavg does not exist), recorded as a noise indicator.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// CPUTimes is the machine's CPU time so far in clock ticks, from the cpu
// line of /proc/stat: Total is all of it, Steal the part the hypervisor
// ran other guests while this one had work (a noise indicator, as the
// load average is).
type CPUTimes struct{ Total, Steal uint64 }

// ReadCPUTimes reads the machine's CPU time; the zero value where
// /proc/stat does not exist.
func ReadCPUTimes() CPUTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTimes{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPULine(line)
}

// parseCPULine reads "cpu user nice system idle iowait irq softirq steal
// ..." (guest time is inside user and nice already); the zero value for
// anything else.
func parseCPULine(line string) CPUTimes {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return CPUTimes{}
	}
	var t CPUTimes
	for i, s := range f[1:9] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return CPUTimes{}
		}
		t.Total += v
		if i == 7 {
			t.Steal = v
		}
	}
	return t
}

// Sub returns the CPU time from a to t.
func (t CPUTimes) Sub(a CPUTimes) CPUTimes {
	if t.Total < a.Total || t.Steal < a.Steal {
		return CPUTimes{}
	}
	return CPUTimes{Total: t.Total - a.Total, Steal: t.Steal - a.Steal}
}

// Add returns the CPU time of t and a together.
func (t CPUTimes) Add(a CPUTimes) CPUTimes {
	return CPUTimes{Total: t.Total + a.Total, Steal: t.Steal + a.Steal}
}

// StealPercent is the share of the time that was stolen (0 for none).
func (t CPUTimes) StealPercent() float64 {
	if t.Total == 0 {
		return 0
	}
	return 100 * float64(t.Steal) / float64(t.Total)
}
