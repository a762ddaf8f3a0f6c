package core

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// AppendBuiltin appends type id + payload for the built-in Go types; ok is
// false for any other type.
func AppendBuiltin(dst []byte, v any) (out []byte, ok bool, err error) {
	switch x := v.(type) {
	case bool:
		return wire.AppendBool(wire.AppendInt32(dst, TypeBool), x), true, nil
	case int8:
		return append(wire.AppendInt32(dst, TypeByte), byte(x)), true, nil
	case uint8:
		return append(wire.AppendInt32(dst, TypeByte), x), true, nil
	case Char:
		return wire.AppendInt16(wire.AppendInt32(dst, TypeChar), int16(x)), true, nil
	case int16:
		return wire.AppendInt16(wire.AppendInt32(dst, TypeInt16), x), true, nil
	case int32:
		return wire.AppendInt32(wire.AppendInt32(dst, TypeInt32), x), true, nil
	case int64:
		return wire.AppendInt64(wire.AppendInt32(dst, TypeInt64), x), true, nil
	case int:
		return wire.AppendInt64(wire.AppendInt32(dst, TypeInt64), int64(x)), true, nil
	case float32:
		return wire.AppendFloat32(wire.AppendInt32(dst, TypeFloat32), x), true, nil
	case float64:
		return wire.AppendFloat64(wire.AppendInt32(dst, TypeFloat64), x), true, nil
	case string:
		out, err := wire.AppendString(wire.AppendInt32(dst, TypeString), x)
		return out, true, StringErr(err, x)
	case JSON:
		out, err := wire.AppendString(wire.AppendInt32(dst, TypeJSON), string(x))
		return out, true, StringErr(err, string(x))
	case UUID:
		return append(wire.AppendInt32(dst, TypeUUID), x[:]...), true, nil
	case []byte:
		if x == nil {
			return dst, false, nil
		}
		return AppendBytes(wire.AppendInt32(dst, TypeByteArray), x), true, nil
	case []bool:
		if x == nil {
			return dst, false, nil
		}
		return AppendBools(wire.AppendInt32(dst, TypeBoolArray), x), true, nil
	case []Char:
		if x == nil {
			return dst, false, nil
		}
		return AppendChars(wire.AppendInt32(dst, TypeCharArray), x), true, nil
	case []int16:
		if x == nil {
			return dst, false, nil
		}
		return AppendInt16s(wire.AppendInt32(dst, TypeInt16Array), x), true, nil
	case []int32:
		if x == nil {
			return dst, false, nil
		}
		return AppendInt32s(wire.AppendInt32(dst, TypeInt32Array), x), true, nil
	case []int64:
		if x == nil {
			return dst, false, nil
		}
		return AppendInt64s(wire.AppendInt32(dst, TypeInt64Array), x), true, nil
	case []float32:
		if x == nil {
			return dst, false, nil
		}
		return AppendFloat32s(wire.AppendInt32(dst, TypeFloat32Array), x), true, nil
	case []float64:
		if x == nil {
			return dst, false, nil
		}
		return AppendFloat64s(wire.AppendInt32(dst, TypeFloat64Array), x), true, nil
	case []string:
		if x == nil {
			return dst, false, nil
		}
		out, err := AppendStrings(wire.AppendInt32(dst, TypeStringArray), x)
		return out, true, StringErr(err, x...)
	case []*string:
		if x == nil {
			return dst, false, nil
		}
		out, err := AppendStringPtrs(wire.AppendInt32(dst, TypeStringArray), x)
		return out, true, StringPtrsErr(err, x)
	}
	return dst, false, nil
}

// StringErr turns wire's error for a string that is not valid UTF-8 into
// a *StringError naming the first such string of v.
func StringErr(err error, v ...string) error {
	if err == nil {
		return nil
	}
	for _, s := range v {
		if !utf8.ValidString(s) {
			return &StringError{Value: s}
		}
	}
	return &StringError{}
}

// StringPtrsErr is StringErr for a string array with null items.
func StringPtrsErr(err error, v []*string) error {
	if err == nil {
		return nil
	}
	for _, s := range v {
		if s != nil && !utf8.ValidString(*s) {
			return &StringError{Value: *s}
		}
	}
	return &StringError{}
}

