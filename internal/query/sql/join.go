package sql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// The FROM clause: tables, derived tables, joins; and the subqueries of
// WHERE that become semi and anti joins.

// from converts the FROM clause. Several tables (a comma join) are cross
// joins, left to right; WHERE's conditions become their join keys later
// (the planner's filter pushdown).
func (c *converter) from(tes []sqlparser.TableExpr) (plan.Node, scope, error) {
	if len(tes) == 0 {
		return &plan.Values{Rows: [][]expr.Expr{{}}}, scope{}, nil
	}
	n, sc, err := c.tableExpr(tes[0])
	if err != nil {
		return nil, scope{}, err
	}
	for _, te := range tes[1:] {
		r, rs, err := c.tableExpr(te)
		if err != nil {
			return nil, scope{}, err
		}
		n, sc = &plan.Join{Left: n, Right: r, Kind: plan.JoinInner}, joinScope(sc, rs, nil, false)
	}
	return n, sc, nil
}

func (c *converter) tableExpr(te sqlparser.TableExpr) (plan.Node, scope, error) {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		alias := t.As.String()
		switch e := t.Expr.(type) {
		case sqlparser.TableName:
			name := e.Name.String()
			if len(t.Columns) > 0 {
				return nil, scope{}, c.errAt(name, "a column list is only allowed after a derived table")
			}
			if name == "dual" {
				return &plan.Values{Rows: [][]expr.Expr{{}}}, scope{}, nil
			}
			if fn, ok := c.pre.tableFunc(name); ok {
				return c.tableFunction(fn, alias)
			}
			return c.table(name, alias)
		case *sqlparser.DerivedTable:
			if e.Lateral {
				return nil, scope{}, unsupported("LATERAL")
			}
			n, sc, err := c.query(e.Select)
			if err != nil {
				return nil, scope{}, err
			}
			if len(t.Columns) > 0 {
				if len(t.Columns) != len(sc.cols) {
					return nil, scope{}, c.errAt(alias, "derived table %s names %d columns but its query returns %d", alias, len(t.Columns), len(sc.cols))
				}
				n = renameOutput(n, t.Columns)
				for i, col := range t.Columns {
					sc.cols[i].name = col.String()
				}
			}
			for i := range sc.cols {
				sc.cols[i].table = alias
			}
			sc.star = nil
			return n, sc, nil
		}
	case *sqlparser.JoinTableExpr:
		return c.join(t)
	case *sqlparser.ParenTableExpr:
		return c.from(t.Exprs)
	}
	return nil, scope{}, unsupported("this FROM clause")
}

// renameOutput names a node's output columns (a derived table's column
// list) with a projection.
func renameOutput(n plan.Node, names sqlparser.Columns) plan.Node {
	out := n.Output()
	p := &plan.Project{Input: n}
	for i, col := range out {
		p.Exprs = append(p.Exprs, &expr.Col{Index: i, Name: names[i].String(), T: col.Type})
		p.Names = append(p.Names, names[i].String())
	}
	return p
}

