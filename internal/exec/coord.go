package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"sort"
	"sync"
	"time"

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
// merges the batches as they arrive.
type gather struct {
	ch   chan *Batch
	errc chan error
	// first is the first member's error: the cause, when the others then
	// fail because the fragment was cancelled everywhere.
	firstOnce sync.Once
	first     error
	width     int
	rows      [][]expr.Value
	pos       int
	cancel    context.CancelFunc
	done      bool
	wait      int // senders still running
}

// startGather starts the fragment on the members and returns an iterator
// over its batches (raw) and decoded rows.
func (q *query) startGather(f *plan.Fragment) (*gather, error) {
	ctx, cancel := context.WithCancel(q.ctx)
	frag := *f
	frag.Params = q.params
	parts, err := q.e.placement()
	if err != nil {
		cancel()
		return nil, err
	}
	var xc *pb.ExchangeContext
	if len(f.Exchanges()) > 0 && len(parts) > 1 {
		xc = q.exchangeContext(parts)
	}
	g := &gather{ch: make(chan *Batch, 16), errc: make(chan error, len(parts)), width: len(f.Out), cancel: cancel}
	g.wait = len(parts)
	for _, p := range parts {
		q.e.goRun(func() {
			var err error
			if p.local {
				err = q.e.runFragment(ctx, &frag, p.partitions, xc, q.mem, func(b *Batch) error {
					select {
					case g.ch <- b:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				})
			} else {
				err = q.e.runRemote(ctx, p, &frag, xc, q.hints.MemoryLimit, g.ch)
			}
			if err != nil {
				// One member failing ends the fragment everywhere: its
				// exchanges would wait for it.
				g.firstOnce.Do(func() { g.first = err })
				cancel()
			}
			g.errc <- err
		})
	}
	return g, nil
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
				return b, nil
			default:
				return nil, nil
			}
		}
		select {
		case b := <-g.ch:
			return b, nil
		case err := <-g.errc:
			g.wait--
			if err != nil {
				g.cancel()
				g.firstOnce.Do(func() { g.first = err })
				return nil, g.first
			}
		}
	}
}

func (g *gather) Next() ([]expr.Value, error) {
	for g.pos >= len(g.rows) {
		b, err := g.nextBatch()
		if err != nil || b == nil {
			return nil, err
		}
		rows, err := DecodeRows(b.Rows, b.Count, g.width)
		if err != nil {
			return nil, err
		}
		g.rows, g.pos = rows, 0
	}
	r := g.rows[g.pos]
	g.pos++
	return r, nil
}

func (g *gather) close() { g.cancel() }

// sliceIter iterates over materialized rows.
type sliceIter struct {
	rows [][]expr.Value
	pos  int
}

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
}

func (p *projectIter) Next() ([]expr.Value, error) {
	r, err := p.in.Next()
	if err != nil || r == nil {
		return nil, err
	}
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
}

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
		d.seen[string(d.buf)] = true
		return r, nil
	}
}

