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

// Backoff is the client's one retry policy: exponential backoff with
// jitter. Before retry i (0 for the first retry) it waits a random time
// below the bound min(Max, Initial·Multiplier^i) — uniform in [0, bound)
// (full jitter) by default, or within ±Jitter of the bound — after the
// least wait the member asked for (an error's RetryAfter). Callers that
// count attempts make at most Attempts in all; the calls that retry until
// their context ends (Config.Retry) do not count them. The zero value
// takes the defaults; a Backoff is a value and safe for concurrent use.
type Backoff struct {
	// Initial bounds the wait before the first retry (default 100ms).
	Initial time.Duration
	// Max caps the bound of every wait (default 5s).
	Max time.Duration
	// Multiplier grows the bound after each retry (default 2).
	Multiplier float64
	// Jitter, when in (0, 1), draws each wait uniformly within ±Jitter
	// of the bound instead of below it; 0 (or any other value) means full
	// jitter.
	Jitter float64
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
	if b.Jitter <= 0 || b.Jitter >= 1 {
		b.Jitter = 0
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
// Bound(i) (full jitter), or within ±Jitter of it.
func (b Backoff) Delay(retry int, hint time.Duration) time.Duration {
	b = b.withDefaults()
	bound, r := float64(b.Bound(retry)), b.Rand()
	if b.Jitter > 0 {
		return max(hint, 0) + time.Duration(bound*(1-b.Jitter+2*b.Jitter*r))
	}
	return max(hint, 0) + time.Duration(r*bound)
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
func (b Backoff) Wait(ctx context.Context, d time.Duration) error { return b.wait(ctx, d, nil) }

// wait is Wait that also ends (nil) once wake is closed.
func (b Backoff) wait(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	b = b.withDefaults()
	if err := ctx.Err(); err != nil {
		return err // an ended context never waits, whatever the clock
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
		return nil
	case <-b.Clock.After(d):
		return nil
	}
}

// retrier walks one retry loop through a Backoff: each wait waits the
// next retry's delay; reset starts over after progress (a stream that
// delivered again).
type retrier struct {
	policy Backoff
	retry  int
}

// wait waits the next retry's delay, after hint, or until ctx ends.
func (r *retrier) wait(ctx context.Context, hint time.Duration) error {
	d := r.policy.Delay(r.retry, hint)
	r.retry++
	return r.policy.Wait(ctx, d)
}

// waitOr is wait that ends (nil) once wake is closed: a retry loop that
// waits for a partition table or a connection goes as soon as one comes.
func (r *retrier) waitOr(ctx context.Context, wake <-chan struct{}) error {
	d := r.policy.Delay(r.retry, 0)
	r.retry++
	return r.policy.wait(ctx, d, wake)
}

func (r *retrier) reset() { r.retry = 0 }
