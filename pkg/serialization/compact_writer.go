package serialization

import (
	"math/big"
	"reflect"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// CompactSerializer reads and writes one Go type in the Compact format, like
// Hazelcast's CompactSerializer. Implementations must be safe for concurrent
// use; they usually are stateless.
type CompactSerializer interface {
	// Type is the Go type that Write accepts and Read returns.
	Type() reflect.Type
	// TypeName is the Compact type name. It is part of the schema id, so a
	// Java class shares data with this Go type only under the same name.
	TypeName() string
	// Write writes v's fields. It must write the same fields with the same
	// kinds on every call (the schema is derived from the first call); the
	// order of the calls decides where variable-size fields land, so write
	// in the same order as the Java serializer to get identical bytes.
	Write(w *CompactWriter, v any)
	// Read reads a value. Errors are recorded in the reader and reported by
	// the caller; Read may return a partly filled value in that case.
	Read(r *CompactReader) any
}

// compactLayout is what the first write of a Go type teaches: its schema and
// the order in which its serializer writes the fields.
type compactLayout struct {
	schema *Schema
	order  []int32 // field indexes in write order
}

// CompactWriter writes the fields of one Compact object. Writers are created
// by the Service and valid only during a CompactSerializer.Write call. Errors
// are sticky: the first one is reported by the Service and later writes are
// ignored.
type CompactWriter struct {
	enc    *encoder
	schema *Schema // nil while the schema is being discovered
	order  []int32
	seq    int
	defs   []FieldDef // discovered fields

	buf   []byte
	start int // index in buf of the fixed-size section
	base  int // index in enc.stack of this object's offset entries
	err   error
}

// Err returns the first error recorded by the writer.
func (w *CompactWriter) Err() error { return w.err }

func (w *CompactWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// field resolves name for a write of the given kind. In discovery mode it
// records the field and returns nil; it also returns nil after an error.
func (w *CompactWriter) field(name string, kind FieldKind) *SchemaField {
	if w.err != nil {
		return nil
	}
	if w.schema == nil {
		w.defs = append(w.defs, FieldDef{Name: name, Kind: kind})
		return nil
	}
	var f *SchemaField
	if w.seq < len(w.order) && w.schema.Fields[w.order[w.seq]].Name == name {
		f = &w.schema.Fields[w.order[w.seq]]
	} else if i, ok := w.schema.byName[name]; ok {
		f = &w.schema.Fields[i]
	} else {
		w.fail(&FieldError{Field: name, Reason: "is not in compact schema " + strconv.Quote(w.schema.TypeName) + " (a serializer must write the same fields every time)"})
		return nil
	}
	w.seq++
	if f.Kind != kind {
		w.fail(&FieldError{Field: name, Reason: "written as " + kind.String() + " but the schema has " + f.Kind.String()})
		return nil
	}
	return f
}

// fixedAt returns the buffer index of a fixed-size field, or -1.
func (w *CompactWriter) fixedAt(name string, kind FieldKind) int {
	f := w.field(name, kind)
	if f == nil {
		return -1
	}
	return w.start + int(f.Offset)
}

// varStart resolves a variable-size field; when ok and not null it records
// that the field's body starts at the current end of the buffer.
func (w *CompactWriter) varStart(name string, kind FieldKind, null bool) bool {
	f := w.field(name, kind)
	if f == nil || null {
		return false
	}
	w.enc.stack[w.base+int(f.Index)] = int32(len(w.buf) - w.start)
	return true
}

// WriteBoolean writes a BOOLEAN field.
func (w *CompactWriter) WriteBoolean(name string, v bool) {
	f := w.field(name, KindBoolean)
	if f == nil || !v {
		return
	}
	w.buf[w.start+int(f.Offset)] |= 1 << f.BitOffset
}

// WriteInt8 writes an INT8 field.
func (w *CompactWriter) WriteInt8(name string, v int8) {
	if i := w.fixedAt(name, KindInt8); i >= 0 {
		w.buf[i] = byte(v)
	}
}

// WriteInt16 writes an INT16 field.
func (w *CompactWriter) WriteInt16(name string, v int16) {
	if i := w.fixedAt(name, KindInt16); i >= 0 {
		w.buf[i], w.buf[i+1] = byte(v>>8), byte(v)
	}
}

// WriteInt32 writes an INT32 field.
func (w *CompactWriter) WriteInt32(name string, v int32) {
	if i := w.fixedAt(name, KindInt32); i >= 0 {
		wire.PutInt32(w.buf[i:], v)
	}
}

// WriteInt64 writes an INT64 field.
func (w *CompactWriter) WriteInt64(name string, v int64) {
	if i := w.fixedAt(name, KindInt64); i >= 0 {
		putInt64(w.buf[i:], v)
	}
}

// WriteFloat32 writes a FLOAT32 field.
func (w *CompactWriter) WriteFloat32(name string, v float32) {
	if i := w.fixedAt(name, KindFloat32); i >= 0 {
		wire.PutInt32(w.buf[i:], int32(wire.Float32Bits(v)))
	}
}

// WriteFloat64 writes a FLOAT64 field.
func (w *CompactWriter) WriteFloat64(name string, v float64) {
	if i := w.fixedAt(name, KindFloat64); i >= 0 {
		putInt64(w.buf[i:], int64(wire.Float64Bits(v)))
	}
}

func putInt64(b []byte, v int64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func (w *CompactWriter) appendString(s string) {
	var err error
	if w.buf, err = wire.AppendString(w.buf, s); err != nil {
		w.fail(stringErr(err, s))
	}
}

// WriteString writes a STRING field.
func (w *CompactWriter) WriteString(name string, v string) {
	if w.varStart(name, KindString, false) {
		w.appendString(v)
	}
}

// WriteStringPtr writes a STRING field; nil writes null.
func (w *CompactWriter) WriteStringPtr(name string, v *string) {
	if w.varStart(name, KindString, v == nil) {
		w.appendString(*v)
	}
}

// WriteDecimal writes a DECIMAL field; nil writes null.
func (w *CompactWriter) WriteDecimal(name string, v *Decimal) {
	if w.varStart(name, KindDecimal, v == nil) {
		w.buf = appendDecimal(w.buf, *v)
	}
}

// WriteTime writes a TIME field; nil writes null.
func (w *CompactWriter) WriteTime(name string, v *LocalTime) {
	if w.varStart(name, KindTime, v == nil) {
		w.buf = appendTime(w.buf, *v)
	}
}

// WriteDate writes a DATE field; nil writes null.
func (w *CompactWriter) WriteDate(name string, v *LocalDate) {
	if w.varStart(name, KindDate, v == nil) {
		w.buf = appendDate(w.buf, *v, false)
	}
}

// WriteTimestamp writes a TIMESTAMP field; nil writes null.
func (w *CompactWriter) WriteTimestamp(name string, v *LocalDateTime) {
	if w.varStart(name, KindTimestamp, v == nil) {
		w.buf = appendTimestamp(w.buf, *v, false)
	}
}

// WriteTimestampWithTimezone writes a TIMESTAMP_WITH_TIMEZONE field; nil writes null.
func (w *CompactWriter) WriteTimestampWithTimezone(name string, v *OffsetDateTime) {
	if w.varStart(name, KindTimestampWithTimezone, v == nil) {
		w.buf = appendTimestampTZ(w.buf, *v, false)
	}
}

// WriteCompact writes a nested Compact object (a value whose Go type has a
// registered CompactSerializer, or a *CompactRecord); nil writes null.
func (w *CompactWriter) WriteCompact(name string, v any) {
	null := isNil(v)
	if w.varStart(name, KindCompact, null) {
		w.appendNested(v)
	}
}

func (w *CompactWriter) appendNested(v any) {
	var err error
	if w.buf, err = w.enc.appendCompact(w.buf, v); err != nil {
		w.fail(err)
	}
}

// WriteNullableBoolean writes a NULLABLE_BOOLEAN field; nil writes null.
func (w *CompactWriter) WriteNullableBoolean(name string, v *bool) {
	if w.varStart(name, KindNullableBoolean, v == nil) {
		w.buf = wire.AppendBool(w.buf, *v)
	}
}

// WriteNullableInt8 writes a NULLABLE_INT8 field; nil writes null.
func (w *CompactWriter) WriteNullableInt8(name string, v *int8) {
	if w.varStart(name, KindNullableInt8, v == nil) {
		w.buf = append(w.buf, byte(*v))
	}
}

// WriteNullableInt16 writes a NULLABLE_INT16 field; nil writes null.
func (w *CompactWriter) WriteNullableInt16(name string, v *int16) {
	if w.varStart(name, KindNullableInt16, v == nil) {
		w.buf = wire.AppendInt16(w.buf, *v)
	}
}

// WriteNullableInt32 writes a NULLABLE_INT32 field; nil writes null.
func (w *CompactWriter) WriteNullableInt32(name string, v *int32) {
	if w.varStart(name, KindNullableInt32, v == nil) {
		w.buf = wire.AppendInt32(w.buf, *v)
	}
}

// WriteNullableInt64 writes a NULLABLE_INT64 field; nil writes null.
func (w *CompactWriter) WriteNullableInt64(name string, v *int64) {
	if w.varStart(name, KindNullableInt64, v == nil) {
		w.buf = wire.AppendInt64(w.buf, *v)
	}
}

// WriteNullableFloat32 writes a NULLABLE_FLOAT32 field; nil writes null.
func (w *CompactWriter) WriteNullableFloat32(name string, v *float32) {
	if w.varStart(name, KindNullableFloat32, v == nil) {
		w.buf = wire.AppendFloat32(w.buf, *v)
	}
}

// WriteNullableFloat64 writes a NULLABLE_FLOAT64 field; nil writes null.
func (w *CompactWriter) WriteNullableFloat64(name string, v *float64) {
	if w.varStart(name, KindNullableFloat64, v == nil) {
		w.buf = wire.AppendFloat64(w.buf, *v)
	}
}

// WriteArrayOfBoolean writes an ARRAY_OF_BOOLEAN field (bit-packed); nil writes null.
func (w *CompactWriter) WriteArrayOfBoolean(name string, v []bool) {
	if w.varStart(name, KindArrayOfBoolean, v == nil) {
		w.buf = appendPackedBools(w.buf, v)
	}
}

// WriteArrayOfInt8 writes an ARRAY_OF_INT8 field; nil writes null.
func (w *CompactWriter) WriteArrayOfInt8(name string, v []int8) {
	if w.varStart(name, KindArrayOfInt8, v == nil) {
		w.buf = appendInt8s(w.buf, v)
	}
}

// WriteArrayOfInt16 writes an ARRAY_OF_INT16 field; nil writes null.
func (w *CompactWriter) WriteArrayOfInt16(name string, v []int16) {
	if w.varStart(name, KindArrayOfInt16, v == nil) {
		w.buf = appendInt16s(w.buf, v)
	}
}

// WriteArrayOfInt32 writes an ARRAY_OF_INT32 field; nil writes null.
func (w *CompactWriter) WriteArrayOfInt32(name string, v []int32) {
	if w.varStart(name, KindArrayOfInt32, v == nil) {
		w.buf = appendInt32s(w.buf, v)
	}
}

// WriteArrayOfInt64 writes an ARRAY_OF_INT64 field; nil writes null.
func (w *CompactWriter) WriteArrayOfInt64(name string, v []int64) {
	if w.varStart(name, KindArrayOfInt64, v == nil) {
		w.buf = appendInt64s(w.buf, v)
	}
}

// WriteArrayOfFloat32 writes an ARRAY_OF_FLOAT32 field; nil writes null.
func (w *CompactWriter) WriteArrayOfFloat32(name string, v []float32) {
	if w.varStart(name, KindArrayOfFloat32, v == nil) {
		w.buf = appendFloat32s(w.buf, v)
	}
}

// WriteArrayOfFloat64 writes an ARRAY_OF_FLOAT64 field; nil writes null.
func (w *CompactWriter) WriteArrayOfFloat64(name string, v []float64) {
	if w.varStart(name, KindArrayOfFloat64, v == nil) {
		w.buf = appendFloat64s(w.buf, v)
	}
}

// varArray writes the Compact layout for arrays of variable-size items:
// item data length, count, the non-null item bodies, then an offset table
// (relative to the first body) whose entries are -1 for null items.
func (w *CompactWriter) varArray(n int, null func(i int) bool, item func(i int)) {
	lenAt := len(w.buf)
	w.buf = wire.AppendInt32(w.buf, 0)
	w.buf = wire.AppendInt32(w.buf, int32(n))
	first := len(w.buf)
	mark := len(w.enc.stack)
	for i := 0; i < n; i++ {
		if null(i) {
			w.enc.stack = append(w.enc.stack, -1)
			continue
		}
		w.enc.stack = append(w.enc.stack, int32(len(w.buf)-first))
		item(i)
	}
	dataLen := len(w.buf) - first
	wire.PutInt32(w.buf[lenAt:], int32(dataLen))
	w.buf = appendOffsets(w.buf, w.enc.stack[mark:], dataLen)
	w.enc.stack = w.enc.stack[:mark]
}

// WriteArrayOfString writes an ARRAY_OF_STRING field without null items; nil writes null.
func (w *CompactWriter) WriteArrayOfString(name string, v []string) {
	if w.varStart(name, KindArrayOfString, v == nil) {
		w.varArray(len(v), func(int) bool { return false }, func(i int) { w.appendString(v[i]) })
	}
}

// WriteArrayOfStringPtr writes an ARRAY_OF_STRING field; nil items are null.
func (w *CompactWriter) WriteArrayOfStringPtr(name string, v []*string) {
	if w.varStart(name, KindArrayOfString, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.appendString(*v[i]) })
	}
}

// WriteArrayOfDecimal writes an ARRAY_OF_DECIMAL field; nil items are null.
func (w *CompactWriter) WriteArrayOfDecimal(name string, v []*Decimal) {
	if w.varStart(name, KindArrayOfDecimal, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = appendDecimal(w.buf, *v[i]) })
	}
}

