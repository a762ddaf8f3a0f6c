package harness

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/report"
)

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
	require.NoError(t, err)
	assert.True(t, m.Checked)
	assert.Equal(t, int64(42), m.Check)
	assert.Equal(t, []Phase{PhaseValidate, PhaseWarmup, "round 1/3", "round 2/3", "round 3/3"}, phases)
	assert.Equal(t, 1, roundsStarted, "the rounds hook starts once")
	assert.Equal(t, 1, roundsEnded, "the rounds hook ends once")
	require.Len(t, m.RoundOpsPerSec, 3)
	var total int64
	for t := 0; t < threads; t++ {
		total += calls[t].Load()
	}
	assert.Equal(t, total, done.Load(), "progress counts every operation")
	assert.Positive(t, m.Ops)
	assert.Less(t, m.Ops, total, "the warm-up's operations do not count")
	assert.Positive(t, m.OpsPerSec)
	assert.Equal(t, report.Median(m.RoundOpsPerSec), m.OpsPerSec, "ops/s is the median of the rounds'")
	assert.Equal(t, m.Ops, m.Latency.Count(), "every measured operation's latency is recorded")
	assert.LessOrEqual(t, m.Latency.Percentile(50), m.Latency.Percentile(99))
	assert.LessOrEqual(t, m.Latency.Percentile(99), m.Latency.Max())
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
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, ValidationError{Case: "X", Got: 7, Want: 1}, *ve)
		}},
		{"validation run fails", p, func(int) Op {
			return func(context.Context) (int64, error) { return 0, boom }
		}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, boom)
			assert.ErrorContains(t, err, "validation run")
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
			assert.ErrorIs(t, err, boom)
			assert.ErrorContains(t, err, "round 1")
		}},
		{"no threads", Protocol{Threads: 0, Duration: time.Second, Rounds: 1}, nil, configErrorOn("threads")},
		{"no rounds", Protocol{Threads: 1, Duration: time.Second}, nil, configErrorOn("rounds")},
		{"zero duration", Protocol{Threads: 1, Rounds: 1}, nil, configErrorOn("duration")},
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
	assert.ErrorIs(t, err, context.Canceled)
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
		{"a rate", func(c *Config) { c.Rates = []Rate{{PerSecond: 24}} }, ""},
		{"no rate", func(c *Config) { c.Rates = []Rate{{PerSecond: 0}} }, "rate"},
		{"a rate, no threads", func(c *Config) { c.Rates, c.Threads = []Rate{{PerSecond: 24}}, 0 }, "threads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Full
			tc.edit(&c)
			err := c.Validate()
			if tc.flag == "" {
				assert.NoError(t, err)
				return
			}
			configErrorOn(tc.flag)(t, err)
		})
	}
}

// configErrorOn checks that an error is a ConfigError naming the flag.
func configErrorOn(flag string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, flag, ce.Flag)
		assert.ErrorContains(t, err, "--"+flag)
	}
}
