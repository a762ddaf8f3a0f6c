package identified

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// LayoutOp is one call of a writeData method, named after the Java
// ObjectDataOutput call that produces the bytes.
type LayoutOp uint8

// Layout operations.
const (
	OpBoolean      LayoutOp = iota + 1 // writeBoolean: 1 byte
	OpByte                             // writeByte: 1 byte
	OpChar                             // writeChar: 2 bytes
	OpShort                            // writeShort: 2 bytes
	OpInt                              // writeInt: 4 bytes
	OpLong                             // writeLong: 8 bytes
	OpFloat                            // writeFloat: 4 bytes
	OpDouble                           // writeDouble: 8 bytes
	OpString                           // writeString: int length (-1 = null) + UTF-8
	OpBooleanArray                     // writeBooleanArray: int length + 1 byte per item
	OpByteArray                        // writeByteArray
	OpCharArray                        // writeCharArray
	OpShortArray                       // writeShortArray
	OpIntArray                         // writeIntArray
	OpLongArray                        // writeLongArray
	OpFloatArray                       // writeFloatArray
	OpDoubleArray                      // writeDoubleArray
	OpStringArray                      // writeStringArray
	OpObject                           // writeObject: type id + payload, 0 = null
	OpObjectArray                      // int length (-1 = null) + writeObject per item
	OpInline                           // nested.writeData(out): the nested layout's fields, no header
	OpInlineArray                      // int length + each item's fields inline
	opEnd
)

var opNames = [opEnd]string{"", "writeBoolean", "writeByte", "writeChar", "writeShort", "writeInt", "writeLong",
	"writeFloat", "writeDouble", "writeString", "writeBooleanArray", "writeByteArray", "writeCharArray",
	"writeShortArray", "writeIntArray", "writeLongArray", "writeFloatArray", "writeDoubleArray",
	"writeStringArray", "writeObject", "writeObjectArray", "writeDataInline", "writeInlineArray"}

// opKinds maps ops to the kind records report; object and inline ops have none.
var opKinds = [opEnd]core.FieldKind{0, core.KindBoolean, core.KindInt8, core.KindChar, core.KindInt16, core.KindInt32, core.KindInt64,
	core.KindFloat32, core.KindFloat64, core.KindString, core.KindArrayOfBoolean, core.KindArrayOfInt8, core.KindArrayOfChar,
	core.KindArrayOfInt16, core.KindArrayOfInt32, core.KindArrayOfInt64, core.KindArrayOfFloat32, core.KindArrayOfFloat64,
	core.KindArrayOfString, 0, 0, 0, 0}

// opSizes is the byte size of fixed-size ops and the item size of arrays.
var opSizes = [opEnd]int{0, 1, 1, 2, 2, 4, 8, 4, 8, 0, 1, 1, 2, 2, 4, 8, 4, 8, 0, 0, 0, 0, 0}

// String returns the Java call name, e.g. "writeInt".
func (op LayoutOp) String() string {
	if op > 0 && op < opEnd {
		return opNames[op]
	}
	return "LayoutOp(" + strconv.Itoa(int(op)) + ")"
}

// ParseLayoutOp returns the op with the Java call name s.
func ParseLayoutOp(s string) (LayoutOp, bool) {
	for i := LayoutOp(1); i < opEnd; i++ {
		if opNames[i] == s {
			return i, true
		}
	}
	return 0, false
}

// Kind returns the FieldKind a record reports for the op, or KindNotAvailable
// for object and inline ops.
func (op LayoutOp) Kind() core.FieldKind {
	if op < opEnd {
		return opKinds[op]
	}
	return core.KindNotAvailable
}

func (op LayoutOp) fixed() bool { return op >= OpBoolean && op <= OpDouble }

// LayoutField is one field of a Layout. FactoryID and ClassID name the nested
// layout of OpInline and OpInlineArray fields.
type LayoutField struct {
	Name      string
	Op        LayoutOp
	FactoryID int32
	ClassID   int32
}

