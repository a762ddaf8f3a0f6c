package serialization

// The types, constants and errors every format shares; they are defined in
// internal/serialization/core.

import (
	"github.com/atolldb/atoll/internal/serialization/core"
)

// Data is one serialized value: a big-endian partition hash word, a big-endian
// serializer type id, and the payload. A Data is either empty (null) or at
// least HeaderSize bytes long.
type Data = core.Data

// DecodeError describes malformed input: which format, at which byte offset
// of the Data, and what was wrong.
type DecodeError = core.DecodeError

// SchemaNotFoundError reports a Compact schema id with no registered schema.
type SchemaNotFoundError = core.SchemaNotFoundError

// ClassNotFoundError reports a Portable or IdentifiedDataSerializable class
// that cannot be read or written for lack of a factory, class definition or layout.
type ClassNotFoundError = core.ClassNotFoundError

// TypeError reports a Go value that no serializer handles.
type TypeError = core.TypeError

// FieldError reports a field accessed with a kind it does not have, a null
// value read through a non-nullable accessor, or a write to a field that the
// schema or class definition does not contain.
type FieldError = core.FieldError

// DefinitionError reports an invalid schema, class definition or layout.
type DefinitionError = core.DefinitionError

// StringError reports a string that is not valid UTF-8 and so cannot be
// serialized exactly; it matches ErrInvalidString.
type StringError = core.StringError

// UnknownFieldError reports a field that a strict FieldReader met in no
// version of a value's type.
type UnknownFieldError = core.UnknownFieldError

// ValueKind is the kind of a FieldValue.
type ValueKind = core.ValueKind

// FieldValue is one value a FieldReader read in place (see core.FieldValue:
// scalars in I, floats as bits read with Float, strings, decimals and
// temporal values as views of the bytes in B, nested objects as their own Data).
type FieldValue = core.FieldValue

// FieldKind is the kind of a field (Hazelcast's FieldKind ids). The record
// views of all three formats report their fields' kinds with it.
type FieldKind = core.FieldKind

// Char is a Java char: one UTF-16 code unit. It serializes as type id -5.
type Char = core.Char

// JSON is a JSON document stored verbatim, Hazelcast's HazelcastJsonValue
// (type id -130). The text is not validated or normalized when written.
type JSON = core.JSON

// UUID is a java.util.UUID: the most then the least significant long, big-endian.
type UUID = core.UUID

// Decimal is a java.math.BigDecimal: Unscaled × 10^-Scale.
type Decimal = core.Decimal

// LocalDate is a date without a time zone (java.time.LocalDate).
type LocalDate = core.LocalDate

// LocalTime is a time of day without a time zone (java.time.LocalTime).
type LocalTime = core.LocalTime

// LocalDateTime is a date and time without a time zone (java.time.LocalDateTime).
type LocalDateTime = core.LocalDateTime

// OffsetDateTime is a date and time with a UTC offset (java.time.OffsetDateTime).
type OffsetDateTime = core.OffsetDateTime

// Serializer type ids, as Hazelcast's SerializationConstants defines them.
const (
	TypeNull              = core.TypeNull
	TypePortable          = core.TypePortable
	TypeIdentified        = core.TypeIdentified
	TypeByte              = core.TypeByte
	TypeBool              = core.TypeBool
	TypeChar              = core.TypeChar
	TypeInt16             = core.TypeInt16
	TypeInt32             = core.TypeInt32
	TypeInt64             = core.TypeInt64
	TypeFloat32           = core.TypeFloat32
	TypeFloat64           = core.TypeFloat64
	TypeString            = core.TypeString
	TypeByteArray         = core.TypeByteArray
	TypeBoolArray         = core.TypeBoolArray
	TypeCharArray         = core.TypeCharArray
	TypeInt16Array        = core.TypeInt16Array
	TypeInt32Array        = core.TypeInt32Array
	TypeInt64Array        = core.TypeInt64Array
	TypeFloat32Array      = core.TypeFloat32Array
	TypeFloat64Array      = core.TypeFloat64Array
	TypeStringArray       = core.TypeStringArray
	TypeUUID              = core.TypeUUID
	TypeCompact           = core.TypeCompact
	TypeCompactWithSchema = core.TypeCompactWithSchema
	TypeJSON              = core.TypeJSON
)

// HeaderSize is the size of the Data header: partition hash and type id.
const HeaderSize = core.HeaderSize

// DefaultPartitionCount is Hazelcast's default number of partitions.
const DefaultPartitionCount = core.DefaultPartitionCount

// FieldValue kinds. ValueNull, the zero kind, is a null, an absent field or
// a path that selects nothing.
const (
	ValueNull        = core.ValueNull
	ValueBool        = core.ValueBool
	ValueInt8        = core.ValueInt8
	ValueInt16       = core.ValueInt16
	ValueInt32       = core.ValueInt32
	ValueInt64       = core.ValueInt64
	ValueFloat32     = core.ValueFloat32
	ValueFloat64     = core.ValueFloat64
	ValueChar        = core.ValueChar
	ValueString      = core.ValueString
	ValueDecimal     = core.ValueDecimal
	ValueTime        = core.ValueTime
	ValueDate        = core.ValueDate
	ValueTimestamp   = core.ValueTimestamp
	ValueTimestampTZ = core.ValueTimestampTZ
	ValueJSON        = core.ValueJSON
	ValueObject      = core.ValueObject
	ValueArray       = core.ValueArray
)

