package identified

import (
	"fmt"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// DataSerializable is a type that writes itself field by field in
// a fixed order, like Hazelcast's DataSerializable: no names and no
// offsets, so it is the most compact format. Byte compatibility with a Java
// class requires the same calls in the same order as its writeData.
type DataSerializable interface {
	FactoryID() int32
	ClassID() int32
	WriteData(out *DataOutput)
	// ReadData reads the fields in the order WriteData wrote them. Errors
	// are recorded in the input.
	ReadData(in *DataInput)
}

// Factory creates empty DataSerializable values to read into.
type Factory interface {
	FactoryID() int32
	// Create returns a new value of the class, or nil for an unknown class id.
	Create(classID int32) DataSerializable
}

// DataOutput receives the fields of an DataSerializable, with the
// encodings of Hazelcast's ObjectDataOutput. Errors are sticky.
type DataOutput struct {
	enc *Encoder
	buf []byte
	err error
}

// Err returns the first error recorded by the output.
func (o *DataOutput) Err() error { return o.err }

func (o *DataOutput) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// WriteBoolean writes one byte, 0 or 1 (Java writeBoolean).
func (o *DataOutput) WriteBoolean(v bool) { o.buf = wire.AppendBool(o.buf, v) }

// WriteInt8 writes one byte (Java writeByte).
func (o *DataOutput) WriteInt8(v int8) { o.buf = append(o.buf, byte(v)) }

// WriteChar writes a UTF-16 code unit (Java writeChar).
func (o *DataOutput) WriteChar(v core.Char) { o.buf = wire.AppendInt16(o.buf, int16(v)) }

// WriteInt16 writes a short (Java writeShort).
func (o *DataOutput) WriteInt16(v int16) { o.buf = wire.AppendInt16(o.buf, v) }

// WriteInt32 writes an int (Java writeInt).
func (o *DataOutput) WriteInt32(v int32) { o.buf = wire.AppendInt32(o.buf, v) }

// WriteInt64 writes a long (Java writeLong).
func (o *DataOutput) WriteInt64(v int64) { o.buf = wire.AppendInt64(o.buf, v) }

// WriteFloat32 writes a float (Java writeFloat).
func (o *DataOutput) WriteFloat32(v float32) { o.buf = wire.AppendFloat32(o.buf, v) }

// WriteFloat64 writes a double (Java writeDouble).
func (o *DataOutput) WriteFloat64(v float64) { o.buf = wire.AppendFloat64(o.buf, v) }

// WriteString writes a string (Java writeString).
func (o *DataOutput) WriteString(v string) {
	var err error
	if o.buf, err = wire.AppendString(o.buf, v); err != nil {
		o.fail(core.StringErr(err, v))
	}
}

// WriteStringPtr writes a string; nil writes null.
func (o *DataOutput) WriteStringPtr(v *string) {
	if v == nil {
		o.buf = wire.AppendNullString(o.buf)
		return
	}
	o.WriteString(*v)
}

// WriteByteArray writes int length + bytes; nil writes null (Java writeByteArray).
func (o *DataOutput) WriteByteArray(v []byte) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendBytes)
}

// WriteBooleanArray writes int length + one byte per item; nil writes null.
func (o *DataOutput) WriteBooleanArray(v []bool) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendBools)
}

// WriteCharArray writes int length + chars; nil writes null.
func (o *DataOutput) WriteCharArray(v []core.Char) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendChars)
}

// WriteInt16Array writes int length + shorts; nil writes null.
func (o *DataOutput) WriteInt16Array(v []int16) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendInt16s)
}

// WriteInt32Array writes int length + ints; nil writes null.
func (o *DataOutput) WriteInt32Array(v []int32) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendInt32s)
}

// WriteInt64Array writes int length + longs; nil writes null.
func (o *DataOutput) WriteInt64Array(v []int64) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendInt64s)
}

// WriteFloat32Array writes int length + floats; nil writes null.
func (o *DataOutput) WriteFloat32Array(v []float32) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendFloat32s)
}

// WriteFloat64Array writes int length + doubles; nil writes null.
func (o *DataOutput) WriteFloat64Array(v []float64) {
	o.buf = core.AppendNullableArray(o.buf, v, core.AppendFloat64s)
}

