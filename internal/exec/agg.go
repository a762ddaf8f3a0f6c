package exec

import (
	"math"
	"math/bits"
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// aggState accumulates one aggregate. Sums stay exact integers until a
// floating value arrives (or they overflow, which is an error for integer
// results, as in Hazelcast).
type aggState struct {
	fn     string
	arg    expr.Expr // the argument (or min_by/max_by's compared one), named in errors
	kind   aggKind
	t      expr.Type
	count  int64
	isum   int64
	fsum   float64
	float  bool
	val    expr.Value // min/max, or min_by/max_by's compared value
	res    expr.Value // min_by/max_by's result
	has    bool
	failed error
}

// aggKind is the aggregate function, for a switch without string compares.
type aggKind uint8

const (
	aggCount aggKind = iota
	aggSum
	aggAvg
	aggMin
	aggMax
	aggMinBy
	aggMaxBy
)

var aggKinds = map[string]aggKind{"count": aggCount, "sum": aggSum, "avg": aggAvg, "min": aggMin, "max": aggMax, "min_by": aggMinBy, "max_by": aggMaxBy}

func newAggState(a plan.AggCall) aggState {
	s := aggState{fn: a.Func, kind: aggKinds[a.Func], t: a.T, arg: a.Arg}
	if a.By != nil {
		s.arg = a.By
	}
	return s
}

func newAggStates(aggs []plan.AggCall) []aggState {
	s := make([]aggState, len(aggs))
	for i, a := range aggs {
		s[i] = newAggState(a)
	}
	return s
}

// add accumulates a raw value (by is min_by/max_by's compared value). A
// LIST (a multi-valued attribute, arr[any]) adds each of its elements, as
// Hazelcast's aggregators do. Values an aggregate cannot take (a string
// to sum, an object to order) fail it, naming the argument and the type.
func (s *aggState) add(v, by *expr.Value) {
	if v.T == expr.List && s.kind != aggMinBy && s.kind != aggMaxBy {
		for i := range v.L.Items {
			s.add(&v.L.Items[i], by)
		}
		return
	}
	switch s.kind {
	case aggCount:
		if !v.IsNull() {
			s.count++
		}
	case aggSum, aggAvg:
		if v.T == expr.Null || v.T == expr.Unknown {
			return
		}
		if v.T.IsInteger() && s.addInt(v.I) {
			return
		}
		if !v.T.IsNumeric() {
			s.fail("only numbers can be summed or averaged", v.T)
			return
		}
		s.addNumber(*v, 1)
	case aggMin, aggMax:
		if v.IsNull() {
			return
		}
		if v.T == expr.Object {
			s.fail("objects cannot be compared on a member (numbers, strings, booleans and dates can)", v.T)
			return
		}
		if !s.has || s.better(*v, s.val) {
			s.val, s.has = v.Clone(), true
		}
	case aggMinBy, aggMaxBy:
		if by == nil || by.IsNull() {
			return
		}
		if by.T == expr.Object {
			s.fail("objects cannot be compared on a member (numbers, strings, booleans and dates can)", by.T)
			return
		}
		if !s.has || s.better(*by, s.val) {
			s.val, s.res, s.has = by.Clone(), v.Clone(), true
		}
	}
}

// fail records the first value the aggregate cannot take.
func (s *aggState) fail(why string, found expr.Type) {
	if s.failed == nil {
		name := "*"
		if s.arg != nil {
			name = s.arg.String()
		}
		s.failed = evalErrf("%s of %s: found a value of type %s; %s", strings.ToUpper(s.fn), name, found, why)
	}
}

// countStar counts a row for COUNT(*).
func (s *aggState) countStar() { s.count++ }

func (s *aggState) better(v, cur expr.Value) bool {
	c, ok := expr.Compare(v, cur)
	if !ok {
		return false
	}
	if s.kind == aggMin || s.kind == aggMinBy {
		return c < 0
	}
	return c > 0
}

// addInt adds an integer to an exact SUM or AVG and reports whether it
// did; false (the sum is floating, or would overflow) leaves it to add.
func (s *aggState) addInt(i int64) bool {
	if s.float {
		return false
	}
	r := s.isum + i
	if (s.isum >= 0) == (i >= 0) && (r >= 0) != (s.isum >= 0) {
		return false
	}
	s.isum = r
	s.count++
	return true
}

func (s *aggState) addNumber(v expr.Value, n int64) {
	switch {
	case v.T.IsInteger() && !s.float:
		sum, carry := bits.Add64(uint64(s.isum), uint64(v.I), 0)
		_ = carry
		r := int64(sum)
		if (s.isum >= 0 && v.I >= 0 && r < 0) || (s.isum < 0 && v.I < 0 && r >= 0) {
			if s.t.IsInteger() {
				s.failed = evalErrf("BIGINT overflow in SUM")
			}
			s.float, s.fsum = true, float64(s.isum)+float64(v.I)
		} else {
			s.isum = r
		}
	case v.T.IsNumeric():
		if !s.float {
			s.float, s.fsum = true, float64(s.isum)
		}
		s.fsum += v.Float()
	default:
		s.fail("only numbers can be summed or averaged", v.T)
		return
	}
	s.count += n
}

// partial appends the state's partial columns (see plan.PartialTypes).
func (s *aggState) partial(dst []expr.Value) []expr.Value {
	switch s.fn {
	case "count":
		return append(dst, expr.BigIntValue(s.count))
	case "sum", "avg":
		var v expr.Value
		switch {
		case s.count == 0:
			v = expr.NullValue
		case s.float:
			v = expr.DoubleValue(s.fsum)
		default:
			v = expr.BigIntValue(s.isum)
		}
		return append(dst, v, expr.BigIntValue(s.count))
	case "min_by", "max_by":
		if !s.has {
			return append(dst, expr.NullValue, expr.NullValue)
		}
		return append(dst, s.val, s.res)
	}
	if !s.has {
		return append(dst, expr.NullValue)
	}
	return append(dst, s.val)
}

// merge folds partial columns (as partial wrote them) into the state.
func (s *aggState) merge(cols []expr.Value) {
	switch s.fn {
	case "count":
		s.count += cols[0].I
	case "sum", "avg":
		if cols[0].IsNull() {
			return
		}
		s.addNumber(cols[0], 0)
		s.count += cols[1].I
	case "min", "max":
		if !cols[0].IsNull() && (!s.has || s.better(cols[0], s.val)) {
			s.val, s.has = cols[0].Clone(), true
		}
	case "min_by", "max_by":
		if !cols[0].IsNull() && (!s.has || s.better(cols[0], s.val)) {
			s.val, s.res, s.has = cols[0].Clone(), cols[1].Clone(), true
		}
	}
}

// final returns the aggregate's value.
func (s *aggState) final() (expr.Value, error) {
	if s.failed != nil {
		return expr.NullValue, s.failed
	}
	switch s.fn {
	case "count":
		return expr.BigIntValue(s.count), nil
	case "sum":
		if s.count == 0 {
			return expr.NullValue, nil
		}
		if s.float {
			if s.t.IsInteger() {
				if s.fsum >= math.MaxInt64 || s.fsum < math.MinInt64 {
					return expr.NullValue, evalErrf("BIGINT overflow in SUM")
				}
				return expr.BigIntValue(int64(s.fsum)), nil
			}
			return expr.DoubleValue(s.fsum), nil
		}
		if s.t.IsFloat() {
			return expr.Value{T: s.t, F: float64(s.isum)}, nil
		}
		return expr.BigIntValue(s.isum), nil
	case "avg":
		if s.count == 0 {
			return expr.NullValue, nil
		}
		if s.float {
			return expr.DoubleValue(s.fsum / float64(s.count)), nil
		}
		return expr.DoubleValue(float64(s.isum) / float64(s.count)), nil
	case "min_by", "max_by":
		if !s.has {
			return expr.NullValue, nil
		}
		return s.res, nil
	}
	if !s.has {
		return expr.NullValue, nil
	}
	if s.t != expr.Unknown && s.val.T != s.t {
		return expr.Cast(s.val, s.t)
	}
	return s.val, nil
}

func evalErrf(format string, args ...any) error {
	return &expr.EvalError{Msg: sprintf(format, args...)}
}
