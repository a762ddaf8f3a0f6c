package serialization

import (
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/compact"
	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/portable"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// builtinSizes is the payload size of the fixed-size built-in types.
var builtinSizes = map[int32]int{
	core.TypeBool: 1, core.TypeByte: 1, core.TypeChar: 2, core.TypeInt16: 2, core.TypeInt32: 4, core.TypeInt64: 8,
	core.TypeFloat32: 4, core.TypeFloat64: 8, core.TypeUUID: 16,
}

// arrayElementSizes is the element size of the built-in array types.
var arrayElementSizes = map[int32]int{
	core.TypeByteArray: 1, core.TypeBoolArray: 1, core.TypeCharArray: 2, core.TypeInt16Array: 2, core.TypeInt32Array: 4,
	core.TypeInt64Array: 8, core.TypeFloat32Array: 4, core.TypeFloat64Array: 8,
}

// Validate checks the envelope and the header of the format that d's type
// id announces, cheaply and without decoding the value: the sizes of
// fixed-size built-in types, the length prefix of strings, JSON and arrays,
// the schema of Compact data (which must be registered, or embedded for type
// -56), the class identity and object header of Portable data and the
// header of IdentifiedDataSerializable data. A member validates every key
// and value it stores with it. The error matches ErrMalformed, or
// ErrUnknownSchema for Compact data whose schema is not registered.
func (s *Service) Validate(d core.Data) error {
	if len(d) < core.HeaderSize {
		return core.Malformed("data", 0, "shorter than the 8-byte header")
	}
	typ := d.Type()
	if n, ok := builtinSizes[typ]; ok {
		if len(d)-core.HeaderSize != n {
			return core.Malformed("builtin", core.HeaderSize, "type id "+strconv.Itoa(int(typ))+" needs a "+strconv.Itoa(n)+"-byte payload")
		}
		return nil
	}
	rd := wire.NewReader(d, core.HeaderSize)
	switch typ {
	case core.TypeString, core.TypeJSON:
		if n := rd.Length(1, false); rd.Err() == nil && n != rd.Len() {
			return core.Malformed("builtin", core.HeaderSize, "string length does not match the payload")
		}
	case core.TypeByteArray, core.TypeBoolArray, core.TypeCharArray, core.TypeInt16Array, core.TypeInt32Array, core.TypeInt64Array, core.TypeFloat32Array, core.TypeFloat64Array:
		size := arrayElementSizes[typ]
		if n := rd.Length(size, false); rd.Err() == nil && n*size != rd.Len() {
			return core.Malformed("builtin", core.HeaderSize, "array length does not match the payload")
		}
	case core.TypeStringArray:
		sr := rd // a copy of its own: ReadBuiltin keeps it on the heap, rd stays on the stack
		_, _, err := core.ReadBuiltin(&sr, typ)
		if err != nil {
			return err
		}
		if sr.Len() != 0 {
			return core.Malformed("builtin", sr.Pos(), "trailing bytes after the string array")
		}
	case core.TypeCompact, core.TypeCompactWithSchema:
		_, end, err := compact.Parse(d, core.HeaderSize, len(d), s.schemas, typ == core.TypeCompactWithSchema)
		if err != nil {
			return err
		}
		if end != len(d) {
			return core.Malformed("compact", end, "trailing bytes after the object")
		}
	case core.TypePortable:
		fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
		if rd.Err() != nil {
			return core.Malformed("portable", core.HeaderSize, "truncated class identity")
		}
		_, end, err := portable.Parse(d, rd.Pos(), len(d), fid, cid, ver, nil)
		if err != nil {
			return err
		}
		if end != len(d) {
			return core.Malformed("portable", end, "end position does not match the data length")
		}
	case core.TypeIdentified:
		hdr := rd.Int8()
		rd.Skip(8)
		if rd.Err() != nil || hdr != core.IdentifiedHeader {
			return core.Malformed("identified", core.HeaderSize, "truncated or unsupported identified header")
		}
	default:
		return core.Malformed("data", 4, "type id "+strconv.Itoa(int(typ))+" is not a type Atoll stores")
	}
	if rd.Err() != nil {
		return &core.DecodeError{Format: "data", Offset: rd.Pos(), Reason: "truncated payload", Err: rd.Err()}
	}
	return nil
}
