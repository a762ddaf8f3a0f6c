package jrand

import "testing"

// Expected values printed by OpenJDK 17's java.util.Random.
func TestMatchesJava(t *testing.T) {
	r := New(42)
	if got := r.Int(); got != -1170105035 {
		t.Fatalf("new Random(42).nextInt() = %d, want -1170105035", got)
	}
	if got := r.IntN(100); got != 63 {
		t.Fatalf("second nextInt(100) = %d, want 63", got)
	}
	if got := New(42).Long(); got != -5025562857975149833 {
		t.Fatalf("new Random(42).nextLong() = %d, want -5025562857975149833", got)
	}
	if got := New(42).Double(); got != 0.7275636800328681 {
		t.Fatalf("new Random(42).nextDouble() = %v, want 0.7275636800328681", got)
	}
	if got := New(42).Float(); got != 0.7275637 {
		t.Fatalf("new Random(42).nextFloat() = %v, want 0.7275637", got)
	}
	if got := New(42).Bool(); got != true {
		t.Fatalf("new Random(42).nextBoolean() = %v, want true", got)
	}
	b := make([]byte, 5)
	New(42).Bytes(b)
	if want := []byte{0x35, 0x9d, 0x41, 0xba, 0xf7}; string(b) != string(want) {
		t.Fatalf("nextBytes(5) = %x, want %x", b, want)
	}
}

func TestIntNNonPowerOfTwoRejection(t *testing.T) {
	// Every value must stay in range for awkward bounds.
	r := New(7)
	for i := 0; i < 100000; i++ {
		if v := r.IntN(1<<30 + 1); v < 0 || v > 1<<30 {
			t.Fatalf("IntN out of range: %d", v)
		}
	}
}
