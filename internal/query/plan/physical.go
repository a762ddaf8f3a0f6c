package plan

import (
	"github.com/atolldb/atoll/internal/query/expr"
)

// Fragment is the part of a query every member runs over the partitions it
// owns: a scan (or index lookup or entry count), a filter, and either a
// projection or a partial aggregation, optionally sorted and limited per
// member. It is self-contained (Marshal gives its wire form) and scoped to a
// set of partitions, so a fragment can be re-run for the partitions of a
// member that failed or lost them to a migration.
type Fragment struct {
	Map  string
	Cols []ScanCol
	// Join, when set, replaces the scan: the fragment's rows are those of
	// a join that every member runs (Map and Cols are empty, and Filter,
	// Project, GroupBy and Aggs read the join's output columns).
	Join    *FragmentJoin
	Filter  expr.Expr
	Project []expr.Expr // the rows' columns (when not aggregating)
	GroupBy []expr.Expr // partial aggregation: group keys...
	Aggs    []AggCall   // ...and the partial states of these aggregates
	Index   *IndexLookup
	// CountOnly: COUNT(*) with no filter, answered from entry counts.
	CountOnly bool
	// Limit bounds the rows per member (-1: none); with Sort, the member
	// keeps its top Limit rows.
	Limit int64
	Sort  []SortKey
	// PartitionKey restricts the fragment to one partition.
	PartitionKey []byte
	// Params are the statement's parameter values, bound per execution.
	Params []expr.Value
	// Out are the output columns (for partial aggregation: the group keys
	// then each aggregate's partial state columns).
	Out []Column
	// Table is the name the query used, for EXPLAIN.
	Table string
	// Final: every group lies on one member (the groups' key holds the
	// never-NULL column the rows are placed by), so each member merges its
	// workers' partial states into final aggregates; its output is then
	// the group keys and final values, through Post when set.
	Final bool
	Post  *Post
}

// Post is what a member does with its final groups: a filter (HAVING), a
// projection, and optionally a second partial aggregation of the
// projected rows, which the coordinator merges.
type Post struct {
	Filter  expr.Expr   // over the group keys and final aggregates
	Project []expr.Expr // over them too
	GroupBy []expr.Expr // over the projection's output
	Aggs    []AggCall
	// In describes the rows Post reads (the final groups).
	In []Column
}

// postOut returns the columns of a Post's output: the projection's, or
// the second aggregation's group keys and partial states.
func postOut(p *Post, names []string) []Column {
	if len(p.Aggs) == 0 && len(p.GroupBy) == 0 {
		out := make([]Column, len(p.Project))
		for i, e := range p.Project {
			out[i] = Column{Name: names[i], Type: e.Type()}
		}
		return out
	}
	var out []Column
	for i, g := range p.GroupBy {
		out = append(out, Column{Name: names[i], Type: g.Type()})
	}
	for i, a := range p.Aggs {
		for j, t := range PartialTypes(a) {
			name := names[len(p.GroupBy)+i]
			if j > 0 {
				name += "#" + string(rune('0'+j))
			}
			out = append(out, Column{Name: name, Type: t})
		}
	}
	return out
}

// FragmentJoin is a join that every member runs over its partitions of
// both inputs, each input a fragment of its own. The output is the left
// input's columns then the right's (the left's only for semi and anti
// joins).
type FragmentJoin struct {
	Kind        JoinKind
	Left, Right *Fragment
	// LeftKeys[i] = RightKeys[i], over each input's output columns.
	LeftKeys, RightKeys []expr.Expr
	// Residual is over the left output then the right output.
	Residual expr.Expr
	// NullAware: an anti join for NOT IN, whose first key pair is the IN
	// comparison (see Join.NullAware).
	NullAware  bool
	BuildRight bool
	Strategy   Strategy
	// LeftMove and RightMove are the exchanges the inputs' rows travel
	// through (nil: they stay on their member).
	LeftMove, RightMove *Exchange
	// EstLeft and EstRight are the planner's row estimates (EXPLAIN).
	EstLeft, EstRight int64
}

// Exchange sends an input's rows between members: to every member
// (Broadcast), or each row to the owner of the partition of its Keys.
type Exchange struct {
	// ID names the exchange among the query's (its streams carry it).
	ID        int32
	Broadcast bool
	Keys      []expr.Expr
	// HashType: the partition of a row is that of its key serialized as
	// this type (a map key's type); Unknown: a hash of the key values.
	HashType expr.Type
}

