package serialization

import (
	"github.com/atolldb/atoll/internal/serialization/core"
)

// ReadBoolean reads a field as CompactRecord.GetBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadBoolean(name string) bool {
	v, err := r.rec.GetBoolean(name)
	r.note(err)
	return v
}

// ReadInt8 reads a field as CompactRecord.GetInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadInt8(name string) int8 {
	v, err := r.rec.GetInt8(name)
	r.note(err)
	return v
}

// ReadInt16 reads a field as CompactRecord.GetInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadInt16(name string) int16 {
	v, err := r.rec.GetInt16(name)
	r.note(err)
	return v
}

// ReadInt32 reads a field as CompactRecord.GetInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadInt32(name string) int32 {
	v, err := r.rec.GetInt32(name)
	r.note(err)
	return v
}

// ReadInt64 reads a field as CompactRecord.GetInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadInt64(name string) int64 {
	v, err := r.rec.GetInt64(name)
	r.note(err)
	return v
}

// ReadFloat32 reads a field as CompactRecord.GetFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadFloat32(name string) float32 {
	v, err := r.rec.GetFloat32(name)
	r.note(err)
	return v
}

// ReadFloat64 reads a field as CompactRecord.GetFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadFloat64(name string) float64 {
	v, err := r.rec.GetFloat64(name)
	r.note(err)
	return v
}

// ReadString reads a field as CompactRecord.GetString does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadString(name string) string {
	v, err := r.rec.GetString(name)
	r.note(err)
	return v
}

// ReadStringPtr reads a field as CompactRecord.GetStringPtr does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadStringPtr(name string) *string {
	v, err := r.rec.GetStringPtr(name)
	r.note(err)
	return v
}

// ReadDecimal reads a field as CompactRecord.GetDecimal does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadDecimal(name string) *core.Decimal {
	v, err := r.rec.GetDecimal(name)
	r.note(err)
	return v
}

// ReadTime reads a field as CompactRecord.GetTime does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadTime(name string) *core.LocalTime {
	v, err := r.rec.GetTime(name)
	r.note(err)
	return v
}

// ReadDate reads a field as CompactRecord.GetDate does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadDate(name string) *core.LocalDate {
	v, err := r.rec.GetDate(name)
	r.note(err)
	return v
}

// ReadTimestamp reads a field as CompactRecord.GetTimestamp does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadTimestamp(name string) *core.LocalDateTime {
	v, err := r.rec.GetTimestamp(name)
	r.note(err)
	return v
}

// ReadTimestampWithTimezone reads a field as CompactRecord.GetTimestampWithTimezone does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadTimestampWithTimezone(name string) *core.OffsetDateTime {
	v, err := r.rec.GetTimestampWithTimezone(name)
	r.note(err)
	return v
}

// ReadNullableBoolean reads a field as CompactRecord.GetNullableBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableBoolean(name string) *bool {
	v, err := r.rec.GetNullableBoolean(name)
	r.note(err)
	return v
}

// ReadNullableInt8 reads a field as CompactRecord.GetNullableInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableInt8(name string) *int8 {
	v, err := r.rec.GetNullableInt8(name)
	r.note(err)
	return v
}

// ReadNullableInt16 reads a field as CompactRecord.GetNullableInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableInt16(name string) *int16 {
	v, err := r.rec.GetNullableInt16(name)
	r.note(err)
	return v
}

// ReadNullableInt32 reads a field as CompactRecord.GetNullableInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableInt32(name string) *int32 {
	v, err := r.rec.GetNullableInt32(name)
	r.note(err)
	return v
}

// ReadNullableInt64 reads a field as CompactRecord.GetNullableInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableInt64(name string) *int64 {
	v, err := r.rec.GetNullableInt64(name)
	r.note(err)
	return v
}

// ReadNullableFloat32 reads a field as CompactRecord.GetNullableFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableFloat32(name string) *float32 {
	v, err := r.rec.GetNullableFloat32(name)
	r.note(err)
	return v
}

// ReadNullableFloat64 reads a field as CompactRecord.GetNullableFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadNullableFloat64(name string) *float64 {
	v, err := r.rec.GetNullableFloat64(name)
	r.note(err)
	return v
}

// ReadArrayOfBoolean reads a field as CompactRecord.GetArrayOfBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfBoolean(name string) []bool {
	v, err := r.rec.GetArrayOfBoolean(name)
	r.note(err)
	return v
}

