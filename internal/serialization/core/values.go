package core

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
)

// Char is a Java char: one UTF-16 code unit. It serializes as type id -5.
type Char uint16

// JSON is a JSON document stored verbatim, Hazelcast's HazelcastJsonValue
// (type id -130). The text is not validated or normalized when written.
type JSON string

// UUID is a java.util.UUID: the 16 bytes are the most significant long then
// the least significant long, both big-endian, which is also RFC 4122 order.
type UUID [16]byte

// MostSigBits returns the first 8 bytes as Java's getMostSignificantBits.
func (u UUID) MostSigBits() int64 {
	var v int64
	for _, b := range u[:8] {
		v = v<<8 | int64(b)
	}
	return v
}

// LeastSigBits returns the last 8 bytes as Java's getLeastSignificantBits.
func (u UUID) LeastSigBits() int64 {
	var v int64
	for _, b := range u[8:] {
		v = v<<8 | int64(b)
	}
	return v
}

// UUIDFromBits builds a UUID from Java's two halves.
func UUIDFromBits(most, least int64) UUID {
	var u UUID
	for i := 0; i < 8; i++ {
		u[7-i] = byte(most >> (8 * i))
		u[15-i] = byte(least >> (8 * i))
	}
	return u
}

// String formats u in the canonical 8-4-4-4-12 hex form.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// Decimal is a java.math.BigDecimal: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// String formats d as a plain decimal number, as BigDecimal.toPlainString does.
func (d Decimal) String() string {
	digits := "0"
	if d.Unscaled != nil {
		digits = d.Unscaled.String()
	}
	sign := ""
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	if d.Scale <= 0 {
		return sign + digits + strings.Repeat("0", int(-d.Scale))
	}
	scale := int(d.Scale)
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// LocalDate is a date without a time zone (java.time.LocalDate).
type LocalDate struct {
	Year  int32
	Month int8
	Day   int8
}

func (d LocalDate) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// LocalTime is a time of day without a time zone (java.time.LocalTime).
type LocalTime struct {
	Hour       int8
	Minute     int8
	Second     int8
	Nanosecond int32
}

func (t LocalTime) String() string {
	return fmt.Sprintf("%02d:%02d:%02d.%09d", t.Hour, t.Minute, t.Second, t.Nanosecond)
}

// LocalDateTime is a date and time without a time zone (java.time.LocalDateTime).
type LocalDateTime struct {
	Date LocalDate
	Time LocalTime
}

func (t LocalDateTime) String() string { return t.Date.String() + "T" + t.Time.String() }

// OffsetDateTime is a date and time with a UTC offset (java.time.OffsetDateTime).
type OffsetDateTime struct {
	LocalDateTime
	OffsetSeconds int32
}

func (t OffsetDateTime) String() string {
	off, sign := t.OffsetSeconds, '+'
	if off < 0 {
		off, sign = -off, '-'
	}
	return fmt.Sprintf("%s%c%02d:%02d", t.LocalDateTime, sign, off/3600, off%3600/60)
}
