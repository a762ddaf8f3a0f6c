package plan

import (
	"context"
	"time"

	"github.com/atolldb/atoll/internal/query/expr"
)

// Options tune planning. The zero value plans without statistics.
type Options struct {
	// Stats estimates map sizes (nil: unknown, every map counts as large).
	Stats Stats
	// BroadcastRows: a join's build side estimated at no more than this
	// many rows is sent whole to every member (0: DefaultBroadcastRows).
	BroadcastRows int64
	// Hints are the statement's hints.
	Hints Hints
}

// DefaultBroadcastRows is the default broadcast threshold of a join's
// build side, in rows.
const DefaultBroadcastRows = 10000

// Rule is one rewrite of the logical plan. The rules run in the order of
// Rules, each over the whole tree.
type Rule struct {
	Name  string
	Apply func(n Node, p *Planning) Node
}

// Planning is what rules see besides the tree.
type Planning struct {
	// Ctx is the planning call's context: a constant fold still running
	// when it ends stops and is left for run time (nil: never ends).
	Ctx     context.Context
	Catalog Catalog
	Options Options
	// estimates records the entry count estimate of every map a rule
	// looked at, for the plan cache (a plan made for an empty map is not
	// reused once the map is large).
	estimates map[string]int64
}

// Rules are the planner's rules, in order:
//
//   - fold-constants: calls of literals become literals;
//   - push-filters: filters move down through projections, sorts,
//     DISTINCT and UNION ALL, into join conditions and into each join
//     input they only read (never into an outer join's NULL-supplying
//     side from WHERE, never into its preserved side from ON), and into
//     scans;
//   - count-non-null: COUNT(column) of a column that is never NULL (a map
//     key) becomes COUNT(*), or, on the NULL-supplying side of a left join,
//     COUNT of that side's join key (NULL exactly when the row found no
//     match), so that the column is neither read nor shipped;
//   - prune-columns: every node below a join or an aggregate produces only
//     the columns something above it reads, so scans read and exchanges
//     ship no more;
//   - merge-projections: a projection over a scan becomes the scan's, one
//     over another projection is composed with it, and one that only
//     renames an aggregate's columns renames them;
//   - choose-indexes: a scan's filter picks an index lookup;
//   - plan-joins: each join gets its equality keys, its build side (the
//     smaller input by the maps' entry counts) and its strategy
//     (colocated, broadcast, repartition, or coordinator).
var Rules = []Rule{
	{"fold-constants", foldConstants},
	{"push-filters", pushFilters},
	{"count-non-null", countNonNull},
	{"prune-columns", pruneColumns},
	{"merge-projections", mergeProjections},
	{"choose-indexes", chooseIndexes},
	{"plan-joins", planJoins},
}

func optimize(n Node, p *Planning) Node {
	for _, r := range Rules {
		n = r.Apply(n, p)
	}
	return n
}

// withInputs returns n with its inputs replaced (n itself when they are
// the same).
func withInputs(n Node, ins []Node) Node {
	old := n.Inputs()
	same := len(old) == len(ins)
	for i := range old {
		same = same && old[i] == ins[i]
	}
	if same {
		return n
	}
	switch x := n.(type) {
	case *Filter:
		return &Filter{Input: ins[0], Cond: x.Cond}
	case *Project:
		return &Project{Input: ins[0], Exprs: x.Exprs, Names: x.Names}
	case *Aggregate:
		c := *x
		c.Input = ins[0]
		return &c
	case *Sort:
		return &Sort{Input: ins[0], Keys: x.Keys}
	case *Limit:
		return &Limit{Input: ins[0], Limit: x.Limit, Offset: x.Offset}
	case *Distinct:
		return &Distinct{Input: ins[0]}
	case *UnionAll:
		return &UnionAll{Ins: ins}
	case *Join:
		c := *x
		c.Left, c.Right = ins[0], ins[1]
		return &c
	case *Insert:
		c := *x
		c.Source = ins[0]
		return &c
	case *Update:
		c := *x
		c.Scan = ins[0].(*Scan)
		return &c
	case *Delete:
		c := *x
		c.Scan = ins[0].(*Scan)
		return &c
	case *Explain:
		return &Explain{Input: ins[0]}
	}
	return n
}

