package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"time"
)

// ErrEval is the sentinel of errors raised while evaluating (division by
// zero, overflow, a value that cannot be converted).
var ErrEval = errors.New("evaluation error")

// EvalError is a run-time error of an expression.
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }
func (e *EvalError) Unwrap() error { return ErrEval }

func evalErr(format string, args ...any) error { return &EvalError{Msg: fmt.Sprintf(format, args...)} }

// Env is what an evaluation needs besides the row: parameter values, the
// statement's clock, the query's context, and the first error. An Env is
// used by one goroutine.
type Env struct {
	Params []Value
	Now    time.Time
	Err    error
	// Ctx is the query's context (nil: never interrupted). Evaluations that
	// may run long on one value (LIKE over long text) look at it as they
	// go and stop once it ends; callers that loop over rows look at it
	// between rows (Interrupted).
	Ctx context.Context
}

// Interrupted reports whether the query's context ended; it then records
// the context's error as the evaluation's.
func (e *Env) Interrupted() bool {
	if e.Ctx == nil {
		return false
	}
	select {
	case <-e.Ctx.Done():
		e.Fail(e.Ctx.Err())
		return true
	default:
		return false
	}
}

// Fail records the first error.
func (e *Env) Fail(err error) {
	if e.Err == nil {
		e.Err = err
	}
}

// Row is the input of an evaluation.
type Row struct {
	Cols []Value
	Env  *Env
}

// Fn evaluates a compiled expression over a row. Errors go to row.Env
// (the result is then NULL).
type Fn func(r *Row) Value

