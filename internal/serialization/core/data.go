package core

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// Serializer type ids, as Hazelcast's SerializationConstants defines them.
const (
	TypeNull              int32 = 0
	TypePortable          int32 = -1
	TypeIdentified        int32 = -2 // DataSerializable with the identified header bit
	TypeByte              int32 = -3
	TypeBool              int32 = -4
	TypeChar              int32 = -5
	TypeInt16             int32 = -6
	TypeInt32             int32 = -7
	TypeInt64             int32 = -8
	TypeFloat32           int32 = -9
	TypeFloat64           int32 = -10
	TypeString            int32 = -11
	TypeByteArray         int32 = -12
	TypeBoolArray         int32 = -13
	TypeCharArray         int32 = -14
	TypeInt16Array        int32 = -15
	TypeInt32Array        int32 = -16
	TypeInt64Array        int32 = -17
	TypeFloat32Array      int32 = -18
	TypeFloat64Array      int32 = -19
	TypeStringArray       int32 = -20
	TypeUUID              int32 = -21
	TypeCompact           int32 = -55
	TypeCompactWithSchema int32 = -56
	TypeJSON              int32 = -130
)

// HeaderSize is the size of the Data header: partition hash and type id.
const HeaderSize = 8

// DefaultPartitionCount is Hazelcast's default number of partitions.
const DefaultPartitionCount = 271

// Data is one serialized value: a big-endian partition hash word, a
// big-endian serializer type id, and the payload. A Data is either empty
// (null) or at least HeaderSize bytes long.
type Data []byte

// Check reports whether d has a valid envelope: empty, or at least a full header.
func (d Data) Check() error {
	if len(d) != 0 && len(d) < HeaderSize {
		return Malformed("data", 0, "shorter than the 8-byte header")
	}
	return nil
}

// Type returns the serializer type id, or TypeNull for an empty or short Data.
func (d Data) Type() int32 {
	if len(d) < HeaderSize {
		return TypeNull
	}
	return int32(binary.BigEndian.Uint32(d[4:8]))
}

// Int32 returns the value of an Integer Data (type id -7, a 4-byte
// payload); ok is false for any other Data. Unlike ToObject it does not box
// the value.
func (d Data) Int32() (v int32, ok bool) {
	if d.Type() != TypeInt32 || len(d) != HeaderSize+4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(d[HeaderSize:])), true
}

// Int64 returns the value of a Long Data (type id -8, an 8-byte payload);
// ok is false for any other Data.
func (d Data) Int64() (v int64, ok bool) {
	if d.Type() != TypeInt64 || len(d) != HeaderSize+8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(d[HeaderSize:])), true
}

// Payload returns the bytes after the header.
func (d Data) Payload() []byte {
	if len(d) < HeaderSize {
		return nil
	}
	return d[HeaderSize:]
}

// PartitionHash returns the hash Hazelcast partitions d by: the header word
// when a partition key set it, otherwise MurmurHash3 of the payload.
func (d Data) PartitionHash() int32 {
	if len(d) < HeaderSize {
		return 0
	}
	if h := int32(binary.BigEndian.Uint32(d[0:4])); h != 0 {
		return h
	}
	return PayloadHash(d[HeaderSize:])
}

// PartitionID returns the partition of d among count partitions.
func (d Data) PartitionID(count int32) int32 { return PartitionID(d.PartitionHash(), count) }

// PartitionID maps a partition hash to a partition id in [0, count) the way
// Hazelcast does: Java's int abs (MinInt32 stays negative, so it maps to 0),
// then modulo count.
func PartitionID(hash int32, count int32) int32 {
	if count <= 0 {
		return 0
	}
	if hash == -1<<31 {
		return 0
	}
	if hash < 0 {
		hash = -hash
	}
	return hash % count
}

// murmurSeed is the seed Hazelcast uses for partition hashing.
const murmurSeed = 0x01000193

// PayloadHash returns MurmurHash3 x86_32 of b with Hazelcast's seed, as a
// signed int: the partition hash of a Data whose header word is zero.
func PayloadHash(b []byte) int32 {
	h := uint32(murmurSeed)
	n := len(b)
	i := 0
	for ; i+4 <= n; i += 4 {
		h = murmurBlock(h, binary.LittleEndian.Uint32(b[i:]))
	}
	var k uint32
	switch n - i {
	case 3:
		k ^= uint32(b[i+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(b[i+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(b[i])
		h ^= murmurScramble(k)
	}
	return murmurFinish(h, n)
}

// LongPayloadHash is PayloadHash of a Long's payload, v's eight bytes
// big-endian, without writing them out.
func LongPayloadHash(v int64) int32 {
	h := murmurBlock(murmurSeed, bits.ReverseBytes32(uint32(uint64(v)>>32)))
	return murmurFinish(murmurBlock(h, bits.ReverseBytes32(uint32(v))), 8)
}

// IntPayloadHash is PayloadHash of an Integer's payload, v's four bytes
// big-endian, without writing them out.
func IntPayloadHash(v int32) int32 {
	return murmurFinish(murmurBlock(murmurSeed, bits.ReverseBytes32(uint32(v))), 4)
}

func murmurScramble(k uint32) uint32 {
	k *= 0xcc9e2d51
	k = bits.RotateLeft32(k, 15)
	return k * 0x1b873593
}

func murmurBlock(h, k uint32) uint32 {
	h ^= murmurScramble(k)
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

func murmurFinish(h uint32, n int) int32 {
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// Text returns the text of a String (type id -11) or JSON (-130) Data
// without copying it: its UTF-8 bytes, ok=false for a null string. Other
// type ids are an error, as is a length that does not fit the Data.
func (d Data) Text() (text []byte, ok bool, err error) {
	if typ := d.Type(); typ != TypeString && typ != TypeJSON {
		return nil, false, &DecodeError{Format: "builtin", Offset: 4, Reason: "type id " + strconv.Itoa(int(typ)) + " is not a string or JSON"}
	}
	return StringPayload(d[HeaderSize:], HeaderSize)
}

// IdentifiedHeader is the header byte of IdentifiedDataSerializable data:
// bit 0 set = identified, bit 1 clear = not versioned.
const IdentifiedHeader = 0x01