// Layout declares the bytes an DataSerializable class writes: its
// fields in writeData order. It lets a reader without a Go type for the class
// (such as a member running queries) read fields in place. Layouts are
// immutable.
type Layout struct {
	FactoryID int32
	ClassID   int32
	Fields    []LayoutField
	byName    map[string]int
	// offsets[i] is the constant offset of field i from the first field, or
	// -1 when it depends on the data (after a variable-size field).
	offsets []int
	prog    atomic.Pointer[program] // see program
}

// NewLayout validates the fields and returns a layout.
func NewLayout(factoryID, classID int32, fields []LayoutField) (*Layout, error) {
	l := &Layout{FactoryID: factoryID, ClassID: classID, Fields: fields, byName: make(map[string]int, len(fields)), offsets: make([]int, len(fields))}
	off := 0
	for i, f := range fields {
		if f.Name == "" {
			return nil, &core.DefinitionError{What: layoutWhat(factoryID, classID), Reason: "field " + strconv.Itoa(i) + " has no name"}
		}
		if f.Op == 0 || f.Op >= opEnd {
			return nil, &core.DefinitionError{What: layoutWhat(factoryID, classID), Reason: "field " + strconv.Quote(f.Name) + " has an unknown op"}
		}
		if _, dup := l.byName[f.Name]; dup {
			return nil, &core.DefinitionError{What: layoutWhat(factoryID, classID), Reason: "field " + strconv.Quote(f.Name) + " appears twice"}
		}
		l.byName[f.Name] = i
		l.offsets[i] = off
		if off >= 0 && f.Op.fixed() {
			off += opSizes[f.Op]
		} else {
			off = -1
		}
	}
	return l, nil
}

// Field returns the named field and its index.
func (l *Layout) Field(name string) (LayoutField, int, bool) {
	i, ok := l.byName[name]
	if !ok {
		return LayoutField{}, -1, false
	}
	return l.Fields[i], i, true
}

// LayoutRegistry holds layouts by factory and class id. Reads are lock-free.
// The zero value is not usable; use NewLayoutRegistry.
type LayoutRegistry struct {
	mu sync.Mutex
	m  atomic.Pointer[map[[2]int32]*Layout]
}

// NewLayoutRegistry returns an empty registry.
func NewLayoutRegistry() *LayoutRegistry {
	r := &LayoutRegistry{}
	m := map[[2]int32]*Layout{}
	r.m.Store(&m)
	return r
}

// Get returns the layout of the given class.
func (r *LayoutRegistry) Get(factoryID, classID int32) (*Layout, bool) {
	l, ok := (*r.m.Load())[[2]int32{factoryID, classID}]
	return l, ok
}

// Add registers l. Registering a different layout for the same class fails.
func (r *LayoutRegistry) Add(l *Layout) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := *r.m.Load()
	key := [2]int32{l.FactoryID, l.ClassID}
	if old, ok := cur[key]; ok {
		if old == l || sameLayout(old, l) {
			return nil
		}
		return &core.DefinitionError{What: layoutWhat(l.FactoryID, l.ClassID), Reason: "a different layout is already registered for this class"}
	}
	next := make(map[[2]int32]*Layout, len(cur)+1)
	for k, v := range cur {
		next[k] = v
	}
	next[key] = l
	r.m.Store(&next)
	return nil
}

// All returns every registered layout, in no particular order.
func (r *LayoutRegistry) All() []*Layout {
	m := *r.m.Load()
	out := make([]*Layout, 0, len(m))
	for _, l := range m {
		out = append(out, l)
	}
	return out
}

func sameLayout(a, b *Layout) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i] != b.Fields[i] {
			return false
		}
	}
	return true
}

