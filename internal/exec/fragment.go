package exec

import (
	"context"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// flushBytes is the batch size a worker sends at a partition boundary.
const flushBytes = 64 << 10

// batchCap is the capacity of a worker's buffer after a full batch: room
// for flushBytes and the partition that crosses it.
const batchCap = 2 * flushBytes

// batchBuffers holds the buffers of full batches whose rows were copied
// out (Batch.Recycle) for the next ones: a scan that returns many rows
// would otherwise allocate, and clear, a buffer per batch.
var batchBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, batchCap)
	return &b
}}

// batchBuffer returns an empty buffer of batchBuffers, for the rows of a
// batch whose Recycle gives it back.
func batchBuffer() []byte { return *batchBuffers.Get().(*[]byte) }

// runFragment runs a fragment over the given partitions of this member,
// in parallel, and passes its rows to emit (called from one goroutine at a
// time). It returns when every partition is done, ctx ends or emit fails.
// A fragment with joins runs as a stage with the query's exchange context
// xc and memory account mem.
func (e *Engine) runFragment(ctx context.Context, f *plan.Fragment, parts []int32, xc *pb.ExchangeContext, mem *MemoryAccount, emit func(*Batch) error) error {
	if f.Final {
		return e.runFinal(ctx, f, parts, xc, mem, emit)
	}
	if f.Join != nil {
		return e.runStage(ctx, f, parts, xc, mem, emit)
	}
	var mu sync.Mutex
	return e.runScan(ctx, f, parts, func(_ int, b *Batch) error {
		mu.Lock()
		defer mu.Unlock()
		return emit(b)
	}, nil, mem)
}

// rowSink takes a scan's projected rows one at a time, as the scan reads
// them, instead of encoded batches (a join's probe, an exchange's router).
type rowSink interface {
	// row takes one row of worker w. It is called under the store's
	// partition lock, so it must not block, and the row's values alias
	// the stored bytes: it copies what it keeps.
	row(w int, row []expr.Value) error
	// flush is called between partitions and at the end; it may block.
	flush(w int) error
}

// runScan runs a scan fragment over the given partitions of this member
// on parallel workers; each passes its batches to out with its own worker
// index, or, with rows set, its rows to rows. The workers' groups and
// top rows are accounted to mem.
func (e *Engine) runScan(ctx context.Context, f *plan.Fragment, parts []int32, out sink, rows rowSink, mem *MemoryAccount) error {
	st, ok := e.cfg.Maps.Lookup(f.Map)
	if !ok {
		if f.CountOnly || f.Aggregating() {
			return e.emitEmptyAggregate(f, func(b *Batch) error { return out(0, b) })
		}
		return nil // a map that was never written has no entries
	}
	if f.PartitionKey != nil {
		pid := serialization.Data(f.PartitionKey).PartitionID(int32(st.PartitionCount()))
		keep := parts[:0:0]
		for _, p := range parts {
			if p == pid {
				keep = append(keep, p)
			}
		}
		parts = keep
	}
	var ix *index
	if f.Index != nil {
		e.syncIndexes(f.Map, st)
		if ix = e.indexes.lookup(f.Map, f.Index.Index.Name, st); ix == nil {
			// The index is not built here (yet): scan instead; the filter
			// holds the lookup's condition.
			f = withoutIndex(f)
		}
	}
	nw := min(runtime.GOMAXPROCS(0), len(parts))
	if ix != nil || f.CountOnly || f.PartitionKey != nil {
		nw = 1
	}
	if nw < 1 {
		nw = 1
	}
	sc := &scanRun{e: e, st: st, out: out}
	sc.remaining.Store(f.Limit)
	sc.workers = sc.first[:] // nw is at least 1
	if nw > len(sc.first) {
		sc.workers = make([]*worker, nw)
	}
	for i := range sc.workers {
		w, err := e.newWorker(ctx, f, st, ix, mem)
		if err != nil {
			return err
		}
		w.remaining = &sc.remaining
		if rows != nil && !f.Aggregating() && len(f.Sort) == 0 {
			w.rows, w.index, w.rowBuf = rows, i, make([]expr.Value, len(w.proj))
		}
		sc.workers[i] = w
	}
	// An equality lookup visits only the partitions whose index parts hold
	// its keys; every partition of the fragment must still be this
	// member's from before the lookup to after it.
	sc.visit = parts
	if ix != nil && f.Index.Equals != nil {
		w := sc.workers[0]
		if err := w.evalLookup(); err != nil {
			return err
		}
		if err := e.ownsAll(parts); err != nil {
			return err
		}
		sc.visit = make([]int32, 0, 1)
		for _, p := range parts {
			if int(p) < len(w.visit) && w.visit[p] {
				sc.visit = append(sc.visit, p)
			}
		}
	}
	// Scans share their reads when they filter or aggregate: a scan that
	// hands out every entry as a row spends its time on the rows, not the
	// reads.
	if ix == nil && !f.CountOnly && f.PartitionKey == nil && rows == nil && (f.Filter != nil || f.Aggregating()) {
		shared, err := e.shares.join(st, sc, parts, nw, func() (*worker, error) {
			w, err := e.newWorker(ctx, f, st, nil, mem)
			if err == nil {
				w.remaining = &sc.remaining
			}
			return w, err
		})
		if err != nil {
			return err
		}
		if shared {
			sc.workers = append(sc.workers, sc.shared.riders...)
		}
	}
	if nw == 1 {
		// One worker runs on the caller's goroutine. A query that carries
		// no labels runs without the fragment's too: an index lookup on
		// a connection's reader while no CPU profile is taken
		// (profiling.CPUProfiling).
		if hasLabels(ctx) {
			pprof.Do(ctx, fragmentLabels(f), func(ctx context.Context) { sc.run(ctx, 0) })
		} else {
			sc.run(ctx, 0)
		}
	} else {
		labels := fragmentLabels(f)
		var wg sync.WaitGroup
		for wi := range nw {
			wg.Add(1)
			go pprof.Do(ctx, labels, func(ctx context.Context) {
				defer wg.Done()
				sc.run(ctx, wi)
			})
		}
		wg.Wait()
	}
	if len(sc.visit) < len(parts) && sc.err == nil {
		sc.err = e.ownsAll(parts)
	}
	if e.cfg.OnScanned != nil {
		var scanned int64
		for _, w := range sc.workers {
			scanned += w.scanned
		}
		e.cfg.OnScanned(ctx, scanned)
	}
	return sc.err
}

