package expr

// Predicate API attributes
//
// A column of type Unknown is an attribute of the Predicate API: only the
// data knows its type. Hazelcast's predicates convert the value they
// compare an attribute with to the type of the attribute's value, and fail
// when it cannot be converted (Integer.parseInt("abc")). Comparisons of such
// a column with a constant (a literal or a parameter) do the same here:
// numbers compare with numbers, and text that spells a number, a boolean,
// a date or a time is read as one; anything else ('abc' for an INTEGER, 5
// for a VARCHAR) fails the query with a conversion error that names the
// attribute, the value and the type, as the SQL twin of the predicate fails
// with a type error.

// attributeOf returns the name of e when it is an attribute of unknown
// type compared with constants.
func attributeOf(e Expr, others ...Expr) (string, bool) {
	c, ok := e.(*Col)
	if !ok || c.T != Unknown {
		return "", false
	}
	for _, o := range others {
		switch o.(type) {
		case *Lit, *Param:
		default:
			return "", false
		}
	}
	return c.String(), true
}

// operand converts one constant to the types of the attribute values it
// meets, caching the conversion per type (the constant does not change
// during a statement). It is used by one goroutine, like the closure that
// owns it.
type operand struct {
	attr string
	conv *[List + 1]conversion // by type, made at the first conversion
}

// conversion is the constant converted to one type, or why it cannot be.
type conversion struct {
	done bool
	val  Value
	err  error
}

// to returns k converted to type t.
func (o *operand) to(t Type, k Value) (Value, error) {
	if k.T == t || t > List {
		return k, nil
	}
	if o.conv == nil {
		o.conv = new([List + 1]conversion)
	}
	c := &o.conv[t]
	if !c.done {
		c.val, c.err = convertOperand(t, k)
		if c.err != nil {
			c.err = evalErr("predicate on attribute %s: cannot convert %s (%s) to %s, the type of its values", o.attr, truncate(k.SQLLiteral()), k.T, t)
		}
		c.done = true
	}
	return c.val, c.err
}

// convertOperand converts k for a comparison with values of type t, or
// fails. Numbers of any type compare with each other as they are.
func convertOperand(t Type, k Value) (Value, error) {
	switch {
	case t.IsNumeric():
		switch {
		case k.T.IsNumeric():
			return k, nil
		case k.T == Varchar:
			if n, ok := parseNumber(k.B); ok {
				return n, nil
			}
		}
	case t == Varchar || t == JSON:
		if k.T == Varchar || k.T == JSON {
			return k, nil
		}
	case t == Boolean:
		if k.T == Varchar {
			if b, ok := parseBool(k.B); ok {
				return b, nil
			}
		}
	case t.IsTemporal():
		switch {
		case k.T.IsTemporal():
			return k, nil
		case k.T == Varchar:
			return Cast(k, t)
		}
	}
	return NullValue, evalErr("cannot convert")
}

// compare is CompareOp for an attribute value v and a constant k.
func (o *operand) compare(r *Row, op string, v, k Value) Value {
	if v.T == List {
		null := false
		for _, e := range v.L.Items {
			x := o.compare(r, op, e, k)
			if Truth(x) {
				return x
			}
			null = null || x.IsNull()
		}
		if null && len(v.L.Items) == 0 {
			return NullValue
		}
		return BoolValue(false)
	}
	if v.IsNull() || k.IsNull() {
		return NullValue
	}
	c, err := o.to(v.T, k)
	if err != nil {
		r.Env.Fail(err)
		return NullValue
	}
	return CompareOp(op, v, c)
}

// compileAttrCompare compiles attribute OP constant.
func compileAttrCompare(op, attr string, x, y Fn) Fn {
	o := &operand{attr: attr}
	return func(r *Row) Value { return o.compare(r, op, x(r), y(r)) }
}

// compileAttrIn compiles attribute IN (constants).
func compileAttrIn(attr string, x Fn, list []Fn) Fn {
	ops := make([]operand, len(list))
	for i := range ops {
		ops[i].attr = attr
	}
	var in func(r *Row, v Value) Value
	in = func(r *Row, v Value) Value {
		if v.T == List {
			for _, e := range v.L.Items {
				if Truth(in(r, e)) {
					return BoolValue(true)
				}
			}
			return BoolValue(false)
		}
		null := false
		for i, f := range list {
			x := ops[i].compare(r, "=", v, f(r))
			if Truth(x) {
				return x
			}
			null = null || x.IsNull()
		}
		if null {
			return NullValue
		}
		return BoolValue(false)
	}
	return func(r *Row) Value {
		v := x(r)
		if v.IsNull() {
			return NullValue
		}
		return in(r, v)
	}
}