// Compile turns an expression into a closure. It fails for unknown
// operators or a wrong number of arguments.
func Compile(e Expr) (Fn, error) {
	switch n := e.(type) {
	case *Col:
		i := n.Index
		return func(r *Row) Value { return r.Cols[i] }, nil
	case *Lit:
		v := n.V
		return func(*Row) Value { return v }, nil
	case *Param:
		i, t := n.Index, n.T
		return func(r *Row) Value {
			if i >= len(r.Env.Params) {
				r.Env.Fail(evalErr("parameter %d has no value", i+1))
				return NullValue
			}
			v := r.Env.Params[i]
			if t != Unknown && v.T != t && !v.IsNull() {
				c, err := Cast(v, t)
				if err != nil {
					r.Env.Fail(err)
					return NullValue
				}
				return c
			}
			return v
		}, nil
	case *Call:
		args := make([]Fn, len(n.Args))
		for i, a := range n.Args {
			f, err := Compile(a)
			if err != nil {
				return nil, err
			}
			args[i] = f
		}
		return compileCall(n, args)
	case nil:
		return nil, errors.New("nil expression")
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

// Eval compiles and evaluates e once (constant folding, tests).
func Eval(e Expr, env *Env) (Value, error) {
	f, err := Compile(e)
	if err != nil {
		return NullValue, err
	}
	if env == nil {
		env = &Env{Now: time.Now()}
	}
	v := f(&Row{Env: env})
	return v, env.Err
}

// Truth evaluates a condition: true only for TRUE.
func Truth(v Value) bool { return v.T == Boolean && v.I != 0 }

func arity(c *Call, min, max int) error {
	if len(c.Args) < min || (max >= 0 && len(c.Args) > max) {
		return fmt.Errorf("%s takes %s arguments, not %d", c.Op, arityText(min, max), len(c.Args))
	}
	return nil
}

func arityText(min, max int) string {
	switch {
	case min == max:
		return strconv.Itoa(min)
	case max < 0:
		return "at least " + strconv.Itoa(min)
	}
	return strconv.Itoa(min) + " to " + strconv.Itoa(max)
}

func compileCall(c *Call, a []Fn) (Fn, error) {
	switch c.Op {
	case "and":
		return func(r *Row) Value {
			null := false
			for _, f := range a {
				v := f(r)
				if v.IsNull() {
					null = true
				} else if v.I == 0 {
					return BoolValue(false)
				}
			}
			if null {
				return NullValue
			}
			return BoolValue(true)
		}, nil
	case "or":
		return func(r *Row) Value {
			null := false
			for _, f := range a {
				v := f(r)
				if v.IsNull() {
					null = true
				} else if v.I != 0 {
					return BoolValue(true)
				}
			}
			if null {
				return NullValue
			}
			return BoolValue(false)
		}, nil
	case "not":
		if err := arity(c, 1, 1); err != nil {
			return nil, err
		}
		x := a[0]
		return func(r *Row) Value {
			v := x(r)
			if v.IsNull() {
				return NullValue
			}
			return BoolValue(v.I == 0)
		}, nil
	case "is_null", "is_not_null", "is_true", "is_false":
		if err := arity(c, 1, 1); err != nil {
			return nil, err
		}
		x, op := a[0], c.Op
		return func(r *Row) Value {
			v := x(r)
			switch op {
			case "is_null":
				return BoolValue(v.IsNull())
			case "is_not_null":
				return BoolValue(!v.IsNull())
			case "is_true":
				return BoolValue(Truth(v))
			}
			return BoolValue(v.T == Boolean && v.I == 0)
		}, nil
	case "=", "<>", "<", "<=", ">", ">=":
		if err := arity(c, 2, 2); err != nil {
			return nil, err
		}
		if attr, ok := attributeOf(c.Args[0], c.Args[1]); ok {
			return compileAttrCompare(c.Op, attr, a[0], a[1]), nil
		}
		return compileCompare(c.Op, a[0], a[1]), nil
	case "+", "-", "*", "/", "%":
		if err := arity(c, 2, 2); err != nil {
			return nil, err
		}
		return compileArith(c.Op, c.T, a[0], a[1]), nil
	case "neg":
		if err := arity(c, 1, 1); err != nil {
			return nil, err
		}
		x, t := a[0], c.T
		return func(r *Row) Value {
			v := x(r)
			switch {
			case v.IsNull():
				return NullValue
			case v.T.IsFloat():
				return Value{T: v.T, F: -v.F}
			case v.T.IsInteger():
				if v.I == math.MinInt64 {
					r.Env.Fail(evalErr("BIGINT overflow in negation"))
					return NullValue
				}
				return Value{T: pick(t, v.T), I: -v.I}
			}
			r.Env.Fail(evalErr("cannot negate %s", v.T))
			return NullValue
		}, nil
	case "between":
		if err := arity(c, 3, 3); err != nil {
			return nil, err
		}
		ge, le := compileCompare(">=", a[0], a[1]), compileCompare("<=", a[0], a[2])
		if attr, ok := attributeOf(c.Args[0], c.Args[1], c.Args[2]); ok {
			ge, le = compileAttrCompare(">=", attr, a[0], a[1]), compileAttrCompare("<=", attr, a[0], a[2])
		}
		return func(r *Row) Value {
			x, y := ge(r), le(r)
			switch {
			case x.T == Boolean && x.I == 0, y.T == Boolean && y.I == 0:
				return BoolValue(false)
			case x.IsNull() || y.IsNull():
				return NullValue
			}
			return BoolValue(true)
		}, nil
	case "in":
		if err := arity(c, 2, -1); err != nil {
			return nil, err
		}
		if attr, ok := attributeOf(c.Args[0], c.Args[1:]...); ok {
			return compileAttrIn(attr, a[0], a[1:]), nil
		}
		return compileIn(c, a), nil
	case "like", "ilike", "regex":
		if err := arity(c, 2, 3); err != nil {
			return nil, err
		}
		return compileMatch(c, a)
	case "case":
		if err := arity(c, 1, -1); err != nil {
			return nil, err
		}
		t := c.T
		return func(r *Row) Value {
			n := len(a)
			for i := 0; i+1 < n; i += 2 {
				if Truth(a[i](r)) {
					return coerce(r, a[i+1](r), t)
				}
			}
			if n%2 == 1 {
				return coerce(r, a[n-1](r), t)
			}
			return NullValue
		}, nil
	case "cast":
		if err := arity(c, 1, 1); err != nil {
			return nil, err
		}
		x, t := a[0], c.T
		return func(r *Row) Value {
			v, err := Cast(x(r), t)
			if err != nil {
				r.Env.Fail(err)
				return NullValue
			}
			return v
		}, nil
	case "coalesce":
		t := c.T
		return func(r *Row) Value {
			for _, f := range a {
				if v := f(r); !v.IsNull() {
					return coerce(r, v, t)
				}
			}
			return NullValue
		}, nil
	case "nullif":
		if err := arity(c, 2, 2); err != nil {
			return nil, err
		}
		return func(r *Row) Value {
			x := a[0](r)
			if Equal(x, a[1](r)) {
				return NullValue
			}
			return x
		}, nil
	}
	if f, ok := functions[c.Op]; ok {
		if err := arity(c, f.min, f.max); err != nil {
			return nil, err
		}
		return f.build(c, a)
	}
	return nil, fmt.Errorf("unknown function %s", c.Op)
}

func pick(static, dynamic Type) Type {
	if static == Unknown {
		return dynamic
	}
	return static
}

// coerce converts a CASE/COALESCE branch to the expression's type.
func coerce(r *Row, v Value, t Type) Value {
	if t == Unknown || v.IsNull() || v.T == t {
		return v
	}
	c, err := Cast(v, t)
	if err != nil {
		r.Env.Fail(err)
		return NullValue
	}
	return c
}

// CompareOp applies a comparison operator to two values (NULL when either
// is NULL or they cannot be compared). A LIST operand matches when any of
// its elements does (Hazelcast's [any]).
func CompareOp(op string, x, y Value) Value {
	if x.T == List {
		null := false
		for _, e := range x.L.Items {
			v := CompareOp(op, e, y)
			if Truth(v) {
				return v
			}
			null = null || v.IsNull()
		}
		if null && len(x.L.Items) == 0 {
			return NullValue
		}
		return BoolValue(false)
	}
	c, ok := Compare(x, y)
	if !ok {
		return NullValue
	}
	switch op {
	case "=":
		return BoolValue(c == 0)
	case "<>":
		return BoolValue(c != 0)
	case "<":
		return BoolValue(c < 0)
	case "<=":
		return BoolValue(c <= 0)
	case ">":
		return BoolValue(c > 0)
	}
	return BoolValue(c >= 0)
}

func compileCompare(op string, x, y Fn) Fn {
	return func(r *Row) Value { return CompareOp(op, x(r), y(r)) }
}

func compileIn(c *Call, a []Fn) Fn {
	x, list := a[0], a[1:]
	// Constant lists of hashable scalars become a set.
	var set map[string]bool
	allConst := true
	for _, e := range c.Args[1:] {
		if _, ok := e.(*Lit); !ok {
			allConst = false
		}
	}
	if allConst && len(list) > 8 {
		set = map[string]bool{}
		for _, e := range c.Args[1:] {
			if k, ok := HashKey(e.(*Lit).V); ok {
				set[k] = true
			} else {
				set = nil
				break
			}
		}
	}
	return func(r *Row) Value {
		v := x(r)
		if v.IsNull() {
			return NullValue
		}
		if v.T == List {
			for _, e := range v.L.Items {
				if inList(r, e, list, set) {
					return BoolValue(true)
				}
			}
			return BoolValue(false)
		}
		return inValue(r, v, list, set)
	}
}

func inList(r *Row, v Value, list []Fn, set map[string]bool) bool {
	return Truth(inValue(r, v, list, set))
}

func inValue(r *Row, v Value, list []Fn, set map[string]bool) Value {
	if set != nil {
		if k, ok := HashKey(v); ok {
			return BoolValue(set[k])
		}
	}
	null := false
	for _, f := range list {
		e := f(r)
		if e.IsNull() {
			null = true
			continue
		}
		if c, ok := Compare(v, e); ok && c == 0 {
			return BoolValue(true)
		}
	}
	if null {
		return NullValue
	}
	return BoolValue(false)
}

// HashKey returns a string that equal values (as Compare sees them) share:
// integral numbers of any type map to the same key. ok is false for values
// that have no such key (NULL, LIST).
func HashKey(v Value) (string, bool) {
	var b [9]byte
	k, ok := AppendHashKey(b[:0], v)
	return string(k), ok
}

// AppendHashKey appends v's HashKey to dst (no allocation for scalars
// when dst has room).
func AppendHashKey(dst []byte, v Value) ([]byte, bool) {
	var b [9]byte
	switch {
	case v.T.IsInteger():
		b[0] = 'n'
		putInt(b[1:], v.I)
		return append(dst, b[:]...), true
	case v.T.IsFloat():
		if v.F == math.Trunc(v.F) && v.F >= -9.2e18 && v.F <= 9.2e18 {
			b[0] = 'n'
			putInt(b[1:], int64(v.F))
			return append(dst, b[:]...), true
		}
		b[0] = 'f'
		putInt(b[1:], int64(math.Float64bits(v.F)))
		return append(dst, b[:]...), true
	case v.T == Boolean:
		if v.I != 0 {
			return append(dst, "bt"...), true
		}
		return append(dst, "bf"...), true
	case v.T == Varchar || v.T == JSON:
		return append(append(dst, 's'), v.B...), true
	case v.T == Object:
		return append(append(dst, 'o'), v.B...), true
	case v.T.IsTemporal():
		b[0] = 't'
		putInt(b[1:], toMicros(v))
		return append(dst, b[:]...), true
	}
	return dst, false
}

func putInt(b []byte, i int64) {
	u := uint64(i)
	for k := 7; k >= 0; k-- {
		b[k] = byte(u)
		u >>= 8
	}
}

func compileArith(op string, t Type, x, y Fn) Fn {
	return func(r *Row) Value {
		v, w := x(r), y(r)
		if v.IsNull() || w.IsNull() {
			return NullValue
		}
		res, err := Arith(op, v, w)
		if err != nil {
			r.Env.Fail(err)
			return NullValue
		}
		if t != Unknown && res.T != t && t.IsNumeric() {
			if c, err := Cast(res, t); err == nil {
				return c
			}
		}
		return res
	}
}

// Arith applies + - * / % to two non-NULL values. Integers stay integers
// (BIGINT, with overflow errors; / truncates); anything with a REAL, DOUBLE
// or DECIMAL operand is a DOUBLE.
func Arith(op string, v, w Value) (Value, error) {
	if v.T == Varchar {
		if n, ok := parseNumber(v.B); ok {
			v = n
		}
	}
	if w.T == Varchar {
		if n, ok := parseNumber(w.B); ok {
			w = n
		}
	}
	if !v.T.IsNumeric() || !w.T.IsNumeric() {
		return NullValue, evalErr("cannot apply %s to %s and %s", op, v.T, w.T)
	}
	if v.T.IsInteger() && w.T.IsInteger() {
		a, b := v.I, w.I
		switch op {
		case "+":
			s := a + b
			if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
				return NullValue, evalErr("BIGINT overflow in %d + %d", a, b)
			}
			return BigIntValue(s), nil
		case "-":
			s := a - b
			if (a >= 0 && b < 0 && s < 0) || (a < 0 && b > 0 && s >= 0) {
				return NullValue, evalErr("BIGINT overflow in %d - %d", a, b)
			}
			return BigIntValue(s), nil
		case "*":
			hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
			neg := (a < 0) != (b < 0)
			if hi != 0 || lo > math.MaxInt64+boolU(neg) || a == math.MinInt64 || b == math.MinInt64 {
				if !(a == 0 || b == 0) {
					return NullValue, evalErr("BIGINT overflow in %d * %d", a, b)
				}
			}
			return BigIntValue(a * b), nil
		case "/":
			if b == 0 {
				return NullValue, evalErr("division by zero")
			}
			if a == math.MinInt64 && b == -1 {
				return NullValue, evalErr("BIGINT overflow in %d / %d", a, b)
			}
			return BigIntValue(a / b), nil
		case "%":
			if b == 0 {
				return NullValue, evalErr("division by zero")
			}
			if b == -1 {
				return BigIntValue(0), nil
			}
			return BigIntValue(a % b), nil
		}
	}
	a, b := v.Float(), w.Float()
	switch op {
	case "+":
		return DoubleValue(a + b), nil
	case "-":
		return DoubleValue(a - b), nil
	case "*":
		return DoubleValue(a * b), nil
	case "/":
		if b == 0 {
			return NullValue, evalErr("division by zero")
		}
		return DoubleValue(a / b), nil
	case "%":
		if b == 0 {
			return NullValue, evalErr("division by zero")
		}
		return DoubleValue(math.Mod(a, b)), nil
	}
	return NullValue, evalErr("unknown operator %s", op)
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
