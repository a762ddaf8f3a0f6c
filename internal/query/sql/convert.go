package sql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// converter turns one vitess statement into a logical plan.
type converter struct {
	src    string
	pre    *prepared
	cat    plan.Catalog
	params []expr.Type
	hints  plan.Hints
	// depth is the nesting of the expression being converted.
	depth int
}

type scopeCol struct {
	name, table string
	t           expr.Type
	hidden      bool
	// usingDup: the other input's copy of a USING column, reachable only
	// with a qualifier.
	usingDup bool
}

// scope is the columns a clause sees, in the order of its input's row.
type scope struct {
	cols []scopeCol
	// star lists the columns of SELECT *, in order (nil: the columns that
	// are not hidden, in row order).
	star []int
	// innerFrom > 0: cols[innerFrom:] are a subquery's own columns, found
	// before the outer query's cols[:innerFrom].
	innerFrom int
}

func (s scope) starOrder() []int {
	if s.star != nil {
		return append([]int(nil), s.star...)
	}
	var out []int
	for i, c := range s.cols {
		if !c.hidden {
			out = append(out, i)
		}
	}
	return out
}

func (s scope) visible() []scopeCol {
	var out []scopeCol
	for _, i := range s.starOrder() {
		out = append(out, s.cols[i])
	}
	return out
}

func (s scope) resolveName(c *converter, name string) (int, expr.Type, error) {
	return s.resolve(c, &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(name)})
}

func (s scope) resolve(c *converter, col *sqlparser.ColName) (int, expr.Type, error) {
	name := col.Name.String()
	qual := col.Qualifier.Name.String()
	found := -1
	// A subquery's own columns first, then the outer query's.
	ranges := [][2]int{{0, len(s.cols)}}
	if s.innerFrom > 0 {
		ranges = [][2]int{{s.innerFrom, len(s.cols)}, {0, s.innerFrom}}
	}
	for _, rg := range ranges {
		for pass := 0; pass < 2 && found < 0; pass++ {
			for i := rg[0]; i < rg[1]; i++ {
				sc := s.cols[i]
				match := sc.name == name
				if pass == 1 {
					match = strings.EqualFold(sc.name, name)
				}
				if !match || (qual != "" && !strings.EqualFold(qual, sc.table)) || (qual == "" && sc.usingDup) {
					continue
				}
				if found >= 0 {
					return 0, 0, c.errAt(name, "column %s is ambiguous", name)
				}
				found = i
			}
		}
		if found >= 0 {
			break
		}
	}
	if found < 0 {
		if qual != "" {
			return 0, 0, c.errAt(name, "column %s.%s does not exist", qual, name)
		}
		return 0, 0, c.errAt(name, "column %s does not exist", name)
	}
	return found, s.cols[found].t, nil
}

func (c *converter) statement(st sqlparser.Statement) (plan.Node, string, error) {
	if sel, ok := st.(*sqlparser.Select); ok {
		h, err := readHints(sel.Comments)
		if err != nil {
			return nil, "", err
		}
		c.hints = h
	}
	switch s := st.(type) {
	case sqlparser.TableStatement:
		n, _, err := c.query(s)
		return n, "query", err
	case *sqlparser.ExplainStmt:
		inner, _, err := c.statement(s.Statement)
		if err != nil {
			return nil, "", err
		}
		return &plan.Explain{Input: inner}, "explain", nil
	case *sqlparser.Insert:
		n, err := c.insert(s)
		return n, "dml", err
	case *sqlparser.Update:
		n, err := c.update(s)
		return n, "dml", err
	case *sqlparser.Delete:
		n, err := c.delete(s)
		return n, "dml", err
	}
	return nil, "", plan.Errorf("unsupported statement: %s", firstWord(c.src))
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\n"); i > 0 {
		return strings.ToUpper(s[:i])
	}
	return strings.ToUpper(s)
}

