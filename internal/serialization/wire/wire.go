// Package wire holds the byte-level primitives of Hazelcast's binary formats:
// big-endian append-style encoders and a bounds-checked reader with a sticky
// error. It knows nothing about types, schemas or class definitions; the
// format packages build on it.
//
// Encoders follow the append convention (AppendX(dst, v) []byte) so callers
// can reuse buffers. The Reader never panics and never reads outside its
// buffer: a short read records ErrShort, returns the zero value, and every
// later read is a no-op until the caller checks Err.
package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"
)

// ErrShort reports that the input ended before a value was complete.
var ErrShort = errors.New("wire: input too short")

// ErrLength reports a negative or implausibly large length prefix.
var ErrLength = errors.New("wire: invalid length")

// ErrUTF8 reports a string that is not valid UTF-8 and so has no Hazelcast encoding.
var ErrUTF8 = errors.New("wire: string is not valid UTF-8")

// Canonical NaN bit patterns, as Java's floatToIntBits / doubleToLongBits write them.
const (
	canonicalNaN32 = 0x7fc00000
	canonicalNaN64 = 0x7ff8000000000000
)

// Float32Bits returns the IEEE bits of f with NaN canonicalized the way Java does.
func Float32Bits(f float32) uint32 {
	if f != f {
		return canonicalNaN32
	}
	return math.Float32bits(f)
}

// Float64Bits returns the IEEE bits of f with NaN canonicalized the way Java does.
func Float64Bits(f float64) uint64 {
	if f != f {
		return canonicalNaN64
	}
	return math.Float64bits(f)
}

// AppendBool appends one byte, 1 for true and 0 for false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendInt16 appends v big-endian.
func AppendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendInt32 appends v big-endian.
func AppendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendInt64 appends v big-endian.
func AppendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendFloat32 appends the (NaN-canonical) IEEE bits of v big-endian.
func AppendFloat32(dst []byte, v float32) []byte {
	return binary.BigEndian.AppendUint32(dst, Float32Bits(v))
}

// AppendFloat64 appends the (NaN-canonical) IEEE bits of v big-endian.
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, Float64Bits(v))
}

// AppendString appends Hazelcast's string encoding: int32 byte length + UTF-8
// bytes. It fails with ErrUTF8 when s is not valid UTF-8, since Java would
// have replaced the bad bytes and the value could not round-trip.
func AppendString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return dst, ErrUTF8
	}
	dst = AppendInt32(dst, int32(len(s)))
	return append(dst, s...), nil
}

// AppendNullString appends the encoding of a null string (length -1).
func AppendNullString(dst []byte) []byte { return AppendInt32(dst, -1) }

// PutInt32 writes v big-endian at b[0:4].
func PutInt32(b []byte, v int32) { binary.BigEndian.PutUint32(b, uint32(v)) }

// Int32At reads a big-endian int32 at b[off:]; ok is false when it does not fit.
func Int32At(b []byte, off int) (v int32, ok bool) {
	if off < 0 || off > len(b)-4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(b[off:])), true
}

// Int64At reads a big-endian int64 at b[off:]; ok is false when it does not fit.
func Int64At(b []byte, off int) (v int64, ok bool) {
	if off < 0 || off > len(b)-8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b[off:])), true
}

// StringBytesAt reads a Hazelcast string at b[off:] as Reader.StringBytes
// does, without a reader: a view of its UTF-8 bytes, or null. The error
// is ErrShort or ErrLength.
func StringBytesAt(b []byte, off int) (s []byte, null bool, err error) {
	n, ok := Int32At(b, off)
	switch {
	case !ok:
		return nil, false, ErrShort
	case n == -1:
		return nil, true, nil
	case n < 0:
		return nil, false, ErrLength
	case int64(n) > int64(len(b)-off-4):
		return nil, false, ErrShort
	}
	return b[off+4 : off+4+int(n)], false, nil
}

// Reader decodes big-endian values from a byte slice with a sticky error.
// The zero Reader reads from an empty buffer.
type Reader struct {
	buf []byte
	pos int
	err error
}

// NewReader returns a Reader over b positioned at off.
func NewReader(b []byte, off int) Reader {
	r := Reader{buf: b, pos: off}
	if off < 0 || off > len(b) {
		r.err = ErrShort
		r.pos = len(b)
	}
	return r
}

// Err returns the first error the Reader met, or nil.
func (r *Reader) Err() error { return r.err }