// bottomUp rewrites every node after its inputs.
func bottomUp(n Node, fn func(Node) Node) Node {
	old := n.Inputs()
	if len(old) > 0 {
		ins := make([]Node, len(old))
		for i, in := range old {
			ins[i] = bottomUp(in, fn)
		}
		n = withInputs(n, ins)
	}
	return fn(n)
}

// ---- fold-constants ---------------------------------------------------------------

func foldConstants(n Node, p *Planning) Node {
	ctx := p.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return bottomUp(n, func(n Node) Node {
		switch x := n.(type) {
		case *Scan:
			s := *x
			s.Filter = fold(ctx, s.Filter)
			s.Project = foldAll(ctx, s.Project)
			if isTrue(s.Filter) {
				s.Filter = nil
			}
			return &s
		case *Filter:
			return &Filter{Input: x.Input, Cond: fold(ctx, x.Cond)}
		case *Project:
			return &Project{Input: x.Input, Exprs: foldAll(ctx, x.Exprs), Names: x.Names}
		case *Aggregate:
			a := *x
			a.GroupBy = foldAll(ctx, x.GroupBy)
			a.Aggs = append([]AggCall(nil), x.Aggs...)
			for i := range a.Aggs {
				a.Aggs[i].Arg = fold(ctx, a.Aggs[i].Arg)
				a.Aggs[i].By = fold(ctx, a.Aggs[i].By)
			}
			return &a
		case *Limit:
			return &Limit{Input: x.Input, Limit: fold(ctx, x.Limit), Offset: fold(ctx, x.Offset)}
		case *Join:
			j := *x
			j.Cond = fold(ctx, x.Cond)
			if isTrue(j.Cond) {
				j.Cond = nil
			}
			j.InLeft, j.InRight = fold(ctx, x.InLeft), fold(ctx, x.InRight)
			return &j
		}
		return n
	})
}