// WriteArrayOfTime writes an ARRAY_OF_TIME field; nil items are null.
func (w *CompactWriter) WriteArrayOfTime(name string, v []*LocalTime) {
	if w.varStart(name, KindArrayOfTime, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = appendTime(w.buf, *v[i]) })
	}
}

// WriteArrayOfDate writes an ARRAY_OF_DATE field; nil items are null.
func (w *CompactWriter) WriteArrayOfDate(name string, v []*LocalDate) {
	if w.varStart(name, KindArrayOfDate, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = appendDate(w.buf, *v[i], false) })
	}
}

// WriteArrayOfTimestamp writes an ARRAY_OF_TIMESTAMP field; nil items are null.
func (w *CompactWriter) WriteArrayOfTimestamp(name string, v []*LocalDateTime) {
	if w.varStart(name, KindArrayOfTimestamp, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = appendTimestamp(w.buf, *v[i], false) })
	}
}

// WriteArrayOfTimestampWithTimezone writes an ARRAY_OF_TIMESTAMP_WITH_TIMEZONE field; nil items are null.
func (w *CompactWriter) WriteArrayOfTimestampWithTimezone(name string, v []*OffsetDateTime) {
	if w.varStart(name, KindArrayOfTimestampWithTimezone, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = appendTimestampTZ(w.buf, *v[i], false) })
	}
}

