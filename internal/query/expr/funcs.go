package expr

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atolldb/atoll/pkg/serialization"
)

type function struct {
	min, max int
	// result returns the static result type for the argument types.
	result func(args []Type, declared Type) Type
	build  func(c *Call, a []Fn) (Fn, error)
}

func fixed(t Type) func([]Type, Type) Type { return func([]Type, Type) Type { return t } }

func sameAsFirst(args []Type, _ Type) Type {
	if len(args) == 0 {
		return Unknown
	}
	if args[0].IsInteger() {
		return BigInt
	}
	return args[0]
}

func numericResult(args []Type, _ Type) Type {
	for _, t := range args {
		if t.IsFloat() {
			return Double
		}
		if t == Unknown {
			return Unknown
		}
	}
	return BigInt
}

// unary builds a NULL-propagating function of one argument.
func unary(fn func(r *Row, v Value) Value) func(*Call, []Fn) (Fn, error) {
	return func(_ *Call, a []Fn) (Fn, error) {
		x := a[0]
		return func(r *Row) Value {
			v := x(r)
			if v.IsNull() {
				return NullValue
			}
			return fn(r, v)
		}, nil
	}
}

// nary builds a NULL-propagating function of its evaluated arguments.
func nary(fn func(r *Row, vs []Value) Value) func(*Call, []Fn) (Fn, error) {
	return func(_ *Call, a []Fn) (Fn, error) {
		return func(r *Row) Value {
			vs := make([]Value, len(a))
			for i, f := range a {
				vs[i] = f(r)
				if vs[i].IsNull() {
					return NullValue
				}
			}
			return fn(r, vs)
		}, nil
	}
}

func mathFn(f func(float64) float64) func(*Call, []Fn) (Fn, error) {
	return unary(func(r *Row, v Value) Value {
		if !v.T.IsNumeric() {
			r.Env.Fail(evalErr("numeric argument expected, not %s", v.T))
			return NullValue
		}
		return DoubleValue(f(v.Float()))
	})
}

func str(r *Row, v Value) ([]byte, bool) {
	if v.T == Varchar || v.T == JSON {
		return v.B, true
	}
	if v.T == Object {
		r.Env.Fail(evalErr("string argument expected, not OBJECT"))
		return nil, false
	}
	return []byte(v.String()), true
}

var functions map[string]function