func isTrue(e expr.Expr) bool {
	l, ok := e.(*expr.Lit)
	return ok && l.V.T == expr.Boolean && l.V.I != 0
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

// ---- push-filters ---------------------------------------------------------------

func pushFilters(n Node, _ *Planning) Node { return push(n, nil) }

// push returns n with cond (over n's output; nil for none) applied, pushed
// as far down as it may go.
func push(n Node, cond expr.Expr) Node {
	switch x := n.(type) {
	case *Filter:
		return push(x.Input, expr.And(x.Cond, cond))
	case *Scan:
		s := *x
		if cond != nil {
			s.Filter = expr.And(s.Filter, substitute(cond, s.Project))
		}
		return &s
	case *Project:
		if cond != nil && deterministic(x.Exprs) {
			return &Project{Input: push(x.Input, substitute(cond, x.Exprs)), Exprs: x.Exprs, Names: x.Names}
		}
		return filterOver(&Project{Input: push(x.Input, nil), Exprs: x.Exprs, Names: x.Names}, cond)
	case *Sort:
		return &Sort{Input: push(x.Input, cond), Keys: x.Keys}
	case *Distinct:
		return &Distinct{Input: push(x.Input, cond)}
	case *UnionAll:
		ins := make([]Node, len(x.Ins))
		for i, in := range x.Ins {
			ins[i] = push(in, cond)
		}
		return &UnionAll{Ins: ins}
	case *Join:
		return pushJoin(x, cond)
	}
	ins := n.Inputs()
	if len(ins) > 0 {
		nins := make([]Node, len(ins))
		for i, in := range ins {
			nins[i] = push(in, nil)
		}
		n = withInputs(n, nins)
	}
	return filterOver(n, cond)
}

func filterOver(n Node, cond expr.Expr) Node {
	if cond == nil {
		return n
	}
	return &Filter{Input: n, Cond: cond}
}

func deterministic(es []expr.Expr) bool {
	for _, e := range es {
		nondet := false
		expr.Walk(e, func(x expr.Expr) bool {
			if c, ok := x.(*expr.Call); ok && c.Op == "rand" {
				nondet = true
			}
			return !nondet
		})
		if nondet {
			return false
		}
	}
	return true
}

// side says which inputs of a join an expression reads.
type side uint8

const (
	sideNone side = 0
	sideLeft side = 1 << iota
	sideRight
	sideBoth = sideLeft | sideRight
)

func sideOf(e expr.Expr, nl int) side {
	s := sideNone
	for _, c := range expr.Columns(e) {
		if c < nl {
			s |= sideLeft
		} else {
			s |= sideRight
		}
	}
	return s
}

// pushJoin pushes a filter above a join and the join's own condition into
// the join's inputs where that keeps the join's meaning:
//
//   - inner join: WHERE and ON are the same; a conjunct reading one input
//     filters that input, one reading both stays in the join condition;
//   - left join: WHERE conjuncts reading only the left (preserved) input
//     filter it, all others stay above the join (a NULL-extended row must
//     meet them); ON conjuncts reading only the right (NULL-supplying)
//     input filter it, all others stay in the condition (a left row that
//     fails them is kept, NULL-extended, so they cannot filter the left
//     input);
//   - semi and anti joins: WHERE reads the left input only and filters it;
//     ON conjuncts reading only the right input filter it, and for a semi
//     join those reading only the left input filter it too.
func pushJoin(j *Join, above expr.Expr) Node {
	nl := len(j.Left.Output())
	var toLeft, toRight, keep, stay expr.Expr
	for _, c := range expr.Conjuncts(above) {
		s := sideOf(c, nl)
		switch {
		case j.Kind == JoinInner && s == sideRight:
			toRight = expr.And(toRight, shift(c, -nl))
		case j.Kind == JoinInner && s == sideBoth:
			keep = expr.And(keep, c)
		case s == sideLeft || (s == sideNone && j.Kind != JoinLeft):
			toLeft = expr.And(toLeft, c)
		default:
			stay = expr.And(stay, c)
		}
	}
	for _, c := range expr.Conjuncts(j.Cond) {
		s := sideOf(c, nl)
		switch {
		case s == sideRight:
			toRight = expr.And(toRight, shift(c, -nl))
		case s == sideLeft && (j.Kind == JoinInner || j.Kind == JoinSemi):
			toLeft = expr.And(toLeft, c)
		default:
			keep = expr.And(keep, c)
		}
	}
	nj := *j
	nj.Left = push(j.Left, toLeft)
	nj.Right = push(j.Right, toRight)
	nj.Cond = keep
	return filterOver(&nj, stay)
}

// shift moves an expression's column references by d.
func shift(e expr.Expr, d int) expr.Expr {
	if d == 0 || e == nil {
		return e
	}
	return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
		if c, ok := x.(*expr.Col); ok {
			return &expr.Col{Index: c.Index + d, Name: c.Name, T: c.T}
		}
		return x
	})
}

// ---- count-non-null ---------------------------------------------------------------

func countNonNull(n Node, _ *Planning) Node {
	return bottomUp(n, func(n Node) Node {
		a, ok := n.(*Aggregate)
		if !ok {
			return n
		}
		var na *Aggregate
		for i, call := range a.Aggs {
			c, isCol := call.Arg.(*expr.Col)
			if call.Func != "count" || call.Distinct || !isCol {
				continue
			}
			arg, star, ok := countable(a.Input, c.Index)
			if !ok {
				continue
			}
			if na == nil {
				na = &Aggregate{Input: a.Input, GroupBy: a.GroupBy, Aggs: append([]AggCall(nil), a.Aggs...), Names: a.Names}
			}
			if star {
				na.Aggs[i].Arg = nil
			} else {
				na.Aggs[i].Arg = arg
			}
		}
		if na == nil {
			return n
		}
		return na
	})
}

// countable says how COUNT(column c of n) can count without the column:
// as COUNT(*) (star), or as COUNT(arg), a column NULL in the same rows.
func countable(n Node, c int) (arg expr.Expr, star, ok bool) {
	switch x := n.(type) {
	case *Filter:
		return countable(x.Input, c)
	case *Join:
		nl := len(x.Left.Output())
		if c < nl {
			return nil, true, neverNull(x.Left, c)
		}
		if x.Kind == JoinInner {
			return nil, true, neverNull(x.Right, c-nl)
		}
		if x.Kind != JoinLeft || !neverNull(x.Right, c-nl) {
			return nil, false, false
		}
		// A right row meets its left row only through equal keys, which
		// are not NULL: a right key column is NULL exactly in the rows
		// that found no match, as the never-NULL column is.
		for _, cj := range expr.Conjuncts(x.Cond) {
			if _, r, ok := equiKey(cj, nl); ok {
				if rc, isCol := r.(*expr.Col); isCol {
					return rc, false, true
				}
			}
		}
	default:
		return nil, true, neverNull(n, c)
	}
	return nil, false, false
}