// query converts SELECT and UNION; it returns the node and its scope.
func (c *converter) query(ts sqlparser.TableStatement) (plan.Node, scope, error) {
	switch s := ts.(type) {
	case *sqlparser.Select:
		return c.selectStmt(s)
	case *sqlparser.Union:
		l, ls, err := c.query(s.Left)
		if err != nil {
			return nil, scope{}, err
		}
		r, _, err := c.query(s.Right)
		if err != nil {
			return nil, scope{}, err
		}
		if len(l.Output()) != len(r.Output()) {
			return nil, scope{}, c.errAt("union", "UNION inputs have %d and %d columns", len(l.Output()), len(r.Output()))
		}
		// UNION (DISTINCT) removes duplicates from everything on its left
		// too: a UNION ALL b UNION c is DISTINCT over all three.
		var ins []plan.Node
		for i, n := range []plan.Node{l, r} {
			if d, ok := n.(*plan.Distinct); ok && i == 0 && s.Distinct {
				n = d.Input
			}
			if u, ok := n.(*plan.UnionAll); ok {
				ins = append(ins, u.Ins...)
			} else {
				ins = append(ins, n)
			}
		}
		var node plan.Node = &plan.UnionAll{Ins: ins}
		if s.Distinct {
			node = &plan.Distinct{Input: node}
		}
		sc := scope{}
		for _, col := range ls.cols {
			sc.cols = append(sc.cols, scopeCol{name: col.name, t: col.t})
		}
		err = c.orderLimit(&node, sc, s.OrderBy, s.Limit, nil)
		return node, sc, err
	}
	return nil, scope{}, plan.Errorf("unsupported query")
}

// table builds the scan of a mapping.
func (c *converter) table(name, alias string) (plan.Node, scope, error) {
	var m *plan.Mapping
	ok := false
	if c.cat != nil {
		m, ok = c.cat.Mapping(name)
	}
	if !ok {
		return nil, scope{}, c.errAt(name, "mapping %s does not exist (CREATE MAPPING first)", name)
	}
	if alias == "" {
		alias = name
	}
	s := &plan.Scan{Table: m.Name, Map: m.MapName}
	var sc scope
	for i, col := range m.Columns {
		s.Cols = append(s.Cols, plan.ScanCol{Path: col.Path, Type: col.Type, Format: m.ValueFormat})
		s.Project = append(s.Project, &expr.Col{Index: i, Name: col.Name, T: col.Type})
		s.Names = append(s.Names, col.Name)
		sc.cols = append(sc.cols, scopeCol{name: col.Name, table: alias, t: col.Type, hidden: col.Hidden})
	}
	return s, sc, nil
}

// aggregation collects the aggregates of a SELECT.
type aggregation struct {
	groups    []expr.Expr
	groupKeys []string
	aggs      []plan.AggCall
	aggKeys   []string
}

