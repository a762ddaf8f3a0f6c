package expr

import "bytes"

// Cond is a compiled condition: true when the condition is TRUE (false
// for FALSE and NULL), which is all a filter needs.
type Cond func(r *Row) bool

type cmpCode uint8

const (
	cmpEQ cmpCode = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
)

var cmpCodes = map[string]cmpCode{"=": cmpEQ, "<>": cmpNE, "<": cmpLT, "<=": cmpLE, ">": cmpGT, ">=": cmpGE}

// flipped is the operator with its operands swapped.
var flipped = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func (c cmpCode) test(x int) bool {
	switch c {
	case cmpEQ:
		return x == 0
	case cmpNE:
		return x != 0
	case cmpLT:
		return x < 0
	case cmpLE:
		return x <= 0
	case cmpGT:
		return x > 0
	}
	return x >= 0
}

// likeCond gives col LIKE 'pattern' and NOT (col LIKE 'pattern') direct
// code, the pattern compiled once (a NULL or non-string value is not TRUE
// either way), or returns nil for a pattern that does not compile, which
// then fails at run time.
func likeCond(c *Call) Cond {
	negate := false
	if c.Op == "not" {
		inner, ok := c.Args[0].(*Call)
		if !ok || inner.Op != "like" {
			return nil
		}
		c, negate = inner, true
	}
	if len(c.Args) != 2 {
		return nil
	}
	col, ok1 := c.Args[0].(*Col)
	lit, ok2 := c.Args[1].(*Lit)
	if !ok1 || !ok2 || lit.V.T != Varchar || (col.T != Varchar && col.T != JSON) {
		return nil
	}
	lp, err := compileLike(lit.V.B, '\\', false)
	if err != nil {
		return nil
	}
	whole := Expr(c)
	if negate {
		whole = NewCall("not", Boolean, c)
	}
	general, err := Compile(whole)
	if err != nil {
		return nil
	}
	i := col.Index
	return func(r *Row) bool {
		v := &r.Cols[i]
		switch {
		case v.T == Varchar || v.T == JSON:
			matched := lp.match(r.Env, v.B)
			if r.Env != nil && r.Env.Err != nil {
				return false // cancelled: the scan reports the context's error
			}
			return matched != negate
		case v.IsNull():
			return false // neither LIKE nor NOT LIKE is TRUE
		}
		return Truth(general(r)) // lists and other values: the general rules
	}
}

// CompileCond compiles a condition for filtering. AND, OR and comparisons
// of a column with a constant or parameter get direct code; anything else
// evaluates the expression and tests it for TRUE.
func CompileCond(e Expr) (Cond, error) {
	if c, ok := e.(*Call); ok {
		switch c.Op {
		case "and", "or":
			parts := make([]Cond, len(c.Args))
			for i, a := range c.Args {
				p, err := CompileCond(a)
				if err != nil {
					return nil, err
				}
				parts[i] = p
			}
			if c.Op == "and" {
				if len(parts) == 2 {
					a, b := parts[0], parts[1]
					return func(r *Row) bool { return a(r) && b(r) }, nil
				}
				return func(r *Row) bool {
					for _, p := range parts {
						if !p(r) {
							return false
						}
					}
					return true
				}, nil
			}
			return func(r *Row) bool {
				for _, p := range parts {
					if p(r) {
						return true
					}
				}
				return false
			}, nil
		case "like", "not":
			if f := likeCond(c); f != nil {
				return f, nil
			}
		case "=", "<>", "<", "<=", ">", ">=":
			if len(c.Args) == 2 {
				if f := compareCond(c.Op, c.Args[0], c.Args[1]); f != nil {
					return f, nil
				}
				if f := compareCond(flipped[c.Op], c.Args[1], c.Args[0]); f != nil {
					return f, nil
				}
			}
		case "is_null", "is_not_null":
			if col, ok := c.Args[0].(*Col); ok && len(c.Args) == 1 {
				i, want := col.Index, c.Op == "is_null"
				return func(r *Row) bool { return r.Cols[i].IsNull() == want }, nil
			}
		}
	}
	f, err := Compile(e)
	if err != nil {
		return nil, err
	}
	return func(r *Row) bool { return Truth(f(r)) }, nil
}

// compareCond compiles column OP constant (literal or parameter), or nil.
func compareCond(op string, left, right Expr) Cond {
	col, ok := left.(*Col)
	if !ok {
		return nil
	}
	i, code := col.Index, cmpCodes[op]
	var attr *operand
	if name, ok := attributeOf(col, right); ok {
		attr = &operand{attr: name}
	}
	switch k := right.(type) {
	case *Lit:
		lit := k.V
		if lit.IsNull() {
			return func(*Row) bool { return false }
		}
		if attr != nil {
			return func(r *Row) bool { return compareAttrValues(r, attr, op, code, &r.Cols[i], &lit) }
		}
		return constCompare(op, code, i, func(*Row) *Value { return &lit })
	case *Param:
		idx, t := k.Index, k.T
		return func(r *Row) bool {
			if idx >= len(r.Env.Params) {
				r.Env.Fail(evalErr("parameter %d has no value", idx+1))
				return false
			}
			p := &r.Env.Params[idx] // read in place: no copy per row
			if t != Unknown && p.T != t && !p.IsNull() {
				c, err := Cast(*p, t)
				if err != nil {
					r.Env.Fail(err)
					return false
				}
				p = &c
			}
			if attr != nil {
				return compareAttrValues(r, attr, op, code, &r.Cols[i], p)
			}
			return compareValues(op, code, &r.Cols[i], p)
		}
	}
	return nil
}

func constCompare(op string, code cmpCode, i int, konst func(*Row) *Value) Cond {
	return func(r *Row) bool { return compareValues(op, code, &r.Cols[i], konst(r)) }
}

// compareAttrValues is compareValues for an attribute of unknown type:
// values of the same kind compare directly, others through the
// attribute's conversion of the constant.
func compareAttrValues(r *Row, attr *operand, op string, code cmpCode, v, k *Value) bool {
	switch {
	case v.T == Null || v.T == Unknown || k.T == Null:
		return false
	case (v.T == Varchar || v.T == JSON) && k.T == Varchar, v.T.IsNumeric() && k.T.IsNumeric():
		return compareValues(op, code, v, k)
	}
	return Truth(attr.compare(r, op, *v, *k))
}

// compareValues applies a comparison to two values in place.
func compareValues(op string, code cmpCode, v, k *Value) bool {
	{
		switch {
		case v.T == Null || v.T == Unknown || k.T == Null:
			return false
		case (v.T == Varchar || v.T == JSON) && k.T == Varchar:
			if code == cmpEQ {
				return bytes.Equal(v.B, k.B)
			}
			if code == cmpNE {
				return !bytes.Equal(v.B, k.B)
			}
			return code.test(bytes.Compare(v.B, k.B))
		case v.T.IsInteger() && k.T.IsInteger():
			return code.test(cmpInt(v.I, k.I))
		case v.T.IsNumeric() && k.T.IsNumeric():
			return code.test(cmpFloat(v.Float(), k.Float()))
		}
		return Truth(CompareOp(op, *v, *k))
	}
}
