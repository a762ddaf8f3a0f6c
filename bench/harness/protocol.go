// Package harness runs the workloads of bench/WORKLOADS.md against an
// Atoll cluster by their measurement protocols. Throughput mode (closed
// loop): per case a validation run, a warm-up and timed rounds on C
// threads, reported as the median of the rounds' throughputs and the
// latency percentiles of every operation of every round. Latency mode
// (open loop, rate.go): requests scheduled at a fixed rate, each timed
// from the moment the schedule meant to send it. Latencies go into
// HdrHistograms (bench/latency).
package harness

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atolldb/atoll/bench/latency"
	"github.com/atolldb/atoll/bench/report"
)

// Protocol is how long and how wide one case runs.
type Protocol struct {
	Threads  int
	Warmup   time.Duration
	Duration time.Duration // of one round
	Rounds   int
}

// Validate checks the protocol's figures.
func (p Protocol) Validate() error {
	switch {
	case p.Threads < 1:
		return &ConfigError{Flag: "threads", Value: fmt.Sprint(p.Threads), Why: "want at least 1"}
	case p.Rounds < 1:
		return &ConfigError{Flag: "rounds", Value: fmt.Sprint(p.Rounds), Why: "want at least 1"}
	case p.Duration <= 0:
		return &ConfigError{Flag: "duration", Value: p.Duration.String(), Why: "want a positive duration"}
	case p.Warmup < 0:
		return &ConfigError{Flag: "warmup", Value: p.Warmup.String(), Why: "want zero or more"}
	}
	return nil
}

// Expected is how long the case's warm-up and rounds take.
func (p Protocol) Expected() time.Duration { return p.Warmup + time.Duration(p.Rounds)*p.Duration }

// ConfigError reports a setting that cannot be run.
type ConfigError struct {
	Flag, Value, Why string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Why) }

// ValidationError reports a case whose validation run returned another
// check than the workload defines.
type ValidationError struct {
	Case      string
	Got, Want int64
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: validation check %d, want %d", e.Case, e.Got, e.Want)
}

// Op is one operation of one thread; it returns the operation's check.
type Op func(ctx context.Context) (int64, error)

// Phase names a step of a case, for observers.
type Phase string

// The phases of a case, in order; rounds are "round 1/3" and so on.
const (
	PhaseValidate Phase = "validate"
	PhaseWarmup   Phase = "warm-up"
)

// Measurement is what the protocol measured of one case.
type Measurement struct {
	// Check is what the validation run returned; Checked says it returned.
	Check          int64
	Checked        bool
	Ops            int64
	RoundOpsPerSec []float64
	OpsPerSec      float64 // median of RoundOpsPerSec
	// Latency holds the latency of every operation of every round.
	Latency *latency.Histogram
}

// Hooks let a caller follow a case: Phase is called as each phase starts
// (PhaseValidate, PhaseWarmup, then "round i/R"); Rounds is called as the
// first measured round starts and the function it returns when the last
// one ended (profiles are taken in between). Both may be nil.
type Hooks struct {
	Phase  func(Phase)
	Rounds func() (end func())
}

// phase reports that ph starts, when there is a hook.
func (h Hooks) phase(ph Phase) {
	if h.Phase != nil {
		h.Phase(ph)
	}
}

// prepare starts a case: it returns invalid (the error of the protocol's
// Validate) when there is one, else makes every thread's operation
// (newOp(t), t < threads) and runs the validation run (thread
// threads+1000), whose check must be want; it stores the check and whether
// the run returned.
func prepare(ctx context.Context, invalid error, threads int, name string, want int64, newOp func(thread int) Op, h Hooks, check *int64, checked *bool) ([]Op, error) {
	if invalid != nil {
		return nil, invalid
	}
	ops := make([]Op, threads)
	for t := range ops {
		ops[t] = newOp(t)
	}
	h.phase(PhaseValidate)
	c, err := newOp(threads + 1000)(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: validation run: %w", name, err)
	}
	*check, *checked = c, true
	if c != want {
		return nil, &ValidationError{Case: name, Got: c, Want: want}
	}
	return ops, nil
}

