package core

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is against the typed errors below.
var (
	// ErrMalformed reports bytes that are truncated, corrupted or not in the
	// format their type id announces.
	ErrMalformed = errors.New("serialization: malformed data")
	// ErrUnknownSchema reports a Compact schema id that is not registered.
	ErrUnknownSchema = errors.New("serialization: unknown compact schema")
	// ErrUnknownClass reports a Portable class or IdentifiedDataSerializable
	// factory/class that has no factory, class definition or layout.
	ErrUnknownClass = errors.New("serialization: unknown class")
	// ErrUnsupportedType reports a Go value that no serializer handles.
	ErrUnsupportedType = errors.New("serialization: unsupported type")
	// ErrFieldKind reports a field read or written with the wrong kind, or a
	// field that is not part of the schema/class definition being written.
	ErrFieldKind = errors.New("serialization: field kind mismatch")
	// ErrInvalidDefinition reports an invalid schema, class definition or layout.
	ErrInvalidDefinition = errors.New("serialization: invalid definition")
	// ErrUnknownField reports an attribute path through a field that no
	// version of the value's type has (see FieldOptions.Strict).
	ErrUnknownField = errors.New("serialization: unknown field")
	// ErrInvalidString reports a string that is not valid UTF-8: Hazelcast's
	// formats carry strings as UTF-8, and a reader (Java's, for one) would
	// replace the bad bytes, so the value could not be read back as written
	// and two different strings could become one key.
	ErrInvalidString = errors.New("serialization: string is not valid UTF-8")
)

// StringError reports a string that cannot be serialized exactly; it
// matches ErrInvalidString.
type StringError struct {
	Value string // the string (the error shows its start)
}

func (e *StringError) Error() string {
	return fmt.Sprintf("serialization: the string %.32q is not valid UTF-8 and cannot be serialized exactly", e.Value)
}

// Unwrap makes the error match ErrInvalidString.
func (e *StringError) Unwrap() error { return ErrInvalidString }

// DecodeError describes Malformed input: which format, at which byte offset
// of the Data, and what was wrong.
type DecodeError struct {
	Format string // "data", "compact", "portable", "identified", "builtin", "json"
	Offset int    // byte offset in the Data where the problem was found
	Reason string
	Err    error // underlying cause, may be nil
}

func (e *DecodeError) Error() string {
	msg := fmt.Sprintf("serialization: malformed %s data at offset %d: %s", e.Format, e.Offset, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap makes the error match ErrMalformed and its cause.
func (e *DecodeError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMalformed, e.Err}
	}
	return []error{ErrMalformed}
}

func Malformed(format string, off int, reason string) *DecodeError {
	return &DecodeError{Format: format, Offset: off, Reason: reason}
}

// SchemaNotFoundError reports a Compact schema id with no registered schema.
// A client reacts by fetching the schema from the cluster.
type SchemaNotFoundError struct {
	SchemaID int64
}

func (e *SchemaNotFoundError) Error() string {
	return fmt.Sprintf("serialization: compact schema %d (0x%016x) is not registered", e.SchemaID, uint64(e.SchemaID))
}

// Unwrap makes the error match ErrUnknownSchema.
func (e *SchemaNotFoundError) Unwrap() error { return ErrUnknownSchema }

// ClassNotFoundError reports a Portable or IdentifiedDataSerializable class
// that cannot be read or written for lack of a factory, class definition or layout.
type ClassNotFoundError struct {
	Format    string // "portable" or "identified"
	FactoryID int32
	ClassID   int32
	Version   int32 // portable only
	Reason    string
}

func (e *ClassNotFoundError) Error() string {
	if e.Format == "portable" {
		return fmt.Sprintf("serialization: portable factory %d class %d version %d: %s", e.FactoryID, e.ClassID, e.Version, e.Reason)
	}
	return fmt.Sprintf("serialization: %s factory %d class %d: %s", e.Format, e.FactoryID, e.ClassID, e.Reason)
}

// Unwrap makes the error match ErrUnknownClass.
func (e *ClassNotFoundError) Unwrap() error { return ErrUnknownClass }

// TypeError reports a Go value that no serializer handles.
type TypeError struct {
	Type   string // Go type, as %T prints it
	Reason string
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("serialization: cannot serialize %s: %s", e.Type, e.Reason)
}

// Unwrap makes the error match ErrUnsupportedType.
func (e *TypeError) Unwrap() error { return ErrUnsupportedType }

// FieldError reports a field accessed with a kind it does not have, a null
// value read through a non-nullable accessor, or a write to a field that the
// schema or class definition does not contain.
type FieldError struct {
	Field  string
	Reason string
	absent bool // the writer's schema has no such field
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("serialization: field %q: %s", e.Field, e.Reason)
}

// Unwrap makes the error match ErrFieldKind.
func (e *FieldError) Unwrap() error { return ErrFieldKind }

// DefinitionError reports an invalid schema, class definition or layout.
type DefinitionError struct {
	What   string // e.g. `compact schema "small"`
	Reason string
}

func (e *DefinitionError) Error() string {
	return fmt.Sprintf("serialization: invalid %s: %s", e.What, e.Reason)
}

// Unwrap makes the error match ErrInvalidDefinition.
func (e *DefinitionError) Unwrap() error { return ErrInvalidDefinition }

// UnknownFieldError reports a field that a strict FieldReader met in no
// version of a value's type (or a step into a value that has no fields).
// Reason names the type, as in `Compact type "small" has no field "x"`.
type UnknownFieldError struct {
	Field  string
	Reason string
}

func (e *UnknownFieldError) Error() string { return "serialization: " + e.Reason }

// Unwrap makes the error match ErrUnknownField.
func (e *UnknownFieldError) Unwrap() error { return ErrUnknownField }

// AbsentField is the error of a read of a field that the writer's schema,
// class version or layout does not have: a reader of a Go type ignores it
// (the field keeps its zero value), a record reports it.
func AbsentField(field, reason string) *FieldError {
	return &FieldError{Field: field, Reason: reason, absent: true}
}

// IsAbsentField reports whether err is an AbsentField error.
func IsAbsentField(err error) bool {
	var fe *FieldError
	return errors.As(err, &fe) && fe.absent
}