// neverNull reports whether column c of n is never NULL: a map's key,
// through filters, projections and the sides of joins that are never
// NULL-extended.
func neverNull(n Node, c int) bool {
	switch x := n.(type) {
	case *Scan:
		col, ok := x.Project[c].(*expr.Col)
		return ok && col.Index < len(x.Cols) && x.Cols[col.Index].Path == "__key" && !x.Cols[col.Index].JSON
	case *Filter:
		return neverNull(x.Input, c)
	case *Project:
		col, ok := x.Exprs[c].(*expr.Col)
		return ok && neverNull(x.Input, col.Index)
	case *Join:
		nl := len(x.Left.Output())
		if c < nl {
			return neverNull(x.Left, c)
		}
		return x.Kind == JoinInner && neverNull(x.Right, c-nl)
	}
	return false
}

// ---- prune-columns ---------------------------------------------------------------

// pruneColumns narrows what the inputs of joins and aggregates produce to
// the columns read above them. The statement's own result keeps its
// columns.
func pruneColumns(n Node, _ *Planning) Node {
	nn, _ := prune(n, all(len(n.Output())))
	return nn
}

func all(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func markCols(need []bool, es ...expr.Expr) {
	for _, e := range es {
		for _, c := range expr.Columns(e) {
			if c < len(need) {
				need[c] = true
			}
		}
	}
}

// remapCols rewrites column references through remap (old index to new).
func remapCols(e expr.Expr, remap []int) expr.Expr {
	if e == nil {
		return nil
	}
	return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
		if c, ok := x.(*expr.Col); ok && c.Index < len(remap) && remap[c.Index] != c.Index {
			return &expr.Col{Index: remap[c.Index], Name: c.Name, T: c.T}
		}
		return x
	})
}

