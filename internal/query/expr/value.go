// Package expr is the expression language both query front ends produce:
// typed values, expression trees (column references, literals, parameters
// and calls of operators and functions), and their compilation into
// closures that evaluate a row without allocating for scalar results.
//
// SQL's three-valued logic applies: comparisons with NULL are NULL, AND/OR
// follow Kleene's rules, and a filter keeps a row only when its condition is
// TRUE. The Predicate API's two-valued logic is expressed with IS TRUE where
// it differs (under NOT).
package expr

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Type is a SQL type. The numbering matches the API's SqlType.
type Type uint8

// Types. Unknown is the type of a Predicate API attribute before it is read:
// the value's own type decides at run time.
const (
	Unknown Type = iota
	Null
	Boolean
	TinyInt
	SmallInt
	Integer
	BigInt
	Decimal
	Real
	Double
	Varchar
	Date
	Time
	Timestamp
	TimestampTZ
	Object
	JSON
	// List is the run-time type of a multi-valued attribute (arr[any]).
	List
)

var typeNames = [...]string{"UNKNOWN", "NULL", "BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "DECIMAL",
	"REAL", "DOUBLE", "VARCHAR", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "OBJECT", "JSON", "LIST"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// IsInteger reports TINYINT, SMALLINT, INTEGER and BIGINT.
func (t Type) IsInteger() bool { return t >= TinyInt && t <= BigInt }

// IsNumeric reports the integer types, DECIMAL, REAL and DOUBLE.
func (t Type) IsNumeric() bool { return t >= TinyInt && t <= Double }

// IsFloat reports REAL and DOUBLE (and DECIMAL, which is computed as a double).
func (t Type) IsFloat() bool { return t == Real || t == Double || t == Decimal }

// IsString reports VARCHAR.
func (t Type) IsString() bool { return t == Varchar }

// IsTemporal reports DATE, TIME and the timestamps.
func (t Type) IsTemporal() bool { return t >= Date && t <= TimestampTZ }

// ParseType parses a type name as Hazelcast's SQL writes it.
func ParseType(s string) (Type, bool) {
	switch normalizeSpaces(s) {
	case "BOOLEAN", "BOOL":
		return Boolean, true
	case "TINYINT":
		return TinyInt, true
	case "SMALLINT":
		return SmallInt, true
	case "INT", "INTEGER":
		return Integer, true
	case "BIGINT":
		return BigInt, true
	case "DECIMAL", "NUMERIC":
		return Decimal, true
	case "REAL", "FLOAT":
		return Real, true
	case "DOUBLE", "DOUBLE PRECISION":
		return Double, true
	case "VARCHAR", "CHAR", "CHARACTER VARYING", "TEXT", "STRING":
		return Varchar, true
	case "DATE":
		return Date, true
	case "TIME":
		return Time, true
	case "TIMESTAMP":
		return Timestamp, true
	case "TIMESTAMP WITH TIME ZONE":
		return TimestampTZ, true
	case "OBJECT":
		return Object, true
	case "JSON":
		return JSON, true
	}
	return Unknown, false
}

func normalizeSpaces(s string) string {
	var b []byte
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			space = len(b) > 0
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// Value is one value. T says which field holds it: BOOLEAN (0/1), the
// integer types, DATE (days since 1970-01-01), TIME (nanoseconds of the day)
// and the timestamps (microseconds since the epoch) use I; REAL, DOUBLE and
// DECIMAL use F; VARCHAR, JSON and OBJECT (serialized Data) use B; LIST uses L.
// B may alias the bytes a value was read from: values read during a scan are
// valid only while the row is.
type Value struct {
	T Type
	I int64
	F float64
	B []byte
	L *Values
}

// Values holds the values of a multi-valued attribute.
type Values struct{ Items []Value }

// Constructors.
var NullValue = Value{T: Null}

func BoolValue(b bool) Value {
	if b {
		return Value{T: Boolean, I: 1}
	}
	return Value{T: Boolean}
}
func IntValue(t Type, i int64) Value     { return Value{T: t, I: i} }
func BigIntValue(i int64) Value          { return Value{T: BigInt, I: i} }
func DoubleValue(f float64) Value        { return Value{T: Double, F: f} }
func StringValue(s string) Value         { return Value{T: Varchar, B: []byte(s)} }
func BytesString(b []byte) Value         { return Value{T: Varchar, B: b} }
func ObjectValue(data []byte) Value      { return Value{T: Object, B: data} }
func TypedFloat(t Type, f float64) Value { return Value{T: t, F: f} }

// IsNull reports a NULL value.
func (v Value) IsNull() bool { return v.T == Null || v.T == Unknown }

// Bool returns a BOOLEAN value's truth.
func (v Value) Bool() bool { return v.I != 0 }

// Float returns a numeric value as a float64.
func (v Value) Float() float64 {
	if v.T.IsFloat() {
		return v.F
	}
	return float64(v.I)
}

// Clone returns a value that owns its bytes.
func (v Value) Clone() Value {
	if v.B != nil {
		v.B = bytes.Clone(v.B)
	}
	if v.L != nil {
		l := make([]Value, len(v.L.Items))
		for i, e := range v.L.Items {
			l[i] = e.Clone()
		}
		v.L = &Values{Items: l}
	}
	return v
}

// Equal reports whether two values are equal as SQL compares them (NULLs
// are not equal to anything).
func Equal(a, b Value) bool {
	c, ok := Compare(a, b)
	return ok && c == 0
}

// Compare orders two non-NULL values: numbers numerically across types,
// strings by bytes, booleans false first, temporal values by instant. ok is
// false when either is NULL or the values cannot be compared; a string and a
// number compare when the string parses as a number.
func Compare(a, b Value) (int, bool) {
	if a.IsNull() || b.IsNull() {
		return 0, false
	}
	switch {
	case a.T.IsInteger() && b.T.IsInteger(), a.T == Boolean && b.T == Boolean, a.T == b.T && a.T.IsTemporal():
		return cmpInt(a.I, b.I), true
	case a.T.IsNumeric() && b.T.IsNumeric():
		return cmpFloat(a.Float(), b.Float()), true
	case (a.T == Varchar || a.T == JSON) && (b.T == Varchar || b.T == JSON):
		return bytes.Compare(a.B, b.B), true
	case a.T == Object && b.T == Object:
		return bytes.Compare(a.B, b.B), true
	case a.T == Varchar && b.T.IsNumeric():
		n, ok := parseNumber(a.B)
		if !ok {
			return 0, false
		}
		return Compare(n, b)
	case a.T.IsNumeric() && b.T == Varchar:
		n, ok := parseNumber(b.B)
		if !ok {
			return 0, false
		}
		return Compare(a, n)
	case a.T == Varchar && b.T == Boolean:
		v, ok := parseBool(a.B)
		return cmpInt(v.I, b.I), ok
	case a.T == Boolean && b.T == Varchar:
		v, ok := parseBool(b.B)
		return cmpInt(a.I, v.I), ok
	case a.T.IsTemporal() && b.T.IsTemporal():
		x, y := toMicros(a), toMicros(b)
		return cmpInt(x, y), true
	}
	return 0, false
}

func toMicros(v Value) int64 {
	switch v.T {
	case Date:
		return v.I * 86400e6
	case Time:
		return v.I / 1000
	}
	return v.I
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case math.IsNaN(a):
		if math.IsNaN(b) {
			return 0
		}
		return 1
	}
	return -1
}

func parseNumber(b []byte) (Value, bool) {
	s := string(bytes.TrimSpace(b))
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return BigIntValue(i), true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return DoubleValue(f), true
	}
	return Value{}, false
}

