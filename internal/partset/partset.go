// Package partset is the protocol's set of partitions: a bitset, in which
// partition p is bit p%8 of byte p/8. A client names with it the
// partitions of a member a query runs over; the member reads it back.
package partset

import (
	"fmt"
	"math/bits"
)

// Append appends to dst a set of partitions in its wire form, a
// bitset: partition p is bit p%8 of byte p/8. The set is as long as its
// highest partition needs; parts must not be negative.
func Append(dst []byte, parts []int32) []byte {
	start := len(dst)
	for _, p := range parts {
		for i := start + int(p)/8; len(dst) <= i; {
			dst = append(dst, 0)
		}
		dst[start+int(p)/8] |= 1 << (p % 8)
	}
	return dst
}

// Parse returns the partitions a set in its wire form (Append)
// names, in ascending order. It fails when the set names none, or a
// partition at or above count.
func Parse(set []byte, count int) ([]int32, error) {
	n := 0
	for i, b := range set {
		if b == 0 {
			continue
		}
		if hi := i*8 + 7 - bits.LeadingZeros8(b); hi >= count {
			return nil, fmt.Errorf("partition %d is not one of the cluster's 0..%d", hi, count-1)
		}
		n += bits.OnesCount8(b)
	}
	if n == 0 {
		return nil, fmt.Errorf("the set of partitions names none")
	}
	parts := make([]int32, 0, n)
	for i, b := range set {
		for ; b != 0; b &= b - 1 {
			parts = append(parts, int32(i*8+bits.TrailingZeros8(b)))
		}
	}
	return parts, nil
}
