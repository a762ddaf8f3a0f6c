package compact

import (
	"reflect"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// Serializer reads and writes one Go type in the Compact format, like
// Hazelcast's Serializer. Implementations must be safe for concurrent
// use; they usually are stateless.
type Serializer interface {
	// Type is the Go type that Write accepts and Read returns.
	Type() reflect.Type
	// TypeName is the Compact type name. It is part of the schema id, so a
	// Java class shares data with this Go type only under the same name.
	TypeName() string
	// Write writes v's fields. It must write the same fields with the same
	// kinds on every call (the schema is derived from the first call); the
	// order of the calls decides where variable-size fields land, so write
	// in the same order as the Java serializer to get identical bytes.
	Write(w *Writer, v any)
	// Read reads a value. Errors are recorded in the reader and reported by
	// the caller; Read may return a partly filled value in that case.
	Read(r *Reader) any
}

// writeLayout is what the first write of a Go type teaches: its schema and
// the order in which its serializer writes the fields.
type writeLayout struct {
	schema *Schema
	order  []int32 // field indexes in write order
}

// Writer writes the fields of one Compact object. Writers are created
// by the Service and valid only during a Serializer.Write call. Errors
// are sticky: the first one is reported by the Service and later writes are
// ignored.
type Writer struct {
	enc    *Encoder
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
func (w *Writer) Err() error { return w.err }

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// field resolves name for a write of the given kind. In discovery mode it
// records the field and returns nil; it also returns nil after an error.
func (w *Writer) field(name string, kind core.FieldKind) *SchemaField {
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
		w.fail(&core.FieldError{Field: name, Reason: "is not in compact schema " + strconv.Quote(w.schema.TypeName) + " (a serializer must write the same fields every time)"})
		return nil
	}
	w.seq++
	if f.Kind != kind {
		w.fail(&core.FieldError{Field: name, Reason: "written as " + kind.String() + " but the schema has " + f.Kind.String()})
		return nil
	}
	return f
}

// fixedAt returns the buffer index of a fixed-size field, or -1.
func (w *Writer) fixedAt(name string, kind core.FieldKind) int {
	f := w.field(name, kind)
	if f == nil {
		return -1
	}
	return w.start + int(f.Offset)
}

// varStart resolves a variable-size field; when ok and not null it records
// that the field's body starts at the current end of the buffer.
func (w *Writer) varStart(name string, kind core.FieldKind, null bool) bool {
	f := w.field(name, kind)
	if f == nil || null {
		return false
	}
	w.enc.stack[w.base+int(f.Index)] = int32(len(w.buf) - w.start)
	return true
}

// WriteBoolean writes a BOOLEAN field.
func (w *Writer) WriteBoolean(name string, v bool) {
	f := w.field(name, core.KindBoolean)
	if f == nil || !v {
		return
	}
	w.buf[w.start+int(f.Offset)] |= 1 << f.BitOffset
}

// WriteInt8 writes an INT8 field.
func (w *Writer) WriteInt8(name string, v int8) {
	if i := w.fixedAt(name, core.KindInt8); i >= 0 {
		w.buf[i] = byte(v)
	}
}

// WriteInt16 writes an INT16 field.
func (w *Writer) WriteInt16(name string, v int16) {
	if i := w.fixedAt(name, core.KindInt16); i >= 0 {
		w.buf[i], w.buf[i+1] = byte(v>>8), byte(v)
	}
}

// WriteInt32 writes an INT32 field.
func (w *Writer) WriteInt32(name string, v int32) {
	if i := w.fixedAt(name, core.KindInt32); i >= 0 {
		wire.PutInt32(w.buf[i:], v)
	}
}

// WriteInt64 writes an INT64 field.
func (w *Writer) WriteInt64(name string, v int64) {
	if i := w.fixedAt(name, core.KindInt64); i >= 0 {
		putInt64(w.buf[i:], v)
	}
}

// WriteFloat32 writes a FLOAT32 field.
func (w *Writer) WriteFloat32(name string, v float32) {
	if i := w.fixedAt(name, core.KindFloat32); i >= 0 {
		wire.PutInt32(w.buf[i:], int32(wire.Float32Bits(v)))
	}
}

// WriteFloat64 writes a FLOAT64 field.
func (w *Writer) WriteFloat64(name string, v float64) {
	if i := w.fixedAt(name, core.KindFloat64); i >= 0 {
		putInt64(w.buf[i:], int64(wire.Float64Bits(v)))
	}
}

func putInt64(b []byte, v int64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func (w *Writer) appendString(s string) {
	var err error
	if w.buf, err = wire.AppendString(w.buf, s); err != nil {
		w.fail(core.StringErr(err, s))
	}
}

// WriteString writes a STRING field.
func (w *Writer) WriteString(name string, v string) {
	if w.varStart(name, core.KindString, false) {
		w.appendString(v)
	}
}

// WriteStringPtr writes a STRING field; nil writes null.
func (w *Writer) WriteStringPtr(name string, v *string) {
	if w.varStart(name, core.KindString, v == nil) {
		w.appendString(*v)
	}
}

// WriteDecimal writes a DECIMAL field; nil writes null.
func (w *Writer) WriteDecimal(name string, v *core.Decimal) {
	if w.varStart(name, core.KindDecimal, v == nil) {
		w.buf = core.AppendDecimal(w.buf, *v)
	}
}

// WriteTime writes a TIME field; nil writes null.
func (w *Writer) WriteTime(name string, v *core.LocalTime) {
	if w.varStart(name, core.KindTime, v == nil) {
		w.buf = core.AppendTime(w.buf, *v)
	}
}

// WriteDate writes a DATE field; nil writes null.
func (w *Writer) WriteDate(name string, v *core.LocalDate) {
	if w.varStart(name, core.KindDate, v == nil) {
		w.buf = core.AppendDate(w.buf, *v, false)
	}
}

// WriteTimestamp writes a TIMESTAMP field; nil writes null.
func (w *Writer) WriteTimestamp(name string, v *core.LocalDateTime) {
	if w.varStart(name, core.KindTimestamp, v == nil) {
		w.buf = core.AppendTimestamp(w.buf, *v, false)
	}
}

// WriteTimestampWithTimezone writes a TIMESTAMP_WITH_TIMEZONE field; nil writes null.
func (w *Writer) WriteTimestampWithTimezone(name string, v *core.OffsetDateTime) {
	if w.varStart(name, core.KindTimestampWithTimezone, v == nil) {
		w.buf = core.AppendTimestampTZ(w.buf, *v, false)
	}
}

// WriteCompact writes a nested Compact object (a value whose Go type has a
// registered Serializer, or a *Record); nil writes null.
func (w *Writer) WriteCompact(name string, v any) {
	null := core.IsNil(v)
	if w.varStart(name, core.KindCompact, null) {
		w.appendNested(v)
	}
}

func (w *Writer) appendNested(v any) {
	var err error
	if w.buf, err = w.enc.Append(w.buf, v); err != nil {
		w.fail(err)
	}
}

// WriteNullableBoolean writes a NULLABLE_BOOLEAN field; nil writes null.
func (w *Writer) WriteNullableBoolean(name string, v *bool) {
	if w.varStart(name, core.KindNullableBoolean, v == nil) {
		w.buf = wire.AppendBool(w.buf, *v)
	}
}

// WriteNullableInt8 writes a NULLABLE_INT8 field; nil writes null.
func (w *Writer) WriteNullableInt8(name string, v *int8) {
	if w.varStart(name, core.KindNullableInt8, v == nil) {
		w.buf = append(w.buf, byte(*v))
	}
}

// WriteNullableInt16 writes a NULLABLE_INT16 field; nil writes null.
func (w *Writer) WriteNullableInt16(name string, v *int16) {
	if w.varStart(name, core.KindNullableInt16, v == nil) {
		w.buf = wire.AppendInt16(w.buf, *v)
	}
}

// WriteNullableInt32 writes a NULLABLE_INT32 field; nil writes null.
func (w *Writer) WriteNullableInt32(name string, v *int32) {
	if w.varStart(name, core.KindNullableInt32, v == nil) {
		w.buf = wire.AppendInt32(w.buf, *v)
	}
}

// WriteNullableInt64 writes a NULLABLE_INT64 field; nil writes null.
func (w *Writer) WriteNullableInt64(name string, v *int64) {
	if w.varStart(name, core.KindNullableInt64, v == nil) {
		w.buf = wire.AppendInt64(w.buf, *v)
	}
}

// WriteNullableFloat32 writes a NULLABLE_FLOAT32 field; nil writes null.
func (w *Writer) WriteNullableFloat32(name string, v *float32) {
	if w.varStart(name, core.KindNullableFloat32, v == nil) {
		w.buf = wire.AppendFloat32(w.buf, *v)
	}
}

// WriteNullableFloat64 writes a NULLABLE_FLOAT64 field; nil writes null.
func (w *Writer) WriteNullableFloat64(name string, v *float64) {
	if w.varStart(name, core.KindNullableFloat64, v == nil) {
		w.buf = wire.AppendFloat64(w.buf, *v)
	}
}

// WriteArrayOfBoolean writes an ARRAY_OF_BOOLEAN field (bit-packed); nil writes null.
func (w *Writer) WriteArrayOfBoolean(name string, v []bool) {
	if w.varStart(name, core.KindArrayOfBoolean, v == nil) {
		w.buf = appendPackedBools(w.buf, v)
	}
}

// WriteArrayOfInt8 writes an ARRAY_OF_INT8 field; nil writes null.
func (w *Writer) WriteArrayOfInt8(name string, v []int8) {
	if w.varStart(name, core.KindArrayOfInt8, v == nil) {
		w.buf = core.AppendInt8s(w.buf, v)
	}
}

// WriteArrayOfInt16 writes an ARRAY_OF_INT16 field; nil writes null.
func (w *Writer) WriteArrayOfInt16(name string, v []int16) {
	if w.varStart(name, core.KindArrayOfInt16, v == nil) {
		w.buf = core.AppendInt16s(w.buf, v)
	}
}

// WriteArrayOfInt32 writes an ARRAY_OF_INT32 field; nil writes null.
func (w *Writer) WriteArrayOfInt32(name string, v []int32) {
	if w.varStart(name, core.KindArrayOfInt32, v == nil) {
		w.buf = core.AppendInt32s(w.buf, v)
	}
}

// WriteArrayOfInt64 writes an ARRAY_OF_INT64 field; nil writes null.
func (w *Writer) WriteArrayOfInt64(name string, v []int64) {
	if w.varStart(name, core.KindArrayOfInt64, v == nil) {
		w.buf = core.AppendInt64s(w.buf, v)
	}
}

// WriteArrayOfFloat32 writes an ARRAY_OF_FLOAT32 field; nil writes null.
func (w *Writer) WriteArrayOfFloat32(name string, v []float32) {
	if w.varStart(name, core.KindArrayOfFloat32, v == nil) {
		w.buf = core.AppendFloat32s(w.buf, v)
	}
}

// WriteArrayOfFloat64 writes an ARRAY_OF_FLOAT64 field; nil writes null.
func (w *Writer) WriteArrayOfFloat64(name string, v []float64) {
	if w.varStart(name, core.KindArrayOfFloat64, v == nil) {
		w.buf = core.AppendFloat64s(w.buf, v)
	}
}

// varArray writes the Compact layout for arrays of variable-size items:
// item data length, count, the non-null item bodies, then an offset table
// (relative to the first body) whose entries are -1 for null items.
func (w *Writer) varArray(n int, null func(i int) bool, item func(i int)) {
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
func (w *Writer) WriteArrayOfString(name string, v []string) {
	if w.varStart(name, core.KindArrayOfString, v == nil) {
		w.varArray(len(v), func(int) bool { return false }, func(i int) { w.appendString(v[i]) })
	}
}

// WriteArrayOfStringPtr writes an ARRAY_OF_STRING field; nil items are null.
func (w *Writer) WriteArrayOfStringPtr(name string, v []*string) {
	if w.varStart(name, core.KindArrayOfString, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.appendString(*v[i]) })
	}
}

// WriteArrayOfDecimal writes an ARRAY_OF_DECIMAL field; nil items are null.
func (w *Writer) WriteArrayOfDecimal(name string, v []*core.Decimal) {
	if w.varStart(name, core.KindArrayOfDecimal, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = core.AppendDecimal(w.buf, *v[i]) })
	}
}

