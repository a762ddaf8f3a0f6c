package plan

import (
	"fmt"
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
)

// ExplainText returns the physical plan as text, one operator per line,
// children indented under their parent. A predicate and its SQL twin print
// the same text.
func ExplainText(p *Physical) string {
	var b strings.Builder
	explainNode(&b, p.Root, 0)
	return strings.TrimRight(b.String(), "\n")
}

func line(b *strings.Builder, depth int, format string, args ...any) {
	b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(b, format, args...)
	b.WriteByte('\n')
}

func exprList(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func aggList(as []AggCall) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

func sortList(keys []SortKey, cols []Column) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := fmt.Sprintf("$%d", k.Col)
		if k.Col < len(cols) {
			name = cols[k.Col].Name
		}
		if k.Desc {
			name += " DESC"
		}
		parts[i] = name
	}
	return strings.Join(parts, ", ")
}

func explainNode(b *strings.Builder, n Node, d int) {
	switch x := n.(type) {
	case *Gather:
		line(b, d, "Exchange[all members]")
		explainFragment(b, x.Frag, d+1)
		return
	case *MergeAggregate:
		line(b, d, "MergeAggregate[%s]", groupText(x.Input.Output()[:x.Groups], x.Aggs))
	case *Aggregate:
		line(b, d, "Aggregate[%s]", groupText(exprCols(x.GroupBy), x.Aggs))
	case *HashJoin:
		line(b, d, "HashJoin[%s]", joinText(x.Kind, Coordinator, x.BuildRight, x.LeftKeys, x.RightKeys, x.Residual, x.NullAware, -1, -1))
	case *ExchangeStats:
		line(b, d, "ExchangeStats[clear=%t]", x.Clear)
	case *Filter:
		line(b, d, "Filter[%s]", x.Cond)
	case *Project:
		line(b, d, "Project[%s]", exprList(x.Exprs))
	case *Sort:
		line(b, d, "Sort[%s]", sortList(x.Keys, x.Input.Output()))
	case *Limit:
		s := "Limit["
		if x.Limit != nil {
			s += "limit=" + x.Limit.String()
		}
		if x.Offset != nil {
			if x.Limit != nil {
				s += ", "
			}
			s += "offset=" + x.Offset.String()
		}
		line(b, d, "%s]", s)
	case *Distinct:
		line(b, d, "Distinct")
	case *UnionAll:
		line(b, d, "UnionAll")
	case *Values:
		line(b, d, "Values[%d rows]", len(x.Rows))
	case *Insert:
		verb := "Insert"
		if x.Overwrite {
			verb = "Sink"
		}
		line(b, d, "%s[%s]", verb, x.Mapping.Name)
	case *Update:
		line(b, d, "Update[%s]", x.Mapping.Name)
		explainFragment(b, scanFragment(x.Scan), d+1)
		return
	case *Delete:
		line(b, d, "Delete[%s]", x.Mapping.Name)
		explainFragment(b, scanFragment(x.Scan), d+1)
		return
	case *Explain:
		explainNode(b, x.Input, d)
		return
	case *CreateMapping:
		line(b, d, "CreateMapping[%s]", x.Mapping.Name)
	case *DropMapping:
		line(b, d, "DropMapping[%s]", x.Name)
	case *CreateIndex:
		line(b, d, "CreateIndex[%s ON %s (%s) %s]", x.Index.Name, x.Index.Map, x.Index.Attribute, x.Index.Type)
	case ShowMappings, *ShowMappings:
		line(b, d, "ShowMappings")
	default:
		line(b, d, "%T", n)
	}
	for _, in := range n.Inputs() {
		explainNode(b, in, d+1)
	}
}