// WriteArrayOfCompact writes an ARRAY_OF_COMPACT field; nil items are null.
// All non-null items must have the same Compact type. WriteCompactArray is
// the typed form for slices of a concrete type.
func (w *CompactWriter) WriteArrayOfCompact(name string, v []any) {
	if w.varStart(name, KindArrayOfCompact, v == nil) {
		w.varArray(len(v), func(i int) bool { return isNil(v[i]) }, func(i int) { w.appendNested(v[i]) })
	}
}

// WriteCompactArray writes an ARRAY_OF_COMPACT field from a typed slice; a nil
// slice writes null and nil pointer items are null. Items of a value slice
// are passed to their serializer as pointers (&v[i]), so register the
// pointer type (for example *Person) to write []Person without copying.
func WriteCompactArray[T any](w *CompactWriter, name string, v []T) {
	if !w.varStart(name, KindArrayOfCompact, v == nil) {
		return
	}
	if reflect.TypeFor[T]().Kind() == reflect.Pointer || reflect.TypeFor[T]().Kind() == reflect.Interface {
		w.varArray(len(v), func(i int) bool { return isNil(v[i]) }, func(i int) { w.appendNested(v[i]) })
		return
	}
	w.varArray(len(v), func(int) bool { return false }, func(i int) { w.appendNested(&v[i]) })
}

