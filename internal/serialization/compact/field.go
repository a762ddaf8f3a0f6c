package compact

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// pathPlan is a path step compiled for one Compact schema: the field
// the step names in it, or none.
type pathPlan struct {
	id     int64
	schema *Schema
	field  *SchemaField // nil: the schema has no such field
	top    bool         // Top can read the field: a last, plain step to a scalar
	// known caches, for a strict reader, that another version of the
	// type has the field (registries only grow, so true stays true).
	known atomic.Bool
	next  *Node // the steps after a nested object, or nil
}

// Node reads the steps of a path that are left at Compact objects, with a
// plan compiled per schema met. A plan that reaches a nested object hands
// the steps after it to a node of its own. Nodes are safe for concurrent
// use: plans are published copy-on-write.
type Node struct {
	Steps   []core.PathStep
	Opts    *core.PathOptions
	Schemas *SchemaRegistry
	plans   core.Plans[pathPlan]
}

// child returns the node for the steps after the first, or nil.
func (n *Node) child() *Node {
	if len(n.Steps) < 2 {
		return nil
	}
	return &Node{Steps: n.Steps[1:], Opts: n.Opts, Schemas: n.Schemas}
}

// plan returns the plan compiled for schema id, or nil.
func (n *Node) plan(id int64) *pathPlan {
	for _, c := range n.plans.List() {
		if c.id == id {
			return c
		}
	}
	return nil
}

// Object reads the node's steps from the Compact object whose schema id
// is at buf[p] and that ends by buf[limit] (embedded: it carries its
// schema, type -56).
func (n *Node) Object(buf []byte, p, limit int, embedded bool, depth int, out *core.Sink) error {
	id, ok := wire.Int64At(buf[:limit], p)
	if !ok {
		return core.Malformed("compact", p, "truncated schema id")
	}
	plan := n.plan(id)
	if plan == nil {
		// The first object of a schema: check it whole and compile.
		rec, _, err := Parse(buf, p, limit, n.Schemas, embedded)
		if err != nil {
			return err
		}
		plan = &pathPlan{id: id, schema: rec.schema, next: n.child()}
		plan.field, _ = rec.schema.Field(n.Steps[0].Name)
		plan.top = plan.next == nil && (plan.field == nil || !plan.field.Kind.IsArray() && plan.field.Kind != core.KindCompact)
		n.plans.Add(plan)
	}
	rec, _, err := parseKnown(buf, p, limit, plan.schema, n.Schemas, embedded)
	if err != nil {
		return err
	}
	return plan.read(n, &rec, depth, out)
}

