// Package jrand reproduces java.util.Random bit for bit, so that Go
// benchmarks generate exactly the data the Hazelcast runner (bench/hazelcast) does.
package jrand

const (
	multiplier = 0x5DEECE66D
	addend     = 0xB
	mask       = 1<<48 - 1
)

// Random is java.util.Random's 48-bit linear congruential generator. It is
// not safe for concurrent use.
type Random struct {
	seed int64
}

// New returns a generator seeded as new java.util.Random(seed).
func New(seed int64) *Random {
	return &Random{seed: (seed ^ multiplier) & mask}
}

func (r *Random) next(bits uint) int32 {
	r.seed = (r.seed*multiplier + addend) & mask
	return int32(uint64(r.seed) >> (48 - bits))
}

// Int returns the next int, as nextInt().
func (r *Random) Int() int32 { return r.next(32) }

// IntN returns an int in [0, bound), as nextInt(bound). bound must be positive.
func (r *Random) IntN(bound int32) int32 {
	v := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(v)) >> 31)
	}
	for u := v; ; u = r.next(31) {
		v = u % bound
		if u-v+m >= 0 { // int32 overflow is the rejection test, as in Java
			return v
		}
	}
}

// Long returns the next long, as nextLong().
func (r *Random) Long() int64 { return int64(r.next(32))<<32 + int64(r.next(32)) }

// Bool returns the next boolean, as nextBoolean().
func (r *Random) Bool() bool { return r.next(1) != 0 }

// Float returns a float in [0, 1), as nextFloat().
func (r *Random) Float() float32 { return float32(r.next(24)) / float32(1<<24) }

// Double returns a double in [0, 1), as nextDouble().
func (r *Random) Double() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}

// Bytes fills b, as nextBytes(b).
func (r *Random) Bytes(b []byte) {
	for i := 0; i < len(b); {
		rnd := r.Int()
		for n := min(len(b)-i, 4); n > 0; n-- {
			b[i] = byte(rnd)
			rnd >>= 8
			i++
		}
	}
}