// WriteArrayOfNullableBoolean writes an ARRAY_OF_NULLABLE_BOOLEAN field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableBoolean(name string, v []*bool) {
	if w.varStart(name, KindArrayOfNullableBoolean, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendBool(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableInt8 writes an ARRAY_OF_NULLABLE_INT8 field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableInt8(name string, v []*int8) {
	if w.varStart(name, KindArrayOfNullableInt8, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = append(w.buf, byte(*v[i])) })
	}
}

// WriteArrayOfNullableInt16 writes an ARRAY_OF_NULLABLE_INT16 field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableInt16(name string, v []*int16) {
	if w.varStart(name, KindArrayOfNullableInt16, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendInt16(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableInt32 writes an ARRAY_OF_NULLABLE_INT32 field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableInt32(name string, v []*int32) {
	if w.varStart(name, KindArrayOfNullableInt32, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendInt32(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableInt64 writes an ARRAY_OF_NULLABLE_INT64 field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableInt64(name string, v []*int64) {
	if w.varStart(name, KindArrayOfNullableInt64, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendInt64(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableFloat32 writes an ARRAY_OF_NULLABLE_FLOAT32 field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableFloat32(name string, v []*float32) {
	if w.varStart(name, KindArrayOfNullableFloat32, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendFloat32(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableFloat64 writes an ARRAY_OF_NULLABLE_FLOAT64 field; nil items are null.
func (w *CompactWriter) WriteArrayOfNullableFloat64(name string, v []*float64) {
	if w.varStart(name, KindArrayOfNullableFloat64, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendFloat64(w.buf, *v[i]) })
	}
}

// offsetWidth returns the offset-table entry width for a data length.
func offsetWidth(dataLen int) int {
	switch {
	case dataLen < 255:
		return 1
	case dataLen < 65535:
		return 2
	}
	return 4
}

func appendOffsets(dst []byte, offs []int32, dataLen int) []byte {
	switch offsetWidth(dataLen) {
	case 1:
		for _, o := range offs {
			dst = append(dst, byte(o))
		}
	case 2:
		for _, o := range offs {
			dst = append(dst, byte(o>>8), byte(o))
		}
	default:
		for _, o := range offs {
			dst = wire.AppendInt32(dst, o)
		}
	}
	return dst
}

// Value encoders shared by the three formats.

func appendPackedBools(dst []byte, v []bool) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	var cur byte
	for i, b := range v {
		if b {
			cur |= 1 << (i % 8)
		}
		if i%8 == 7 {
			dst = append(dst, cur)
			cur = 0
		}
	}
	if len(v)%8 != 0 {
		dst = append(dst, cur)
	}
	return dst
}

func appendBools(dst []byte, v []bool) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, b := range v {
		dst = wire.AppendBool(dst, b)
	}
	return dst
}

func appendInt8s(dst []byte, v []int8) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = append(dst, byte(x))
	}
	return dst
}

func appendBytes(dst []byte, v []byte) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	return append(dst, v...)
}

func appendChars(dst []byte, v []Char) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt16(dst, int16(x))
	}
	return dst
}

func appendInt16s(dst []byte, v []int16) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt16(dst, x)
	}
	return dst
}

