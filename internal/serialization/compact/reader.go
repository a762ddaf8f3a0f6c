package compact

import (
	"fmt"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// Reader reads the fields of one Compact object for a
// Serializer. A field that the writer's schema does not have (data
// written by an older or newer version of the type) reads as the zero value;
// use FieldKind to tell. Other errors are sticky: the first one is reported
// by the Service and later reads return zero values.
type Reader struct {
	rec  Record
	dec  *Decoder
	err  error
	hint core.ReadHint
}

// Err returns the first error the reader met.
func (r *Reader) Err() error { return r.err }

// FieldKind returns the kind of the named field in the writer's schema, or
// KindNotAvailable when the writer did not write it.
func (r *Reader) FieldKind(name string) core.FieldKind { return r.rec.FieldKind(name) }

// Record returns the in-place view of the object being read, valid during
// the serializer's Read.
func (r *Reader) Record() *Record { return &r.rec }

func (r *Reader) note(err error) {
	if err == nil || r.err != nil {
		return
	}
	if core.IsAbsentField(err) {
		return
	}
	r.err = err
}

// ReadCompact reads a nested COMPACT field: a value of the Go type registered
// for its type name, or a *Record; null is nil.
func (r *Reader) ReadCompact(name string) any {
	rec, ok, err := r.rec.nested(name)
	r.note(err)
	if !ok || r.err != nil {
		return nil
	}
	v, err := r.nested(rec)
	r.note(err)
	return v
}

// nested decodes a nested object within the decoder's depth and size
// budget (see enterNested).
func (r *Reader) nested(rec Record) (any, error) {
	if !r.enterNested(&rec) {
		return nil, r.err
	}
	defer func() { r.dec.Budget.Depth-- }()
	return r.dec.Object(rec)
}

// ReadArrayOfCompact reads an ARRAY_OF_COMPACT field; items are values of
// the registered Go type or *Record, null items are nil.
func (r *Reader) ReadArrayOfCompact(name string) []any {
	it, ok := r.compactItems(name)
	if !ok {
		return nil
	}
	out := make([]any, it.count)
	for i := range out {
		v, ok := r.compactItem(&it, i)
		if !ok {
			return nil
		}
		out[i] = v
	}
	return out
}

// compactItems locates the items of an ARRAY_OF_COMPACT field; false for
// a null array or after an error.
func (r *Reader) compactItems(name string) (varItems, bool) {
	_, it, ok, err := r.rec.varArrayField(name, core.KindArrayOfCompact)
	r.note(err)
	return it, ok && r.err == nil
}

// compactItem decodes item i (nil for a null item); false after an error.
func (r *Reader) compactItem(it *varItems, i int) (any, bool) {
	at, null, err := it.at(i)
	if err == nil && !null {
		var rec Record
		if rec, _, err = Parse(it.rd.Buf(), at, len(it.rd.Buf()), r.rec.schemas, r.rec.embedded); err == nil {
			var v any
			if v, err = r.nested(rec); err == nil {
				return v, true
			}
		}
	}
	r.note(err)
	return nil, r.err == nil
}

// ReadArray reads an ARRAY_OF_COMPACT field into a typed slice. Items
// decode to the Go type registered for their type name; when that is *T and
// the slice holds T, items are copied out of their pointers. Null items are
// the zero T.
func ReadArray[T any](r *Reader, name string) []T {
	it, ok := r.compactItems(name)
	if !ok {
		return nil
	}
	out := make([]T, it.count)
	for i := range out {
		item, ok := r.compactItem(&it, i)
		if !ok {
			return nil
		}
		switch v := item.(type) {
		case nil:
		case T:
			out[i] = v
		case *T:
			out[i] = *v
		default:
			r.note(&core.FieldError{Field: name, Reason: fmt.Sprintf("item %d is %T, not %T", i, item, out[i])})
			return nil
		}
	}
	return out
}

// ReadBoolean reads a field as Record.GetBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadBoolean(name string) bool {
	v, err := r.rec.GetBoolean(name)
	r.note(err)
	return v
}