// WriteArrayOfTime writes an ARRAY_OF_TIME field; nil items are null.
func (w *Writer) WriteArrayOfTime(name string, v []*core.LocalTime) {
	if w.varStart(name, core.KindArrayOfTime, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = core.AppendTime(w.buf, *v[i]) })
	}
}

// WriteArrayOfDate writes an ARRAY_OF_DATE field; nil items are null.
func (w *Writer) WriteArrayOfDate(name string, v []*core.LocalDate) {
	if w.varStart(name, core.KindArrayOfDate, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = core.AppendDate(w.buf, *v[i], false) })
	}
}

// WriteArrayOfTimestamp writes an ARRAY_OF_TIMESTAMP field; nil items are null.
func (w *Writer) WriteArrayOfTimestamp(name string, v []*core.LocalDateTime) {
	if w.varStart(name, core.KindArrayOfTimestamp, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = core.AppendTimestamp(w.buf, *v[i], false) })
	}
}

// WriteArrayOfTimestampWithTimezone writes an ARRAY_OF_TIMESTAMP_WITH_TIMEZONE field; nil items are null.
func (w *Writer) WriteArrayOfTimestampWithTimezone(name string, v []*core.OffsetDateTime) {
	if w.varStart(name, core.KindArrayOfTimestampWithTimezone, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = core.AppendTimestampTZ(w.buf, *v[i], false) })
	}
}

