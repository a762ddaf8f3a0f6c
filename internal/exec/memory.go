package exec

// Query memory: every query holds, on each member it runs on, a
// MemoryAccount, from which its operators reserve before they grow (join
// tables, exchange buffers, aggregation and DISTINCT tables, sort buffers,
// result pages waiting for the client) and to which they give back when
// they free or finish. The accounts of a member draw on its MemoryPool:
// the member-wide limit, and the memory circuit breaker that refuses new
// queries needing memory and terminates running ones when the pool or the
// live heap runs high.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/atolldb/atoll/internal/query/expr"
)

// ErrMemoryLimit is the sentinel of *MemoryLimitError.
var ErrMemoryLimit = errors.New("exec: query memory limit exceeded")

// MemoryLimitError reports a query that needed more memory on a member
// than its own limit allows. Retrying does not help: the query needs a
// higher limit (or less data).
type MemoryLimitError struct {
	// What needed the memory: "join hash table", "exchange buffer", ...
	What string
	// Requested is the reservation that failed; Used what the query held
	// then; Limit the query's limit, all in bytes.
	Requested, Used, Limit int64
}

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("query memory limit of %d bytes exceeded: the %s needs %d bytes more and the query holds %d (raise query.memory-limit-per-query in the member configuration, or the MEMORY_LIMIT hint)",
		e.Limit, e.What, e.Requested, e.Used)
}

// Unwrap returns ErrMemoryLimit.
func (e *MemoryLimitError) Unwrap() error { return ErrMemoryLimit }

// ErrMemoryBreaker is the sentinel of *BreakerError.
var ErrMemoryBreaker = errors.New("exec: query stopped by the memory circuit breaker")

// Breaker actions, the values of the metric atoll_query_breaker_total's
// action label.
const (
	// BreakerReject: a new query that needs memory was refused.
	BreakerReject = "reject"
	// BreakerTerminate: a running query that held memory was stopped.
	BreakerTerminate = "terminate"
)

// BreakerError reports a query that the member's memory circuit breaker
// refused or terminated. The query may succeed when retried later, after
// RetryAfter at least: the memory it needs is held by others.
type BreakerError struct {
	Action string // BreakerReject or BreakerTerminate
	Query  string // the query's id
	// Reason says which limit was reached.
	Reason     string
	RetryAfter time.Duration
}

func (e *BreakerError) Error() string {
	verb := "refused"
	if e.Action == BreakerTerminate {
		verb = "terminated"
	}
	return fmt.Sprintf("query %s %s by the memory circuit breaker: %s; retry after %v (the member's memory-limit and query.memory-limit-per-member bound what queries hold)",
		e.Query, verb, e.Reason, e.RetryAfter)
}

// Unwrap returns ErrMemoryBreaker.
func (e *BreakerError) Unwrap() error { return ErrMemoryBreaker }

// valueBytes is what a decoded value costs in memory.
const valueBytes = int64(unsafe.Sizeof(expr.Value{}))

// sliceBytes is the header of a slice (a row in a table of rows).
const sliceBytes = int64(unsafe.Sizeof([]expr.Value{}))

// decodedBytes is the heap a batch of rows takes once decoded into rows of
// width values (DecodeRows): the values, the rows' headers and the batch's
// bytes, which strings and objects alias.
func decodedBytes(b *Batch, width int) int64 {
	return int64(cap(b.Rows)) + int64(b.Count)*(sliceBytes+int64(width)*valueBytes)
}

// rowBytes is the heap of one row of values held on its own: its values,
// its header in a table of rows, and the bytes its strings and objects
// hold (their own, or those of the batch they alias).
func rowBytes(r []expr.Value) int64 {
	n := sliceBytes + int64(len(r))*valueBytes
	for i := range r {
		n += int64(len(r[i].B))
	}
	return n
}

