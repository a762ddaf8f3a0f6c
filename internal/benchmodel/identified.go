package benchmodel

import "github.com/atolldb/atoll/pkg/serialization"

// IdentifiedSmall is SMALL as an IdentifiedDataSerializable: factory 1, class 1.
type IdentifiedSmall Small

// FactoryID implements serialization.IdentifiedDataSerializable.
func (*IdentifiedSmall) FactoryID() int32 { return IdentifiedFactoryID }

// ClassID implements serialization.IdentifiedDataSerializable.
func (*IdentifiedSmall) ClassID() int32 { return SmallClassID }

// WriteData implements serialization.IdentifiedDataSerializable.
func (s *IdentifiedSmall) WriteData(out *serialization.DataOutput) {
	out.WriteInt32(s.IntField)
	out.WriteInt64(s.LongField)
	out.WriteFloat64(s.DoubleField)
	out.WriteString(s.StringField)
}

// ReadData implements serialization.IdentifiedDataSerializable.
func (s *IdentifiedSmall) ReadData(in *serialization.DataInput) {
	s.IntField = in.ReadInt32()
	s.LongField = in.ReadInt64()
	s.DoubleField = in.ReadFloat64()
	s.StringField = in.ReadString()
}

// IdentifiedLarge is LARGE as an IdentifiedDataSerializable: factory 1,
// class 2. Its SMALLs are written inline, without a header.
type IdentifiedLarge struct {
	BooleanField bool
	BooleanArray []bool
	ByteField    int8
	ByteArray    []byte
	ShortField   int16
	ShortArray   []int16
	IntField     int32
	IntArray     []int32
	LongField    int64
	LongArray    []int64
	FloatField   float32
	FloatArray   []float32
	DoubleField  float64
	DoubleArray  []float64
	StringField  string
	StringArray  []string
	Small        IdentifiedSmall
	SmallArray   []IdentifiedSmall
}

// NewIdentifiedLarge converts a LARGE value to its IdentifiedDataSerializable form.
func NewIdentifiedLarge(l Large) *IdentifiedLarge {
	p := &IdentifiedLarge{
		BooleanField: l.BooleanField, BooleanArray: l.BooleanArray,
		ByteField: l.ByteField, ByteArray: int8sToBytes(l.ByteArray),
		ShortField: l.ShortField, ShortArray: l.ShortArray,
		IntField: l.IntField, IntArray: l.IntArray,
		LongField: l.LongField, LongArray: l.LongArray,
		FloatField: l.FloatField, FloatArray: l.FloatArray,
		DoubleField: l.DoubleField, DoubleArray: l.DoubleArray,
		StringField: l.StringField, StringArray: l.StringArray,
		Small: IdentifiedSmall(l.Small),
	}
	for _, s := range l.SmallArray {
		p.SmallArray = append(p.SmallArray, IdentifiedSmall(s))
	}
	return p
}

// FactoryID implements serialization.IdentifiedDataSerializable.
func (*IdentifiedLarge) FactoryID() int32 { return IdentifiedFactoryID }

// ClassID implements serialization.IdentifiedDataSerializable.
func (*IdentifiedLarge) ClassID() int32 { return LargeClassID }

// WriteData implements serialization.IdentifiedDataSerializable.
func (l *IdentifiedLarge) WriteData(out *serialization.DataOutput) {
	out.WriteBoolean(l.BooleanField)
	out.WriteBooleanArray(l.BooleanArray)
	out.WriteInt8(l.ByteField)
	out.WriteByteArray(l.ByteArray)
	out.WriteInt16(l.ShortField)
	out.WriteInt16Array(l.ShortArray)
	out.WriteInt32(l.IntField)
	out.WriteInt32Array(l.IntArray)
	out.WriteInt64(l.LongField)
	out.WriteInt64Array(l.LongArray)
	out.WriteFloat32(l.FloatField)
	out.WriteFloat32Array(l.FloatArray)
	out.WriteFloat64(l.DoubleField)
	out.WriteFloat64Array(l.DoubleArray)
	out.WriteString(l.StringField)
	out.WriteStringArray(l.StringArray)
	l.Small.WriteData(out)
	out.WriteInt32(int32(len(l.SmallArray)))
	for i := range l.SmallArray {
		l.SmallArray[i].WriteData(out)
	}
}

// ReadData implements serialization.IdentifiedDataSerializable.
func (l *IdentifiedLarge) ReadData(in *serialization.DataInput) {
	l.BooleanField = in.ReadBoolean()
	l.BooleanArray = in.ReadBooleanArray()
	l.ByteField = in.ReadInt8()
	l.ByteArray = in.ReadByteArray()
	l.ShortField = in.ReadInt16()
	l.ShortArray = in.ReadInt16Array()
	l.IntField = in.ReadInt32()
	l.IntArray = in.ReadInt32Array()
	l.LongField = in.ReadInt64()
	l.LongArray = in.ReadInt64Array()
	l.FloatField = in.ReadFloat32()
	l.FloatArray = in.ReadFloat32Array()
	l.DoubleField = in.ReadFloat64()
	l.DoubleArray = in.ReadFloat64Array()
	l.StringField = in.ReadString()
	l.StringArray = in.ReadStringArray()
	l.Small.ReadData(in)
	n := in.ReadLength(24) // an inline SMALL takes at least 24 bytes
	if n < 0 {
		return
	}
	l.SmallArray = make([]IdentifiedSmall, n)
	for i := range l.SmallArray {
		l.SmallArray[i].ReadData(in)
	}
}

