package benchmodel

import "github.com/atolldb/atoll/pkg/serialization"

// PortableSmall is SMALL as a Portable: factory 2, class 1, version 0.
type PortableSmall Small

// FactoryID implements serialization.Portable.
func (*PortableSmall) FactoryID() int32 { return PortableFactoryID }

// ClassID implements serialization.Portable.
func (*PortableSmall) ClassID() int32 { return SmallClassID }

// WritePortable implements serialization.Portable.
func (s *PortableSmall) WritePortable(w *serialization.PortableWriter) {
	w.WriteInt32("intField", s.IntField)
	w.WriteInt64("longField", s.LongField)
	w.WriteFloat64("doubleField", s.DoubleField)
	w.WriteString("stringField", s.StringField)
}

// ReadPortable implements serialization.Portable.
func (s *PortableSmall) ReadPortable(r *serialization.PortableReader) {
	s.IntField = r.ReadInt32("intField")
	s.LongField = r.ReadInt64("longField")
	s.DoubleField = r.ReadFloat64("doubleField")
	s.StringField = r.ReadString("stringField")
}

// PortableLarge is LARGE as a Portable: factory 2, class 2, version 0. The
// nested objects are *PortableSmall so that writing them does not copy.
type PortableLarge struct {
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
	Small        *PortableSmall
	SmallArray   []*PortableSmall
}

// NewPortableLarge converts a LARGE value to its Portable form.
func NewPortableLarge(l Large) *PortableLarge {
	p := &PortableLarge{
		BooleanField: l.BooleanField, BooleanArray: l.BooleanArray,
		ByteField: l.ByteField, ByteArray: int8sToBytes(l.ByteArray),
		ShortField: l.ShortField, ShortArray: l.ShortArray,
		IntField: l.IntField, IntArray: l.IntArray,
		LongField: l.LongField, LongArray: l.LongArray,
		FloatField: l.FloatField, FloatArray: l.FloatArray,
		DoubleField: l.DoubleField, DoubleArray: l.DoubleArray,
		StringField: l.StringField, StringArray: l.StringArray,
	}
	small := PortableSmall(l.Small)
	p.Small = &small
	for _, s := range l.SmallArray {
		ps := PortableSmall(s)
		p.SmallArray = append(p.SmallArray, &ps)
	}
	return p
}

func int8sToBytes(v []int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

// FactoryID implements serialization.Portable.
func (*PortableLarge) FactoryID() int32 { return PortableFactoryID }

// ClassID implements serialization.Portable.
func (*PortableLarge) ClassID() int32 { return LargeClassID }

// WritePortable implements serialization.Portable.
func (l *PortableLarge) WritePortable(w *serialization.PortableWriter) {
	w.WriteBoolean("booleanField", l.BooleanField)
	w.WriteBooleanArray("booleanArray", l.BooleanArray)
	w.WriteInt8("byteField", l.ByteField)
	w.WriteByteArray("byteArray", l.ByteArray)
	w.WriteInt16("shortField", l.ShortField)
	w.WriteInt16Array("shortArray", l.ShortArray)
	w.WriteInt32("intField", l.IntField)
	w.WriteInt32Array("intArray", l.IntArray)
	w.WriteInt64("longField", l.LongField)
	w.WriteInt64Array("longArray", l.LongArray)
	w.WriteFloat32("floatField", l.FloatField)
	w.WriteFloat32Array("floatArray", l.FloatArray)
	w.WriteFloat64("doubleField", l.DoubleField)
	w.WriteFloat64Array("doubleArray", l.DoubleArray)
	w.WriteString("stringField", l.StringField)
	w.WriteStringArray("stringArray", l.StringArray)
	w.WritePortable("small", l.Small)
	serialization.WritePortableSlice(w, "smallArray", l.SmallArray)
}

// ReadPortable implements serialization.Portable.
func (l *PortableLarge) ReadPortable(r *serialization.PortableReader) {
	l.BooleanField = r.ReadBoolean("booleanField")
	l.BooleanArray = r.ReadBooleanArray("booleanArray")
	l.ByteField = r.ReadInt8("byteField")
	l.ByteArray = r.ReadByteArray("byteArray")
	l.ShortField = r.ReadInt16("shortField")
	l.ShortArray = r.ReadInt16Array("shortArray")
	l.IntField = r.ReadInt32("intField")
	l.IntArray = r.ReadInt32Array("intArray")
	l.LongField = r.ReadInt64("longField")
	l.LongArray = r.ReadInt64Array("longArray")
	l.FloatField = r.ReadFloat32("floatField")
	l.FloatArray = r.ReadFloat32Array("floatArray")
	l.DoubleField = r.ReadFloat64("doubleField")
	l.DoubleArray = r.ReadFloat64Array("doubleArray")
	l.StringField = r.ReadString("stringField")
	l.StringArray = r.ReadStringArray("stringArray")
	l.Small, _ = r.ReadPortable("small").(*PortableSmall)
	l.SmallArray = serialization.ReadPortableSlice[*PortableSmall](r, "smallArray")
}

// PortableADoc is workload A's document as a Portable: factory 2, class 3.
type PortableADoc struct {
	Value   int64
	Payload []int32
}

// FactoryID implements serialization.Portable.
func (*PortableADoc) FactoryID() int32 { return PortableFactoryID }

// ClassID implements serialization.Portable.
func (*PortableADoc) ClassID() int32 { return ADocClassID }

// WritePortable implements serialization.Portable.
func (d *PortableADoc) WritePortable(w *serialization.PortableWriter) {
	w.WriteInt64("value", d.Value)
	w.WriteInt32Array("payload", d.Payload)
}

// ReadPortable implements serialization.Portable.
func (d *PortableADoc) ReadPortable(r *serialization.PortableReader) {
	d.Value = r.ReadInt64("value")
	d.Payload = r.ReadInt32Array("payload")
}

// PortableFactory creates the Portable forms of the benchmark objects.
type PortableFactory struct{}

// FactoryID implements serialization.PortableFactory.
func (PortableFactory) FactoryID() int32 { return PortableFactoryID }

// Create implements serialization.PortableFactory.
func (PortableFactory) Create(classID int32) serialization.Portable {
	switch classID {
	case SmallClassID:
		return &PortableSmall{}
	case LargeClassID:
		return &PortableLarge{}
	case ADocClassID:
		return &PortableADoc{}
	}
	return nil
}
