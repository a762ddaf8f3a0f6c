package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atolldb/atoll/bench/report"
)

func TestPercentileNearestRank(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one value", ms(7), 0.99, 7 * time.Millisecond},
		{"p50 of 1..100 is the 50th", hundred, 0.50, 50 * time.Millisecond},
		{"p90 of 1..100 is the 90th", hundred, 0.90, 90 * time.Millisecond},
		{"p99 of 1..100 is the 99th", hundred, 0.99, 99 * time.Millisecond},
		{"p50 of four rounds up to the 2nd", ms(1, 2, 3, 4), 0.50, 2 * time.Millisecond},
		{"p90 of four is the 4th (ceil 3.6)", ms(1, 2, 3, 4), 0.90, 4 * time.Millisecond},
		{"p100 is the max", ms(1, 2, 3), 1, 3 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.sorted, tc.q); got != tc.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tc.sorted, tc.q, got, tc.want)
			}
		})
	}
}

// counterOp returns thread t's operation: it counts its calls and returns
// the check the case defines (want), or another for the validation
// thread when bad is set.
func counterOps(want int64, calls *[]atomic.Int64, badValidation bool, threads int) func(int) Op {
	return func(t int) Op {
		return func(ctx context.Context) (int64, error) {
			if t == threads+1000 {
				if badValidation {
					return want + 1, nil
				}
				return want, nil
			}
			(*calls)[t].Add(1)
			return want, nil
		}
	}
}

func TestMeasureRunsTheProtocol(t *testing.T) {
	const threads = 3
	p := Protocol{Threads: threads, Warmup: 20 * time.Millisecond, Duration: 50 * time.Millisecond, Rounds: 3}
	calls := make([]atomic.Int64, threads+1)
	var done atomic.Int64
	var phases []Phase
	roundsStarted, roundsEnded := 0, 0
	hooks := Hooks{
		Phase: func(ph Phase) { phases = append(phases, ph) },
		Rounds: func() func() {
			roundsStarted++
			return func() { roundsEnded++ }
		},
	}
	m, err := Measure(context.Background(), p, "X/case/SQL", 42, counterOps(42, &calls, false, threads), &done, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Checked || m.Check != 42 {
		t.Errorf("check %d (checked %v), want 42", m.Check, m.Checked)
	}
	want := []Phase{PhaseValidate, PhaseWarmup, "round 1/3", "round 2/3", "round 3/3"}
	if !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	if roundsStarted != 1 || roundsEnded != 1 {
		t.Errorf("rounds hook started %d and ended %d times, want once each", roundsStarted, roundsEnded)
	}
	if len(m.RoundOpsPerSec) != 3 {
		t.Fatalf("%d round throughputs, want 3", len(m.RoundOpsPerSec))
	}
	var total int64
	for t := 0; t < threads; t++ {
		total += calls[t].Load()
	}
	if done.Load() != total {
		t.Errorf("progress counted %d operations, the threads ran %d", done.Load(), total)
	}
	if m.Ops <= 0 || m.Ops >= total {
		t.Errorf("measured %d operations of %d run (the warm-up's must not count)", m.Ops, total)
	}
	if m.OpsPerSec != report.Median(m.RoundOpsPerSec) || m.OpsPerSec <= 0 {
		t.Errorf("ops/s %v, want the median of %v", m.OpsPerSec, m.RoundOpsPerSec)
	}
	if !(m.P50 <= m.P90 && m.P90 <= m.P99 && m.P99 <= m.Max) {
		t.Errorf("percentiles out of order: p50 %v p90 %v p99 %v max %v", m.P50, m.P90, m.P99, m.Max)
	}
}

func TestMeasureFailures(t *testing.T) {
	boom := errors.New("boom")
	p := Protocol{Threads: 2, Warmup: 10 * time.Millisecond, Duration: 20 * time.Millisecond, Rounds: 1}
	for _, tc := range []struct {
		name  string
		p     Protocol
		newOp func(int) Op
		check func(t *testing.T, err error)
	}{
		{"validation check differs", p, func(t int) Op {
			return func(context.Context) (int64, error) {
				if t == 1002 {
					return 7, nil
				}
				return 1, nil
			}
		}, func(t *testing.T, err error) {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Got != 7 || ve.Want != 1 || ve.Case != "X" {
				t.Errorf("error %v, want a ValidationError with got 7, want 1", err)
			}
		}},
		{"validation run fails", p, func(int) Op {
			return func(context.Context) (int64, error) { return 0, boom }
		}, func(t *testing.T, err error) {
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), "validation run") {
				t.Errorf("error %v, want boom from the validation run", err)
			}
		}},
		{"an operation fails in the rounds", Protocol{Threads: 2, Duration: 20 * time.Millisecond, Rounds: 2}, func(t int) Op {
			n := 0
			return func(context.Context) (int64, error) {
				if t == 1 {
					n++
					if n > 3 {
						return 0, boom
					}
				}
				return 1, nil
			}
		}, func(t *testing.T, err error) {
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), "round 1") {
				t.Errorf("error %v, want boom in round 1", err)
			}
		}},
		{"no threads", Protocol{Threads: 0, Duration: time.Second, Rounds: 1}, nil, func(t *testing.T, err error) {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Flag != "threads" {
				t.Errorf("error %v, want a ConfigError on --threads", err)
			}
		}},
		{"no rounds", Protocol{Threads: 1, Duration: time.Second}, nil, func(t *testing.T, err error) {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Flag != "rounds" {
				t.Errorf("error %v, want a ConfigError on --rounds", err)
			}
		}},
		{"zero duration", Protocol{Threads: 1, Rounds: 1}, nil, func(t *testing.T, err error) {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Flag != "duration" {
				t.Errorf("error %v, want a ConfigError on --duration", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Measure(context.Background(), tc.p, "X", 1, tc.newOp, nil, Hooks{})
			tc.check(t, err)
		})
	}
}

func TestMeasureStopsWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := Protocol{Threads: 2, Warmup: time.Hour, Duration: time.Hour, Rounds: 1}
	var calls atomic.Int64
	_, err := Measure(ctx, p, "X", 1, func(int) Op {
		return func(ctx context.Context) (int64, error) {
			if calls.Add(1) == 100 {
				cancel()
			}
			return 1, ctx.Err()
		}
	}, nil, Hooks{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		flag string
	}{
		{"full is valid", func(*Config) {}, ""},
		{"no workload", func(c *Config) { c.WorkloadA, c.WorkloadB = false, false }, "workloads"},
		{"no A entries", func(c *Config) { c.AEntries = 0 }, "a-entries"},
		{"unknown kind", func(c *Config) { c.Kinds = []string{"json"} }, "kinds"},
		{"unknown size", func(c *Config) { c.Sizes = []string{"huge"} }, "sizes"},
		{"negative warm-up", func(c *Config) { c.BWarmup = -time.Second }, "warmup"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Full
			tc.edit(&c)
			err := c.Validate()
			var ce *ConfigError
			switch {
			case tc.flag == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.flag != "" && (!errors.As(err, &ce) || ce.Flag != tc.flag):
				t.Errorf("error %v, want a ConfigError on --%s", err, tc.flag)
			}
		})
	}
}