// Width is the number of columns of the join's output.
func (j *FragmentJoin) Width() int {
	if j.Kind == JoinSemi || j.Kind == JoinAnti {
		return len(j.Left.Out)
	}
	return len(j.Left.Out) + len(j.Right.Out)
}

// Exchanges returns the fragment's exchanges, outermost join first.
func (f *Fragment) Exchanges() []*Exchange {
	if f.Join == nil {
		return nil
	}
	var out []*Exchange
	for _, m := range []*Exchange{f.Join.LeftMove, f.Join.RightMove} {
		if m != nil {
			out = append(out, m)
		}
	}
	return append(append(out, f.Join.Left.Exchanges()...), f.Join.Right.Exchanges()...)
}

// SourceWidth is the number of columns the fragment's expressions read:
// its scan columns, or its join's output.
func (f *Fragment) SourceWidth() int {
	if f.Join != nil {
		return f.Join.Width()
	}
	return len(f.Cols)
}

// Aggregating reports whether the fragment computes partial aggregates.
func (f *Fragment) Aggregating() bool { return len(f.Aggs) > 0 || len(f.GroupBy) > 0 }

// PartialWidth returns how many columns an aggregate's partial state has:
// count 1; sum and avg 2 (value and count); min, max 1; min_by, max_by 2
// (compared value and result).
func PartialWidth(a AggCall) int {
	switch a.Func {
	case "sum", "avg", "min_by", "max_by":
		return 2
	}
	return 1
}

// PartialTypes returns the types of an aggregate's partial state.
func PartialTypes(a AggCall) []expr.Type {
	switch a.Func {
	case "count":
		return []expr.Type{expr.BigInt}
	case "sum":
		return []expr.Type{a.T, expr.BigInt}
	case "avg":
		t := expr.Double
		if a.Arg != nil && (a.Arg.Type().IsInteger() || a.Arg.Type() == expr.Unknown) {
			t = expr.Unknown
		}
		return []expr.Type{t, expr.BigInt}
	case "min_by", "max_by":
		return []expr.Type{a.By.Type(), a.T}
	}
	return []expr.Type{a.T}
}

// Gather runs a fragment on every member that owns partitions of its map
// and passes the rows on as they arrive.
type Gather struct {
	Frag *Fragment
}

func (g *Gather) Output() []Column { return g.Frag.Out }
func (g *Gather) Inputs() []Node   { return nil }

// MergeAggregate combines the partial aggregates of a Gather into final
// ones: its output is the group keys then the aggregates.
type MergeAggregate struct {
	Input  Node
	Groups int
	Aggs   []AggCall
	Names  []string
}

func (m *MergeAggregate) Output() []Column {
	in := m.Input.Output()
	out := make([]Column, 0, m.Groups+len(m.Aggs))
	for i := 0; i < m.Groups; i++ {
		out = append(out, Column{Name: m.Names[i], Type: in[i].Type})
	}
	for i, a := range m.Aggs {
		out = append(out, Column{Name: m.Names[m.Groups+i], Type: a.T})
	}
	return out
}
func (m *MergeAggregate) Inputs() []Node { return []Node{m.Input} }

// HashJoin joins two inputs on the coordinator: one of them is computed
// there (an aggregate, a sort, a union or constant rows).
type HashJoin struct {
	Left, Right Node
	Kind        JoinKind
	LeftKeys    []expr.Expr
	RightKeys   []expr.Expr
	Residual    expr.Expr
	NullAware   bool
	BuildRight  bool
}

func (h *HashJoin) Output() []Column {
	l := h.Left.Output()
	if h.Kind == JoinSemi || h.Kind == JoinAnti {
		return l
	}
	return append(append([]Column(nil), l...), h.Right.Output()...)
}
func (h *HashJoin) Inputs() []Node { return []Node{h.Left, h.Right} }

// Physical is a planned statement, ready to execute: the root of a tree of
// coordinator operators (Filter, Project, Sort, Limit, Distinct, UnionAll,
// Values, Aggregate, MergeAggregate) over Gather leaves, or a statement node
// (Insert, Update, Delete, DDL, Explain).
type Physical struct {
	Root Node
	// ParamTypes are the inferred parameter types (Unknown: any).
	ParamTypes []expr.Type
	// Kind is "query", "dml", "ddl" or "explain".
	Kind string
	// Columns are the result columns of a query.
	Columns []Column
	// Hints are the statement's hints (join exchange settings).
	Hints Hints
	// Estimates are the entry counts the plan was made for, by map; the
	// plan cache plans again when a map's size has moved far from them.
	Estimates map[string]int64
}

