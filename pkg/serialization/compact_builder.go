package serialization

import (
	"fmt"
	"slices"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// CompactRecordBuilder builds a Compact object from field names, kinds and
// values, without a Go type: Hazelcast's GenericRecordBuilder.compact. The
// variable-size fields land in the order they are set, so setting fields in
// name order reproduces Hazelcast's GenericRecord bytes and setting them in a
// Java serializer's order reproduces that serializer's bytes.
type CompactRecordBuilder struct {
	typeName string
	fields   []builderField
	err      error
}

type builderField struct {
	name  string
	kind  core.FieldKind
	value any
}

// NewCompactRecordBuilder starts a record of the given Compact type name.
func NewCompactRecordBuilder(typeName string) *CompactRecordBuilder {
	return &CompactRecordBuilder{typeName: typeName}
}

// Set adds a field. The value's Go type must suit the kind: the types the
// CompactRecord getters return (bool, int8 … float64, string, Decimal,
// LocalTime, LocalDate, LocalDateTime, OffsetDateTime, *CompactRecord and
// slices of them), pointers to them, or nil for null where the kind allows it.
func (b *CompactRecordBuilder) Set(name string, kind core.FieldKind, value any) *CompactRecordBuilder {
	b.fields = append(b.fields, builderField{name, kind, value})
	return b
}

// Build encodes the record. Nested records keep their own schemas; the
// returned record can resolve them, and a Service that writes it registers them.
func (b *CompactRecordBuilder) Build() (*CompactRecord, error) {
	defs := make([]FieldDef, len(b.fields))
	for i, f := range b.fields {
		defs[i] = FieldDef{Name: f.name, Kind: f.kind}
	}
	schema, err := NewSchema(b.typeName, defs)
	if err != nil {
		return nil, err
	}
	reg := NewSchemaRegistry()
	if _, err := reg.Add(schema); err != nil {
		return nil, err
	}
	for _, f := range b.fields {
		if err := adoptNested(reg, f.value); err != nil {
			return nil, err
		}
	}
	e := &encoder{}
	buf, err := e.writeCompact(nil, schema, nil, func(w *CompactWriter) {
		for _, f := range b.fields {
			w.writeValue(f.name, f.kind, f.value)
		}
	})
	if err != nil {
		return nil, err
	}
	rec, _, err := parseCompact(buf, 0, len(buf), reg, false)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// adoptNested copies the schemas of nested records in v into reg.
func adoptNested(reg *SchemaRegistry, v any) error {
	var recs []*CompactRecord
	switch x := v.(type) {
	case *CompactRecord:
		recs = []*CompactRecord{x}
	case CompactRecord:
		recs = []*CompactRecord{&x}
	case []*CompactRecord:
		recs = x
	case []any:
		for _, it := range x {
			if r, ok := it.(*CompactRecord); ok {
				recs = append(recs, r)
			}
		}
	}
	for _, r := range recs {
		if r == nil || r.schema == nil {
			continue
		}
		if r.embedded {
			if _, err := reg.Add(r.schema); err != nil {
				return err
			}
			continue
		}
		for _, s := range r.schemas.All() {
			if _, err := reg.Add(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordWriteOrder returns the field indexes of rec with the variable-size
// fields in the order their bodies appear, so that rewriting the record
// reproduces its bytes.
func recordWriteOrder(rec *CompactRecord) []int {
	order := make([]int, 0, len(rec.schema.Fields))
	var vars []int
	for i, f := range rec.schema.Fields {
		if f.Index < 0 {
			order = append(order, i)
		} else {
			vars = append(vars, i)
		}
	}
	pos := func(i int) int {
		rd, null, err := rec.varField(&rec.schema.Fields[i])
		if null || err != nil {
			return -1
		}
		return rd.Pos()
	}
	slices.SortStableFunc(vars, func(a, b int) int { return pos(a) - pos(b) })
	return append(order, vars...)
}

// writeValue writes a field from a generic value (see CompactRecordBuilder.Set).
func (w *CompactWriter) writeValue(name string, kind core.FieldKind, v any) {
	ok := true
	switch kind {
	case core.KindBoolean:
		var x bool
		if x, ok = v.(bool); ok {
			w.WriteBoolean(name, x)
		}
	case core.KindInt8:
		var x int8
		if x, ok = v.(int8); ok {
			w.WriteInt8(name, x)
		}
	case core.KindInt16:
		var x int16
		if x, ok = v.(int16); ok {
			w.WriteInt16(name, x)
		}
	case core.KindInt32:
		var x int32
		if x, ok = v.(int32); ok {
			w.WriteInt32(name, x)
		}
	case core.KindInt64:
		var x int64
		if x, ok = v.(int64); ok {
			w.WriteInt64(name, x)
		}
	case core.KindFloat32:
		var x float32
		if x, ok = v.(float32); ok {
			w.WriteFloat32(name, x)
		}
	case core.KindFloat64:
		var x float64
		if x, ok = v.(float64); ok {
			w.WriteFloat64(name, x)
		}
	case core.KindString:
		var x *string
		if x, ok = core.AsPtr[string](v); ok {
			w.WriteStringPtr(name, x)
		}
	case core.KindDecimal:
		var x *core.Decimal
		if x, ok = core.AsPtr[core.Decimal](v); ok {
			w.WriteDecimal(name, x)
		}
	case core.KindTime:
		var x *core.LocalTime
		if x, ok = core.AsPtr[core.LocalTime](v); ok {
			w.WriteTime(name, x)
		}
	case core.KindDate:
		var x *core.LocalDate
		if x, ok = core.AsPtr[core.LocalDate](v); ok {
			w.WriteDate(name, x)
		}
	case core.KindTimestamp:
		var x *core.LocalDateTime
		if x, ok = core.AsPtr[core.LocalDateTime](v); ok {
			w.WriteTimestamp(name, x)
		}
	case core.KindTimestampWithTimezone:
		var x *core.OffsetDateTime
		if x, ok = core.AsPtr[core.OffsetDateTime](v); ok {
			w.WriteTimestampWithTimezone(name, x)
		}
	case core.KindCompact:
		w.WriteCompact(name, v)
	case core.KindNullableBoolean:
		var x *bool
		if x, ok = core.AsPtr[bool](v); ok {
			w.WriteNullableBoolean(name, x)
		}
	case core.KindNullableInt8:
		var x *int8
		if x, ok = core.AsPtr[int8](v); ok {
			w.WriteNullableInt8(name, x)
		}
	case core.KindNullableInt16:
		var x *int16
		if x, ok = core.AsPtr[int16](v); ok {
			w.WriteNullableInt16(name, x)
		}
	case core.KindNullableInt32:
		var x *int32
		if x, ok = core.AsPtr[int32](v); ok {
			w.WriteNullableInt32(name, x)
		}
	case core.KindNullableInt64:
		var x *int64
		if x, ok = core.AsPtr[int64](v); ok {
			w.WriteNullableInt64(name, x)
		}
	case core.KindNullableFloat32:
		var x *float32
		if x, ok = core.AsPtr[float32](v); ok {
			w.WriteNullableFloat32(name, x)
		}
	case core.KindNullableFloat64:
		var x *float64
		if x, ok = core.AsPtr[float64](v); ok {
			w.WriteNullableFloat64(name, x)
		}
	case core.KindArrayOfBoolean:
		var x []bool
		if x, ok = core.AsSlice[bool](v); ok {
			w.WriteArrayOfBoolean(name, x)
		}
	case core.KindArrayOfInt8:
		var x []int8
		if x, ok = core.AsSlice[int8](v); ok {
			w.WriteArrayOfInt8(name, x)
		}
	case core.KindArrayOfInt16:
		var x []int16
		if x, ok = core.AsSlice[int16](v); ok {
			w.WriteArrayOfInt16(name, x)
		}
	case core.KindArrayOfInt32:
		var x []int32
		if x, ok = core.AsSlice[int32](v); ok {
			w.WriteArrayOfInt32(name, x)
		}
	case core.KindArrayOfInt64:
		var x []int64
		if x, ok = core.AsSlice[int64](v); ok {
			w.WriteArrayOfInt64(name, x)
		}
	case core.KindArrayOfFloat32:
		var x []float32
		if x, ok = core.AsSlice[float32](v); ok {
			w.WriteArrayOfFloat32(name, x)
		}
	case core.KindArrayOfFloat64:
		var x []float64
		if x, ok = core.AsSlice[float64](v); ok {
			w.WriteArrayOfFloat64(name, x)
		}
	case core.KindArrayOfString:
		var x []*string
		if x, ok = core.AsPtrSlice[string](v); ok {
			w.WriteArrayOfStringPtr(name, x)
		}
	case core.KindArrayOfDecimal:
		var x []*core.Decimal
		if x, ok = core.AsPtrSlice[core.Decimal](v); ok {
			w.WriteArrayOfDecimal(name, x)
		}
	case core.KindArrayOfTime:
		var x []*core.LocalTime
		if x, ok = core.AsPtrSlice[core.LocalTime](v); ok {
			w.WriteArrayOfTime(name, x)
		}
	case core.KindArrayOfDate:
		var x []*core.LocalDate
		if x, ok = core.AsPtrSlice[core.LocalDate](v); ok {
			w.WriteArrayOfDate(name, x)
		}
	case core.KindArrayOfTimestamp:
		var x []*core.LocalDateTime
		if x, ok = core.AsPtrSlice[core.LocalDateTime](v); ok {
			w.WriteArrayOfTimestamp(name, x)
		}
	case core.KindArrayOfTimestampWithTimezone:
		var x []*core.OffsetDateTime
		if x, ok = core.AsPtrSlice[core.OffsetDateTime](v); ok {
			w.WriteArrayOfTimestampWithTimezone(name, x)
		}
	case core.KindArrayOfCompact:
		switch x := v.(type) {
		case nil:
			w.WriteArrayOfCompact(name, nil)
		case []any:
			w.WriteArrayOfCompact(name, x)
		case []*CompactRecord:
			WriteCompactArray(w, name, x)
		default:
			ok = false
		}
	case core.KindArrayOfNullableBoolean:
		var x []*bool
		if x, ok = core.AsPtrSlice[bool](v); ok {
			w.WriteArrayOfNullableBoolean(name, x)
		}
	case core.KindArrayOfNullableInt8:
		var x []*int8
		if x, ok = core.AsPtrSlice[int8](v); ok {
			w.WriteArrayOfNullableInt8(name, x)
		}
	case core.KindArrayOfNullableInt16:
		var x []*int16
		if x, ok = core.AsPtrSlice[int16](v); ok {
			w.WriteArrayOfNullableInt16(name, x)
		}
	case core.KindArrayOfNullableInt32:
		var x []*int32
		if x, ok = core.AsPtrSlice[int32](v); ok {
			w.WriteArrayOfNullableInt32(name, x)
		}
	case core.KindArrayOfNullableInt64:
		var x []*int64
		if x, ok = core.AsPtrSlice[int64](v); ok {
			w.WriteArrayOfNullableInt64(name, x)
		}
	case core.KindArrayOfNullableFloat32:
		var x []*float32
		if x, ok = core.AsPtrSlice[float32](v); ok {
			w.WriteArrayOfNullableFloat32(name, x)
		}
	case core.KindArrayOfNullableFloat64:
		var x []*float64
		if x, ok = core.AsPtrSlice[float64](v); ok {
			w.WriteArrayOfNullableFloat64(name, x)
		}
	default:
		w.fail(&core.FieldError{Field: name, Reason: "kind " + kind.String() + " is not a Compact kind"})
		return
	}
	if !ok {
		w.fail(&core.FieldError{Field: name, Reason: fmt.Sprintf("a %T value cannot be written as %s", v, kind)})
	}
}