// join converts [INNER|LEFT|RIGHT|CROSS|NATURAL] JOIN with ON or USING.
func (c *converter) join(j *sqlparser.JoinTableExpr) (plan.Node, scope, error) {
	l, ls, err := c.tableExpr(j.LeftExpr)
	if err != nil {
		return nil, scope{}, err
	}
	r, rs, err := c.tableExpr(j.RightExpr)
	if err != nil {
		return nil, scope{}, err
	}
	kind, right := plan.JoinInner, false
	switch j.Join {
	case sqlparser.NormalJoinType, sqlparser.StraightJoinType, sqlparser.NaturalJoinType:
	case sqlparser.LeftJoinType, sqlparser.NaturalLeftJoinType:
		kind = plan.JoinLeft
	case sqlparser.RightJoinType, sqlparser.NaturalRightJoinType:
		kind, right = plan.JoinLeft, true
	default:
		return nil, scope{}, unsupported("this kind of join")
	}
	var using []string
	natural := j.Join == sqlparser.NaturalJoinType || j.Join == sqlparser.NaturalLeftJoinType || j.Join == sqlparser.NaturalRightJoinType
	switch {
	case natural:
		for _, lc := range ls.visible() {
			for _, rc := range rs.visible() {
				if strings.EqualFold(lc.name, rc.name) {
					using = append(using, lc.name)
				}
			}
		}
	case j.Condition != nil && len(j.Condition.Using) > 0:
		for _, u := range j.Condition.Using {
			using = append(using, u.String())
		}
	}
	sc := joinScope(ls, rs, using, right)
	var cond expr.Expr
	for _, name := range using {
		li, lt, err := ls.resolveName(c, name)
		if err != nil {
			return nil, scope{}, c.errAt(name, "USING column %s is not in the left table", name)
		}
		ri, rt, err := rs.resolveName(c, name)
		if err != nil {
			return nil, scope{}, c.errAt(name, "USING column %s is not in the right table", name)
		}
		lcol := &expr.Col{Index: li, Name: ls.cols[li].name, T: lt}
		rcol := &expr.Col{Index: len(ls.cols) + ri, Name: rs.cols[ri].name, T: rt}
		l2, r2, err := c.compatible("=", lcol, rcol, &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp,
			Left: sqlparser.NewColName(name), Right: sqlparser.NewColName(name)})
		if err != nil {
			return nil, scope{}, err
		}
		cond = expr.And(cond, expr.NewCall("=", expr.Boolean, l2, r2))
	}
	if j.Condition != nil && j.Condition.On != nil {
		on, err := c.condition(j.Condition.On, sc, nil)
		if err != nil {
			return nil, scope{}, err
		}
		cond = expr.And(cond, on)
	}
	if kind == plan.JoinLeft && cond == nil {
		return nil, scope{}, plan.Errorf("an outer join needs ON or USING")
	}
	if !right {
		return &plan.Join{Left: l, Right: r, Kind: kind, Cond: cond, Hint: c.hints.Strategy}, sc, nil
	}
	// RIGHT JOIN is a LEFT JOIN of the swapped inputs; a projection puts
	// the columns back in the order the query wrote them.
	nl := len(ls.cols)
	nr := len(rs.cols)
	swapped := expr.Rewrite(cond, func(x expr.Expr) expr.Expr {
		if col, ok := x.(*expr.Col); ok {
			if col.Index < nl {
				return &expr.Col{Index: col.Index + nr, Name: col.Name, T: col.T}
			}
			return &expr.Col{Index: col.Index - nl, Name: col.Name, T: col.T}
		}
		return x
	})
	jn := &plan.Join{Left: r, Right: l, Kind: plan.JoinLeft, Cond: swapped, Hint: c.hints.Strategy}
	out := jn.Output()
	p := &plan.Project{Input: jn}
	for i := 0; i < nl; i++ {
		col := out[nr+i]
		p.Exprs = append(p.Exprs, &expr.Col{Index: nr + i, Name: col.Name, T: col.Type})
		p.Names = append(p.Names, col.Name)
	}
	for i := 0; i < nr; i++ {
		col := out[i]
		p.Exprs = append(p.Exprs, &expr.Col{Index: i, Name: col.Name, T: col.Type})
		p.Names = append(p.Names, col.Name)
	}
	return p, sc, nil
}