// Record reads the fields of one DataSerializable value
// in place through its Layout. Fields before the first variable-size field
// are read at constant offsets; later ones are found by skipping over the
// fields before them. It aliases the Data it was read from.
type Record struct {
	layout *Layout
	buf    []byte // the whole Data (nested Portable positions are absolute)
	start  int    // index of the first field
	limit  int    // the object ends by here
	objs   Objects
}

// ReadRecord reads an DataSerializable Data through the
// layout registered in svc for its class.
func ReadRecord(d core.Data, objs Objects) (Record, error) {
	if err := d.Check(); err != nil {
		return Record{}, err
	}
	if d.Type() != core.TypeIdentified {
		return Record{}, &core.DecodeError{Format: "identified", Offset: 4, Reason: "type id " + strconv.Itoa(int(d.Type())) + " is not the identified type"}
	}
	rd := wire.NewReader(d, core.HeaderSize)
	hdr, fid, cid := rd.Int8(), rd.Int32(), rd.Int32()
	if rd.Err() != nil || hdr != core.IdentifiedHeader {
		return Record{}, core.Malformed("identified", core.HeaderSize, "truncated or unsupported header")
	}
	l, ok := objs.Layouts().Get(fid, cid)
	if !ok {
		return Record{}, &core.ClassNotFoundError{Format: "identified", FactoryID: fid, ClassID: cid, Reason: "no layout is registered"}
	}
	return Record{layout: l, buf: d, start: rd.Pos(), limit: len(d), objs: objs}, nil
}

// Layout returns the record's layout.
func (r *Record) Layout() *Layout { return r.layout }

// FieldKind returns the kind of the named field: KindNotAvailable for
// unknown fields and for object and inline fields (see Op).
func (r *Record) FieldKind(name string) core.FieldKind {
	f, _, ok := r.layout.Field(name)
	if !ok {
		return core.KindNotAvailable
	}
	return f.Op.Kind()
}

// HasField reports whether the layout has the named field.
func (r *Record) HasField(name string) bool {
	_, _, ok := r.layout.Field(name)
	return ok
}

// Op returns the op of the named field, or 0.
func (r *Record) Op(name string) LayoutOp {
	f, _, _ := r.layout.Field(name)
	return f.Op
}

// locate returns a reader at the value of field i.
func (r *Record) locate(i int) (wire.Reader, error) {
	return r.layout.program(r.objs.Layouts()).locate(r.objs, r.buf[:r.limit], r.start, i)
}

// end walks every field and returns the index after the object.
func (r *Record) end(depth int) (int, error) {
	rd := wire.NewReader(r.buf[:r.limit], r.start)
	err := r.layout.program(r.objs.Layouts()).skipAll(r.objs, &rd, depth)
	return rd.Pos(), err
}

// value resolves the named field, checks its op and returns a reader at it.
func (r *Record) value(name string, ops ...LayoutOp) (LayoutField, wire.Reader, error) {
	if r.layout == nil {
		return LayoutField{}, wire.Reader{}, &core.FieldError{Field: name, Reason: "read from an empty record"}
	}
	f, i, ok := r.layout.Field(name)
	if !ok {
		return f, wire.Reader{}, core.AbsentField(name, "is not in "+layoutWhat(r.layout.FactoryID, r.layout.ClassID))
	}
	match := false
	for _, op := range ops {
		match = match || f.Op == op
	}
	if !match {
		return f, wire.Reader{}, &core.FieldError{Field: name, Reason: "is written with " + f.Op.String() + ", not " + ops[0].String()}
	}
	rd, err := r.locate(i)
	return f, rd, err
}

// GetBoolean reads a writeBoolean field.
func (r *Record) GetBoolean(name string) (bool, error) {
	_, rd, err := r.value(name, OpBoolean)
	if err != nil {
		return false, err
	}
	v := rd.Bool()
	return v, identifiedErr(&rd, name)
}