// fragmentLabels are the pprof labels a fragment's scan adds to its
// query's.
func fragmentLabels(f *plan.Fragment) pprof.LabelSet {
	return pprof.Labels("query", "fragment", "map", f.Map)
}

// scanRun is the state a scan's workers share: the partitions to visit,
// the next one to take (or, when it shares its reads, its part in the
// map's shared scans), the rows the LIMIT still wants and the first
// error, which stops them all.
type scanRun struct {
	e         *Engine
	st        *store.Map
	out       sink
	workers   []*worker
	first     [1]*worker // workers' array for a scan on one worker
	visit     []int32
	next      atomic.Int64
	shared    *shareState
	remaining atomic.Int64
	stopped   atomic.Bool
	mu        sync.Mutex
	err       error
}

// fail records the scan's first error and stops its workers.
func (sc *scanRun) fail(err error) {
	sc.mu.Lock()
	if sc.err == nil {
		sc.err = err
	}
	sc.mu.Unlock()
	sc.stopped.Store(true)
}

// run runs worker wi of the scan: scanShared when the scan shares its
// reads, else scan.
func (sc *scanRun) run(ctx context.Context, wi int) {
	if sc.shared != nil {
		sc.scanShared(ctx, wi)
	} else {
		sc.scan(ctx, wi)
	}
}

// scan runs worker wi over the partitions it takes until none is left,
// the scan stops or ctx ends.
func (sc *scanRun) scan(ctx context.Context, wi int) {
	w := sc.workers[wi]
	defer w.ops.release()
	for {
		if sc.stopped.Load() {
			return // another worker failed: nothing more is sent
		}
		i := int(sc.next.Add(1) - 1)
		if i >= len(sc.visit) || w.done {
			break
		}
		if err := sc.partition(ctx, wi, sc.visit[i]); err != nil {
			sc.fail(err)
			return
		}
	}
	if err := sc.finish(wi); err != nil {
		sc.fail(err)
	}
}

