package serialization

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// compactPlan is a path step compiled for one Compact schema: the field
// the step names in it, or none.
type compactPlan struct {
	id     int64
	schema *Schema
	field  *SchemaField // nil: the schema has no such field
	// known caches, for a strict reader, that another version of the
	// type has the field (registries only grow, so true stays true).
	known atomic.Bool
	next  *fieldNode // the steps after a nested object, or nil
}

// compactObject reads the node's steps from the Compact object whose
// schema id is at buf[p].
func (n *fieldNode) compactObject(buf []byte, p, limit int, embedded bool, depth int, out *fieldSink) error {
	id, ok := wire.Int64At(buf[:limit], p)
	if !ok {
		return malformed("compact", p, "truncated schema id")
	}
	var plan *compactPlan
	if plans := n.compact.Load(); plans != nil {
		for _, c := range *plans {
			if c.id == id {
				plan = c
				break
			}
		}
	}
	if plan == nil {
		// The first object of a schema: check it whole and compile.
		rec, _, err := parseCompact(buf, p, limit, n.r.svc.schemas, embedded)
		if err != nil {
			return err
		}
		plan = &compactPlan{id: id, schema: rec.schema, next: n.child()}
		plan.field, _ = rec.schema.Field(n.steps[0].name)
		addPlan(&n.compact, plan)
	}
	rec, _, err := viewCompact(buf, p, limit, plan.schema, n.r.svc.schemas, embedded)
	if err != nil {
		return err
	}
	return plan.read(n, &rec, depth, out)
}

func (c *compactPlan) read(n *fieldNode, rec *CompactRecord, depth int, out *fieldSink) error {
	st := n.steps[0]
	f := c.field
	if f == nil {
		return c.absent(n)
	}
	switch {
	case st.any || st.index >= 0:
		if !f.Kind.IsArray() {
			return n.notAnObject(f.Name, f.Kind.String())
		}
		count, err := rec.itemCount(f)
		if err != nil || count <= 0 {
			return err
		}
		from, to := 0, count
		if !st.any {
			if st.index >= count {
				return nil
			}
			from, to = st.index, st.index+1
		}
		for i := from; i < to; i++ {
			v, buf, at, err := rec.item(f, i)
			if err != nil {
				return err
			}
			if err := c.emit(n, rec, v, buf, at, depth, out); err != nil {
				return err
			}
		}
		return nil
	}
	v, buf, at, err := rec.fieldValue(f)
	if err != nil {
		return err
	}
	return c.emit(n, rec, v, buf, at, depth, out)
}

// emit hands on a value the step selected: to the sink at the end of the
// path, or to the next node when it is a nested object (at buf[at]).
func (c *compactPlan) emit(n *fieldNode, rec *CompactRecord, v FieldValue, buf []byte, at int, depth int, out *fieldSink) error {
	if c.next == nil {
		if v.Kind == ValueObject {
			nested, _, err := parseCompact(buf, at, len(buf), rec.schemas, rec.embedded)
			if err != nil {
				return err
			}
			v, err = n.nestedData(&nested)
			if err != nil {
				return err
			}
		}
		return out.emit(v)
	}
	if v.Kind != ValueObject {
		if v.Kind == ValueNull {
			return nil
		}
		return n.notAnObject(c.field.Name, c.field.Kind.String())
	}
	return c.next.compactObject(buf, at, len(buf), rec.embedded, depth+1, out)
}

// absent handles a field the object's schema does not have: null (schema
// evolution), or for a strict reader an error when no version of the type
// has it.
func (c *compactPlan) absent(n *fieldNode) error {
	if !n.r.opts.Strict || c.known.Load() {
		return nil
	}
	name := n.steps[0].name
	if n.r.svc.schemas.typeHasField(c.schema.TypeName, name) {
		c.known.Store(true)
		return nil
	}
	return &UnknownFieldError{Field: name, Reason: "Compact type " + strconv.Quote(c.schema.TypeName) + " has no field " + strconv.Quote(name)}
}

// typeHasField reports whether a schema of the type name has the field.
func (r *SchemaRegistry) typeHasField(typeName, field string) bool {
	for _, s := range *r.m.Load() {
		if s.TypeName == typeName {
			if _, ok := s.byName[field]; ok {
				return true
			}
		}
	}
	return false
}

// valueKinds maps Compact and Portable field kinds to the kinds of the
// values a FieldReader returns for them.
var valueKinds = [kindCount]ValueKind{
	KindBoolean: ValueBool, KindInt8: ValueInt8, KindChar: ValueChar, KindInt16: ValueInt16,
	KindInt32: ValueInt32, KindInt64: ValueInt64, KindFloat32: ValueFloat32, KindFloat64: ValueFloat64,
	KindString: ValueString, KindDecimal: ValueDecimal, KindTime: ValueTime, KindDate: ValueDate,
	KindTimestamp: ValueTimestamp, KindTimestampWithTimezone: ValueTimestampTZ,
	KindCompact: ValueObject, KindPortable: ValueObject,
	KindNullableBoolean: ValueBool, KindNullableInt8: ValueInt8, KindNullableInt16: ValueInt16,
	KindNullableInt32: ValueInt32, KindNullableInt64: ValueInt64,
	KindNullableFloat32: ValueFloat32, KindNullableFloat64: ValueFloat64,
}

