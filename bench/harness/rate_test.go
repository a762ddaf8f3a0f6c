package harness

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func instantOps(want int64) func(int) Op {
	return func(int) Op { return func(context.Context) (int64, error) { return want, nil } }
}

func TestMeasureRateKeepsTheSchedule(t *testing.T) {
	p := RateProtocol{Rate: 200, Threads: 4, Warmup: 100 * time.Millisecond, Duration: 500 * time.Millisecond}
	var done atomic.Int64
	var phases []Phase
	rounds := 0
	hooks := Hooks{Phase: func(ph Phase) { phases = append(phases, ph) }, Rounds: func() func() { rounds++; return func() {} }}
	start := time.Now()
	m, err := MeasureRate(context.Background(), p, "X/case/SQL", 7, instantOps(7), &done, hooks)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 590*time.Millisecond, "the last requests are due at 95 ms of the warm-up and 495 ms of the schedule")
	assert.Equal(t, []Phase{PhaseValidate, PhaseWarmup, "200/s for 500ms"}, phases)
	assert.Equal(t, 1, rounds)
	assert.True(t, m.Checked)
	assert.Equal(t, int64(7), m.Check)
	assert.Equal(t, int64(100), m.Scheduled)
	assert.Equal(t, int64(100), m.Completed)
	assert.Zero(t, m.Unsent)
	assert.Equal(t, int64(100), m.Latency.Count())
	// The warm-up's requests (20, fewer if this process was held back past
	// the warm-up's end) count in the progress too.
	assert.Greater(t, done.Load(), int64(100), "progress counts the warm-up's requests")
	assert.LessOrEqual(t, done.Load(), int64(120))
	// An instant system keeps the schedule unless this process itself is
	// held back (a loaded machine can delay the last send past the slack).
	assert.Equal(t, m.EndLag <= p.KeptUpSlack(), m.KeptUp, "end lag %v, slack %v", m.EndLag, p.KeptUpSlack())
	assert.Equal(t, 100*time.Millisecond, p.KeptUpSlack(), "a hundredth of a short schedule is less than 100 ms")
	assert.Equal(t, 600*time.Millisecond, RateProtocol{Duration: time.Minute}.KeptUpSlack(), "a hundredth of a minute")
	assert.InEpsilon(t, 200, m.AchievedRate, 0.5)
}

// TestMeasureRateFallsBehind has one worker whose requests take 20 ms
// face 200 requests per second: it sends 50 a second, falls behind, and
// gives up on the requests it has not sent half a schedule after its end.
func TestMeasureRateFallsBehind(t *testing.T) {
	p := RateProtocol{Rate: 200, Threads: 1, Duration: 500 * time.Millisecond}
	slow := func(int) Op {
		return func(ctx context.Context) (int64, error) { time.Sleep(20 * time.Millisecond); return 1, nil }
	}
	m, err := MeasureRate(context.Background(), p, "X", 1, slow, nil, Hooks{})
	require.NoError(t, err)
	assert.False(t, m.KeptUp)
	assert.Equal(t, int64(100), m.Scheduled)
	assert.Positive(t, m.Unsent)
	assert.Less(t, m.Completed, int64(40), "at most 750 ms of 20 ms requests")
	assert.Equal(t, m.Scheduled, m.Completed+m.Unsent)
	assert.Equal(t, m.Scheduled, m.Latency.Count(), "unsent requests are recorded with the time they waited")
	assert.Less(t, m.AchievedRate, 100.0)
	assert.Greater(t, m.Latency.Max(), 200*time.Millisecond, "the backlog shows in the latencies")
}