// AppendStrings writes int count + string per item (Java writeStringArray).
func AppendStrings(dst []byte, v []string) ([]byte, error) {
	dst = wire.AppendInt32(dst, int32(len(v)))
	var err error
	for _, s := range v {
		if dst, err = wire.AppendString(dst, s); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// AppendStringPtrs is AppendStrings with null items for nil pointers.
func AppendStringPtrs(dst []byte, v []*string) ([]byte, error) {
	dst = wire.AppendInt32(dst, int32(len(v)))
	var err error
	for _, s := range v {
		if s == nil {
			dst = wire.AppendNullString(dst)
		} else if dst, err = wire.AppendString(dst, *s); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// ReadBuiltin decodes the payload of a built-in type id; ok is false for
// type ids that are not built-in.
func ReadBuiltin(rd *wire.Reader, typ int32) (v any, ok bool, err error) {
	start := rd.Pos()
	switch typ {
	case TypeBool:
		v = rd.Bool()
	case TypeByte:
		v = rd.Int8()
	case TypeChar:
		v = Char(rd.Uint16())
	case TypeInt16:
		v = rd.Int16()
	case TypeInt32:
		v = rd.Int32()
	case TypeInt64:
		v = rd.Int64()
	case TypeFloat32:
		v = rd.Float32()
	case TypeFloat64:
		v = rd.Float64()
	case TypeString, TypeJSON:
		s, nonNull := rd.Str()
		if rd.Err() == nil && !nonNull {
			return nil, true, Malformed("builtin", start, "top-level string is null")
		}
		if typ == TypeJSON {
			v = JSON(s)
		} else {
			v = s
		}
	case TypeUUID:
		var u UUID
		copy(u[:], rd.Bytes(16))
		v = u
	case TypeByteArray:
		v = ReadByteArray(rd)
	case TypeBoolArray:
		v = ReadSlice(rd, 1, (*wire.Reader).Bool)
	case TypeCharArray:
		v = ReadSlice(rd, 2, func(rd *wire.Reader) Char { return Char(rd.Uint16()) })
	case TypeInt16Array:
		v = ReadNumbers[int16](rd, nil)
	case TypeInt32Array:
		v = ReadNumbers[int32](rd, nil)
	case TypeInt64Array:
		v = ReadNumbers[int64](rd, nil)
	case TypeFloat32Array:
		v = ReadNumbers[float32](rd, nil)
	case TypeFloat64Array:
		v = ReadNumbers[float64](rd, nil)
	case TypeStringArray:
		v = ReadStringArray(rd)
	default:
		return nil, false, nil
	}
	if rd.Err() != nil {
		return nil, true, &DecodeError{Format: "builtin", Offset: start, Reason: "type id " + strconv.Itoa(int(typ)) + " payload is truncated or has an invalid length", Err: rd.Err()}
	}
	return v, true, nil
}

// ReadSlice reads int count (-1 = null) + count items of at least size bytes.
// A null array reads as a nil slice of the item type.
func ReadSlice[T any](rd *wire.Reader, size int, item func(*wire.Reader) T) []T {
	n := rd.Length(size, true)
	if n < 0 || rd.Err() != nil {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = item(rd)
	}
	return out
}

// ReadNumbers reads int count (-1 = null) + count big-endian numbers, in
// one pass over their bytes, into a slice from arena (nil: a new slice).
// A null array reads as a nil slice.
func ReadNumbers[T wire.Number](rd *wire.Reader, arena *Arena) []T {
	n := rd.Length(int(unsafe.Sizeof(T(0))), true)
	if n < 0 || rd.Err() != nil {
		return nil
	}
	out := Numbers[T](arena, n)
	wire.Numbers(rd, out)
	return out
}

// ReadByteArray reads a byte[] (int count, -1 = null, then the bytes) with
// one copy: values of many megabytes are common.
func ReadByteArray(rd *wire.Reader) []byte {
	n := rd.Length(1, true)
	if n < 0 || rd.Err() != nil {
		return nil
	}
	return append(make([]byte, 0, n), rd.Bytes(n)...)
}

// ReadStringArray reads a String[]: []string, or []*string when an item is null.
func ReadStringArray(rd *wire.Reader) any {
	ptrs := ReadStringPtrs(rd)
	if ptrs == nil {
		return []string(nil)
	}
	out := make([]string, len(ptrs))
	for i, p := range ptrs {
		if p == nil {
			return ptrs
		}
		out[i] = *p
	}
	return out
}

func ReadStringPtrs(rd *wire.Reader) []*string {
	return ReadSlice(rd, 4, func(rd *wire.Reader) *string {
		s, ok := rd.Str()
		if !ok {
			return nil
		}
		return &s
	})
}
