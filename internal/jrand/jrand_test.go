package jrand

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected values printed by OpenJDK 17's java.util.Random.
func TestMatchesJava(t *testing.T) {
	r := New(42)
	assert.Equal(t, int32(-1170105035), r.Int(), "new Random(42).nextInt()")
	assert.Equal(t, int32(63), r.IntN(100), "second nextInt(100)")
	assert.Equal(t, int64(-5025562857975149833), New(42).Long(), "new Random(42).nextLong()")
	assert.Equal(t, 0.7275636800328681, New(42).Double(), "new Random(42).nextDouble()")
	assert.Equal(t, float32(0.7275637), New(42).Float(), "new Random(42).nextFloat()")
	assert.True(t, New(42).Bool(), "new Random(42).nextBoolean()")
	b := make([]byte, 5)
	New(42).Bytes(b)
	assert.Equal(t, []byte{0x35, 0x9d, 0x41, 0xba, 0xf7}, b, "nextBytes(5)")
}

func TestIntNNonPowerOfTwoRejection(t *testing.T) {
	// Every value must stay in range for awkward bounds.
	r := New(7)
	for i := 0; i < 100000; i++ {
		v := r.IntN(1<<30 + 1)
		require.True(t, v >= 0 && v <= 1<<30, "IntN out of range: %d", v)
	}
}