// PoolConfig configures a member's query memory pool and its circuit
// breaker. The zero value accounts without limits.
type PoolConfig struct {
	// Limit is the memory all queries together may hold on the member
	// (query.memory-limit-per-member), in bytes; 0: none. A reservation
	// past it terminates the query that made it.
	Limit int64
	// MemoryLimit is the member's memory limit (Go's soft limit), of
	// which HeapOpen and HeapClose are fractions; 0: the heap is not
	// watched.
	MemoryLimit int64
	// Breaker turns the breaker and Limit on; off, the pool only counts.
	Breaker bool
	// PoolOpen and PoolClose are the fractions of Limit at which the
	// breaker opens and, once open, closes again (0.9 and 0.7 by
	// default); HeapOpen and HeapClose those of MemoryLimit for the live
	// heap (0.85 and 0.75).
	PoolOpen, PoolClose float64
	HeapOpen, HeapClose float64
	// Interval is how often the breaker reads the live heap (100ms by
	// default); a reservation that takes the pool past PoolOpen wakes it
	// at once.
	Interval time.Duration
	// RetryAfter is the least wait the breaker asks of the clients of the
	// queries it stops (200ms by default).
	RetryAfter time.Duration
	// AdmissionWait is how long a new query that needs memory, finding
	// no room while the breaker is closed, waits for the running queries
	// to leave it some, in the order queries came, before it is refused;
	// 0: it is refused at once. Opening the breaker refuses the waiting
	// queries too.
	AdmissionWait time.Duration
	// HeapLive returns the live heap in bytes (by default the runtime's
	// /gc/heap/live:bytes, the heap marked live by the last GC).
	HeapLive func() int64
	// RuntimeHeld returns the memory the Go runtime holds against its soft
	// limit (by default /memory/classes/total:bytes less what it released
	// to the OS; with the default HeapLive only). Above MemoryLimit the
	// collector is not keeping up with the allocations (the runtime lets
	// the soft limit go rather than spend more than half the CPU on
	// collection): the breaker opens until it is back under.
	RuntimeHeld func() int64
	// Random returns numbers in [0, 1): a running query that holds memory
	// is terminated when the breaker opens if it draws below ½. Default
	// math/rand/v2; tests inject their own to know which.
	Random func() float64
	// Logger receives the breaker's state changes and one line per query
	// it refuses or terminates.
	Logger *slog.Logger
}

