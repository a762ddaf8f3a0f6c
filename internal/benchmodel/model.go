// Package benchmodel holds the benchmark objects of bench/WORKLOADS.md:
// the SMALL and LARGE objects of workload B and the document of workload
// A, in each of Hazelcast's formats (Compact, Portable,
// IdentifiedDataSerializable), with the seeded generators that produce
// exactly the values the Hazelcast runner (bench/hazelcast) stores. They
// are shared data: the workloads (bench/), the member CLI's map fill, the
// interoperability peer and the tests of the serialization layer and the
// query engine use them, so they live where all of them may import them.
package benchmodel

import (
	"strconv"
	"strings"

	"github.com/atolldb/atoll/internal/jrand"
)

// Generation parameters of the workloads.
const (
	Alpha         = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	StrLen        = 10
	ArrLen        = 3
	ValueSeedBase = 1_000_000
	FixedSeed     = 7
	MetinEvery    = 1000
	Metin         = "metin"
	// SmallBytesLen and LargeBytesLen are the BYTE_ARRAY kind's value sizes:
	// the payload size of the IDENTIFIED form of the fixed value.
	SmallBytesLen = 43
	LargeBytesLen = 349
)

// Factory and class ids of the Portable and IdentifiedDataSerializable forms.
const (
	IdentifiedFactoryID = 1
	PortableFactoryID   = 2
	SmallClassID        = 1
	LargeClassID        = 2
	ADocClassID         = 3
)

// Small is workload B's SMALL object.
type Small struct {
	IntField    int32
	LongField   int64
	DoubleField float64
	StringField string
}

// Large is workload B's LARGE object.
type Large struct {
	BooleanField bool
	BooleanArray []bool
	ByteField    int8
	ByteArray    []int8
	ShortField   int16
	ShortArray   []int16
	IntField     int32
	IntArray     []int32
	LongField    int64
	LongArray    []int64
	FloatField   float32
	FloatArray   []float32
	DoubleField  float64
	DoubleArray  []float64
	StringField  string
	StringArray  []string
	Small        Small
	SmallArray   []Small
}

// RandString returns n characters drawn from Alpha, as the Hazelcast runner's
// Values.string (bench/hazelcast).
func RandString(r *jrand.Random, n int) string {
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < n; i++ {
		b.WriteByte(Alpha[r.IntN(int32(len(Alpha)))])
	}
	return b.String()
}

// NewSmall draws a SMALL object from r.
func NewSmall(r *jrand.Random) Small {
	return Small{IntField: r.Int(), LongField: r.Long(), DoubleField: r.Double(), StringField: RandString(r, StrLen)}
}

// NewLarge draws a LARGE object from r, field by field in declaration order.
func NewLarge(r *jrand.Random) Large {
	var l Large
	l.BooleanField = r.Bool()
	l.BooleanArray = make([]bool, ArrLen)
	for i := range l.BooleanArray {
		l.BooleanArray[i] = r.Bool()
	}
	l.ByteField = int8(r.Int())
	l.ByteArray = make([]int8, ArrLen)
	for i := range l.ByteArray {
		l.ByteArray[i] = int8(r.Int())
	}
	l.ShortField = int16(r.Int())
	l.ShortArray = make([]int16, ArrLen)
	for i := range l.ShortArray {
		l.ShortArray[i] = int16(r.Int())
	}
	l.IntField = r.Int()
	l.IntArray = make([]int32, ArrLen)
	for i := range l.IntArray {
		l.IntArray[i] = r.Int()
	}
	l.LongField = r.Long()
	l.LongArray = make([]int64, ArrLen)
	for i := range l.LongArray {
		l.LongArray[i] = r.Long()
	}
	l.FloatField = r.Float()
	l.FloatArray = make([]float32, ArrLen)
	for i := range l.FloatArray {
		l.FloatArray[i] = r.Float()
	}
	l.DoubleField = r.Double()
	l.DoubleArray = make([]float64, ArrLen)
	for i := range l.DoubleArray {
		l.DoubleArray[i] = r.Double()
	}
	l.StringField = RandString(r, StrLen)
	l.StringArray = make([]string, ArrLen)
	for i := range l.StringArray {
		l.StringArray[i] = RandString(r, StrLen)
	}
	l.Small = NewSmall(r)
	l.SmallArray = make([]Small, ArrLen)
	for i := range l.SmallArray {
		l.SmallArray[i] = NewSmall(r)
	}
	return l
}

// SmallForKey is the SMALL value stored under key k in the read/query maps.
func SmallForKey(k int32) Small {
	s := NewSmall(jrand.New(ValueSeedBase + int64(k)))
	if k%MetinEvery == 0 {
		s.StringField = Metin
	}
	return s
}

// LargeForKey is the LARGE value stored under key k in the read/query maps.
func LargeForKey(k int32) Large {
	l := NewLarge(jrand.New(ValueSeedBase + int64(k)))
	if k%MetinEvery == 0 {
		l.StringField = Metin
	}
	return l
}

// BytesForKey is the BYTE_ARRAY value of length n stored under key k.
func BytesForKey(k int32, n int) []byte {
	b := make([]byte, n)
	jrand.New(ValueSeedBase + int64(k)).Bytes(b)
	return b
}

// FixedSmall, FixedLarge and FixedBytes are the write benchmark's values.
func FixedSmall() Small { return NewSmall(jrand.New(FixedSeed)) }

// FixedLarge is the LARGE value every set of the write benchmark stores.
func FixedLarge() Large { return NewLarge(jrand.New(FixedSeed)) }

// FixedBytes is the BYTE_ARRAY value of length n every set stores.
func FixedBytes(n int) []byte {
	b := make([]byte, n)
	jrand.New(FixedSeed).Bytes(b)
	return b
}

// APayload is workload A's payload: payload[i] = k*31 + i in int32 arithmetic.
func APayload(k int32) []int32 {
	p := make([]int32, 20)
	for i := range p {
		p[i] = k*31 + int32(i)
	}
	return p
}

// AJSON is workload A's JSON document for key k, byte for byte.
func AJSON(k int32) string {
	var b strings.Builder
	b.Grow(200)
	b.WriteString(`{"value":`)
	b.WriteString(strconv.FormatInt(int64(k), 10))
	b.WriteString(`,"payload":[`)
	for i, v := range APayload(k) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(v), 10))
	}
	b.WriteString("]}")
	return b.String()
}
