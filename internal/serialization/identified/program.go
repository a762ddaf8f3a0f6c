package identified

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// program is a Layout compiled for reading: for every field, where
// the walk to it starts (the last field before it at a constant offset),
// and the layouts of its inline fields, resolved in the registry the
// first time they are needed. Record and FieldReader find
// fields through it, so fields after variable-size ones cost one skip per
// field in between, with no allocation.
type program struct {
	layout *Layout
	reg    *LayoutRegistry
	// from[i] is the last field at or before i whose offset is constant.
	from []int
	// inline[i] is the program of inline field i's layout, once resolved.
	inline []atomic.Pointer[program]
	// minItem[i] is the fewest bytes an item of inline array field i
	// takes (0 until computed; see inlineCount).
	minItem []atomic.Int32
}

// program returns l compiled against reg. It is kept on the layout for
// the registry it was first compiled for (a layout lives in one registry).
func (l *Layout) program(reg *LayoutRegistry) *program {
	if p := l.prog.Load(); p != nil && p.reg == reg {
		return p
	}
	p := &program{layout: l, reg: reg, from: make([]int, len(l.Fields)),
		inline: make([]atomic.Pointer[program], len(l.Fields)), minItem: make([]atomic.Int32, len(l.Fields))}
	for i := range l.Fields {
		if l.offsets[i] >= 0 {
			p.from[i] = i
		} else {
			p.from[i] = p.from[i-1]
		}
	}
	l.prog.CompareAndSwap(nil, p)
	return p
}

// locate returns a reader at the value of field i of the object whose
// first field starts at buf[start]; buf ends where the object must end.
//
// From the last field at a constant offset it steps over fixed-size
// fields, arrays of them and strings by their lengths alone, in one loop;
// it hands what is left to walk, the general walk, at the first field of
// another kind or the first length the input cannot hold, so that errors
// are walk's.
func (p *program) locate(objs Objects, buf []byte, start, i int) (wire.Reader, error) {
	if off := p.layout.offsets[i]; off >= 0 {
		return wire.NewReader(buf, start+off), nil
	}
	j := p.from[i]
	pos := start + p.layout.offsets[j]
	fields := p.layout.Fields
	for ; j < i && pos >= 0; j++ {
		op := fields[j].Op
		size := opSizes[op]
		if op.fixed() {
			if size > len(buf)-pos {
				break
			}
			pos += size
			continue
		}
		if op == OpString {
			size = 1
		} else if op < OpBooleanArray || op > OpDoubleArray {
			break
		}
		if pos > len(buf)-4 {
			break
		}
		n := int(int32(binary.BigEndian.Uint32(buf[pos:])))
		if n == -1 { // null
			pos += 4
			continue
		}
		if n < 0 || int64(n)*int64(size) > int64(len(buf)-pos-4) {
			break
		}
		pos += 4 + n*size
	}
	rd := wire.NewReader(buf, pos)
	return rd, p.walk(objs, &rd, j, i)
}

// walk advances rd from the start of field j to the start of field i.
func (p *program) walk(objs Objects, rd *wire.Reader, j, i int) error {
	for ; j < i; j++ {
		if err := p.skipField(objs, rd, j, 0); err != nil {
			return err
		}
	}
	return nil
}

// skipAll advances rd over every field of an object.
func (p *program) skipAll(objs Objects, rd *wire.Reader, depth int) error {
	for i := range p.layout.Fields {
		if err := p.skipField(objs, rd, i, depth); err != nil {
			return err
		}
	}
	return nil
}

