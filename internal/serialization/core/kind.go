package core

import (
	"strconv"
)

// FieldKind is the kind of a Compact field (Hazelcast's FieldKind ids). The
// record views of all three formats report their fields' kinds with it.
type FieldKind int32

// Field kinds. CHAR and PORTABLE kinds exist only for Portable records.
const (
	KindNotAvailable                 FieldKind = 0
	KindBoolean                      FieldKind = 1
	KindArrayOfBoolean               FieldKind = 2
	KindInt8                         FieldKind = 3
	KindArrayOfInt8                  FieldKind = 4
	KindChar                         FieldKind = 5
	KindArrayOfChar                  FieldKind = 6
	KindInt16                        FieldKind = 7
	KindArrayOfInt16                 FieldKind = 8
	KindInt32                        FieldKind = 9
	KindArrayOfInt32                 FieldKind = 10
	KindInt64                        FieldKind = 11
	KindArrayOfInt64                 FieldKind = 12
	KindFloat32                      FieldKind = 13
	KindArrayOfFloat32               FieldKind = 14
	KindFloat64                      FieldKind = 15
	KindArrayOfFloat64               FieldKind = 16
	KindString                       FieldKind = 17
	KindArrayOfString                FieldKind = 18
	KindDecimal                      FieldKind = 19
	KindArrayOfDecimal               FieldKind = 20
	KindTime                         FieldKind = 21
	KindArrayOfTime                  FieldKind = 22
	KindDate                         FieldKind = 23
	KindArrayOfDate                  FieldKind = 24
	KindTimestamp                    FieldKind = 25
	KindArrayOfTimestamp             FieldKind = 26
	KindTimestampWithTimezone        FieldKind = 27
	KindArrayOfTimestampWithTimezone FieldKind = 28
	KindCompact                      FieldKind = 29
	KindArrayOfCompact               FieldKind = 30
	KindPortable                     FieldKind = 31
	KindArrayOfPortable              FieldKind = 32
	KindNullableBoolean              FieldKind = 33
	KindArrayOfNullableBoolean       FieldKind = 34
	KindNullableInt8                 FieldKind = 35
	KindArrayOfNullableInt8          FieldKind = 36
	KindNullableInt16                FieldKind = 37
	KindArrayOfNullableInt16         FieldKind = 38
	KindNullableInt32                FieldKind = 39
	KindArrayOfNullableInt32         FieldKind = 40
	KindNullableInt64                FieldKind = 41
	KindArrayOfNullableInt64         FieldKind = 42
	KindNullableFloat32              FieldKind = 43
	KindArrayOfNullableFloat32       FieldKind = 44
	KindNullableFloat64              FieldKind = 45
	KindArrayOfNullableFloat64       FieldKind = 46
	KindCount                                  = 47
)

var kindNames = [KindCount]string{
	"NOT_AVAILABLE", "BOOLEAN", "ARRAY_OF_BOOLEAN", "INT8", "ARRAY_OF_INT8", "CHAR", "ARRAY_OF_CHAR",
	"INT16", "ARRAY_OF_INT16", "INT32", "ARRAY_OF_INT32", "INT64", "ARRAY_OF_INT64",
	"FLOAT32", "ARRAY_OF_FLOAT32", "FLOAT64", "ARRAY_OF_FLOAT64", "STRING", "ARRAY_OF_STRING",
	"DECIMAL", "ARRAY_OF_DECIMAL", "TIME", "ARRAY_OF_TIME", "DATE", "ARRAY_OF_DATE",
	"TIMESTAMP", "ARRAY_OF_TIMESTAMP", "TIMESTAMP_WITH_TIMEZONE", "ARRAY_OF_TIMESTAMP_WITH_TIMEZONE",
	"COMPACT", "ARRAY_OF_COMPACT", "PORTABLE", "ARRAY_OF_PORTABLE",
	"NULLABLE_BOOLEAN", "ARRAY_OF_NULLABLE_BOOLEAN", "NULLABLE_INT8", "ARRAY_OF_NULLABLE_INT8",
	"NULLABLE_INT16", "ARRAY_OF_NULLABLE_INT16", "NULLABLE_INT32", "ARRAY_OF_NULLABLE_INT32",
	"NULLABLE_INT64", "ARRAY_OF_NULLABLE_INT64", "NULLABLE_FLOAT32", "ARRAY_OF_NULLABLE_FLOAT32",
	"NULLABLE_FLOAT64", "ARRAY_OF_NULLABLE_FLOAT64",
}

// String returns Hazelcast's name of the kind, e.g. "ARRAY_OF_INT32".
func (k FieldKind) String() string {
	if k >= 0 && k < KindCount {
		return kindNames[k]
	}
	return "FieldKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseFieldKind returns the kind with Hazelcast's name s.
func ParseFieldKind(s string) (FieldKind, bool) {
	for i, n := range kindNames {
		if n == s {
			return FieldKind(i), true
		}
	}
	return KindNotAvailable, false
}

// IsArray reports whether k is an ARRAY_OF_* kind.
func (k FieldKind) IsArray() bool {
	return k > 0 && k < KindCount && k%2 == 0
}

// Elem returns the item kind of an ARRAY_OF_* kind, and k itself otherwise.
func (k FieldKind) Elem() FieldKind {
	if k.IsArray() {
		return k - 1
	}
	return k
}

// Nullable returns the NULLABLE_* twin of a fixed-size primitive kind, and
// k itself when it has none.
func (k FieldKind) Nullable() FieldKind {
	switch k {
	case KindBoolean:
		return KindNullableBoolean
	case KindInt8:
		return KindNullableInt8
	case KindInt16:
		return KindNullableInt16
	case KindInt32:
		return KindNullableInt32
	case KindInt64:
		return KindNullableInt64
	case KindFloat32:
		return KindNullableFloat32
	case KindFloat64:
		return KindNullableFloat64
	case KindArrayOfBoolean:
		return KindArrayOfNullableBoolean
	case KindArrayOfInt8:
		return KindArrayOfNullableInt8
	case KindArrayOfInt16:
		return KindArrayOfNullableInt16
	case KindArrayOfInt32:
		return KindArrayOfNullableInt32
	case KindArrayOfInt64:
		return KindArrayOfNullableInt64
	case KindArrayOfFloat32:
		return KindArrayOfNullableFloat32
	case KindArrayOfFloat64:
		return KindArrayOfNullableFloat64
	}
	return k
}

// NonNullable is the inverse of Nullable.
func (k FieldKind) NonNullable() FieldKind {
	if k >= KindNullableBoolean && k <= KindArrayOfNullableFloat64 {
		base := [...]FieldKind{KindBoolean, KindInt8, KindInt16, KindInt32, KindInt64, KindFloat32, KindFloat64}
		b := base[(k-KindNullableBoolean)/2]
		if k.IsArray() {
			return b + 1
		}
		return b
	}
	return k
}
