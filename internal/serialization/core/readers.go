package core

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// What the formats' readers share to decode an object with few allocations
// and few lookups.

// Arena hands out the strings and the arrays of numbers of decoded
// objects from shared blocks: each string's bytes and each array's items
// are copied once into the arena's current block. A decoder sizes the
// blocks to the object it decodes (Size), so that the strings of an object
// cost one allocation and keep no more than about the object's size alive,
// or, decoding a page of query results, lets them grow up to a page (Max),
// which the page's objects share. Arrays are cut with their capacity at
// their length: an append to one reallocates instead of writing over its
// neighbour. The zero value allocates a block per string and per array.
type Arena struct {
	strs []byte
	nums []uint64 // 8-byte aligned, holding no pointers
	// Size is the size in bytes of a new block; when Max is larger, the
	// next is twice the size of the last, up to Max.
	Size, Max int
}

// block returns the size of a new block of at least n bytes.
func (a *Arena) block(n int) int {
	size := max(n, a.Size)
	if a.Max > a.Size {
		a.Size = min(2*size, a.Max)
	}
	return size
}

// String returns b as a string.
func (a *Arena) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if a == nil {
		return string(b)
	}
	if cap(a.strs)-len(a.strs) < len(b) {
		a.strs = make([]byte, 0, a.block(len(b)))
	}
	start := len(a.strs)
	a.strs = append(a.strs, b...)
	return unsafe.String(&a.strs[start], len(b))
}

// Numbers returns a zeroed slice of n numbers from a's current block (a
// new slice when a is nil or n is 0).
func Numbers[T wire.Number](a *Arena, n int) []T { return cut[T](a, n) }

// Int8s returns a zeroed slice of n int8s, as Numbers does.
func Int8s(a *Arena, n int) []int8 { return cut[int8](a, n) }

// Bytes returns a zeroed slice of n bytes, as Numbers does.
func Bytes(a *Arena, n int) []byte { return cut[byte](a, n) }

// Bools returns a slice of n false bools, as Numbers does.
func Bools(a *Arena, n int) []bool { return cut[bool](a, n) }

// cut returns a zeroed slice of n Ts from a's current block of numbers; T
// holds no pointers. Its capacity is n, so an append copies it out.
func cut[T byte | int8 | bool | wire.Number](a *Arena, n int) []T {
	if a == nil || n == 0 {
		return make([]T, n)
	}
	var zero T
	words := (n*int(unsafe.Sizeof(zero)) + 7) / 8
	if cap(a.nums)-len(a.nums) < words {
		a.nums = make([]uint64, 0, a.block(8*words)/8)
	}
	start := len(a.nums)
	a.nums = a.nums[:start+words]
	return unsafe.Slice((*T)(unsafe.Pointer(&a.nums[start])), n)
}

// ReadOrder is the fields of a schema or class in the order a serializer
// read them: indexes into its field list, and their names.
type ReadOrder struct {
	Names []string
	Index []int32
}

// ReadHint follows one object's reads through its type's learned read
// order: a serializer reads the same fields in the same order every time,
// so the field it reads next is found by comparing its name with the
// order's (the same string constant, which compares by pointer first)
// instead of hashing it. The first read of a type learns the order and
// publishes it (Finish).
type ReadHint struct {
	order    *ReadOrder // the published order; nil while learning
	pos      int
	learning *ReadOrder // the order being learned (nil: not learning)
	off      bool       // a read left the order: names are looked up
}

// Start prepares h for the read of an object whose type's order is in
// published.
func (h *ReadHint) Start(published *atomic.Pointer[ReadOrder]) {
	*h = ReadHint{learning: h.learning}
	if h.order = published.Load(); h.order != nil {
		h.learning = nil
		return
	}
	if h.learning == nil {
		h.learning = &ReadOrder{}
	}
	h.learning.Names, h.learning.Index = h.learning.Names[:0], h.learning.Index[:0]
}

// Next returns the index of field name when it is the next of the order
// (never for a nil hint).
func (h *ReadHint) Next(name string) (int32, bool) {
	if h == nil {
		return 0, false
	}
	o := h.order
	if o == nil || h.off {
		return 0, false
	}
	if h.pos < len(o.Names) && o.Names[h.pos] == name {
		i := o.Index[h.pos]
		h.pos++
		return i, true
	}
	h.off = true // another order than the learned one: look names up
	return 0, false
}

// Learn notes that field i, name, was found by its name (a nil hint
// learns nothing).
func (h *ReadHint) Learn(name string, i int32) {
	if h == nil {
		return
	}
	if l := h.learning; l != nil {
		l.Names = append(l.Names, name)
		l.Index = append(l.Index, i)
	}
}

// Finish publishes the order h learned, once the read succeeded.
func (h *ReadHint) Finish(published *atomic.Pointer[ReadOrder]) {
	if l := h.learning; l != nil && h.order == nil && len(l.Names) > 0 {
		published.CompareAndSwap(nil, &ReadOrder{Names: slices.Clone(l.Names), Index: slices.Clone(l.Index)})
	}
}