// joinText describes a join: kind, strategy, build side with its
// estimated rows, keys, residual condition.
func joinText(kind JoinKind, st Strategy, buildRight bool, lk, rk []expr.Expr, residual expr.Expr, nullAware bool, estLeft, estRight int64) string {
	build, est := "left", estLeft
	if buildRight {
		build, est = "right", estRight
	}
	s := fmt.Sprintf("%s, strategy=%s, build=%s", kind, st, build)
	if est >= 0 && est < unknownRows>>8 { // estimates from unknown sizes say nothing
		s += fmt.Sprintf(" (~%d rows)", est)
	}
	if len(lk) == 0 {
		s += ", nested loop"
	} else {
		keys := make([]string, len(lk))
		for i := range lk {
			keys[i] = lk[i].String() + " = " + rk[i].String()
		}
		s += ", keys=[" + strings.Join(keys, ", ") + "]"
	}
	if nullAware {
		s += ", NOT IN"
	}
	if residual != nil {
		s += ", residual=" + residual.String()
	}
	return s
}

func exchangeText(m *Exchange) string {
	if m.Broadcast {
		return fmt.Sprintf("Exchange#%d[broadcast to all members]", m.ID)
	}
	by := "hash"
	if m.HashType != expr.Unknown {
		by = "partition of " + m.HashType.String() + " key"
	}
	return fmt.Sprintf("Exchange#%d[repartition by %s (%s)]", m.ID, exprList(m.Keys), by)
}

func exprCols(es []expr.Expr) []Column {
	out := make([]Column, len(es))
	for i, e := range es {
		out[i] = Column{Name: e.String()}
	}
	return out
}

func groupText(groups []Column, aggs []AggCall) string {
	var parts []string
	if len(groups) > 0 {
		names := make([]string, len(groups))
		for i, g := range groups {
			names[i] = g.Name
		}
		parts = append(parts, "group=["+strings.Join(names, ", ")+"]")
	}
	if len(aggs) > 0 {
		parts = append(parts, aggList(aggs))
	}
	return strings.Join(parts, ", ")
}

// explainFragment prints what each member runs, top operator first.
func explainFragment(b *strings.Builder, f *Fragment, d int) {
	if p := f.Post; p != nil {
		if len(p.Aggs) > 0 || len(p.GroupBy) > 0 {
			var gs []Column
			for _, g := range p.GroupBy {
				gs = append(gs, Column{Name: g.String()})
			}
			line(b, d, "PartialAggregate[%s]", groupText(gs, p.Aggs))
			d++
		}
		line(b, d, "Project[%s]", exprList(p.Project))
		d++
		if p.Filter != nil {
			line(b, d, "Filter[%s]", p.Filter)
			d++
		}
	}
	if f.Limit >= 0 {
		if len(f.Sort) > 0 {
			line(b, d, "TopN[%d by %s]", f.Limit, sortList(f.Sort, f.Out))
		} else {
			line(b, d, "Limit[%d]", f.Limit)
		}
		d++
	}
	switch {
	case f.CountOnly:
		line(b, d, "EntryCount[%s]", f.Table)
		return
	case f.Aggregating():
		var gs []Column
		for _, g := range f.GroupBy {
			gs = append(gs, Column{Name: g.String()})
		}
		verb := "PartialAggregate"
		if f.Final {
			verb = "Aggregate" // each member's groups are whole
		}
		line(b, d, "%s[%s]", verb, groupText(gs, f.Aggs))
		d++
	default:
		line(b, d, "Project[%s]", exprList(f.Project))
		d++
	}
	if f.Filter != nil {
		line(b, d, "Filter[%s]", f.Filter)
		d++
	}
	if j := f.Join; j != nil {
		line(b, d, "HashJoin[%s]", joinText(j.Kind, j.Strategy, j.BuildRight, j.LeftKeys, j.RightKeys, j.Residual, j.NullAware, j.EstLeft, j.EstRight))
		for i, in := range []*Fragment{j.Left, j.Right} {
			m := j.LeftMove
			if i == 1 {
				m = j.RightMove
			}
			at := d + 1
			if m != nil {
				line(b, at, "%s", exchangeText(m))
				at++
			}
			explainFragment(b, in, at)
		}
		return
	}
	part := ""
	if f.PartitionKey != nil {
		part = ", partition of key"
	}
	if f.Index != nil {
		line(b, d, "IndexScan[%s, index=%s %s, lookup=%s%s]", f.Table, f.Index.Index.Name, f.Index.Index.Type, f.Index.Cond, part)
		return
	}
	line(b, d, "Scan[%s%s]", f.Table, part)
}
