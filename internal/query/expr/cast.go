package expr

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// FitsInteger reports whether i is in the range of the integer type t
// (false for any other type).
func FitsInteger(i int64, t Type) bool {
	switch t {
	case TinyInt:
		return i >= math.MinInt8 && i <= math.MaxInt8
	case SmallInt:
		return i >= math.MinInt16 && i <= math.MaxInt16
	case Integer:
		return i >= math.MinInt32 && i <= math.MaxInt32
	}
	return t == BigInt
}

// CanCast reports whether values of type from can be cast to type to at
// all (the value may still fail, as 'abc' to INTEGER does).
func CanCast(from, to Type) bool {
	if from == to || from == Unknown || from == Null || to == Unknown || to == Object {
		return true
	}
	switch to {
	case Varchar:
		return true
	case Boolean:
		return from == Varchar || from.IsNumeric() || from == JSON
	case JSON:
		return from == Varchar || from.IsNumeric() || from == Boolean
	}
	if to.IsNumeric() {
		return from.IsNumeric() || from == Varchar || from == Boolean || from == JSON
	}
	if to.IsTemporal() {
		return from == Varchar || from.IsTemporal()
	}
	return false
}

// Cast converts a value to type t: numbers between numeric types (integer
// targets check their range; fractions are truncated toward zero),
// anything to VARCHAR, strings to numbers, booleans and temporal types.
func Cast(v Value, t Type) (Value, error) {
	if v.IsNull() {
		return NullValue, nil
	}
	if v.T == t || t == Unknown || t == Object {
		return v, nil
	}
	switch {
	case t.IsInteger():
		var i int64
		switch {
		case v.T.IsInteger() || v.T == Boolean:
			i = v.I
		case v.T.IsFloat():
			f := math.Trunc(v.F)
			if math.IsNaN(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
				return NullValue, evalErr("value %s is out of range for %s", FormatFloat(v.F), t)
			}
			i = int64(f)
		case v.T == Varchar || v.T == JSON:
			s := strings.TrimSpace(string(v.B))
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				f, ferr := strconv.ParseFloat(s, 64)
				if ferr != nil {
					return NullValue, evalErr("cannot convert '%s' to %s", truncate(s), t)
				}
				return Cast(DoubleValue(f), t)
			}
			i = n
		default:
			return NullValue, evalErr("cannot convert %s to %s", v.T, t)
		}
		if !FitsInteger(i, t) {
			return NullValue, evalErr("value %d is out of range for %s", i, t)
		}
		return Value{T: t, I: i}, nil
	case t.IsFloat():
		var f float64
		switch {
		case v.T.IsNumeric() || v.T == Boolean:
			f = v.Float()
		case v.T == Varchar || v.T == JSON:
			var err error
			f, err = strconv.ParseFloat(strings.TrimSpace(string(v.B)), 64)
			if err != nil {
				return NullValue, evalErr("cannot convert '%s' to %s", truncate(string(v.B)), t)
			}
		default:
			return NullValue, evalErr("cannot convert %s to %s", v.T, t)
		}
		if t == Real {
			f = float64(float32(f))
		}
		return Value{T: t, F: f}, nil
	case t == Varchar:
		if v.T == Object {
			return NullValue, evalErr("cannot convert OBJECT to VARCHAR")
		}
		return Value{T: Varchar, B: []byte(v.String())}, nil
	case t == JSON:
		switch {
		case v.T == Varchar:
			return Value{T: JSON, B: v.B}, nil
		case v.T.IsNumeric() || v.T == Boolean:
			return Value{T: JSON, B: []byte(strings.ToLower(v.String()))}, nil
		}
	case t == Boolean:
		switch {
		case v.T.IsNumeric():
			return BoolValue(v.Float() != 0), nil
		case v.T == Varchar || v.T == JSON:
			if b, ok := parseBool(v.B); ok {
				return b, nil
			}
			return NullValue, evalErr("cannot convert '%s' to BOOLEAN", truncate(string(v.B)))
		}
	case t.IsTemporal():
		if v.T == Varchar {
			return parseTemporal(string(bytes.TrimSpace(v.B)), t)
		}
		if v.T.IsTemporal() {
			us := toMicros(v)
			switch t {
			case Date:
				return Value{T: Date, I: floorDiv(us, 86400e6)}, nil
			case Time:
				return Value{T: Time, I: (us - floorDiv(us, 86400e6)*86400e6) * 1000}, nil
			}
			return Value{T: t, I: us}, nil
		}
	}
	return NullValue, evalErr("cannot convert %s to %s", v.T, t)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

var timestampLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02",
}

func parseTemporal(s string, t Type) (Value, error) {
	switch t {
	case Date:
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return NullValue, evalErr("cannot convert '%s' to DATE", truncate(s))
		}
		return Value{T: Date, I: d.Unix() / 86400}, nil
	case Time:
		for _, l := range []string{"15:04:05.999999999", "15:04"} {
			if d, err := time.Parse(l, s); err == nil {
				return Value{T: Time, I: int64(d.Hour())*3600e9 + int64(d.Minute())*60e9 + int64(d.Second())*1e9 + int64(d.Nanosecond())}, nil
			}
		}
		return NullValue, evalErr("cannot convert '%s' to TIME", truncate(s))
	}
	for _, l := range timestampLayouts {
		if d, err := time.Parse(l, s); err == nil {
			return Value{T: t, I: d.UnixMicro()}, nil
		}
	}
	return NullValue, evalErr("cannot convert '%s' to %s", truncate(s), t)
}