// WriteStringArray writes int length + strings; nil writes null.
func (o *DataOutput) WriteStringArray(v []string) {
	if v == nil {
		o.buf = wire.AppendInt32(o.buf, -1)
		return
	}
	var err error
	if o.buf, err = core.AppendStrings(o.buf, v); err != nil {
		o.fail(core.StringErr(err, v...))
	}
}

// WriteStringPtrArray writes int length + strings with null items for nil; nil writes null.
func (o *DataOutput) WriteStringPtrArray(v []*string) {
	if v == nil {
		o.buf = wire.AppendInt32(o.buf, -1)
		return
	}
	var err error
	if o.buf, err = core.AppendStringPtrs(o.buf, v); err != nil {
		o.fail(core.StringPtrsErr(err, v))
	}
}

// WriteObject writes any serializable value as type id + payload, or type
// id 0 for nil (Java writeObject). Boxed numbers are written with their
// built-in type, e.g. int32 as -7 + 4 bytes.
func (o *DataOutput) WriteObject(v any) {
	if o.err != nil {
		return
	}
	var err error
	if o.buf, err = o.enc.Objects.AppendObject(o.buf, v); err != nil {
		o.fail(err)
	}
}

// Objects is what IdentifiedDataSerializable values need of the Service,
// which knows every format: the layouts, and the values of any format that
// writeObject fields hold. This is the one place where values cross
// formats: a Compact or Portable object nests objects of its own format
// only.
type Objects interface {
	// Layouts returns the layout registry.
	Layouts() *LayoutRegistry
	// ReadObject decodes the writeObject value (type id and payload) at
	// rd in buf, the whole Data, within budget.
	ReadObject(buf []byte, rd *wire.Reader, budget *core.Budget) (any, error)
	// SkipObject advances rd past a writeObject value, depth objects deep.
	SkipObject(rd *wire.Reader, depth int) error
}

// ObjectWriter appends writeObject values of any format (type id and
// payload) for the serialization under way: the Service's encoder.
type ObjectWriter interface {
	AppendObject(dst []byte, v any) ([]byte, error)
}

// Encoder writes the IdentifiedDataSerializable objects of one
// serialization.
type Encoder struct {
	*core.Encoding
	Objects ObjectWriter
	outputs []*DataOutput // one per nesting depth, reused
}

// AppendData appends type id, header, factory and class ids and the fields
// v writes.
func (e *Encoder) AppendData(dst []byte, v DataSerializable) ([]byte, error) {
	dst = wire.AppendInt32(dst, core.TypeIdentified)
	dst = append(dst, core.IdentifiedHeader)
	dst = wire.AppendInt32(dst, v.FactoryID())
	dst = wire.AppendInt32(dst, v.ClassID())
	o := e.output()
	*o = DataOutput{enc: e, buf: dst}
	e.Depth++
	v.WriteData(o)
	e.Depth--
	dst, err := o.buf, o.err
	*o = DataOutput{}
	return dst, err
}

// output returns an output for the current nesting depth.
func (e *Encoder) output() *DataOutput {
	for len(e.outputs) <= e.Depth {
		e.outputs = append(e.outputs, &DataOutput{})
	}
	return e.outputs[e.Depth]
}

// DataInput supplies the fields of an DataSerializable to ReadData,
// with the encodings of Hazelcast's ObjectDataInput. Errors are sticky:
// after the first one every read returns the zero value.
type DataInput struct {
	dec *Decoder
	rd  wire.Reader
	err error
}

// Err returns the first error the input met.
func (in *DataInput) Err() error {
	if in.err == nil && in.rd.Err() != nil {
		in.err = &core.DecodeError{Format: "identified", Offset: in.rd.Pos(), Reason: "read past the end of the object or an invalid length", Err: in.rd.Err()}
	}
	return in.err
}

// ReadBoolean reads a boolean.
func (in *DataInput) ReadBoolean() bool { return in.rd.Bool() }

// ReadInt8 reads a byte.
func (in *DataInput) ReadInt8() int8 { return in.rd.Int8() }

// ReadChar reads a char.
func (in *DataInput) ReadChar() core.Char { return core.Char(in.rd.Uint16()) }

