package plan

import (
	"context"
	"time"

	"github.com/atolldb/atoll/internal/query/expr"
)

type buildTimeoutKey struct{}

// WithBuildTimeout returns ctx carrying d, the most time that building a
// plan under it may take (BuildContext). A plan found in a cache costs no
// timer: most queries on a busy member are.
func WithBuildTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, buildTimeoutKey{}, d)
}

// BuildContext returns the context to build a plan under: ctx, ended
// after the timeout it carries (WithBuildTimeout), if any. cancel releases
// its timer.
func BuildContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(buildTimeoutKey{}).(time.Duration); ok && d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// Build runs the rules over a logical plan (see Rules) and splits it into
// coordinator operators and fragments:
//
//   - scans, and filters, projections and joins of them, become fragments
//     under Gather; an aggregate over one becomes partial aggregates in
//     the fragment under a MergeAggregate; COUNT(*) with no filter reads
//     entry counts; LIMIT (over ORDER BY) bounds each member's rows;
//   - a join whose input is computed on the coordinator is a HashJoin
//     there;
//   - in each fragment, JSON_VALUE over the value becomes a scan column
//     read by the JSON path evaluator, and unused scan columns are dropped.
//
// Folding evaluates constant expressions under ctx: one that is still
// running when ctx ends (a LIKE over a long text) stops and is left for
// run time.
func Build(ctx context.Context, root Node, cat Catalog, paramTypes []expr.Type, kind string, opts Options) *Physical {
	pl := &Planning{Ctx: ctx, Catalog: cat, Options: opts}
	n := optimize(root, pl)
	p := &Physical{Root: split(n), ParamTypes: paramTypes, Kind: kind, Hints: opts.Hints, Estimates: pl.estimates}
	if kind == "query" {
		p.Columns = p.Root.Output()
	}
	return p
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
