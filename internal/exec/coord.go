package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// rowIter produces rows for the coordinator's operators. Next returns nil
// at the end. Rows may alias batches the iterator received; they stay
// valid (batches are never reused).
type rowIter interface {
	Next() ([]expr.Value, error)
}

// gather runs a fragment on every member owning partitions of the map and
// merges the batches as they arrive. The batches waiting in its channel
// are accounted to the query (an exchange buffer).
type gather struct {
	ch   chan *Batch
	errc chan error
	mem  *MemoryAccount
	// first is the first member's error: the cause, when the others then
	// fail because the fragment was cancelled everywhere; a memory
	// breaker's error replaces it (see note).
	firstMu sync.Mutex
	first   error
	width   int
	rows    [][]expr.Value
	pos     int
	// share is what each row of rows keeps of its batch's bytes.
	share   int64
	cancel  context.CancelFunc
	done    bool
	wait    int // senders still running
	running sync.WaitGroup
}

// startGather starts the fragment on the members and returns an iterator
// over its batches (raw) and decoded rows.
func (q *query) startGather(f *plan.Fragment) (*gather, error) {
	ctx, cancel := context.WithCancel(q.ctx)
	frag := *f
	frag.Params = q.params
	parts, err := q.placement()
	if err != nil {
		cancel()
		return nil, err
	}
	var xc *pb.ExchangeContext
	if len(f.Exchanges()) > 0 && len(parts) > 1 {
		xc = q.exchangeContext(parts)
	}
	g := &gather{ch: make(chan *Batch, 16), errc: make(chan error, len(parts)), mem: q.mem, width: len(f.Out), cancel: cancel}
	g.wait = len(parts)
	g.running.Add(len(parts))
	for _, p := range parts {
		q.e.goRun(func() {
			defer g.running.Done()
			pprof.SetGoroutineLabels(ctx)
			var err error
			put := func(b *Batch) error { return g.put(ctx, b) }
			if p.local {
				err = q.e.runFragment(ctx, &frag, p.partitions, xc, q.mem, put)
			} else {
				err = q.e.runRemote(ctx, p, f, q.params, xc, q.hints.MemoryLimit, q.mem.query, put)
			}
			if err != nil {
				// One member failing ends the fragment everywhere: its
				// exchanges would wait for it.
				g.note(err)
				cancel()
			}
			g.errc <- err
		})
	}
	return g, nil
}

// placement returns the members the query's fragments run on and their
// partitions: this member's own set when the query runs by partitions.
func (q *query) placement() ([]placementPart, error) {
	if q.only != nil {
		return []placementPart{{local: true, partitions: q.only}}, nil
	}
	return q.e.placement()
}

// put queues a batch for the coordinator, reserving its bytes until it is
// taken.
func (g *gather) put(ctx context.Context, b *Batch) error {
	if err := g.mem.Reserve("exchange buffer", int64(cap(b.Rows))); err != nil {
		return err
	}
	select {
	case g.ch <- b:
		return nil
	case <-ctx.Done():
		g.mem.Release(int64(cap(b.Rows)))
		return ctx.Err()
	}
}

// taken releases a batch taken from the channel.
func (g *gather) taken(b *Batch) *Batch {
	g.mem.Release(int64(cap(b.Rows)))
	return b
}

// exchangeContext describes a join fragment's run to its members: a new
// stage id, the members, the owner of each partition and the exchange
// settings (the member's, or the statement's hints).
func (q *query) exchangeContext(parts []placementPart) *pb.ExchangeContext {
	e := q.e
	id := make([]byte, 0, 24)
	id = append(id, e.cfg.Self[:]...)
	id = binary.BigEndian.AppendUint64(id, e.stages.Add(1))
	xc := &pb.ExchangeContext{QueryId: id}
	t := e.cfg.Table.Load()
	xc.Owners = make([]int32, t.PartitionCount())
	for i, p := range parts {
		xc.Members = append(xc.Members, &pb.ExchangeMember{Address: p.member.Address, Uuid: p.member.UUID[:]})
		for _, pid := range p.partitions {
			xc.Owners[pid] = int32(i)
		}
	}
	s := e.cfg.Exchange.withDefaults()
	xc.BatchBytes, xc.VectorSize, xc.InFlightBytes = s.BatchBytes, s.VectorSize, s.InFlightBytes
	if q.hints.BatchBytes > 0 {
		xc.BatchBytes = q.hints.BatchBytes
	}
	if q.hints.VectorSize > 0 {
		xc.VectorSize = q.hints.VectorSize
	}
	return xc
}