func init() {
	functions = map[string]function{
		"upper": {1, 1, fixed(Varchar), unary(func(r *Row, v Value) Value {
			s, ok := str(r, v)
			if !ok {
				return NullValue
			}
			return BytesString(bytes.ToUpper(s))
		})},
		"lower": {1, 1, fixed(Varchar), unary(func(r *Row, v Value) Value {
			s, ok := str(r, v)
			if !ok {
				return NullValue
			}
			return BytesString(bytes.ToLower(s))
		})},
		"length": {1, 1, fixed(Integer), unary(func(r *Row, v Value) Value {
			s, ok := str(r, v)
			if !ok {
				return NullValue
			}
			return IntValue(Integer, int64(utf8.RuneCount(s)))
		})},
		"trim":  {1, 1, fixed(Varchar), unary(trimFn(bytes.TrimSpace))},
		"ltrim": {1, 1, fixed(Varchar), unary(trimFn(func(b []byte) []byte { return bytes.TrimLeftFunc(b, unicode.IsSpace) }))},
		"rtrim": {1, 1, fixed(Varchar), unary(trimFn(func(b []byte) []byte { return bytes.TrimRightFunc(b, unicode.IsSpace) }))},
		"reverse": {1, 1, fixed(Varchar), unary(func(r *Row, v Value) Value {
			s, ok := str(r, v)
			if !ok {
				return NullValue
			}
			rs := []rune(string(s))
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
			return StringValue(string(rs))
		})},
		"initcap": {1, 1, fixed(Varchar), unary(func(r *Row, v Value) Value {
			s, ok := str(r, v)
			if !ok {
				return NullValue
			}
			out := []rune(strings.ToLower(string(s)))
			start := true
			for i, c := range out {
				if unicode.IsLetter(c) || unicode.IsDigit(c) {
					if start {
						out[i] = unicode.ToUpper(c)
					}
					start = false
				} else {
					start = true
				}
			}
			return StringValue(string(out))
		})},
		"ascii": {1, 1, fixed(Integer), unary(func(r *Row, v Value) Value {
			s, ok := str(r, v)
			if !ok || len(s) == 0 {
				return IntValue(Integer, 0)
			}
			c, _ := utf8.DecodeRune(s)
			return IntValue(Integer, int64(c))
		})},
		"concat": {1, -1, fixed(Varchar), nary(func(r *Row, vs []Value) Value {
			var b []byte
			for _, v := range vs {
				s, ok := str(r, v)
				if !ok {
					return NullValue
				}
				b = append(b, s...)
			}
			return BytesString(b)
		})},
		"substring": {2, 3, fixed(Varchar), nary(func(r *Row, vs []Value) Value {
			s, ok := str(r, vs[0])
			if !ok {
				return NullValue
			}
			rs := []rune(string(s))
			start := vs[1].I
			if !vs[1].T.IsInteger() {
				start = int64(vs[1].Float())
			}
			end := int64(len(rs)) + 1
			if len(vs) == 3 {
				n := vs[2].I
				if !vs[2].T.IsInteger() {
					n = int64(vs[2].Float())
				}
				if n < 0 {
					r.Env.Fail(evalErr("negative substring length %d", n))
					return NullValue
				}
				end = start + n
			}
			if start < 1 {
				start = 1
			}
			if end > int64(len(rs))+1 {
				end = int64(len(rs)) + 1
			}
			if start >= end {
				return StringValue("")
			}
			return StringValue(string(rs[start-1 : end-1]))
		})},
		"replace": {3, 3, fixed(Varchar), nary(func(r *Row, vs []Value) Value {
			s, ok1 := str(r, vs[0])
			o, ok2 := str(r, vs[1])
			n, ok3 := str(r, vs[2])
			if !ok1 || !ok2 || !ok3 {
				return NullValue
			}
			if len(o) == 0 {
				return BytesString(s)
			}
			return BytesString(bytes.ReplaceAll(s, o, n))
		})},
		"position": {2, 2, fixed(Integer), nary(func(r *Row, vs []Value) Value {
			sub, ok1 := str(r, vs[0])
			s, ok2 := str(r, vs[1])
			if !ok1 || !ok2 {
				return NullValue
			}
			i := bytes.Index(s, sub)
			if i < 0 {
				return IntValue(Integer, 0)
			}
			return IntValue(Integer, int64(utf8.RuneCount(s[:i]))+1)
		})},
		"abs": {1, 1, sameAsFirst, unary(func(r *Row, v Value) Value {
			switch {
			case v.T.IsInteger():
				if v.I == math.MinInt64 {
					r.Env.Fail(evalErr("BIGINT overflow in ABS"))
					return NullValue
				}
				return BigIntValue(abs64(v.I))
			case v.T.IsFloat():
				return Value{T: v.T, F: math.Abs(v.F)}
			}
			r.Env.Fail(evalErr("numeric argument expected, not %s", v.T))
			return NullValue
		})},
		"sign": {1, 1, sameAsFirst, unary(func(r *Row, v Value) Value {
			switch {
			case v.T.IsInteger():
				return BigIntValue(int64(cmpInt(v.I, 0)))
			case v.T.IsFloat():
				return Value{T: v.T, F: float64(cmpFloat(v.F, 0))}
			}
			r.Env.Fail(evalErr("numeric argument expected, not %s", v.T))
			return NullValue
		})},
		"ceil":  {1, 1, sameAsFirst, unary(roundFn(math.Ceil))},
		"floor": {1, 1, sameAsFirst, unary(roundFn(math.Floor))},
		"round": {1, 2, sameAsFirst, nary(func(r *Row, vs []Value) Value {
			v := vs[0]
			d := int64(0)
			if len(vs) == 2 {
				d = vs[1].I
			}
			if v.T.IsInteger() {
				if d >= 0 {
					return BigIntValue(v.I)
				}
				p := math.Pow(10, float64(-d))
				return BigIntValue(int64(roundHalfUp(float64(v.I)/p) * p))
			}
			if !v.T.IsFloat() {
				r.Env.Fail(evalErr("numeric argument expected, not %s", v.T))
				return NullValue
			}
			p := math.Pow(10, float64(d))
			return Value{T: v.T, F: roundHalfUp(v.F*p) / p}
		})},
		"truncate": {1, 2, sameAsFirst, nary(func(r *Row, vs []Value) Value {
			v := vs[0]
			if v.T.IsInteger() {
				return BigIntValue(v.I)
			}
			d := int64(0)
			if len(vs) == 2 {
				d = vs[1].I
			}
			p := math.Pow(10, float64(d))
			return Value{T: v.T, F: math.Trunc(v.F*p) / p}
		})},
		"mod": {2, 2, numericResult, nary(func(r *Row, vs []Value) Value {
			res, err := Arith("%", vs[0], vs[1])
			if err != nil {
				r.Env.Fail(err)
				return NullValue
			}
			return res
		})},
		"power": {2, 2, fixed(Double), nary(func(r *Row, vs []Value) Value {
			return DoubleValue(math.Pow(vs[0].Float(), vs[1].Float()))
		})},
		"sqrt":    {1, 1, fixed(Double), mathFn(math.Sqrt)},
		"exp":     {1, 1, fixed(Double), mathFn(math.Exp)},
		"ln":      {1, 1, fixed(Double), mathFn(math.Log)},
		"log10":   {1, 1, fixed(Double), mathFn(math.Log10)},
		"sin":     {1, 1, fixed(Double), mathFn(math.Sin)},
		"cos":     {1, 1, fixed(Double), mathFn(math.Cos)},
		"tan":     {1, 1, fixed(Double), mathFn(math.Tan)},
		"asin":    {1, 1, fixed(Double), mathFn(math.Asin)},
		"acos":    {1, 1, fixed(Double), mathFn(math.Acos)},
		"atan":    {1, 1, fixed(Double), mathFn(math.Atan)},
		"degrees": {1, 1, fixed(Double), mathFn(func(f float64) float64 { return f * 180 / math.Pi })},
		"radians": {1, 1, fixed(Double), mathFn(func(f float64) float64 { return f * math.Pi / 180 })},
		"atan2": {2, 2, fixed(Double), nary(func(r *Row, vs []Value) Value {
			return DoubleValue(math.Atan2(vs[0].Float(), vs[1].Float()))
		})},
		"pi": {0, 0, fixed(Double), func(*Call, []Fn) (Fn, error) {
			return func(*Row) Value { return DoubleValue(math.Pi) }, nil
		}},
		"rand": {0, 1, fixed(Double), func(*Call, []Fn) (Fn, error) {
			return func(*Row) Value { return DoubleValue(rand.Float64()) }, nil
		}},
		"current_timestamp": {0, 0, fixed(TimestampTZ), func(*Call, []Fn) (Fn, error) {
			return func(r *Row) Value { return Value{T: TimestampTZ, I: r.Env.Now.UnixMicro()} }, nil
		}},
		"localtimestamp": {0, 0, fixed(Timestamp), func(*Call, []Fn) (Fn, error) {
			return func(r *Row) Value { return Value{T: Timestamp, I: r.Env.Now.UTC().UnixMicro()} }, nil
		}},
		"current_date": {0, 0, fixed(Date), func(*Call, []Fn) (Fn, error) {
			return func(r *Row) Value { return Value{T: Date, I: floorDiv(r.Env.Now.Unix(), 86400)} }, nil
		}},
		"extract": {2, 2, fixed(Double), buildExtract},
		"to_epoch_millis": {1, 1, fixed(BigInt), unary(func(r *Row, v Value) Value {
			if !v.T.IsTemporal() {
				r.Env.Fail(evalErr("TO_EPOCH_MILLIS needs a timestamp, not %s", v.T))
				return NullValue
			}
			return BigIntValue(floorDiv(toMicros(v), 1000))
		})},
		"to_timestamp_tz": {1, 1, fixed(TimestampTZ), unary(func(r *Row, v Value) Value {
			if !v.T.IsInteger() {
				r.Env.Fail(evalErr("TO_TIMESTAMP_TZ needs epoch seconds, not %s", v.T))
				return NullValue
			}
			return Value{T: TimestampTZ, I: v.I * 1e6}
		})},
		"json_value": {2, 2, func(_ []Type, d Type) Type { return pick(d, Varchar) }, buildJSONValue},
		"json_query": {2, 2, fixed(JSON), buildJSONQuery},
	}
}