// ReadInt8 reads a field as Record.GetInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadInt8(name string) int8 {
	v, err := r.rec.GetInt8(name)
	r.note(err)
	return v
}

// ReadInt16 reads a field as Record.GetInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadInt16(name string) int16 {
	v, err := r.rec.GetInt16(name)
	r.note(err)
	return v
}

// ReadInt32 reads a field as Record.GetInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadInt32(name string) int32 {
	v, err := r.rec.GetInt32(name)
	r.note(err)
	return v
}

// ReadInt64 reads a field as Record.GetInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadInt64(name string) int64 {
	v, err := r.rec.GetInt64(name)
	r.note(err)
	return v
}

// ReadFloat32 reads a field as Record.GetFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadFloat32(name string) float32 {
	v, err := r.rec.GetFloat32(name)
	r.note(err)
	return v
}

// ReadFloat64 reads a field as Record.GetFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadFloat64(name string) float64 {
	v, err := r.rec.GetFloat64(name)
	r.note(err)
	return v
}

// ReadString reads a field as Record.GetString does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadString(name string) string {
	v, err := r.rec.GetString(name)
	r.note(err)
	return v
}

// ReadStringPtr reads a field as Record.GetStringPtr does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadStringPtr(name string) *string {
	v, err := r.rec.GetStringPtr(name)
	r.note(err)
	return v
}

// ReadDecimal reads a field as Record.GetDecimal does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadDecimal(name string) *core.Decimal {
	v, err := r.rec.GetDecimal(name)
	r.note(err)
	return v
}

// ReadTime reads a field as Record.GetTime does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadTime(name string) *core.LocalTime {
	v, err := r.rec.GetTime(name)
	r.note(err)
	return v
}

// ReadDate reads a field as Record.GetDate does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadDate(name string) *core.LocalDate {
	v, err := r.rec.GetDate(name)
	r.note(err)
	return v
}

// ReadTimestamp reads a field as Record.GetTimestamp does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadTimestamp(name string) *core.LocalDateTime {
	v, err := r.rec.GetTimestamp(name)
	r.note(err)
	return v
}

// ReadTimestampWithTimezone reads a field as Record.GetTimestampWithTimezone does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadTimestampWithTimezone(name string) *core.OffsetDateTime {
	v, err := r.rec.GetTimestampWithTimezone(name)
	r.note(err)
	return v
}

// ReadNullableBoolean reads a field as Record.GetNullableBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableBoolean(name string) *bool {
	v, err := r.rec.GetNullableBoolean(name)
	r.note(err)
	return v
}

// ReadNullableInt8 reads a field as Record.GetNullableInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableInt8(name string) *int8 {
	v, err := r.rec.GetNullableInt8(name)
	r.note(err)
	return v
}

// ReadNullableInt16 reads a field as Record.GetNullableInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableInt16(name string) *int16 {
	v, err := r.rec.GetNullableInt16(name)
	r.note(err)
	return v
}

// ReadNullableInt32 reads a field as Record.GetNullableInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableInt32(name string) *int32 {
	v, err := r.rec.GetNullableInt32(name)
	r.note(err)
	return v
}

// ReadNullableInt64 reads a field as Record.GetNullableInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableInt64(name string) *int64 {
	v, err := r.rec.GetNullableInt64(name)
	r.note(err)
	return v
}

// ReadNullableFloat32 reads a field as Record.GetNullableFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableFloat32(name string) *float32 {
	v, err := r.rec.GetNullableFloat32(name)
	r.note(err)
	return v
}

// ReadNullableFloat64 reads a field as Record.GetNullableFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadNullableFloat64(name string) *float64 {
	v, err := r.rec.GetNullableFloat64(name)
	r.note(err)
	return v
}

// ReadArrayOfBoolean reads a field as Record.GetArrayOfBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfBoolean(name string) []bool {
	v, err := r.rec.GetArrayOfBoolean(name)
	r.note(err)
	return v
}