// nextBatch returns the next raw batch, or nil at the end.
func (g *gather) nextBatch() (*Batch, error) {
	for {
		if g.wait == 0 {
			select {
			case b := <-g.ch:
				return g.taken(b), nil
			default:
				return nil, nil
			}
		}
		select {
		case b := <-g.ch:
			return g.taken(b), nil
		case err := <-g.errc:
			g.wait--
			if err != nil {
				g.cancel()
				g.note(err)
				// The others stop now; one of them may say why better
				// (a member's breaker terminated its part, and this
				// member only saw the exchange break).
				for g.wait > 0 {
					select {
					case b := <-g.ch:
						g.taken(b)
					case err := <-g.errc:
						g.wait--
						if err != nil {
							g.note(err)
						}
					}
				}
				g.firstMu.Lock()
				defer g.firstMu.Unlock()
				return nil, g.first
			}
		}
	}
}

// note records a member's error: the first, unless a later one says the
// memory breaker stopped the query (the others then only saw their
// exchanges break or their fragment cancelled, and the client should
// retry after the breaker's hint), or the first is a bare cancellation
// and a later one says what went wrong.
func (g *gather) note(err error) {
	g.firstMu.Lock()
	defer g.firstMu.Unlock()
	if g.first == nil || (stoppedByBreaker(err) && !stoppedByBreaker(g.first)) ||
		(isCancellation(g.first) && !isCancellation(err)) {
		g.first = err
	}
}

// isCancellation reports whether err only says that a context ended.
func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled
}

// stoppedByBreaker reports whether err is a memory breaker's, this
// member's or another's (a status whose detail is a retryable
// MEMORY_LIMIT).
func stoppedByBreaker(err error) bool {
	if errors.Is(err, ErrMemoryBreaker) {
		return true
	}
	s, ok := status.FromError(err)
	if !ok {
		return false
	}
	for _, d := range s.Details() {
		if detail, ok := d.(*pb.ErrorDetail); ok {
			return detail.Code == pb.ErrorCode_ERROR_CODE_MEMORY_LIMIT && detail.Retryable
		}
	}
	return false
}

func (g *gather) Next() ([]expr.Value, error) {
	for g.pos >= len(g.rows) {
		b, err := g.nextBatch()
		if err != nil || b == nil {
			g.rows, g.pos = nil, 0 // the last batch is garbage now
			return nil, err
		}
		rows, err := DecodeRows(b.Rows, b.Count, g.width)
		if err != nil {
			return nil, err
		}
		g.rows, g.pos = rows, 0
		g.share = int64(cap(b.Rows)) / int64(max(b.Count, 1))
	}
	r := g.rows[g.pos]
	g.pos++
	return r, nil
}

// rowCost: a row keeps its values and its share of the batch.
func (g *gather) rowCost(r []expr.Value) int64 {
	return sliceBytes + int64(len(r))*valueBytes + g.share
}

// close stops the fragment on every member, waits until this member's
// part has ended (and given back its memory) and releases the batches
// nobody took.
func (g *gather) close() {
	g.cancel()
	g.running.Wait()
	for {
		select {
		case b := <-g.ch:
			g.taken(b)
		default:
			return
		}
	}
}

// rowCoster is an iterator that knows what keeping the row it returned
// last costs beyond what is accounted already: the bytes of the batch it
// aliases, or nothing but a row header for rows an operator holds and
// accounted.
type rowCoster interface {
	rowCost(r []expr.Value) int64
}