// splitter turns an optimized logical tree into the physical one,
// numbering the exchanges.
type splitter struct{ exchanges int32 }

// split turns an optimized logical tree into the physical one.
func split(n Node) Node { return (&splitter{}).split(n) }

func (sp *splitter) split(n Node) Node {
	switch x := n.(type) {
	case *Scan:
		return &Gather{Frag: scanFragment(x)}
	case *Filter, *Project, *Join:
		if distributable(n) {
			return &Gather{Frag: sp.fragment(n)}
		}
	}
	switch x := n.(type) {
	case *Aggregate:
		var final *Fragment
		if !distributable(x.Input) && !anyDistinct(x.Aggs) {
			final = finalGather(sp.split(x.Input))
		}
		if final != nil {
			// A second aggregation of a member's final groups: partial on
			// the members, merged on the coordinator.
			f := final
			post := *postOf(f)
			// The aggregate reads the projection's output.
			post.GroupBy = append([]expr.Expr(nil), x.GroupBy...)
			post.Aggs = append([]AggCall(nil), x.Aggs...)
			nf := *f
			nf.Post = &post
			nf.Out = postOut(&post, x.Names)
			return &MergeAggregate{Input: &Gather{Frag: &nf}, Groups: len(x.GroupBy), Aggs: x.Aggs, Names: x.Names}
		}
		if distributable(x.Input) && !anyDistinct(x.Aggs) {
			f := sp.fragment(x.Input)
			proj := f.Project
			f.Project = nil
			for _, g := range x.GroupBy {
				f.GroupBy = append(f.GroupBy, substitute(g, proj))
			}
			for _, a := range x.Aggs {
				a.Arg = substitute(a.Arg, proj)
				a.By = substitute(a.By, proj)
				f.Aggs = append(f.Aggs, a)
			}
			f.CountOnly = f.Join == nil && len(x.GroupBy) == 0 && len(x.Aggs) == 1 && x.Aggs[0].Func == "count" &&
				x.Aggs[0].Arg == nil && f.Filter == nil && f.Index == nil && f.PartitionKey == nil
			f.Out = nil
			for i, g := range f.GroupBy {
				f.Out = append(f.Out, Column{Name: x.Names[i], Type: g.Type()})
			}
			for i, a := range f.Aggs {
				for j, t := range PartialTypes(a) {
					name := x.Names[len(x.GroupBy)+i]
					if j > 0 {
						name += "#" + string(rune('0'+j))
					}
					f.Out = append(f.Out, Column{Name: name, Type: t})
				}
			}
			if f.Join != nil {
				for _, in := range []*Fragment{f.Join.Left, f.Join.Right} {
					finishFragment(in)
				}
			} else {
				finishFragment(f)
			}
			if groupsComplete(x) {
				// Each member's groups are whole: it merges them itself,
				// and the operators above may run there too.
				f.Final = true
				f.Out = x.Output()
				return &Gather{Frag: f}
			}
			return &MergeAggregate{Input: &Gather{Frag: f}, Groups: len(x.GroupBy), Aggs: x.Aggs, Names: x.Names}
		}
		return &Aggregate{Input: sp.split(x.Input), GroupBy: x.GroupBy, Aggs: x.Aggs, Names: x.Names}
	case *Limit:
		// LIMIT n [OFFSET m] over a scan, or over a sort of a scan: each
		// member returns at most n+m rows (its top n+m when sorted).
		bound := int64(-1)
		if l, ok := constInt(x.Limit); ok {
			bound = l
			if x.Offset != nil {
				o, ok := constInt(x.Offset)
				if !ok {
					bound = -1
				} else {
					bound += o
				}
			}
		}
		in := sp.split(x.Input)
		if bound >= 0 {
			switch c := in.(type) {
			case *Gather:
				if !c.Frag.Aggregating() {
					c.Frag.Limit = bound
				}
			case *Sort:
				if g, ok := c.Input.(*Gather); ok && !g.Frag.Aggregating() {
					g.Frag.Limit = bound
					g.Frag.Sort = c.Keys
				}
			}
		}
		return &Limit{Input: in, Limit: x.Limit, Offset: x.Offset}
	case *Filter:
		in := sp.split(x.Input)
		if f := finalGather(in); f != nil {
			post := postOf(f)
			post.Filter = expr.And(post.Filter, substitute(x.Cond, post.Project))
			nf := *f
			nf.Post = post
			return &Gather{Frag: &nf}
		}
		return &Filter{Input: in, Cond: x.Cond}
	case *Project:
		in := sp.split(x.Input)
		if f := finalGather(in); f != nil {
			post := postOf(f)
			proj := make([]expr.Expr, len(x.Exprs))
			for i, e := range x.Exprs {
				proj[i] = substitute(e, post.Project)
			}
			post.Project = proj
			nf := *f
			nf.Post = post
			nf.Out = x.Output()
			return &Gather{Frag: &nf}
		}
		return &Project{Input: in, Exprs: x.Exprs, Names: x.Names}
	case *Join:
		jp := x.Plan
		h := &HashJoin{Left: sp.split(x.Left), Right: sp.split(x.Right), Kind: x.Kind, NullAware: x.NullAware}
		if jp != nil {
			h.LeftKeys, h.RightKeys, h.Residual, h.BuildRight = jp.LeftKeys, jp.RightKeys, jp.Residual, jp.BuildRight
		} else {
			h.Residual, h.BuildRight = x.Cond, true
		}
		return h
	case *Sort:
		return &Sort{Input: sp.split(x.Input), Keys: x.Keys}
	case *Distinct:
		return &Distinct{Input: sp.split(x.Input)}
	case *UnionAll:
		ins := make([]Node, len(x.Ins))
		for i, in := range x.Ins {
			ins[i] = sp.split(in)
		}
		return &UnionAll{Ins: ins}
	case *Insert:
		return &Insert{Mapping: x.Mapping, Columns: x.Columns, Source: sp.split(x.Source), Overwrite: x.Overwrite}
	case *Explain:
		return &Explain{Input: sp.split(x.Input)}
	}
	return n
}

