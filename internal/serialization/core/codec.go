package core

import (
	"math/big"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

func ReadDecimal(rd *wire.Reader) Decimal {
	b := rd.Bytes(rd.Length(1, false))
	scale := rd.Int32()
	if rd.Err() != nil {
		return Decimal{}
	}
	return Decimal{Unscaled: fromTwosComplement(b), Scale: scale}
}

func ReadTime(rd *wire.Reader) LocalTime {
	return LocalTime{Hour: rd.Int8(), Minute: rd.Int8(), Second: rd.Int8(), Nanosecond: rd.Int32()}
}

func ReadDate(rd *wire.Reader, shortYear bool) LocalDate {
	var y int32
	if shortYear {
		y = int32(rd.Int16())
	} else {
		y = rd.Int32()
	}
	return LocalDate{Year: y, Month: rd.Int8(), Day: rd.Int8()}
}

func ReadTimestamp(rd *wire.Reader, shortYear bool) LocalDateTime {
	d := ReadDate(rd, shortYear)
	return LocalDateTime{Date: d, Time: ReadTime(rd)}
}

func ReadTimestampTZ(rd *wire.Reader, shortYear bool) OffsetDateTime {
	t := ReadTimestamp(rd, shortYear)
	return OffsetDateTime{LocalDateTime: t, OffsetSeconds: rd.Int32()}
}

func AppendBools(dst []byte, v []bool) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, b := range v {
		dst = wire.AppendBool(dst, b)
	}
	return dst
}

func AppendInt8s(dst []byte, v []int8) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = append(dst, byte(x))
	}
	return dst
}

func AppendBytes(dst []byte, v []byte) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	return append(dst, v...)
}

func AppendChars(dst []byte, v []Char) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt16(dst, int16(x))
	}
	return dst
}

func AppendInt16s(dst []byte, v []int16) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt16(dst, x)
	}
	return dst
}

func AppendInt32s(dst []byte, v []int32) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt32(dst, x)
	}
	return dst
}

func AppendInt64s(dst []byte, v []int64) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendInt64(dst, x)
	}
	return dst
}

func AppendFloat32s(dst []byte, v []float32) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendFloat32(dst, x)
	}
	return dst
}

func AppendFloat64s(dst []byte, v []float64) []byte {
	dst = wire.AppendInt32(dst, int32(len(v)))
	for _, x := range v {
		dst = wire.AppendFloat64(dst, x)
	}
	return dst
}

// AppendDecimal writes int length + the unscaled value as Java's
// BigInteger.toByteArray (minimal two's complement, big-endian) + int scale.
func AppendDecimal(dst []byte, d Decimal) []byte {
	b := twosComplement(d.Unscaled)
	dst = wire.AppendInt32(dst, int32(len(b)))
	dst = append(dst, b...)
	return wire.AppendInt32(dst, d.Scale)
}

func twosComplement(u *big.Int) []byte {
	switch {
	case u == nil || u.Sign() == 0:
		return []byte{0}
	case u.Sign() > 0:
		b := u.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// A negative x is the bitwise inverse of -x-1.
	y := new(big.Int).Neg(u)
	b := y.Sub(y, big.NewInt(1)).Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// fromTwosComplement is the inverse of twosComplement.
func fromTwosComplement(b []byte) *big.Int {
	if len(b) == 0 || b[0]&0x80 == 0 {
		return new(big.Int).SetBytes(b)
	}
	inv := make([]byte, len(b))
	for i := range b {
		inv[i] = ^b[i]
	}
	y := new(big.Int).SetBytes(inv)
	return y.Neg(y.Add(y, big.NewInt(1)))
}

func AppendTime(dst []byte, t LocalTime) []byte {
	dst = append(dst, byte(t.Hour), byte(t.Minute), byte(t.Second))
	return wire.AppendInt32(dst, t.Nanosecond)
}

// AppendDate writes a date; Portable writes the year as a short, Compact as an int.
func AppendDate(dst []byte, d LocalDate, shortYear bool) []byte {
	if shortYear {
		dst = wire.AppendInt16(dst, int16(d.Year))
	} else {
		dst = wire.AppendInt32(dst, d.Year)
	}
	return append(dst, byte(d.Month), byte(d.Day))
}

func AppendTimestamp(dst []byte, t LocalDateTime, shortYear bool) []byte {
	return AppendTime(AppendDate(dst, t.Date, shortYear), t.Time)
}

func AppendTimestampTZ(dst []byte, t OffsetDateTime, shortYear bool) []byte {
	return wire.AppendInt32(AppendTimestamp(dst, t.LocalDateTime, shortYear), t.OffsetSeconds)
}

// AppendNullableArray writes -1 for a nil slice and uses enc otherwise.
func AppendNullableArray[T any](dst []byte, v []T, enc func([]byte, []T) []byte) []byte {
	if v == nil {
		return wire.AppendInt32(dst, -1)
	}
	return enc(dst, v)
}