// rowCost is what keeping row r, which it returned last, of an iterator
// costs (rowBytes when the iterator does not know).
func rowCost(it rowIter, r []expr.Value) int64 {
	if c, ok := it.(rowCoster); ok {
		return c.rowCost(r)
	}
	return rowBytes(r)
}

// sliceIter iterates over materialized rows.
type sliceIter struct {
	rows [][]expr.Value
	pos  int
}

// rowCost: the rows are accounted where they were made.
func (s *sliceIter) rowCost([]expr.Value) int64 { return sliceBytes }

func (s *sliceIter) Next() ([]expr.Value, error) {
	if s.pos >= len(s.rows) {
		return nil, nil
	}
	r := s.rows[s.pos]
	s.pos++
	return r, nil
}

type filterIter struct {
	in   rowIter
	cond expr.Fn
	env  *expr.Env
}

func (f *filterIter) rowCost(r []expr.Value) int64 { return rowCost(f.in, r) }

func (f *filterIter) Next() ([]expr.Value, error) {
	for {
		r, err := f.in.Next()
		if err != nil || r == nil {
			return nil, err
		}
		ok := expr.Truth(f.cond(&expr.Row{Cols: r, Env: f.env}))
		if f.env.Err != nil {
			return nil, f.env.Err
		}
		if ok {
			return r, nil
		}
	}
}

type projectIter struct {
	in    rowIter
	exprs []expr.Fn
	env   *expr.Env
	last  []expr.Value // the input row of the last output row
}

// rowCost: a new row of values, and what its input row keeps of a batch.
func (p *projectIter) rowCost(r []expr.Value) int64 {
	in := rowCost(p.in, p.last) - sliceBytes - int64(len(p.last))*valueBytes
	return sliceBytes + int64(len(r))*valueBytes + max(in, 0)
}

func (p *projectIter) Next() ([]expr.Value, error) {
	r, err := p.in.Next()
	if err != nil || r == nil {
		return nil, err
	}
	p.last = r
	out := make([]expr.Value, len(p.exprs))
	row := expr.Row{Cols: r, Env: p.env}
	for i, f := range p.exprs {
		out[i] = f(&row)
	}
	if p.env.Err != nil {
		return nil, p.env.Err
	}
	return out, nil
}

type limitIter struct {
	in            rowIter
	limit, offset int64
	seen          int64
}

func (l *limitIter) rowCost(r []expr.Value) int64 { return rowCost(l.in, r) }

func (l *limitIter) Next() ([]expr.Value, error) {
	for {
		if l.limit >= 0 && l.seen >= l.offset+l.limit {
			return nil, nil
		}
		r, err := l.in.Next()
		if err != nil || r == nil {
			return nil, err
		}
		l.seen++
		if l.seen > l.offset {
			return r, nil
		}
	}
}

type distinctIter struct {
	in   rowIter
	seen map[string]bool
	buf  []byte
	ops  *memGrant
}

// mapEntryBytes is what an entry of a Go map costs beyond its key's bytes
// (its slot, control byte and spare room, on average).
const mapEntryBytes = 48

func rowKey(buf []byte, r []expr.Value) []byte {
	buf = buf[:0]
	for _, v := range r {
		if k, ok := expr.HashKey(v); ok {
			buf = append(buf, byte(len(k)>>8), byte(len(k)))
			buf = append(buf, k...)
		} else {
			buf = append(buf, 0xff, 0xff)
		}
	}
	return buf
}

func (d *distinctIter) rowCost(r []expr.Value) int64 { return rowCost(d.in, r) }

func (d *distinctIter) Next() ([]expr.Value, error) {
	for {
		r, err := d.in.Next()
		if err != nil || r == nil {
			return nil, err
		}
		d.buf = rowKey(d.buf, r)
		if d.seen[string(d.buf)] {
			continue
		}
		if err := d.ops.grow(int64(len(d.buf)) + mapEntryBytes); err != nil {
			return nil, err
		}
		d.seen[string(d.buf)] = true
		return r, nil
	}
}

type unionIter struct {
	ins []rowIter
	i   int
}

func (u *unionIter) rowCost(r []expr.Value) int64 { return rowCost(u.ins[min(u.i, len(u.ins)-1)], r) }