func (c PoolConfig) withDefaults() PoolConfig {
	if c.PoolOpen <= 0 || c.PoolOpen > 1 {
		c.PoolOpen = 0.9
	}
	if c.PoolClose <= 0 || c.PoolClose >= c.PoolOpen {
		c.PoolClose = min(0.7, c.PoolOpen*0.8)
	}
	if c.HeapOpen <= 0 || c.HeapOpen > 1 {
		c.HeapOpen = 0.85
	}
	if c.HeapClose <= 0 || c.HeapClose >= c.HeapOpen {
		c.HeapClose = min(0.75, c.HeapOpen*0.9)
	}
	if c.Interval <= 0 {
		c.Interval = 100 * time.Millisecond
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = 200 * time.Millisecond
	}
	if c.Random == nil {
		c.Random = rand.Float64
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// MemoryPool is a member's query memory: the sum of its queries'
// accounts, a member-wide limit, and the memory circuit breaker. The
// breaker opens when the pool reaches PoolOpen of its limit or the live
// heap HeapOpen of the member's memory limit; on opening, it terminates
// each running query that holds memory with probability ½; while open it
// refuses every new query that needs memory; it closes when both are
// below their lower thresholds again (hysteresis). While closed it also
// refuses a query that needs memory when the memory the running queries
// hold or are expected to take (the peak of recent queries, decaying slowly), with
// the new one's, would pass PoolClose (the room up to PoolOpen is for
// queries that peak above the average): so that admission, not
// termination, usually keeps the pool in bounds; with AdmissionWait, such
// a query waits for room first, in the order queries came. Map operations
// never meet it: only the query engine reserves. Safe for concurrent use.
type MemoryPool struct {
	cfg      PoolConfig
	reserved atomic.Int64
	heap     atomic.Int64 // the live heap the breaker read last
	open     atomic.Bool
	wake     chan struct{}
	forceGC  bool // the heap is the runtime's: collect while it keeps the breaker open
	lastGC   time.Time

	rejected, terminated, trips atomic.Int64
	// leaked counts bytes accounts still held when their query ended (an
	// operator that did not give back what it took: a bug).
	leaked atomic.Int64

	mu       sync.Mutex
	queries  map[string]*poolQuery
	seq      uint64
	expected float64            // the peaks of queries that need memory: the largest, decaying slowly
	waiting  []*admissionWaiter // first come, first admitted
}

// admissionWaiter is a query waiting for room in the pool. Under the
// pool's mu, the pool admits it (registering its query) or refuses it
// (setting reason), then closes decided; or the query gives up waiting.
type admissionWaiter struct {
	query    string
	decided  chan struct{}
	admitted bool
	reason   string
}

// poolQuery is a query's accounts on this member.
type poolQuery struct {
	seq      uint64
	accounts []*MemoryAccount
	reported bool // a breaker action was logged
	// claim is what the pool expected the query to take on this member
	// when it was admitted; peak sums its closed accounts' peaks, and cut
	// says one of them was stopped (its peak then says nothing).
	claim, peak int64
	cut         bool
}

// Admission says how the breaker treats a query opening an account.
type Admission uint8

const (
	// NoMemory: the query holds a page at most; the breaker never
	// refuses it.
	NoMemory Admission = iota
	// AdmitHere: a query that needs memory, starting on this member
	// (its coordinator's): refused while the breaker is open or when it
	// would likely take the pool past its admission threshold.
	AdmitHere
	// Admitted: a fragment of a query that needs memory, which its
	// coordinator's member admitted: refused only while the breaker is
	// open, so that a query admitted by one member is not turned away by
	// another after work was done for it.
	Admitted
)

// NewMemoryPool returns a pool; the engine runs its breaker.
func NewMemoryPool(cfg PoolConfig) *MemoryPool {
	p := &MemoryPool{wake: make(chan struct{}, 1), queries: map[string]*poolQuery{}}
	if cfg.HeapLive == nil && cfg.MemoryLimit > 0 {
		cfg.HeapLive, cfg.RuntimeHeld, p.forceGC = liveHeap(), runtimeHeld(), true
	}
	p.cfg = cfg.withDefaults()
	return p
}

// liveHeap reads the runtime's live heap.
func liveHeap() func() int64 {
	var mu sync.Mutex
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return func() int64 {
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}
}

// runtimeHeld reads the memory the runtime counts against its soft limit.
func runtimeHeld() func() int64 {
	var mu sync.Mutex
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	return func() int64 {
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64()) - int64(sample[1].Value.Uint64())
	}
}

// PoolStats is a pool's state, for metrics.
type PoolStats struct {
	// Reserved is what queries hold now; Limit the member-wide limit (0:
	// none, or the breaker is off).
	Reserved, Limit int64
	// Open says the breaker is open.
	Open bool
	// Rejected and Terminated count the breaker's actions; Trips the
	// times it opened.
	Rejected, Terminated, Trips int64
	// Queries is the number of queries holding an account; Waiting
	// those waiting for room to start (AdmissionWait).
	Queries, Waiting int
}

// Stats returns the pool's state.
func (p *MemoryPool) Stats() PoolStats {
	p.mu.Lock()
	n, waiting := len(p.queries), len(p.waiting)
	p.mu.Unlock()
	return PoolStats{Reserved: p.reserved.Load(), Limit: p.limit(), Open: p.open.Load(),
		Rejected: p.rejected.Load(), Terminated: p.terminated.Load(), Trips: p.trips.Load(), Queries: n, Waiting: waiting}
}

// Reserved returns the bytes queries hold now.
func (p *MemoryPool) Reserved() int64 { return p.reserved.Load() }

// Leaked returns the bytes accounts still held when their queries ended.
func (p *MemoryPool) Leaked() int64 { return p.leaked.Load() }

// limit is the enforced member-wide limit (0: none).
func (p *MemoryPool) limit() int64 {
	if !p.cfg.Breaker {
		return 0
	}
	return p.cfg.Limit
}

func (p *MemoryPool) poolOpenAt() int64 { return int64(p.cfg.PoolOpen * float64(p.cfg.Limit)) }

// Open returns an account for query (its id, for logs) with the query's
// own limit (0: none), which the pool may terminate through cancel. A
// query that needs memory (joins, grouping, DISTINCT, sorting) may be
// refused with a *BreakerError, as adm says; a query starting here that
// finds no room while the breaker is closed first waits for it, behind
// those waiting already, up to AdmissionWait or until ctx ends (then
// Open returns ctx's error). A query's accounts on one member (its
// coordinator's and its fragments') are admitted and expected to take
// memory once. Close the account when the query ends on this member.
func (p *MemoryPool) Open(ctx context.Context, query string, limit int64, adm Admission, cancel func(error)) (*MemoryAccount, error) {
	a := &MemoryAccount{pool: p, query: query, limit: max(limit, 0), needs: adm != NoMemory, cancel: cancel}
	p.mu.Lock()
	pq := p.queries[query]
	if a.needs && p.cfg.Breaker {
		admitHere := adm == AdmitHere && pq == nil
		reason := p.refuse(admitHere)
		if admitHere && p.cfg.AdmissionWait > 0 && !p.open.Load() && (reason != "" || len(p.waiting) > 0) {
			w := &admissionWaiter{query: query, decided: make(chan struct{})}
			p.waiting = append(p.waiting, w)
			p.admitWaiting()
			p.mu.Unlock()
			if err := p.await(ctx, w); err != nil {
				return nil, err
			}
			p.mu.Lock()
			pq = p.queries[query]
		} else if reason != "" {
			p.mu.Unlock()
			return nil, p.reject(query, reason)
		}
	}
	if pq == nil {
		pq = p.register(query)
	}
	if a.needs && p.cfg.Breaker && pq.claim == 0 {
		pq.claim = int64(p.expected)
	}
	pq.accounts = append(pq.accounts, a)
	p.mu.Unlock()
	return a, nil
}

// register adds query to the pool's queries (under p.mu).
func (p *MemoryPool) register(query string) *poolQuery {
	p.seq++
	pq := &poolQuery{seq: p.seq}
	p.queries[query] = pq
	return pq
}

// reject counts, logs and returns the refusal of a new query.
func (p *MemoryPool) reject(query, reason string) error {
	p.rejected.Add(1)
	p.cfg.Logger.Info("query refused by the memory circuit breaker", "query", query, "reason", reason)
	return &BreakerError{Action: BreakerReject, Query: query, Reason: reason, RetryAfter: p.cfg.RetryAfter}
}

// await waits until the pool decides w, AdmissionWait passes or ctx ends.
// It returns nil once w is admitted (its query registered), the refusal
// otherwise, or ctx's error when ctx ended first.
func (p *MemoryPool) await(ctx context.Context, w *admissionWaiter) error {
	t := time.NewTimer(p.cfg.AdmissionWait)
	defer t.Stop()
	var ended error
	select {
	case <-w.decided:
	case <-t.C:
	case <-ctx.Done():
		ended = ctx.Err()
	}
	p.mu.Lock()
	select {
	case <-w.decided:
	default:
		p.waiting = slices.DeleteFunc(p.waiting, func(o *admissionWaiter) bool { return o == w })
		if ended == nil {
			w.reason = fmt.Sprintf("no room came within query.breaker.admission-wait %v: %s", p.cfg.AdmissionWait, p.refuse(true))
		}
		close(w.decided)
	}
	p.mu.Unlock()
	switch {
	case w.admitted:
		return nil // the query's caller sees ctx's end as it runs, and closes its account
	case ended != nil:
		return ended
	}
	return p.reject(w.query, w.reason)
}

// admitWaiting admits the waiting queries, first come first, while there
// is room for them, and refuses them all while the breaker is open (under
// p.mu).
func (p *MemoryPool) admitWaiting() {
	for len(p.waiting) > 0 {
		w := p.waiting[0]
		reason := p.refuse(true)
		if reason != "" && !p.open.Load() {
			return
		}
		p.waiting[0] = nil
		p.waiting = p.waiting[1:]
		if reason != "" {
			w.reason = reason
		} else {
			p.register(w.query).claim = int64(p.expected)
			w.admitted = true
		}
		close(w.decided)
	}
}

// refuse returns why a new query that needs memory is refused now, or ""
// (under p.mu): while the breaker is open; and, when admit is set, when
// the memory the running queries hold or are expected to take leaves no
// room for another.
func (p *MemoryPool) refuse(admit bool) string {
	if p.open.Load() {
		return fmt.Sprintf("the breaker is open (queries hold %d bytes of %d, live heap %d bytes of the member's memory limit %d)",
			p.reserved.Load(), p.cfg.Limit, p.heap.Load(), p.cfg.MemoryLimit)
	}
	if !admit || p.cfg.Limit <= 0 || p.expected <= 0 {
		return ""
	}
	var committed int64
	for _, q := range p.queries {
		var used int64
		for _, a := range q.accounts {
			used += a.used.Load()
		}
		committed += max(used, q.claim)
	}
	// Admission stops at the threshold where an open breaker closes
	// again, not where it opens: queries peak above the average, and
	// the room between the two absorbs that, so that the breaker rarely
	// has to terminate work already done.
	if admitAt := int64(p.cfg.PoolClose * float64(p.cfg.Limit)); committed > 0 && committed+int64(p.expected) > admitAt {
		return fmt.Sprintf("the running queries hold or are expected to take %d bytes, and a query takes about %d: more than the %d admitted (%.0f%% of query.memory-limit-per-member %d)",
			committed, int64(p.expected), admitAt, p.cfg.PoolClose*100, p.cfg.Limit)
	}
	return ""
}

// reserve takes n bytes for a (whose own limit allowed them).
func (p *MemoryPool) reserve(a *MemoryAccount, what string, n int64) error {
	r := p.reserved.Add(n)
	limit := p.limit()
	if limit <= 0 {
		return nil
	}
	if r > limit {
		p.reserved.Add(-n)
		err := &BreakerError{Action: BreakerTerminate, Query: a.query, RetryAfter: p.cfg.RetryAfter,
			Reason: fmt.Sprintf("the %s needs %d bytes more, and the queries on this member hold %d of query.memory-limit-per-member %d", what, n, r-n, limit)}
		p.report(a, err)
		return err
	}
	if r >= p.poolOpenAt() && !p.open.Load() {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// report counts and logs the termination of a's query, once per query.
func (p *MemoryPool) report(a *MemoryAccount, err *BreakerError) {
	a.stopped.Store(true)
	p.mu.Lock()
	q := p.queries[a.query]
	first := q != nil && !q.reported
	if first {
		q.reported = true
	}
	p.mu.Unlock()
	if first {
		p.terminated.Add(1)
		p.cfg.Logger.Warn("query terminated by the memory circuit breaker", "query", a.query, "reason", err.Reason)
	}
}

// close ends an account (MemoryAccount.Close).
func (p *MemoryPool) close(a *MemoryAccount) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queries[a.query]
	if q == nil {
		return
	}
	if i := slices.Index(q.accounts, a); i >= 0 {
		q.accounts = slices.Delete(q.accounts, i, i+1)
	}
	if a.needs {
		q.peak += a.peak.Load()
		q.cut = q.cut || a.stopped.Load()
	}
	if len(q.accounts) > 0 {
		return
	}
	delete(p.queries, a.query)
	defer p.admitWaiting()
	if q.peak > 0 && !q.cut {
		// Up at once, down slowly: a query's peak grows with the
		// load (its exchange buffers fill while its consumers wait
		// for the CPU), and admission must not learn the quiet
		// moments' peaks alone.
		if peak := float64(q.peak); peak >= p.expected {
			p.expected = peak
		} else {
			p.expected = 0.95*p.expected + 0.05*peak
		}
	}
}

// run is the breaker: it looks at the pool and the live heap every
// Interval (and when a reservation wakes it) until stop closes.
func (p *MemoryPool) run(stop <-chan struct{}) {
	if !p.cfg.Breaker {
		return
	}
	t := time.NewTicker(p.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-p.wake:
		}
		p.evaluate()
	}
}

// evaluate opens or closes the breaker by the pool, the live heap and
// the memory the runtime holds; opening terminates half of the queries
// holding memory.
func (p *MemoryPool) evaluate() {
	defer func() {
		p.mu.Lock()
		p.admitWaiting() // refuses them if the breaker opened; admits them as room comes
		p.mu.Unlock()
	}()
	heap, held := int64(0), int64(0)
	if p.cfg.HeapLive != nil && p.cfg.MemoryLimit > 0 {
		heap = p.cfg.HeapLive()
		heapHigh := heap >= int64(p.cfg.HeapOpen*float64(p.cfg.MemoryLimit))
		if p.forceGC && p.open.Load() && heapHigh && time.Since(p.lastGC) > time.Second {
			// The live heap is what the last collection marked: with
			// queries refused little is allocated, so no collection may
			// come to show that the terminated queries' memory is free.
			runtime.GC()
			p.lastGC = time.Now()
			heap = p.cfg.HeapLive()
		}
		if p.cfg.RuntimeHeld != nil {
			held = p.cfg.RuntimeHeld()
		}
	}
	p.heap.Store(heap)
	reserved := p.reserved.Load()
	poolHigh := p.cfg.Limit > 0 && reserved > 0 && reserved >= p.poolOpenAt()
	heapHigh := p.cfg.MemoryLimit > 0 && heap >= int64(p.cfg.HeapOpen*float64(p.cfg.MemoryLimit))
	overLimit := p.cfg.MemoryLimit > 0 && held > p.cfg.MemoryLimit
	if !p.open.Load() {
		if !poolHigh && !heapHigh && !overLimit {
			return
		}
		var reason string
		switch {
		case heapHigh:
			reason = fmt.Sprintf("the live heap is %d bytes, %.0f%% of the member's memory-limit %d", heap, 100*float64(heap)/float64(p.cfg.MemoryLimit), p.cfg.MemoryLimit)
		case overLimit:
			reason = fmt.Sprintf("the runtime holds %d bytes, past the member's memory-limit %d: collection is not keeping up with the queries' allocations", held, p.cfg.MemoryLimit)
		default:
			reason = fmt.Sprintf("queries hold %d bytes, %.0f%% of query.memory-limit-per-member %d", reserved, 100*float64(reserved)/float64(max(p.cfg.Limit, 1)), p.cfg.Limit)
		}
		p.open.Store(true)
		p.trips.Add(1)
		p.cfg.Logger.Warn("memory circuit breaker open: refusing new queries that need memory, terminating half of those holding it",
			"reason", reason, "reserved", reserved, "heap", heap, "held", held)
		p.terminateHalf(reason)
		return
	}
	poolLow := p.cfg.Limit <= 0 || reserved < int64(p.cfg.PoolClose*float64(p.cfg.Limit))
	heapLow := p.cfg.MemoryLimit <= 0 || heap < int64(p.cfg.HeapClose*float64(p.cfg.MemoryLimit))
	if poolLow && heapLow && !overLimit {
		p.open.Store(false)
		p.cfg.Logger.Info("memory circuit breaker closed", "reserved", reserved, "heap", heap, "held", held)
	}
}

// terminateHalf terminates each query holding memory with probability ½,
// in the order the queries started (so that a test's random source knows
// which).
func (p *MemoryPool) terminateHalf(reason string) {
	p.mu.Lock()
	type victim struct {
		id string
		q  *poolQuery
	}
	var holding []victim
	for id, q := range p.queries {
		var used int64
		for _, a := range q.accounts {
			if a.cancel != nil {
				used += a.used.Load()
			}
		}
		if used > 0 {
			holding = append(holding, victim{id, q})
		}
	}
	slices.SortFunc(holding, func(a, b victim) int { return cmp.Compare(a.q.seq, b.q.seq) })
	var stop []*MemoryAccount
	for _, v := range holding {
		if p.cfg.Random() >= 0.5 {
			continue
		}
		err := &BreakerError{Action: BreakerTerminate, Query: v.id, Reason: reason, RetryAfter: p.cfg.RetryAfter}
		for _, a := range v.q.accounts {
			if a.cancel != nil {
				a.stopped.Store(true)
				a.stopErr = err
				stop = append(stop, a)
			}
		}
		if !v.q.reported {
			v.q.reported = true
			p.terminated.Add(1)
			p.cfg.Logger.Warn("query terminated by the memory circuit breaker", "query", v.id, "reason", reason)
		}
	}
	p.mu.Unlock()
	for _, a := range stop {
		a.cancel(a.stopErr)
	}
}

// MemoryAccount is the memory one query holds on one member, in bytes:
// what its operators keep beyond a batch in flight. An operator reserves
// before it grows and releases when it frees or finishes; a reservation
// that would pass the query's limit fails with *MemoryLimitError, one
// that would pass the member's with *BreakerError, and neither reserves
// anything. Safe for concurrent use.
type MemoryAccount struct {
	pool  *MemoryPool // nil: a standalone account
	query string
	limit int64 // 0: no limit
	needs bool  // the query needs memory (admission and the expected peak)
	// cancel stops the query with the given cause (nil: the breaker
	// cannot stop it).
	cancel  func(error)
	stopped atomic.Bool
	stopErr *BreakerError
	used    atomic.Int64
	peak    atomic.Int64
	closed  atomic.Bool
}

// NewMemoryAccount returns a standalone account with a limit in bytes (0:
// none), drawing on no pool.
func NewMemoryAccount(limit int64) *MemoryAccount {
	return &MemoryAccount{limit: max(limit, 0)}
}

// Reserve accounts n more bytes for what, or fails without reserving.
func (a *MemoryAccount) Reserve(what string, n int64) error {
	if n <= 0 {
		return nil
	}
	used := a.used.Add(n)
	if a.limit > 0 && used > a.limit {
		a.used.Add(-n)
		return &MemoryLimitError{What: what, Requested: n, Used: used - n, Limit: a.limit}
	}
	if a.pool != nil {
		if err := a.pool.reserve(a, what, n); err != nil {
			a.used.Add(-n)
			return err
		}
	}
	for {
		p := a.peak.Load()
		if used <= p || a.peak.CompareAndSwap(p, used) {
			return nil
		}
	}
}

// Release returns n bytes.
func (a *MemoryAccount) Release(n int64) {
	if n > 0 {
		a.used.Add(-n)
		if a.pool != nil {
			a.pool.reserved.Add(-n)
		}
	}
}

// Used returns the bytes reserved now.
func (a *MemoryAccount) Used() int64 { return a.used.Load() }

// Peak returns the most bytes the account held at once.
func (a *MemoryAccount) Peak() int64 { return a.peak.Load() }

// Close ends the account when its query ended on this member: what it
// still holds goes back to the pool and is counted as leaked (every
// operator gives back what it took, so that is a bug). Calling Close
// again does nothing.
func (a *MemoryAccount) Close() {
	if a == nil || !a.closed.CompareAndSwap(false, true) {
		return
	}
	if left := a.used.Swap(0); left != 0 && a.pool != nil {
		a.pool.reserved.Add(-left)
		a.pool.leaked.Add(left)
		a.pool.cfg.Logger.Error("a query ended holding memory it did not release", "query", a.query, "bytes", left)
	}
	if a.pool != nil {
		a.pool.close(a)
	}
}

// memGrant reserves an operator's memory in steps (a worker's groups, a
// table's rows), so that many small growths cost one reservation each
// step: used is what the operator holds, held what it reserved.
type memGrant struct {
	mem        *MemoryAccount
	what       string
	used, held int64
}

// grantStep is the least a memGrant reserves at a time.
const grantStep = 64 << 10

// grow accounts n more bytes.
func (g *memGrant) grow(n int64) error {
	g.used += n
	if g.used <= g.held || g.mem == nil {
		return nil
	}
	step := max(g.used-g.held, grantStep)
	if err := g.mem.Reserve(g.what, step); err != nil {
		g.used -= n
		return err
	}
	g.held += step
	return nil
}

// shrink accounts n bytes fewer (given back in steps).
func (g *memGrant) shrink(n int64) {
	g.used = max(g.used-n, 0)
	if extra := g.held - g.used; extra > 2*grantStep && g.mem != nil {
		back := extra - grantStep
		g.mem.Release(back)
		g.held -= back
	}
}

// release gives back everything.
func (g *memGrant) release() {
	if g.mem != nil {
		g.mem.Release(g.held)
	}
	g.used, g.held = 0, 0
}
