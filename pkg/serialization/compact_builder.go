package serialization

import (
	"fmt"
	"slices"
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
	kind  FieldKind
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
func (b *CompactRecordBuilder) Set(name string, kind FieldKind, value any) *CompactRecordBuilder {
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

// asPtr accepts nil, T or *T.
func asPtr[T any](v any) (*T, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case T:
		return &x, true
	case *T:
		return x, true
	}
	return nil, false
}

// asPtrSlice accepts nil, []*T or []T.
func asPtrSlice[T any](v any) ([]*T, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []*T:
		return x, true
	case []T:
		if x == nil {
			return nil, true
		}
		out := make([]*T, len(x))
		for i := range x {
			out[i] = &x[i]
		}
		return out, true
	}
	return nil, false
}

// asSlice accepts nil or []T.
func asSlice[T any](v any) ([]T, bool) {
	if v == nil {
		return nil, true
	}
	x, ok := v.([]T)
	return x, ok
}

// writeValue writes a field from a generic value (see CompactRecordBuilder.Set).
func (w *CompactWriter) writeValue(name string, kind FieldKind, v any) {
	ok := true
	switch kind {
	case KindBoolean:
		var x bool
		if x, ok = v.(bool); ok {
			w.WriteBoolean(name, x)
		}
	case KindInt8:
		var x int8
		if x, ok = v.(int8); ok {
			w.WriteInt8(name, x)
		}
	case KindInt16:
		var x int16
		if x, ok = v.(int16); ok {
			w.WriteInt16(name, x)
		}
	case KindInt32:
		var x int32
		if x, ok = v.(int32); ok {
			w.WriteInt32(name, x)
		}
	case KindInt64:
		var x int64
		if x, ok = v.(int64); ok {
			w.WriteInt64(name, x)
		}
	case KindFloat32:
		var x float32
		if x, ok = v.(float32); ok {
			w.WriteFloat32(name, x)
		}
	case KindFloat64:
		var x float64
		if x, ok = v.(float64); ok {
			w.WriteFloat64(name, x)
		}
	case KindString:
		var x *string
		if x, ok = asPtr[string](v); ok {
			w.WriteStringPtr(name, x)
		}
	case KindDecimal:
		var x *Decimal
		if x, ok = asPtr[Decimal](v); ok {
			w.WriteDecimal(name, x)
		}
	case KindTime:
		var x *LocalTime
		if x, ok = asPtr[LocalTime](v); ok {
			w.WriteTime(name, x)
		}
	case KindDate:
		var x *LocalDate
		if x, ok = asPtr[LocalDate](v); ok {
			w.WriteDate(name, x)
		}
	case KindTimestamp:
		var x *LocalDateTime
		if x, ok = asPtr[LocalDateTime](v); ok {
			w.WriteTimestamp(name, x)
		}
	case KindTimestampWithTimezone:
		var x *OffsetDateTime
		if x, ok = asPtr[OffsetDateTime](v); ok {
			w.WriteTimestampWithTimezone(name, x)
		}
	case KindCompact:
		w.WriteCompact(name, v)
	case KindNullableBoolean:
		var x *bool
		if x, ok = asPtr[bool](v); ok {
			w.WriteNullableBoolean(name, x)
		}
	case KindNullableInt8:
		var x *int8
		if x, ok = asPtr[int8](v); ok {
			w.WriteNullableInt8(name, x)
		}
	case KindNullableInt16:
		var x *int16
		if x, ok = asPtr[int16](v); ok {
			w.WriteNullableInt16(name, x)
		}
	case KindNullableInt32:
		var x *int32
		if x, ok = asPtr[int32](v); ok {
			w.WriteNullableInt32(name, x)
		}
	case KindNullableInt64:
		var x *int64
		if x, ok = asPtr[int64](v); ok {
			w.WriteNullableInt64(name, x)
		}
	case KindNullableFloat32:
		var x *float32
		if x, ok = asPtr[float32](v); ok {
			w.WriteNullableFloat32(name, x)
		}
	case KindNullableFloat64:
		var x *float64
		if x, ok = asPtr[float64](v); ok {
			w.WriteNullableFloat64(name, x)
		}
	case KindArrayOfBoolean:
		var x []bool
		if x, ok = asSlice[bool](v); ok {
			w.WriteArrayOfBoolean(name, x)
		}
	case KindArrayOfInt8:
		var x []int8
		if x, ok = asSlice[int8](v); ok {
			w.WriteArrayOfInt8(name, x)
		}
	case KindArrayOfInt16:
		var x []int16
		if x, ok = asSlice[int16](v); ok {
			w.WriteArrayOfInt16(name, x)
		}
	case KindArrayOfInt32:
		var x []int32
		if x, ok = asSlice[int32](v); ok {
			w.WriteArrayOfInt32(name, x)
		}
	case KindArrayOfInt64:
		var x []int64
		if x, ok = asSlice[int64](v); ok {
			w.WriteArrayOfInt64(name, x)
		}
	case KindArrayOfFloat32:
		var x []float32
		if x, ok = asSlice[float32](v); ok {
			w.WriteArrayOfFloat32(name, x)
		}
	case KindArrayOfFloat64:
		var x []float64
		if x, ok = asSlice[float64](v); ok {
			w.WriteArrayOfFloat64(name, x)
		}
	case KindArrayOfString:
		var x []*string
		if x, ok = asPtrSlice[string](v); ok {
			w.WriteArrayOfStringPtr(name, x)
		}
	case KindArrayOfDecimal:
		var x []*Decimal
		if x, ok = asPtrSlice[Decimal](v); ok {
			w.WriteArrayOfDecimal(name, x)
		}
	case KindArrayOfTime:
		var x []*LocalTime
		if x, ok = asPtrSlice[LocalTime](v); ok {
			w.WriteArrayOfTime(name, x)
		}
	case KindArrayOfDate:
		var x []*LocalDate
		if x, ok = asPtrSlice[LocalDate](v); ok {
			w.WriteArrayOfDate(name, x)
		}
	case KindArrayOfTimestamp:
		var x []*LocalDateTime
		if x, ok = asPtrSlice[LocalDateTime](v); ok {
			w.WriteArrayOfTimestamp(name, x)
		}
	case KindArrayOfTimestampWithTimezone:
		var x []*OffsetDateTime
		if x, ok = asPtrSlice[OffsetDateTime](v); ok {
			w.WriteArrayOfTimestampWithTimezone(name, x)
		}
	case KindArrayOfCompact:
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
	case KindArrayOfNullableBoolean:
		var x []*bool
		if x, ok = asPtrSlice[bool](v); ok {
			w.WriteArrayOfNullableBoolean(name, x)
		}
	case KindArrayOfNullableInt8:
		var x []*int8
		if x, ok = asPtrSlice[int8](v); ok {
			w.WriteArrayOfNullableInt8(name, x)
		}
	case KindArrayOfNullableInt16:
		var x []*int16
		if x, ok = asPtrSlice[int16](v); ok {
			w.WriteArrayOfNullableInt16(name, x)
		}
	case KindArrayOfNullableInt32:
		var x []*int32
		if x, ok = asPtrSlice[int32](v); ok {
			w.WriteArrayOfNullableInt32(name, x)
		}
	case KindArrayOfNullableInt64:
		var x []*int64
		if x, ok = asPtrSlice[int64](v); ok {
			w.WriteArrayOfNullableInt64(name, x)
		}
	case KindArrayOfNullableFloat32:
		var x []*float32
		if x, ok = asPtrSlice[float32](v); ok {
			w.WriteArrayOfNullableFloat32(name, x)
		}
	case KindArrayOfNullableFloat64:
		var x []*float64
		if x, ok = asPtrSlice[float64](v); ok {
			w.WriteArrayOfNullableFloat64(name, x)
		}
	default:
		w.fail(&FieldError{Field: name, Reason: "kind " + kind.String() + " is not a Compact kind"})
		return
	}
	if !ok {
		w.fail(&FieldError{Field: name, Reason: fmt.Sprintf("a %T value cannot be written as %s", v, kind)})
	}
}