func (u *unionIter) Next() ([]expr.Value, error) {
	for u.i < len(u.ins) {
		r, err := u.ins[u.i].Next()
		if err != nil {
			return nil, err
		}
		if r != nil {
			return r, nil
		}
		u.i++
	}
	return nil, nil
}

// aggregateRows groups rows and computes aggregates: from raw rows
// (merge=false) or from partial states (merge=true); each output row is
// the group keys then the aggregates' values, or with partialOut their
// partial states (plan.PartialTypes). The groups are accounted to ops
// while they are built, then the rows that are returned, which ops keeps.
func aggregateRows(in rowIter, groups int, groupFns []expr.Fn, aggs []plan.AggCall, argFns, byFns []expr.Fn, merge, partialOut bool, env *expr.Env, ops *memGrant) ([][]expr.Value, error) {
	type grp struct {
		keys   []expr.Value
		states []aggState
	}
	m := map[string]*grp{}
	ints := map[int64]*grp{} // one integer key: no key bytes
	var order []*grp
	var buf []byte
	keys := make([]expr.Value, groups)
	// A group: its keys (cloned: they would hold their input's batch),
	// states, entries in the maps and the order.
	groupCost := int64(unsafe.Sizeof(grp{})) + int64(groups)*valueBytes + int64(len(aggs))*aggStateBytes + mapEntryBytes + 8
	var building int64
	defer func() { ops.shrink(building) }()
	for {
		r, err := in.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		row := expr.Row{Cols: r, Env: env}
		for i := 0; i < groups; i++ {
			if merge {
				keys[i] = r[i]
			} else {
				keys[i] = groupFns[i](&row)
			}
		}
		var g *grp
		newGroup := func() (*grp, error) {
			g := &grp{keys: make([]expr.Value, groups), states: newAggStates(aggs)}
			n := groupCost
			for i, k := range keys {
				g.keys[i] = k.Clone()
				n += int64(len(k.B))
			}
			if err := ops.grow(n); err != nil {
				return nil, err
			}
			building += n
			order = append(order, g)
			return g, nil
		}
		if groups == 1 && keys[0].T.IsInteger() {
			if g = ints[keys[0].I]; g == nil {
				if g, err = newGroup(); err != nil {
					return nil, err
				}
				ints[keys[0].I] = g
			}
		} else {
			buf = rowKey(buf, keys)
			if g = m[string(buf)]; g == nil {
				if g, err = newGroup(); err != nil {
					return nil, err
				}
				if err := ops.grow(int64(len(buf))); err != nil {
					return nil, err
				}
				building += int64(len(buf))
				m[string(buf)] = g
			}
		}
		if merge {
			at := groups
			for i := range g.states {
				w := plan.PartialWidth(aggs[i])
				g.states[i].merge(r[at : at+w])
				at += w
			}
			continue
		}
		for i := range g.states {
			if argFns[i] == nil {
				g.states[i].countStar()
				continue
			}
			if aggs[i].Distinct {
				continue // handled below
			}
			var by expr.Value
			if byFns[i] != nil {
				by = byFns[i](&row)
			}
			arg := argFns[i](&row)
			g.states[i].add(&arg, &by)
		}
		if env.Err != nil {
			return nil, env.Err
		}
	}
	if groups == 0 && len(order) == 0 {
		order = append(order, &grp{states: newAggStates(aggs)})
	}
	width := groups + len(aggs)
	if partialOut {
		width = groups
		for _, a := range aggs {
			width += plan.PartialWidth(a)
		}
	}
	out := make([][]expr.Value, 0, len(order))
	for _, g := range order {
		row := append(make([]expr.Value, 0, width), g.keys...)
		for i := range g.states {
			if partialOut {
				row = g.states[i].partial(row)
				continue
			}
			v, err := g.states[i].final()
			if err != nil {
				return nil, err
			}
			row = append(row, v)
		}
		if err := ops.grow(rowBytes(row)); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

// aggStateBytes is what one aggregate's state costs.
const aggStateBytes = int64(unsafe.Sizeof(aggState{}))

// distinctAggregates computes aggregates with DISTINCT arguments (and any
// others) by materializing the input (accounted to ops).
func distinctAggregates(in rowIter, groupFns []expr.Fn, aggs []plan.AggCall, argFns, byFns []expr.Fn, env *expr.Env, ops *memGrant) ([][]expr.Value, error) {
	allBytes := ops.used
	all, err := materialize(in, ops)
	if err != nil {
		return nil, err
	}
	allBytes = ops.used - allBytes
	defer ops.shrink(allBytes) // the input is garbage once the groups are made
	// Plain aggregates first.
	plain := make([]plan.AggCall, len(aggs))
	copy(plain, aggs)
	res, err := aggregateRows(&sliceIter{rows: all}, len(groupFns), groupFns, plain, argFns, byFns, false, false, env, ops)
	if err != nil {
		return nil, err
	}
	// Then each DISTINCT aggregate over the distinct values of its group.
	index := map[string]int{}
	var buf []byte
	for i, r := range res {
		buf = rowKey(buf, r[:len(groupFns)])
		if err := ops.grow(int64(len(buf)) + mapEntryBytes); err != nil {
			return nil, err
		}
		index[string(buf)] = i
	}
	for ai, a := range aggs {
		if !a.Distinct {
			continue
		}
		states := make([]aggState, len(res))
		for i := range states {
			states[i] = newAggState(a)
		}
		seen := map[string]bool{}
		var seenBytes int64
		keys := make([]expr.Value, len(groupFns))
		for _, r := range all {
			row := expr.Row{Cols: r, Env: env}
			for i, g := range groupFns {
				keys[i] = g(&row)
			}
			buf = rowKey(buf, keys)
			gi := index[string(buf)]
			v := argFns[ai](&row)
			hk, ok := expr.HashKey(v)
			if !ok {
				continue
			}
			k := string(buf) + "\x00" + hk
			if seen[k] {
				continue
			}
			n := int64(len(k)) + mapEntryBytes
			if err := ops.grow(n); err != nil {
				return nil, err
			}
			seenBytes += n
			seen[k] = true
			states[gi].add(&v, nil)
		}
		ops.shrink(seenBytes) // the set is garbage once its aggregate is done
		for i := range res {
			v, err := states[i].final()
			if err != nil {
				return nil, err
			}
			res[i][len(groupFns)+ai] = v
		}
	}
	return res, env.Err
}

// materialize reads an iterator's rows into memory, accounted to ops.
func materialize(in rowIter, ops *memGrant) ([][]expr.Value, error) {
	var rows [][]expr.Value
	for {
		r, err := in.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			return rows, nil
		}
		if err := ops.grow(rowCost(in, r) + headerGrowth(cap(rows), len(rows)+1) - sliceBytes); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
}

// compileExprs compiles expressions (a nil one stays a nil function).
func compileExprs(es []expr.Expr) ([]expr.Fn, error) {
	out := make([]expr.Fn, len(es))
	for i, e := range es {
		if e == nil {
			continue
		}
		f, err := expr.Compile(e)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		out[i] = f
	}
	return out, nil
}

// compileAggregation compiles an aggregation's group keys, and its
// aggregates' arguments and ordering keys (nil where an aggregate has
// none), for aggregateRows.
func compileAggregation(groupBy []expr.Expr, aggs []plan.AggCall) (groups, args, bys []expr.Fn, err error) {
	var argEs, byEs []expr.Expr
	for _, a := range aggs {
		argEs, byEs = append(argEs, a.Arg), append(byEs, a.By)
	}
	if groups, err = compileExprs(groupBy); err != nil {
		return nil, nil, nil, err
	}
	if args, err = compileExprs(argEs); err != nil {
		return nil, nil, nil, err
	}
	if bys, err = compileExprs(byEs); err != nil {
		return nil, nil, nil, err
	}
	return groups, args, bys, nil
}

// build turns a physical node into a row iterator.
func (q *query) build(n plan.Node) (rowIter, error) {
	env := &expr.Env{Params: q.params, Now: q.now, Ctx: q.ctx}
	switch x := n.(type) {
	case *plan.HashJoin:
		return q.hashJoin(x)
	case *plan.ExchangeStats:
		rows, err := q.e.exchangeStats(q.ctx, x.Clear)
		if err != nil {
			return nil, err
		}
		return &sliceIter{rows: rows}, nil
	case *plan.Gather:
		g, err := q.startGather(x.Frag)
		if err != nil {
			return nil, err
		}
		q.gathers = append(q.gathers, g)
		return g, nil
	case *plan.MergeAggregate:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		rows, err := aggregateRows(in, x.Groups, nil, x.Aggs, nil, nil, true, false, env, &q.ops)
		if err != nil {
			return nil, err
		}
		return &sliceIter{rows: rows}, nil
	case *plan.Aggregate:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		gfs, afs, bfs, err := compileAggregation(x.GroupBy, x.Aggs)
		if err != nil {
			return nil, err
		}
		var rows [][]expr.Value
		if anyDistinctAgg(x.Aggs) {
			rows, err = distinctAggregates(in, gfs, x.Aggs, afs, bfs, env, &q.ops)
		} else {
			rows, err = aggregateRows(in, len(gfs), gfs, x.Aggs, afs, bfs, false, false, env, &q.ops)
		}
		if err != nil {
			return nil, err
		}
		return &sliceIter{rows: rows}, nil
	case *plan.Filter:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		f, err := expr.Compile(x.Cond)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		return &filterIter{in: in, cond: f, env: env}, nil
	case *plan.Project:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		fs, err := compileExprs(x.Exprs)
		if err != nil {
			return nil, err
		}
		return &projectIter{in: in, exprs: fs, env: env}, nil
	case *plan.Sort:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		rows, err := materialize(in, &q.ops)
		if err != nil {
			return nil, err
		}
		less := sortLess(x.Keys)
		sort.SliceStable(rows, func(i, j int) bool { return less(rows[i], rows[j]) })
		return &sliceIter{rows: rows}, nil
	case *plan.Limit:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		l := &limitIter{in: in, limit: -1}
		if x.Limit != nil {
			v, err := expr.Eval(x.Limit, &expr.Env{Params: q.params, Now: q.now})
			if err != nil || !v.T.IsInteger() || v.I < 0 {
				return nil, plan.Errorf("LIMIT must be a non-negative integer")
			}
			l.limit = v.I
		}
		if x.Offset != nil {
			v, err := expr.Eval(x.Offset, &expr.Env{Params: q.params, Now: q.now})
			if err != nil || !v.T.IsInteger() || v.I < 0 {
				return nil, plan.Errorf("OFFSET must be a non-negative integer")
			}
			l.offset = v.I
		}
		return l, nil
	case *plan.Distinct:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		return &distinctIter{in: in, seen: map[string]bool{}, ops: &q.ops}, nil
	case *plan.UnionAll:
		u := &unionIter{}
		for _, c := range x.Ins {
			in, err := q.build(c)
			if err != nil {
				return nil, err
			}
			u.ins = append(u.ins, in)
		}
		return u, nil
	case *plan.Values:
		var rows [][]expr.Value
		for _, r := range x.Rows {
			fs, err := compileExprs(r)
			if err != nil {
				return nil, err
			}
			row := make([]expr.Value, len(fs))
			for i, f := range fs {
				row[i] = f(&expr.Row{Env: env})
			}
			if env.Err != nil {
				return nil, env.Err
			}
			rows = append(rows, row)
		}
		return &sliceIter{rows: rows}, nil
	}
	return nil, plan.Errorf("cannot execute %T", n)
}

func anyDistinctAgg(aggs []plan.AggCall) bool {
	for _, a := range aggs {
		if a.Distinct {
			return true
		}
	}
	return false
}

// page is one page of a result.
type page struct {
	rows []byte
	// parts, instead of rows, are its rows in pieces (Result.Parts), and
	// recycle the batches whose buffers they alone hold.
	parts   [][]byte
	recycle []*Batch
	count   int
	last    bool
	err     error
	res     int64 // bytes reserved for it until it is taken
}

// pageChunk is a run of a batch's rows in a page being filled.
type pageChunk struct {
	rows  []byte
	from  *Batch
	end   bool // rows ends the batch
	whole bool // rows are the whole batch's
}

// query is one running statement on the coordinator.
type query struct {
	e       *Engine
	id      uint64
	session *Session // holds the query's cursor
	ctx     context.Context
	cancel  context.CancelFunc
	params  []expr.Value
	// only, when set, are the partitions of this member the query runs
	// over (Options.Partitions), instead of the whole map.
	only []int32
	// rowParts: its pages may leave their rows in parts (Options.RowParts).
	rowParts bool
	// inline: the query ran on its caller's goroutine (lookupInline),
	// which took its only page: nothing is left to drain.
	inline  bool
	now     time.Time
	cols    []plan.Column
	gathers []*gather
	hints   plan.Hints
	// mem accounts the memory the query holds on this member; tables are
	// its coordinator's join tables, ops what its other operators hold
	// (groups, sorted rows, DISTINCT's keys), all released when it ends.
	mem    *MemoryAccount
	tables []*joinTable
	ops    memGrant
	// refs counts the producer and the pages not yet taken: the account
	// closes when both are gone.
	refs atomic.Int32

	pages    chan page
	mu       sync.Mutex
	lastUsed time.Time
}

// took is told that a page was taken from q.pages: its memory is the
// caller's now.
func (q *query) took(p page) {
	q.mem.Release(p.res)
	q.unref()
}

func (q *query) unref() {
	if q.refs.Add(-1) == 0 {
		q.mem.Close()
	}
}

// discard cancels the query and takes the pages nobody will fetch.
func (q *query) discard() {
	q.cancel()
	if q.inline {
		return
	}
	q.e.goRun(func() {
		for p := range q.pages {
			q.took(p)
		}
	})
}

// release gives back what the query's operators hold on this member,
// once its fragments here have ended.
func (q *query) release() {
	for _, g := range q.gathers {
		g.close()
	}
	for _, t := range q.tables {
		t.release()
	}
	q.ops.release()
}

// pageBytes bounds a page's rows (a page holds a single row, whatever
// its size).
const pageBytes = 1 << 20

// failure is the error a query fails with when its operators fail with
// err: a query the breaker terminated fails with the breaker's error,
// whatever its operators saw then (a cancelled fragment, an exchange that
// broke).
func (q *query) failure(err error) error {
	if q.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(context.Cause(q.ctx), ErrMemoryBreaker)) {
		return stopCause(q.ctx)
	}
	return err
}

// errPageFull stops an inline lookup whose rows need more than a page.
var errPageFull = errors.New("exec: the rows need more than one page")

// lookupInline runs a query by partitions whose rows come from an index
// lookup on the caller's goroutine, without a producer and a fragment
// goroutine: such a lookup usually answers a few rows. It returns the
// query's only page, its producer done, or false when the query is not
// such a lookup or its rows need more than one page: the query then runs
// as any other, from the start.
func (q *query) lookupInline(root plan.Node, pageSize int) (page, bool) {
	if !inlineLookup(root, q.only) {
		return page{}, false
	}
	frag := *root.(*plan.Gather).Frag
	frag.Params = q.params
	var p page
	err := q.e.runFragment(q.ctx, &frag, q.only, nil, q.mem, func(b *Batch) error {
		if p.count+b.Count > pageSize || (p.count > 0 && len(p.rows)+len(b.Rows) > pageBytes) {
			return errPageFull
		}
		p.rows = append(p.rows, b.Rows...)
		p.count += b.Count
		b.Recycle()
		return nil
	})
	if errors.Is(err, errPageFull) {
		return page{}, false
	}
	p.last = true
	if err != nil {
		p = page{err: q.failure(err), last: true}
	} else if n := int64(cap(p.rows)); n > 0 {
		if err := q.mem.Reserve("result page", n); err != nil {
			p = page{err: err, last: true}
		} else {
			p.res = n
		}
	}
	// As produce ends: the page holds a reference until taken, and the
	// producer's goes.
	q.refs.Add(1)
	q.release()
	close(q.pages)
	q.unref()
	q.inline = true
	return p, true
}

// produce runs the operator tree and sends pages of pageSize rows (or
// pageBytes) until the result ends, ctx ends, or an error.
func (q *query) produce(root plan.Node, pageSize int) {
	defer q.unref()
	defer close(q.pages)
	defer q.release()
	// send hands a page to the consumer, its rows reserved until taken.
	send := func(p page) bool {
		n := int64(cap(p.rows))
		for _, r := range p.parts {
			n += int64(len(r))
		}
		if n > 0 {
			if err := q.mem.Reserve("result page", n); err != nil {
				p = page{err: err, last: true}
			} else {
				p.res = n
			}
		}
		q.refs.Add(1)
		select {
		case q.pages <- p:
			return p.err == nil
		case <-q.ctx.Done():
			q.took(p)
			return false
		}
	}
	fail := func(err error) {
		err = q.failure(err)
		q.refs.Add(1)
		select {
		case q.pages <- page{err: err, last: true}: // delivered even after the deadline
		default:
			q.unref()
			send(page{err: err, last: true})
		}
	}
	// Fast path: rows straight from a fragment pass through undecoded.
	if g, ok := root.(*plan.Gather); ok {
		it, err := q.startGather(g.Frag)
		if err != nil {
			fail(err)
			return
		}
		q.gathers = append(q.gathers, it)
		// A page's rows are the batches' rows, joined once when the page
		// is sent, into a buffer of exactly their size; a batch whose
		// rows have all been joined gives its buffer back. A page of one
		// chunk is that chunk, not copied: its batch's buffer leaves with
		// it. A query whose caller takes parts gets the chunks as they
		// are: a batch the page holds whole is recycled when the caller
		// releases the page, one split between two pages never (the
		// pages may be released in any order).
		var cur page
		var chunks []pageChunk
		size := 0
		flush := func(last bool) bool {
			switch {
			case len(chunks) == 0:
			case len(chunks) == 1:
				cur.rows = chunks[0].rows
				chunks[0].from.pooled = false
			case q.rowParts:
				cur.parts = make([][]byte, len(chunks))
				for i, c := range chunks {
					cur.parts[i] = c.rows
					if c.whole {
						cur.recycle = append(cur.recycle, c.from)
					} else {
						c.from.pooled = false
					}
				}
			default:
				cur.rows = make([]byte, 0, size)
				for _, c := range chunks {
					cur.rows = append(cur.rows, c.rows...)
				}
				for _, c := range chunks {
					if c.end {
						c.from.Recycle()
					}
				}
			}
			cur.last = last
			ok := send(cur)
			cur, chunks, size = page{}, chunks[:0], 0
			return ok
		}
		for {
			b, err := it.nextBatch()
			if err != nil {
				fail(err)
				return
			}
			if b == nil {
				break
			}
			rows, count := b.Rows, b.Count
			for count > 0 {
				if cur.count >= pageSize || (cur.count > 0 && size+len(rows) > pageBytes) {
					if !flush(false) {
						return
					}
				}
				take := min(count, pageSize-cur.count)
				head, tail := rows, []byte(nil)
				if take < count {
					var err error
					if head, tail, err = splitRows(rows, take, it.width); err != nil {
						fail(err)
						return
					}
				}
				chunks = append(chunks, pageChunk{rows: head, from: b, end: take == count, whole: take == b.Count})
				size += len(head)
				cur.count += take
				rows, count = tail, count-take
			}
		}
		flush(true)
		return
	}
	it, err := q.build(root)
	if err != nil {
		fail(err)
		return
	}
	var cur page
	for {
		r, err := it.Next()
		if err != nil {
			fail(err)
			return
		}
		if r == nil {
			break
		}
		cur.rows = EncodeRow(cur.rows, r)
		cur.count++
		if cur.count >= pageSize || len(cur.rows) >= pageBytes {
			if !send(cur) {
				return
			}
			cur = page{}
		}
	}
	cur.last = true
	send(cur)
}