func trimFn(f func([]byte) []byte) func(*Row, Value) Value {
	return func(r *Row, v Value) Value {
		s, ok := str(r, v)
		if !ok {
			return NullValue
		}
		return BytesString(f(s))
	}
}

func roundHalfUp(f float64) float64 {
	if f < 0 {
		return -math.Floor(-f + 0.5)
	}
	return math.Floor(f + 0.5)
}

func roundFn(f func(float64) float64) func(*Row, Value) Value {
	return func(r *Row, v Value) Value {
		switch {
		case v.T.IsInteger():
			return BigIntValue(v.I)
		case v.T.IsFloat():
			return Value{T: v.T, F: f(v.F)}
		}
		r.Env.Fail(evalErr("numeric argument expected, not %s", v.T))
		return NullValue
	}
}

// FuncResult returns the static result type of a function call, and
// whether the function exists.
func FuncResult(name string, args []Type, declared Type) (Type, bool) {
	switch name {
	case "coalesce", "nullif":
		for _, t := range args {
			if t != Null && t != Unknown {
				return t, true
			}
		}
		return Unknown, true
	}
	f, ok := functions[name]
	if !ok {
		return Unknown, false
	}
	return f.result(args, declared), true
}

// FuncArity returns a function's argument count bounds (max -1: any).
func FuncArity(name string) (min, max int, ok bool) {
	f, ok := functions[name]
	return f.min, f.max, ok
}