func parseBool(b []byte) (Value, bool) {
	switch string(bytes.ToLower(bytes.TrimSpace(b))) {
	case "true":
		return BoolValue(true), true
	case "false":
		return BoolValue(false), true
	}
	return Value{}, false
}

// OrderCompare is Compare extended to a total order for sorting: NULL
// first, then values of incomparable types by type.
func OrderCompare(a, b Value) int {
	an, bn := a.IsNull(), b.IsNull()
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	if c, ok := Compare(a, b); ok {
		return c
	}
	return cmpInt(int64(a.T), int64(b.T))
}

const epochDate = "1970-01-01"

// String formats a value as SQL prints it (NULL as "NULL").
func (v Value) String() string {
	switch v.T {
	case Null, Unknown:
		return "NULL"
	case Boolean:
		if v.I != 0 {
			return "TRUE"
		}
		return "FALSE"
	case TinyInt, SmallInt, Integer, BigInt:
		return strconv.FormatInt(v.I, 10)
	case Real:
		return strconv.FormatFloat(v.F, 'g', -1, 32)
	case Double, Decimal:
		return FormatFloat(v.F)
	case Varchar, JSON:
		return string(v.B)
	case Object:
		return fmt.Sprintf("<object %d bytes>", len(v.B))
	case Date:
		return time.Unix(v.I*86400, 0).UTC().Format("2006-01-02")
	case Time:
		return time.Unix(0, v.I).UTC().Format("15:04:05.999999999")
	case Timestamp:
		return time.UnixMicro(v.I).UTC().Format("2006-01-02T15:04:05.999999")
	case TimestampTZ:
		return time.UnixMicro(v.I).UTC().Format("2006-01-02T15:04:05.999999Z07:00")
	case List:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range v.L.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.String())
		}
		b.WriteByte(']')
		return b.String()
	}
	return "?"
}

// FormatFloat prints a double the shortest way that reads back exactly,
// with a ".0" for integral values.
func FormatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "Infinity"
	} else if math.IsInf(f, -1) {
		return "-Infinity"
	} else if math.IsNaN(f) {
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		s = strconv.FormatFloat(f, 'f', 1, 64)
	}
	return s
}

// SQLLiteral formats a value as a SQL literal (strings quoted).
func (v Value) SQLLiteral() string {
	switch v.T {
	case Varchar:
		return "'" + string(bytes.ReplaceAll(v.B, []byte("'"), []byte("''"))) + "'"
	case Date, Time, Timestamp, TimestampTZ:
		return v.T.String() + " '" + v.String() + "'"
	}
	return v.String()
}