func (c *pathPlan) read(n *Node, rec *Record, depth int, out *core.Sink) error {
	st := n.Steps[0]
	f := c.field
	if f == nil {
		return c.absent(n)
	}
	switch {
	case st.Any || st.Index >= 0:
		if !f.Kind.IsArray() {
			return n.Opts.NotAnObject(n.Steps, f.Name, f.Kind.String())
		}
		count, err := rec.itemCount(f)
		if err != nil || count <= 0 {
			return err
		}
		from, to := st.Items(count)
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

// Top is Read's fast path for a plain field of a top-level Compact
// object (type -55) whose schema has a plan: ok=false leaves the read to
// the general walk.
func (n *Node) Top(d core.Data, v *core.FieldValue) bool {
	if len(d) < core.HeaderSize+8 {
		return false
	}
	id := int64(binary.BigEndian.Uint64(d[core.HeaderSize:]))
	c := n.plans.First()
	if c == nil || c.id != id {
		c = n.plan(id)
	}
	if c == nil || !c.top {
		return false
	}
	f := c.field
	if f == nil { // absent: null
		*v = core.FieldValue{}
		return !n.Opts.Strict || c.known.Load()
	}
	s := c.schema
	base := core.HeaderSize + 8
	if s.VarCount == 0 {
		if len(d) < base+int(s.FixedSize) {
			return false
		}
		fixedValue(d[base+int(f.Offset):], f, v)
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
		fixedValue(d[base+int(f.Offset):], f, v)
		return true
	}
	off, null := offsetAt(d, base+dataLen+int(f.Index)*width, width)
	if null {
		*v = core.FieldValue{}
		return true
	}
	if off < int(s.FixedSize) || off >= dataLen {
		return false
	}
	at, end := base+off, base+dataLen
	if f.Kind == core.KindString { // the common case, without a call
		if at > end-4 {
			return false
		}
		n := int(int32(binary.BigEndian.Uint32(d[at:])))
		if n < 0 || n > end-at-4 {
			*v = core.FieldValue{}
			return n == -1 // null, or malformed
		}
		*v = core.FieldValue{Kind: core.ValueString, B: d[at+4 : at+4+n : at+4+n]}
		return true
	}
	return core.ScalarAt(d[:end], at, f.Kind, false, v)
}

// emit hands on a value the step selected: to the sink at the end of the
// path, or to the next node when it is a nested object (at buf[at]).
func (c *pathPlan) emit(n *Node, rec *Record, v core.FieldValue, buf []byte, at int, depth int, out *core.Sink) error {
	if c.next == nil {
		if v.Kind == core.ValueObject {
			nested, _, err := Parse(buf, at, len(buf), rec.schemas, rec.embedded)
			if err != nil {
				return err
			}
			v, err = n.Opts.NestedData(&nested)
			if err != nil {
				return err
			}
		}
		return out.Emit(v)
	}
	if v.Kind != core.ValueObject {
		if v.Kind == core.ValueNull {
			return nil
		}
		return n.Opts.NotAnObject(n.Steps, c.field.Name, c.field.Kind.String())
	}
	return c.next.Object(buf, at, len(buf), rec.embedded, depth+1, out)
}

// absent handles a field the object's schema does not have: null (schema
// evolution), or for a strict reader an error when no version of the type
// has it.
func (c *pathPlan) absent(n *Node) error {
	if !n.Opts.Strict || c.known.Load() {
		return nil
	}
	name := n.Steps[0].Name
	if n.Schemas.typeHasField(c.schema.TypeName, name) {
		c.known.Store(true)
		return nil
	}
	return &core.UnknownFieldError{Field: name, Reason: "Compact type " + strconv.Quote(c.schema.TypeName) + " has no field " + strconv.Quote(name)}
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

// fieldValue reads field f. A nested object is a ValueObject without
// bytes; its own bytes start at buf[at] and end by the end of buf.
func (r *Record) fieldValue(f *SchemaField) (v core.FieldValue, buf []byte, at int, err error) {
	if f.Offset >= 0 {
		fixedValue(r.data[f.Offset:], f, &v)
		return v, nil, 0, nil
	}
	rd, null, err := r.varField(f)
	if err != nil || null {
		return core.FieldValue{}, nil, 0, err
	}
	if f.Kind.IsArray() {
		return core.FieldValue{Kind: core.ValueArray}, nil, 0, nil
	}
	if f.Kind == core.KindCompact {
		return core.FieldValue{Kind: core.ValueObject}, rd.Buf(), rd.Pos(), nil
	}
	v = core.VarValue(&rd, f.Kind, false)
	return v, nil, 0, readErr(&rd, f)
}

// fixedValue reads a fixed-size field from the fixed-size section at b,
// into v.
func fixedValue(b []byte, f *SchemaField, v *core.FieldValue) {
	if f.Kind == core.KindBoolean {
		*v = core.BoolValue(b[0]&(1<<f.BitOffset) != 0)
		return
	}
	core.ScalarAt(b, 0, f.Kind, false, v) // the fixed-size section holds the field whole
}

// itemCount returns the length of array field f, or -1 for a null array.
func (r *Record) itemCount(f *SchemaField) (int, error) {
	rd, null, err := r.varField(f)
	if err != nil || null {
		return -1, err
	}
	switch f.Kind {
	case core.KindArrayOfBoolean:
		n := rd.Int32()
		if n < 0 || int64(n) > int64(rd.Len())*8 {
			rd.Fail(wire.ErrLength)
		}
		return int(n), readErr(&rd, f)
	case core.KindArrayOfInt8, core.KindArrayOfInt16, core.KindArrayOfInt32, core.KindArrayOfInt64, core.KindArrayOfFloat32, core.KindArrayOfFloat64:
		n := arrayLen(&rd, fixedSize(f.Kind.Elem()))
		return n, readErr(&rd, f)
	}
	it, err := readVarItems(&rd, f)
	return it.count, err
}

// item reads item i (< itemCount) of array field f, as fieldValue reads
// a field.
func (r *Record) item(f *SchemaField, i int) (v core.FieldValue, buf []byte, at int, err error) {
	rd, _, err := r.varField(f)
	if err != nil {
		return core.FieldValue{}, nil, 0, err
	}
	elem := f.Kind.Elem()
	switch f.Kind {
	case core.KindArrayOfBoolean:
		rd.Skip(4 + i/8)
		b := rd.Bytes(1)
		if b == nil {
			return core.FieldValue{}, nil, 0, readErr(&rd, f)
		}
		return core.BoolValue(b[0]&(1<<(i%8)) != 0), nil, 0, nil
	case core.KindArrayOfInt8, core.KindArrayOfInt16, core.KindArrayOfInt32, core.KindArrayOfInt64, core.KindArrayOfFloat32, core.KindArrayOfFloat64:
		rd.Skip(4 + i*fixedSize(elem))
		v = core.VarValue(&rd, elem, false)
		return v, nil, 0, readErr(&rd, f)
	}
	it, err := readVarItems(&rd, f)
	if err != nil {
		return core.FieldValue{}, nil, 0, err
	}
	item, null, err := it.item(i)
	if err != nil || null {
		return core.FieldValue{}, nil, 0, err
	}
	if elem == core.KindCompact {
		return core.FieldValue{Kind: core.ValueObject}, item.Buf(), item.Pos(), nil
	}
	v = core.VarValue(&item, elem, false)
	return v, nil, 0, readErr(&item, f)
}