func appendInt32s(dst []byte, v []int32) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt32(dst, x)
	}
	return dst
}

func appendInt64s(dst []byte, v []int64) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt64(dst, x)
	}
	return dst
}

func appendFloat32s(dst []byte, v []float32) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendFloat32(dst, x)
	}
	return dst
}

func appendFloat64s(dst []byte, v []float64) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendFloat64(dst, x)
	}
	return dst
}

// appendDecimal writes int length + the unscaled value as Java's
// BigInteger.toByteArray (minimal two's complement, big-endian) + int scale.
func appendDecimal(dst []byte, d Decimal) []byte {
	b := twosComplement(d.Unscaled)
	dst = wire.AppendInt32(dst, int32(len(b)))
	dst = append(dst, b...)
	return wire.AppendInt32(dst, d.Scale)
}

func twosComplement(u *big.Int) []byte {
	switch {
	case u == nil || u.Sign() == 0:
		return []byte{0}
	case u.Sign() > 0:
		b := u.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// A negative x is the bitwise inverse of -x-1.
	y := new(big.Int).Neg(u)
	b := y.Sub(y, big.NewInt(1)).Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// fromTwosComplement is the inverse of twosComplement.
func fromTwosComplement(b []byte) *big.Int {
	if len(b) == 0 || b[0]&0x80 == 0 {
		return new(big.Int).SetBytes(b)
	}
	inv := make([]byte, len(b))
	for i := range b {
		inv[i] = ^b[i]
	}
	y := new(big.Int).SetBytes(inv)
	return y.Neg(y.Add(y, big.NewInt(1)))
}

func appendTime(dst []byte, t LocalTime) []byte {
	dst = append(dst, byte(t.Hour), byte(t.Minute), byte(t.Second))
	return wire.AppendInt32(dst, t.Nanosecond)
}

// appendDate writes a date; Portable writes the year as a short, Compact as an int.
func appendDate(dst []byte, d LocalDate, shortYear bool) []byte {
	if shortYear {
		dst = wire.AppendInt16(dst, int16(d.Year))
	} else {
		dst = wire.AppendInt32(dst, d.Year)
	}
	return append(dst, byte(d.Month), byte(d.Day))
}

func appendTimestamp(dst []byte, t LocalDateTime, shortYear bool) []byte {
	return appendTime(appendDate(dst, t.Date, shortYear), t.Time)
}

func appendTimestampTZ(dst []byte, t OffsetDateTime, shortYear bool) []byte {
	return wire.AppendInt32(appendTimestamp(dst, t.LocalDateTime, shortYear), t.OffsetSeconds)
}

// isNil reports whether v is nil or a nil pointer, map, slice or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func, reflect.Chan:
		return rv.IsNil()
	}
	return false
}
