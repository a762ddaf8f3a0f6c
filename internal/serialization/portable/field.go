package portable

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// pathPlan is a path step compiled for one Portable class version.
// The binary is self-describing, so the plan needs no class definition: it
// remembers where in the objects' field tables the field was found, and
// checks the name there before it trusts the position.
type pathPlan struct {
	factoryID, classID, version int32
	hint                        atomic.Int32 // index in the field table, -1 before the first find
	known                       atomic.Bool  // strict: some version of the class has the field
	next                        *Node
	// top is what Top last checked of a plain field at hint, for the
	// next objects to be compared with in one go.
	top atomic.Pointer[topField]
}

// topField is a plain field as Top found it: at index hint of the field
// table, after head (its name's length, its name and its type byte), with
// a value of kind kind.
type topField struct {
	hint int
	head string
	kind core.FieldKind
}

// Node reads the steps of a path that are left at Portable objects, with
// a plan compiled per class version met. A plan that reaches a nested
// object hands the steps after it to a node of its own. Nodes are safe for
// concurrent use: plans are published copy-on-write.
type Node struct {
	Steps   []core.PathStep
	Opts    *core.PathOptions
	Classes *ClassRegistry // optional: a first guess of where fields are
	plans   core.Plans[pathPlan]
}

// child returns the node for the steps after the first, or nil.
func (n *Node) child() *Node {
	if len(n.Steps) < 2 {
		return nil
	}
	return &Node{Steps: n.Steps[1:], Opts: n.Opts, Classes: n.Classes}
}

// plan returns the plan compiled for class fid/cid version ver, or nil.
func (n *Node) plan(fid, cid, ver int32) *pathPlan {
	for _, c := range n.plans.List() {
		if c.factoryID == fid && c.classID == cid && c.version == ver {
			return c
		}
	}
	return nil
}

// Object reads the node's steps from the Portable object of class fid/cid
// and version ver whose body (end position, field count, field table)
// starts at buf[p] and that ends by buf[limit].
func (n *Node) Object(buf []byte, p, limit int, fid, cid, ver int32, depth int, out *core.Sink) error {
	plan := n.plan(fid, cid, ver)
	if plan == nil {
		plan = &pathPlan{factoryID: fid, classID: cid, version: ver, next: n.child()}
		hint := int32(-1)
		if cd, ok := n.Classes.Get(fid, cid, ver); ok {
			if i, ok := cd.byName[n.Steps[0].Name]; ok {
				hint = i
			}
		}
		plan.hint.Store(hint)
		n.plans.Add(plan)
	}
	rec, _, err := Parse(buf, p, limit, fid, cid, ver, nil)
	if err != nil {
		return err
	}
	st := n.Steps[0]
	kind, pos, index, err := rec.find(st.Name, int(plan.hint.Load()))
	if err != nil {
		return err
	}
	if index < 0 {
		return plan.absent(n)
	}
	plan.hint.Store(int32(index))
	switch {
	case st.Any || st.Index >= 0:
		if !kind.IsArray() {
			return n.Opts.NotAnObject(n.Steps, st.Name, kind.String())
		}
		count, err := rec.itemCount(pos, kind, st.Name)
		if err != nil || count <= 0 {
			return err
		}
		from, to := st.Items(count)
		for i := from; i < to; i++ {
			v, at, err := rec.item(pos, kind, i, st.Name)
			if err != nil {
				return err
			}
			if err := plan.emit(n, &rec, v, at, pos, kind, depth, out); err != nil {
				return err
			}
		}
		return nil
	}
	v, at, err := rec.fieldValue(pos, kind, st.Name)
	if err != nil {
		return err
	}
	return plan.emit(n, &rec, v, at, pos, kind, depth, out)
}