// ReadArrayOfInt8 reads a field as Record.GetArrayOfInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfInt8(name string) []int8 {
	v, err := r.rec.GetArrayOfInt8(name)
	r.note(err)
	return v
}

// ReadArrayOfInt16 reads a field as Record.GetArrayOfInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfInt16(name string) []int16 {
	v, err := r.rec.GetArrayOfInt16(name)
	r.note(err)
	return v
}

// ReadArrayOfInt32 reads a field as Record.GetArrayOfInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfInt32(name string) []int32 {
	v, err := r.rec.GetArrayOfInt32(name)
	r.note(err)
	return v
}

// ReadArrayOfInt64 reads a field as Record.GetArrayOfInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfInt64(name string) []int64 {
	v, err := r.rec.GetArrayOfInt64(name)
	r.note(err)
	return v
}

// ReadArrayOfFloat32 reads a field as Record.GetArrayOfFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfFloat32(name string) []float32 {
	v, err := r.rec.GetArrayOfFloat32(name)
	r.note(err)
	return v
}

// ReadArrayOfFloat64 reads a field as Record.GetArrayOfFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfFloat64(name string) []float64 {
	v, err := r.rec.GetArrayOfFloat64(name)
	r.note(err)
	return v
}

// ReadArrayOfString reads a field as Record.GetArrayOfString does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfString(name string) []string {
	v, err := r.rec.GetArrayOfString(name)
	r.note(err)
	return v
}

// ReadArrayOfStringPtr reads a field as Record.GetArrayOfStringPtr does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfStringPtr(name string) []*string {
	v, err := r.rec.GetArrayOfStringPtr(name)
	r.note(err)
	return v
}

// ReadArrayOfDecimal reads a field as Record.GetArrayOfDecimal does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfDecimal(name string) []*core.Decimal {
	v, err := r.rec.GetArrayOfDecimal(name)
	r.note(err)
	return v
}

// ReadArrayOfTime reads a field as Record.GetArrayOfTime does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfTime(name string) []*core.LocalTime {
	v, err := r.rec.GetArrayOfTime(name)
	r.note(err)
	return v
}

// ReadArrayOfDate reads a field as Record.GetArrayOfDate does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfDate(name string) []*core.LocalDate {
	v, err := r.rec.GetArrayOfDate(name)
	r.note(err)
	return v
}

// ReadArrayOfTimestamp reads a field as Record.GetArrayOfTimestamp does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfTimestamp(name string) []*core.LocalDateTime {
	v, err := r.rec.GetArrayOfTimestamp(name)
	r.note(err)
	return v
}

// ReadArrayOfTimestampWithTimezone reads a field as Record.GetArrayOfTimestampWithTimezone does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfTimestampWithTimezone(name string) []*core.OffsetDateTime {
	v, err := r.rec.GetArrayOfTimestampWithTimezone(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableBoolean reads a field as Record.GetArrayOfNullableBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableBoolean(name string) []*bool {
	v, err := r.rec.GetArrayOfNullableBoolean(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt8 reads a field as Record.GetArrayOfNullableInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableInt8(name string) []*int8 {
	v, err := r.rec.GetArrayOfNullableInt8(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt16 reads a field as Record.GetArrayOfNullableInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableInt16(name string) []*int16 {
	v, err := r.rec.GetArrayOfNullableInt16(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt32 reads a field as Record.GetArrayOfNullableInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableInt32(name string) []*int32 {
	v, err := r.rec.GetArrayOfNullableInt32(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt64 reads a field as Record.GetArrayOfNullableInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableInt64(name string) []*int64 {
	v, err := r.rec.GetArrayOfNullableInt64(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableFloat32 reads a field as Record.GetArrayOfNullableFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableFloat32(name string) []*float32 {
	v, err := r.rec.GetArrayOfNullableFloat32(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableFloat64 reads a field as Record.GetArrayOfNullableFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *Reader) ReadArrayOfNullableFloat64(name string) []*float64 {
	v, err := r.rec.GetArrayOfNullableFloat64(name)
	r.note(err)
	return v
}
