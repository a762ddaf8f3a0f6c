package core

// ValueWriter is one field of an object being written, as the value switch
// WriteValue sees it: a method per Go shape of the values that fields of
// some kind hold, null values as nil pointers and slices. Each format's
// writer binds the field (its name; for Portable objects its nested class)
// and writes with its own encoding. A format without fields of a kind
// (Portable has no nullable primitives, Compact no chars) refuses it.
type ValueWriter interface {
	Boolean(v bool)
	Int8(v int8)
	Char(v Char)
	Int16(v int16)
	Int32(v int32)
	Int64(v int64)
	Float32(v float32)
	Float64(v float64)
	String(v *string)
	Decimal(v *Decimal)
	Time(v *LocalTime)
	Date(v *LocalDate)
	Timestamp(v *LocalDateTime)
	TimestampTZ(v *OffsetDateTime)
	NullableBoolean(v *bool)
	NullableInt8(v *int8)
	NullableInt16(v *int16)
	NullableInt32(v *int32)
	NullableInt64(v *int64)
	NullableFloat32(v *float32)
	NullableFloat64(v *float64)
	Booleans(v []bool)
	Int8s(v []int8)
	Bytes(v []byte) // an ARRAY_OF_INT8 given as bytes
	Chars(v []Char)
	Int16s(v []int16)
	Int32s(v []int32)
	Int64s(v []int64)
	Float32s(v []float32)
	Float64s(v []float64)
	Strings(v []*string)
	Decimals(v []*Decimal)
	Times(v []*LocalTime)
	Dates(v []*LocalDate)
	Timestamps(v []*LocalDateTime)
	TimestampTZs(v []*OffsetDateTime)
	NullableBooleans(v []*bool)
	NullableInt8s(v []*int8)
	NullableInt16s(v []*int16)
	NullableInt32s(v []*int32)
	NullableInt64s(v []*int64)
	NullableFloat32s(v []*float32)
	NullableFloat64s(v []*float64)
	// Object and Objects write a nested object (COMPACT, PORTABLE) or an
	// array of them; they report false when v is not one the format takes.
	Object(v any) bool
	Objects(v any) bool
}

// WriteValue is the one value switch of the generic record builders and
// of records rewritten field by field, for every format: it writes v, the
// value of a field of kind k, through w. v has the type the records' Get
// returns for k, or a pointer to it, or nil for null (arrays: a slice of
// values or of pointers). It reports false when v does not suit k.
func WriteValue(w ValueWriter, k FieldKind, v any) bool {
	switch k {
	case KindBoolean:
		return write(w.Boolean, v)
	case KindInt8:
		return write(w.Int8, v)
	case KindChar:
		return write(w.Char, v)
	case KindInt16:
		return write(w.Int16, v)
	case KindInt32:
		return write(w.Int32, v)
	case KindInt64:
		return write(w.Int64, v)
	case KindFloat32:
		return write(w.Float32, v)
	case KindFloat64:
		return write(w.Float64, v)
	case KindString:
		return writePtr(w.String, v)
	case KindDecimal:
		return writePtr(w.Decimal, v)
	case KindTime:
		return writePtr(w.Time, v)
	case KindDate:
		return writePtr(w.Date, v)
	case KindTimestamp:
		return writePtr(w.Timestamp, v)
	case KindTimestampWithTimezone:
		return writePtr(w.TimestampTZ, v)
	case KindNullableBoolean:
		return writePtr(w.NullableBoolean, v)
	case KindNullableInt8:
		return writePtr(w.NullableInt8, v)
	case KindNullableInt16:
		return writePtr(w.NullableInt16, v)
	case KindNullableInt32:
		return writePtr(w.NullableInt32, v)
	case KindNullableInt64:
		return writePtr(w.NullableInt64, v)
	case KindNullableFloat32:
		return writePtr(w.NullableFloat32, v)
	case KindNullableFloat64:
		return writePtr(w.NullableFloat64, v)
	case KindArrayOfBoolean:
		return writeSlice(w.Booleans, v)
	case KindArrayOfInt8:
		if b, ok := v.([]byte); ok {
			w.Bytes(b)
			return true
		}
		return writeSlice(w.Int8s, v)
	case KindArrayOfChar:
		return writeSlice(w.Chars, v)
	case KindArrayOfInt16:
		return writeSlice(w.Int16s, v)
	case KindArrayOfInt32:
		return writeSlice(w.Int32s, v)
	case KindArrayOfInt64:
		return writeSlice(w.Int64s, v)
	case KindArrayOfFloat32:
		return writeSlice(w.Float32s, v)
	case KindArrayOfFloat64:
		return writeSlice(w.Float64s, v)
	case KindArrayOfString:
		return writePtrs(w.Strings, v)
	case KindArrayOfDecimal:
		return writePtrs(w.Decimals, v)
	case KindArrayOfTime:
		return writePtrs(w.Times, v)
	case KindArrayOfDate:
		return writePtrs(w.Dates, v)
	case KindArrayOfTimestamp:
		return writePtrs(w.Timestamps, v)
	case KindArrayOfTimestampWithTimezone:
		return writePtrs(w.TimestampTZs, v)
	case KindArrayOfNullableBoolean:
		return writePtrs(w.NullableBooleans, v)
	case KindArrayOfNullableInt8:
		return writePtrs(w.NullableInt8s, v)
	case KindArrayOfNullableInt16:
		return writePtrs(w.NullableInt16s, v)
	case KindArrayOfNullableInt32:
		return writePtrs(w.NullableInt32s, v)
	case KindArrayOfNullableInt64:
		return writePtrs(w.NullableInt64s, v)
	case KindArrayOfNullableFloat32:
		return writePtrs(w.NullableFloat32s, v)
	case KindArrayOfNullableFloat64:
		return writePtrs(w.NullableFloat64s, v)
	case KindCompact, KindPortable:
		return w.Object(v)
	case KindArrayOfCompact, KindArrayOfPortable:
		return w.Objects(v)
	}
	return false
}

// write writes a T.
func write[T any](fn func(T), v any) bool {
	x, ok := v.(T)
	if ok {
		fn(x)
	}
	return ok
}

// writePtr writes nil, a T or a *T as a *T.
func writePtr[T any](fn func(*T), v any) bool {
	x, ok := AsPtr[T](v)
	if ok {
		fn(x)
	}
	return ok
}

// writeSlice writes nil or a []T.
func writeSlice[T any](fn func([]T), v any) bool {
	x, ok := AsSlice[T](v)
	if ok {
		fn(x)
	}
	return ok
}

// writePtrs writes nil, a []*T or a []T as a []*T.
func writePtrs[T any](fn func([]*T), v any) bool {
	x, ok := AsPtrSlice[T](v)
	if ok {
		fn(x)
	}
	return ok
}
