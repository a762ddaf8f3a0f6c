package exec

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// sink receives batches of encoded rows. Calls may come from several
// goroutines at once, each passing its own worker index (below the
// stage's workers), so that a sink can keep per-worker state.
type sink func(worker int, b *Batch) error

// consumer takes a join input's rows: as encoded batches, and, where
// rows is set, one at a time straight from a scan.
type consumer struct {
	batch sink
	rows  rowSink
}

// Worker indexes: scans use 0..GOMAXPROCS-1 (the scans of one stage run
// one after another); every other goroutine that feeds a sink, each
// join's vector workers and the one that emits what a join owes at its
// end, takes an index of its own from the stage (newWorker), so that two
// goroutines running at once never share one.

// stageWorkers bounds a stage's worker indexes for its fragment.
func stageWorkers(f *plan.Fragment) int {
	joins := 0
	var count func(*plan.Fragment)
	count = func(f *plan.Fragment) {
		if f.Join != nil {
			joins++
			count(f.Join.Left)
			count(f.Join.Right)
		}
	}
	count(f)
	g := runtime.GOMAXPROCS(0)
	return g + joins*(g+1)
}

// newWorker returns a worker index no other goroutine of the stage has.
func (s *stage) newWorker() int { return int(s.nextWorker.Add(1)) - 1 }

// stage runs one query's fragment with joins on this member: its joins'
// inputs (scans of this member's partitions, or rows that other members
// send through exchanges), hash tables and probes, and the fragment's own
// filter, projection or partial aggregation of the joined rows.
type stage struct {
	e   *Engine
	ctx context.Context
	// cancel stops the stage's goroutines with the error that failed it:
	// those that then see their context end report that error, not a bare
	// cancellation.
	cancel   context.CancelCauseFunc
	id       []byte
	params   []expr.Value
	parts    []int32
	members  []partition.Member
	self     int
	owners   []int32
	settings ExchangeSettings
	mem      *MemoryAccount
	// workers bounds worker indexes; nextWorker hands out those above
	// the scans'.
	workers    int
	nextWorker atomic.Int32
}

// runStage runs a join fragment over parts and passes its output to emit
// (one call at a time). xc describes the query's members and exchanges
// (nil: this member alone runs the query).
func (e *Engine) runStage(ctx context.Context, f *plan.Fragment, parts []int32, xc *pb.ExchangeContext, mem *MemoryAccount, emit func(*Batch) error) error {
	s := &stage{e: e, params: f.Params, parts: parts, mem: mem, settings: e.cfg.Exchange.withDefaults(), workers: stageWorkers(f)}
	s.nextWorker.Store(int32(runtime.GOMAXPROCS(0)))
	s.ctx, s.cancel = context.WithCancelCause(ctx)
	defer s.cancel(nil)
	if xc == nil {
		t := e.cfg.Table.Load()
		if t == nil {
			return fmt.Errorf("%w: no partition table", ErrUnavailable)
		}
		s.members = []partition.Member{{UUID: e.cfg.Self}}
		s.owners = make([]int32, t.PartitionCount())
		s.id = []byte("local")
	} else {
		if err := s.configure(xc); err != nil {
			return err
		}
	}
	ids := exchangeIDs(f)
	if len(s.members) > 1 {
		seen := map[int32]bool{}
		for _, id := range ids {
			if seen[id] {
				return plan.Errorf("exchange %d appears twice in the fragment", id)
			}
			seen[id] = true
			if _, err := e.hub.register(inboxKey{stage: string(s.id), exchange: id}, len(s.members)-1); err != nil {
				return err
			}
		}
		defer e.hub.endStage(string(s.id), ids)
	}
	var mu sync.Mutex
	err := s.run(f, consumer{batch: func(_ int, b *Batch) error {
		mu.Lock()
		defer mu.Unlock()
		return emit(b)
	}})
	if err != nil && ctx.Err() != nil {
		return stopCause(ctx)
	}
	if err != nil && s.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// A goroutine that saw the stage stop returned first: the
		// stage's error is what stopped it.
		return stopCause(s.ctx)
	}
	return err
}

func exchangeIDs(f *plan.Fragment) []int32 {
	var ids []int32
	for _, x := range f.Exchanges() {
		ids = append(ids, x.ID)
	}
	return ids
}