func (c *converter) selectStmt(sel *sqlparser.Select) (plan.Node, scope, error) {
	if sel.With != nil {
		return nil, scope{}, unsupported("WITH")
	}
	input, in, err := c.from(sel.From)
	if err != nil {
		return nil, scope{}, err
	}
	if sel.Where != nil {
		if input, err = c.where(sel.Where.Expr, input, in); err != nil {
			return nil, scope{}, err
		}
	}
	var selExprs []sqlparser.SelectExpr
	if sel.SelectExprs != nil {
		selExprs = sel.SelectExprs.Exprs
	}
	// Expand * and name the select list.
	type item struct {
		ast  sqlparser.Expr
		name string
		col  int // for *: the input column
	}
	var items []item
	for _, se := range selExprs {
		switch e := se.(type) {
		case *sqlparser.StarExpr:
			q := e.TableName.Name.String()
			if q == "" {
				for _, i := range in.starOrder() {
					items = append(items, item{name: in.cols[i].name, col: i})
				}
				break
			}
			found := false
			for i, col := range in.cols {
				if col.hidden || !strings.EqualFold(q, col.table) {
					continue
				}
				found = true
				items = append(items, item{name: col.name, col: i})
			}
			if !found {
				return nil, scope{}, c.errAt(q, "table %s is not in FROM", q)
			}
		case *sqlparser.AliasedExpr:
			name := e.As.String()
			if name == "" {
				if cn, ok := e.Expr.(*sqlparser.ColName); ok {
					name = cn.Name.String()
				} else {
					name = "EXPR$" + strconv.Itoa(len(items))
				}
			}
			items = append(items, item{ast: e.Expr, name: name, col: -1})
		default:
			return nil, scope{}, unsupported("this select item")
		}
	}
	if len(items) == 0 {
		return nil, scope{}, plan.Errorf("SELECT lists no columns")
	}
	// Aggregation?
	var groupBy []sqlparser.Expr
	if sel.GroupBy != nil {
		groupBy = sel.GroupBy.Exprs
	}
	hasAgg := len(groupBy) > 0
	for _, it := range items {
		if it.ast != nil && containsAgg(it.ast) {
			hasAgg = true
		}
	}
	if sel.Having != nil {
		hasAgg = true
	}
	for _, o := range sel.OrderBy {
		if containsAgg(o.Expr) {
			hasAgg = true
		}
	}
	var ag *aggregation
	if hasAgg {
		ag = &aggregation{}
		for _, g := range groupBy {
			ge := g
			if lit, ok := g.(*sqlparser.Literal); ok && lit.Type == sqlparser.IntVal {
				n, _ := strconv.Atoi(lit.Val)
				if n < 1 || n > len(items) || items[n-1].ast == nil {
					return nil, scope{}, plan.Errorf("GROUP BY position %d is not in the select list", n)
				}
				ge = items[n-1].ast
			} else if cn, ok := g.(*sqlparser.ColName); ok && cn.Qualifier.IsEmpty() {
				if _, _, err := in.resolve(c, cn); err != nil {
					for _, it := range items {
						if it.ast != nil && it.name == cn.Name.String() {
							ge = it.ast
						}
					}
				}
			}
			if containsAgg(ge) {
				return nil, scope{}, plan.Errorf("GROUP BY cannot contain an aggregate")
			}
			e, err := c.expr(ge, in, nil)
			if err != nil {
				return nil, scope{}, err
			}
			ag.groups = append(ag.groups, e)
			ag.groupKeys = append(ag.groupKeys, exprKey(e))
		}
		// Collect aggregates from the select list, HAVING and ORDER BY.
		collect := func(e sqlparser.Expr) error {
			var err error
			_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
				if err != nil {
					return false, nil
				}
				if a, ok := n.(sqlparser.AggrFunc); ok {
					err = c.addAgg(ag, a, in)
					return false, nil
				}
				return true, nil
			}, e)
			return err
		}
		for _, it := range items {
			if it.ast == nil {
				return nil, scope{}, plan.Errorf("SELECT * cannot be used with GROUP BY or aggregates")
			}
			if err := collect(it.ast); err != nil {
				return nil, scope{}, err
			}
		}
		if sel.Having != nil {
			if err := collect(sel.Having.Expr); err != nil {
				return nil, scope{}, err
			}
		}
		for _, o := range sel.OrderBy {
			if err := collect(o.Expr); err != nil {
				return nil, scope{}, err
			}
		}
		names := make([]string, 0, len(ag.groups)+len(ag.aggs))
		for i := range ag.groups {
			names = append(names, "$g"+strconv.Itoa(i))
		}
		for i := range ag.aggs {
			names = append(names, "$a"+strconv.Itoa(i))
		}
		input = &plan.Aggregate{Input: input, GroupBy: ag.groups, Aggs: ag.aggs, Names: names}
		if sel.Having != nil {
			cond, err := c.condition(sel.Having.Expr, in, ag)
			if err != nil {
				return nil, scope{}, err
			}
			input = &plan.Filter{Input: input, Cond: cond}
		}
	}
	// Project the select list.
	var exprs []expr.Expr
	var names []string
	for _, it := range items {
		var e expr.Expr
		if it.ast == nil {
			e = &expr.Col{Index: it.col, Name: in.cols[it.col].name, T: in.cols[it.col].t}
		} else {
			var err error
			if e, err = c.expr(it.ast, in, ag); err != nil {
				return nil, scope{}, err
			}
		}
		exprs = append(exprs, e)
		names = append(names, it.name)
	}
	out := scope{}
	for i, e := range exprs {
		out.cols = append(out.cols, scopeCol{name: names[i], t: e.Type()})
	}
	node := plan.Node(&plan.Project{Input: input, Exprs: exprs, Names: names})
	if sel.Distinct {
		node = &plan.Distinct{Input: node}
	}
	// ORDER BY may name output columns, positions, or expressions over the
	// input (added as hidden columns and projected away after the sort).
	extra := func(o sqlparser.Expr) (int, error) {
		if sel.Distinct {
			return 0, plan.Errorf("ORDER BY of a SELECT DISTINCT must use selected columns")
		}
		e, err := c.expr(o, in, ag)
		if err != nil {
			return 0, err
		}
		p := node.(*plan.Project)
		np := &plan.Project{Input: p.Input, Exprs: append(append([]expr.Expr(nil), p.Exprs...), e), Names: append(append([]string(nil), p.Names...), "$o")}
		node = np
		return len(np.Exprs) - 1, nil
	}
	err = c.orderLimit(&node, out, sel.OrderBy, sel.Limit, func(o sqlparser.Expr) (int, bool, error) {
		// An expression equal to a selected one sorts by that column.
		if e, err := c.expr(o, in, ag); err == nil {
			for i, have := range exprs {
				if exprKey(have) == exprKey(e) {
					return i, true, nil
				}
			}
		}
		i, err := extra(o)
		return i, err == nil, err
	})
	if err != nil {
		return nil, scope{}, err
	}
	n := node
	// Drop hidden sort columns.
	if width := len(n.Output()); width > len(exprs) {
		keep := make([]expr.Expr, len(exprs))
		for i := range exprs {
			keep[i] = &expr.Col{Index: i, Name: names[i], T: exprs[i].Type()}
		}
		n = &plan.Project{Input: n, Exprs: keep, Names: names}
	}
	return n, out, nil
}

