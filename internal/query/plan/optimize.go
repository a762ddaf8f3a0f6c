package plan

import (
	"context"
	"time"

	"github.com/atolldb/atoll/internal/query/expr"
)

// Build runs the rules over a logical plan and splits it into coordinator
// operators and fragments. The rules, in order:
//
//  1. fold constants;
//  2. merge filters and projections into the scan below them;
//  3. choose an index for each scan's filter;
//  4. split: scans become fragments under Gather, aggregates over a scan
//     become partial aggregates in the fragment under a MergeAggregate,
//     COUNT(*) with no filter reads entry counts, LIMIT (over ORDER BY)
//     bounds each member's rows;
//  5. in each fragment, JSON_VALUE over the value becomes a scan column read
//     by the JSON path evaluator, and unused scan columns are dropped.
//
// Folding evaluates constant expressions under ctx: one that is still
// running when ctx ends (a LIKE over a long text) stops and is left for
// run time.
func Build(ctx context.Context, root Node, cat Catalog, paramTypes []expr.Type, kind string) *Physical {
	n := optimize(ctx, root, cat)
	p := &Physical{Root: split(n), ParamTypes: paramTypes, Kind: kind}
	if kind == "query" {
		p.Columns = p.Root.Output()
	}
	return p
}

func optimize(ctx context.Context, n Node, cat Catalog) Node {
	switch x := n.(type) {
	case *Scan:
		s := *x
		s.Filter = fold(ctx, s.Filter)
		s.Project = foldAll(ctx, s.Project)
		if s.Filter != nil {
			if l, ok := s.Filter.(*expr.Lit); ok && l.V.T == expr.Boolean && l.V.I != 0 {
				s.Filter = nil
			}
		}
		chooseIndex(&s, cat)
		return &s
	case *Filter:
		in := optimize(ctx, x.Input, cat)
		cond := fold(ctx, x.Cond)
		if s, ok := in.(*Scan); ok {
			ns := *s
			ns.Filter = fold(ctx, expr.And(s.Filter, substitute(cond, s.Project)))
			ns.Index = nil
			chooseIndex(&ns, cat)
			return &ns
		}
		return &Filter{Input: in, Cond: cond}
	case *Project:
		in := optimize(ctx, x.Input, cat)
		exprs := foldAll(ctx, x.Exprs)
		if s, ok := in.(*Scan); ok {
			ns := *s
			ns.Project = make([]expr.Expr, len(exprs))
			for i, e := range exprs {
				ns.Project[i] = substitute(e, s.Project)
			}
			ns.Names = x.Names
			return &ns
		}
		if a, ok := in.(*Aggregate); ok && identity(exprs, len(a.Output())) {
			na := *a
			na.Names = x.Names
			return &na
		}
		return &Project{Input: in, Exprs: exprs, Names: x.Names}
	case *Aggregate:
		a := *x
		a.Input = optimize(ctx, x.Input, cat)
		a.GroupBy = foldAll(ctx, x.GroupBy)
		a.Aggs = append([]AggCall(nil), x.Aggs...)
		for i := range a.Aggs {
			a.Aggs[i].Arg = fold(ctx, a.Aggs[i].Arg)
			a.Aggs[i].By = fold(ctx, a.Aggs[i].By)
		}
		return &a
	case *Sort:
		return &Sort{Input: optimize(ctx, x.Input, cat), Keys: x.Keys}
	case *Limit:
		return &Limit{Input: optimize(ctx, x.Input, cat), Limit: fold(ctx, x.Limit), Offset: fold(ctx, x.Offset)}
	case *Distinct:
		return &Distinct{Input: optimize(ctx, x.Input, cat)}
	case *UnionAll:
		ins := make([]Node, len(x.Ins))
		for i, in := range x.Ins {
			ins[i] = optimize(ctx, in, cat)
		}
		return &UnionAll{Ins: ins}
	case *Insert:
		c := *x
		c.Source = optimize(ctx, x.Source, cat)
		return &c
	case *Update:
		c := *x
		c.Scan = optimize(ctx, x.Scan, cat).(*Scan)
		return &c
	case *Delete:
		c := *x
		c.Scan = optimize(ctx, x.Scan, cat).(*Scan)
		return &c
	case *Explain:
		return &Explain{Input: optimize(ctx, x.Input, cat)}
	}
	return n
}

func foldAll(ctx context.Context, es []expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = fold(ctx, e)
	}
	return out
}