// partition runs worker wi over partition pid and passes on what it has
// ready.
func (sc *scanRun) partition(ctx context.Context, wi int, pid int32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The partition must be this member's for the whole scan: one that
	// moved away (or has not fully arrived) fails the fragment, and the
	// coordinator starts it again.
	if err := sc.e.owns(pid); err != nil {
		return err
	}
	w := sc.workers[wi]
	if err := w.partition(pid); err != nil {
		return err
	}
	if err := sc.e.owns(pid); err != nil {
		return err
	}
	if w.rows != nil {
		return w.rows.flush(wi)
	}
	if len(w.buf) >= flushBytes {
		return sc.out(wi, w.take())
	}
	return nil
}

// finish passes on what worker wi has left once it takes no more
// partitions.
func (sc *scanRun) finish(wi int) error {
	w := sc.workers[wi]
	if w.rows != nil {
		return w.rows.flush(wi)
	}
	if b := w.finish(); b != nil && b.Count > 0 {
		return sc.out(wi, b)
	}
	return nil
}

func withoutIndex(f *plan.Fragment) *plan.Fragment {
	c := *f
	c.Index = nil
	return &c
}

// emitEmptyAggregate emits the partial row of an aggregate over no rows.
func (e *Engine) emitEmptyAggregate(f *plan.Fragment, emit func(*Batch) error) error {
	if len(f.GroupBy) > 0 {
		return nil
	}
	states := newAggStates(f.Aggs)
	var row []expr.Value
	for i := range states {
		row = states[i].partial(row)
	}
	return emit(&Batch{Rows: EncodeRow(nil, row), Count: 1})
}

// worker runs a fragment over the partitions it takes, with its own
// compiled expressions, row and buffers, and the fragment's shared shape.
type worker struct {
	*shape // shared with the fragment's other workers: read only
	f      *plan.Fragment
	st     *store.Map
	ix     *index
	env    expr.Env
	row    expr.Row
	eq     *eqConst // the filter as column = constant, checked on the field
	hint   store.ReadHint
	cond   expr.Cond
	proj   []expr.Fn
	grpFn  []expr.Fn
	argFn  []expr.Fn
	byFn   []expr.Fn

	groups map[string]*group
	// ints holds the groups of a single integer group key (nullGroup the
	// NULL key's); grpCol >= 0: that key is a plain column.
	ints      map[int64]*group
	nullGroup *group
	grpCol    int
	single    *group
	keyBuf    []byte
	out       []expr.Value

	// Index keys of an index scan, computed once; visit marks the
	// partitions an equality lookup can find entries in.
	lookup  *lookupKeys
	visit   []bool
	keysBuf []string
	bkBuf   [][]byte

	topN      [][]expr.Value
	topBytes  []int64 // what each row of topN holds
	remaining *atomic.Int64
	// ops accounts the groups and top rows the worker holds.
	ops     memGrant
	aggOnly bool // no filter, one group, aggregates of plain columns
	// intSum, when set, is the one column of an aggOnly fragment's one
	// SUM or AVG, whose integers entryAgg adds as read.
	intSum *accessor
	done   bool

	buf        []byte
	bufPooled  bool // buf came from batchBuffers
	count      int
	err        error
	scanned    int64 // entries read
	sinceCheck int   // entries since the context was looked at

	// along and ridersBuf hold the entry functions and the workers of a
	// read shared with riders, times how long their filters took (this
	// worker's first) on the entries timed; seen counts the entries of
	// the shared reads it led, to time every sampleEvery-th.
	along     []func(k, v []byte) bool
	ridersBuf []*worker
	times     []filterTimes
	seen      int
	// memo is the memo of the shared read the worker is in (nil when it
	// reads alone); leadMemo is the one it keeps for the reads it leads.
	memo     *entryMemo
	leadMemo entryMemo

	// rows, when set, takes the projected rows (rowBuf) instead of buf.
	rows   rowSink
	index  int
	rowBuf []expr.Value
}

// interruptEvery is how many entries a scan reads between two looks at the
// query's context.
const interruptEvery = 1024

type group struct {
	keys   []expr.Value
	states []aggState
}

