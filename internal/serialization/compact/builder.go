package compact

import (
	"fmt"
	"slices"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// RecordBuilder builds a Compact object from field names, kinds and
// values, without a Go type: Hazelcast's GenericRecordBuilder.compact. The
// variable-size fields land in the order they are set, so setting fields in
// name order reproduces Hazelcast's GenericRecord bytes and setting them in a
// Java serializer's order reproduces that serializer's bytes.
type RecordBuilder struct {
	typeName string
	fields   []builderField
	err      error
}

type builderField struct {
	name  string
	kind  core.FieldKind
	value any
}

// NewRecordBuilder starts a record of the given Compact type name.
func NewRecordBuilder(typeName string) *RecordBuilder {
	return &RecordBuilder{typeName: typeName}
}

// Set adds a field. The value's Go type must suit the kind: the types the
// Record getters return (bool, int8 … float64, string, Decimal,
// LocalTime, LocalDate, LocalDateTime, OffsetDateTime, *Record and
// slices of them), pointers to them, or nil for null where the kind allows it.
func (b *RecordBuilder) Set(name string, kind core.FieldKind, value any) *RecordBuilder {
	b.fields = append(b.fields, builderField{name, kind, value})
	return b
}

// Build encodes the record. Nested records keep their own schemas; the
// returned record can resolve them, and a Service that writes it registers them.
func (b *RecordBuilder) Build() (*Record, error) {
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
	e := &Encoder{Encoding: &core.Encoding{}}
	buf, err := e.write(nil, schema, nil, func(w *Writer) {
		for _, f := range b.fields {
			w.writeValue(f.name, f.kind, f.value)
		}
	})
	if err != nil {
		return nil, err
	}
	rec, _, err := Parse(buf, 0, len(buf), reg, false)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// adoptNested copies the schemas of nested records in v into reg.
func adoptNested(reg *SchemaRegistry, v any) error {
	var recs []*Record
	switch x := v.(type) {
	case *Record:
		recs = []*Record{x}
	case Record:
		recs = []*Record{&x}
	case []*Record:
		recs = x
	case []any:
		for _, it := range x {
			if r, ok := it.(*Record); ok {
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
func recordWriteOrder(rec *Record) []int {
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

// writeValue writes a field from a generic value (see RecordBuilder.Set).
func (w *Writer) writeValue(name string, kind core.FieldKind, v any) {
	if !core.WriteValue(valueField{w, name}, kind, v) {
		w.fail(&core.FieldError{Field: name, Reason: fmt.Sprintf("a %T value cannot be written as %s", v, kind)})
	}
}

// valueField is a field of a Writer as the value switch writes it.
type valueField struct {
	w    *Writer
	name string
}

var _ core.ValueWriter = valueField{}

func (f valueField) refuse(k core.FieldKind) {
	f.w.fail(&core.FieldError{Field: f.name, Reason: "kind " + k.String() + " is not a Compact kind"})
}

func (f valueField) Boolean(v bool) { f.w.WriteBoolean(f.name, v) }

func (f valueField) Int8(v int8) { f.w.WriteInt8(f.name, v) }

func (f valueField) Char(core.Char) { f.refuse(core.KindChar) }

func (f valueField) Int16(v int16) { f.w.WriteInt16(f.name, v) }

func (f valueField) Int32(v int32) { f.w.WriteInt32(f.name, v) }

func (f valueField) Int64(v int64) { f.w.WriteInt64(f.name, v) }

func (f valueField) Float32(v float32) { f.w.WriteFloat32(f.name, v) }

func (f valueField) Float64(v float64) { f.w.WriteFloat64(f.name, v) }

func (f valueField) String(v *string) { f.w.WriteStringPtr(f.name, v) }

func (f valueField) Decimal(v *core.Decimal) { f.w.WriteDecimal(f.name, v) }

func (f valueField) Time(v *core.LocalTime) { f.w.WriteTime(f.name, v) }

func (f valueField) Date(v *core.LocalDate) { f.w.WriteDate(f.name, v) }

func (f valueField) Timestamp(v *core.LocalDateTime) { f.w.WriteTimestamp(f.name, v) }

func (f valueField) TimestampTZ(v *core.OffsetDateTime) { f.w.WriteTimestampWithTimezone(f.name, v) }

func (f valueField) NullableBoolean(v *bool) { f.w.WriteNullableBoolean(f.name, v) }

func (f valueField) NullableInt8(v *int8) { f.w.WriteNullableInt8(f.name, v) }

func (f valueField) NullableInt16(v *int16) { f.w.WriteNullableInt16(f.name, v) }

func (f valueField) NullableInt32(v *int32) { f.w.WriteNullableInt32(f.name, v) }

func (f valueField) NullableInt64(v *int64) { f.w.WriteNullableInt64(f.name, v) }

func (f valueField) NullableFloat32(v *float32) { f.w.WriteNullableFloat32(f.name, v) }

func (f valueField) NullableFloat64(v *float64) { f.w.WriteNullableFloat64(f.name, v) }

func (f valueField) Booleans(v []bool) { f.w.WriteArrayOfBoolean(f.name, v) }

func (f valueField) Int8s(v []int8) { f.w.WriteArrayOfInt8(f.name, v) }

func (f valueField) Bytes(v []byte) { f.w.WriteArrayOfInt8(f.name, core.BytesToInt8s(v)) }

func (f valueField) Chars([]core.Char) { f.refuse(core.KindArrayOfChar) }

func (f valueField) Int16s(v []int16) { f.w.WriteArrayOfInt16(f.name, v) }

func (f valueField) Int32s(v []int32) { f.w.WriteArrayOfInt32(f.name, v) }

func (f valueField) Int64s(v []int64) { f.w.WriteArrayOfInt64(f.name, v) }

func (f valueField) Float32s(v []float32) { f.w.WriteArrayOfFloat32(f.name, v) }

func (f valueField) Float64s(v []float64) { f.w.WriteArrayOfFloat64(f.name, v) }

func (f valueField) Strings(v []*string) { f.w.WriteArrayOfStringPtr(f.name, v) }

func (f valueField) Decimals(v []*core.Decimal) { f.w.WriteArrayOfDecimal(f.name, v) }

func (f valueField) Times(v []*core.LocalTime) { f.w.WriteArrayOfTime(f.name, v) }

func (f valueField) Dates(v []*core.LocalDate) { f.w.WriteArrayOfDate(f.name, v) }

func (f valueField) Timestamps(v []*core.LocalDateTime) { f.w.WriteArrayOfTimestamp(f.name, v) }

func (f valueField) TimestampTZs(v []*core.OffsetDateTime) {
	f.w.WriteArrayOfTimestampWithTimezone(f.name, v)
}

func (f valueField) NullableBooleans(v []*bool) { f.w.WriteArrayOfNullableBoolean(f.name, v) }

func (f valueField) NullableInt8s(v []*int8) { f.w.WriteArrayOfNullableInt8(f.name, v) }

func (f valueField) NullableInt16s(v []*int16) { f.w.WriteArrayOfNullableInt16(f.name, v) }

func (f valueField) NullableInt32s(v []*int32) { f.w.WriteArrayOfNullableInt32(f.name, v) }

func (f valueField) NullableInt64s(v []*int64) { f.w.WriteArrayOfNullableInt64(f.name, v) }

func (f valueField) NullableFloat32s(v []*float32) { f.w.WriteArrayOfNullableFloat32(f.name, v) }

func (f valueField) NullableFloat64s(v []*float64) { f.w.WriteArrayOfNullableFloat64(f.name, v) }

func (f valueField) Object(v any) bool { f.w.WriteCompact(f.name, v); return true }

func (f valueField) Objects(v any) bool {
	switch x := v.(type) {
	case nil:
		f.w.WriteArrayOfCompact(f.name, nil)
	case []any:
		f.w.WriteArrayOfCompact(f.name, x)
	case []*Record:
		WriteArray(f.w, f.name, x)
	default:
		return false
	}
	return true
}
