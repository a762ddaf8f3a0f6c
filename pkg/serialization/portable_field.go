package serialization

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// portablePlan is a path step compiled for one Portable class version.
// The binary is self-describing, so the plan needs no class definition: it
// remembers where in the objects' field tables the field was found, and
// checks the name there before it trusts the position.
type portablePlan struct {
	factoryID, classID, version int32
	hint                        atomic.Int32 // index in the field table, -1 before the first find
	known                       atomic.Bool  // strict: some version of the class has the field
	next                        *fieldNode
}

// portableObject reads the node's steps from the Portable object whose
// body (end position, field count, field table) starts at buf[p].
func (n *fieldNode) portableObject(buf []byte, p, limit int, fid, cid, ver int32, depth int, out *fieldSink) error {
	var plan *portablePlan
	if plans := n.portable.Load(); plans != nil {
		for _, c := range *plans {
			if c.factoryID == fid && c.classID == cid && c.version == ver {
				plan = c
				break
			}
		}
	}
	if plan == nil {
		plan = &portablePlan{factoryID: fid, classID: cid, version: ver, next: n.child()}
		hint := int32(-1)
		if cd, ok := n.r.svc.classes.Get(fid, cid, ver); ok {
			if i, ok := cd.byName[n.steps[0].name]; ok {
				hint = i
			}
		}
		plan.hint.Store(hint)
		addPlan(&n.portable, plan)
	}
	rec, _, err := parsePortable(buf, p, limit, fid, cid, ver, nil)
	if err != nil {
		return err
	}
	st := n.steps[0]
	kind, pos, index, err := rec.find(st.name, int(plan.hint.Load()))
	if err != nil {
		return err
	}
	if index < 0 {
		return plan.absent(n)
	}
	plan.hint.Store(int32(index))
	switch {
	case st.any || st.index >= 0:
		if !kind.IsArray() {
			return n.notAnObject(st.name, kind.String())
		}
		count, err := rec.itemCount(pos, kind, st.name)
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
			v, at, err := rec.item(pos, kind, i, st.name)
			if err != nil {
				return err
			}
			if err := plan.emit(n, &rec, v, at, pos, kind, depth, out); err != nil {
				return err
			}
		}
		return nil
	}
	v, at, err := rec.fieldValue(pos, kind, st.name)
	if err != nil {
		return err
	}
	return plan.emit(n, &rec, v, at, pos, kind, depth, out)
}

// portableTop is Read's fast path for a plain field of a top-level
// Portable object whose class version has a plan and whose field table has
// the field where the plan last found it: ok=false leaves the read to the
// general walk.
func (n *fieldNode) portableTop(d Data, v *FieldValue) bool {
	const body = HeaderSize + 12 // after factory, class and version
	if len(d) < body+8 {
		return false
	}
	be := binary.BigEndian
	fid, cid, ver := int32(be.Uint32(d[HeaderSize:])), int32(be.Uint32(d[HeaderSize+4:])), int32(be.Uint32(d[HeaderSize+8:]))
	plans := n.portable.Load()
	if plans == nil {
		return false
	}
	var c *portablePlan
	for _, p := range *plans {
		if p.factoryID == fid && p.classID == cid && p.version == ver {
			c = p
			break
		}
	}
	if c == nil {
		return false
	}
	end, count, hint := int(int32(be.Uint32(d[body:]))), int(int32(be.Uint32(d[body+4:]))), int(c.hint.Load())
	tableEnd := body + 8 + 4*(count+1)
	if count < 0 || hint < 0 || hint >= count || tableEnd > end || end > len(d) {
		return false
	}
	pos := int(int32(be.Uint32(d[body+8+4*hint:])))
	if pos < tableEnd || pos > end-3 {
		return false
	}
	name := n.steps[0].name
	nameLen := int(be.Uint16(d[pos:]))
	if nameLen != len(name) || pos+3+nameLen > end || string(d[pos+2:pos+2+nameLen]) != name {
		return false
	}
	kind, known := PortableKind(int32(int8(d[pos+2+nameLen])))
	if !known || kind.IsArray() || kind == KindPortable {
		return false
	}
	at := pos + 3 + nameLen
	switch kind {
	case KindDecimal, KindTime, KindDate, KindTimestamp, KindTimestampWithTimezone:
		if at >= end {
			return false
		}
		if d[at] != 0 { // null
			*v = FieldValue{}
			return true
		}
		at++
	}
	var ok bool
	*v, ok = scalarAt(d[:end], at, kind, true)
	return ok
}