func (e *Engine) newWorker(ctx context.Context, f *plan.Fragment, st *store.Map, ix *index, mem *MemoryAccount) (*worker, error) {
	sh, err := e.shapeOf(f)
	if err != nil {
		return nil, err
	}
	w := &worker{shape: sh, f: f, st: st, ix: ix, ops: memGrant{mem: mem, what: "aggregation table"}}
	if len(f.Sort) > 0 {
		w.ops.what = "sort buffer"
	}
	w.env = expr.Env{Params: f.Params, Now: time.Now(), Ctx: ctx}
	w.row = expr.Row{Cols: make([]expr.Value, len(f.Cols)), Env: &w.env}
	// Compiled expressions keep state of their own (an attribute's
	// constant converted once per run): each worker compiles its own.
	if f.Filter != nil {
		if w.cond, err = expr.CompileCond(f.Filter); err != nil {
			return nil, plan.Errorf("%v", err)
		}
		if f.Join == nil {
			w.eq = eqConstOf(f.Filter, sh.pre, f.Params, sh.accs)
		}
	}
	compile := func(e expr.Expr) (expr.Fn, error) {
		if e == nil {
			return nil, nil
		}
		fn, err := expr.Compile(e)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		return fn, nil
	}
	if len(f.Project) > 0 {
		w.proj = make([]expr.Fn, len(f.Project))
		for i, p := range f.Project {
			if w.proj[i], err = compile(p); err != nil {
				return nil, err
			}
		}
	}
	for _, g := range f.GroupBy {
		fn, err := compile(g)
		if err != nil {
			return nil, err
		}
		w.grpFn = append(w.grpFn, fn)
	}
	for _, a := range f.Aggs {
		fn, err := compile(a.Arg)
		if err != nil {
			return nil, err
		}
		by, err := compile(a.By)
		if err != nil {
			return nil, err
		}
		w.argFn = append(w.argFn, fn)
		w.byFn = append(w.byFn, by)
	}
	if f.Aggregating() {
		if len(f.GroupBy) == 0 {
			w.single = &group{states: newAggStates(f.Aggs)}
			w.aggOnly = f.Filter == nil
			for _, c := range w.argCol {
				w.aggOnly = w.aggOnly && c != -1
			}
			if st := w.single.states; w.aggOnly && len(st) == 1 && (st[0].kind == aggSum || st[0].kind == aggAvg) && len(w.post) == 1 && w.argCol[0] == w.post[0] {
				if a := w.accs[w.post[0]]; !a.whole && !a.object && !a.rd.Multi() && (a.col.Type == expr.Unknown || a.col.Type.IsInteger()) {
					w.intSum = a
				}
			}
		} else if len(f.GroupBy) == 1 && f.GroupBy[0].Type().IsInteger() {
			w.ints = map[int64]*group{}
			w.grpCol = -1
			if c, ok := f.GroupBy[0].(*expr.Col); ok {
				w.grpCol = c.Index
			}
		} else {
			w.groups = map[string]*group{}
		}
	}
	return w, nil
}

// shape is what a fragment's workers read it with, besides its compiled
// expressions: the accessors of its columns and which columns the filter
// and the rest read. It depends on the fragment's shape alone, not on its
// parameters, and is never written once made, so the workers of every run
// of the fragment share it.
type shape struct {
	accs []*accessor
	pre  []int // columns the filter reads (none for a join: its row holds every column)
	post []int // columns read after the filter
	// Column shortcuts: argCol[i] is the column an aggregate reads
	// directly (-1: evaluate argFn, -2: COUNT(*)); projCol likewise.
	argCol  []int
	projCol []int
}

// newShape makes the shape of fragment f.
func (e *Engine) newShape(f *plan.Fragment) (*shape, error) {
	sh := &shape{}
	for _, col := range f.Cols {
		a, err := newAccessor(col, e.cfg.Serialization)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		sh.accs = append(sh.accs, a)
	}
	width := f.SourceWidth()
	inPre := make([]bool, width)
	if f.Filter != nil && f.Join == nil { // a join's row holds every column
		for _, col := range expr.Columns(f.Filter) {
			inPre[col] = true
			sh.pre = append(sh.pre, col)
		}
	}
	needed := make([]bool, width)
	mark := func(e expr.Expr) {
		if e != nil {
			for _, col := range expr.Columns(e) {
				needed[col] = true
			}
		}
	}
	for _, p := range f.Project {
		mark(p)
		if col, ok := p.(*expr.Col); ok {
			sh.projCol = append(sh.projCol, col.Index)
		} else {
			sh.projCol = append(sh.projCol, -1)
		}
	}
	for _, g := range f.GroupBy {
		mark(g)
	}
	for _, a := range f.Aggs {
		mark(a.Arg)
		mark(a.By)
		switch col, ok := a.Arg.(*expr.Col); {
		case a.Arg == nil:
			sh.argCol = append(sh.argCol, -2)
		case ok && a.By == nil:
			sh.argCol = append(sh.argCol, col.Index)
		default:
			sh.argCol = append(sh.argCol, -1)
		}
	}
	for col := range f.Cols {
		if needed[col] && !inPre[col] {
			sh.post = append(sh.post, col)
		}
	}
	return sh, nil
}