// joinScope is the scope of a join's output: the left columns then the
// right ones. USING columns appear once in SELECT * (first, taken from
// the preserved side) and unqualified names find that copy.
func joinScope(l, r scope, using []string, rightPreserved bool) scope {
	sc := scope{}
	sc.cols = append(append(sc.cols, l.cols...), r.cols...)
	lstar, rstar := l.starOrder(), r.starOrder()
	for i := range rstar {
		rstar[i] += len(l.cols)
	}
	if len(using) == 0 {
		sc.star = append(lstar, rstar...)
		return sc
	}
	find := func(order []int, name string) int {
		for _, i := range order {
			if strings.EqualFold(sc.cols[i].name, name) {
				return i
			}
		}
		return -1
	}
	var first []int
	dup := map[int]bool{}
	for _, name := range using {
		li, ri := find(lstar, name), find(rstar, name)
		keep, drop := li, ri
		if rightPreserved {
			keep, drop = ri, li
		}
		if keep >= 0 {
			first = append(first, keep)
		}
		if li >= 0 {
			dup[li] = true
		}
		if ri >= 0 {
			dup[ri] = true
		}
		if drop >= 0 {
			sc.cols[drop].usingDup = true
		}
	}
	sc.star = first
	for _, i := range append(lstar, rstar...) {
		if !dup[i] {
			sc.star = append(sc.star, i)
		}
	}
	return sc
}

// ---- Subqueries in WHERE ---------------------------------------------------------

// where converts a WHERE clause over input: conjuncts that are EXISTS,
// NOT EXISTS, IN (subquery) or NOT IN (subquery) become semi and anti
// joins on input; the others a filter below them.
func (c *converter) where(w sqlparser.Expr, input plan.Node, in scope) (plan.Node, error) {
	var plain []sqlparser.Expr
	var subs []sqlparser.Expr
	for _, e := range splitAnd(w) {
		if isSubqueryPredicate(e) {
			subs = append(subs, e)
		} else {
			plain = append(plain, e)
		}
	}
	if len(plain) > 0 {
		var cond expr.Expr
		for _, e := range plain {
			x, err := c.condition(e, in, nil)
			if err != nil {
				return nil, err
			}
			cond = expr.And(cond, x)
		}
		input = &plan.Filter{Input: input, Cond: cond}
	}
	for _, e := range subs {
		var err error
		if input, err = c.subqueryJoin(e, input, in); err != nil {
			return nil, err
		}
	}
	return input, nil
}

func splitAnd(e sqlparser.Expr) []sqlparser.Expr {
	if a, ok := e.(*sqlparser.AndExpr); ok {
		return append(splitAnd(a.Left), splitAnd(a.Right)...)
	}
	return []sqlparser.Expr{e}
}

func isSubqueryPredicate(e sqlparser.Expr) bool {
	if n, ok := e.(*sqlparser.NotExpr); ok {
		e = n.Expr
	}
	switch x := e.(type) {
	case *sqlparser.ExistsExpr:
		return true
	case *sqlparser.ComparisonExpr:
		_, sub := x.Right.(*sqlparser.Subquery)
		return sub && (x.Operator == sqlparser.InOp || x.Operator == sqlparser.NotInOp)
	}
	return false
}

// subqueryJoin turns one subquery predicate into a semi or anti join of
// input (whose scope is outer) with the subquery. Conditions of the
// subquery's WHERE that read columns of the outer query (correlation)
// become the join's condition; the others filter the subquery's rows.
func (c *converter) subqueryJoin(e sqlparser.Expr, input plan.Node, outer scope) (plan.Node, error) {
	negated := false
	if n, ok := e.(*sqlparser.NotExpr); ok {
		negated, e = true, n.Expr
	}
	var sub *sqlparser.Subquery
	var lhs sqlparser.Expr
	isIn := false
	switch x := e.(type) {
	case *sqlparser.ExistsExpr:
		sub = x.Subquery
	case *sqlparser.ComparisonExpr:
		sub, lhs, isIn = x.Right.(*sqlparser.Subquery), x.Left, true
		if x.Operator == sqlparser.NotInOp {
			negated = !negated
		}
	}
	right, corr, sel, err := c.subquery(sub, outer)
	if err != nil {
		return nil, err
	}
	nOuter := len(outer.cols)
	j := &plan.Join{Left: input, Right: right.node, Kind: plan.JoinSemi, Cond: corr, Hint: c.hints.Strategy}
	if negated {
		j.Kind = plan.JoinAnti
	}
	if isIn {
		if len(right.sc.cols) == 0 || sel == nil {
			return nil, plan.Errorf("the subquery of IN must return one column")
		}
		l, err := c.expr(lhs, outer, nil)
		if err != nil {
			return nil, err
		}
		r := shift(sel, nOuter)
		if l, r, err = c.compatible("IN", l, r, e); err != nil {
			return nil, err
		}
		eq := expr.NewCall("=", expr.Boolean, l, r)
		if negated {
			// NOT IN: a NULL on either side is unknown, not false.
			for _, col := range expr.Columns(r) {
				if col < nOuter {
					return nil, plan.Errorf("the column of a NOT IN subquery cannot read the outer query's columns")
				}
			}
			j.NullAware = true
			j.InLeft, j.InRight = l, shift(r, -nOuter)
		} else {
			j.Cond = expr.And(eq, j.Cond)
		}
	}
	return j, nil
}

