package sql

import (
	"math"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// condition converts a WHERE/HAVING condition, which must be BOOLEAN.
func (c *converter) condition(e sqlparser.Expr, sc scope, ag *aggregation) (expr.Expr, error) {
	x, err := c.expr(e, sc, ag)
	if err != nil {
		return nil, err
	}
	if p, ok := x.(*expr.Param); ok {
		c.setParam(p, expr.Boolean)
		return &expr.Param{Index: p.Index, T: expr.Boolean}, nil
	}
	if t := x.Type(); t != expr.Boolean && t != expr.Unknown && t != expr.Null {
		return nil, c.errNear(x, "condition must be BOOLEAN, not %s: %s", t, sqlparser.String(e))
	}
	return x, nil
}

func (c *converter) setParam(p *expr.Param, t expr.Type) {
	for len(c.params) <= p.Index {
		c.params = append(c.params, expr.Unknown)
	}
	if c.params[p.Index] == expr.Unknown {
		c.params[p.Index] = t
	}
}

// typed gives a parameter the type of the other operand.
func (c *converter) typed(e expr.Expr, t expr.Type) expr.Expr {
	if p, ok := e.(*expr.Param); ok && p.T == expr.Unknown && t != expr.Unknown && t != expr.Null {
		c.setParam(p, t)
		return &expr.Param{Index: p.Index, T: t}
	}
	return e
}

// compatible checks the operand types of a comparison, casting a string
// literal to the other side's type.
func (c *converter) compatible(op string, l, r expr.Expr, ast sqlparser.Expr) (expr.Expr, expr.Expr, error) {
	l, r = c.typed(l, r.Type()), c.typed(r, l.Type())
	lt, rt := l.Type(), r.Type()
	if lt == expr.Unknown || rt == expr.Unknown || lt == expr.Null || rt == expr.Null || lt == rt {
		return l, r, nil
	}
	switch {
	case lt.IsNumeric() && rt.IsNumeric(), (lt == expr.Varchar || lt == expr.JSON) && (rt == expr.Varchar || rt == expr.JSON),
		lt.IsTemporal() && rt.IsTemporal():
		return l, r, nil
	}
	castLit := func(x expr.Expr, t expr.Type) (expr.Expr, bool) {
		if lit, ok := x.(*expr.Lit); ok && lit.V.T == expr.Varchar {
			v, err := expr.Cast(lit.V, t)
			if err == nil {
				return &expr.Lit{V: v}, true
			}
		}
		return nil, false
	}
	if x, ok := castLit(r, lt); ok {
		return l, x, nil
	}
	if x, ok := castLit(l, rt); ok {
		return x, r, nil
	}
	return nil, nil, c.errNear(l, "cannot apply '%s' to %s and %s: %s", op, lt, rt, sqlparser.String(ast))
}

// errNear returns an error positioned at the first column e reads (the
// statement's text has no positions in the AST), or without a position.
func (c *converter) errNear(e expr.Expr, format string, args ...any) error {
	var name string
	expr.Walk(e, func(x expr.Expr) bool {
		if col, ok := x.(*expr.Col); ok && name == "" {
			name = col.Name
		}
		return name == ""
	})
	if name != "" {
		return c.errAt(name, format, args...)
	}
	return plan.Errorf(format, args...)
}

var castNames = map[string]expr.Type{
	"signed": expr.BigInt, "unsigned": expr.BigInt, "char": expr.Varchar, "nchar": expr.Varchar, "binary": expr.Varchar,
	"double": expr.Double, "float": expr.Real, "real": expr.Real, "decimal": expr.Decimal, "date": expr.Date,
	"datetime": expr.Timestamp, "time": expr.Time, "json": expr.JSON,
}

func (c *converter) convertType(ct *sqlparser.ConvertType) (expr.Type, error) {
	if ct == nil {
		return expr.Varchar, nil
	}
	name := strings.ToLower(ct.Type)
	if name == "char" && ct.Length != nil && *ct.Length >= 1000 && *ct.Length-1000 < len(c.pre.types) {
		return c.pre.types[*ct.Length-1000], nil
	}
	if t, ok := castNames[name]; ok {
		return t, nil
	}
	if t, ok := expr.ParseType(name); ok {
		return t, nil
	}
	return 0, plan.Errorf("unsupported type %s", ct.Type)
}

var funcAliases = map[string]string{
	"char_length": "length", "character_length": "length", "len": "length", "ceiling": "ceil", "pow": "power",
	"ifnull": "coalesce", "nvl": "coalesce", "substr": "substring", "log": "ln", "now": "current_timestamp",
	"lcase": "lower", "ucase": "upper", "locate": "position",
}

// expr converts an expression over the scope sc; with ag it is evaluated
// after aggregation: aggregates and group keys become columns of the
// aggregate's output, and other columns are errors.
func (c *converter) expr(e sqlparser.Expr, sc scope, ag *aggregation) (expr.Expr, error) {
	if c.depth++; c.depth > maxExprDepth {
		return nil, plan.Errorf("an expression nests deeper than %d (operators, NOT, CASE, function calls)", maxExprDepth)
	}
	defer func() { c.depth-- }()
	if ag != nil {
		if a, ok := e.(sqlparser.AggrFunc); ok {
			key := sqlparser.String(a)
			for i, k := range ag.aggKeys {
				if k == key {
					return &expr.Col{Index: len(ag.groups) + i, Name: aggName(ag.aggs[i]), T: ag.aggs[i].T}, nil
				}
			}
			return nil, plan.Errorf("aggregate %s is not available here", key)
		}
		if !containsAgg(e) {
			if x, err := c.expr(e, sc, nil); err == nil {
				if _, isLit := x.(*expr.Lit); isLit {
					return x, nil
				}
				if _, isParam := x.(*expr.Param); isParam {
					return x, nil
				}
				s := exprKey(x)
				for i, k := range ag.groupKeys {
					if k == s {
						return &expr.Col{Index: i, Name: x.String(), T: ag.groups[i].Type()}, nil
					}
				}
				if cn, ok := e.(*sqlparser.ColName); ok {
					return nil, c.errAt(cn.Name.String(), "column %s must appear in GROUP BY or in an aggregate", cn.Name.String())
				}
			}
		}
	}
	sub := func(x sqlparser.Expr) (expr.Expr, error) { return c.expr(x, sc, ag) }
	switch x := e.(type) {
	case *sqlparser.ColName:
		i, t, err := sc.resolve(c, x)
		if err != nil {
			return nil, err
		}
		return &expr.Col{Index: i, Name: sc.cols[i].name, T: t}, nil
	case *sqlparser.Literal:
		return c.literal(x)
	case *sqlparser.NullVal:
		return &expr.Lit{V: expr.NullValue}, nil
	case sqlparser.BoolVal:
		return &expr.Lit{V: expr.BoolValue(bool(x))}, nil
	case *sqlparser.Argument:
		n, err := strconv.Atoi(strings.TrimPrefix(x.Name, "v"))
		if err != nil || n < 1 {
			return nil, plan.Errorf("named parameters are not supported (:%s); use ?", x.Name)
		}
		p := &expr.Param{Index: n - 1}
		for len(c.params) < n {
			c.params = append(c.params, expr.Unknown)
		}
		return p, nil
	case *sqlparser.AndExpr:
		return c.logical("and", sub, x.Left, x.Right)
	case *sqlparser.OrExpr:
		return c.logical("or", sub, x.Left, x.Right)
	case *sqlparser.NotExpr:
		a, err := c.boolArg(sub, x.Expr)
		if err != nil {
			return nil, err
		}
		return expr.NewCall("not", expr.Boolean, a), nil
	case *sqlparser.ComparisonExpr:
		return c.comparison(x, sub)
	case *sqlparser.BetweenExpr:
		v, err := sub(x.Left)
		if err != nil {
			return nil, err
		}
		lo, err := sub(x.From)
		if err != nil {
			return nil, err
		}
		hi, err := sub(x.To)
		if err != nil {
			return nil, err
		}
		if _, lo, err = c.compatible("BETWEEN", v, lo, e); err != nil {
			return nil, err
		}
		if _, hi, err = c.compatible("BETWEEN", v, hi, e); err != nil {
			return nil, err
		}
		call := expr.NewCall("between", expr.Boolean, v, lo, hi)
		if !x.IsBetween {
			return expr.NewCall("not", expr.Boolean, call), nil
		}
		return call, nil
	case *sqlparser.IsExpr:
		v, err := sub(x.Left)
		if err != nil {
			return nil, err
		}
		ops := map[sqlparser.IsExprOperator]string{sqlparser.IsNullOp: "is_null", sqlparser.IsNotNullOp: "is_not_null",
			sqlparser.IsTrueOp: "is_true", sqlparser.IsFalseOp: "is_false"}
		if op, ok := ops[x.Right]; ok {
			return expr.NewCall(op, expr.Boolean, v), nil
		}
		if x.Right == sqlparser.IsNotTrueOp {
			return expr.NewCall("not", expr.Boolean, expr.NewCall("is_true", expr.Boolean, v)), nil
		}
		return expr.NewCall("not", expr.Boolean, expr.NewCall("is_false", expr.Boolean, v)), nil
	case *sqlparser.BinaryExpr:
		l, err := sub(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := sub(x.Right)
		if err != nil {
			return nil, err
		}
		if x.Operator == sqlparser.ShiftLeftOp {
			return expr.NewCall("concat", expr.Varchar, l, r), nil
		}
		op := map[sqlparser.BinaryExprOperator]string{sqlparser.PlusOp: "+", sqlparser.MinusOp: "-", sqlparser.MultOp: "*",
			sqlparser.DivOp: "/", sqlparser.IntDivOp: "/", sqlparser.ModOp: "%"}[x.Operator]
		if op == "" {
			return nil, unsupported("operator " + x.Operator.ToString())
		}
		l, r = c.typed(l, r.Type()), c.typed(r, l.Type())
		lt, rt := l.Type(), r.Type()
		for _, t := range []expr.Type{lt, rt} {
			if t != expr.Unknown && t != expr.Null && !t.IsNumeric() {
				return nil, c.errNear(expr.NewCall(op, expr.Unknown, l, r), "cannot apply '%s' to %s and %s: %s", op, lt, rt, sqlparser.String(e))
			}
		}
		t := expr.BigInt
		switch {
		case lt == expr.Unknown || rt == expr.Unknown:
			t = expr.Unknown
		case lt.IsFloat() || rt.IsFloat():
			t = expr.Double
		}
		return expr.NewCall(op, t, l, r), nil
	case *sqlparser.UnaryExpr:
		v, err := sub(x.Expr)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case sqlparser.UPlusOp:
			return v, nil
		case sqlparser.UMinusOp:
			if lit, ok := v.(*expr.Lit); ok && lit.V.T.IsNumeric() {
				return &expr.Lit{V: negate(lit.V)}, nil
			}
			t := v.Type()
			if t.IsInteger() {
				t = expr.BigInt
			}
			return expr.NewCall("neg", t, v), nil
		}
		return nil, unsupported("operator " + x.Operator.ToString())
	case *sqlparser.CastExpr:
		return c.cast(x.Expr, x.Type, sub)
	case *sqlparser.ConvertExpr:
		return c.cast(x.Expr, x.Type, sub)
	case *sqlparser.CaseExpr:
		return c.caseExpr(x, sub)
	case *sqlparser.FuncExpr:
		return c.function(x, sub)
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{x.Name, x.From}
		if x.To != nil {
			args = append(args, x.To)
		}
		return c.call("substring", args, sub, expr.Unknown)
	case *sqlparser.TrimFuncExpr:
		if x.TrimArg != nil {
			return nil, unsupported("TRIM with characters")
		}
		name := map[sqlparser.TrimFuncType]string{sqlparser.NormalTrimType: "trim", sqlparser.LTrimType: "ltrim", sqlparser.RTrimType: "rtrim"}[x.TrimFuncType]
		switch x.Type {
		case sqlparser.LeadingTrimType:
			name = "ltrim"
		case sqlparser.TrailingTrimType:
			name = "rtrim"
		}
		return c.call(name, []sqlparser.Expr{x.StringArg}, sub, expr.Unknown)
	case *sqlparser.LocateExpr:
		if x.Pos != nil {
			return nil, unsupported("POSITION with a start")
		}
		return c.call("position", []sqlparser.Expr{x.SubStr, x.Str}, sub, expr.Unknown)
	case *sqlparser.ExtractFuncExpr:
		v, err := sub(x.Expr)
		if err != nil {
			return nil, err
		}
		unit := strings.ToUpper(x.IntervalType.ToString())
		return expr.NewCall("extract", expr.Double, &expr.Lit{V: expr.StringValue(unit)}, v), nil
	case *sqlparser.CurTimeFuncExpr:
		name := strings.ToLower(x.Name.String())
		switch name {
		case "current_timestamp", "now", "sysdate", "utc_timestamp":
			return expr.NewCall("current_timestamp", expr.TimestampTZ), nil
		case "localtimestamp", "localtime":
			return expr.NewCall("localtimestamp", expr.Timestamp), nil
		case "current_date", "curdate", "utc_date":
			return expr.NewCall("current_date", expr.Date), nil
		}
		return nil, unsupported(strings.ToUpper(name))
	case *sqlparser.JSONValueExpr:
		if x.EmptyOnResponse != nil || x.ErrorOnResponse != nil {
			return nil, unsupported("JSON_VALUE ON EMPTY/ON ERROR")
		}
		t := expr.Varchar
		if x.ReturningType != nil {
			var err error
			if t, err = c.convertType(x.ReturningType); err != nil {
				return nil, err
			}
		}
		return c.call("json_value", []sqlparser.Expr{x.JSONDoc, x.Path}, sub, t)
	case *sqlparser.RegexpLikeExpr:
		if x.MatchType != nil {
			return nil, unsupported("REGEXP_LIKE with a match type")
		}
		return c.call("regex", []sqlparser.Expr{x.Expr, x.Pattern}, sub, expr.Boolean)
	case *sqlparser.IntroducerExpr:
		return sub(x.Expr)
	case *sqlparser.CollateExpr:
		return sub(x.Expr)
	case sqlparser.AggrFunc:
		return nil, plan.Errorf("aggregate %s is not allowed here", sqlparser.String(x))
	case *sqlparser.Subquery:
		return nil, unsupported("a subquery in an expression (EXISTS and IN (subquery) are supported as conditions ANDed in WHERE)")
	case *sqlparser.ExistsExpr:
		return nil, plan.Errorf("EXISTS and IN (subquery) are supported as conditions ANDed in WHERE, not here: %s", sqlparser.String(x))
	case sqlparser.ValTuple:
		return nil, unsupported("a row value")
	}
	return nil, plan.Errorf("unsupported expression: %s", sqlparser.String(e))
}

func aggName(a plan.AggCall) string { return a.String() }

// exprKey prints an expression with its columns as positions, so that
// two columns of the same name (from two tables of a join) differ.
func exprKey(e expr.Expr) string {
	return expr.Rewrite(e, func(x expr.Expr) expr.Expr {
		if c, ok := x.(*expr.Col); ok {
			return &expr.Col{Index: c.Index, T: c.T}
		}
		return x
	}).String()
}

func negate(v expr.Value) expr.Value {
	if v.T.IsFloat() {
		v.F = -v.F
	} else if v.I != math.MinInt64 {
		v.I = -v.I
	}
	return v
}

func (c *converter) literal(x *sqlparser.Literal) (expr.Expr, error) {
	switch x.Type {
	case sqlparser.StrVal:
		return &expr.Lit{V: expr.StringValue(x.Val)}, nil
	case sqlparser.IntVal:
		n, err := strconv.ParseInt(x.Val, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(x.Val, 64)
			if ferr != nil {
				return nil, c.errAt(x.Val, "number %s is out of range", x.Val)
			}
			return &expr.Lit{V: expr.Value{T: expr.Decimal, F: f}}, nil
		}
		return &expr.Lit{V: expr.BigIntValue(n)}, nil
	case sqlparser.DecimalVal:
		f, err := strconv.ParseFloat(x.Val, 64)
		if err != nil {
			return nil, c.errAt(x.Val, "invalid number %s", x.Val)
		}
		return &expr.Lit{V: expr.Value{T: expr.Decimal, F: f}}, nil
	case sqlparser.FloatVal:
		f, err := strconv.ParseFloat(x.Val, 64)
		if err != nil {
			return nil, c.errAt(x.Val, "invalid number %s", x.Val)
		}
		return &expr.Lit{V: expr.DoubleValue(f)}, nil
	case sqlparser.DateVal, sqlparser.TimeVal, sqlparser.TimestampVal:
		t := map[sqlparser.ValType]expr.Type{sqlparser.DateVal: expr.Date, sqlparser.TimeVal: expr.Time, sqlparser.TimestampVal: expr.Timestamp}[x.Type]
		v, err := expr.Cast(expr.StringValue(x.Val), t)
		if err != nil {
			return nil, c.errAt(x.Val, "%v", err)
		}
		return &expr.Lit{V: v}, nil
	}
	return nil, unsupported("this literal (" + x.Val + ")")
}

func (c *converter) boolArg(sub func(sqlparser.Expr) (expr.Expr, error), e sqlparser.Expr) (expr.Expr, error) {
	x, err := sub(e)
	if err != nil {
		return nil, err
	}
	x = c.typed(x, expr.Boolean)
	if t := x.Type(); t != expr.Boolean && t != expr.Unknown && t != expr.Null {
		return nil, c.errNear(x, "BOOLEAN operand expected, not %s: %s", t, sqlparser.String(e))
	}
	return x, nil
}

func (c *converter) logical(op string, sub func(sqlparser.Expr) (expr.Expr, error), l, r sqlparser.Expr) (expr.Expr, error) {
	a, err := c.boolArg(sub, l)
	if err != nil {
		return nil, err
	}
	b, err := c.boolArg(sub, r)
	if err != nil {
		return nil, err
	}
	var args []expr.Expr
	for _, x := range []expr.Expr{a, b} {
		if call, ok := x.(*expr.Call); ok && call.Op == op {
			args = append(args, call.Args...)
		} else {
			args = append(args, x)
		}
	}
	return &expr.Call{Op: op, Args: args, T: expr.Boolean}, nil
}

func (c *converter) comparison(x *sqlparser.ComparisonExpr, sub func(sqlparser.Expr) (expr.Expr, error)) (expr.Expr, error) {
	l, err := sub(x.Left)
	if err != nil {
		return nil, err
	}
	not := func(e expr.Expr) expr.Expr { return expr.NewCall("not", expr.Boolean, e) }
	switch x.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		tuple, ok := x.Right.(sqlparser.ValTuple)
		if !ok {
			return nil, plan.Errorf("EXISTS and IN (subquery) are supported as conditions ANDed in WHERE, not here: %s", sqlparser.String(x))
		}
		args := []expr.Expr{l}
		for _, v := range tuple {
			e, err := sub(v)
			if err != nil {
				return nil, err
			}
			_, e, err = c.compatible("IN", l, e, x)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		in := expr.NewCall("in", expr.Boolean, args...)
		if x.Operator == sqlparser.NotInOp {
			return not(in), nil
		}
		return in, nil
	case sqlparser.LikeOp, sqlparser.NotLikeOp, sqlparser.RegexpOp, sqlparser.NotRegexpOp:
		r, err := sub(x.Right)
		if err != nil {
			return nil, err
		}
		r = c.typed(r, expr.Varchar)
		if t := r.Type(); t != expr.Varchar && t != expr.Unknown && t != expr.Null {
			return nil, plan.Errorf("pattern must be VARCHAR, not %s", t)
		}
		if t := l.Type(); t != expr.Varchar && t != expr.Unknown && t != expr.Null && t != expr.JSON {
			return nil, c.errNear(l, "cannot apply LIKE to %s: %s", t, sqlparser.String(x))
		}
		op := "like"
		if x.Operator == sqlparser.RegexpOp || x.Operator == sqlparser.NotRegexpOp {
			op = "regex"
		}
		args := []expr.Expr{l, r}
		if x.Escape != nil {
			esc, err := sub(x.Escape)
			if err != nil {
				return nil, err
			}
			args = append(args, esc)
		}
		m := expr.NewCall(op, expr.Boolean, args...)
		if _, err := expr.Compile(m); err != nil {
			return nil, plan.Errorf("%v", err)
		}
		if x.Operator == sqlparser.NotLikeOp || x.Operator == sqlparser.NotRegexpOp {
			return not(m), nil
		}
		return m, nil
	case sqlparser.NullSafeEqualOp:
		return nil, unsupported("<=>")
	}
	r, err := sub(x.Right)
	if err != nil {
		return nil, err
	}
	op := map[sqlparser.ComparisonExprOperator]string{sqlparser.EqualOp: "=", sqlparser.NotEqualOp: "<>", sqlparser.LessThanOp: "<",
		sqlparser.LessEqualOp: "<=", sqlparser.GreaterThanOp: ">", sqlparser.GreaterEqualOp: ">="}[x.Operator]
	if l, r, err = c.compatible(op, l, r, x); err != nil {
		return nil, err
	}
	return expr.NewCall(op, expr.Boolean, l, r), nil
}

func (c *converter) cast(e sqlparser.Expr, ct *sqlparser.ConvertType, sub func(sqlparser.Expr) (expr.Expr, error)) (expr.Expr, error) {
	v, err := sub(e)
	if err != nil {
		return nil, err
	}
	t, err := c.convertType(ct)
	if err != nil {
		return nil, err
	}
	if !expr.CanCast(v.Type(), t) {
		return nil, c.errNear(v, "cannot cast %s to %s", v.Type(), t)
	}
	return expr.NewCall("cast", t, v), nil
}

func (c *converter) caseExpr(x *sqlparser.CaseExpr, sub func(sqlparser.Expr) (expr.Expr, error)) (expr.Expr, error) {
	var subject expr.Expr
	if x.Expr != nil {
		var err error
		if subject, err = sub(x.Expr); err != nil {
			return nil, err
		}
	}
	var args []expr.Expr
	t := expr.Null
	unify := func(v expr.Expr) error {
		vt := v.Type()
		switch {
		case vt == expr.Null:
		case t == expr.Null:
			t = vt
		case t == vt || vt == expr.Unknown:
		case t.IsNumeric() && vt.IsNumeric():
			if t.IsFloat() || vt.IsFloat() {
				t = expr.Double
			} else {
				t = expr.BigInt
			}
		case t == expr.Unknown:
		default:
			return plan.Errorf("CASE branches have types %s and %s", t, vt)
		}
		return nil
	}
	for _, w := range x.Whens {
		cond, err := sub(w.Cond)
		if err != nil {
			return nil, err
		}
		if subject != nil {
			l, r, err := c.compatible("=", subject, cond, x)
			if err != nil {
				return nil, err
			}
			cond = expr.NewCall("=", expr.Boolean, l, r)
		}
		val, err := sub(w.Val)
		if err != nil {
			return nil, err
		}
		if err := unify(val); err != nil {
			return nil, err
		}
		args = append(args, cond, val)
	}
	if x.Else != nil {
		val, err := sub(x.Else)
		if err != nil {
			return nil, err
		}
		if err := unify(val); err != nil {
			return nil, err
		}
		args = append(args, val)
	}
	if t == expr.Null {
		t = expr.Unknown
	}
	return &expr.Call{Op: "case", Args: args, T: t}, nil
}

func (c *converter) function(x *sqlparser.FuncExpr, sub func(sqlparser.Expr) (expr.Expr, error)) (expr.Expr, error) {
	if !x.Qualifier.IsEmpty() {
		return nil, c.errAt(x.Name.String(), "unknown function %s.%s", x.Qualifier.String(), x.Name.String())
	}
	name := strings.ToLower(x.Name.String())
	if a, ok := funcAliases[name]; ok {
		name = a
	}
	switch name {
	case "ilike", "regexp_like":
		if len(x.Exprs) != 2 {
			return nil, plan.Errorf("%s takes 2 arguments", strings.ToUpper(name))
		}
		op := "ilike"
		if name == "regexp_like" {
			op = "regex"
		}
		return c.call(op, x.Exprs, sub, expr.Boolean)
	}
	return c.call(name, x.Exprs, sub, expr.Unknown)
}

// call converts a function call, checking the name and argument count.
func (c *converter) call(name string, asts []sqlparser.Expr, sub func(sqlparser.Expr) (expr.Expr, error), declared expr.Type) (expr.Expr, error) {
	args := make([]expr.Expr, len(asts))
	types := make([]expr.Type, len(asts))
	for i, a := range asts {
		e, err := sub(a)
		if err != nil {
			return nil, err
		}
		args[i], types[i] = e, e.Type()
	}
	var t expr.Type
	switch name {
	case "ilike", "regex":
		t = expr.Boolean
	case "coalesce", "nullif":
		if len(args) == 0 {
			return nil, plan.Errorf("%s needs arguments", strings.ToUpper(name))
		}
		t, _ = expr.FuncResult(name, types, declared)
		for i := range args {
			args[i] = c.typed(args[i], t)
		}
	default:
		min, max, ok := expr.FuncArity(name)
		if !ok {
			return nil, c.errAt(name, "unknown function %s", strings.ToUpper(name))
		}
		if len(args) < min || (max >= 0 && len(args) > max) {
			return nil, c.errAt(name, "%s takes %d to %d arguments, not %d", strings.ToUpper(name), min, max, len(args))
		}
		t, _ = expr.FuncResult(name, types, declared)
	}
	call := &expr.Call{Op: name, Args: args, T: t}
	if _, err := expr.Compile(call); err != nil {
		return nil, plan.Errorf("%v", err)
	}
	return call, nil
}