// GetInt8 reads a writeByte field.
func (r *Record) GetInt8(name string) (int8, error) {
	_, rd, err := r.value(name, OpByte)
	if err != nil {
		return 0, err
	}
	v := rd.Int8()
	return v, identifiedErr(&rd, name)
}

// GetChar reads a writeChar field.
func (r *Record) GetChar(name string) (core.Char, error) {
	_, rd, err := r.value(name, OpChar)
	if err != nil {
		return 0, err
	}
	v := core.Char(rd.Uint16())
	return v, identifiedErr(&rd, name)
}

// GetInt16 reads a writeShort field.
func (r *Record) GetInt16(name string) (int16, error) {
	_, rd, err := r.value(name, OpShort)
	if err != nil {
		return 0, err
	}
	v := rd.Int16()
	return v, identifiedErr(&rd, name)
}

// GetInt32 reads a writeInt field.
func (r *Record) GetInt32(name string) (int32, error) {
	_, rd, err := r.value(name, OpInt)
	if err != nil {
		return 0, err
	}
	v := rd.Int32()
	return v, identifiedErr(&rd, name)
}

// GetInt64 reads a writeLong field.
func (r *Record) GetInt64(name string) (int64, error) {
	_, rd, err := r.value(name, OpLong)
	if err != nil {
		return 0, err
	}
	v := rd.Int64()
	return v, identifiedErr(&rd, name)
}

// GetFloat32 reads a writeFloat field.
func (r *Record) GetFloat32(name string) (float32, error) {
	_, rd, err := r.value(name, OpFloat)
	if err != nil {
		return 0, err
	}
	v := rd.Float32()
	return v, identifiedErr(&rd, name)
}

// GetFloat64 reads a writeDouble field.
func (r *Record) GetFloat64(name string) (float64, error) {
	_, rd, err := r.value(name, OpDouble)
	if err != nil {
		return 0, err
	}
	v := rd.Float64()
	return v, identifiedErr(&rd, name)
}

// GetStringBytes returns a view of a writeString field's bytes; null reports ok=false.
func (r *Record) GetStringBytes(name string) (b []byte, ok bool, err error) {
	_, rd, err := r.value(name, OpString)
	if err != nil {
		return nil, false, err
	}
	b, ok = rd.StringBytes()
	return b, ok, identifiedErr(&rd, name)
}

// GetString reads a writeString field; null reads as "".
func (r *Record) GetString(name string) (string, error) {
	b, _, err := r.GetStringBytes(name)
	return string(b), err
}

// GetStringPtr reads a writeString field; null is nil.
func (r *Record) GetStringPtr(name string) (*string, error) {
	b, ok, err := r.GetStringBytes(name)
	if err != nil || !ok {
		return nil, err
	}
	s := string(b)
	return &s, nil
}

func readArray[T any](r *Record, name string, op LayoutOp, read func(*wire.Reader) T) ([]T, error) {
	_, rd, err := r.value(name, op)
	if err != nil {
		return nil, err
	}
	v := core.ReadSlice(&rd, opSizes[op], read)
	return v, identifiedErr(&rd, name)
}

// readNumbers reads a field of an array of numbers in one pass.
func readNumbers[T wire.Number](r *Record, name string, op LayoutOp) ([]T, error) {
	_, rd, err := r.value(name, op)
	if err != nil {
		return nil, err
	}
	v := core.ReadNumbers[T](&rd, nil)
	return v, identifiedErr(&rd, name)
}

// GetArrayOfBoolean reads a writeBooleanArray field; null is nil.
func (r *Record) GetArrayOfBoolean(name string) ([]bool, error) {
	return readArray(r, name, OpBooleanArray, (*wire.Reader).Bool)
}

// GetArrayOfInt8 reads a writeByteArray field as int8s; null is nil.
func (r *Record) GetArrayOfInt8(name string) ([]int8, error) {
	return readArray(r, name, OpByteArray, (*wire.Reader).Int8)
}

