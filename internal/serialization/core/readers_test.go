package core

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

func TestArenaNumbersShareBlocksWithoutOverlap(t *testing.T) {
	a := &Arena{Size: 64}
	i16 := Numbers[int16](a, 3) // 6 bytes: one word
	i64 := Numbers[int64](a, 2)
	f32 := Numbers[float32](a, 1)
	for _, s := range [][]byte{
		unsafe.Slice((*byte)(unsafe.Pointer(&i16[0])), 6),
		unsafe.Slice((*byte)(unsafe.Pointer(&i64[0])), 16),
		unsafe.Slice((*byte)(unsafe.Pointer(&f32[0])), 4),
	} {
		for _, b := range s {
			require.Zero(t, b, "a new slice is zeroed")
		}
	}
	assert.Zero(t, uintptr(unsafe.Pointer(&i64[0]))%8, "int64s are aligned")
	assert.Equal(t, uintptr(unsafe.Pointer(&i16[0]))+8, uintptr(unsafe.Pointer(&i64[0])), "the block is shared")

	i16[0], i16[1], i16[2] = -1, -1, -1
	i64[0], i64[1] = 7, 8
	f32[0] = 1.5
	assert.Equal(t, []int16{-1, -1, -1}, i16)
	assert.Equal(t, []int64{7, 8}, i64)
	assert.Equal(t, []float32{1.5}, f32)

	// An append reallocates instead of writing over the next slice.
	assert.Equal(t, len(i16), cap(i16))
	grown := append(i16, 9)
	grown[0] = 5
	assert.Equal(t, []int64{7, 8}, i64)
	assert.Equal(t, int16(-1), i16[0])
}

func TestArenaNumbersBeyondTheBlock(t *testing.T) {
	a := &Arena{Size: 16}
	small := Numbers[int32](a, 2)
	big := Numbers[int64](a, 5) // 40 bytes: a block of its own
	next := Numbers[int32](a, 1)
	big[4] = 3
	small[1] = 4
	next[0] = 5
	assert.Equal(t, []int64{0, 0, 0, 0, 3}, big)
	assert.Equal(t, []int32{0, 4}, small)
	assert.Equal(t, []int32{5}, next)
}

func TestArenaNilAndEmpty(t *testing.T) {
	var a *Arena
	assert.Equal(t, []int32{0, 0}, Numbers[int32](a, 2))
	assert.Equal(t, "ab", a.String([]byte("ab")))
	assert.NotNil(t, Numbers[int64](&Arena{Size: 8}, 0), "an empty array is not null")
	assert.Empty(t, Numbers[int64](&Arena{Size: 8}, 0))
}

func TestReadNumbersFromArena(t *testing.T) {
	buf := wire.AppendInt32(nil, 3)
	for _, v := range []int32{1, -2, 3} {
		buf = wire.AppendInt32(buf, v)
	}
	buf = wire.AppendInt32(buf, -1) // null
	buf = wire.AppendInt32(buf, 5)  // more items than bytes
	a := &Arena{Size: 1024}
	rd := wire.NewReader(buf, 0)
	assert.Equal(t, []int32{1, -2, 3}, ReadNumbers[int32](&rd, a))
	assert.Nil(t, ReadNumbers[int32](&rd, a))
	require.NoError(t, rd.Err())
	assert.Nil(t, ReadNumbers[int32](&rd, a))
	assert.Error(t, rd.Err())
}

func TestArenaBlocksGrowUpToMax(t *testing.T) {
	a := &Arena{Size: 16, Max: 64}
	var caps []int
	for range 5 {
		s := a.String(make([]byte, 16)) // fills a block of 16, then has room in the larger ones
		_ = s
		caps = append(caps, cap(a.strs))
	}
	assert.Equal(t, []int{16, 32, 32, 64, 64}, caps)
	big := a.String(make([]byte, 100))
	assert.Len(t, big, 100)
	assert.Equal(t, 100, cap(a.strs), "a string larger than Max has a block of its size")
	assert.Equal(t, 64, a.Size)
}
