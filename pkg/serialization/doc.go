// Package serialization turns Go values into Hazelcast-compatible binary
// Data and back. The bytes are identical to what Hazelcast 5.x writes, so Go,
// Java and Hazelcast clients can share maps and agree on partitions.
//
// # Data
//
// A Data is one byte slice: a 4-byte partition hash, a 4-byte serializer type
// id (both big-endian) and the payload. PartitionID maps a Data to one of the
// cluster's partitions exactly as Hazelcast does (MurmurHash3 x86_32 of the
// payload with seed 0x01000193, Java abs semantics, 271 partitions by default).
//
// # Formats
//
// Built-in types (bool, int8 … int64, float32, float64, string, []byte, typed
// slices, UUID, Char, JSON) need no registration. User types choose one of
// Hazelcast's three object formats:
//
//   - Compact: implement CompactSerializer for a Go type, or let the
//     Service derive one from a struct's fields (zero-config, below).
//     Schemas are derived from what the serializer writes, identified by a
//     64-bit Rabin fingerprint, and kept in a SchemaRegistry shared with
//     the cluster.
//   - Portable: implement Portable (and register a PortableFactory). Class
//     definitions are derived from the first write or registered up front.
//   - IdentifiedDataSerializable: implement IdentifiedDataSerializable and
//     register an IdentifiedFactory. A declarative Layout describes the same
//     bytes for readers that have no Go type (the member's query engine).
//
// # Zero-config Compact
//
// A plain struct needs no serializer. When ToData meets a struct, or a
// pointer to one, that has no CompactSerializer and implements neither
// Portable nor IdentifiedDataSerializable, the Service builds a reflective
// Compact serializer for its type once and caches it (Config.ZeroConfigCompact,
// enabled by default, as Hazelcast does for Java classes). Exported fields
// are written in declaration order under their Java-style names (IntField
// is intField; `compact:"name"` renames a field and `compact:"-"` skips
// it); pointers and slices are nullable, and nested structs are nested
// Compact objects. The type name is the package path and type name, as in
// "github.com/acme/shop.Order", unless the type has a CompactTypeName
// method (CompactTypeNameOf). NewReflectiveSerializer documents the mapping
// and makes a serializer with a chosen type name, for instance a Java
// class's, for Config.CompactSerializers.
//
// A reader gets its Go type back from ToObject after RegisterType; until
// then, data of a type it has not written reads as a *CompactRecord.
//
// A Decoder (Service.NewDecoder) reads many values one after another, a
// page of query results for instance: the strings and arrays of numbers of
// the objects it returns are cut from shared blocks instead of being
// allocated one by one.
//
// # Reading in place
//
// CompactRecord, PortableRecord and IdentifiedRecord read single fields
// straight from the bytes by offset, without decoding the whole object; they
// are what ToObject returns for a value whose Go type is not registered.
//
// A FieldReader (Service.FieldReader) reads an attribute path ("a.b",
// "arr[0]", "arr[any].x", through inline and writeObject fields) or an
// SQL/JSON path out of serialized values of every format, compiled once per
// schema, class version or layout met and cached per path, without locks
// on the read path. It returns a FieldValue: scalars without allocating,
// strings as views of the bytes. A member's query engine reads every
// attribute of every entry with it.
//
// # Layout
//
// The formats live in internal/serialization: core (what they share),
// compact, portable, identified and json. This package is their public
// face: the Service, which composes them, and the names users see. Values
// cross formats only in IdentifiedDataSerializable's writeObject fields,
// through the Service.
//
// # Errors
//
// Decoders never panic on hostile input; they return errors that match
// ErrMalformed, ErrUnknownSchema, ErrUnknownClass, ErrUnsupportedType,
// ErrFieldKind or ErrInvalidDefinition with errors.Is, and carry details in
// *DecodeError, *SchemaNotFoundError, *ClassNotFoundError, *TypeError,
// *FieldError and *DefinitionError. A string that is not valid UTF-8, in
// any value or field, is refused with a *StringError (ErrInvalidString):
// it could not be read back as written.
package serialization