// Top is Read's fast path for a plain field of a top-level
// Portable object whose class version has a plan and whose field table has
// the field where the plan last found it: ok=false leaves the read to the
// general walk.
func (n *Node) Top(d core.Data, v *core.FieldValue) bool {
	const body = core.HeaderSize + 12 // after factory, class and version
	if len(d) < body+8 {
		return false
	}
	be := binary.BigEndian
	fid, cid, ver := int32(be.Uint32(d[core.HeaderSize:])), int32(be.Uint32(d[core.HeaderSize+4:])), int32(be.Uint32(d[core.HeaderSize+8:]))
	c := n.plans.First()
	if c == nil || c.factoryID != fid || c.classID != cid || c.version != ver {
		if c = n.plan(fid, cid, ver); c == nil {
			return false
		}
	}
	end, count := int(int32(be.Uint32(d[body:]))), int(int32(be.Uint32(d[body+4:])))
	tableEnd := body + 8 + 4*(count+1)
	if count < 0 || tableEnd > end || end > len(d) {
		return false
	}
	// The field as the last object had it: its name, type and place in
	// the table compared in one go.
	t := c.top.Load()
	if t != nil && t.hint < count {
		pos := int(int32(be.Uint32(d[body+8+4*t.hint:])))
		if at := pos + len(t.head); pos >= tableEnd && at <= end && string(d[pos:at]) == t.head {
			return topValue(d[:end], at, t.kind, v)
		}
	}
	hint := int(c.hint.Load())
	if hint < 0 || hint >= count {
		return false
	}
	pos := int(int32(be.Uint32(d[body+8+4*hint:])))
	if pos < tableEnd || pos > end-3 {
		return false
	}
	name := n.Steps[0].Name
	nameLen := int(be.Uint16(d[pos:]))
	if nameLen != len(name) || pos+3+nameLen > end || string(d[pos+2:pos+2+nameLen]) != name {
		return false
	}
	kind, known := KindOf(int32(int8(d[pos+2+nameLen])))
	if !known || kind.IsArray() || kind == core.KindPortable {
		return false
	}
	at := pos + 3 + nameLen
	if t == nil || t.hint != hint || t.head != string(d[pos:at]) {
		c.top.Store(&topField{hint: hint, head: string(d[pos:at]), kind: kind})
	}
	return topValue(d[:end], at, kind, v)
}

// topValue reads Top's plain field of kind kind whose value starts at
// d[at]: decimals and temporal values have a null flag first.
func topValue(d []byte, at int, kind core.FieldKind, v *core.FieldValue) bool {
	switch kind {
	case core.KindDecimal, core.KindTime, core.KindDate, core.KindTimestamp, core.KindTimestampWithTimezone:
		if at >= len(d) {
			return false
		}
		if d[at] != 0 { // null
			*v = core.FieldValue{}
			return true
		}
		at++
	}
	return core.ScalarAt(d, at, kind, true, v)
}

// emit hands on a value a step selected from the field of kind kind at
// pos. A nested PORTABLE field's identity, version and body start at
// rec.buf[at]; the items of a PORTABLE_ARRAY share the identity the array
// holds after its length, and their version and body start at rec.buf[at].
func (c *pathPlan) emit(n *Node, rec *Record, v core.FieldValue, at, pos int, kind core.FieldKind, depth int, out *core.Sink) error {
	if v.Kind != core.ValueObject {
		if c.next != nil {
			if v.Kind == core.ValueNull {
				return nil
			}
			return n.Opts.NotAnObject(n.Steps, n.Steps[0].Name, kind.String())
		}
		return out.Emit(v)
	}
	var fid, cid int32
	rd := wire.NewReader(rec.buf, at)
	if kind == core.KindPortable {
		fid, cid = rd.Int32(), rd.Int32()
	} else {
		ids := wire.NewReader(rec.buf, pos+4)
		fid, cid = ids.Int32(), ids.Int32()
	}
	ver := rd.Int32()
	if err := fieldErr(&rd, n.Steps[0].Name); err != nil {
		return err
	}
	if c.next != nil {
		return c.next.Object(rec.buf, rd.Pos(), len(rec.buf), fid, cid, ver, depth+1, out)
	}
	nested, _, err := Parse(rec.buf, rd.Pos(), len(rec.buf), fid, cid, ver, n.Classes)
	if err != nil {
		return err
	}
	if v, err = n.Opts.NestedData(&nested); err != nil {
		return err
	}
	return out.Emit(v)
}

