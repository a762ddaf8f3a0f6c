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
	top    bool         // compactTop can read the field: a last, plain step to a scalar
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
		plan.top = plan.next == nil && (plan.field == nil || !plan.field.Kind.IsArray() && plan.field.Kind != KindCompact)
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

// compactTop is Read's fast path for a plain field of a top-level Compact
// object (type -55) whose schema has a plan: ok=false leaves the read to
// the general walk.
func (n *fieldNode) compactTop(d Data, v *FieldValue) bool {
	if len(d) < HeaderSize+8 {
		return false
	}
	id := int64(binary.BigEndian.Uint64(d[HeaderSize:]))
	plans := n.compact.Load()
	if plans == nil {
		return false
	}
	var c *compactPlan
	for _, p := range *plans {
		if p.id == id {
			c = p
			break
		}
	}
	if c == nil || !c.top {
		return false
	}
	f := c.field
	if f == nil { // absent: null
		*v = FieldValue{}
		return !n.r.opts.Strict || c.known.Load()
	}
	s := c.schema
	base := HeaderSize + 8
	if s.VarCount == 0 {
		if len(d) < base+int(s.FixedSize) {
			return false
		}
		*v = fixedValue(d[base+int(f.Offset):], f)
		return true
	}
	if len(d) < base+4 {
		return false
	}
	dataLen := int(int32(binary.BigEndian.Uint32(d[base:])))
	base += 4
	width := offsetWidth(dataLen)
	if dataLen < int(s.FixedSize) || dataLen > len(d)-base || width*int(s.VarCount) > len(d)-base-dataLen {
		return false
	}
	if f.Offset >= 0 {
		*v = fixedValue(d[base+int(f.Offset):], f)
		return true
	}
	off, null := offsetAt(d, base+dataLen+int(f.Index)*width, width)
	if null {
		*v = FieldValue{}
		return true
	}
	if off < int(s.FixedSize) || off >= dataLen {
		return false
	}
	at, end := base+off, base+dataLen
	if f.Kind == KindString { // the common case, without a call
		if at > end-4 {
			return false
		}
		n := int(int32(binary.BigEndian.Uint32(d[at:])))
		if n < 0 || n > end-at-4 {
			*v = FieldValue{}
			return n == -1 // null, or malformed
		}
		*v = FieldValue{Kind: ValueString, B: d[at+4 : at+4+n : at+4+n]}
		return true
	}
	var ok bool
	*v, ok = scalarAt(d[:end], at, f.Kind, false)
	return ok
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
		return floatValue(ValueFloat32, float64(math.Float32frombits(be.Uint32(b))))
	}
	return floatValue(ValueFloat64, math.Float64frombits(be.Uint64(b)))
}

// varValue reads a value of kind k at rd (see scalarAt); a value that does
// not fit fails rd.
func varValue(rd *wire.Reader, k FieldKind, shortYear bool) FieldValue {
	v, ok := scalarAt(rd.Buf(), rd.Pos(), k, shortYear)
	if !ok {
		rd.Fail(wire.ErrShort)
	}
	return v
}

// scalarAt reads a value of kind k at b[at], where b ends where the value
// must end: a primitive (plain or nullable), a string (a view of its
// bytes; null for length -1) or a decimal or temporal value (a view of
// the bytes from its start, shortYear for Portable's encoding). Other
// kinds are arrays. ok is false when the value does not fit.
func scalarAt(b []byte, at int, k FieldKind, shortYear bool) (v FieldValue, ok bool) {
	if at < 0 || at > len(b) {
		return v, false
	}
	p := b[at:]
	be := binary.BigEndian
	switch k {
	case KindBoolean, KindNullableBoolean:
		if len(p) < 1 {
			return v, false
		}
		return boolValue(p[0] != 0), true
	case KindInt8, KindNullableInt8:
		if len(p) < 1 {
			return v, false
		}
		return FieldValue{Kind: ValueInt8, I: int64(int8(p[0]))}, true
	case KindChar:
		if len(p) < 2 {
			return v, false
		}
		return FieldValue{Kind: ValueChar, I: int64(be.Uint16(p))}, true
	case KindInt16, KindNullableInt16:
		if len(p) < 2 {
			return v, false
		}
		return FieldValue{Kind: ValueInt16, I: int64(int16(be.Uint16(p)))}, true
	case KindInt32, KindNullableInt32:
		if len(p) < 4 {
			return v, false
		}
		return FieldValue{Kind: ValueInt32, I: int64(int32(be.Uint32(p)))}, true
	case KindInt64, KindNullableInt64:
		if len(p) < 8 {
			return v, false
		}
		return FieldValue{Kind: ValueInt64, I: int64(be.Uint64(p))}, true
	case KindFloat32, KindNullableFloat32:
		if len(p) < 4 {
			return v, false
		}
		return floatValue(ValueFloat32, float64(math.Float32frombits(be.Uint32(p)))), true
	case KindFloat64, KindNullableFloat64:
		if len(p) < 8 {
			return v, false
		}
		return floatValue(ValueFloat64, math.Float64frombits(be.Uint64(p))), true
	case KindString:
		if len(p) < 4 {
			return v, false
		}
		n := int(int32(be.Uint32(p)))
		if n == -1 {
			return v, true
		}
		if n < 0 || n > len(p)-4 {
			return v, false
		}
		return FieldValue{Kind: ValueString, B: p[4 : 4+n : 4+n]}, true
	case KindDecimal, KindTime, KindDate, KindTimestamp, KindTimestampWithTimezone:
		return FieldValue{Kind: valueKinds[k], B: p, shortYear: shortYear}, true
	}
	return FieldValue{Kind: ValueArray}, true
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