// ReadInt16 reads a short.
func (in *DataInput) ReadInt16() int16 { return in.rd.Int16() }

// ReadInt32 reads an int.
func (in *DataInput) ReadInt32() int32 { return in.rd.Int32() }

// ReadInt64 reads a long.
func (in *DataInput) ReadInt64() int64 { return in.rd.Int64() }

// ReadFloat32 reads a float.
func (in *DataInput) ReadFloat32() float32 { return in.rd.Float32() }

// ReadFloat64 reads a double.
func (in *DataInput) ReadFloat64() float64 { return in.rd.Float64() }

// ReadString reads a string; null reads as "".
func (in *DataInput) ReadString() string {
	b, _ := in.rd.StringBytes()
	return in.str(b)
}

// str returns b as a string, sharing an allocation with the other strings
// of the Data being read.
func (in *DataInput) str(b []byte) string {
	return in.arena().String(b)
}

// arena is the decoder's arena (nil, allocating per value, for an input
// of no decoder).
func (in *DataInput) arena() *core.Arena {
	if in.dec == nil {
		return nil
	}
	return &in.dec.arena
}

// ReadStringPtr reads a string; null is nil.
func (in *DataInput) ReadStringPtr() *string {
	b, ok := in.rd.StringBytes()
	if !ok {
		return nil
	}
	s := in.str(b)
	return &s
}

// ReadByteArray reads a byte array; null is nil.
func (in *DataInput) ReadByteArray() []byte {
	return core.ReadByteArray(&in.rd)
}

// ReadBooleanArray reads a boolean array; null is nil.
func (in *DataInput) ReadBooleanArray() []bool { return core.ReadSlice(&in.rd, 1, (*wire.Reader).Bool) }

// ReadCharArray reads a char array; null is nil.
func (in *DataInput) ReadCharArray() []core.Char {
	return core.ReadSlice(&in.rd, 2, func(rd *wire.Reader) core.Char { return core.Char(rd.Uint16()) })
}

// ReadInt16Array reads a short array; null is nil.
func (in *DataInput) ReadInt16Array() []int16 { return core.ReadNumbers[int16](&in.rd, in.arena()) }

// ReadInt32Array reads an int array; null is nil.
func (in *DataInput) ReadInt32Array() []int32 { return core.ReadNumbers[int32](&in.rd, in.arena()) }

// ReadInt64Array reads a long array; null is nil.
func (in *DataInput) ReadInt64Array() []int64 { return core.ReadNumbers[int64](&in.rd, in.arena()) }

// ReadFloat32Array reads a float array; null is nil.
func (in *DataInput) ReadFloat32Array() []float32 {
	return core.ReadNumbers[float32](&in.rd, in.arena())
}

// ReadFloat64Array reads a double array; null is nil.
func (in *DataInput) ReadFloat64Array() []float64 {
	return core.ReadNumbers[float64](&in.rd, in.arena())
}

// ReadStringArray reads a string array; null items read as "".
func (in *DataInput) ReadStringArray() []string {
	return core.ReadSlice(&in.rd, 4, func(rd *wire.Reader) string {
		b, _ := rd.StringBytes()
		return in.str(b)
	})
}

// ReadStringPtrArray reads a string array; null items are nil.
func (in *DataInput) ReadStringPtrArray() []*string { return core.ReadStringPtrs(&in.rd) }

// ReadLength reads an int32 item count for an array the class writes itself
// (such as a length followed by inline objects) and checks that count items
// of at least minItemSize bytes each fit in the remaining input, so that
// ReadData never allocates from a corrupt length. It returns -1 for null
// (length -1) and after an error.
func (in *DataInput) ReadLength(minItemSize int) int {
	n := in.rd.Length(minItemSize, true)
	if in.rd.Err() != nil {
		return -1
	}
	return n
}

// ReadObject reads a value written with WriteObject; null is nil.
func (in *DataInput) ReadObject() any {
	if in.Err() != nil {
		return nil
	}
	v, err := in.dec.Objects.ReadObject(in.dec.Buf, &in.rd, in.dec.Budget)
	if err != nil && in.err == nil {
		in.err = err
	}
	return v
}