// shapeKey tells fragments of one shape apart: the parts of a
// fragment that newShape reads. A run binds its parameters to a shallow
// copy of its plan's fragment, which shares these parts, so every run of
// a cached plan finds its shape made; a fragment planned or decoded
// anew has new parts and gets a new shape. Every expression type
// is a pointer, so the filter compares by identity.
type shapeKey struct {
	cols                             *plan.ScanCol
	filter                           expr.Expr
	project, groupBy                 *expr.Expr
	aggs                             *plan.AggCall
	nCols, nProject, nGroupBy, nAggs int
}

// shapeCache keeps the shapes of the fragments this member runs; a full
// cache starts over. Fragments with joins, whose inputs are decoded anew
// for every run, get theirs per run.
type shapeCache struct {
	mu sync.Mutex
	m  map[shapeKey]*shape
}

// shapeOf returns the shape of f, from the cache when a fragment of its
// shape ran before.
func (e *Engine) shapeOf(f *plan.Fragment) (*shape, error) {
	if f.Join != nil {
		return e.newShape(f)
	}
	k := shapeKey{cols: unsafe.SliceData(f.Cols), filter: f.Filter, project: unsafe.SliceData(f.Project),
		groupBy: unsafe.SliceData(f.GroupBy), aggs: unsafe.SliceData(f.Aggs),
		nCols: len(f.Cols), nProject: len(f.Project), nGroupBy: len(f.GroupBy), nAggs: len(f.Aggs)}
	sc := &e.shapes
	sc.mu.Lock()
	sh, ok := sc.m[k]
	sc.mu.Unlock()
	if ok {
		return sh, nil
	}
	sh, err := e.newShape(f)
	if err != nil {
		return nil, err
	}
	sc.mu.Lock()
	if sc.m == nil || len(sc.m) >= maxCachedFragments {
		sc.m = map[shapeKey]*shape{}
	}
	sc.m[k] = sh
	sc.mu.Unlock()
	return sh, nil
}

// entryAgg is entry for the commonest aggregation: no filter, no groups,
// aggregates of plain columns (SUM(x), COUNT(*), MIN(x), ...).
func (w *worker) entryAgg(k, v []byte) bool {
	if w.sinceCheck++; w.sinceCheck >= interruptEvery {
		w.sinceCheck = 0
		if w.env.Interrupted() {
			return false
		}
	}
	if w.intSum != nil {
		var fv serialization.FieldValue
		var err error
		if w.memo != nil {
			err = w.memo.readTo(w.intSum, w.intSum.data(k, v), &fv)
		} else {
			err = w.intSum.field(k, v, &fv)
		}
		if err == nil {
			if i, _, ok := w.intSum.intOf(&fv); ok && w.single.states[0].addInt(i) {
				return true
			}
		}
	}
	cols := w.row.Cols
	for _, c := range w.post {
		if err := w.accs[c].readInto(k, v, w.memo, &cols[c]); err != nil {
			w.err = err
			return false
		}
	}
	states := w.single.states
	for i := range states {
		if c := w.argCol[i]; c >= 0 {
			states[i].add(&cols[c], nil)
			if states[i].failed != nil {
				w.err = states[i].failed
				return false
			}
		} else {
			states[i].count++
		}
	}
	return true
}