// skipField advances rd over field i.
func (p *program) skipField(objs Objects, rd *wire.Reader, i, depth int) error {
	if depth >= core.MaxDepth {
		return core.Malformed("identified", rd.Pos(), "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels")
	}
	f := &p.layout.Fields[i]
	switch op := f.Op; {
	case op.fixed():
		rd.Skip(opSizes[op])
	case op == OpString:
		if n := rd.Length(1, true); n > 0 {
			rd.Skip(n)
		}
	case op >= OpBooleanArray && op <= OpDoubleArray:
		if n := rd.Length(opSizes[op], true); n > 0 {
			rd.Skip(n * opSizes[op])
		}
	case op == OpStringArray:
		n := rd.Length(4, true)
		for j := 0; j < n && rd.Err() == nil; j++ {
			if m := rd.Length(1, true); m > 0 {
				rd.Skip(m)
			}
		}
	case op == OpObject:
		return skipObject(objs, rd, depth+1)
	case op == OpObjectArray:
		n := rd.Length(4, true)
		for j := 0; j < n && rd.Err() == nil; j++ {
			if err := skipObject(objs, rd, depth+1); err != nil {
				return err
			}
		}
	case op == OpInline:
		nested, err := p.inlineProgram(i)
		if err != nil {
			return err
		}
		return nested.skipAll(objs, rd, depth+1)
	case op == OpInlineArray:
		n := p.inlineCount(rd, i) // -1: a null array
		if n <= 0 || rd.Err() != nil {
			break
		}
		nested, err := p.inlineProgram(i)
		if err != nil {
			return err
		}
		for j := 0; j < n && rd.Err() == nil; j++ {
			if err := nested.skipAll(objs, rd, depth+1); err != nil {
				return err
			}
		}
	}
	return identifiedErr(rd, f.Name)
}

// inlineProgram returns the program of the layout of inline field i.
func (p *program) inlineProgram(i int) (*program, error) {
	if q := p.inline[i].Load(); q != nil {
		return q, nil
	}
	f := &p.layout.Fields[i]
	nested, ok := p.reg.Get(f.FactoryID, f.ClassID)
	if !ok {
		return nil, &core.ClassNotFoundError{Format: "identified", FactoryID: f.FactoryID, ClassID: f.ClassID, Reason: "no layout is registered for inline field " + strconv.Quote(f.Name)}
	}
	q := nested.program(p.reg)
	p.inline[i].Store(q)
	return q, nil
}

// maxEmptyItems bounds the count of a writeInlineArray whose items can take
// no bytes (see inlineCount): the input cannot bound such a count. The Java
// SDK has the same bound.
const maxEmptyItems = 1 << 16

// inlineCount reads the length of writeInlineArray field i (-1 for null),
// checked against the input by the fewest bytes an item takes; items that
// can take none (their layout has no fields, or only inline objects that
// take none) are bounded by maxEmptyItems.
func (p *program) inlineCount(rd *wire.Reader, i int) int {
	size := int(p.minItem[i].Load()) - 1
	if size < 0 {
		size = 1
		f := &p.layout.Fields[i]
		if nested, ok := p.reg.Get(f.FactoryID, f.ClassID); ok {
			size = p.reg.minSize(nested, 0)
			p.minItem[i].Store(int32(size) + 1)
		}
	}
	if size > 0 {
		return rd.Length(size, true)
	}
	n := rd.Length(0, true)
	if n > maxEmptyItems {
		rd.Fail(wire.ErrLength)
		return 0
	}
	return n
}

// minSize is the fewest bytes an object of layout l takes when written
// (unknown nested layouts count as empty).
func (reg *LayoutRegistry) minSize(l *Layout, depth int) int {
	if depth > core.MaxDepth {
		return 0
	}
	size := 0
	for _, f := range l.Fields {
		switch f.Op {
		case OpBoolean, OpByte:
			size++
		case OpChar, OpShort:
			size += 2
		case OpLong, OpDouble:
			size += 8
		case OpInline:
			if nested, ok := reg.Get(f.FactoryID, f.ClassID); ok {
				size += reg.minSize(nested, depth+1)
			}
		default: // int, float, and the length or type id that starts every other field
			size += 4
		}
	}
	return size
}

// Skip advances rd over the fields of an object of layout l (the payload
// of its Data after the header), depth objects deep.
func (l *Layout) Skip(objs Objects, rd *wire.Reader, depth int) error {
	return l.program(objs.Layouts()).skipAll(objs, rd, depth)
}

// skipObject skips a writeObject value through objs with a copy of rd:
// handing rd itself to an interface would move every caller's reader to
// the heap, also on the paths that meet no writeObject field.
func skipObject(objs Objects, rd *wire.Reader, depth int) error {
	sub := *rd
	err := objs.SkipObject(&sub, depth)
	*rd = sub
	return err
}
