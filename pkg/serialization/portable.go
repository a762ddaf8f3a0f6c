package serialization

import (
	"github.com/atolldb/atoll/internal/serialization/portable"
)

// The Portable format, defined in internal/serialization/portable.

// Portable is a type that writes itself in Hazelcast's Portable format, like
// Hazelcast's Portable interface. Register a PortableFactory with the same
// factory id so that values can be read back.
type Portable = portable.Portable

// VersionedPortable is a Portable with a class version other than the
// Service's default PortableVersion.
type VersionedPortable = portable.Versioned

// PortableFactory creates empty Portable values to read into.
type PortableFactory = portable.Factory

// PortableField is one field of a ClassDefinition. FactoryID, ClassID and
// Version identify the nested class of PORTABLE and ARRAY_OF_PORTABLE fields.
type PortableField = portable.Field

// ClassDefinition describes the fields of one version of a Portable class.
type ClassDefinition = portable.ClassDefinition

// ClassRegistry holds Portable class definitions by factory id, class id and
// version. Reads are lock-free.
type ClassRegistry = portable.ClassRegistry

// PortableWriter writes the fields of one Portable object; writers are valid
// only during a WritePortable call. Errors are sticky.
type PortableWriter = portable.Writer

// PortableReader reads the fields of one Portable object for ReadPortable.
// A field the writer's class version lacks reads as the zero value.
type PortableReader = portable.Reader

// PortableRecord reads the fields of one Portable object in place, through
// the field position table, without decoding the rest.
type PortableRecord = portable.Record

// PortableRecordBuilder builds a Portable object for a class definition
// without a Go type: Hazelcast's GenericRecordBuilder.portable.
type PortableRecordBuilder = portable.RecordBuilder

// PortableTypeID returns the portable FieldType id of kind, or -1 when
// Portable has no such field type.
func PortableTypeID(kind FieldKind) int32 { return portable.TypeID(kind) }

// PortableKind returns the kind of a portable FieldType id.
func PortableKind(typeID int32) (FieldKind, bool) { return portable.KindOf(typeID) }

// ParsePortableType returns the kind of a portable FieldType name such as
// "UTF" or "INT_ARRAY".
func ParsePortableType(name string) (FieldKind, bool) { return portable.ParseType(name) }

// NewClassDefinition validates the fields and returns a class definition.
func NewClassDefinition(factoryID, classID, version int32, fields []PortableField) (*ClassDefinition, error) {
	return portable.NewClassDefinition(factoryID, classID, version, fields)
}

// NewClassRegistry returns an empty registry.
func NewClassRegistry() *ClassRegistry { return portable.NewClassRegistry() }

// ReadPortableRecord reads the Portable object of a Data of type -1. Class
// definitions in classes speed up field lookups but are not required.
func ReadPortableRecord(d Data, classes *ClassRegistry) (PortableRecord, error) {
	return portable.ReadRecord(d, classes)
}

// NewPortableRecordBuilder starts a record of class cd.
func NewPortableRecordBuilder(cd *ClassDefinition) *PortableRecordBuilder {
	return portable.NewRecordBuilder(cd)
}

// WritePortableSlice writes a PORTABLE_ARRAY field from a typed slice.
func WritePortableSlice[T any](w *PortableWriter, name string, v []T) {
	portable.WriteSlice(w, name, v)
}

// ReadPortableSlice reads a PORTABLE_ARRAY field into a typed slice.
func ReadPortableSlice[T any](r *PortableReader, name string) []T {
	return portable.ReadSlice[T](r, name)
}
