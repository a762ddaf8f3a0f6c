package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// recordingClock fires at once and records every wait asked of it.
type recordingClock struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (c *recordingClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

func (c *recordingClock) recorded() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.waits)
}

func TestBackoff(t *testing.T) {
	b := client.Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Attempts: 6}
	var bounds []time.Duration
	for i := range 6 {
		bounds = append(bounds, b.Bound(i))
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
	if !slices.Equal(bounds, want) {
		t.Fatalf("bounds %v, want %v (binary exponential, capped)", bounds, want)
	}
	// The multiplier is honoured.
	if got := (client.Backoff{Initial: 10 * time.Millisecond, Multiplier: 3}).Bound(2); got != 90*time.Millisecond {
		t.Fatalf("multiplier 3: %v", got)
	}
	// Full jitter: a uniform draw below the bound, after the hint.
	for _, r := range []float64{0, 0.25, 0.999} {
		b.Rand = func() float64 { return r }
		if got, want := b.Delay(3, 50*time.Millisecond), 50*time.Millisecond+time.Duration(r*float64(800*time.Millisecond)); got != want {
			t.Fatalf("draw %g: %v, want %v", r, got, want)
		}
	}
	// The budget: five retries' bounds and hints.
	if got := b.Budget(50 * time.Millisecond); got != 2500*time.Millisecond+250*time.Millisecond {
		t.Fatalf("budget %v", got)
	}
	// Defaults: 100ms doubling to 5s, 10 attempts.
	var d client.Backoff
	if d.Bound(0) != 100*time.Millisecond || d.Bound(20) != 5*time.Second || d.Budget(0) != 100*time.Millisecond*(1+2+4+8+16+32)+3*5*time.Second {
		t.Fatalf("defaults: %v %v %v", d.Bound(0), d.Bound(20), d.Budget(0))
	}
	clock := &recordingClock{}
	b.Clock = clock
	if err := b.Wait(context.Background(), 42*time.Millisecond); err != nil || !slices.Equal(clock.recorded(), []time.Duration{42 * time.Millisecond}) {
		t.Fatalf("wait: %v, %v", err, clock.recorded())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (client.Backoff{}).Wait(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait on an ended context: %v", err)
	}

	// ±Jitter: a uniform draw within Jitter of the bound.
	for r, want := range map[float64]time.Duration{0: 640 * time.Millisecond, 0.5: 800 * time.Millisecond, 1: 960 * time.Millisecond} {
		j := client.Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Jitter: 0.2, Rand: func() float64 { return r }}
		if got := j.Delay(3, 0); got != want {
			t.Fatalf("jitter 0.2, draw %g: %v, want %v", r, got, want)
		}
	}

	// Config.Retry maps onto the policy field for field, with its own
	// defaults: 20ms doubling to 2s, ±20%.
	if p := client.RetryPolicy(client.Config{}); p.Initial != 20*time.Millisecond || p.Max != 2*time.Second || p.Multiplier != 2 || p.Jitter != 0.2 {
		t.Fatalf("default retry policy %+v", p)
	}

	// A retry loop on Config.Retry's policy waits the growing bounds, the
	// multiplier honoured, up to the cap, and starts over when reset.
	policy := client.RetryPolicy(client.Config{Retry: client.RetryConfig{InitialBackoff: 10 * time.Millisecond,
		MaxBackoff: time.Second, Multiplier: 3, Jitter: 0.5}})
	clock = &recordingClock{}
	policy.Clock, policy.Rand = clock, func() float64 { return 0.5 }
	wait, reset := client.RetryLoop(policy)
	for range 6 {
		if err := wait(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
	}
	reset()
	if err := wait(context.Background(), 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want = []time.Duration{10 * time.Millisecond, 30 * time.Millisecond, 90 * time.Millisecond, 270 * time.Millisecond,
		810 * time.Millisecond, time.Second, 15 * time.Millisecond}
	if got := clock.recorded(); !slices.Equal(got, want) {
		t.Fatalf("retry loop waits %v, want %v", got, want)
	}
	if err := wait(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("a retry loop's wait on an ended context: %v", err)
	}
}

// memoryCluster is a member whose queries may hold almost nothing
// together, so that the breaker terminates every query as soon as it
// reserves.
func memoryCluster(t *testing.T, perMember member.ByteSize) *testcluster.Cluster {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{ClusterName: "test", Configure: func(cfg *member.Config) {
		cfg.Query.MemoryLimitPerMember = perMember
	}})
	return c
}

// TestQueryRetryBacksOffAndGivesUp: a query the breaker stops on every
// attempt is sent Attempts times, waiting the member's retry-after plus
// the jittered binary exponential bound before each retry, then fails with
// a *QueryMemoryError that says so.
func TestQueryRetryBacksOffAndGivesUp(t *testing.T) {
	c := memoryCluster(t, 1)
	clock := &recordingClock{}
	cl := connect(t, c, client.Config{QueryRetry: client.Backoff{Initial: 40 * time.Millisecond, Max: 100 * time.Millisecond,
		Attempts: 5, Clock: clock, Rand: func() float64 { return 0.5 }}})
	ctx := ctxT(t)
	if _, err := cl.SQL(ctx, `CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`); err != nil {
		t.Fatal(err)
	}
	m := client.GetMap[int32, string](cl, "m")
	for i := range int32(100) {
		if err := m.Set(ctx, i, fmt.Sprintf("value %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := cl.SQL(ctx, "SELECT this FROM m ORDER BY this")
	var me *client.QueryMemoryError
	if !errors.As(err, &me) || me.Attempts != 5 || !errors.Is(err, client.ErrMemoryLimit) || !me.Last.Retryable ||
		!strings.Contains(err.Error(), "refused for memory after 5 attempt") || me.Last.RetryAfter != 200*time.Millisecond {
		t.Fatalf("%v, want a QueryMemoryError after 5 attempts", err)
	}
	// retry-after 200ms, then half of 40, 80, 100 (the cap), 100ms.
	want := []time.Duration{220 * time.Millisecond, 240 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond}
	if got := clock.recorded(); !slices.Equal(got, want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	// The member stopped (or, once its breaker opened, refused) the
	// query five times, one per attempt, and the map still answers.
	if n := breakerCount(t, c, "terminate") + breakerCount(t, c, "reject"); n != 5 {
		t.Fatalf("the breaker acted %v times, want 5", n)
	}
	if v, ok, err := m.Get(ctx, 7); err != nil || !ok || v != "value 7" {
		t.Fatalf("get: %q %v %v", v, ok, err)
	}
	// Retries off: one attempt, the same typed error.
	off := connect(t, c, client.Config{QueryRetry: client.Backoff{Attempts: 1}})
	if _, err := off.SQL(ctx, "SELECT this FROM m ORDER BY this"); !errors.As(err, &me) || me.Attempts != 1 {
		t.Fatalf("retries off: %v", err)
	}
}

func breakerCount(t *testing.T, c *testcluster.Cluster, action string) float64 {
	t.Helper()
	fams, err := c.Members()[0].Metrics(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range fams["atoll_query_breaker_total"].GetMetric() {
		if labelIs(m, "action", action) {
			return m.GetCounter().GetValue()
		}
	}
	t.Fatal("no atoll_query_breaker_total")
	return 0
}

func labelIs(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// TestQueryNotRetriedAfterRows: a query the breaker terminates after it
// returned rows is not sent again; Rows reports the member's error.
func TestQueryNotRetriedAfterRows(t *testing.T) {
	c := memoryCluster(t, 4<<20)
	clock := &recordingClock{}
	cl := connect(t, c, client.Config{QueryRetry: client.Backoff{Clock: clock}})
	ctx := ctxT(t)
	if _, err := cl.SQL(ctx, `CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`); err != nil {
		t.Fatal(err)
	}
	m := client.GetMap[int32, string](cl, "m")
	var batch []client.Entry[int32, string]
	for i := range int32(60000) {
		batch = append(batch, client.Entry[int32, string]{Key: i, Value: fmt.Sprintf("%0200d", i)})
		if len(batch) == 1000 {
			if err := m.PutAll(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	// DISTINCT keeps every value it returned: more than the member lets
	// queries hold, as the client reads on.
	rows, err := cl.SQL(ctx, "SELECT DISTINCT this FROM m", client.WithPageSize(100))
	if err != nil {
		t.Fatalf("the first page: %v", err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	var e *client.Error
	var me *client.QueryMemoryError
	if err := rows.Err(); n == 0 || n == 60000 || !errors.As(err, &e) || !errors.Is(err, client.ErrMemoryLimit) || errors.As(err, &me) {
		t.Fatalf("after %d rows: %v, want the member's memory error, not retried", n, err)
	}
	_ = rows.Close()
	if len(clock.recorded()) != 0 || breakerCount(t, c, "terminate") != 1 {
		t.Fatalf("the query was retried: waits %v", clock.recorded())
	}
}
