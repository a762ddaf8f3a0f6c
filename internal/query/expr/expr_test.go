package expr

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lv(v Value) Expr                        { return &Lit{V: v} }
func sv(s string) Expr                       { return lv(StringValue(s)) }
func num(i int64) Expr                       { return lv(BigIntValue(i)) }
func dbl(f float64) Expr                     { return lv(DoubleValue(f)) }
func null() Expr                             { return lv(NullValue) }
func call(op string, t Type, a ...Expr) Expr { return NewCall(op, t, a...) }

func TestEval(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call("+", BigInt, num(2), num(3)), "5"},
		{call("/", BigInt, num(7), num(2)), "3"},
		{call("/", Double, dbl(7), num(2)), "3.5"},
		{call("%", BigInt, num(-7), num(3)), "-1"},
		{call("=", Boolean, num(1), dbl(1)), "TRUE"},
		{call("<", Boolean, sv("a"), sv("b")), "TRUE"},
		{call("=", Boolean, num(1), null()), "NULL"},
		{call("and", Boolean, lv(BoolValue(false)), null()), "FALSE"},
		{call("or", Boolean, lv(BoolValue(true)), null()), "TRUE"},
		{call("or", Boolean, lv(BoolValue(false)), null()), "NULL"},
		{call("not", Boolean, null()), "NULL"},
		{call("is_true", Boolean, null()), "FALSE"},
		{call("between", Boolean, num(5), num(1), num(5)), "TRUE"},
		{call("in", Boolean, num(2), num(1), num(2)), "TRUE"},
		{call("in", Boolean, num(3), num(1), null()), "NULL"},
		{call("like", Boolean, sv("Hello"), sv("H%o")), "TRUE"},
		{call("like", Boolean, sv("Hello"), sv("h%")), "FALSE"},
		{call("ilike", Boolean, sv("Hello"), sv("h%")), "TRUE"},
		{call("like", Boolean, sv("a_b"), sv("a\\_b")), "TRUE"},
		{call("regex", Boolean, sv("abc123"), sv("[0-9]+")), "TRUE"},
		{call("case", BigInt, lv(BoolValue(false)), num(1), call(">", Boolean, num(2), num(1)), num(2), num(3)), "2"},
		{call("cast", Integer, sv(" 42 ")), "42"},
		{call("cast", Varchar, dbl(2.5)), "2.5"},
		{call("cast", BigInt, dbl(-2.7)), "-2"},
		{call("cast", Boolean, sv("true")), "TRUE"},
		{call("cast", Date, sv("2024-02-29")), "2024-02-29"},
		{call("coalesce", Varchar, null(), sv("x")), "x"},
		{call("nullif", BigInt, num(1), num(1)), "NULL"},
		{call("upper", Varchar, sv("abc")), "ABC"},
		{call("length", Integer, sv("héllo")), "5"},
		{call("substring", Varchar, sv("hello"), num(2), num(3)), "ell"},
		{call("trim", Varchar, sv("  x ")), "x"},
		{call("concat", Varchar, sv("a"), num(1), dbl(1.5)), "a11.5"},
		{call("replace", Varchar, sv("aXbX"), sv("X"), sv("-")), "a-b-"},
		{call("position", Integer, sv("l"), sv("hello")), "3"},
		{call("abs", BigInt, num(-3)), "3"},
		{call("round", Double, dbl(2.345), num(2)), "2.35"},
		{call("floor", Double, dbl(-1.5)), "-2.0"},
		{call("power", Double, num(2), num(10)), "1024.0"},
		{call("json_value", BigInt, sv(`{"a":{"b":[1,2,3]}}`), sv("$.a.b[1]")), "2"},
		{call("json_query", JSON, sv(`{"a":{"b":[1,2]}}`), sv("$.a")), `{"b":[1,2]}`},
		{call("extract", Double, sv("YEAR"), lv(Value{T: Date, I: 19000})), "2022.0"},
	} {
		v, err := Eval(tc.e, &Env{Now: time.Unix(0, 0)})
		if assert.NoError(t, err, "%s", tc.e) {
			assert.Equal(t, tc.want, v.String(), "%s", tc.e)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, e := range []Expr{
		call("/", BigInt, num(1), num(0)),
		call("+", BigInt, num(1<<62), num(1<<62)),
		call("*", BigInt, num(1<<40), num(1<<40)),
		call("cast", Integer, sv("x")),
		call("cast", TinyInt, num(300)),
		call("substring", Varchar, sv("x"), num(1), num(-1)),
	} {
		_, err := Eval(e, nil)
		assert.ErrorIs(t, err, ErrEval, "%s", e)
	}
	_, err := Compile(call("frob", Varchar))
	assert.Error(t, err, "an unknown function")
}

func TestCond(t *testing.T) {
	row := &Row{Cols: []Value{BigIntValue(5), StringValue("metin"), NullValue}, Env: &Env{Params: []Value{BigIntValue(5)}}}
	for _, tc := range []struct {
		e    Expr
		want bool
	}{
		{call("=", Boolean, &Col{Index: 0}, num(5)), true},
		{call("=", Boolean, num(5), &Col{Index: 0}), true},
		{call(">", Boolean, num(6), &Col{Index: 0}), true},
		{call("=", Boolean, &Col{Index: 0}, &Param{Index: 0}), true},
		{call("=", Boolean, &Col{Index: 1}, sv("metin")), true},
		{call("<>", Boolean, &Col{Index: 2}, num(1)), false},
		{call("is_null", Boolean, &Col{Index: 2}), true},
		{call("and", Boolean, call("=", Boolean, &Col{Index: 0}, num(5)), call("<", Boolean, &Col{Index: 1}, sv("z"))), true},
		{call("or", Boolean, call("=", Boolean, &Col{Index: 2}, num(5)), call("=", Boolean, &Col{Index: 0}, dbl(5))), true},
		{call("not", Boolean, call("=", Boolean, &Col{Index: 2}, num(5))), false},
	} {
		c, err := CompileCond(tc.e)
		require.NoError(t, err)
		assert.Equal(t, tc.want, c(row), "%s", tc.e)
	}
}

func TestOrderAndHashKeys(t *testing.T) {
	assert.Negative(t, OrderCompare(NullValue, BigIntValue(-5)), "NULL sorts first")
	assert.Negative(t, OrderCompare(IntValue(Integer, 2), DoubleValue(2.5)), "2 before 2.5")
	a, _ := HashKey(IntValue(Integer, 7))
	b, _ := HashKey(DoubleValue(7))
	assert.Equal(t, a, b, "7 and 7.0 hash alike")
}

// TestLikeAgreesWithRegexp checks the LIKE matcher against the regular
// expression reference on random patterns and strings over a small
// alphabet (so that segments overlap and repeat).
func TestLikeAgreesWithRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	gen := func(alphabet string, n int) []byte {
		b := make([]byte, r.IntN(n+1))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for i := 0; i < 20000; i++ {
		p := gen("ab%%_", 7)
		lp, err := compileLike(p, '\\', false)
		require.NoError(t, err)
		re, err := likeRegexp(p, '\\', false)
		require.NoError(t, err)
		s := gen("ab", 8)
		require.Equal(t, re.Match(s), lp.match(nil, s), "%q LIKE %q: the matcher (actual) against the regular expression (expected)", s, p)
	}
}

// TestLikeCondAgreesWithEval checks the direct code of col LIKE 'p' and
// NOT (col LIKE 'p') against the evaluated expression, NULLs included.
func TestLikeCondAgreesWithEval(t *testing.T) {
	col := &Col{Index: 0, T: Varchar}
	for _, p := range []string{"%special%requests%", "ab%", "%ab", "a%b%c", "", "%", "a_c%", `%\\%%`} {
		for _, neg := range []bool{false, true} {
			var e Expr = NewCall("like", Boolean, col, sv(p))
			if neg {
				e = NewCall("not", Boolean, e)
			}
			cond, err := CompileCond(e)
			require.NoError(t, err)
			fn, err := Compile(e)
			require.NoError(t, err)
			for _, v := range []Value{StringValue("xx special yy requests zz"), StringValue("ab"), StringValue("abc"), StringValue(""), NullValue} {
				r := &Row{Cols: []Value{v}, Env: &Env{}}
				require.Equal(t, Truth(fn(r)), cond(r), "%s on %v: the condition (actual) against the evaluation (expected)", e, v)
			}
		}
	}
}