// orderLimit adds ORDER BY and LIMIT/OFFSET over node, whose output is sc.
func (c *converter) orderLimit(nodeRef *plan.Node, sc scope, order sqlparser.OrderBy, limit *sqlparser.Limit,
	resolve func(sqlparser.Expr) (int, bool, error)) error {
	if len(order) > 0 {
		var keys []plan.SortKey
		for _, o := range order {
			col := -1
			switch e := o.Expr.(type) {
			case *sqlparser.Literal:
				if e.Type == sqlparser.IntVal {
					n, _ := strconv.Atoi(e.Val)
					if n < 1 || n > len(sc.cols) {
						return plan.Errorf("ORDER BY position %d is not in the select list", n)
					}
					col = n - 1
				}
			case *sqlparser.ColName:
				if e.Qualifier.IsEmpty() {
					for i, sc := range sc.cols {
						if sc.name == e.Name.String() {
							col = i
							break
						}
					}
				}
			}
			if col < 0 {
				if resolve == nil {
					return plan.Errorf("ORDER BY of a UNION must name selected columns")
				}
				i, _, err := resolve(o.Expr)
				if err != nil {
					return err
				}
				col = i // the resolver may have added a hidden column to *nodeRef
			}
			keys = append(keys, plan.SortKey{Col: col, Desc: o.Direction == sqlparser.DescOrder})
		}
		*nodeRef = &plan.Sort{Input: *nodeRef, Keys: keys}
	}
	if limit != nil {
		l := &plan.Limit{Input: *nodeRef}
		var err error
		if limit.Rowcount != nil {
			if l.Limit, err = c.limitExpr(limit.Rowcount); err != nil {
				return err
			}
		}
		if limit.Offset != nil {
			if l.Offset, err = c.limitExpr(limit.Offset); err != nil {
				return err
			}
		}
		*nodeRef = l
	}
	return nil
}

func (c *converter) limitExpr(e sqlparser.Expr) (expr.Expr, error) {
	x, err := c.expr(e, scope{}, nil)
	if err != nil {
		return nil, err
	}
	if p, ok := x.(*expr.Param); ok {
		c.setParam(p, expr.BigInt)
		return &expr.Param{Index: p.Index, T: expr.BigInt}, nil
	}
	if l, ok := x.(*expr.Lit); ok && l.V.T.IsInteger() && l.V.I >= 0 {
		return l, nil
	}
	return nil, plan.Errorf("LIMIT and OFFSET take a non-negative integer or a parameter")
}

func containsAgg(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(sqlparser.AggrFunc); ok {
			found = true
			return false, nil
		}
		if _, ok := n.(*sqlparser.Subquery); ok {
			return false, nil
		}
		return !found, nil
	}, e)
	return found
}