// Decoder reads the IdentifiedDataSerializable objects of one
// deserialization: into values of their factories' types, or as records
// through their layouts.
type Decoder struct {
	Factories map[int32]Factory
	Objects   Objects
	Buf       []byte // the whole Data
	Budget    *core.Budget
	// inputs are the inputs of the objects being read, one per level of
	// nesting, reused by the objects that follow; depth is how many are in
	// use.
	inputs []*DataInput
	depth  int
	// Page, when set, is the size up to which the blocks grow from which
	// the strings and arrays of numbers of every Data the decoder reads are
	// cut (a page of query results); otherwise those of one Data share a
	// block of its size.
	Page int
	// arena holds the strings and arrays of numbers the objects read.
	arena core.Arena
}

// Reset readies a decoder for the next Data, keeping its inputs (and, with
// Page set, its arena); the strings and arrays it handed out stay with
// their objects.
func (d *Decoder) Reset(factories map[int32]Factory, objects Objects, buf []byte, budget *core.Budget) {
	d.Factories, d.Objects, d.Buf, d.Budget, d.depth = factories, objects, buf, budget, 0
	if d.Page == 0 || d.arena.Max == 0 {
		d.arena = core.Arena{Size: len(buf), Max: d.Page}
	}
}

// Read reads the header and ids and then the object: through the
// registered factory, or as a *Record through a registered layout.
func (d *Decoder) Read(rd *wire.Reader) (any, error) {
	at := rd.Pos()
	hdr := rd.Int8()
	fid, cid := rd.Int32(), rd.Int32()
	if rd.Err() != nil {
		return nil, core.Malformed("identified", at, "truncated header")
	}
	if hdr&1 == 0 {
		return nil, core.Malformed("identified", at, "plain DataSerializable (identified by a Java class name) is not supported")
	}
	if hdr&2 != 0 {
		return nil, core.Malformed("identified", at, "versioned DataSerializable is not supported")
	}
	if f, ok := d.Factories[fid]; ok {
		v := f.Create(cid)
		if v == nil {
			return nil, &core.ClassNotFoundError{Format: "identified", FactoryID: fid, ClassID: cid, Reason: "the factory does not know the class id"}
		}
		if d.depth == len(d.inputs) {
			d.inputs = append(d.inputs, &DataInput{})
		}
		in := d.inputs[d.depth]
		d.depth++
		*in = DataInput{dec: d, rd: *rd}
		v.ReadData(in)
		err := in.Err()
		*rd = in.rd
		*in = DataInput{}
		d.depth--
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	layout, ok := d.Objects.Layouts().Get(fid, cid)
	if !ok {
		return nil, &core.ClassNotFoundError{Format: "identified", FactoryID: fid, ClassID: cid, Reason: "no factory or layout is registered"}
	}
	rec := Record{layout: layout, buf: d.Buf, start: rd.Pos(), limit: len(d.Buf), objs: d.Objects}
	end, err := rec.end(d.Budget.Depth)
	if err != nil {
		return nil, err
	}
	rec.buf = rec.buf[:end:end]
	rec.limit = end
	rd.Seek(end)
	return &rec, nil
}

// AppendRecord appends type id, header, factory and class ids and the
// fields of a record, rewritten (positions of nested Portable objects
// depend on where the Data starts).
func (e *Encoder) AppendRecord(dst []byte, rec *Record) ([]byte, error) {
	dst = wire.AppendInt32(dst, core.TypeIdentified)
	dst = append(dst, core.IdentifiedHeader)
	dst = wire.AppendInt32(dst, rec.layout.FactoryID)
	dst = wire.AppendInt32(dst, rec.layout.ClassID)
	o := e.output()
	*o = DataOutput{enc: e, buf: dst}
	e.Depth++
	rec.writeFields(o, e.Depth)
	e.Depth--
	dst, err := o.buf, o.err
	*o = DataOutput{}
	return dst, err
}

func layoutWhat(fid, cid int32) string {
	return "identified layout " + strconv.Itoa(int(fid)) + "/" + strconv.Itoa(int(cid))
}

func identifiedErr(rd *wire.Reader, name string) error {
	if rd.Err() == nil {
		return nil
	}
	return &core.DecodeError{Format: "identified", Offset: rd.Pos(), Reason: fmt.Sprintf("field %q is truncated or has an invalid length", name), Err: rd.Err()}
}