// emit hands on a value a step selected from the field of kind kind at
// pos. A nested PORTABLE field's identity, version and body start at
// rec.buf[at]; the items of a PORTABLE_ARRAY share the identity the array
// holds after its length, and their version and body start at rec.buf[at].
func (c *portablePlan) emit(n *fieldNode, rec *PortableRecord, v FieldValue, at, pos int, kind FieldKind, depth int, out *fieldSink) error {
	if v.Kind != ValueObject {
		if c.next != nil {
			if v.Kind == ValueNull {
				return nil
			}
			return n.notAnObject(n.steps[0].name, kind.String())
		}
		return out.emit(v)
	}
	var fid, cid int32
	rd := wire.NewReader(rec.buf, at)
	if kind == KindPortable {
		fid, cid = rd.Int32(), rd.Int32()
	} else {
		ids := wire.NewReader(rec.buf, pos+4)
		fid, cid = ids.Int32(), ids.Int32()
	}
	ver := rd.Int32()
	if err := portableErr(&rd, n.steps[0].name); err != nil {
		return err
	}
	if c.next != nil {
		return c.next.portableObject(rec.buf, rd.Pos(), len(rec.buf), fid, cid, ver, depth+1, out)
	}
	nested, _, err := parsePortable(rec.buf, rd.Pos(), len(rec.buf), fid, cid, ver, n.r.svc.classes)
	if err != nil {
		return err
	}
	if v, err = n.nestedData(&nested); err != nil {
		return err
	}
	return out.emit(v)
}

// absent handles a field the object does not have.
func (c *portablePlan) absent(n *fieldNode) error {
	if !n.r.opts.Strict || c.known.Load() {
		return nil
	}
	name := n.steps[0].name
	for _, cd := range n.r.svc.classes.All() {
		if cd.FactoryID == c.factoryID && cd.ClassID == c.classID {
			if _, ok := cd.byName[name]; ok {
				c.known.Store(true)
				return nil
			}
		}
	}
	return &UnknownFieldError{Field: name, Reason: "Portable class " + strconv.Itoa(int(c.factoryID)) + "/" + strconv.Itoa(int(c.classID)) + " has no field " + strconv.Quote(name)}
}

// fieldValue reads the value of kind k at pos. A nested object is a
// ValueObject without bytes whose null flag was read: its identity (factory
// and class ids) starts at rec.buf[at].
func (r *PortableRecord) fieldValue(pos int, k FieldKind, name string) (v FieldValue, at int, err error) {
	rd := wire.NewReader(r.buf, pos)
	switch k {
	case KindPortable:
		if rd.Bool() {
			return FieldValue{}, 0, portableErr(&rd, name)
		}
		return FieldValue{Kind: ValueObject}, rd.Pos(), portableErr(&rd, name)
	case KindDecimal, KindTime, KindDate, KindTimestamp, KindTimestampWithTimezone:
		if rd.Bool() {
			return FieldValue{}, 0, portableErr(&rd, name)
		}
	}
	if k.IsArray() {
		if rd.Int32() == -1 {
			return FieldValue{}, 0, portableErr(&rd, name) // a null array
		}
		return FieldValue{Kind: ValueArray}, 0, portableErr(&rd, name)
	}
	v = varValue(&rd, k, true)
	return v, 0, portableErr(&rd, name)
}

// portableItemSize is the size of the items of Portable's arrays of
// fixed-size items, which have no null items and are not bit-packed.
func portableItemSize(k FieldKind) int {
	switch k {
	case KindArrayOfBoolean, KindArrayOfInt8:
		return 1
	case KindArrayOfChar, KindArrayOfInt16:
		return 2
	case KindArrayOfInt32, KindArrayOfFloat32:
		return 4
	case KindArrayOfInt64, KindArrayOfFloat64:
		return 8
	}
	return 0
}

// itemCount returns the length of the array of kind k at pos (-1: null).
func (r *PortableRecord) itemCount(pos int, k FieldKind, name string) (int, error) {
	rd := wire.NewReader(r.buf, pos)
	size := portableItemSize(k)
	if size == 0 {
		size = 4 // a length or a position per item
	}
	n := rd.Length(size, true)
	return n, portableErr(&rd, name)
}

// item reads item i (< itemCount) of the array of kind k at pos, as
// fieldValue reads a field: a portable item's version starts at rec.buf[at].
func (r *PortableRecord) item(pos int, k FieldKind, i int, name string) (v FieldValue, at int, err error) {
	rd := wire.NewReader(r.buf, pos+4)
	elem := k.Elem()
	switch k {
	case KindArrayOfString:
		for j := 0; j < i; j++ {
			if n := rd.Length(1, true); n > 0 {
				rd.Skip(n)
			}
		}
		v = varValue(&rd, elem, true)
		return v, 0, portableErr(&rd, name)
	case KindArrayOfPortable:
		rd.Skip(8) // factory and class ids
		fallthrough
	case KindArrayOfDecimal, KindArrayOfTime, KindArrayOfDate, KindArrayOfTimestamp, KindArrayOfTimestampWithTimezone:
		rd.Skip(4 * i)
		at := int(rd.Int32())
		if err := portableErr(&rd, name); err != nil {
			return FieldValue{}, 0, err
		}
		if at <= r.body || at >= len(r.buf) {
			return FieldValue{}, 0, malformed("portable", at, "array "+strconv.Quote(name)+" has an item position out of range")
		}
		if elem == KindPortable {
			return FieldValue{Kind: ValueObject}, at, nil
		}
		item := wire.NewReader(r.buf, at)
		v = varValue(&item, elem, true)
		return v, 0, portableErr(&item, name)
	}
	rd.Skip(i * portableItemSize(k))
	v = varValue(&rd, elem, true)
	return v, 0, portableErr(&rd, name)
}