// Fail records err unless an earlier error is already recorded.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Pos returns the current read position.
func (r *Reader) Pos() int { return r.pos }

// Len returns the number of unread bytes.
func (r *Reader) Len() int { return len(r.buf) - r.pos }

// Buf returns the whole underlying buffer.
func (r *Reader) Buf() []byte { return r.buf }

// Seek moves to the absolute position off, failing if it is outside the buffer.
func (r *Reader) Seek(off int) {
	if off < 0 || off > len(r.buf) {
		r.Fail(ErrShort)
		return
	}
	r.pos = off
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf)-r.pos {
		r.err = ErrShort
		r.pos = len(r.buf)
		return nil
	}
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b
}

// Bytes returns a view of the next n bytes (nil after an error).
func (r *Reader) Bytes(n int) []byte { return r.take(n) }

// Skip advances n bytes.
func (r *Reader) Skip(n int) { r.take(n) }

// Bool reads one byte; any non-zero value is true, as in Java.
func (r *Reader) Bool() bool {
	b := r.take(1)
	return b != nil && b[0] != 0
}

// Int8 reads one signed byte.
func (r *Reader) Int8() int8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

// Uint16 reads a big-endian unsigned 16-bit value (Java char).
func (r *Reader) Uint16() uint16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

// Int16 reads a big-endian int16.
func (r *Reader) Int16() int16 { return int16(r.Uint16()) }

// Int32 reads a big-endian int32.
func (r *Reader) Int32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// Int64 reads a big-endian int64.
func (r *Reader) Int64() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// Float32 reads big-endian IEEE bits.
func (r *Reader) Float32() float32 { return math.Float32frombits(uint32(r.Int32())) }

// Float64 reads big-endian IEEE bits.
func (r *Reader) Float64() float64 { return math.Float64frombits(uint64(r.Int64())) }

// Number is a fixed-size number that Numbers reads in bulk.
type Number interface {
	int16 | int32 | int64 | float32 | float64
}

// Numbers fills dst with the next len(dst) big-endian numbers (floats as
// their IEEE bits) in one pass over their bytes. A short input fails the
// reader and leaves dst as it was.
func Numbers[T Number](r *Reader, dst []T) {
	switch d := any(dst).(type) {
	case []int16:
		if b := r.take(2 * len(d)); b != nil {
			for i := range d {
				d[i] = int16(binary.BigEndian.Uint16(b[2*i:]))
			}
		}
	case []int32:
		if b := r.take(4 * len(d)); b != nil {
			for i := range d {
				d[i] = int32(binary.BigEndian.Uint32(b[4*i:]))
			}
		}
	case []int64:
		if b := r.take(8 * len(d)); b != nil {
			for i := range d {
				d[i] = int64(binary.BigEndian.Uint64(b[8*i:]))
			}
		}
	case []float32:
		if b := r.take(4 * len(d)); b != nil {
			for i := range d {
				d[i] = math.Float32frombits(binary.BigEndian.Uint32(b[4*i:]))
			}
		}
	case []float64:
		if b := r.take(8 * len(d)); b != nil {
			for i := range d {
				d[i] = math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
			}
		}
	}
}

// Length reads an int32 length prefix. It returns -1 for null (when allowNull),
// and fails with ErrLength when the length is negative or when n items of
// minItemSize bytes each cannot fit in the remaining input, so that callers
// never allocate from an untrusted length.
func (r *Reader) Length(minItemSize int, allowNull bool) int {
	n := r.Int32()
	if r.err != nil {
		return 0
	}
	if n == -1 && allowNull {
		return -1
	}
	if n < 0 {
		r.Fail(ErrLength)
		return 0
	}
	if minItemSize > 0 && int64(n)*int64(minItemSize) > int64(r.Len()) {
		r.Fail(ErrShort)
		return 0
	}
	return int(n)
}

// StringBytes reads a Hazelcast string and returns a view of its UTF-8 bytes;
// null reports ok=false. The view aliases the input.
func (r *Reader) StringBytes() (b []byte, ok bool) {
	n := r.Length(1, true)
	if n < 0 || r.err != nil {
		return nil, false
	}
	return r.take(n), r.err == nil
}

// Str reads a Hazelcast string; null reads as "" with ok=false.
func (r *Reader) Str() (s string, ok bool) {
	b, ok := r.StringBytes()
	if !ok {
		return "", false
	}
	return string(b), true
}