// partition processes one partition.
func (w *worker) partition(pid int32) error {
	f := w.f
	if f.CountOnly {
		n, exact, err := w.st.CountExact(pid)
		if err != nil {
			return err
		}
		if exact {
			w.single.states[0].count += int64(n)
			w.scanned += int64(n)
			return nil
		}
		err = w.st.ScanKV(pid, func(_, _ []byte) bool {
			w.single.states[0].count++
			w.scanned++
			return true
		})
		return err
	}
	var err error
	if w.ix != nil {
		if w.lookup == nil {
			if err := w.evalLookup(); err != nil {
				return err
			}
		}
		if w.visit != nil && (int(pid) >= len(w.visit) || !w.visit[pid]) {
			return nil
		}
		w.keysBuf = w.ix.keys(pid, w.lookup, w.keysBuf[:0])
		if len(w.keysBuf) == 0 {
			return nil
		}
		w.bkBuf = w.bkBuf[:0]
		for _, k := range w.keysBuf {
			w.bkBuf = append(w.bkBuf, []byte(k))
		}
		w.scanned += int64(len(w.bkBuf))
		fn := w.entryFunc()
		err = w.st.PeekAll(pid, w.bkBuf, func(k, v []byte) { fn(k, v) })
	} else {
		err = w.scanAlong(pid, nil)
	}
	return w.failure(err)
}

// failure is the first of the store's error err, the worker's and its
// expressions'.
func (w *worker) failure(err error) error {
	if err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	return w.env.Err
}

// entryFunc is what the worker runs on each entry it reads.
func (w *worker) entryFunc() func(k, v []byte) bool {
	if w.aggOnly {
		return w.entryAgg
	}
	return w.entry
}

// scanAlong reads partition pid once for w and the workers riding along
// (section "Shared scans" in sharedscan.go): each entry goes to each
// one's entry function, in turn, until that function returns false, and
// the read stops when every one has. It returns the store's error; each
// worker's own is its failure.
func (w *worker) scanAlong(pid int32, riders []*worker) error {
	n, _, cerr := w.st.CountExact(pid)
	if cerr == nil {
		w.scanned += int64(n)
		for _, r := range riders {
			r.scanned += int64(n)
		}
	}
	if len(riders) == 0 {
		return w.st.ScanKVHint(pid, &w.hint, w.entryFunc())
	}
	fns := append(w.along[:0], w.entryFunc())
	for _, r := range riders {
		fns = append(fns, r.entryFunc())
	}
	w.along = fns
	times := w.times[:0]
	for range fns {
		times = append(times, filterTimes{})
	}
	w.times = times
	memo := &w.leadMemo
	w.memo = memo
	for _, r := range riders {
		r.memo = memo
	}
	live := len(fns)
	err := w.st.ScanKVHint(pid, &w.hint, func(k, v []byte) bool {
		memo.next()
		if w.seen++; w.seen%sampleEvery == 0 {
			for i, fn := range fns {
				if fn == nil {
					continue
				}
				start := time.Now()
				ok := fn(k, v)
				times[i].timed++
				if time.Since(start) > slowRead {
					times[i].over++
				}
				if !ok {
					fns[i] = nil
					live--
				}
			}
			return live > 0
		}
		for i, fn := range fns {
			if fn != nil && !fn(k, v) {
				fns[i] = nil
				live--
			}
		}
		return live > 0
	})
	clear(fns) // keeps no rider
	memo.reset()
	w.memo = nil
	for _, r := range riders {
		r.memo = nil
	}
	return err
}