// GetByteArray reads a writeByteArray field; null is nil.
func (r *Record) GetByteArray(name string) ([]byte, error) {
	return readArray(r, name, OpByteArray, func(rd *wire.Reader) byte { return byte(rd.Int8()) })
}

// GetArrayOfChar reads a writeCharArray field; null is nil.
func (r *Record) GetArrayOfChar(name string) ([]core.Char, error) {
	return readArray(r, name, OpCharArray, func(rd *wire.Reader) core.Char { return core.Char(rd.Uint16()) })
}

// GetArrayOfInt16 reads a writeShortArray field; null is nil.
func (r *Record) GetArrayOfInt16(name string) ([]int16, error) {
	return readNumbers[int16](r, name, OpShortArray)
}

// GetArrayOfInt32 reads a writeIntArray field; null is nil.
func (r *Record) GetArrayOfInt32(name string) ([]int32, error) {
	return readNumbers[int32](r, name, OpIntArray)
}

// GetArrayOfInt64 reads a writeLongArray field; null is nil.
func (r *Record) GetArrayOfInt64(name string) ([]int64, error) {
	return readNumbers[int64](r, name, OpLongArray)
}

// GetArrayOfFloat32 reads a writeFloatArray field; null is nil.
func (r *Record) GetArrayOfFloat32(name string) ([]float32, error) {
	return readNumbers[float32](r, name, OpFloatArray)
}

// GetArrayOfFloat64 reads a writeDoubleArray field; null is nil.
func (r *Record) GetArrayOfFloat64(name string) ([]float64, error) {
	return readNumbers[float64](r, name, OpDoubleArray)
}

// GetArrayOfStringPtr reads a writeStringArray field; null items are nil.
func (r *Record) GetArrayOfStringPtr(name string) ([]*string, error) {
	_, rd, err := r.value(name, OpStringArray)
	if err != nil {
		return nil, err
	}
	v := core.ReadStringPtrs(&rd)
	return v, identifiedErr(&rd, name)
}

// GetArrayOfString reads a writeStringArray field; null items read as "".
func (r *Record) GetArrayOfString(name string) ([]string, error) {
	ptrs, err := r.GetArrayOfStringPtr(name)
	if ptrs == nil {
		return nil, err
	}
	out := make([]string, len(ptrs))
	for i, p := range ptrs {
		if p != nil {
			out[i] = *p
		}
	}
	return out, nil
}

// GetObject reads a writeObject field: a registered Go value, a record, or
// a built-in value; null is nil.
func (r *Record) GetObject(name string) (any, error) {
	_, rd, err := r.value(name, OpObject)
	if err != nil {
		return nil, err
	}
	return r.objs.ReadObject(r.buf[:r.limit], &rd, &core.Budget{Size: r.limit})
}