type unionIter struct {
	ins []rowIter
	i   int
}

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
// partial states (plan.PartialTypes).
func aggregateRows(in rowIter, groups int, groupFns []expr.Fn, aggs []plan.AggCall, argFns, byFns []expr.Fn, merge, partialOut bool, env *expr.Env) ([][]expr.Value, error) {
	type grp struct {
		keys   []expr.Value
		states []aggState
	}
	m := map[string]*grp{}
	ints := map[int64]*grp{} // one integer key: no key bytes
	var order []*grp
	var buf []byte
	keys := make([]expr.Value, groups)
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
		if groups == 1 && keys[0].T.IsInteger() {
			if g = ints[keys[0].I]; g == nil {
				g = &grp{keys: []expr.Value{keys[0]}, states: newAggStates(aggs)}
				ints[keys[0].I] = g
				order = append(order, g)
			}
		} else {
			buf = rowKey(buf, keys)
			if g = m[string(buf)]; g == nil {
				g = &grp{keys: append([]expr.Value(nil), keys...), states: newAggStates(aggs)}
				m[string(buf)] = g
				order = append(order, g)
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
	out := make([][]expr.Value, 0, len(order))
	for _, g := range order {
		row := append([]expr.Value(nil), g.keys...)
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
		out = append(out, row)
	}
	return out, nil
}

// distinctAggregates computes aggregates with DISTINCT arguments (and any
// others) by materializing the input.
func distinctAggregates(in rowIter, groupFns []expr.Fn, aggs []plan.AggCall, argFns, byFns []expr.Fn, env *expr.Env) ([][]expr.Value, error) {
	var all [][]expr.Value
	for {
		r, err := in.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		all = append(all, r)
	}
	// Plain aggregates first.
	plain := make([]plan.AggCall, len(aggs))
	copy(plain, aggs)
	res, err := aggregateRows(&sliceIter{rows: all}, len(groupFns), groupFns, plain, argFns, byFns, false, false, env)
	if err != nil {
		return nil, err
	}
	// Then each DISTINCT aggregate over the distinct values of its group.
	index := map[string]int{}
	var buf []byte
	for i, r := range res {
		buf = rowKey(buf, r[:len(groupFns)])
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
			seen[k] = true
			states[gi].add(&v, nil)
		}
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

// build turns a physical node into a row iterator.
func (q *query) build(n plan.Node) (rowIter, error) {
	env := &expr.Env{Params: q.params, Now: q.now}
	compile := func(es []expr.Expr) ([]expr.Fn, error) {
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
		rows, err := aggregateRows(in, x.Groups, nil, x.Aggs, nil, nil, true, false, env)
		if err != nil {
			return nil, err
		}
		return &sliceIter{rows: rows}, nil
	case *plan.Aggregate:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		gfs, err := compile(x.GroupBy)
		if err != nil {
			return nil, err
		}
		var args, bys []expr.Expr
		for _, a := range x.Aggs {
			args, bys = append(args, a.Arg), append(bys, a.By)
		}
		afs, err := compile(args)
		if err != nil {
			return nil, err
		}
		bfs, err := compile(bys)
		if err != nil {
			return nil, err
		}
		var rows [][]expr.Value
		if anyDistinctAgg(x.Aggs) {
			rows, err = distinctAggregates(in, gfs, x.Aggs, afs, bfs, env)
		} else {
			rows, err = aggregateRows(in, len(gfs), gfs, x.Aggs, afs, bfs, false, false, env)
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
		fs, err := compile(x.Exprs)
		if err != nil {
			return nil, err
		}
		return &projectIter{in: in, exprs: fs, env: env}, nil
	case *plan.Sort:
		in, err := q.build(x.Input)
		if err != nil {
			return nil, err
		}
		var rows [][]expr.Value
		for {
			r, err := in.Next()
			if err != nil {
				return nil, err
			}
			if r == nil {
				break
			}
			rows = append(rows, r)
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
		return &distinctIter{in: in, seen: map[string]bool{}}, nil
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
			fs, err := compile(r)
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
	rows  []byte
	count int
	last  bool
	err   error
}

// query is one running statement on the coordinator.
type query struct {
	e       *Engine
	id      uint64
	ctx     context.Context
	cancel  context.CancelFunc
	params  []expr.Value
	now     time.Time
	cols    []plan.Column
	gathers []*gather
	hints   plan.Hints
	// mem accounts the memory the query holds on this member; tables are
	// its coordinator's join tables, released when it ends.
	mem    *MemoryAccount
	tables []*joinTable

	pages    chan page
	mu       sync.Mutex
	lastUsed time.Time
}

// produce runs the operator tree and sends pages of pageSize rows (or
// pageBytes) until the result ends, ctx ends, or an error.
func (q *query) produce(root plan.Node, pageSize int) {
	defer close(q.pages)
	defer func() {
		for _, g := range q.gathers {
			g.close()
		}
		for _, t := range q.tables {
			t.release()
		}
	}()
	send := func(p page) bool {
		select {
		case q.pages <- p:
			return true
		case <-q.ctx.Done():
			return false
		}
	}
	fail := func(err error) {
		if q.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			err = q.ctx.Err()
		}
		select {
		case q.pages <- page{err: err, last: true}: // delivered even after the deadline
		default:
			send(page{err: err, last: true})
		}
	}
	const pageBytes = 1 << 20
	// Fast path: rows straight from a fragment pass through undecoded.
	if g, ok := root.(*plan.Gather); ok {
		it, err := q.startGather(g.Frag)
		if err != nil {
			fail(err)
			return
		}
		q.gathers = append(q.gathers, it)
		// A page's rows are the batches' rows, joined once when the page
		// is sent, into a buffer of exactly their size (a page of one
		// batch is that batch's rows, not copied).
		var cur page
		var chunks [][]byte
		size := 0
		flush := func(last bool) bool {
			switch len(chunks) {
			case 0:
			case 1:
				cur.rows = chunks[0]
			default:
				cur.rows = make([]byte, 0, size)
				for _, c := range chunks {
					cur.rows = append(cur.rows, c...)
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
				chunks = append(chunks, head)
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
