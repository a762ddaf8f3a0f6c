package exec

import (
	"context"
	"sync"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// runFinal runs a fragment whose groups are whole on this member
// (Fragment.Final): its workers' partial states are merged here into final
// groups, which go through the fragment's Post (filter, projection,
// second partial aggregation) to emit.
func (e *Engine) runFinal(ctx context.Context, f *plan.Fragment, parts []int32, xc *pb.ExchangeContext, mem *MemoryAccount, emit func(*Batch) error) error {
	pf := *f
	pf.Final, pf.Post = false, nil
	width := len(f.GroupBy)
	for _, a := range f.Aggs {
		width += plan.PartialWidth(a)
	}
	var mu sync.Mutex
	var partial [][]expr.Value
	var reserved int64
	defer func() { mem.Release(reserved) }()
	err := e.runFragment(ctx, &pf, parts, xc, mem, func(b *Batch) error {
		rows, err := DecodeRows(b.Rows, b.Count, width)
		if err != nil {
			return err
		}
		n := int64(len(b.Rows)) + int64(len(rows)*width)*valueBytes
		if err := mem.Reserve("final aggregation", n); err != nil {
			return err
		}
		mu.Lock()
		reserved += n
		partial = append(partial, rows...)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	env := &expr.Env{Params: f.Params}
	var rows [][]expr.Value
	if isGroupJoin(f) {
		// A group join emits each group once: its states are whole.
		rows, err = finalStates(partial, len(f.GroupBy), f.Aggs)
	} else {
		rows, err = aggregateRows(&sliceIter{rows: partial}, len(f.GroupBy), nil, f.Aggs, nil, nil, true, false, env)
	}
	if err != nil {
		return err
	}
	if p := f.Post; p != nil {
		if rows, err = post(p, rows, env); err != nil {
			return err
		}
	}
	var out []byte
	count := 0
	for _, r := range rows {
		out = EncodeRow(out, r)
		count++
		if len(out) >= flushBytes {
			if err := emit(&Batch{Rows: out, Count: count}); err != nil {
				return err
			}
			out, count = nil, 0
		}
	}
	if count > 0 {
		return emit(&Batch{Rows: out, Count: count})
	}
	return nil
}

// finalStates turns rows of partial states, one per group, into rows of
// final values, in place.
func finalStates(rows [][]expr.Value, groups int, aggs []plan.AggCall) ([][]expr.Value, error) {
	for _, r := range rows {
		at := groups
		for i, a := range aggs {
			w := plan.PartialWidth(a)
			s := newAggState(a)
			s.merge(r[at : at+w])
			v, err := s.final()
			if err != nil {
				return nil, err
			}
			r[groups+i] = v
			at += w
		}
	}
	out := rows[:0]
	for _, r := range rows {
		out = append(out, r[:groups+len(aggs)])
	}
	return out, nil
}

// post applies a fragment's Post to its final groups.
func post(p *plan.Post, rows [][]expr.Value, env *expr.Env) ([][]expr.Value, error) {
	var it rowIter = &sliceIter{rows: rows}
	if p.Filter != nil {
		f, err := expr.Compile(p.Filter)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		it = &filterIter{in: it, cond: f, env: env}
	}
	fns := make([]expr.Fn, len(p.Project))
	for i, e := range p.Project {
		f, err := expr.Compile(e)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		fns[i] = f
	}
	it = &projectIter{in: it, exprs: fns, env: env}
	if len(p.Aggs) == 0 && len(p.GroupBy) == 0 {
		var out [][]expr.Value
		for {
			r, err := it.Next()
			if err != nil {
				return nil, err
			}
			if r == nil {
				return out, nil
			}
			out = append(out, r)
		}
	}
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
	gfs, err := compile(p.GroupBy)
	if err != nil {
		return nil, err
	}
	var args, bys []expr.Expr
	for _, a := range p.Aggs {
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
	return aggregateRows(it, len(gfs), gfs, p.Aggs, afs, bfs, false, true, env)
}