// fieldValue reads field f. A nested object is a ValueObject without
// bytes; its own bytes start at buf[at] and end by the end of buf.
func (r *CompactRecord) fieldValue(f *SchemaField) (v FieldValue, buf []byte, at int, err error) {
	if f.Offset >= 0 {
		return fixedValue(r.data[f.Offset:], f), nil, 0, nil
	}
	rd, null, err := r.varField(f)
	if err != nil || null {
		return FieldValue{}, nil, 0, err
	}
	if f.Kind.IsArray() {
		return FieldValue{Kind: ValueArray}, nil, 0, nil
	}
	if f.Kind == KindCompact {
		return FieldValue{Kind: ValueObject}, rd.Buf(), rd.Pos(), nil
	}
	v = varValue(&rd, f.Kind, false)
	return v, nil, 0, readErr(&rd, f)
}

// fixedValue reads a fixed-size field from the fixed-size section.
func fixedValue(b []byte, f *SchemaField) FieldValue {
	be := binary.BigEndian
	switch f.Kind {
	case KindBoolean:
		return boolValue(b[0]&(1<<f.BitOffset) != 0)
	case KindInt8:
		return FieldValue{Kind: ValueInt8, I: int64(int8(b[0]))}
	case KindInt16:
		return FieldValue{Kind: ValueInt16, I: int64(int16(be.Uint16(b)))}
	case KindInt32:
		return FieldValue{Kind: ValueInt32, I: int64(int32(be.Uint32(b)))}
	case KindInt64:
		return FieldValue{Kind: ValueInt64, I: int64(be.Uint64(b))}
	case KindFloat32:
		return FieldValue{Kind: ValueFloat32, F: float64(math.Float32frombits(be.Uint32(b)))}
	}
	return FieldValue{Kind: ValueFloat64, F: math.Float64frombits(be.Uint64(b))}
}

// varValue reads a value of kind k at rd: a nullable primitive, a string
// (a view of its bytes) or a decimal or temporal value (a view of the
// bytes from its start; shortYear for Portable's encoding). Errors are
// left in rd.
func varValue(rd *wire.Reader, k FieldKind, shortYear bool) FieldValue {
	switch k {
	case KindBoolean, KindNullableBoolean:
		return boolValue(rd.Bool())
	case KindInt8, KindNullableInt8:
		return FieldValue{Kind: ValueInt8, I: int64(rd.Int8())}
	case KindChar:
		return FieldValue{Kind: ValueChar, I: int64(rd.Uint16())}
	case KindInt16, KindNullableInt16:
		return FieldValue{Kind: ValueInt16, I: int64(rd.Int16())}
	case KindInt32, KindNullableInt32:
		return FieldValue{Kind: ValueInt32, I: int64(rd.Int32())}
	case KindInt64, KindNullableInt64:
		return FieldValue{Kind: ValueInt64, I: rd.Int64()}
	case KindFloat32, KindNullableFloat32:
		return FieldValue{Kind: ValueFloat32, F: float64(rd.Float32())}
	case KindFloat64, KindNullableFloat64:
		return FieldValue{Kind: ValueFloat64, F: rd.Float64()}
	case KindString:
		b, ok := rd.StringBytes()
		if !ok {
			return FieldValue{}
		}
		return FieldValue{Kind: ValueString, B: b}
	case KindDecimal, KindTime, KindDate, KindTimestamp, KindTimestampWithTimezone:
		return FieldValue{Kind: valueKinds[k], B: rd.Buf()[rd.Pos():], shortYear: shortYear}
	}
	return FieldValue{Kind: ValueArray}
}

// itemCount returns the length of array field f, or -1 for a null array.
func (r *CompactRecord) itemCount(f *SchemaField) (int, error) {
	rd, null, err := r.varField(f)
	if err != nil || null {
		return -1, err
	}
	switch f.Kind {
	case KindArrayOfBoolean:
		n := rd.Int32()
		if n < 0 || int64(n) > int64(rd.Len())*8 {
			rd.Fail(wire.ErrLength)
		}
		return int(n), readErr(&rd, f)
	case KindArrayOfInt8, KindArrayOfInt16, KindArrayOfInt32, KindArrayOfInt64, KindArrayOfFloat32, KindArrayOfFloat64:
		n := arrayLen(&rd, fixedSize(f.Kind.Elem()))
		return n, readErr(&rd, f)
	}
	it, err := readVarItems(&rd, f)
	return it.count, err
}

// item reads item i (< itemCount) of array field f, as fieldValue reads
// a field.
func (r *CompactRecord) item(f *SchemaField, i int) (v FieldValue, buf []byte, at int, err error) {
	rd, _, err := r.varField(f)
	if err != nil {
		return FieldValue{}, nil, 0, err
	}
	elem := f.Kind.Elem()
	switch f.Kind {
	case KindArrayOfBoolean:
		rd.Skip(4 + i/8)
		b := rd.Bytes(1)
		if b == nil {
			return FieldValue{}, nil, 0, readErr(&rd, f)
		}
		return boolValue(b[0]&(1<<(i%8)) != 0), nil, 0, nil
	case KindArrayOfInt8, KindArrayOfInt16, KindArrayOfInt32, KindArrayOfInt64, KindArrayOfFloat32, KindArrayOfFloat64:
		rd.Skip(4 + i*fixedSize(elem))
		v = varValue(&rd, elem, false)
		return v, nil, 0, readErr(&rd, f)
	}
	it, err := readVarItems(&rd, f)
	if err != nil {
		return FieldValue{}, nil, 0, err
	}
	item, null, err := it.item(i)
	if err != nil || null {
		return FieldValue{}, nil, 0, err
	}
	if elem == KindCompact {
		return FieldValue{Kind: ValueObject}, item.Buf(), item.Pos(), nil
	}
	v = varValue(&item, elem, false)
	return v, nil, 0, readErr(&item, f)
}