type subqueryInput struct {
	node plan.Node
	sc   scope
}

// subquery converts the subquery of EXISTS or IN. It returns its rows,
// the correlation condition over outer's columns followed by the
// subquery's (nil when uncorrelated), and for IN its selected expression
// over the subquery's columns.
func (c *converter) subquery(sub *sqlparser.Subquery, outer scope) (subqueryInput, expr.Expr, expr.Expr, error) {
	sel, ok := sub.Select.(*sqlparser.Select)
	simple := ok && sel.GroupBy == nil && sel.Having == nil && !sel.Distinct && sel.Limit == nil && sel.With == nil
	if simple {
		for _, se := range sel.SelectExprs.Exprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && containsAgg(ae.Expr) {
				simple = false
			}
		}
	}
	if !simple {
		// A subquery with aggregates, DISTINCT, LIMIT or a UNION is
		// planned on its own; it may not read the outer query's columns.
		n, sc, err := c.query(sub.Select)
		if err != nil {
			if strings.Contains(err.Error(), "does not exist") {
				return subqueryInput{}, nil, nil, plan.Errorf("%v (a subquery with GROUP BY, aggregates, DISTINCT, LIMIT or UNION cannot read the outer query's columns)", err)
			}
			return subqueryInput{}, nil, nil, err
		}
		var first expr.Expr
		if len(sc.cols) > 0 {
			first = &expr.Col{Index: 0, Name: sc.cols[0].name, T: sc.cols[0].t}
		}
		return subqueryInput{node: n, sc: sc}, nil, first, nil
	}
	input, in, err := c.from(sel.From)
	if err != nil {
		return subqueryInput{}, nil, nil, err
	}
	// Conditions see the subquery's columns first, then the outer ones.
	both := scope{cols: append(append([]scopeCol(nil), outer.cols...), in.cols...), innerFrom: len(outer.cols)}
	nOuter := len(outer.cols)
	var corr expr.Expr
	if sel.Where != nil {
		var plain []sqlparser.Expr
		var subs []sqlparser.Expr
		for _, e := range splitAnd(sel.Where.Expr) {
			if isSubqueryPredicate(e) {
				subs = append(subs, e)
			} else {
				plain = append(plain, e)
			}
		}
		var local expr.Expr
		for _, e := range plain {
			x, err := c.condition(e, both, nil)
			if err != nil {
				return subqueryInput{}, nil, nil, err
			}
			outerCols := false
			for _, i := range expr.Columns(x) {
				outerCols = outerCols || i < nOuter
			}
			if outerCols {
				corr = expr.And(corr, x)
			} else {
				local = expr.And(local, shift(x, -nOuter))
			}
		}
		if local != nil {
			input = &plan.Filter{Input: input, Cond: local}
		}
		for _, e := range subs {
			if input, err = c.subqueryJoin(e, input, in); err != nil {
				return subqueryInput{}, nil, nil, err
			}
		}
	}
	var selected expr.Expr
	if len(sel.SelectExprs.Exprs) == 1 {
		if ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr); ok {
			x, err := c.expr(ae.Expr, in, nil)
			if err != nil {
				return subqueryInput{}, nil, nil, err
			}
			selected = x
		}
	}
	return subqueryInput{node: input, sc: in}, corr, selected, nil
}