// configure reads the query's members, owners and settings.
func (s *stage) configure(xc *pb.ExchangeContext) error {
	if len(xc.QueryId) == 0 || len(xc.Members) == 0 {
		return plan.Errorf("exchange context without a query or members")
	}
	s.id = xc.QueryId
	s.self = -1
	for i, m := range xc.Members {
		if m == nil {
			return plan.Errorf("exchange context with an empty member")
		}
		var u partition.UUID
		if len(m.Uuid) != len(u) {
			return plan.Errorf("exchange member %d has a %d-byte id", i, len(m.Uuid))
		}
		copy(u[:], m.Uuid)
		s.members = append(s.members, partition.Member{UUID: u, Address: m.Address})
		if u == s.e.cfg.Self {
			s.self = i
		}
	}
	if s.self < 0 {
		return plan.Errorf("this member is not among the query's members")
	}
	t := s.e.cfg.Table.Load()
	if t == nil || len(xc.Owners) != t.PartitionCount() {
		return plan.Errorf("exchange context names %d partition owners", len(xc.Owners))
	}
	for _, o := range xc.Owners {
		if o < 0 || int(o) >= len(s.members) {
			return plan.Errorf("partition owner %d is not a member of the query", o)
		}
	}
	s.owners = xc.Owners
	if xc.BatchBytes > 0 {
		s.settings.BatchBytes = xc.BatchBytes
	}
	if xc.VectorSize > 0 {
		s.settings.VectorSize = xc.VectorSize
	}
	if xc.InFlightBytes > 0 {
		s.settings.InFlightBytes = xc.InFlightBytes
	}
	s.settings = s.settings.withDefaults()
	return nil
}

// run runs a fragment (scan or join) and passes its output to out.
func (s *stage) run(f *plan.Fragment, out consumer) error {
	if f.Join == nil {
		sf := *f
		sf.Params = s.params
		return s.e.runScan(s.ctx, &sf, s.parts, out.batch, out.rows, s.mem)
	}
	return s.join(f, out.batch)
}