// absent handles a field the object does not have.
func (c *pathPlan) absent(n *Node) error {
	if !n.Opts.Strict || c.known.Load() {
		return nil
	}
	name := n.Steps[0].Name
	for _, cd := range n.Classes.All() {
		if cd.FactoryID == c.factoryID && cd.ClassID == c.classID {
			if _, ok := cd.byName[name]; ok {
				c.known.Store(true)
				return nil
			}
		}
	}
	return &core.UnknownFieldError{Field: name, Reason: "Portable class " + strconv.Itoa(int(c.factoryID)) + "/" + strconv.Itoa(int(c.classID)) + " has no field " + strconv.Quote(name)}
}

// fieldValue reads the value of kind k at pos. A nested object is a
// ValueObject without bytes whose null flag was read: its identity (factory
// and class ids) starts at rec.buf[at].
func (r *Record) fieldValue(pos int, k core.FieldKind, name string) (v core.FieldValue, at int, err error) {
	rd := wire.NewReader(r.buf, pos)
	switch k {
	case core.KindPortable:
		if rd.Bool() {
			return core.FieldValue{}, 0, fieldErr(&rd, name)
		}
		return core.FieldValue{Kind: core.ValueObject}, rd.Pos(), fieldErr(&rd, name)
	case core.KindDecimal, core.KindTime, core.KindDate, core.KindTimestamp, core.KindTimestampWithTimezone:
		if rd.Bool() {
			return core.FieldValue{}, 0, fieldErr(&rd, name)
		}
	}
	if k.IsArray() {
		if rd.Int32() == -1 {
			return core.FieldValue{}, 0, fieldErr(&rd, name) // a null array
		}
		return core.FieldValue{Kind: core.ValueArray}, 0, fieldErr(&rd, name)
	}
	v = core.VarValue(&rd, k, true)
	return v, 0, fieldErr(&rd, name)
}

// itemSize is the size of the items of Portable's arrays of
// fixed-size items, which have no null items and are not bit-packed.
func itemSize(k core.FieldKind) int {
	switch k {
	case core.KindArrayOfBoolean, core.KindArrayOfInt8:
		return 1
	case core.KindArrayOfChar, core.KindArrayOfInt16:
		return 2
	case core.KindArrayOfInt32, core.KindArrayOfFloat32:
		return 4
	case core.KindArrayOfInt64, core.KindArrayOfFloat64:
		return 8
	}
	return 0
}

// itemCount returns the length of the array of kind k at pos (-1: null).
func (r *Record) itemCount(pos int, k core.FieldKind, name string) (int, error) {
	rd := wire.NewReader(r.buf, pos)
	size := itemSize(k)
	if size == 0 {
		size = 4 // a length or a position per item
	}
	n := rd.Length(size, true)
	return n, fieldErr(&rd, name)
}

// item reads item i (< itemCount) of the array of kind k at pos, as
// fieldValue reads a field: a portable item's version starts at rec.buf[at].
func (r *Record) item(pos int, k core.FieldKind, i int, name string) (v core.FieldValue, at int, err error) {
	rd := wire.NewReader(r.buf, pos+4)
	elem := k.Elem()
	switch k {
	case core.KindArrayOfString:
		for j := 0; j < i; j++ {
			if n := rd.Length(1, true); n > 0 {
				rd.Skip(n)
			}
		}
		v = core.VarValue(&rd, elem, true)
		return v, 0, fieldErr(&rd, name)
	case core.KindArrayOfPortable:
		rd.Skip(8) // factory and class ids
		fallthrough
	case core.KindArrayOfDecimal, core.KindArrayOfTime, core.KindArrayOfDate, core.KindArrayOfTimestamp, core.KindArrayOfTimestampWithTimezone:
		rd.Skip(4 * i)
		at := int(rd.Int32())
		if err := fieldErr(&rd, name); err != nil {
			return core.FieldValue{}, 0, err
		}
		if at <= r.body || at >= len(r.buf) {
			return core.FieldValue{}, 0, core.Malformed("portable", at, "array "+strconv.Quote(name)+" has an item position out of range")
		}
		if elem == core.KindPortable {
			return core.FieldValue{Kind: core.ValueObject}, at, nil
		}
		item := wire.NewReader(r.buf, at)
		v = core.VarValue(&item, elem, true)
		return v, 0, fieldErr(&item, name)
	}
	rd.Skip(i * itemSize(k))
	v = core.VarValue(&rd, elem, true)
	return v, 0, fieldErr(&rd, name)
}