// shift moves an expression's column references by d.
func shift(e expr.Expr, d int) expr.Expr {
	if d == 0 || e == nil {
		return e
	}
	return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
		if col, ok := x.(*expr.Col); ok {
			return &expr.Col{Index: col.Index + d, Name: col.Name, T: col.T}
		}
		return x
	})
}

// ---- Hints --------------------------------------------------------------------------

// readHints reads the optimizer hints of a statement's comments:
// /*+ JOIN_STRATEGY(broadcast) BATCH_BYTES(65536) VECTOR_SIZE(10000) MEMORY_LIMIT(268435456) */.
func readHints(comments *sqlparser.ParsedComments) (plan.Hints, error) {
	var h plan.Hints
	if comments == nil {
		return h, nil
	}
	for _, cm := range comments.GetComments() {
		s := string(cm)
		if !strings.HasPrefix(s, "/*+") {
			continue
		}
		body := strings.TrimSuffix(strings.TrimPrefix(s, "/*+"), "*/")
		for {
			body = strings.TrimSpace(body)
			if body == "" {
				break
			}
			open := strings.IndexByte(body, '(')
			end := strings.IndexByte(body, ')')
			if open <= 0 || end < open {
				return h, plan.Errorf("invalid hint %q: write NAME(value)", body)
			}
			name := strings.ToLower(strings.TrimSpace(body[:open]))
			arg := strings.TrimSpace(body[open+1 : end])
			body = body[end+1:]
			num := func() (int64, error) {
				n, err := strconv.ParseInt(arg, 10, 64)
				if err != nil || n <= 0 {
					return 0, plan.Errorf("hint %s takes a positive integer, not %q", strings.ToUpper(name), arg)
				}
				return n, nil
			}
			var err error
			switch name {
			case "join_strategy":
				switch st := plan.Strategy(strings.ToLower(arg)); st {
				case plan.Colocated, plan.Broadcast, plan.Repartition, plan.Coordinator:
					h.Strategy = st
				default:
					return h, plan.Errorf("hint JOIN_STRATEGY takes colocated, broadcast, repartition or coordinator, not %q", arg)
				}
			case "batch_bytes":
				h.BatchBytes, err = num()
			case "vector_size":
				h.VectorSize, err = num()
			case "memory_limit":
				h.MemoryLimit, err = num()
			default:
				return h, plan.Errorf("unknown hint %s (JOIN_STRATEGY, BATCH_BYTES, VECTOR_SIZE, MEMORY_LIMIT)", strings.ToUpper(name))
			}
			if err != nil {
				return h, err
			}
		}
	}
	return h, nil
}

// ---- Table functions -----------------------------------------------------------------

// tableFunction converts TABLE(name(args)) in FROM. The one table
// function is exchange_stats([clear]): one row per member with the
// counters of its join exchange; with clear TRUE (or clear => TRUE) the
// counters restart from zero once read, as Virtuoso's
// cl_sys_stat(..., clr => 1).
func (c *converter) tableFunction(fn tableCall, alias string) (plan.Node, scope, error) {
	if fn.name != "exchange_stats" {
		return nil, scope{}, plan.ErrorAt(c.src, fn.pos, "unknown table function %s (exchange_stats)", fn.name)
	}
	var words []string
	for _, t := range fn.args {
		words = append(words, strings.ToLower(t.text))
	}
	arg := strings.Join(words, " ")
	clear := false
	switch arg {
	case "", "false", "clear => false", "clear = > false":
	case "true", "clear => true", "clear = > true":
		clear = true
	default:
		return nil, scope{}, plan.ErrorAt(c.src, fn.pos, "exchange_stats takes TRUE or FALSE (clear the counters after reading them), not %q", arg)
	}
	if alias == "" {
		alias = fn.name
	}
	n := &plan.ExchangeStats{Clear: clear}
	var sc scope
	for _, col := range n.Output() {
		sc.cols = append(sc.cols, scopeCol{name: col.Name, table: alias, t: col.Type})
	}
	return n, sc, nil
}