// fold evaluates constant sub-expressions that hold no parameters; ones
// that fail to evaluate are left for run time, where they fail properly.
func fold(ctx context.Context, e expr.Expr) expr.Expr {
	if e == nil {
		return nil
	}
	return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
		c, ok := x.(*expr.Call)
		if !ok || !expr.IsConstant(c) || expr.HasParams(c) {
			return x
		}
		for _, a := range c.Args {
			if _, lit := a.(*expr.Lit); !lit {
				return x
			}
		}
		v, err := expr.Eval(c, &expr.Env{Now: time.Now(), Ctx: ctx})
		if err != nil {
			return x
		}
		if c.T != expr.Unknown && v.T != c.T && !v.IsNull() {
			if cv, err := expr.Cast(v, c.T); err == nil {
				v = cv
			}
		}
		return &expr.Lit{V: v.Clone()}
	})
}

// chooseIndex picks an index lookup for the scan's filter: equality or IN
// on an indexed attribute (hash or sorted), else a range on a sorted index.
func chooseIndex(s *Scan, cat Catalog) {
	s.Index = nil
	if s.Filter == nil || cat == nil {
		return
	}
	idx := cat.Indexes(s.Map)
	if len(idx) == 0 {
		return
	}
	find := func(e expr.Expr, sorted bool) (IndexInfo, bool) {
		c, ok := e.(*expr.Col)
		if !ok || c.Index >= len(s.Cols) || s.Cols[c.Index].JSON {
			return IndexInfo{}, false
		}
		path := NormalizePath(s.Cols[c.Index].Path)
		var best IndexInfo
		found := false
		for _, ix := range idx {
			if ix.Attribute != path || (sorted && ix.Type != IndexSorted) {
				continue
			}
			if !found || ix.Type == IndexHash {
				best, found = ix, true
			}
		}
		return best, found
	}
	conj := expr.Conjuncts(s.Filter)
	for _, e := range conj {
		c, ok := e.(*expr.Call)
		if !ok {
			continue
		}
		switch c.Op {
		case "=":
			l, r := c.Args[0], c.Args[1]
			if isConst(l) {
				l, r = r, l
			}
			if !isConst(r) {
				continue
			}
			if ix, ok := find(l, false); ok {
				s.Index = &IndexLookup{Index: ix, Equals: []expr.Expr{r}, Cond: e}
				return
			}
		case "in":
			all := true
			for _, a := range c.Args[1:] {
				all = all && isConst(a)
			}
			if !all {
				continue
			}
			if ix, ok := find(c.Args[0], false); ok {
				s.Index = &IndexLookup{Index: ix, Equals: append([]expr.Expr(nil), c.Args[1:]...), Cond: e}
				return
			}
		}
	}
	// Ranges on a sorted index: combine the bounds on one attribute.
	var look *IndexLookup
	var conds []expr.Expr
	for _, e := range conj {
		c, ok := e.(*expr.Call)
		if !ok {
			continue
		}
		col, lo, hi, loInc, hiInc, ok := rangeOf(c)
		if !ok {
			continue
		}
		ix, ok := find(col, true)
		if !ok || (look != nil && look.Index.Name != ix.Name) {
			continue
		}
		if look == nil {
			look = &IndexLookup{Index: ix}
		}
		if lo != nil && look.Low == nil {
			look.Low, look.LowInclusive = lo, loInc
		}
		if hi != nil && look.High == nil {
			look.High, look.HighInclusive = hi, hiInc
		}
		conds = append(conds, e)
	}
	if look != nil {
		look.Cond = expr.And(conds...)
		s.Index = look
	}
}

func isConst(e expr.Expr) bool {
	switch x := e.(type) {
	case *expr.Lit:
		return !x.V.IsNull()
	case *expr.Param:
		return true
	case *expr.Call:
		if x.Op == "cast" {
			return isConst(x.Args[0])
		}
	}
	return false
}

func rangeOf(c *expr.Call) (col, lo, hi expr.Expr, loInc, hiInc, ok bool) {
	switch c.Op {
	case "<", "<=", ">", ">=":
		l, r, op := c.Args[0], c.Args[1], c.Op
		if isConst(l) && !isConst(r) {
			l, r = r, l
			op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
		}
		if !isConst(r) {
			return
		}
		switch op {
		case ">":
			return l, r, nil, false, false, true
		case ">=":
			return l, r, nil, true, false, true
		case "<":
			return l, nil, r, false, false, true
		}
		return l, nil, r, false, true, true
	case "between":
		if isConst(c.Args[1]) && isConst(c.Args[2]) {
			return c.Args[0], c.Args[1], c.Args[2], true, true, true
		}
	}
	return
}

// identity reports whether exprs are the columns 0..n-1 in order.
func identity(exprs []expr.Expr, n int) bool {
	if len(exprs) != n {
		return false
	}
	for i, e := range exprs {
		if c, ok := e.(*expr.Col); !ok || c.Index != i {
			return false
		}
	}
	return true
}