// join runs a join fragment: the build input into a table, then the
// probe input through it, then what the table owes at the end; the joined
// rows go through the fragment's filter and projection or partial
// aggregation into out.
func (s *stage) join(f *plan.Fragment, out sink) error {
	j := f.Join
	spec := joinSpec{kind: j.Kind, leftKeys: j.LeftKeys, rightKeys: j.RightKeys, residual: j.Residual,
		nullAware: j.NullAware, buildRight: j.BuildRight, leftWidth: len(j.Left.Out), rightWidth: len(j.Right.Out)}
	t, err := newJoinTable(spec, s.mem)
	if err != nil {
		return err
	}
	defer t.release()
	buildF, probeF, buildX, probeX := j.Left, j.Right, j.LeftMove, j.RightMove
	if j.BuildRight {
		buildF, probeF, buildX, probeX = j.Right, j.Left, j.RightMove, j.LeftMove
	}
	var buildMu sync.Mutex
	built := false // late deliveries of a failed stage find the table gone
	buildWidth := len(buildF.Out)
	addBuild := func(_ int, b *Batch) error {
		rows, err := DecodeRows(b.Rows, b.Count, buildWidth)
		if err != nil {
			return err
		}
		s.e.hub.lockTimed(&buildMu)
		defer buildMu.Unlock()
		if built {
			return fmt.Errorf("%w: rows arrived after the build side was complete", ErrExchange)
		}
		// The rows alias the batch and share one array of values.
		return t.add(rows, decodedBytes(b, buildWidth)-int64(b.Count)*sliceBytes)
	}
	err = s.input(buildF, buildX, consumer{batch: addBuild}, false)
	buildMu.Lock()
	built = true
	buildMu.Unlock()
	if err != nil {
		return err
	}
	if err := t.build(); err != nil {
		return err
	}
	// Each worker probes with its own prober and feeds its own tail.
	tf := *f
	tf.Params = s.params
	var remaining atomic.Int64
	remaining.Store(f.Limit)
	tails := make([]*worker, s.workers)
	defer func() {
		for _, tw := range tails {
			if tw != nil {
				tw.ops.release()
			}
		}
	}()
	tail := func(w int) (*worker, error) {
		if tails[w] == nil {
			tw, err := s.e.newWorker(s.ctx, &tf, nil, nil, s.mem)
			if err != nil {
				return nil, err
			}
			tw.remaining = &remaining
			tails[w] = tw
		}
		return tails[w], nil
	}
	ps := &probeSide{t: t, gj: newGroupJoin(f, t, s.mem, s.workers), params: s.params, out: out, width: len(probeF.Out),
		probers: make([]*prober, s.workers), tails: tails, tail: tail}
	if ps.gj != nil {
		defer func() { s.mem.Release(ps.gj.reserved.Swap(0)) }() // a failed join's counters too
	}
	if err := s.input(probeF, probeX, consumer{batch: ps.batch, rows: ps}, true); err != nil {
		return err
	}
	gj := ps.gj
	fw := s.newWorker()
	ftail, err := tail(fw)
	if err != nil {
		return err
	}
	if gj != nil {
		err = gj.finish(ftail)
	} else {
		err = t.finish(ftail.pushRow, false)
	}
	if err != nil {
		return err
	}
	for w, tw := range tails {
		if tw == nil {
			continue
		}
		if b := tw.finish(); b != nil && b.Count > 0 {
			if err := out(w, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// probeSide probes a join's table with the probe input's rows, each
// worker with its own prober and tail (the fragment's filter, projection
// or partial aggregation), or counts a group join's pairs.
type probeSide struct {
	t       *joinTable
	gj      *groupJoin
	params  []expr.Value
	out     sink
	width   int
	probers []*prober
	tails   []*worker
	tail    func(w int) (*worker, error)
}

func (ps *probeSide) prober(w int) (*prober, *worker, error) {
	tw, err := ps.tail(w)
	if err != nil {
		return nil, nil, err
	}
	if p := ps.probers[w]; p != nil {
		return p, tw, nil
	}
	p := ps.t.newProber(ps.params, false)
	if ps.gj != nil {
		counters, err := ps.gj.counters(w)
		if err != nil {
			return nil, nil, err
		}
		gj := ps.gj
		p.onPair = func(probe []expr.Value, b int32) error { return gj.pair(counters, probe, b) }
	}
	ps.probers[w] = p
	return p, tw, nil
}

// row probes one row (rowSink: under a store lock, so it only computes).
func (ps *probeSide) row(w int, row []expr.Value) error {
	p, tw, err := ps.prober(w)
	if err != nil {
		return err
	}
	if tw.done {
		return nil
	}
	return p.probe(row, tw.pushRow)
}

// flush hands the worker's full output batch on.
func (ps *probeSide) flush(w int) error {
	if tw := ps.tails[w]; tw != nil && len(tw.buf) >= flushBytes {
		return ps.out(w, tw.take())
	}
	return nil
}

// batch probes a batch of encoded rows.
func (ps *probeSide) batch(w int, b *Batch) error {
	p, tw, err := ps.prober(w)
	if err != nil {
		return err
	}
	row := make([]expr.Value, ps.width)
	rows := b.Rows
	for n := 0; n < b.Count && !tw.done; n++ {
		for c := range row {
			if rows, err = decodeInto(rows, &row[c]); err != nil {
				return err
			}
		}
		if err := p.probe(row, tw.pushRow); err != nil {
			return err
		}
	}
	return ps.flush(w)
}

// input runs a join input and passes its rows to consume: directly when
// they stay on this member, else through the exchange x, to which every
// member sends its rows of the input. A probe input's rows from other
// members are gathered into vectors of vector-size rows for the join's
// workers; its own rows are probed where they are scanned.
func (s *stage) input(f *plan.Fragment, x *plan.Exchange, consume consumer, probe bool) error {
	if x == nil || len(s.members) == 1 {
		return s.run(f, consume)
	}
	ib, err := s.e.hub.inbox(inboxKey{stage: string(s.id), exchange: x.ID})
	if err != nil {
		return err
	}
	var vectors *assembler
	if probe {
		vectors = s.newAssembler(consume.batch)
		ib.attach(vectors.add)
	} else {
		ib.attach(func(rows []byte, count int) error { return consume.batch(0, &Batch{Rows: rows, Count: count}) })
	}
	r, err := s.newRouter(x, len(f.Out), consume)
	if err == nil {
		if err = s.run(f, consumer{batch: r.add, rows: r}); err == nil {
			err = r.finish()
		} else {
			r.abort()
		}
	}
	if err == nil {
		err = ib.wait(s.ctx)
	}
	if err != nil {
		s.cancel(err)
	}
	if vectors != nil {
		if verr := vectors.close(err == nil); err == nil {
			err = verr
		}
	}
	return err
}

// assembler gathers the rows other members send into vectors of
// vector-size rows and hands them to the join's workers.
type assembler struct {
	s       *stage
	consume sink
	size    int
	mu      sync.Mutex
	rows    []byte
	count   int
	res     int64
	closed  bool
	adding  sync.WaitGroup // streams inside add
	queue   chan vector
	wg      sync.WaitGroup
	errMu   sync.Mutex
	err     error
}

type vector struct {
	b   *Batch
	res int64
}

func (s *stage) newAssembler(consume sink) *assembler {
	n := runtime.GOMAXPROCS(0)
	a := &assembler{s: s, consume: consume, size: int(s.settings.VectorSize), queue: make(chan vector, n)}
	for i := 0; i < n; i++ {
		w := s.newWorker()
		a.wg.Add(1)
		s.e.goRun(func() {
			defer a.wg.Done()
			pprof.SetGoroutineLabels(s.ctx)
			for v := range a.queue {
				if a.failed() == nil {
					if err := a.consume(w, v.b); err != nil {
						a.fail(err)
					}
				}
				a.s.mem.Release(v.res)
			}
		})
	}
	return a
}

func (a *assembler) fail(err error) {
	a.errMu.Lock()
	if a.err == nil {
		a.err = err
	}
	a.errMu.Unlock()
	a.s.cancel(err)
}

func (a *assembler) failed() error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err
}

// add takes rows a stream received (the stream's handler goroutine).
func (a *assembler) add(rows []byte, count int) error {
	if err := a.failed(); err != nil {
		return err
	}
	a.s.e.hub.lockTimed(&a.mu)
	if a.closed {
		a.mu.Unlock()
		return fmt.Errorf("%w: rows arrived after the probe side was complete", ErrExchange)
	}
	a.adding.Add(1)
	defer a.adding.Done()
	if grow := int64(len(a.rows) + len(rows) - cap(a.rows)); grow > 0 {
		grow = max(grow, int64(cap(a.rows)))
		if err := a.s.mem.Reserve("exchange buffer", grow); err != nil {
			a.mu.Unlock()
			return err
		}
		a.res += grow
		nb := make([]byte, len(a.rows), int64(cap(a.rows))+grow)
		copy(nb, a.rows)
		a.rows = nb
	}
	a.rows = append(a.rows, rows...)
	a.count += count
	var full vector
	if a.count >= a.size {
		full = a.take()
	}
	a.mu.Unlock()
	if full.b != nil {
		return a.push(full)
	}
	return nil
}

func (a *assembler) take() vector {
	v := vector{b: &Batch{Rows: a.rows, Count: a.count}, res: a.res}
	a.rows, a.count, a.res = nil, 0, 0
	return v
}

// push queues a vector, counting the wait for a free worker as
// scheduling wait.
func (a *assembler) push(v vector) error {
	select {
	case a.queue <- v:
		return nil
	default:
	}
	start := time.Now()
	defer func() { a.s.e.hub.stats.schedWaitNs.Add(int64(time.Since(start))) }()
	select {
	case a.queue <- v:
		return nil
	case <-a.s.ctx.Done():
		a.s.mem.Release(v.res)
		return a.s.ctx.Err()
	}
}

// close hands the last, partial vector on (when ok), waits for the
// workers and returns their first error.
func (a *assembler) close(ok bool) error {
	a.mu.Lock()
	a.closed = true
	last := vector{}
	if a.count > 0 {
		last = a.take()
	}
	a.mu.Unlock()
	a.adding.Wait()
	var err error
	if last.b != nil {
		if ok {
			err = a.push(last)
		} else {
			a.s.mem.Release(last.res)
		}
	}
	close(a.queue)
	a.wg.Wait()
	if ferr := a.failed(); ferr != nil {
		return ferr
	}
	return err
}
