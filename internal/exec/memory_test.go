package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	qsql "github.com/atolldb/atoll/internal/query/sql"
	"github.com/atolldb/atoll/pkg/serialization"
)

// script is a random source that returns its values in turn.
type script struct {
	mu   sync.Mutex
	vals []float64
	next int
}

func (s *script) Float64() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vals[s.next%len(s.vals)]
	s.next++
	return v
}

// logLines collects log records' messages and query attributes.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(string(p)))
	return len(p), nil
}

// count returns the lines that contain every one of subs.
func (l *logLines) count(subs ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

func (l *logLines) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func TestBreakerTerminatesHalfOfTheQueriesHoldingMemory(t *testing.T) {
	var heap atomic.Int64
	logs := &logLines{}
	p := NewMemoryPool(PoolConfig{Breaker: true, Limit: 1 << 30, MemoryLimit: 1000, HeapLive: heap.Load,
		Random: (&script{vals: []float64{0.2, 0.7, 0.49, 0.5, 0.0, 0.99}}).Float64, Logger: logs.logger()})
	type run struct {
		acct  *MemoryAccount
		cause error
	}
	runs := make([]*run, 8)
	for i := range runs {
		r := &run{}
		a, err := p.Open(context.Background(), fmt.Sprintf("q%d", i), 0, AdmitHere, func(err error) { r.cause = err })
		if err != nil {
			t.Fatal(err)
		}
		r.acct = a
		runs[i] = r
	}
	// Queries 2 and 5 hold nothing: they are not drawn for.
	for i, r := range runs {
		if i != 2 && i != 5 {
			if err := r.acct.Reserve("sort buffer", 100); err != nil {
				t.Fatal(err)
			}
		}
	}
	heap.Store(849)
	p.evaluate()
	if p.Stats().Open {
		t.Fatal("the breaker opened below its threshold")
	}
	heap.Store(850)
	p.evaluate()
	// Draws in start order for q0 q1 q3 q4 q6 q7: 0.2 0.7 0.49 0.5 0.0
	// 0.99: below ½ terminates q0, q3 and q6.
	want := map[int]bool{0: true, 3: true, 6: true}
	for i, r := range runs {
		var be *BreakerError
		stopped := errors.As(r.cause, &be)
		if stopped != want[i] {
			t.Fatalf("query %d terminated: %v (cause %v), want %v", i, stopped, r.cause, want[i])
		}
		if stopped && (be.Action != BreakerTerminate || be.Query != fmt.Sprintf("q%d", i) || be.RetryAfter != 200*time.Millisecond || !errors.Is(r.cause, ErrMemoryBreaker)) {
			t.Fatalf("query %d: %+v", i, be)
		}
	}
	if s := p.Stats(); !s.Open || s.Terminated != 3 || s.Trips != 1 {
		t.Fatalf("stats after opening: %+v", s)
	}
	for i := range want {
		if n := logs.count("terminated by the memory circuit breaker", fmt.Sprintf("query=q%d", i)); n != 1 {
			t.Fatalf("query %d logged %d times", i, n)
		}
	}
	// Open: a new query that needs memory is refused, one that does not
	// is not; nothing more is terminated while it stays open.
	if _, err := p.Open(context.Background(), "new", 0, AdmitHere, nil); !isBreaker(err, BreakerReject) {
		t.Fatalf("query needing memory while open: %v", err)
	}
	if a, err := p.Open(context.Background(), "scan", 0, NoMemory, nil); err != nil {
		t.Fatalf("query needing no memory while open: %v", err)
	} else {
		a.Close()
	}
	p.evaluate()
	// Hysteresis: between the thresholds it stays open.
	heap.Store(800)
	p.evaluate()
	if _, err := p.Open(context.Background(), "new", 0, AdmitHere, nil); !isBreaker(err, BreakerReject) || p.Stats().Terminated != 3 {
		t.Fatalf("between the thresholds: %v, %+v", err, p.Stats())
	}
	heap.Store(749)
	p.evaluate()
	a, err := p.Open(context.Background(), "new", 0, AdmitHere, nil)
	if err != nil {
		t.Fatalf("after the breaker closed: %v", err)
	}
	a.Close()
	if s := p.Stats(); s.Open || s.Rejected != 2 {
		t.Fatalf("stats after closing: %+v", s)
	}
	for _, r := range runs {
		r.acct.Release(r.acct.Used())
		r.acct.Close()
	}
	if p.Reserved() != 0 || p.Leaked() != 0 || p.Stats().Queries != 0 {
		t.Fatalf("reserved %d, leaked %d, %d queries after every account closed", p.Reserved(), p.Leaked(), p.Stats().Queries)
	}
}

func isBreaker(err error, action string) bool {
	var be *BreakerError
	return errors.As(err, &be) && be.Action == action
}

// The pool opens the breaker as a reservation takes it past PoolOpen of
// its limit, refuses a reservation past the limit itself (terminating the
// query that made it) and closes below PoolClose.
func TestPoolLimitAndThresholds(t *testing.T) {
	p := NewMemoryPool(PoolConfig{Breaker: true, Limit: 1000, Random: func() float64 { return 0.9 }, Logger: slog.New(slog.DiscardHandler)})
	a, err := p.Open(context.Background(), "a", 0, AdmitHere, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve("join hash table", 899); err != nil {
		t.Fatal(err)
	}
	p.evaluate()
	if p.Stats().Open {
		t.Fatal("open below 90%")
	}
	if err := a.Reserve("join hash table", 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.wake:
	default:
		t.Fatal("a reservation past the threshold did not wake the breaker")
	}
	p.evaluate()
	if !p.Stats().Open {
		t.Fatal("not open at 90%")
	}
	err = a.Reserve("exchange buffer", 101)
	if !isBreaker(err, BreakerTerminate) || !strings.Contains(err.Error(), "exchange buffer needs 101 bytes more") || a.Used() != 900 || p.Reserved() != 900 {
		t.Fatalf("past the limit: %v (used %d, pool %d)", err, a.Used(), p.Reserved())
	}
	a.Release(200)
	p.evaluate()
	if !p.Stats().Open {
		t.Fatal("closed above 70%")
	}
	a.Release(1)
	p.evaluate()
	if p.Stats().Open {
		t.Fatal("still open below 70%")
	}
	a.Release(a.Used())
	a.Close()
	// Off, the pool only counts.
	off := NewMemoryPool(PoolConfig{Limit: 10})
	b, _ := off.Open(context.Background(), "b", 0, AdmitHere, nil)
	if err := b.Reserve("sort buffer", 100); err != nil || off.Stats().Limit != 0 {
		t.Fatalf("breaker off: %v, %+v", err, off.Stats())
	}
	b.Release(100)
	b.Close()
}

// When the runtime holds more than the member's memory limit (the
// collector cannot keep up with the allocations), the breaker opens with
// the pool and the live heap low, terminates half of the queries holding
// memory, refuses new ones, and closes once the runtime is back under.
func TestBreakerOpensWhenTheRuntimePassesTheLimit(t *testing.T) {
	var held atomic.Int64
	held.Store(900)
	p := NewMemoryPool(PoolConfig{Breaker: true, Limit: 1 << 20, MemoryLimit: 1000,
		HeapLive: func() int64 { return 100 }, RuntimeHeld: held.Load,
		Random: func() float64 { return 0.1 }, Logger: slog.New(slog.DiscardHandler)})
	var stopped error
	a, err := p.Open(context.Background(), "a", 0, AdmitHere, func(err error) { stopped = err })
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve("join hash table", 10); err != nil {
		t.Fatal(err)
	}
	p.evaluate()
	if p.Stats().Open {
		t.Fatal("open with the runtime under the limit")
	}
	held.Store(1001)
	p.evaluate()
	if !p.Stats().Open || !isBreaker(stopped, BreakerTerminate) || !strings.Contains(stopped.Error(), "collection is not keeping up") {
		t.Fatalf("runtime past the limit: open %v, running query stopped with %v", p.Stats().Open, stopped)
	}
	if _, err := p.Open(context.Background(), "b", 0, AdmitHere, func(error) {}); !isBreaker(err, BreakerReject) {
		t.Fatalf("a new query while open: %v", err)
	}
	held.Store(990)
	p.evaluate()
	if p.Stats().Open {
		t.Fatal("still open with the runtime back under the limit")
	}
	a.Release(10)
	a.Close()
}

// poolExpecting returns a pool with a limit of 1000 bytes, its breaker on,
// that has seen a query peak at peak bytes (what it expects a query to
// take).
func poolExpecting(t *testing.T, peak int64) *MemoryPool {
	p := NewMemoryPool(PoolConfig{Breaker: true, Limit: 1000, Logger: slog.New(slog.DiscardHandler)})
	learn, err := p.Open(context.Background(), "learn", 0, AdmitHere, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := learn.Reserve("join hash table", peak); err != nil {
		t.Fatal(err)
	}
	learn.Release(peak)
	learn.Close()
	return p
}

// While closed, a new query that needs memory is refused when the running
// queries' memory, held or expected (the average peak), and its own would
// pass the admission threshold (PoolClose: 700 of 1000 here).
func TestPoolAdmitsByExpectedMemory(t *testing.T) {
	p := poolExpecting(t, 300)
	a, err := p.Open(context.Background(), "a", 0, AdmitHere, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Open(context.Background(), "b", 0, AdmitHere, nil)
	if err != nil {
		t.Fatalf("second query, 600 of 700 expected: %v", err)
	}
	if _, err := p.Open(context.Background(), "c", 0, AdmitHere, nil); !isBreaker(err, BreakerReject) || !strings.Contains(err.Error(), "expected") {
		t.Fatalf("third query, 900 of 700 expected: %v", err)
	}
	d, err := p.Open(context.Background(), "d", 0, NoMemory, nil)
	if err != nil {
		t.Fatalf("a query that needs no memory: %v", err)
	}
	d.Close()
	b.Close()
	c, err := p.Open(context.Background(), "c", 0, AdmitHere, nil)
	if err != nil {
		t.Fatalf("after one query ended: %v", err)
	}
	c.Close()
	a.Close()
	if p.Stats().Rejected != 1 {
		t.Fatalf("%+v", p.Stats())
	}
}

// A query's accounts on one member (its coordinator's and its local
// fragment's) are admitted and expected once; a fragment whose query its
// coordinator's member admitted is refused only while the breaker is open,
// not by this member's admission threshold, so that no work done for an
// admitted query elsewhere is thrown away.
func TestPoolAdmitsAQueryOncePerMember(t *testing.T) {
	p := poolExpecting(t, 300)
	var open []*MemoryAccount
	for _, q := range []string{"a", "b"} {
		coord, err := p.Open(context.Background(), q, 0, AdmitHere, nil)
		if err != nil {
			t.Fatalf("coordinator of %s: %v", q, err)
		}
		frag, err := p.Open(context.Background(), q, 0, Admitted, nil)
		if err != nil {
			t.Fatalf("local fragment of %s: %v", q, err)
		}
		open = append(open, coord, frag)
	}
	if _, err := p.Open(context.Background(), "c", 0, AdmitHere, nil); !isBreaker(err, BreakerReject) {
		t.Fatalf("third query, 900 of 700 expected: %v", err)
	}
	remote, err := p.Open(context.Background(), "c", 0, Admitted, nil)
	if err != nil {
		t.Fatalf("fragment of a query admitted elsewhere: %v", err)
	}
	open = append(open, remote)
	p.open.Store(true)
	if _, err := p.Open(context.Background(), "d", 0, Admitted, nil); !isBreaker(err, BreakerReject) {
		t.Fatalf("fragment while the breaker is open: %v", err)
	}
	p.open.Store(false)
	for _, a := range open {
		a.Close()
	}
	if st := p.Stats(); st.Rejected != 2 || st.Queries != 0 {
		t.Fatalf("%+v", st)
	}
}

// opening is a query's Open running on its own goroutine.
type opening struct {
	done chan struct{}
	acc  *MemoryAccount
	err  error
}

// openAsync opens query's account on its own goroutine, and returns once
// the pool has it waiting (the pool's waiting count reached waiting).
func openAsync(t *testing.T, ctx context.Context, p *MemoryPool, query string, waiting int) *opening {
	t.Helper()
	o := &opening{done: make(chan struct{})}
	go func() {
		defer close(o.done)
		o.acc, o.err = p.Open(ctx, query, 0, AdmitHere, nil)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for p.Stats().Waiting < waiting {
		select {
		case <-o.done:
			t.Fatalf("%s did not wait: %v", query, o.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not waiting: %+v", query, p.Stats())
		}
		runtime.Gosched()
	}
	return o
}

// result waits for o's Open to return.
func (o *opening) result(t *testing.T) (*MemoryAccount, error) {
	t.Helper()
	select {
	case <-o.done:
		return o.acc, o.err
	case <-time.After(30 * time.Second):
		t.Fatal("Open did not return")
		return nil, nil
	}
}

// With AdmissionWait, a query that finds no room waits for it, behind the
// queries waiting already, and starts when a running query ends; none is
// refused.
func TestPoolAdmissionQueueAdmitsInOrder(t *testing.T) {
	p := poolExpecting(t, 300)
	p.cfg.AdmissionWait = time.Hour
	ctx := context.Background()
	a, err := p.Open(ctx, "a", 0, AdmitHere, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Open(ctx, "b", 0, AdmitHere, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := openAsync(t, ctx, p, "c", 1)
	d := openAsync(t, ctx, p, "d", 2)
	// A query that needs no memory never waits.
	if n, err := p.Open(ctx, "n", 0, NoMemory, nil); err != nil {
		t.Fatal(err)
	} else {
		n.Close()
	}
	b.Close()
	cAcc, err := c.result(t)
	if err != nil {
		t.Fatalf("c, first in line, after b ended: %v", err)
	}
	if st := p.Stats(); st.Waiting != 1 {
		t.Fatalf("d should still wait behind c: %+v", st)
	}
	select {
	case <-d.done:
		t.Fatalf("d started before a query ended: %v", d.err)
	default:
	}
	// A newcomer queues behind d.
	e := openAsync(t, ctx, p, "e", 2)
	a.Close()
	dAcc, err := d.result(t)
	if err != nil {
		t.Fatalf("d after a ended: %v", err)
	}
	cAcc.Close()
	eAcc, err := e.result(t)
	if err != nil {
		t.Fatalf("e after c ended: %v", err)
	}
	dAcc.Close()
	eAcc.Close()
	if st := p.Stats(); st.Rejected != 0 || st.Waiting != 0 || st.Queries != 0 {
		t.Fatalf("%+v", st)
	}
}

// A waiting query is refused when AdmissionWait passes without room, when
// the breaker opens, and gives up without a refusal when its caller does.
func TestPoolAdmissionQueueRefuses(t *testing.T) {
	ctx := context.Background()
	full := func(t *testing.T, wait time.Duration) (*MemoryPool, []*MemoryAccount) {
		p := poolExpecting(t, 300)
		p.cfg.AdmissionWait = wait
		p.cfg.Random = (&script{vals: []float64{0.9}}).Float64 // the breaker terminates none
		var running []*MemoryAccount
		for _, q := range []string{"a", "b"} {
			acc, err := p.Open(ctx, q, 0, AdmitHere, nil)
			if err != nil {
				t.Fatal(err)
			}
			running = append(running, acc)
		}
		return p, running
	}
	closeAll := func(p *MemoryPool, accs []*MemoryAccount) {
		for _, a := range accs {
			a.Release(a.Used())
			a.Close()
		}
		if st := p.Stats(); st.Waiting != 0 || st.Queries != 0 {
			t.Fatalf("%+v", st)
		}
	}

	t.Run("wait passes", func(t *testing.T) {
		p, running := full(t, 20*time.Millisecond)
		_, err := p.Open(ctx, "c", 0, AdmitHere, nil)
		if !isBreaker(err, BreakerReject) || !strings.Contains(err.Error(), "query.breaker.admission-wait 20ms") {
			t.Fatalf("%v", err)
		}
		if st := p.Stats(); st.Rejected != 1 {
			t.Fatalf("%+v", st)
		}
		closeAll(p, running)
	})

	t.Run("breaker opens", func(t *testing.T) {
		p, running := full(t, time.Hour)
		c := openAsync(t, ctx, p, "c", 1)
		if err := running[0].Reserve("join hash table", 950); err != nil {
			t.Fatal(err)
		}
		p.evaluate()
		if _, err := c.result(t); !isBreaker(err, BreakerReject) || !strings.Contains(err.Error(), "the breaker is open") {
			t.Fatalf("%v", err)
		}
		// While it is open, a new query is refused without waiting.
		if _, err := p.Open(ctx, "d", 0, AdmitHere, nil); !isBreaker(err, BreakerReject) {
			t.Fatalf("%v", err)
		}
		if st := p.Stats(); st.Rejected != 2 || st.Terminated != 0 {
			t.Fatalf("%+v", st)
		}
		closeAll(p, running)
	})

	t.Run("caller gives up", func(t *testing.T) {
		p, running := full(t, time.Hour)
		cctx, cancel := context.WithCancel(ctx)
		c := openAsync(t, cctx, p, "c", 1)
		cancel()
		if _, err := c.result(t); !errors.Is(err, context.Canceled) {
			t.Fatalf("%v", err)
		}
		if st := p.Stats(); st.Rejected != 0 {
			t.Fatalf("%+v", st)
		}
		closeAll(p, running)
	})
}

// A query waiting in the engine for room stops waiting at its timeout
// (DeadlineExceeded) and when the engine closes (ErrClosed); a query that
// needs no memory never waits.
func TestQueryWaitingForRoomEnds(t *testing.T) {
	e, plan := memEngine(t, 100, PoolConfig{Breaker: true, Limit: 1000, AdmissionWait: time.Hour, Logger: slog.New(slog.DiscardHandler)})
	pool := e.MemoryPool()
	ctx := context.Background()
	learn, err := pool.Open(ctx, "learn", 0, AdmitHere, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := learn.Reserve("join hash table", 400); err != nil {
		t.Fatal(err)
	}
	learn.Release(400)
	learn.Close()
	full, err := pool.Open(ctx, "full", 0, AdmitHere, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	sortQ := plan("SELECT __key, stringField FROM s ORDER BY stringField DESC")
	if _, err := e.Execute(ctx, sortQ, nil, Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a sort waiting past its timeout: %v", err)
	}
	if res, err := e.Execute(ctx, plan("SELECT stringField FROM s WHERE __key = 7"), nil, Options{}); err != nil || res.Count != 1 {
		t.Fatalf("a lookup while a query waits: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Execute(ctx, sortQ, nil, Options{})
		done <- err
	}()
	waitFor(t, "the sort waiting", func() bool { return pool.Stats().Waiting == 1 })
	e.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("a sort waiting as the engine closed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the engine's closing did not end the wait")
	}
	if st := pool.Stats(); st.Waiting != 0 || st.Rejected != 0 {
		t.Fatalf("%+v", st)
	}
}

// memEngine is an engine over a map "s" of n rows whose stringField holds
// 200 bytes, with a pool of cfg.
func memEngine(t *testing.T, n int32, cfg PoolConfig) (*Engine, func(sql string) *plan.Physical) {
	e, planner, _ := memEngineMaps(t, n, cfg)
	return e, planner
}

func memEngineMaps(t *testing.T, n int32, cfg PoolConfig) (*Engine, func(sql string) *plan.Physical, *testMaps) {
	t.Helper()
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	cat := &memCatalog{}
	maps := newTestMaps()
	h := &partition.Holder{}
	self := partition.Member{UUID: partition.NewUUID(), Address: "local"}
	h.Store(partition.Single(self, maps.part))
	pool := NewMemoryPool(cfg)
	e := New(Config{Maps: maps, Catalog: cat, Serialization: ser, Table: h, Self: self.UUID, Memory: pool, Logger: cfg.Logger})
	t.Cleanup(e.Close)
	st, _ := maps.Get("s")
	for k := int32(0); k < n; k++ {
		v := benchmodel.Small{IntField: k % 500, LongField: int64(k), StringField: fmt.Sprintf("%0200d", k)}
		put(t, ser, st, k, &v)
	}
	mapping := &plan.Mapping{Name: "s", MapName: "s", KeyFormat: "int", ValueFormat: "compact", Options: map[string]string{"valueCompactTypeName": "small"},
		Columns: []plan.MappingColumn{{Name: "__key", Type: expr.Integer, Path: "__key"}, {Name: "intField", Type: expr.Integer, Path: "intField"},
			{Name: "longField", Type: expr.BigInt, Path: "longField"}, {Name: "stringField", Type: expr.Varchar, Path: "stringField"},
			{Name: "this", Type: expr.Object, Path: "this", Hidden: true}}}
	_ = cat.PutMapping(mapping, true, false)
	planner := qsql.NewPlanner(cat, nil)
	return e, func(sql string) *plan.Physical {
		ph, err := planner.Plan(context.Background(), sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return ph
	}, maps
}

// memoryQueries hold memory in the operators that reserve; pageSize is
// the page that leaves each at its peak while its client does not fetch.
var memoryQueries = []struct {
	name, sql string
	pageSize  int
}{
	{"sort", "SELECT __key, stringField FROM s ORDER BY stringField DESC", 1},
	{"top-n", "SELECT __key, stringField FROM s ORDER BY longField DESC LIMIT 20000", 1},
	{"group by", "SELECT stringField, COUNT(*), SUM(longField) FROM s GROUP BY stringField", 1},
	{"group by integer", "SELECT longField, COUNT(*) FROM s GROUP BY longField", 1},
	{"distinct", "SELECT DISTINCT stringField, intField FROM s", 25000},
	{"member join", "SELECT a.__key, b.stringField FROM s a JOIN s b ON a.longField = b.longField", 1},
	{"coordinator join", "SELECT /*+ JOIN_STRATEGY(coordinator) */ a.__key, b.stringField FROM s a JOIN s b ON a.longField = b.longField", 1},
}

// TestQueryMemoryLimitReleasesEverything: a query past its own limit fails
// with the error naming the knob, and every byte it reserved goes back.
func TestQueryMemoryLimitReleasesEverything(t *testing.T) {
	e, plan := memEngine(t, 3000, PoolConfig{})
	pool := e.MemoryPool()
	for _, q := range append(memoryQueries, struct {
		name, sql string
		pageSize  int
	}{"count distinct", "SELECT intField, COUNT(DISTINCT stringField) FROM s GROUP BY intField", 1}, struct {
		name, sql string
		pageSize  int
	}{"final aggregation", "SELECT a.__key, COUNT(b.intField) FROM s a LEFT JOIN s b ON a.__key = b.intField GROUP BY a.__key", 1}) {
		ph := plan(strings.Replace(q.sql, "SELECT ", "SELECT /*+ MEMORY_LIMIT(50000) */ ", 1))
		_, err := e.Execute(context.Background(), ph, nil, Options{PageSize: 100000})
		var me *MemoryLimitError
		if !errors.As(err, &me) || me.Limit != 50000 || !strings.Contains(err.Error(), "MEMORY_LIMIT") {
			t.Fatalf("%s: %v, want the query's memory limit error", q.name, err)
		}
		waitFor(t, q.name+": the pool empty", func() bool { return pool.Reserved() == 0 && pool.Stats().Queries == 0 })
		if pool.Leaked() != 0 {
			t.Fatalf("%s: %d bytes were still reserved when the query ended", q.name, pool.Leaked())
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBreakerTerminatesHalfOfRunningQueries: queries hold their sorted
// rows for their clients; when the breaker opens, exactly those the
// random source picks end with the breaker's error and the others return
// every row; meanwhile new sorts are refused and scans are not.
func TestBreakerTerminatesHalfOfRunningQueries(t *testing.T) {
	var heap atomic.Int64
	logs := &logLines{}
	e, plan := memEngine(t, 2000, PoolConfig{Breaker: true, Limit: 1 << 40, MemoryLimit: 1 << 30, HeapLive: heap.Load,
		Interval: time.Hour, Random: (&script{vals: []float64{0.1, 0.9}}).Float64, Logger: logs.logger()})
	pool := e.MemoryPool()
	sortQ := plan("SELECT __key, stringField FROM s ORDER BY stringField")
	var cursors []uint64
	for range 6 {
		res, err := e.Execute(context.Background(), sortQ, nil, Options{PageSize: 10})
		if err != nil || res.Cursor == 0 {
			t.Fatalf("%v, cursor %d", err, res.Cursor)
		}
		cursors = append(cursors, res.Cursor)
	}
	heap.Store(1 << 30)
	pool.evaluate()
	for i, c := range cursors {
		rows := 10
		var err error
		for {
			var res *Result
			if res, err = e.Fetch(context.Background(), c, nil); err != nil {
				break
			}
			rows += res.Count
			if res.Cursor == 0 {
				break
			}
		}
		if i%2 == 0 {
			if !isBreaker(err, BreakerTerminate) {
				t.Fatalf("query %d: %v after %d rows, want terminated", i, err, rows)
			}
		} else if err != nil || rows != 2000 {
			t.Fatalf("query %d: %v after %d rows, want all 2000", i, err, rows)
		}
	}
	if s := pool.Stats(); s.Terminated != 3 || s.Trips != 1 {
		t.Fatalf("%+v", s)
	}
	if n := logs.count("terminated by the memory circuit breaker"); n != 3 {
		t.Fatalf("%d termination lines, want one per query", n)
	}
	if _, err := e.Execute(context.Background(), sortQ, nil, Options{}); !isBreaker(err, BreakerReject) {
		t.Fatalf("a sort while the breaker is open: %v", err)
	}
	if res, err := e.Execute(context.Background(), plan("SELECT stringField FROM s WHERE __key = 7"), nil, Options{}); err != nil || res.Count != 1 {
		t.Fatalf("a lookup while the breaker is open: %v", err)
	}
	heap.Store(0)
	pool.evaluate()
	if _, err := e.Execute(context.Background(), sortQ, nil, Options{PageSize: 1 << 20}); err != nil {
		t.Fatalf("a sort once the breaker closed: %v", err)
	}
	waitFor(t, "the pool empty", func() bool { return pool.Reserved() == 0 && pool.Stats().Queries == 0 })
	if pool.Leaked() != 0 {
		t.Fatalf("%d bytes leaked", pool.Leaked())
	}
}

// heapBytes is the live heap after two collections.
func heapBytes() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestReservedBytesTrackTheHeap holds each memory-holding operator at its
// peak (a cursor nobody fetches from: the query waits for its client) and
// compares what the pool has reserved with what the heap grew by: within
// 25%.
func TestReservedBytesTrackTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 60 000 rows and measures the heap per operator")
	}
	e, plan := memEngine(t, 60000, PoolConfig{})
	pool := e.MemoryPool()
	for _, q := range memoryQueries {
		t.Run(q.name, func(t *testing.T) {
			ph := plan(q.sql)
			base := heapBytes()
			res, err := e.Execute(context.Background(), ph, nil, Options{PageSize: q.pageSize})
			if err != nil || res.Cursor == 0 {
				t.Fatalf("%v (cursor %d)", err, res.Cursor)
			}
			res.Rows = nil // the first page is the client's
			defer func() {
				e.CloseCursor(res.Cursor, nil)
				waitFor(t, "the pool empty", func() bool { return pool.Reserved() == 0 && pool.Stats().Queries == 0 })
			}()
			// The query stops where its client left it: the reservations
			// stop moving.
			last, still := int64(-1), 0
			waitFor(t, "the reservations to settle", func() bool {
				r := pool.Reserved()
				if r == last {
					still++
				} else {
					last, still = r, 0
				}
				return still >= 20
			})
			grew, reserved := heapBytes()-base, pool.Reserved()
			t.Logf("%s: heap grew by %d bytes, %d reserved (%.0f%%)", q.name, grew, reserved, 100*float64(reserved)/float64(grew))
			if grew < 4<<20 {
				t.Fatalf("the heap grew by %d bytes only: the query holds too little to compare", grew)
			}
			if diff := reserved - grew; diff > grew/4 || -diff > grew/4 {
				t.Fatalf("reserved %d bytes for a heap %d bytes larger: off by more than 25%%\n%s", reserved, grew, plan2text(ph))
			}
		})
	}
	if pool.Leaked() != 0 {
		t.Fatalf("%d bytes leaked", pool.Leaked())
	}
}

func plan2text(ph *plan.Physical) string {
	var b bytes.Buffer
	b.WriteString(plan.ExplainText(ph))
	return b.String()
}

// TestWorkerMemoryTracksTheHeap: a member's scan workers account their
// groups and top rows as they grow; with the worker at its end (before it
// emits), what it reserved is within 25% of what the heap grew by.
func TestWorkerMemoryTracksTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 60 000 rows and measures the heap per operator")
	}
	e, planOf, maps := memEngineMaps(t, 60000, PoolConfig{})
	st, _ := maps.Lookup("s")
	for _, q := range []struct{ name, sql string }{
		{"groups by string", "SELECT stringField, COUNT(*), SUM(longField), MIN(intField) FROM s GROUP BY stringField"},
		{"groups by integer", "SELECT longField, COUNT(*) FROM s GROUP BY longField"},
		{"top rows", "SELECT __key, stringField FROM s ORDER BY longField DESC LIMIT 30000"},
	} {
		t.Run(q.name, func(t *testing.T) {
			var frag *plan.Fragment
			var find func(n plan.Node)
			find = func(n plan.Node) {
				if g, ok := n.(*plan.Gather); ok {
					frag = g.Frag
				}
				for _, c := range n.Inputs() {
					find(c)
				}
			}
			find(planOf(q.sql).Root)
			mem := NewMemoryAccount(0)
			base := heapBytes()
			w, err := e.newWorker(context.Background(), frag, st, nil, mem)
			if err != nil {
				t.Fatal(err)
			}
			for pid := range int32(st.PartitionCount()) {
				if err := w.partition(pid); err != nil {
					t.Fatal(err)
				}
			}
			grew, reserved := heapBytes()-base, mem.Used()
			t.Logf("%s: heap grew by %d bytes, %d reserved (%.0f%%)", q.name, grew, reserved, 100*float64(reserved)/float64(grew))
			if diff := reserved - grew; grew < 4<<20 || diff > grew/4 || -diff > grew/4 {
				t.Fatalf("reserved %d bytes for a heap %d bytes larger", reserved, grew)
			}
			runtime.KeepAlive(w)
			w.ops.release()
			if mem.Used() != 0 {
				t.Fatalf("%d bytes left", mem.Used())
			}
		})
	}
}

// A query needs memory when any operator under its root does: an
// aggregate without groups over a join holds the join's table.
func TestNeedsMemoryLooksUnderAggregates(t *testing.T) {
	_, planner := memEngine(t, 10, PoolConfig{})
	for _, c := range []struct {
		sql   string
		needs bool
	}{
		{"SELECT COUNT(*) FROM s a JOIN s b ON a.longField = b.longField", true},
		{"SELECT SUM(a.intField) FROM s a JOIN s b ON a.longField = b.longField AND a.stringField <> b.stringField", true},
		{"SELECT intField, COUNT(*) FROM s GROUP BY intField", true},
		{"SELECT COUNT(*) FROM s", false},
		{"SELECT __key FROM s WHERE intField = 3", false},
	} {
		if got := needsMemory(planner(c.sql).Root); got != c.needs {
			t.Errorf("%s: needsMemory %v, want %v", c.sql, got, c.needs)
		}
	}
}
