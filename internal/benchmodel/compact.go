package benchmodel

import (
	"reflect"

	"github.com/atolldb/atoll/pkg/serialization"
)

// SmallCompact is the Compact serializer of *Small, type name "small". It
// writes in declaration order, as the Hazelcast runner's serializer
// (bench/hazelcast, CompactModel) does, so the bytes are identical.
type SmallCompact struct{}

// Type implements serialization.CompactSerializer.
func (SmallCompact) Type() reflect.Type { return reflect.TypeFor[*Small]() }

// TypeName implements serialization.CompactSerializer.
func (SmallCompact) TypeName() string { return "small" }

// Write implements serialization.CompactSerializer.
func (SmallCompact) Write(w *serialization.CompactWriter, v any) {
	s := v.(*Small)
	w.WriteInt32("intField", s.IntField)
	w.WriteInt64("longField", s.LongField)
	w.WriteFloat64("doubleField", s.DoubleField)
	w.WriteString("stringField", s.StringField)
}

// Read implements serialization.CompactSerializer.
func (SmallCompact) Read(r *serialization.CompactReader) any {
	return &Small{
		IntField:    r.ReadInt32("intField"),
		LongField:   r.ReadInt64("longField"),
		DoubleField: r.ReadFloat64("doubleField"),
		StringField: r.ReadString("stringField"),
	}
}

// LargeCompact is the Compact serializer of *Large, type name "large".
type LargeCompact struct{}

// Type implements serialization.CompactSerializer.
func (LargeCompact) Type() reflect.Type { return reflect.TypeFor[*Large]() }

// TypeName implements serialization.CompactSerializer.
func (LargeCompact) TypeName() string { return "large" }

// Write implements serialization.CompactSerializer.
func (LargeCompact) Write(w *serialization.CompactWriter, v any) {
	l := v.(*Large)
	w.WriteBoolean("booleanField", l.BooleanField)
	w.WriteArrayOfBoolean("booleanArray", l.BooleanArray)
	w.WriteInt8("byteField", l.ByteField)
	w.WriteArrayOfInt8("byteArray", l.ByteArray)
	w.WriteInt16("shortField", l.ShortField)
	w.WriteArrayOfInt16("shortArray", l.ShortArray)
	w.WriteInt32("intField", l.IntField)
	w.WriteArrayOfInt32("intArray", l.IntArray)
	w.WriteInt64("longField", l.LongField)
	w.WriteArrayOfInt64("longArray", l.LongArray)
	w.WriteFloat32("floatField", l.FloatField)
	w.WriteArrayOfFloat32("floatArray", l.FloatArray)
	w.WriteFloat64("doubleField", l.DoubleField)
	w.WriteArrayOfFloat64("doubleArray", l.DoubleArray)
	w.WriteString("stringField", l.StringField)
	w.WriteArrayOfString("stringArray", l.StringArray)
	w.WriteCompact("small", &l.Small)
	serialization.WriteCompactArray(w, "smallArray", l.SmallArray)
}

// Read implements serialization.CompactSerializer.
func (LargeCompact) Read(r *serialization.CompactReader) any {
	l := &Large{
		BooleanField: r.ReadBoolean("booleanField"),
		BooleanArray: r.ReadArrayOfBoolean("booleanArray"),
		ByteField:    r.ReadInt8("byteField"),
		ByteArray:    r.ReadArrayOfInt8("byteArray"),
		ShortField:   r.ReadInt16("shortField"),
		ShortArray:   r.ReadArrayOfInt16("shortArray"),
		IntField:     r.ReadInt32("intField"),
		IntArray:     r.ReadArrayOfInt32("intArray"),
		LongField:    r.ReadInt64("longField"),
		LongArray:    r.ReadArrayOfInt64("longArray"),
		FloatField:   r.ReadFloat32("floatField"),
		FloatArray:   r.ReadArrayOfFloat32("floatArray"),
		DoubleField:  r.ReadFloat64("doubleField"),
		DoubleArray:  r.ReadArrayOfFloat64("doubleArray"),
		StringField:  r.ReadString("stringField"),
		StringArray:  r.ReadArrayOfString("stringArray"),
	}
	if s, ok := r.ReadCompact("small").(*Small); ok {
		l.Small = *s
	}
	l.SmallArray = serialization.ReadCompactArray[Small](r, "smallArray")
	return l
}