func buildExtract(c *Call, a []Fn) (Fn, error) {
	unitLit, ok := c.Args[0].(*Lit)
	if !ok {
		return nil, fmt.Errorf("EXTRACT needs a constant unit")
	}
	unit := strings.ToUpper(string(unitLit.V.B))
	x := a[1]
	return func(r *Row) Value {
		v := x(r)
		if v.IsNull() {
			return NullValue
		}
		if !v.T.IsTemporal() {
			r.Env.Fail(evalErr("EXTRACT needs a temporal value, not %s", v.T))
			return NullValue
		}
		t := timeOf(v)
		var n float64
		switch unit {
		case "YEAR":
			n = float64(t.Year())
		case "MONTH":
			n = float64(t.Month())
		case "DAY":
			n = float64(t.Day())
		case "HOUR":
			n = float64(t.Hour())
		case "MINUTE":
			n = float64(t.Minute())
		case "SECOND":
			n = float64(t.Second()) + float64(t.Nanosecond())/1e9
		case "DOW":
			n = float64(t.Weekday())
		case "DOY":
			n = float64(t.YearDay())
		case "QUARTER":
			n = float64((int(t.Month())-1)/3 + 1)
		case "EPOCH":
			n = float64(toMicros(v)) / 1e6
		default:
			r.Env.Fail(evalErr("unknown EXTRACT unit %s", unit))
			return NullValue
		}
		return DoubleValue(n)
	}, nil
}

func buildJSONValue(c *Call, a []Fn) (Fn, error) {
	path, err := constPath(c)
	if err != nil {
		return nil, err
	}
	doc, t := a[0], c.T
	return func(r *Row) Value {
		v := doc(r)
		if v.IsNull() {
			return NullValue
		}
		jv, ok := lookupJSON(r, v, path)
		if !ok {
			return NullValue
		}
		return JSONScalar(r, jv, t)
	}, nil
}

func buildJSONQuery(c *Call, a []Fn) (Fn, error) {
	path, err := constPath(c)
	if err != nil {
		return nil, err
	}
	doc := a[0]
	return func(r *Row) Value {
		v := doc(r)
		if v.IsNull() {
			return NullValue
		}
		jv, ok := lookupJSON(r, v, path)
		if !ok || jv.Kind == serialization.JSONMissing {
			return NullValue
		}
		return Value{T: JSON, B: jv.Raw}
	}, nil
}

func constPath(c *Call) (*serialization.JSONPath, error) {
	lit, ok := c.Args[1].(*Lit)
	if !ok || lit.V.T != Varchar {
		return nil, fmt.Errorf("%s needs a constant path", strings.ToUpper(c.Op))
	}
	return serialization.ParseJSONPath(string(lit.V.B))
}

