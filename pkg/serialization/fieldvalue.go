package serialization

import (
	"math"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

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

func floatValue(k ValueKind, f float64) FieldValue {
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
	d := readDecimal(&rd)
	return d, v.temporalErr(&rd, ValueDecimal)
}

// Time decodes a TIME value.
func (v FieldValue) Time() (LocalTime, error) {
	rd := wire.NewReader(v.B, 0)
	t := readTime(&rd)
	return t, v.temporalErr(&rd, ValueTime)
}

// Date decodes a DATE value.
func (v FieldValue) Date() (LocalDate, error) {
	rd := wire.NewReader(v.B, 0)
	d := readDate(&rd, v.shortYear)
	return d, v.temporalErr(&rd, ValueDate)
}

// Timestamp decodes a TIMESTAMP value.
func (v FieldValue) Timestamp() (LocalDateTime, error) {
	rd := wire.NewReader(v.B, 0)
	t := readTimestamp(&rd, v.shortYear)
	return t, v.temporalErr(&rd, ValueTimestamp)
}

// TimestampTZ decodes a TIMESTAMP_WITH_TIMEZONE value.
func (v FieldValue) TimestampTZ() (OffsetDateTime, error) {
	rd := wire.NewReader(v.B, 0)
	t := readTimestampTZ(&rd, v.shortYear)
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