func identityMap(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// prune returns n producing at least the needed columns of its output,
// and where each old output column went (-1: dropped).
func prune(n Node, need []bool) (Node, []int) {
	switch x := n.(type) {
	case *Scan:
		keep := keepList(need)
		if len(keep) == len(x.Project) {
			return n, identityMap(len(x.Project))
		}
		s := *x
		s.Project, s.Names = nil, nil
		remap := make([]int, len(x.Project))
		for i := range remap {
			remap[i] = -1
		}
		for _, i := range keep {
			remap[i] = len(s.Project)
			s.Project = append(s.Project, x.Project[i])
			s.Names = append(s.Names, x.Names[i])
		}
		return &s, remap
	case *Project:
		keep := keepList(need)
		exprs := make([]expr.Expr, 0, len(keep))
		names := make([]string, 0, len(keep))
		remap := make([]int, len(x.Exprs))
		for i := range remap {
			remap[i] = -1
		}
		for _, i := range keep {
			remap[i] = len(exprs)
			exprs = append(exprs, x.Exprs[i])
			names = append(names, x.Names[i])
		}
		cneed := make([]bool, len(x.Input.Output()))
		markCols(cneed, exprs...)
		in, cremap := prune(x.Input, cneed)
		for i := range exprs {
			exprs[i] = remapCols(exprs[i], cremap)
		}
		return &Project{Input: in, Exprs: exprs, Names: names}, remap
	case *Filter:
		cneed := append([]bool(nil), need...)
		markCols(cneed, x.Cond)
		in, remap := prune(x.Input, cneed)
		return &Filter{Input: in, Cond: remapCols(x.Cond, remap)}, remap
	case *Sort:
		cneed := append([]bool(nil), need...)
		for _, k := range x.Keys {
			cneed[k.Col] = true
		}
		in, remap := prune(x.Input, cneed)
		keys := make([]SortKey, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = SortKey{Col: remap[k.Col], Desc: k.Desc}
		}
		return &Sort{Input: in, Keys: keys}, remap
	case *Limit:
		in, remap := prune(x.Input, need)
		return &Limit{Input: in, Limit: x.Limit, Offset: x.Offset}, remap
	case *Aggregate:
		cneed := make([]bool, len(x.Input.Output()))
		markCols(cneed, x.GroupBy...)
		for _, a := range x.Aggs {
			markCols(cneed, a.Arg, a.By)
		}
		in, cremap := prune(x.Input, cneed)
		a := *x
		a.Input = in
		a.GroupBy = make([]expr.Expr, len(x.GroupBy))
		for i, g := range x.GroupBy {
			a.GroupBy[i] = remapCols(g, cremap)
		}
		a.Aggs = append([]AggCall(nil), x.Aggs...)
		for i := range a.Aggs {
			a.Aggs[i].Arg = remapCols(a.Aggs[i].Arg, cremap)
			a.Aggs[i].By = remapCols(a.Aggs[i].By, cremap)
		}
		return &a, identityMap(len(x.Output()))
	case *Join:
		nl := len(x.Left.Output())
		nr := len(x.Right.Output())
		lneed, rneed := make([]bool, nl), make([]bool, nr)
		copy(lneed, need)
		if x.Kind == JoinInner || x.Kind == JoinLeft {
			copy(rneed, need[nl:])
		}
		both := make([]bool, nl+nr)
		markCols(both, x.Cond)
		markCols(lneed, x.InLeft)
		markCols(rneed, x.InRight)
		for i := range both {
			if both[i] && i < nl {
				lneed[i] = true
			} else if both[i] {
				rneed[i-nl] = true
			}
		}
		// A row must keep a column even when nothing reads one.
		if !anyTrue(rneed) && nr > 0 {
			rneed[0] = true
		}
		if !anyTrue(lneed) && nl > 0 {
			lneed[0] = true
		}
		l, lremap := prune(x.Left, lneed)
		r, rremap := prune(x.Right, rneed)
		nnl := len(l.Output())
		combined := make([]int, nl+nr)
		for i, v := range lremap {
			combined[i] = v
		}
		for i, v := range rremap {
			combined[nl+i] = v
			if v >= 0 {
				combined[nl+i] = nnl + v
			}
		}
		j := *x
		j.Left, j.Right = l, r
		j.Cond = remapCols(x.Cond, combined)
		j.InLeft = remapCols(x.InLeft, lremap)
		j.InRight = remapCols(x.InRight, rremap)
		if x.Kind == JoinSemi || x.Kind == JoinAnti {
			return &j, lremap
		}
		return &j, combined
	case *Insert, *Update, *Delete, *Explain, *Distinct, *UnionAll:
		ins := n.Inputs()
		nins := make([]Node, len(ins))
		for i, in := range ins {
			nins[i], _ = prune(in, all(len(in.Output())))
		}
		return withInputs(n, nins), identityMap(len(n.Output()))
	}
	return n, identityMap(len(n.Output()))
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

func keepList(need []bool) []int {
	var keep []int
	for i, v := range need {
		if v {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 && len(need) > 0 {
		keep = []int{0} // rows keep a column, so that they still count
	}
	return keep
}

// ---- merge-projections -------------------------------------------------------------

func mergeProjections(n Node, _ *Planning) Node {
	return bottomUp(n, func(n Node) Node {
		x, ok := n.(*Project)
		if !ok {
			return n
		}
		switch in := x.Input.(type) {
		case *Scan:
			ns := *in
			ns.Project = make([]expr.Expr, len(x.Exprs))
			for i, e := range x.Exprs {
				ns.Project[i] = substitute(e, in.Project)
			}
			ns.Names = x.Names
			return &ns
		case *Project:
			if !deterministic(in.Exprs) {
				return n
			}
			exprs := make([]expr.Expr, len(x.Exprs))
			for i, e := range x.Exprs {
				exprs[i] = substitute(e, in.Exprs)
			}
			return &Project{Input: in.Input, Exprs: exprs, Names: x.Names}
		case *Aggregate:
			if identity(x.Exprs, len(in.Output())) {
				na := *in
				na.Names = x.Names
				return &na
			}
		}
		return n
	})
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

// ---- choose-indexes ---------------------------------------------------------------

func chooseIndexes(n Node, p *Planning) Node {
	return bottomUp(n, func(n Node) Node {
		if s, ok := n.(*Scan); ok {
			ns := *s
			chooseIndex(&ns, p.Catalog)
			return &ns
		}
		return n
	})
}