// WriteArrayOfCompact writes an ARRAY_OF_COMPACT field; nil items are null.
// All non-null items must have the same Compact type. WriteArray is
// the typed form for slices of a concrete type.
func (w *Writer) WriteArrayOfCompact(name string, v []any) {
	if w.varStart(name, core.KindArrayOfCompact, v == nil) {
		w.varArray(len(v), func(i int) bool { return core.IsNil(v[i]) }, func(i int) { w.appendNested(v[i]) })
	}
}

// WriteArray writes an ARRAY_OF_COMPACT field from a typed slice; a nil
// slice writes null and nil pointer items are null. Items of a value slice
// are passed to their serializer as pointers (&v[i]), so register the
// pointer type (for example *Person) to write []Person without copying.
func WriteArray[T any](w *Writer, name string, v []T) {
	if !w.varStart(name, core.KindArrayOfCompact, v == nil) {
		return
	}
	if reflect.TypeFor[T]().Kind() == reflect.Pointer || reflect.TypeFor[T]().Kind() == reflect.Interface {
		w.varArray(len(v), func(i int) bool { return core.IsNil(v[i]) }, func(i int) { w.appendNested(v[i]) })
		return
	}
	w.varArray(len(v), func(int) bool { return false }, func(i int) { w.appendNested(&v[i]) })
}

