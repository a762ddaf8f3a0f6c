package core

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// valueKinds maps Compact and Portable field kinds to the kinds of the
// values a FieldReader returns for them.
var valueKinds = [KindCount]ValueKind{
	KindBoolean: ValueBool, KindInt8: ValueInt8, KindChar: ValueChar, KindInt16: ValueInt16,
	KindInt32: ValueInt32, KindInt64: ValueInt64, KindFloat32: ValueFloat32, KindFloat64: ValueFloat64,
	KindString: ValueString, KindDecimal: ValueDecimal, KindTime: ValueTime, KindDate: ValueDate,
	KindTimestamp: ValueTimestamp, KindTimestampWithTimezone: ValueTimestampTZ,
	KindCompact: ValueObject, KindPortable: ValueObject,
	KindNullableBoolean: ValueBool, KindNullableInt8: ValueInt8, KindNullableInt16: ValueInt16,
	KindNullableInt32: ValueInt32, KindNullableInt64: ValueInt64,
	KindNullableFloat32: ValueFloat32, KindNullableFloat64: ValueFloat64,
}

// VarValue reads a value of kind k at rd (see ScalarAt); a value that does
// not fit fails rd.
func VarValue(rd *wire.Reader, k FieldKind, shortYear bool) FieldValue {
	var v FieldValue
	if !ScalarAt(rd.Buf(), rd.Pos(), k, shortYear, &v) {
		rd.Fail(wire.ErrShort)
	}
	return v
}

// ScalarAt reads a value of kind k at b[at], where b ends where the value
// must end: a primitive (plain or nullable), a string (a view of its
// bytes; null for length -1) or a decimal or temporal value (a view of
// the bytes from its start, shortYear for Portable's encoding). Other
// kinds are arrays. It reports false when the value does not fit. It
// writes into v, which a caller on a hot path keeps on its stack.
func ScalarAt(b []byte, at int, k FieldKind, shortYear bool, v *FieldValue) bool {
	if at < 0 || at > len(b) {
		return false
	}
	p := b[at:]
	be := binary.BigEndian
	switch k {
	case KindBoolean, KindNullableBoolean:
		if len(p) < 1 {
			return false
		}
		*v = BoolValue(p[0] != 0)
		return true
	case KindInt8, KindNullableInt8:
		if len(p) < 1 {
			return false
		}
		*v = FieldValue{Kind: ValueInt8, I: int64(int8(p[0]))}
		return true
	case KindChar:
		if len(p) < 2 {
			return false
		}
		*v = FieldValue{Kind: ValueChar, I: int64(be.Uint16(p))}
		return true
	case KindInt16, KindNullableInt16:
		if len(p) < 2 {
			return false
		}
		*v = FieldValue{Kind: ValueInt16, I: int64(int16(be.Uint16(p)))}
		return true
	case KindInt32, KindNullableInt32:
		if len(p) < 4 {
			return false
		}
		*v = FieldValue{Kind: ValueInt32, I: int64(int32(be.Uint32(p)))}
		return true
	case KindInt64, KindNullableInt64:
		if len(p) < 8 {
			return false
		}
		*v = FieldValue{Kind: ValueInt64, I: int64(be.Uint64(p))}
		return true
	case KindFloat32, KindNullableFloat32:
		if len(p) < 4 {
			return false
		}
		*v = FloatValue(ValueFloat32, float64(math.Float32frombits(be.Uint32(p))))
		return true
	case KindFloat64, KindNullableFloat64:
		if len(p) < 8 {
			return false
		}
		*v = FloatValue(ValueFloat64, math.Float64frombits(be.Uint64(p)))
		return true
	case KindString:
		if len(p) < 4 {
			return false
		}
		n := int(int32(be.Uint32(p)))
		if n == -1 {
			*v = FieldValue{}
			return true
		}
		if n < 0 || n > len(p)-4 {
			return false
		}
		*v = FieldValue{Kind: ValueString, B: p[4 : 4+n : 4+n]}
		return true
	case KindDecimal, KindTime, KindDate, KindTimestamp, KindTimestampWithTimezone:
		*v = FieldValue{Kind: valueKinds[k], B: p, shortYear: shortYear}
		return true
	}
	*v = FieldValue{Kind: ValueArray}
	return true
}

// BuiltinValue reads the payload p of a built-in scalar type (at offset at
// of its Data, for errors); ok is false for the other types.
func BuiltinValue(typ int32, p []byte, at int) (v FieldValue, ok bool, err error) {
	be := binary.BigEndian
	switch typ {
	case TypeInt32:
		if len(p) >= 4 {
			return FieldValue{Kind: ValueInt32, I: int64(int32(be.Uint32(p)))}, true, nil
		}
	case TypeInt64:
		if len(p) >= 8 {
			return FieldValue{Kind: ValueInt64, I: int64(be.Uint64(p))}, true, nil
		}
	case TypeInt16:
		if len(p) >= 2 {
			return FieldValue{Kind: ValueInt16, I: int64(int16(be.Uint16(p)))}, true, nil
		}
	case TypeByte:
		if len(p) >= 1 {
			return FieldValue{Kind: ValueInt8, I: int64(int8(p[0]))}, true, nil
		}
	case TypeBool:
		if len(p) >= 1 {
			return BoolValue(p[0] != 0), true, nil
		}
	case TypeFloat32:
		if len(p) >= 4 {
			return FloatValue(ValueFloat32, float64(math.Float32frombits(be.Uint32(p)))), true, nil
		}
	case TypeFloat64:
		if len(p) >= 8 {
			return FloatValue(ValueFloat64, math.Float64frombits(be.Uint64(p))), true, nil
		}
	case TypeChar:
		if len(p) >= 2 {
			return FieldValue{Kind: ValueChar, I: int64(be.Uint16(p))}, true, nil
		}
	case TypeString, TypeJSON:
		b, nonNull, err := StringPayload(p, at)
		if err != nil || !nonNull {
			return FieldValue{}, true, err
		}
		if typ == TypeJSON {
			return FieldValue{Kind: ValueJSON, B: b}, true, nil
		}
		return FieldValue{Kind: ValueString, B: b}, true, nil
	case TypeNull:
		return FieldValue{}, true, nil
	default:
		return FieldValue{}, false, nil
	}
	return FieldValue{}, true, Malformed("builtin", at, "truncated value of type id "+strconv.Itoa(int(typ)))
}

