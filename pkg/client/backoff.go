package client

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
)

// Clock is the time a Backoff waits on. Tests inject one that records the
// waits and fires at once.
type Clock interface {
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Backoff is a retry policy: binary exponential backoff with full jitter.
// Before retry i (0 for the first retry) it waits a random time in
// [0, min(Max, Initial·Multiplier^i)), after the least wait the member
// asked for (an error's RetryAfter), and it makes at most Attempts
// attempts in all. The zero value takes the defaults; a Backoff is a value
// and safe for concurrent use.
type Backoff struct {
	// Initial bounds the wait before the first retry (default 100ms).
	Initial time.Duration
	// Max caps the bound of every wait (default 5s).
	Max time.Duration
	// Multiplier grows the bound after each retry (default 2).
	Multiplier float64
	// Attempts is the most attempts, the first one included (default
	// 10); 1 turns retrying off.
	Attempts int
	// Clock is what waits (the real clock when nil).
	Clock Clock
	// Rand returns uniform numbers in [0, 1) (math/rand/v2 when nil).
	Rand func() float64
}

// withDefaults fills the zero fields.
func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 100 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 5 * time.Second
	}
	b.Max = max(b.Max, b.Initial)
	if b.Multiplier < 1 {
		b.Multiplier = 2
	}
	if b.Attempts <= 0 {
		b.Attempts = 10
	}
	if b.Clock == nil {
		b.Clock = realClock{}
	}
	if b.Rand == nil {
		b.Rand = rand.Float64
	}
	return b
}

// Bound returns the longest wait before retry i (0-based), the hint
// apart: min(Max, Initial·Multiplier^i).
func (b Backoff) Bound(retry int) time.Duration {
	b = b.withDefaults()
	d := float64(b.Initial) * math.Pow(b.Multiplier, float64(retry))
	return time.Duration(min(d, float64(b.Max)))
}

// Delay returns the wait before retry i: hint, then a uniform draw below
// Bound(i) (full jitter).
func (b Backoff) Delay(retry int, hint time.Duration) time.Duration {
	b = b.withDefaults()
	return max(hint, 0) + time.Duration(b.Rand()*float64(b.Bound(retry)))
}

// Budget returns the longest the retries of one call can wait in all,
// with a hint of at most hint before each: the retry budget.
func (b Backoff) Budget(hint time.Duration) time.Duration {
	b = b.withDefaults()
	var sum time.Duration
	for i := 0; i < b.Attempts-1; i++ {
		sum += b.Bound(i) + max(hint, 0)
	}
	return sum
}

// Wait waits d on the policy's clock, or until ctx ends.
func (b Backoff) Wait(ctx context.Context, d time.Duration) error {
	b = b.withDefaults()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-b.Clock.After(d):
		return nil
	}
}