func TestMeasureRateFailures(t *testing.T) {
	boom := errors.New("boom")
	p := RateProtocol{Rate: 100, Threads: 2, Duration: 200 * time.Millisecond}
	_, err := MeasureRate(context.Background(), p, "X", 1, instantOps(2), nil, Hooks{})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, ValidationError{Case: "X", Got: 2, Want: 1}, *ve)

	var calls atomic.Int64
	_, err = MeasureRate(context.Background(), p, "X", 1, func(int) Op {
		return func(context.Context) (int64, error) {
			if calls.Add(1) > 5 {
				return 0, boom
			}
			return 1, nil
		}
	}, nil, Hooks{})
	assert.ErrorIs(t, err, boom)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = MeasureRate(ctx, RateProtocol{Rate: 1, Threads: 1, Duration: time.Hour}, "X", 1, instantOps(1), nil, Hooks{})
	assert.ErrorIs(t, err, context.Canceled)

	for _, tc := range []struct {
		p    RateProtocol
		flag string
	}{
		{RateProtocol{Rate: 0, Threads: 1, Duration: time.Second}, "rate"},
		{RateProtocol{Rate: -3, Threads: 1, Duration: time.Second}, "rate"},
		{RateProtocol{Rate: 1e9, Threads: 1, Duration: time.Hour}, "rate"},
		{RateProtocol{Rate: 1, Threads: 0, Duration: time.Second}, "threads"},
		{RateProtocol{Rate: 1, Threads: 1}, "duration"},
		{RateProtocol{Rate: 1, Threads: 1, Duration: time.Second, Warmup: -time.Second}, "warmup"},
	} {
		_, err := MeasureRate(context.Background(), tc.p, "X", 1, nil, nil, Hooks{})
		configErrorOn(tc.flag)(t, err)
	}
}

// stallingSystem answers a request in about a millisecond, except that it
// stalls for a second once: a request that arrives during the stall
// completes when the stall ends.
type stallingSystem struct {
	mu         sync.Mutex
	from, till time.Time
}

const stall = time.Second

// stallIn makes the system stall from d after now.
func (s *stallingSystem) stallIn(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.from = time.Now().Add(d)
	s.till = s.from.Add(stall)
}

func (s *stallingSystem) op(int) Op {
	return func(ctx context.Context) (int64, error) {
		s.mu.Lock()
		from, till := s.from, s.till
		s.mu.Unlock()
		if now := time.Now(); !from.IsZero() && !now.Before(from) && now.Before(till) {
			time.Sleep(till.Sub(now))
		} else {
			time.Sleep(time.Millisecond)
		}
		return 1, nil
	}
}

// TestStallShowsInOpenLoopOnly injects a one-second stall into a 4 s run
// and measures it both ways. Open loop at 250 requests per second, the
// requests scheduled during the stall wait for its end: the one due x
// after the stall began waits 1 s − x, so the 1% of the run's requests due
// in the stall's first 40 ms (0.01 × 4 s) wait at least 960 ms, and p99
// must show at least that queueing delay. Closed loop, each thread sends
// one request into the stall and none while it waits: 4 requests of
// thousands see it, so it shows in the maximum and not in p99.
func TestStallShowsInOpenLoopOnly(t *testing.T) {
	const run = 4 * time.Second
	queueingAtP99 := stall - run/100
	t.Run("open loop", func(t *testing.T) {
		t.Parallel()
		var sys stallingSystem
		p := RateProtocol{Rate: 250, Threads: 16, Duration: run}
		m, err := MeasureRate(context.Background(), p, "stall", 1, sys.op, nil, Hooks{Rounds: func() func() {
			sys.stallIn(time.Second)
			return func() {}
		}})
		require.NoError(t, err)
		require.Equal(t, int64(1000), m.Latency.Count())
		t.Logf("open loop: p50 %v, p90 %v, p99 %v, max %v; kept up %v (end lag %v)", m.Latency.Percentile(50),
			m.Latency.Percentile(90), m.Latency.Percentile(99), m.Latency.Max(), m.KeptUp, m.EndLag)
		assert.GreaterOrEqual(t, m.Latency.Percentile(99), queueingAtP99-10*time.Millisecond,
			"p99 shows the stall's queueing delay")
		assert.GreaterOrEqual(t, m.Latency.Max(), stall-10*time.Millisecond)
		assert.Less(t, m.Latency.Percentile(50), 200*time.Millisecond, "most requests did not meet the stall")
	})
	t.Run("closed loop", func(t *testing.T) {
		t.Parallel()
		var sys stallingSystem
		p := Protocol{Threads: 4, Duration: run, Rounds: 1}
		m, err := Measure(context.Background(), p, "stall", 1, sys.op, nil, Hooks{Rounds: func() func() {
			sys.stallIn(time.Second)
			return func() {}
		}})
		require.NoError(t, err)
		t.Logf("closed loop: %d requests, p50 %v, p90 %v, p99 %v, max %v", m.Latency.Count(), m.Latency.Percentile(50),
			m.Latency.Percentile(90), m.Latency.Percentile(99), m.Latency.Max())
		assert.GreaterOrEqual(t, m.Latency.Max(), stall/2, "the stall happened (the first request into it met most of it)")
		assert.Less(t, m.Latency.Percentile(99), stall/10, "coordinated omission hides the stall from p99")
	})
}