// Field kinds. CHAR and PORTABLE kinds exist only for Portable records.
const (
	KindNotAvailable                 = core.KindNotAvailable
	KindBoolean                      = core.KindBoolean
	KindArrayOfBoolean               = core.KindArrayOfBoolean
	KindInt8                         = core.KindInt8
	KindArrayOfInt8                  = core.KindArrayOfInt8
	KindChar                         = core.KindChar
	KindArrayOfChar                  = core.KindArrayOfChar
	KindInt16                        = core.KindInt16
	KindArrayOfInt16                 = core.KindArrayOfInt16
	KindInt32                        = core.KindInt32
	KindArrayOfInt32                 = core.KindArrayOfInt32
	KindInt64                        = core.KindInt64
	KindArrayOfInt64                 = core.KindArrayOfInt64
	KindFloat32                      = core.KindFloat32
	KindArrayOfFloat32               = core.KindArrayOfFloat32
	KindFloat64                      = core.KindFloat64
	KindArrayOfFloat64               = core.KindArrayOfFloat64
	KindString                       = core.KindString
	KindArrayOfString                = core.KindArrayOfString
	KindDecimal                      = core.KindDecimal
	KindArrayOfDecimal               = core.KindArrayOfDecimal
	KindTime                         = core.KindTime
	KindArrayOfTime                  = core.KindArrayOfTime
	KindDate                         = core.KindDate
	KindArrayOfDate                  = core.KindArrayOfDate
	KindTimestamp                    = core.KindTimestamp
	KindArrayOfTimestamp             = core.KindArrayOfTimestamp
	KindTimestampWithTimezone        = core.KindTimestampWithTimezone
	KindArrayOfTimestampWithTimezone = core.KindArrayOfTimestampWithTimezone
	KindCompact                      = core.KindCompact
	KindArrayOfCompact               = core.KindArrayOfCompact
	KindPortable                     = core.KindPortable
	KindArrayOfPortable              = core.KindArrayOfPortable
	KindNullableBoolean              = core.KindNullableBoolean
	KindArrayOfNullableBoolean       = core.KindArrayOfNullableBoolean
	KindNullableInt8                 = core.KindNullableInt8
	KindArrayOfNullableInt8          = core.KindArrayOfNullableInt8
	KindNullableInt16                = core.KindNullableInt16
	KindArrayOfNullableInt16         = core.KindArrayOfNullableInt16
	KindNullableInt32                = core.KindNullableInt32
	KindArrayOfNullableInt32         = core.KindArrayOfNullableInt32
	KindNullableInt64                = core.KindNullableInt64
	KindArrayOfNullableInt64         = core.KindArrayOfNullableInt64
	KindNullableFloat32              = core.KindNullableFloat32
	KindArrayOfNullableFloat32       = core.KindArrayOfNullableFloat32
	KindNullableFloat64              = core.KindNullableFloat64
	KindArrayOfNullableFloat64       = core.KindArrayOfNullableFloat64
)

// Sentinel errors, matched with errors.Is against the typed errors.
var (
	ErrMalformed         = core.ErrMalformed
	ErrUnknownSchema     = core.ErrUnknownSchema
	ErrUnknownClass      = core.ErrUnknownClass
	ErrUnsupportedType   = core.ErrUnsupportedType
	ErrFieldKind         = core.ErrFieldKind
	ErrInvalidDefinition = core.ErrInvalidDefinition
	ErrUnknownField      = core.ErrUnknownField
	ErrInvalidString     = core.ErrInvalidString
)

// PartitionID maps a partition hash to a partition id in [0, count) the way
// Hazelcast does: Java's int abs (MinInt32 maps to 0), then modulo count.
func PartitionID(hash int32, count int32) int32 { return core.PartitionID(hash, count) }

// PayloadHash returns MurmurHash3 x86_32 of b with Hazelcast's seed, as a
// signed int: the partition hash of a Data whose header word is zero.
func PayloadHash(b []byte) int32 { return core.PayloadHash(b) }

// LongPayloadHash is PayloadHash of a Long's payload, v's eight bytes
// big-endian, without writing them out.
func LongPayloadHash(v int64) int32 { return core.LongPayloadHash(v) }

// IntPayloadHash is PayloadHash of an Integer's payload, v's four bytes
// big-endian, without writing them out.
func IntPayloadHash(v int32) int32 { return core.IntPayloadHash(v) }

// ParseFieldKind returns the kind with Hazelcast's name s.
func ParseFieldKind(s string) (FieldKind, bool) { return core.ParseFieldKind(s) }

// UUIDFromBits builds a UUID from Java's two halves.
func UUIDFromBits(most, least int64) UUID { return core.UUIDFromBits(most, least) }