func (c *converter) addAgg(ag *aggregation, a sqlparser.AggrFunc, in scope) error {
	key := sqlparser.String(a)
	for _, k := range ag.aggKeys {
		if k == key {
			return nil
		}
	}
	call := plan.AggCall{}
	var arg sqlparser.Expr
	switch x := a.(type) {
	case *sqlparser.CountStar:
		call.Func, call.T = "count", expr.BigInt
	case *sqlparser.Count:
		if len(x.Args) != 1 {
			return plan.Errorf("COUNT takes one argument")
		}
		call.Func, call.T, call.Distinct, arg = "count", expr.BigInt, x.Distinct, x.Args[0]
	case *sqlparser.Sum:
		call.Func, call.Distinct, arg = "sum", x.Distinct, x.Arg
	case *sqlparser.Avg:
		call.Func, call.Distinct, arg = "avg", x.Distinct, x.Arg
	case *sqlparser.Min:
		call.Func, call.Distinct, arg = "min", x.Distinct, x.Arg
	case *sqlparser.Max:
		call.Func, call.Distinct, arg = "max", x.Distinct, x.Arg
	default:
		return plan.Errorf("aggregate %s is not supported", strings.ToUpper(a.AggrName()))
	}
	if arg != nil {
		if containsAgg(arg) {
			return plan.Errorf("aggregates cannot be nested")
		}
		e, err := c.expr(arg, in, nil)
		if err != nil {
			return err
		}
		call.Arg = e
		t := e.Type()
		switch call.Func {
		case "sum":
			switch {
			case t.IsInteger():
				call.T = expr.BigInt
			case t == expr.Decimal:
				call.T = expr.Decimal
			case t.IsFloat():
				call.T = expr.Double
			case t == expr.Unknown || t == expr.Null:
				call.T = expr.Unknown
			default:
				return c.errAt(a.AggrName(), "cannot apply SUM to %s", t)
			}
		case "avg":
			if !t.IsNumeric() && t != expr.Unknown && t != expr.Null {
				return c.errAt(a.AggrName(), "cannot apply AVG to %s", t)
			}
			call.T = expr.Double
		case "min", "max":
			call.T = t
		}
	}
	ag.aggs = append(ag.aggs, call)
	ag.aggKeys = append(ag.aggKeys, key)
	return nil
}

// ---- DML ----------------------------------------------------------------------

func (c *converter) mappingOf(te sqlparser.TableExpr) (*plan.Mapping, error) {
	at, ok := te.(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, unsupported("this target table")
	}
	tn, ok := at.Expr.(sqlparser.TableName)
	if !ok {
		return nil, unsupported("this target table")
	}
	name := tn.Name.String()
	if c.cat != nil {
		if m, ok := c.cat.Mapping(name); ok {
			return m, nil
		}
	}
	return nil, c.errAt(name, "mapping %s does not exist (CREATE MAPPING first)", name)
}

func (c *converter) insert(ins *sqlparser.Insert) (plan.Node, error) {
	if ins.OnDup != nil || ins.Action == sqlparser.ReplaceAct {
		return nil, unsupported("REPLACE and ON DUPLICATE KEY")
	}
	m, err := c.mappingOf(ins.Table)
	if err != nil {
		return nil, err
	}
	var cols []plan.MappingColumn
	if len(ins.Columns) == 0 {
		for _, col := range m.Columns {
			if !col.Hidden {
				cols = append(cols, col)
			}
		}
	} else {
		for _, ident := range ins.Columns {
			col, ok := m.Column(ident.String())
			if !ok {
				return nil, c.errAt(ident.String(), "column %s does not exist in mapping %s", ident.String(), m.Name)
			}
			cols = append(cols, col)
		}
	}
	var src plan.Node
	switch r := ins.Rows.(type) {
	case sqlparser.Values:
		v := &plan.Values{}
		for _, col := range cols {
			v.Names = append(v.Names, col.Name)
		}
		for _, tuple := range r {
			if len(tuple) != len(cols) {
				return nil, plan.Errorf("INSERT has %d columns but a row has %d values", len(cols), len(tuple))
			}
			row := make([]expr.Expr, len(tuple))
			for i, x := range tuple {
				e, err := c.expr(x, scope{}, nil)
				if err != nil {
					return nil, err
				}
				if row[i], err = c.coerceTo(e, cols[i].Type, cols[i].Name); err != nil {
					return nil, err
				}
			}
			v.Rows = append(v.Rows, row)
		}
		src = v
	case sqlparser.TableStatement:
		q, _, err := c.query(r)
		if err != nil {
			return nil, err
		}
		if len(q.Output()) != len(cols) {
			return nil, plan.Errorf("INSERT has %d columns but the query returns %d", len(cols), len(q.Output()))
		}
		src = q
	default:
		return nil, unsupported("this INSERT source")
	}
	return &plan.Insert{Mapping: m, Columns: cols, Source: src, Overwrite: c.pre.overwrite}, nil
}

