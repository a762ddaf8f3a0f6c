package serialization

import (
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// builtinSizes is the payload size of the fixed-size built-in types.
var builtinSizes = map[int32]int{
	TypeBool: 1, TypeByte: 1, TypeChar: 2, TypeInt16: 2, TypeInt32: 4, TypeInt64: 8,
	TypeFloat32: 4, TypeFloat64: 8, TypeUUID: 16,
}

// Validate checks the envelope and the header of the format that d's type
// id announces, cheaply and without decoding the value: the sizes of
// fixed-size built-in types, the length prefix of strings, JSON and arrays,
// the schema of Compact data (which must be registered, or embedded for type
// -56), the class identity and object header of Portable data and the
// header of IdentifiedDataSerializable data. A member validates every key
// and value it stores with it. The error matches ErrMalformed, or
// ErrUnknownSchema for Compact data whose schema is not registered.
func (s *Service) Validate(d Data) error {
	if len(d) < HeaderSize {
		return malformed("data", 0, "shorter than the 8-byte header")
	}
	typ := d.Type()
	if n, ok := builtinSizes[typ]; ok {
		if len(d)-HeaderSize != n {
			return malformed("builtin", HeaderSize, "type id "+strconv.Itoa(int(typ))+" needs a "+strconv.Itoa(n)+"-byte payload")
		}
		return nil
	}
	rd := wire.NewReader(d, HeaderSize)
	switch typ {
	case TypeString, TypeJSON:
		if n := rd.Length(1, false); rd.Err() == nil && n != rd.Len() {
			return malformed("builtin", HeaderSize, "string length does not match the payload")
		}
	case TypeByteArray, TypeBoolArray, TypeCharArray, TypeInt16Array, TypeInt32Array, TypeInt64Array, TypeFloat32Array, TypeFloat64Array:
		size := map[int32]int{TypeByteArray: 1, TypeBoolArray: 1, TypeCharArray: 2, TypeInt16Array: 2, TypeInt32Array: 4, TypeInt64Array: 8, TypeFloat32Array: 4, TypeFloat64Array: 8}[typ]
		if n := rd.Length(size, false); rd.Err() == nil && n*size != rd.Len() {
			return malformed("builtin", HeaderSize, "array length does not match the payload")
		}
	case TypeStringArray:
		_, _, err := readBuiltin(&rd, typ)
		if err != nil {
			return err
		}
		if rd.Len() != 0 {
			return malformed("builtin", rd.Pos(), "trailing bytes after the string array")
		}
	case TypeCompact, TypeCompactWithSchema:
		_, end, err := parseCompact(d, HeaderSize, len(d), s.schemas, typ == TypeCompactWithSchema)
		if err != nil {
			return err
		}
		if end != len(d) {
			return malformed("compact", end, "trailing bytes after the object")
		}
	case TypePortable:
		fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
		if rd.Err() != nil {
			return malformed("portable", HeaderSize, "truncated class identity")
		}
		_, end, err := parsePortable(d, rd.Pos(), len(d), fid, cid, ver, nil)
		if err != nil {
			return err
		}
		if end != len(d) {
			return malformed("portable", end, "end position does not match the data length")
		}
	case TypeIdentified:
		hdr := rd.Int8()
		rd.Skip(8)
		if rd.Err() != nil || hdr != identifiedHeader {
			return malformed("identified", HeaderSize, "truncated or unsupported identified header")
		}
	default:
		return malformed("data", 4, "type id "+strconv.Itoa(int(typ))+" is not a type Atoll stores")
	}
	if rd.Err() != nil {
		return &DecodeError{Format: "data", Offset: rd.Pos(), Reason: "truncated payload", Err: rd.Err()}
	}
	return nil
}
