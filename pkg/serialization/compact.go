package serialization

import (
	"reflect"

	"github.com/atolldb/atoll/internal/serialization/compact"
)

// The Compact format, defined in internal/serialization/compact.

// CompactSerializer reads and writes one Go type in the Compact format, like
// Hazelcast's CompactSerializer. Implementations must be safe for concurrent
// use; they usually are stateless. Write must write the same fields with
// the same kinds on every call (the schema is derived from the first call);
// the order of the calls decides where variable-size fields land.
type CompactSerializer = compact.Serializer

// CompactWriter writes the fields of one Compact object; writers are valid
// only during a CompactSerializer.Write call. Errors are sticky.
type CompactWriter = compact.Writer

// CompactReader reads the fields of one Compact object for a
// CompactSerializer. A field that the writer's schema lacks reads as the
// zero value; other errors are sticky.
type CompactReader = compact.Reader

// CompactRecord reads the fields of one Compact object in place, by offset,
// without decoding the rest of the object. It is what ToObject returns for
// a Compact value whose type name has no registered CompactSerializer.
type CompactRecord = compact.Record

// CompactRecordBuilder builds a Compact object from field names, kinds and
// values, without a Go type: Hazelcast's GenericRecordBuilder.compact.
type CompactRecordBuilder = compact.RecordBuilder

// Schema is an immutable Compact schema: a type name and its fields sorted
// by name, with Hazelcast's layout and 64-bit Rabin fingerprint as ID.
type Schema = compact.Schema

// SchemaField is one field of a Compact schema with its computed layout.
type SchemaField = compact.SchemaField

// FieldDef names a field and its kind, the input to NewSchema.
type FieldDef = compact.FieldDef

// SchemaRegistry holds Compact schemas by id; reads are lock-free.
type SchemaRegistry = compact.SchemaRegistry

// CompactTypeNamer is implemented by struct types that choose their own
// Compact type name for reflective serialization.
type CompactTypeNamer = compact.TypeNamer

// NewSchema computes the layout and fingerprint of a schema. Field names must
// be unique and non-empty and kinds must be valid Compact kinds.
func NewSchema(typeName string, defs []FieldDef) (*Schema, error) {
	return compact.NewSchema(typeName, defs)
}

// NewSchemaRegistry returns an empty registry.
func NewSchemaRegistry() *SchemaRegistry { return compact.NewSchemaRegistry() }

// AppendSchema appends s in the form Hazelcast embeds it in type -56 Data.
func AppendSchema(dst []byte, s *Schema) []byte { return compact.AppendSchema(dst, s) }

// ParseSchema reads a schema written by AppendSchema and returns it with the
// number of bytes consumed.
func ParseSchema(b []byte) (*Schema, int, error) { return compact.ParseSchema(b) }

// ReadCompactRecord reads the Compact object of a Data of type -55 or -56.
// Schemas of -55 data are looked up in schemas.
func ReadCompactRecord(d Data, schemas *SchemaRegistry) (CompactRecord, error) {
	return compact.ReadRecord(d, schemas)
}

// NewCompactRecordBuilder starts a record of the given Compact type name.
func NewCompactRecordBuilder(typeName string) *CompactRecordBuilder {
	return compact.NewRecordBuilder(typeName)
}

// WriteCompactArray writes an ARRAY_OF_COMPACT field from a typed slice; a nil
// slice writes null and nil pointer items are null. Items of a value slice
// are passed to their serializer as pointers (&v[i]), so register the
// pointer type (for example *Person) to write []Person without copying.
func WriteCompactArray[T any](w *CompactWriter, name string, v []T) { compact.WriteArray(w, name, v) }

// ReadCompactArray reads an ARRAY_OF_COMPACT field into a typed slice. Items
// decode to the Go type registered for their type name; null items are the
// zero T.
func ReadCompactArray[T any](r *CompactReader, name string) []T { return compact.ReadArray[T](r, name) }

// CompactTypeNameOf returns the Compact type name that zero-config and
// RegisterType give the struct type t (S or *S): the name its
// CompactTypeName method returns, or its package path and type name.
func CompactTypeNameOf(t reflect.Type) (string, error) { return compact.TypeNameOf(t) }

// NewReflectiveSerializer returns a CompactSerializer for the struct type t
// (S or *S) that writes and reads its exported fields by reflection, under
// typeName (CompactTypeNameOf when empty); see the compact package for the
// mapping of Go fields to Compact kinds.
func NewReflectiveSerializer(t reflect.Type, typeName string) (CompactSerializer, error) {
	return compact.NewReflectiveSerializer(t, typeName)
}

// ReflectiveSerializer is NewReflectiveSerializer for the type T, usually a
// pointer to a struct: ReflectiveSerializer[*Person]("com.example.Person").
func ReflectiveSerializer[T any](typeName string) (CompactSerializer, error) {
	return compact.NewReflectiveSerializer(reflect.TypeFor[T](), typeName)
}

// RegisterType prepares s to read Compact data into the Go type t, a struct
// type S or *S: ToObject returns a t (instead of a *CompactRecord) for data
// whose type name is CompactTypeNameOf(t), and ToData writes S and *S
// reflectively, also when zero-config is disabled. Nested struct types
// without a serializer are registered with it. Registering the same type
// again does nothing; a type that already has another serializer, a name
// another Go type uses and types that are not plain structs are rejected
// with a *DefinitionError. It is safe for concurrent use with ToData and
// ToObject.
func (s *Service) RegisterType(t reflect.Type) error { return s.compact.Register(t) }

// ZeroConfigMode says whether a Service serializes structs that have no
// registered serializer in the Compact format (Config.ZeroConfigCompact).
type ZeroConfigMode uint8

const (
	// ZeroConfigEnabled, the default, writes a struct (or pointer to struct)
	// that has no CompactSerializer and implements neither Portable nor
	// IdentifiedDataSerializable through a reflective serializer that the
	// Service creates on first use, under the type name CompactTypeNameOf
	// derives.
	ZeroConfigEnabled ZeroConfigMode = iota
	// ZeroConfigDisabled reports such values as unsupported (ErrUnsupportedType).
	// Serializers from NewReflectiveSerializer and types given to
	// Service.RegisterType keep working.
	ZeroConfigDisabled
)