// finalGather returns the fragment of a Gather whose members emit final
// groups that another projection or filter may still follow (no second
// aggregation yet), or nil.
func finalGather(n Node) *Fragment {
	g, ok := n.(*Gather)
	if !ok || !g.Frag.Final || (g.Frag.Post != nil && (len(g.Frag.Post.Aggs) > 0 || len(g.Frag.Post.GroupBy) > 0)) {
		return nil
	}
	return g.Frag
}

// postOf returns a copy of a final fragment's Post, or an identity one.
func postOf(f *Fragment) *Post {
	if f.Post != nil {
		p := *f.Post
		return &p
	}
	in := f.Out
	p := &Post{In: in}
	for i, c := range in {
		p.Project = append(p.Project, &expr.Col{Index: i, Name: c.Name, T: c.Type})
	}
	return p
}

// groupsComplete reports whether every group of an aggregate lies on one
// member: a group key is a column, never NULL, that the input's rows are
// placed by.
func groupsComplete(a *Aggregate) bool {
	pc, ok := partitioning(a.Input)
	if !ok {
		return false
	}
	for _, g := range a.GroupBy {
		if c, isCol := g.(*expr.Col); isCol && c.Index == pc.col && neverNull(a.Input, c.Index) {
			return true
		}
	}
	return false
}

// fragment builds the fragment that runs a distributable node (a scan,
// filters and projections of it, a join of such inputs) on every member;
// it projects the node's output columns.
func (sp *splitter) fragment(n Node) *Fragment {
	switch x := n.(type) {
	case *Scan:
		return scanFragment(x)
	case *Filter:
		f := sp.fragment(x.Input)
		f.Filter = expr.And(f.Filter, substitute(x.Cond, f.Project))
		if f.Join == nil {
			finishFragment(f)
		}
		return f
	case *Project:
		f := sp.fragment(x.Input)
		proj := make([]expr.Expr, len(x.Exprs))
		for i, e := range x.Exprs {
			proj[i] = substitute(e, f.Project)
		}
		f.Project = proj
		f.Out = x.Output()
		if f.Join == nil {
			finishFragment(f)
		}
		return f
	case *Join:
		jp := x.Plan
		fj := &FragmentJoin{Kind: x.Kind, Left: sp.fragment(x.Left), Right: sp.fragment(x.Right),
			LeftKeys: jp.LeftKeys, RightKeys: jp.RightKeys, Residual: jp.Residual, NullAware: x.NullAware,
			BuildRight: jp.BuildRight, Strategy: jp.Strategy, EstLeft: jp.EstLeft, EstRight: jp.EstRight}
		fj.LeftMove, fj.RightMove = sp.exchange(jp.LeftMove), sp.exchange(jp.RightMove)
		out := x.Output()
		f := &Fragment{Join: fj, Limit: -1, Out: out}
		for i, c := range out {
			f.Project = append(f.Project, &expr.Col{Index: i, Name: c.Name, T: c.Type})
		}
		return f
	}
	panic("plan: fragment of a node that members cannot run")
}