// Measure runs one case by the protocol: newOp(t) makes thread t's
// operation (t = 0..Threads-1, and Threads+1000 for the validation run,
// whose check must be want), reused across the warm-up and every round.
// done, when not nil, counts the operations completed so far (progress).
// The first error of any operation ends the case with that error.
func Measure(ctx context.Context, p Protocol, name string, want int64, newOp func(thread int) Op, done *atomic.Int64, h Hooks) (Measurement, error) {
	var m Measurement
	ops, err := prepare(ctx, p.Validate(), p.Threads, name, want, newOp, h, &m.Check, &m.Checked)
	if err != nil {
		return m, err
	}
	h.phase(PhaseWarmup)
	if _, _, err := runPhase(ctx, ops, p.Warmup, nil, done); err != nil {
		return m, fmt.Errorf("%s: warm-up: %w", name, err)
	}
	lat := make([]*latency.Histogram, p.Threads)
	for t := range lat {
		lat[t] = latency.New()
	}
	var end func()
	if h.Rounds != nil {
		end = h.Rounds()
	}
	for round := 1; round <= p.Rounds; round++ {
		h.phase(Phase(fmt.Sprintf("round %d/%d", round, p.Rounds)))
		elapsed, n, err := runPhase(ctx, ops, p.Duration, lat, done)
		if err != nil {
			if end != nil {
				end()
			}
			return m, fmt.Errorf("%s: round %d: %w", name, round, err)
		}
		m.Ops += n
		m.RoundOpsPerSec = append(m.RoundOpsPerSec, float64(n)/elapsed.Seconds())
	}
	if end != nil {
		end()
	}
	m.Latency = latency.New()
	for _, l := range lat {
		m.Latency.Merge(l)
	}
	m.OpsPerSec = report.Median(m.RoundOpsPerSec)
	return m, nil
}

// runPhase runs every thread's operation in a loop until the phase's
// deadline: each thread reads the clock, stops once it is past the
// deadline, runs one operation and records its latency in lat[t] (when
// lat is not nil). An operation in flight at the deadline completes and
// counts. It returns the time from the start to the end of the last
// thread and the operations completed.
func runPhase(ctx context.Context, ops []Op, d time.Duration, lat []*latency.Histogram, done *atomic.Int64) (time.Duration, int64, error) {
	var (
		wg      sync.WaitGroup
		failure firstError
		count   atomic.Int64
		ends    = make([]time.Time, len(ops))
		start   = make(chan struct{})
		t0      time.Time
	)
	for t, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			deadline := t0.Add(d)
			var n int64
			for !failure.failed.Load() {
				s := time.Now()
				if !s.Before(deadline) {
					break
				}
				if _, err := op(ctx); err != nil {
					failure.set(err)
					break
				}
				if lat != nil {
					lat[t].Record(time.Since(s))
				}
				n++
				if done != nil {
					done.Add(1)
				}
			}
			ends[t] = time.Now()
			count.Add(n)
		}()
	}
	t0 = time.Now()
	close(start)
	wg.Wait()
	if err := failure.get(ctx); err != nil {
		return 0, 0, err
	}
	last := t0
	for _, e := range ends {
		if e.After(last) {
			last = e
		}
	}
	return last.Sub(t0), count.Load(), nil
}

// firstError keeps the first error of the goroutines of a phase; failed
// tells the others to stop.
type firstError struct {
	failed atomic.Bool
	mu     sync.Mutex
	err    error
}

func (f *firstError) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	f.failed.Store(true)
}

// get returns the first error, or ctx's when the goroutines stopped
// because it ended.
func (f *firstError) get(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		return ctx.Err()
	}
	return f.err
}
