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
	// The partial rows, then the final groups, until they are emitted.
	ops := memGrant{mem: mem, what: "final aggregation"}
	defer ops.release()
	err := e.runFragment(ctx, &pf, parts, xc, mem, func(b *Batch) error {
		rows, err := DecodeRows(b.Rows, b.Count, width)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if err := ops.grow(decodedBytes(b, width) - int64(b.Count)*sliceBytes + headerGrowth(cap(partial), len(partial)+len(rows))); err != nil {
			return err
		}
		partial = append(partial, rows...)
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
		rows, err = aggregateRows(&sliceIter{rows: partial}, len(f.GroupBy), nil, f.Aggs, nil, nil, true, false, env, &ops)
	}
	if err != nil {
		return err
	}
	if p := f.Post; p != nil {
		if rows, err = post(p, rows, env, &ops); err != nil {
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

// post applies a fragment's Post to its final groups (what it keeps is
// accounted to ops).
func post(p *plan.Post, rows [][]expr.Value, env *expr.Env, ops *memGrant) ([][]expr.Value, error) {
	var it rowIter = &sliceIter{rows: rows}
	if p.Filter != nil {
		f, err := expr.Compile(p.Filter)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		it = &filterIter{in: it, cond: f, env: env}
	}
	fns, err := compileExprs(p.Project)
	if err != nil {
		return nil, err
	}
	it = &projectIter{in: it, exprs: fns, env: env}
	if len(p.Aggs) == 0 && len(p.GroupBy) == 0 {
		return materialize(it, ops)
	}
	gfs, afs, bfs, err := compileAggregation(p.GroupBy, p.Aggs)
	if err != nil {
		return nil, err
	}
	return aggregateRows(it, len(gfs), gfs, p.Aggs, afs, bfs, false, true, env, ops)
}