func (w *worker) evalLookup() error {
	ix := w.f.Index
	if ix.Equals != nil {
		eq := make([]expr.Value, len(ix.Equals))
		for i, e := range ix.Equals {
			v, err := expr.Eval(e, &w.env)
			if err != nil {
				return err
			}
			eq[i] = v
		}
		w.lookup = w.ix.prepare(eq, nil, nil, false, false)
		w.visit = make([]bool, len(w.ix.parts))
		w.ix.eqPartitions(w.lookup, w.visit)
		return nil
	}
	bound := func(e expr.Expr) (*expr.Value, error) {
		if e == nil {
			return nil, nil
		}
		v, err := expr.Eval(e, &w.env)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
	lo, err := bound(ix.Low)
	if err != nil {
		return err
	}
	hi, err := bound(ix.High)
	if err != nil {
		return err
	}
	w.lookup = w.ix.prepare(nil, lo, hi, ix.LowInclusive, ix.HighInclusive)
	return nil
}

// entry processes one entry (called under the store's partition lock: it
// must not block).
func (w *worker) entry(k, v []byte) bool {
	// A scan looks at the query's context every interruptEvery entries
	// (the expressions that run long on one entry look themselves).
	if w.sinceCheck++; w.sinceCheck >= interruptEvery {
		w.sinceCheck = 0
		if w.env.Interrupted() {
			return false
		}
	}
	cols := w.row.Cols
	read := false // the filter's one column, by eq
	if w.eq != nil {
		settled, equal := w.eq.readInto(k, v, w.memo, &cols[w.eq.col], &w.hint)
		if settled && !equal {
			return true
		}
		read = settled
	}
	if !read {
		for _, c := range w.pre {
			if err := w.accs[c].readInto(k, v, w.memo, &cols[c]); err != nil {
				w.err = err
				return false
			}
		}
	}
	if w.cond != nil && !w.cond(&w.row) {
		return w.env.Err == nil
	}
	for _, c := range w.post {
		if err := w.accs[c].readInto(k, v, w.memo, &cols[c]); err != nil {
			w.err = err
			return false
		}
	}
	return w.emitRow()
}

// pushRow takes one row of a join fragment's joined rows (the worker's
// columns are the row; it is not kept).
func (w *worker) pushRow(row []expr.Value) error {
	w.row.Cols = row
	if w.cond == nil || w.cond(&w.row) {
		w.emitRow()
	}
	if w.err != nil {
		return w.err
	}
	return w.env.Err
}

// emitRow aggregates, keeps (top N) or encodes the row in w.row once it
// passed the filter; false stops the scan.
func (w *worker) emitRow() bool {
	cols := w.row.Cols
	switch {
	case w.single != nil:
		w.accumulate(w.single)
	case w.ints != nil:
		var gv expr.Value
		if w.grpCol >= 0 {
			gv = cols[w.grpCol]
		} else {
			gv = w.grpFn[0](&w.row)
		}
		var gr *group
		switch {
		case gv.IsNull():
			if w.nullGroup == nil {
				w.nullGroup = &group{keys: []expr.Value{expr.NullValue}, states: newAggStates(w.f.Aggs)}
			}
			gr = w.nullGroup
		default:
			if gr = w.ints[gv.I]; gr == nil {
				if !w.grow(w.groupBytes(1, 0)) {
					return false
				}
				gr = &group{keys: []expr.Value{gv}, states: newAggStates(w.f.Aggs)}
				w.ints[gv.I] = gr
			}
		}
		w.accumulate(gr)
	case w.groups != nil:
		w.keyBuf = w.keyBuf[:0]
		w.out = w.out[:0]
		for _, g := range w.grpFn {
			gv := g(&w.row)
			w.out = append(w.out, gv)
			at := len(w.keyBuf)
			w.keyBuf = append(w.keyBuf, 0, 0)
			w.keyBuf, _ = expr.AppendHashKey(w.keyBuf, gv)
			l := len(w.keyBuf) - at - 2
			w.keyBuf[at], w.keyBuf[at+1] = byte(l>>8), byte(l)
		}
		gr := w.groups[string(w.keyBuf)]
		if gr == nil {
			n := w.groupBytes(len(w.out), len(w.keyBuf))
			for _, gv := range w.out {
				n += int64(len(gv.B))
			}
			if !w.grow(n) {
				return false
			}
			gr = &group{states: newAggStates(w.f.Aggs)}
			for _, gv := range w.out {
				gr.keys = append(gr.keys, gv.Clone())
			}
			w.groups[string(w.keyBuf)] = gr
		}
		w.accumulate(gr)
	case len(w.f.Sort) > 0:
		row := make([]expr.Value, len(w.proj))
		for i, p := range w.proj {
			row[i] = p(&w.row).Clone()
		}
		n := rowBytes(row)
		if !w.grow(n) {
			return false
		}
		w.topN = append(w.topN, row)
		w.topBytes = append(w.topBytes, n)
		if int64(len(w.topN)) >= 2*w.f.Limit+1024 {
			w.trimTopN()
		}
	case w.rows != nil:
		for i, p := range w.proj {
			if c := w.projCol[i]; c >= 0 {
				w.rowBuf[i] = cols[c]
			} else {
				w.rowBuf[i] = p(&w.row)
			}
		}
		if err := w.rows.row(w.index, w.rowBuf); err != nil {
			w.err = err
			return false
		}
	default:
		if w.f.Limit >= 0 && w.remaining.Add(-1) < 0 {
			w.done = true
			return false
		}
		for i, p := range w.proj {
			if c := w.projCol[i]; c >= 0 {
				w.buf = appendValue(w.buf, cols[c])
			} else {
				w.buf = appendValue(w.buf, p(&w.row))
			}
		}
		w.count++
	}
	return w.env.Err == nil && w.err == nil
}

// groupBytes is what a new group of keys key values costs (their bytes
// apart), with keyBytes of map key.
func (w *worker) groupBytes(keys, keyBytes int) int64 {
	return int64(unsafe.Sizeof(group{})) + int64(keys)*valueBytes + int64(len(w.f.Aggs))*aggStateBytes + mapEntryBytes + int64(keyBytes)
}

// grow accounts n more bytes the worker holds; false stops the scan.
func (w *worker) grow(n int64) bool {
	if err := w.ops.grow(n); err != nil {
		w.err = err
		return false
	}
	return true
}

func (w *worker) accumulate(g *group) {
	for i := range g.states {
		s := &g.states[i]
		switch c := w.argCol[i]; {
		case c >= 0:
			s.add(&w.row.Cols[c], nil)
			if s.failed != nil && w.err == nil {
				w.err = s.failed
			}
			continue
		case c == -2:
			s.count++
			continue
		}
		var by expr.Value
		if w.byFn[i] != nil {
			by = w.byFn[i](&w.row)
		}
		arg := w.argFn[i](&w.row)
		s.add(&arg, &by)
		if s.failed != nil && w.err == nil {
			w.err = s.failed
		}
	}
}

// less orders rows by the fragment's sort keys.
func sortLess(keys []plan.SortKey) func(a, b []expr.Value) bool {
	return func(a, b []expr.Value) bool {
		for _, k := range keys {
			c := expr.OrderCompare(a[k.Col], b[k.Col])
			if c == 0 {
				continue
			}
			if k.Desc {
				return c > 0
			}
			return c < 0
		}
		return false
	}
}

func (w *worker) trimTopN() {
	less := sortLess(w.f.Sort)
	idx := make([]int, len(w.topN))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return less(w.topN[idx[i]], w.topN[idx[j]]) })
	keep := min(int64(len(idx)), w.f.Limit)
	rows, bytes := make([][]expr.Value, keep), make([]int64, keep)
	var dropped int64
	for i, at := range idx {
		if int64(i) < keep {
			rows[i], bytes[i] = w.topN[at], w.topBytes[at]
		} else {
			dropped += w.topBytes[at]
		}
	}
	w.topN, w.topBytes = rows, bytes
	w.ops.shrink(dropped)
}