// ReadArrayOfInt8 reads a field as CompactRecord.GetArrayOfInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfInt8(name string) []int8 {
	v, err := r.rec.GetArrayOfInt8(name)
	r.note(err)
	return v
}

// ReadArrayOfInt16 reads a field as CompactRecord.GetArrayOfInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfInt16(name string) []int16 {
	v, err := r.rec.GetArrayOfInt16(name)
	r.note(err)
	return v
}

// ReadArrayOfInt32 reads a field as CompactRecord.GetArrayOfInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfInt32(name string) []int32 {
	v, err := r.rec.GetArrayOfInt32(name)
	r.note(err)
	return v
}

// ReadArrayOfInt64 reads a field as CompactRecord.GetArrayOfInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfInt64(name string) []int64 {
	v, err := r.rec.GetArrayOfInt64(name)
	r.note(err)
	return v
}

// ReadArrayOfFloat32 reads a field as CompactRecord.GetArrayOfFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfFloat32(name string) []float32 {
	v, err := r.rec.GetArrayOfFloat32(name)
	r.note(err)
	return v
}

// ReadArrayOfFloat64 reads a field as CompactRecord.GetArrayOfFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfFloat64(name string) []float64 {
	v, err := r.rec.GetArrayOfFloat64(name)
	r.note(err)
	return v
}

// ReadArrayOfString reads a field as CompactRecord.GetArrayOfString does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfString(name string) []string {
	v, err := r.rec.GetArrayOfString(name)
	r.note(err)
	return v
}

// ReadArrayOfStringPtr reads a field as CompactRecord.GetArrayOfStringPtr does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfStringPtr(name string) []*string {
	v, err := r.rec.GetArrayOfStringPtr(name)
	r.note(err)
	return v
}

// ReadArrayOfDecimal reads a field as CompactRecord.GetArrayOfDecimal does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfDecimal(name string) []*core.Decimal {
	v, err := r.rec.GetArrayOfDecimal(name)
	r.note(err)
	return v
}

// ReadArrayOfTime reads a field as CompactRecord.GetArrayOfTime does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfTime(name string) []*core.LocalTime {
	v, err := r.rec.GetArrayOfTime(name)
	r.note(err)
	return v
}

// ReadArrayOfDate reads a field as CompactRecord.GetArrayOfDate does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfDate(name string) []*core.LocalDate {
	v, err := r.rec.GetArrayOfDate(name)
	r.note(err)
	return v
}

// ReadArrayOfTimestamp reads a field as CompactRecord.GetArrayOfTimestamp does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfTimestamp(name string) []*core.LocalDateTime {
	v, err := r.rec.GetArrayOfTimestamp(name)
	r.note(err)
	return v
}

// ReadArrayOfTimestampWithTimezone reads a field as CompactRecord.GetArrayOfTimestampWithTimezone does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfTimestampWithTimezone(name string) []*core.OffsetDateTime {
	v, err := r.rec.GetArrayOfTimestampWithTimezone(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableBoolean reads a field as CompactRecord.GetArrayOfNullableBoolean does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableBoolean(name string) []*bool {
	v, err := r.rec.GetArrayOfNullableBoolean(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt8 reads a field as CompactRecord.GetArrayOfNullableInt8 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableInt8(name string) []*int8 {
	v, err := r.rec.GetArrayOfNullableInt8(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt16 reads a field as CompactRecord.GetArrayOfNullableInt16 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableInt16(name string) []*int16 {
	v, err := r.rec.GetArrayOfNullableInt16(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt32 reads a field as CompactRecord.GetArrayOfNullableInt32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableInt32(name string) []*int32 {
	v, err := r.rec.GetArrayOfNullableInt32(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableInt64 reads a field as CompactRecord.GetArrayOfNullableInt64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableInt64(name string) []*int64 {
	v, err := r.rec.GetArrayOfNullableInt64(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableFloat32 reads a field as CompactRecord.GetArrayOfNullableFloat32 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableFloat32(name string) []*float32 {
	v, err := r.rec.GetArrayOfNullableFloat32(name)
	r.note(err)
	return v
}

// ReadArrayOfNullableFloat64 reads a field as CompactRecord.GetArrayOfNullableFloat64 does; a field the
// writer's schema lacks reads as the zero value.
func (r *CompactReader) ReadArrayOfNullableFloat64(name string) []*float64 {
	v, err := r.rec.GetArrayOfNullableFloat64(name)
	r.note(err)
	return v
}