// WriteArrayOfNullableBoolean writes an ARRAY_OF_NULLABLE_BOOLEAN field; nil items are null.
func (w *Writer) WriteArrayOfNullableBoolean(name string, v []*bool) {
	if w.varStart(name, core.KindArrayOfNullableBoolean, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendBool(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableInt8 writes an ARRAY_OF_NULLABLE_INT8 field; nil items are null.
func (w *Writer) WriteArrayOfNullableInt8(name string, v []*int8) {
	if w.varStart(name, core.KindArrayOfNullableInt8, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = append(w.buf, byte(*v[i])) })
	}
}

// WriteArrayOfNullableInt16 writes an ARRAY_OF_NULLABLE_INT16 field; nil items are null.
func (w *Writer) WriteArrayOfNullableInt16(name string, v []*int16) {
	if w.varStart(name, core.KindArrayOfNullableInt16, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendInt16(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableInt32 writes an ARRAY_OF_NULLABLE_INT32 field; nil items are null.
func (w *Writer) WriteArrayOfNullableInt32(name string, v []*int32) {
	if w.varStart(name, core.KindArrayOfNullableInt32, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendInt32(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableInt64 writes an ARRAY_OF_NULLABLE_INT64 field; nil items are null.
func (w *Writer) WriteArrayOfNullableInt64(name string, v []*int64) {
	if w.varStart(name, core.KindArrayOfNullableInt64, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendInt64(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableFloat32 writes an ARRAY_OF_NULLABLE_FLOAT32 field; nil items are null.
func (w *Writer) WriteArrayOfNullableFloat32(name string, v []*float32) {
	if w.varStart(name, core.KindArrayOfNullableFloat32, v == nil) {
		w.varArray(len(v), func(i int) bool { return v[i] == nil }, func(i int) { w.buf = wire.AppendFloat32(w.buf, *v[i]) })
	}
}

// WriteArrayOfNullableFloat64 writes an ARRAY_OF_NULLABLE_FLOAT64 field; nil items are null.
func (w *Writer) WriteArrayOfNullableFloat64(name string, v []*float64) {
	if w.varStart(name, core.KindArrayOfNullableFloat64, v == nil) {
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
