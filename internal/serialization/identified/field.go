package identified

import (
	"encoding/binary"
	"reflect"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// pathPlan is a path step compiled for one DataSerializable
// layout: the index of the field it names (found through the layout's
// program) or -1.
type pathPlan struct {
	factoryID, classID int32
	layout             *Layout
	prog               *program
	index              int
	// For Top: the field's kind when it is a scalar or a string (0
	// otherwise), and its constant offset from the first field, or -1.
	kind     core.FieldKind
	offset   int
	next     *Node             // the steps after an inline object, or nil
	inObject core.ObjectReader // the steps after a writeObject value, or nil
}

// Node reads the steps of a path that are left at IdentifiedDataSerializable
// objects, with a plan compiled per layout met. A plan that reaches an
// inline object hands the steps after it to a node of its own, and one
// that reaches a writeObject value to a reader of any format (Any). Nodes
// are safe for concurrent use: plans are published copy-on-write.
type Node struct {
	Steps   []core.PathStep
	Opts    *core.PathOptions
	Objects Objects
	// Any returns the reader of steps in a writeObject value, whatever its
	// format: the Service's.
	Any   func(steps []core.PathStep) core.ObjectReader
	plans core.Plans[pathPlan]
}

// child returns the node for the steps after the first, or nil.
func (n *Node) child() *Node {
	if len(n.Steps) < 2 {
		return nil
	}
	return &Node{Steps: n.Steps[1:], Opts: n.Opts, Objects: n.Objects, Any: n.Any}
}

// plan returns the plan compiled for class fid/cid, or nil.
func (n *Node) plan(fid, cid int32) *pathPlan {
	for _, c := range n.plans.List() {
		if c.factoryID == fid && c.classID == cid {
			return c
		}
	}
	return nil
}

// Object reads the node's steps from the fields of an object of
// class fid/cid that start at buf[start] (after the header, or where an
// inline object starts).
func (n *Node) Object(buf []byte, start, limit int, fid, cid int32, depth int, out *core.Sink) error {
	plan := n.plan(fid, cid)
	layouts := n.Objects.Layouts()
	if plan == nil {
		l, ok := layouts.Get(fid, cid)
		if !ok {
			return &core.ClassNotFoundError{Format: "identified", FactoryID: fid, ClassID: cid, Reason: "no layout is registered"}
		}
		plan = &pathPlan{factoryID: fid, classID: cid, layout: l, prog: l.program(layouts), index: -1, next: n.child()}
		if f, i, ok := l.Field(n.Steps[0].Name); ok {
			plan.index, plan.offset = i, l.offsets[i]
			if f.Op <= OpString {
				plan.kind = f.Op.Kind()
			}
			if (f.Op == OpObject || f.Op == OpObjectArray) && len(n.Steps) > 1 {
				plan.inObject = n.Any(n.Steps[1:])
			}
		}
		n.plans.Add(plan)
	}
	st := n.Steps[0]
	if plan.index < 0 {
		if n.Opts.Strict {
			return &core.UnknownFieldError{Field: st.Name, Reason: "the layout of IdentifiedDataSerializable " + strconv.Itoa(int(fid)) + "/" + strconv.Itoa(int(cid)) + " has no field " + strconv.Quote(st.Name)}
		}
		return nil
	}
	buf = buf[:limit]
	rd, err := plan.prog.locate(n.Objects, buf, start, plan.index)
	if err != nil {
		return err
	}
	f := &plan.layout.Fields[plan.index]
	op := f.Op
	if !st.Any && st.Index < 0 {
		switch {
		case op <= OpString:
			v := core.VarValue(&rd, op.Kind(), false)
			if err := identifiedErr(&rd, f.Name); err != nil {
				return err
			}
			if plan.next != nil {
				return n.Opts.NotAnObject(n.Steps, f.Name, op.String())
			}
			return out.Emit(v)
		case op == OpObject:
			return plan.object(n, &rd, depth, out)
		case op == OpInline:
			return plan.inline(n, &rd, depth, out)
		}
		if plan.next != nil {
			return n.Opts.NotAnObject(n.Steps, f.Name, op.String())
		}
		if rd.Int32() == -1 {
			return out.Emit(core.FieldValue{}) // a null array
		}
		if err := identifiedErr(&rd, f.Name); err != nil {
			return err
		}
		return out.Emit(core.FieldValue{Kind: core.ValueArray})
	}
	// An item, or every item, of an array.
	var count int
	switch {
	case op == OpInlineArray:
		count = plan.prog.inlineCount(&rd, plan.index)
	case op >= OpBooleanArray:
		count = rd.Length(1, true)
	default:
		return n.Opts.NotAnObject(n.Steps, f.Name, op.String())
	}
	if err := identifiedErr(&rd, f.Name); err != nil || count <= 0 {
		return err
	}
	from, to := st.Items(count)
	if from == to {
		return nil
	}
	size := 0
	if op <= OpDoubleArray {
		size = opSizes[op]
		if int64(count)*int64(size) > int64(rd.Len()) {
			return core.Malformed("identified", rd.Pos(), "array "+strconv.Quote(f.Name)+" is longer than the data")
		}
	}
	for i := 0; i < to; i++ {
		if i >= from {
			item := rd // reading an item leaves rd where it is
			var err error
			switch op {
			case OpObjectArray:
				err = plan.object(n, &item, depth, out)
			case OpInlineArray:
				err = plan.inline(n, &item, depth, out)
			default:
				if plan.next != nil {
					return n.Opts.NotAnObject(n.Steps, f.Name, op.String())
				}
				v := core.VarValue(&item, (op - OpBooleanArray + OpBoolean).Kind(), false)
				if err = identifiedErr(&item, f.Name); err == nil {
					err = out.Emit(v)
				}
			}
			if err != nil {
				return err
			}
		}
		if i+1 < to {
			if err := plan.skipItem(n, &rd, size, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// Top is Read's fast path for a plain scalar or string field of
// a top-level DataSerializable object whose layout has a plan:
// ok=false leaves the read to the general walk.
func (n *Node) Top(d core.Data, v *core.FieldValue) bool {
	const start = core.HeaderSize + 9 // after the header byte, factory and class
	if len(d) < start || d[core.HeaderSize] != core.IdentifiedHeader {
		return false
	}
	fid, cid := int32(binary.BigEndian.Uint32(d[core.HeaderSize+1:])), int32(binary.BigEndian.Uint32(d[core.HeaderSize+5:]))
	c := n.plans.First()
	if c == nil || c.factoryID != fid || c.classID != cid {
		if c = n.plan(fid, cid); c == nil {
			return false
		}
	}
	if c.index < 0 { // absent: null
		*v = core.FieldValue{}
		return !n.Opts.Strict
	}
	if c.kind == 0 {
		return false
	}
	at := start + c.offset
	if c.offset < 0 {
		rd, err := c.prog.locate(n.Objects, d, start, c.index)
		if err != nil {
			return false
		}
		at = rd.Pos()
	}
	return core.ScalarAt(d, at, c.kind, false, v)
}

// skipItem advances rd over one item of the plan's array field (size:
// the item size of a primitive array).
func (p *pathPlan) skipItem(n *Node, rd *wire.Reader, size, depth int) error {
	switch p.layout.Fields[p.index].Op {
	case OpStringArray:
		if m := rd.Length(1, true); m > 0 {
			rd.Skip(m)
		}
	case OpObjectArray:
		return skipObject(n.Objects, rd, depth+1)
	case OpInlineArray:
		nested, err := p.prog.inlineProgram(p.index)
		if err != nil {
			return err
		}
		return nested.skipAll(n.Objects, rd, depth+1)
	default:
		rd.Skip(size)
	}
	return identifiedErr(rd, p.layout.Fields[p.index].Name)
}

// object reads a writeObject value at rd: its value at the end of the
// path, or the next steps in it, whatever its format.
func (p *pathPlan) object(n *Node, rd *wire.Reader, depth int, out *core.Sink) error {
	at := rd.Pos()
	typ := rd.Int32()
	if err := identifiedErr(rd, p.layout.Fields[p.index].Name); err != nil {
		return err
	}
	buf := rd.Buf()
	if p.inObject != nil {
		// The reader of the value's format gets a sink of its own: an
		// interface call would move out, and every caller's sink, to the
		// heap.
		sub := &core.Sink{Each: out.Each}
		err := p.inObject.Object(buf, rd.Pos(), len(buf), typ, depth+1, sub)
		if out.Each == nil {
			out.V = sub.V
		}
		return err
	}
	v, ok, err := core.BuiltinValue(typ, buf[rd.Pos():], rd.Pos())
	if ok {
		if err != nil {
			return err
		}
		return out.Emit(v)
	}
	// A nested object: its own Data (its record rewritten, since Portable
	// positions inside it count from the enclosing Data); an array reads
	// as an array.
	sub := wire.NewReader(buf, at)
	obj, err := n.Objects.ReadObject(buf, &sub, &core.Budget{Depth: depth + 1, Size: len(buf)})
	switch {
	case err != nil:
		return err
	case obj == nil:
		return out.Emit(core.FieldValue{})
	case reflect.TypeOf(obj).Kind() == reflect.Slice:
		return out.Emit(core.FieldValue{Kind: core.ValueArray})
	}
	if v, err = n.Opts.NestedData(obj); err != nil {
		return err
	}
	return out.Emit(v)
}

// inline reads a writeDataInline object at rd (an inline field, or an
// item of an inline array).
func (p *pathPlan) inline(n *Node, rd *wire.Reader, depth int, out *core.Sink) error {
	f := &p.layout.Fields[p.index]
	buf := rd.Buf()
	if p.next != nil {
		return p.next.Object(buf, rd.Pos(), len(buf), f.FactoryID, f.ClassID, depth+1, out)
	}
	rec := Record{layout: p.layout, buf: buf, start: rd.Pos(), limit: len(buf), objs: n.Objects}
	nested, err := rec.inlineAt(rd, *f)
	if err != nil {
		return err
	}
	v, err := n.Opts.NestedData(nested)
	if err != nil {
		return err
	}
	return out.Emit(v)
}
