package serialization

import (
	"github.com/atolldb/atoll/internal/serialization/identified"
)

// The IdentifiedDataSerializable format, defined in
// internal/serialization/identified.

// IdentifiedDataSerializable is a type that writes itself field by field in
// a fixed order, like Hazelcast's IdentifiedDataSerializable: no names and no
// offsets, so it is the most compact format. Byte compatibility with a Java
// class requires the same calls in the same order as its writeData.
type IdentifiedDataSerializable = identified.DataSerializable

// IdentifiedFactory creates empty IdentifiedDataSerializable values to read into.
type IdentifiedFactory = identified.Factory

// DataOutput receives the fields of an IdentifiedDataSerializable, with the
// encodings of Hazelcast's ObjectDataOutput. Errors are sticky.
type DataOutput = identified.DataOutput

// DataInput supplies the fields of an IdentifiedDataSerializable to ReadData,
// with the encodings of Hazelcast's ObjectDataInput. Errors are sticky.
type DataInput = identified.DataInput

// LayoutOp is one call of a writeData method, named after the Java
// ObjectDataOutput call that produces the bytes.
type LayoutOp = identified.LayoutOp

// Layout operations.
const (
	OpBoolean      = identified.OpBoolean
	OpByte         = identified.OpByte
	OpChar         = identified.OpChar
	OpShort        = identified.OpShort
	OpInt          = identified.OpInt
	OpLong         = identified.OpLong
	OpFloat        = identified.OpFloat
	OpDouble       = identified.OpDouble
	OpString       = identified.OpString
	OpBooleanArray = identified.OpBooleanArray
	OpByteArray    = identified.OpByteArray
	OpCharArray    = identified.OpCharArray
	OpShortArray   = identified.OpShortArray
	OpIntArray     = identified.OpIntArray
	OpLongArray    = identified.OpLongArray
	OpFloatArray   = identified.OpFloatArray
	OpDoubleArray  = identified.OpDoubleArray
	OpStringArray  = identified.OpStringArray
	OpObject       = identified.OpObject
	OpObjectArray  = identified.OpObjectArray
	OpInline       = identified.OpInline
	OpInlineArray  = identified.OpInlineArray
)

// LayoutField is one field of a Layout. FactoryID and ClassID name the nested
// layout of OpInline and OpInlineArray fields.
type LayoutField = identified.LayoutField

// Layout declares the bytes an IdentifiedDataSerializable class writes: its
// fields in writeData order. It lets a reader without a Go type for the
// class (such as a member running queries) read fields in place.
type Layout = identified.Layout

// LayoutRegistry holds layouts by factory and class id. Reads are lock-free.
type LayoutRegistry = identified.LayoutRegistry

// IdentifiedRecord reads the fields of one IdentifiedDataSerializable value
// in place through its Layout.
type IdentifiedRecord = identified.Record

// IdentifiedRecordBuilder builds an IdentifiedDataSerializable value from a
// layout and field values, without a Go type.
type IdentifiedRecordBuilder = identified.RecordBuilder

// ParseLayoutOp returns the op with the Java call name s.
func ParseLayoutOp(s string) (LayoutOp, bool) { return identified.ParseLayoutOp(s) }

// NewLayout validates the fields and returns a layout.
func NewLayout(factoryID, classID int32, fields []LayoutField) (*Layout, error) {
	return identified.NewLayout(factoryID, classID, fields)
}

// NewLayoutRegistry returns an empty registry.
func NewLayoutRegistry() *LayoutRegistry { return identified.NewLayoutRegistry() }

// ReadIdentifiedRecord reads an IdentifiedDataSerializable Data through the
// layout registered in svc for its class.
func ReadIdentifiedRecord(d Data, svc *Service) (IdentifiedRecord, error) {
	return identified.ReadRecord(d, objects{svc})
}

// NewIdentifiedRecordBuilder starts a record of the given layout; layouts
// resolves the layouts of inline fields and may be nil when there are none.
func NewIdentifiedRecordBuilder(layout *Layout, layouts *LayoutRegistry) *IdentifiedRecordBuilder {
	return identified.NewRecordBuilder(layout, layouts, func(l *LayoutRegistry) (identified.Codec, error) {
		svc, err := NewService(Config{LayoutRegistry: l})
		if err != nil {
			return nil, err
		}
		return objects{svc}, nil
	})
}