// JSONDocument returns the JSON text of a value: a JSON or VARCHAR value,
// or an OBJECT holding a serialized HazelcastJsonValue.
func JSONDocument(v Value) ([]byte, bool) {
	switch v.T {
	case JSON, Varchar:
		return v.B, true
	case Object:
		if text, ok, err := serialization.Data(v.B).Text(); err == nil && ok {
			return text, true
		}
	}
	return nil, false
}

func lookupJSON(r *Row, v Value, path *serialization.JSONPath) (serialization.JSONValue, bool) {
	doc, ok := JSONDocument(v)
	if !ok {
		r.Env.Fail(evalErr("JSON value expected, not %s", v.T))
		return serialization.JSONValue{}, false
	}
	jv, err := path.Lookup(doc)
	if err != nil {
		return jv, false
	}
	return jv, true
}

// JSONScalar converts a JSON value found by a path to type t (VARCHAR when
// Unknown). Objects, arrays, null and missing values are NULL.
func JSONScalar(r *Row, jv serialization.JSONValue, t Type) Value {
	var v Value
	switch jv.Kind {
	case serialization.JSONNumber:
		if n, ok := jv.Int64(); ok {
			v = BigIntValue(n)
		} else if f, ok := jv.Float64(); ok {
			v = DoubleValue(f)
		} else {
			return NullValue
		}
	case serialization.JSONString:
		s, ok := jv.Text()
		if !ok {
			return NullValue
		}
		v = StringValue(s)
	case serialization.JSONBool:
		b, _ := jv.Bool()
		v = BoolValue(b)
	default:
		return NullValue
	}
	if t == Unknown || t == v.T {
		return v
	}
	c, err := Cast(v, t)
	if err != nil {
		r.Env.Fail(err)
		return NullValue
	}
	return c
}

// ---- LIKE, ILIKE, REGEX ------------------------------------------------------

func compileMatch(c *Call, a []Fn) (Fn, error) {
	x := a[0]
	escape := byte('\\')
	if len(c.Args) == 3 {
		lit, ok := c.Args[2].(*Lit)
		if !ok || lit.V.T != Varchar || len(lit.V.B) != 1 {
			return nil, fmt.Errorf("ESCAPE must be a constant single character")
		}
		escape = lit.V.B[0]
	}
	build := func(pattern []byte) (matcher, error) {
		if c.Op != "regex" {
			lp, err := compileLike(pattern, escape, c.Op == "ilike")
			if err != nil {
				return nil, err
			}
			return lp.match, nil
		}
		if len(pattern) > MaxLikePattern {
			return nil, fmt.Errorf("the pattern has %d bytes, more than the limit of %d", len(pattern), MaxLikePattern)
		}
		re, err := regexp.Compile(string(pattern))
		if err != nil {
			return nil, err
		}
		return func(_ *Env, b []byte) bool { return re.Match(b) }, nil
	}
	if lit, ok := c.Args[1].(*Lit); ok {
		if lit.V.IsNull() {
			return func(*Row) Value { return NullValue }, nil
		}
		m, err := build(lit.V.B)
		if err != nil {
			return nil, fmt.Errorf("invalid pattern %s: %v", truncate(lit.V.SQLLiteral()), err)
		}
		return func(r *Row) Value { return matchValue(r, x(r), m) }, nil
	}
	p := a[1]
	return func(r *Row) Value {
		pv := p(r)
		if pv.IsNull() {
			return NullValue
		}
		m, err := build(pv.B)
		if err != nil {
			r.Env.Fail(evalErr("invalid pattern '%s': %v", truncate(string(pv.B)), err))
			return NullValue
		}
		return matchValue(r, x(r), m)
	}, nil
}

// matcher matches one text; it may stop early when env's context ends.
type matcher func(env *Env, text []byte) bool

func matchValue(r *Row, v Value, m matcher) Value {
	switch {
	case v.IsNull():
		return NullValue
	case v.T == List:
		for _, e := range v.L.Items {
			if Truth(matchValue(r, e, m)) {
				return BoolValue(true)
			}
		}
		return BoolValue(false)
	case v.T == Varchar || v.T == JSON:
		return BoolValue(m(r.Env, v.B))
	case v.T == Object:
		return NullValue
	}
	return BoolValue(m(r.Env, []byte(v.String())))
}

func timeOf(v Value) timeValue { return timeValue(toMicros(v)) }