func (sp *splitter) exchange(m *Move) *Exchange {
	if m == nil {
		return nil
	}
	sp.exchanges++
	return &Exchange{ID: sp.exchanges, Broadcast: m.Broadcast, Keys: m.Keys, HashType: m.HashType}
}

func constInt(e expr.Expr) (int64, bool) {
	if l, ok := e.(*expr.Lit); ok && l.V.T.IsInteger() {
		return l.V.I, true
	}
	return 0, false
}

func anyDistinct(aggs []AggCall) bool {
	for _, a := range aggs {
		if a.Distinct {
			return true
		}
	}
	return false
}

func scanFragment(s *Scan) *Fragment {
	f := &Fragment{
		Map: s.Map, Table: s.Table, Cols: append([]ScanCol(nil), s.Cols...), Filter: s.Filter,
		Project: append([]expr.Expr(nil), s.Project...), Index: s.Index, Limit: -1, PartitionKey: s.PartitionKey,
		Out: s.Output(),
	}
	finishFragment(f)
	return f
}

// finishFragment pushes JSON_VALUE over the value into the scan and drops
// the scan columns nothing reads.
func finishFragment(f *Fragment) {
	pushJSON(f)
	pruneCols(f)
}

func (f *Fragment) exprs(fn func(expr.Expr) expr.Expr) {
	f.Filter = fn(f.Filter)
	for i := range f.Project {
		f.Project[i] = fn(f.Project[i])
	}
	for i := range f.GroupBy {
		f.GroupBy[i] = fn(f.GroupBy[i])
	}
	for i := range f.Aggs {
		f.Aggs[i].Arg = fn(f.Aggs[i].Arg)
		f.Aggs[i].By = fn(f.Aggs[i].By)
	}
	if f.Index != nil {
		ix := *f.Index
		ix.Equals = append([]expr.Expr(nil), ix.Equals...)
		for i := range ix.Equals {
			ix.Equals[i] = fn(ix.Equals[i])
		}
		ix.Low, ix.High, ix.Cond = fn(ix.Low), fn(ix.High), fn(ix.Cond)
		f.Index = &ix
	}
}

func pushJSON(f *Fragment) {
	f.exprs(func(e expr.Expr) expr.Expr {
		return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
			c, ok := x.(*expr.Call)
			if !ok || c.Op != "json_value" || len(c.Args) != 2 {
				return x
			}
			col, ok1 := c.Args[0].(*expr.Col)
			lit, ok2 := c.Args[1].(*expr.Lit)
			if !ok1 || !ok2 || lit.V.T != expr.Varchar || col.Index >= len(f.Cols) || f.Cols[col.Index].Path != "this" {
				return x
			}
			sc := ScanCol{Path: string(lit.V.B), Type: c.T, JSON: true}
			for i, have := range f.Cols {
				if have == sc {
					return &expr.Col{Index: i, Name: c.String(), T: c.T}
				}
			}
			f.Cols = append(f.Cols, sc)
			return &expr.Col{Index: len(f.Cols) - 1, Name: c.String(), T: c.T}
		})
	})
}

func pruneCols(f *Fragment) {
	used := make([]bool, len(f.Cols))
	f.exprs(func(e expr.Expr) expr.Expr {
		for _, i := range expr.Columns(e) {
			if i < len(used) {
				used[i] = true
			}
		}
		return e
	})
	remap := make([]int, len(f.Cols))
	var cols []ScanCol
	for i, c := range f.Cols {
		if used[i] {
			remap[i] = len(cols)
			cols = append(cols, c)
		}
	}
	if len(cols) == len(f.Cols) {
		return
	}
	f.Cols = cols
	f.exprs(func(e expr.Expr) expr.Expr {
		return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
			if c, ok := x.(*expr.Col); ok {
				return &expr.Col{Index: remap[c.Index], Name: c.Name, T: c.T}
			}
			return x
		})
	})
}

// substitute replaces column references with the expressions they name.
func substitute(e expr.Expr, by []expr.Expr) expr.Expr {
	if e == nil {
		return nil
	}
	return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
		if c, ok := x.(*expr.Col); ok && c.Index < len(by) {
			return by[c.Index]
		}
		return x
	})
}

// ScanFragment returns the fragment that runs a scan (UPDATE and DELETE
// find their entries with it).
func ScanFragment(s *Scan) *Fragment { return scanFragment(s) }
