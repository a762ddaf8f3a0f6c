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
	Map     string
	Cols    []ScanCol
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
}

// split turns an optimized logical tree into the physical one.
func split(n Node) Node {
	switch x := n.(type) {
	case *Scan:
		return &Gather{Frag: scanFragment(x)}
	case *Aggregate:
		if s, ok := x.Input.(*Scan); ok && !anyDistinct(x.Aggs) {
			f := scanFragment(s)
			f.Project = nil
			for _, g := range x.GroupBy {
				f.GroupBy = append(f.GroupBy, substitute(g, s.Project))
			}
			for _, a := range x.Aggs {
				a.Arg = substitute(a.Arg, s.Project)
				a.By = substitute(a.By, s.Project)
				f.Aggs = append(f.Aggs, a)
			}
			f.CountOnly = len(x.GroupBy) == 0 && len(x.Aggs) == 1 && x.Aggs[0].Func == "count" &&
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
			finishFragment(f)
			return &MergeAggregate{Input: &Gather{Frag: f}, Groups: len(x.GroupBy), Aggs: x.Aggs, Names: x.Names}
		}
		return &Aggregate{Input: split(x.Input), GroupBy: x.GroupBy, Aggs: x.Aggs, Names: x.Names}
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
		in := split(x.Input)
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
		return &Filter{Input: split(x.Input), Cond: x.Cond}
	case *Project:
		return &Project{Input: split(x.Input), Exprs: x.Exprs, Names: x.Names}
	case *Sort:
		return &Sort{Input: split(x.Input), Keys: x.Keys}
	case *Distinct:
		return &Distinct{Input: split(x.Input)}
	case *UnionAll:
		ins := make([]Node, len(x.Ins))
		for i, in := range x.Ins {
			ins[i] = split(in)
		}
		return &UnionAll{Ins: ins}
	case *Insert:
		return &Insert{Mapping: x.Mapping, Columns: x.Columns, Source: split(x.Source), Overwrite: x.Overwrite}
	case *Explain:
		return &Explain{Input: split(x.Input)}
	}
	return n
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