// GetArrayOfObject reads a writeObjectArray field; null is nil.
func (r *Record) GetArrayOfObject(name string) ([]any, error) {
	_, rd, err := r.value(name, OpObjectArray)
	if err != nil {
		return nil, err
	}
	n := rd.Length(4, true)
	if err := identifiedErr(&rd, name); err != nil || n < 0 {
		return nil, err
	}
	budget := core.Budget{Size: r.limit}
	out := make([]any, n)
	for i := range out {
		if out[i], err = r.objs.ReadObject(r.buf[:r.limit], &rd, &budget); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inlineAt returns the record of an inline object of field f at rd and
// advances rd past it.
func (r *Record) inlineAt(rd *wire.Reader, f LayoutField) (*Record, error) {
	nested, ok := r.objs.Layouts().Get(f.FactoryID, f.ClassID)
	if !ok {
		return nil, &core.ClassNotFoundError{Format: "identified", FactoryID: f.FactoryID, ClassID: f.ClassID, Reason: "no layout is registered for inline field " + strconv.Quote(f.Name)}
	}
	rec := &Record{layout: nested, buf: r.buf, start: rd.Pos(), limit: r.limit, objs: r.objs}
	end, err := rec.end(1)
	if err != nil {
		return nil, err
	}
	rec.limit = end
	rd.Seek(end)
	return rec, nil
}

// GetInline reads a writeDataInline field as a record of the nested layout.
func (r *Record) GetInline(name string) (*Record, error) {
	f, rd, err := r.value(name, OpInline)
	if err != nil {
		return nil, err
	}
	return r.inlineAt(&rd, f)
}

// GetArrayOfInline reads a writeInlineArray field as records.
func (r *Record) GetArrayOfInline(name string) ([]*Record, error) {
	f, rd, err := r.value(name, OpInlineArray)
	if err != nil {
		return nil, err
	}
	_, i, _ := r.layout.Field(name)
	n := r.layout.program(r.objs.Layouts()).inlineCount(&rd, i)
	if err := identifiedErr(&rd, name); err != nil || n < 0 {
		return nil, err // n < 0: a null array, written as length -1
	}
	out := make([]*Record, n)
	for i := range out {
		if out[i], err = r.inlineAt(&rd, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Get reads any field as a Go value: the types of the typed getters, nil for
// null, records or registered Go values for object and inline fields.
func (r *Record) Get(name string) (any, error) {
	f, _, ok := r.layout.Field(name)
	if !ok {
		return nil, core.AbsentField(name, "is not in "+layoutWhat(r.layout.FactoryID, r.layout.ClassID))
	}
	switch f.Op {
	case OpBoolean:
		return r.GetBoolean(name)
	case OpByte:
		return r.GetInt8(name)
	case OpChar:
		return r.GetChar(name)
	case OpShort:
		return r.GetInt16(name)
	case OpInt:
		return r.GetInt32(name)
	case OpLong:
		return r.GetInt64(name)
	case OpFloat:
		return r.GetFloat32(name)
	case OpDouble:
		return r.GetFloat64(name)
	case OpString:
		return core.DerefOrNil(r.GetStringPtr(name))
	case OpBooleanArray:
		return core.NilSlice(r.GetArrayOfBoolean(name))
	case OpByteArray:
		return core.NilSlice(r.GetArrayOfInt8(name))
	case OpCharArray:
		return core.NilSlice(r.GetArrayOfChar(name))
	case OpShortArray:
		return core.NilSlice(r.GetArrayOfInt16(name))
	case OpIntArray:
		return core.NilSlice(r.GetArrayOfInt32(name))
	case OpLongArray:
		return core.NilSlice(r.GetArrayOfInt64(name))
	case OpFloatArray:
		return core.NilSlice(r.GetArrayOfFloat32(name))
	case OpDoubleArray:
		return core.NilSlice(r.GetArrayOfFloat64(name))
	case OpStringArray:
		return core.NilSlice(r.GetArrayOfStringPtr(name))
	case OpObject:
		return r.GetObject(name)
	case OpObjectArray:
		return core.NilSlice(r.GetArrayOfObject(name))
	case OpInline:
		return r.GetInline(name)
	case OpInlineArray:
		return core.NilSlice(r.GetArrayOfInline(name))
	}
	return nil, &core.FieldError{Field: name, Reason: "has unknown op " + f.Op.String()}
}

// writeFields writes every field of the record through o, in layout order.
func (r *Record) writeFields(o *DataOutput, depth int) {
	if depth >= core.MaxDepth {
		o.fail(&core.TypeError{Type: "IdentifiedRecord", Reason: "objects nest deeper than " + strconv.Itoa(core.MaxDepth) + " levels"})
		return
	}
	for _, f := range r.layout.Fields {
		v, err := r.Get(f.Name)
		if err != nil {
			o.fail(err)
			return
		}
		o.writeValue(f, v, depth)
	}
}

// writeValue writes field f from a generic value (see RecordBuilder.Set).
func (o *DataOutput) writeValue(f LayoutField, v any, depth int) {
	ok := true
	switch f.Op {
	case OpObject:
		o.WriteObject(v)
	case OpObjectArray:
		var x []any
		if x, ok = core.AsSlice[any](v); ok {
			if x == nil {
				o.WriteInt32(-1)
				break
			}
			o.WriteInt32(int32(len(x)))
			for _, it := range x {
				o.WriteObject(it)
			}
		}
	case OpInline:
		var x *Record
		if x, ok = v.(*Record); ok && x != nil {
			x.writeFields(o, depth+1)
		} else {
			ok = false
		}
	case OpInlineArray:
		var x []*Record
		if v == nil {
			o.WriteInt32(-1)
			break
		}
		if x, ok = v.([]*Record); ok && x == nil {
			o.WriteInt32(-1)
		} else if ok {
			o.WriteInt32(int32(len(x)))
			for _, it := range x {
				if it == nil {
					o.fail(&core.FieldError{Field: f.Name, Reason: "inline arrays cannot hold null items"})
					return
				}
				it.writeFields(o, depth+1)
			}
		}
	default:
		ok = core.WriteValue(valueField{o, f.Name}, f.Op.Kind(), v)
	}
	if !ok {
		o.fail(&core.FieldError{Field: f.Name, Reason: fmt.Sprintf("a %T value cannot be written with %s", v, f.Op)})
	}
}

// valueField is a field of a DataOutput as the value switch writes
// it: the ops whose values have a field kind.
type valueField struct {
	o    *DataOutput
	name string
}

var _ core.ValueWriter = valueField{}

func (f valueField) refuse() {
	f.o.fail(&core.FieldError{Field: f.name, Reason: "the layout's op writes no value of this kind"})
}

func (f valueField) Boolean(v bool) { f.o.WriteBoolean(v) }

func (f valueField) Int8(v int8) { f.o.WriteInt8(v) }

func (f valueField) Char(v core.Char) { f.o.WriteChar(v) }

func (f valueField) Int16(v int16) { f.o.WriteInt16(v) }

func (f valueField) Int32(v int32) { f.o.WriteInt32(v) }

func (f valueField) Int64(v int64) { f.o.WriteInt64(v) }

func (f valueField) Float32(v float32) { f.o.WriteFloat32(v) }

func (f valueField) Float64(v float64) { f.o.WriteFloat64(v) }

func (f valueField) String(v *string) { f.o.WriteStringPtr(v) }

func (f valueField) Decimal(*core.Decimal) { f.refuse() }

func (f valueField) Time(*core.LocalTime) { f.refuse() }

func (f valueField) Date(*core.LocalDate) { f.refuse() }

func (f valueField) Timestamp(*core.LocalDateTime) { f.refuse() }

func (f valueField) TimestampTZ(*core.OffsetDateTime) { f.refuse() }

func (f valueField) NullableBoolean(*bool) { f.refuse() }

func (f valueField) NullableInt8(*int8) { f.refuse() }

func (f valueField) NullableInt16(*int16) { f.refuse() }

func (f valueField) NullableInt32(*int32) { f.refuse() }

func (f valueField) NullableInt64(*int64) { f.refuse() }

func (f valueField) NullableFloat32(*float32) { f.refuse() }

func (f valueField) NullableFloat64(*float64) { f.refuse() }

func (f valueField) Booleans(v []bool) { f.o.WriteBooleanArray(v) }

func (f valueField) Int8s(v []int8) { f.o.WriteByteArray(core.Int8sToBytes(v)) }

func (f valueField) Bytes(v []byte) { f.o.WriteByteArray(v) }

func (f valueField) Chars(v []core.Char) { f.o.WriteCharArray(v) }

func (f valueField) Int16s(v []int16) { f.o.WriteInt16Array(v) }

func (f valueField) Int32s(v []int32) { f.o.WriteInt32Array(v) }

func (f valueField) Int64s(v []int64) { f.o.WriteInt64Array(v) }

func (f valueField) Float32s(v []float32) { f.o.WriteFloat32Array(v) }

func (f valueField) Float64s(v []float64) { f.o.WriteFloat64Array(v) }

func (f valueField) Strings(v []*string) { f.o.WriteStringPtrArray(v) }

func (f valueField) Decimals([]*core.Decimal) { f.refuse() }

func (f valueField) Times([]*core.LocalTime) { f.refuse() }

func (f valueField) Dates([]*core.LocalDate) { f.refuse() }

func (f valueField) Timestamps([]*core.LocalDateTime) { f.refuse() }

func (f valueField) TimestampTZs([]*core.OffsetDateTime) { f.refuse() }

func (f valueField) NullableBooleans([]*bool) { f.refuse() }

func (f valueField) NullableInt8s([]*int8) { f.refuse() }

func (f valueField) NullableInt16s([]*int16) { f.refuse() }

func (f valueField) NullableInt32s([]*int32) { f.refuse() }

func (f valueField) NullableInt64s([]*int64) { f.refuse() }

func (f valueField) NullableFloat32s([]*float32) { f.refuse() }

func (f valueField) NullableFloat64s([]*float64) { f.refuse() }

func (f valueField) Object(any) bool { return false }

func (f valueField) Objects(any) bool { return false }

// RecordBuilder builds an DataSerializable value from a
// layout and field values, without a Go type.
type RecordBuilder struct {
	layout  *Layout
	layouts *LayoutRegistry
	values  map[string]any
	codec   func(*LayoutRegistry) (Codec, error)
}

// Codec is what a record builder needs of a Service for a layout
// registry: the Objects its records read writeObject values with, and an
// ObjectWriter that writes them into a Data starting at the beginning of
// its buffer.
type Codec interface {
	Objects
	NewObjectWriter() ObjectWriter
}

// NewRecordBuilder starts a record of the given layout; layouts
// resolves the layouts of inline fields and may be nil when there are
// none; codec makes the Service that writes and reads the record's
// writeObject values.
func NewRecordBuilder(layout *Layout, layouts *LayoutRegistry, codec func(*LayoutRegistry) (Codec, error)) *RecordBuilder {
	return &RecordBuilder{layout: layout, layouts: layouts, values: map[string]any{}, codec: codec}
}

// Set sets a field. Values take the types Record.Get returns (or
// pointers to them, or nil for null); inline fields take *Record.
func (b *RecordBuilder) Set(name string, value any) *RecordBuilder {
	b.values[name] = value
	return b
}

// Build encodes the record as a complete Data and reads it back.
func (b *RecordBuilder) Build() (*Record, error) {
	for name := range b.values {
		if _, _, ok := b.layout.Field(name); !ok {
			return nil, &core.FieldError{Field: name, Reason: "is not in " + layoutWhat(b.layout.FactoryID, b.layout.ClassID)}
		}
	}
	layouts := b.layouts
	if layouts == nil {
		layouts = NewLayoutRegistry()
	}
	if err := layouts.Add(b.layout); err != nil {
		return nil, err
	}
	codec, err := b.codec(layouts)
	if err != nil {
		return nil, err
	}
	e := &Encoder{Encoding: &core.Encoding{}, Objects: codec.NewObjectWriter()}
	buf := wire.AppendInt32(nil, 0)
	buf = wire.AppendInt32(buf, core.TypeIdentified)
	buf = append(buf, core.IdentifiedHeader)
	buf = wire.AppendInt32(buf, b.layout.FactoryID)
	buf = wire.AppendInt32(buf, b.layout.ClassID)
	o := &DataOutput{enc: e, buf: buf}
	for _, f := range b.layout.Fields {
		o.writeValue(f, b.values[f.Name], 0)
	}
	if o.err != nil {
		return nil, o.err
	}
	rec, err := ReadRecord(o.buf, codec)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}