// take returns the buffered rows as a batch and starts a new buffer: one
// of batchBuffers when this one was full (a large result), and an empty
// one otherwise (small results allocate little).
func (w *worker) take() *Batch {
	b := &Batch{Rows: w.buf, Count: w.count, pooled: w.bufPooled}
	full := len(w.buf) >= flushBytes
	w.buf, w.count, w.bufPooled = nil, 0, false
	if full {
		w.buf, w.bufPooled = batchBuffer(), true
	}
	return b
}

// finish emits what the worker holds at the end: buffered rows, the top N,
// or the partial aggregates.
func (w *worker) finish() *Batch {
	switch {
	case w.single != nil:
		var row []expr.Value
		for i := range w.single.states {
			row = w.single.states[i].partial(row)
		}
		w.buf = EncodeRow(w.buf, row)
		w.count++
	case w.groups != nil || w.ints != nil:
		var row []expr.Value
		emit := func(g *group) {
			row = append(row[:0], g.keys...)
			for i := range g.states {
				row = g.states[i].partial(row)
			}
			w.buf = EncodeRow(w.buf, row)
			w.count++
		}
		for _, g := range w.groups {
			emit(g)
		}
		for _, g := range w.ints {
			emit(g)
		}
		if w.nullGroup != nil {
			emit(w.nullGroup)
		}
	case len(w.f.Sort) > 0:
		w.trimTopN()
		for _, r := range w.topN {
			w.buf = EncodeRow(w.buf, r)
			w.count++
		}
		w.topN, w.topBytes = nil, nil
	}
	return w.take()
}