// coerceTo checks that e can be stored in a column of type t, casting it.
func (c *converter) coerceTo(e expr.Expr, t expr.Type, col string) (expr.Expr, error) {
	if p, ok := e.(*expr.Param); ok {
		c.setParam(p, t)
		return &expr.Param{Index: p.Index, T: t}, nil
	}
	if e.Type() == t || e.Type() == expr.Null || e.Type() == expr.Unknown || t == expr.Object {
		return e, nil
	}
	if !expr.CanCast(e.Type(), t) {
		return nil, c.errAt(col, "cannot assign %s to column %s of type %s", e.Type(), col, t)
	}
	return expr.NewCall("cast", t, e), nil
}

func (c *converter) dmlScan(te []sqlparser.TableExpr, where *sqlparser.Where) (*plan.Mapping, *plan.Scan, scope, error) {
	if len(te) != 1 {
		return nil, nil, scope{}, unsupported("several tables")
	}
	m, err := c.mappingOf(te[0])
	if err != nil {
		return nil, nil, scope{}, err
	}
	n, sc, err := c.table(m.Name, "")
	if err != nil {
		return nil, nil, scope{}, err
	}
	s := n.(*plan.Scan)
	if where != nil {
		cond, err := c.condition(where.Expr, sc, nil)
		if err != nil {
			return nil, nil, scope{}, err
		}
		s.Filter = cond
	}
	return m, s, sc, nil
}

func (c *converter) update(u *sqlparser.Update) (plan.Node, error) {
	if u.Limit != nil || len(u.OrderBy) > 0 {
		return nil, unsupported("UPDATE with ORDER BY or LIMIT")
	}
	m, s, sc, err := c.dmlScan(u.TableExprs, u.Where)
	if err != nil {
		return nil, err
	}
	// The key and value as Data, in scan columns of their own (the
	// mapping's __key and this columns keep their types for the filter).
	keyIdx, thisIdx := len(s.Cols), len(s.Cols)+1
	s.Cols = append(s.Cols, plan.ScanCol{Path: "__key", Type: expr.Object}, plan.ScanCol{Path: "this", Type: expr.Object})
	project := []expr.Expr{&expr.Col{Index: keyIdx, Name: "__key", T: expr.Object}, &expr.Col{Index: thisIdx, Name: "this", T: expr.Object}}
	names := []string{"__key", "this"}
	var set []plan.MappingColumn
	for _, ue := range u.Exprs {
		col, ok := m.Column(ue.Name.Name.String())
		if !ok {
			return nil, c.errAt(ue.Name.Name.String(), "column %s does not exist in mapping %s", ue.Name.Name.String(), m.Name)
		}
		if col.Path == "__key" || strings.HasPrefix(col.Path, "__key.") {
			return nil, c.errAt(col.Name, "cannot update the key column %s", col.Name)
		}
		e, err := c.expr(ue.Expr, sc, nil)
		if err != nil {
			return nil, err
		}
		if e, err = c.coerceTo(e, col.Type, col.Name); err != nil {
			return nil, err
		}
		project = append(project, e)
		names = append(names, col.Name)
		set = append(set, col)
	}
	s.Project, s.Names = project, names
	return &plan.Update{Mapping: m, Scan: s, Set: set}, nil
}

func (c *converter) delete(d *sqlparser.Delete) (plan.Node, error) {
	if d.Limit != nil || len(d.OrderBy) > 0 || len(d.Targets) > 0 {
		return nil, unsupported("DELETE with ORDER BY, LIMIT or targets")
	}
	m, s, _, err := c.dmlScan(d.TableExprs, d.Where)
	if err != nil {
		return nil, err
	}
	k := len(s.Cols)
	s.Cols = append(s.Cols, plan.ScanCol{Path: "__key", Type: expr.Object})
	s.Project, s.Names = []expr.Expr{&expr.Col{Index: k, Name: "__key", T: expr.Object}}, []string{"__key"}
	return &plan.Delete{Mapping: m, Scan: s}, nil
}