// StringPayload reads a string's length and UTF-8 bytes from p (at offset
// at of its Data); a null string reports ok=false.
func StringPayload(p []byte, at int) (text []byte, ok bool, err error) {
	if len(p) < 4 {
		return nil, false, Malformed("builtin", at, "truncated string")
	}
	n := int(int32(binary.BigEndian.Uint32(p)))
	if n < 0 {
		return nil, false, nil
	}
	if n > len(p)-4 {
		return nil, false, Malformed("builtin", at, "truncated string")
	}
	return p[4 : 4+n], true, nil
}

func BoolValue(b bool) FieldValue {
	if b {
		return FieldValue{Kind: ValueBool, I: 1}
	}
	return FieldValue{Kind: ValueBool}
}

// ValueKind is the kind of a FieldValue.
type ValueKind uint8

// Value kinds. The zero kind is ValueNull: a null field, an absent field, an
// index past the end of an array, or a path that selects nothing.
const (
	ValueNull ValueKind = iota
	ValueBool
	ValueInt8
	ValueInt16
	ValueInt32
	ValueInt64
	ValueFloat32
	ValueFloat64
	ValueChar // a UTF-16 code unit, in I
	ValueString
	ValueDecimal
	ValueTime
	ValueDate
	ValueTimestamp
	ValueTimestampTZ
	ValueJSON   // JSON text: a JSON document, or an object or array in one
	ValueObject // a nested object, as a Data of its own
	ValueArray  // an array read as one value (read an item, or every item)
)

var valueKindNames = [...]string{"NULL", "BOOLEAN", "INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "CHAR",
	"STRING", "DECIMAL", "TIME", "DATE", "TIMESTAMP", "TIMESTAMP_WITH_TIMEZONE", "JSON", "OBJECT", "ARRAY"}

// String returns the kind's name, e.g. "INT32".
func (k ValueKind) String() string {
	if int(k) < len(valueKindNames) {
		return valueKindNames[k]
	}
	return "ValueKind(" + strconv.Itoa(int(k)) + ")"
}

// FieldValue is one value a FieldReader read in place. Scalars are held in
// I: booleans as 0 or 1, integers and chars as themselves, floats as the
// bits of a float64 (read them with Float); strings, JSON text, decimals
// and temporal values are views of the serialized bytes in B (the latter
// decoded by the methods below), valid while those bytes are; a nested
// object is a Data of its own in B. It is five words, so that returning
// one costs no more than copying registers.
type FieldValue struct {
	Kind ValueKind
	// shortYear: a temporal value in Portable's encoding, whose year is a
	// short (Compact and IDS write an int).
	shortYear bool
	I         int64
	B         []byte
}

func FloatValue(k ValueKind, f float64) FieldValue {
	return FieldValue{Kind: k, I: int64(math.Float64bits(f))}
}

// IsNull reports whether the value is null.
func (v FieldValue) IsNull() bool { return v.Kind == ValueNull }

// Bool returns a boolean value.
func (v FieldValue) Bool() bool { return v.I != 0 }

// Float returns a FLOAT32 or FLOAT64 value.
func (v FieldValue) Float() float64 { return math.Float64frombits(uint64(v.I)) }

// Decimal decodes a DECIMAL value.
func (v FieldValue) Decimal() (Decimal, error) {
	rd := wire.NewReader(v.B, 0)
	d := ReadDecimal(&rd)
	return d, v.temporalErr(&rd, ValueDecimal)
}

// Time decodes a TIME value.
func (v FieldValue) Time() (LocalTime, error) {
	rd := wire.NewReader(v.B, 0)
	t := ReadTime(&rd)
	return t, v.temporalErr(&rd, ValueTime)
}

// Date decodes a DATE value.
func (v FieldValue) Date() (LocalDate, error) {
	rd := wire.NewReader(v.B, 0)
	d := ReadDate(&rd, v.shortYear)
	return d, v.temporalErr(&rd, ValueDate)
}

// Timestamp decodes a TIMESTAMP value.
func (v FieldValue) Timestamp() (LocalDateTime, error) {
	rd := wire.NewReader(v.B, 0)
	t := ReadTimestamp(&rd, v.shortYear)
	return t, v.temporalErr(&rd, ValueTimestamp)
}

// TimestampTZ decodes a TIMESTAMP_WITH_TIMEZONE value.
func (v FieldValue) TimestampTZ() (OffsetDateTime, error) {
	rd := wire.NewReader(v.B, 0)
	t := ReadTimestampTZ(&rd, v.shortYear)
	return t, v.temporalErr(&rd, ValueTimestampTZ)
}

func (v FieldValue) temporalErr(rd *wire.Reader, want ValueKind) error {
	if v.Kind != want {
		return &FieldError{Field: "", Reason: "is a " + v.Kind.String() + " value, not " + want.String()}
	}
	if rd.Err() != nil {
		return &DecodeError{Format: "data", Offset: rd.Pos(), Reason: want.String() + " value is truncated", Err: rd.Err()}
	}
	return nil
}
