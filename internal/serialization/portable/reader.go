package portable

import (
	"github.com/atolldb/atoll/internal/serialization/core"
)

// ReadBoolean reads a field as Record.GetBoolean does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadBoolean(name string) bool {
	v, err := r.rec.GetBoolean(name)
	r.note(err)
	return v
}

// ReadInt8 reads a field as Record.GetInt8 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt8(name string) int8 {
	v, err := r.rec.GetInt8(name)
	r.note(err)
	return v
}

// ReadChar reads a field as Record.GetChar does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadChar(name string) core.Char {
	v, err := r.rec.GetChar(name)
	r.note(err)
	return v
}

// ReadInt16 reads a field as Record.GetInt16 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt16(name string) int16 {
	v, err := r.rec.GetInt16(name)
	r.note(err)
	return v
}

// ReadInt32 reads a field as Record.GetInt32 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt32(name string) int32 {
	v, err := r.rec.GetInt32(name)
	r.note(err)
	return v
}

// ReadInt64 reads a field as Record.GetInt64 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt64(name string) int64 {
	v, err := r.rec.GetInt64(name)
	r.note(err)
	return v
}

// ReadFloat32 reads a field as Record.GetFloat32 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadFloat32(name string) float32 {
	v, err := r.rec.GetFloat32(name)
	r.note(err)
	return v
}

// ReadFloat64 reads a field as Record.GetFloat64 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadFloat64(name string) float64 {
	v, err := r.rec.GetFloat64(name)
	r.note(err)
	return v
}

// ReadString reads a field as Record.GetString does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadString(name string) string {
	v, err := r.rec.GetString(name)
	r.note(err)
	return v
}

// ReadStringPtr reads a field as Record.GetStringPtr does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadStringPtr(name string) *string {
	v, err := r.rec.GetStringPtr(name)
	r.note(err)
	return v
}

// ReadDecimal reads a field as Record.GetDecimal does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadDecimal(name string) *core.Decimal {
	v, err := r.rec.GetDecimal(name)
	r.note(err)
	return v
}

// ReadTime reads a field as Record.GetTime does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadTime(name string) *core.LocalTime {
	v, err := r.rec.GetTime(name)
	r.note(err)
	return v
}

// ReadDate reads a field as Record.GetDate does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadDate(name string) *core.LocalDate {
	v, err := r.rec.GetDate(name)
	r.note(err)
	return v
}

// ReadTimestamp reads a field as Record.GetTimestamp does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadTimestamp(name string) *core.LocalDateTime {
	v, err := r.rec.GetTimestamp(name)
	r.note(err)
	return v
}

// ReadTimestampWithTimezone reads a field as Record.GetTimestampWithTimezone does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadTimestampWithTimezone(name string) *core.OffsetDateTime {
	v, err := r.rec.GetTimestampWithTimezone(name)
	r.note(err)
	return v
}

// ReadBooleanArray reads a field as Record.GetArrayOfBoolean does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadBooleanArray(name string) []bool {
	v, err := r.rec.GetArrayOfBoolean(name)
	r.note(err)
	return v
}

// ReadByteArray reads a field as Record.GetByteArray does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadByteArray(name string) []byte {
	v, err := r.rec.GetByteArray(name)
	r.note(err)
	return v
}

// ReadCharArray reads a field as Record.GetArrayOfChar does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadCharArray(name string) []core.Char {
	v, err := r.rec.GetArrayOfChar(name)
	r.note(err)
	return v
}

// ReadInt16Array reads a field as Record.GetArrayOfInt16 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt16Array(name string) []int16 {
	v, err := r.rec.GetArrayOfInt16(name)
	r.note(err)
	return v
}

// ReadInt32Array reads a field as Record.GetArrayOfInt32 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt32Array(name string) []int32 {
	v, err := r.rec.GetArrayOfInt32(name)
	r.note(err)
	return v
}

// ReadInt64Array reads a field as Record.GetArrayOfInt64 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadInt64Array(name string) []int64 {
	v, err := r.rec.GetArrayOfInt64(name)
	r.note(err)
	return v
}

// ReadFloat32Array reads a field as Record.GetArrayOfFloat32 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadFloat32Array(name string) []float32 {
	v, err := r.rec.GetArrayOfFloat32(name)
	r.note(err)
	return v
}

// ReadFloat64Array reads a field as Record.GetArrayOfFloat64 does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadFloat64Array(name string) []float64 {
	v, err := r.rec.GetArrayOfFloat64(name)
	r.note(err)
	return v
}

// ReadStringArray reads a field as Record.GetArrayOfString does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadStringArray(name string) []string {
	v, err := r.rec.GetArrayOfString(name)
	r.note(err)
	return v
}

// ReadStringPtrArray reads a field as Record.GetArrayOfStringPtr does; a field the writer's
// class version lacks reads as the zero value.
func (r *Reader) ReadStringPtrArray(name string) []*string {
	v, err := r.rec.GetArrayOfStringPtr(name)
	r.note(err)
	return v
}

// ReadDecimalArray reads a field as Record.GetArrayOfDecimal does; a field the writer's
// class version lacks reads as nil.
func (r *Reader) ReadDecimalArray(name string) []core.Decimal {
	v, err := r.rec.GetArrayOfDecimal(name)
	r.note(err)
	return derefAll(v)
}

// ReadTimeArray reads a field as Record.GetArrayOfTime does; a field the writer's
// class version lacks reads as nil.
func (r *Reader) ReadTimeArray(name string) []core.LocalTime {
	v, err := r.rec.GetArrayOfTime(name)
	r.note(err)
	return derefAll(v)
}

// ReadDateArray reads a field as Record.GetArrayOfDate does; a field the writer's
// class version lacks reads as nil.
func (r *Reader) ReadDateArray(name string) []core.LocalDate {
	v, err := r.rec.GetArrayOfDate(name)
	r.note(err)
	return derefAll(v)
}

// ReadTimestampArray reads a field as Record.GetArrayOfTimestamp does; a field the writer's
// class version lacks reads as nil.
func (r *Reader) ReadTimestampArray(name string) []core.LocalDateTime {
	v, err := r.rec.GetArrayOfTimestamp(name)
	r.note(err)
	return derefAll(v)
}

// ReadTimestampWithTimezoneArray reads a field as Record.GetArrayOfTimestampWithTimezone does; a field the writer's
// class version lacks reads as nil.
func (r *Reader) ReadTimestampWithTimezoneArray(name string) []core.OffsetDateTime {
	v, err := r.rec.GetArrayOfTimestampWithTimezone(name)
	r.note(err)
	return derefAll(v)
}

// derefAll turns the pointer items of a Portable array (never nil) into values.
func derefAll[T any](v []*T) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(v))
	for i, p := range v {
		out[i] = *p
	}
	return out
}