// IdentifiedADoc is workload A's document as an IdentifiedDataSerializable:
// factory 1, class 3.
type IdentifiedADoc struct {
	Value   int64
	Payload []int32
}

// FactoryID implements serialization.IdentifiedDataSerializable.
func (*IdentifiedADoc) FactoryID() int32 { return IdentifiedFactoryID }

// ClassID implements serialization.IdentifiedDataSerializable.
func (*IdentifiedADoc) ClassID() int32 { return ADocClassID }

// WriteData implements serialization.IdentifiedDataSerializable.
func (d *IdentifiedADoc) WriteData(out *serialization.DataOutput) {
	out.WriteInt64(d.Value)
	out.WriteInt32Array(d.Payload)
}

// ReadData implements serialization.IdentifiedDataSerializable.
func (d *IdentifiedADoc) ReadData(in *serialization.DataInput) {
	d.Value = in.ReadInt64()
	d.Payload = in.ReadInt32Array()
}

// IdentifiedFactory creates the IdentifiedDataSerializable forms.
type IdentifiedFactory struct{}

// FactoryID implements serialization.IdentifiedFactory.
func (IdentifiedFactory) FactoryID() int32 { return IdentifiedFactoryID }

// Create implements serialization.IdentifiedFactory.
func (IdentifiedFactory) Create(classID int32) serialization.IdentifiedDataSerializable {
	switch classID {
	case SmallClassID:
		return &IdentifiedSmall{}
	case LargeClassID:
		return &IdentifiedLarge{}
	case ADocClassID:
		return &IdentifiedADoc{}
	}
	return nil
}

// Layouts are the declarative layouts of the IdentifiedDataSerializable
// forms, for readers without these Go types (a member running queries).
func Layouts() []*serialization.Layout {
	small := mustLayout(IdentifiedFactoryID, SmallClassID, []serialization.LayoutField{
		{Name: "intField", Op: serialization.OpInt},
		{Name: "longField", Op: serialization.OpLong},
		{Name: "doubleField", Op: serialization.OpDouble},
		{Name: "stringField", Op: serialization.OpString},
	})
	large := mustLayout(IdentifiedFactoryID, LargeClassID, []serialization.LayoutField{
		{Name: "booleanField", Op: serialization.OpBoolean},
		{Name: "booleanArray", Op: serialization.OpBooleanArray},
		{Name: "byteField", Op: serialization.OpByte},
		{Name: "byteArray", Op: serialization.OpByteArray},
		{Name: "shortField", Op: serialization.OpShort},
		{Name: "shortArray", Op: serialization.OpShortArray},
		{Name: "intField", Op: serialization.OpInt},
		{Name: "intArray", Op: serialization.OpIntArray},
		{Name: "longField", Op: serialization.OpLong},
		{Name: "longArray", Op: serialization.OpLongArray},
		{Name: "floatField", Op: serialization.OpFloat},
		{Name: "floatArray", Op: serialization.OpFloatArray},
		{Name: "doubleField", Op: serialization.OpDouble},
		{Name: "doubleArray", Op: serialization.OpDoubleArray},
		{Name: "stringField", Op: serialization.OpString},
		{Name: "stringArray", Op: serialization.OpStringArray},
		{Name: "small", Op: serialization.OpInline, FactoryID: IdentifiedFactoryID, ClassID: SmallClassID},
		{Name: "smallArray", Op: serialization.OpInlineArray, FactoryID: IdentifiedFactoryID, ClassID: SmallClassID},
	})
	adoc := mustLayout(IdentifiedFactoryID, ADocClassID, []serialization.LayoutField{
		{Name: "value", Op: serialization.OpLong},
		{Name: "payload", Op: serialization.OpIntArray},
	})
	return []*serialization.Layout{small, large, adoc}
}

func mustLayout(fid, cid int32, fields []serialization.LayoutField) *serialization.Layout {
	l, err := serialization.NewLayout(fid, cid, fields)
	if err != nil {
		panic(err) // the fields above are static and valid
	}
	return l
}

// Config returns a serialization config that knows every benchmark type.
func Config() serialization.Config {
	return serialization.Config{
		CompactSerializers:  []serialization.CompactSerializer{SmallCompact{}, LargeCompact{}},
		PortableFactories:   []serialization.PortableFactory{PortableFactory{}},
		IdentifiedFactories: []serialization.IdentifiedFactory{IdentifiedFactory{}},
		Layouts:             Layouts(),
	}
}
