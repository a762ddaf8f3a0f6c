package store

import (
	"bytes"
	"sync"
	"unsafe"
)

// Memory accounting constants.
const (
	compactMin = 1 << 10                     // garbage below this is never compacted
	chunkSize  = int(unsafe.Sizeof(chunk{})) // one chunk table entry
)

// partStructSize is what one partition struct really occupies on the heap.
var partStructSize = int64(roundUpAlloc(int(unsafe.Sizeof(partition{}))))

// roundUpAlloc returns the size of the heap block Go allocates for n bytes.
func roundUpAlloc(n int) int { return cap(allocBytes(n)) }

// allocBytes allocates a noscan byte slice whose capacity is the whole heap
// block (append rounds a growth up to the allocator's size class), so cap()
// is the true memory cost.
func allocBytes(n int) []byte { return append([]byte(nil), make([]byte, n)...) }

// allocSlots allocates an index of at least n slots, using the whole block.
func allocSlots(n int) []uint64 {
	s := append([]uint64(nil), make([]uint64, n)...)
	return s[:cap(s)]
}

// partition is one partition of one map. All fields are guarded by mu;
// the query engine's reads (ScanKV, PeekAll, CountExact) take it shared,
// so that concurrent queries scan a partition together.
type partition struct {
	mu   sync.RWMutex
	m    *Map
	id   int32
	role Role

	// Index: Robin Hood linear probing over uint64 slots, each
	// hash32<<32 | ref. Home slot of hash h is h*len/2^32 (fast range), so
	// slots are ordered by home; ties are ordered by hash, which makes the
	// table sorted by hash (cursors rely on it).
	slots []uint64
	count int

	// Slab.
	chunks     []chunk
	free       []uint32  // released chunk ids
	tails      [2]uint32 // open chunk of each tier receiving appends; 0 = none
	chunkBytes int64     // Σ cap(chunks[i].data)
	used       int64     // Σ len(chunks[i].data)
	garbage    int64     // Σ chunks[i].dead

	dirty     bool   // mutated since the last maintain
	expirable int    // records that can expire (own or default TTL/max-idle)
	rng       uint64 // eviction sampling
	sweepPos  int    // where the expiry sweep resumes

	// Accounting last published to the map totals.
	pubCount, pubCost, pubGarbage int64

	// Statistics.
	hits, evictions, expirations int64
	evacuated                    int64 // chunks emptied by compaction
	lastAccess, lastUpdate       int64 // Unix ms; 0 = never
}

func newPartition(m *Map, id int32) *partition {
	return &partition{m: m, id: id, rng: uint64(id)*0x9E3779B97F4A7C15 | 1}
}

// cost is the partition's memory: the struct, the index, the slab and its
// bookkeeping tables.
func (p *partition) cost() int64 {
	return partStructSize + int64(cap(p.slots))*8 + p.chunkBytes +
		int64(cap(p.chunks))*int64(chunkSize) + int64(cap(p.free))*4
}

// publish moves the change in entry count and memory cost since the last
// call into the map totals of the partition's role. Called at the end of
// every mutation, with mu held.
func (p *partition) publish() {
	n, c, g := int64(p.count), p.cost(), p.garbage
	if n == p.pubCount && c == p.pubCost && g == p.pubGarbage {
		return
	}
	t := p.m.totals(p.role)
	t.count.Add(n - p.pubCount)
	t.cost.Add(c - p.pubCost)
	t.garbage.Add(g - p.pubGarbage)
	p.pubCount, p.pubCost, p.pubGarbage = n, c, g
}

// unpublish withdraws the partition from its role's totals (before a role
// change); publish adds it back.
func (p *partition) unpublish() {
	t := p.m.totals(p.role)
	t.count.Add(-p.pubCount)
	t.cost.Add(-p.pubCost)
	t.garbage.Add(-p.pubGarbage)
	p.pubCount, p.pubCost, p.pubGarbage = 0, 0, 0
}

// reset drops every record and all memory but the struct.
func (p *partition) reset() {
	p.slots = nil
	p.count = 0
	p.chunks = nil
	p.free = nil
	p.tails = [2]uint32{}
	p.chunkBytes, p.used, p.garbage = 0, 0, 0
	p.expirable = 0
	p.sweepPos = 0
}

// ---- index ------------------------------------------------------------

func homeOf(h uint32, n int) int { return int(uint64(h) * uint64(n) >> 32) }

func (p *partition) keyEq(ref uint32, key []byte) bool {
	b, r := p.recOf(ref)
	return bytes.Equal(r.key(b), key)
}

// find returns the slot position of key, or -1.
func (p *partition) find(h uint32, key []byte) int {
	slots := p.slots
	n := len(slots)
	if n == 0 {
		return -1
	}
	pos := homeOf(h, n)
	for d := 0; ; d++ {
		s := slots[pos]
		if s == 0 {
			return -1
		}
		sh := uint32(s >> 32)
		if sh == h {
			if p.keyEq(uint32(s), key) {
				return pos
			}
		} else {
			sd := pos - homeOf(sh, n)
			if sd < 0 {
				sd += n
			}
			if sd < d || (sd == d && sh > h) {
				return -1
			}
		}
		if pos++; pos == n {
			pos = 0
		}
	}
}

// insertSlot places s (hash<<32|ref); the key must not be present and there
// must be a free slot.
func (p *partition) insertSlot(s uint64) {
	slots := p.slots
	n := len(slots)
	h := uint32(s >> 32)
	pos := homeOf(h, n)
	for d := 0; ; d++ {
		cur := slots[pos]
		if cur == 0 {
			slots[pos] = s
			return
		}
		ch := uint32(cur >> 32)
		cd := pos - homeOf(ch, n)
		if cd < 0 {
			cd += n
		}
		if cd < d || (cd == d && ch > h) {
			slots[pos] = s
			s, h, d = cur, ch, cd
		}
		if pos++; pos == n {
			pos = 0
		}
	}
}

// deleteSlot empties pos and shifts the following displaced slots back.
func (p *partition) deleteSlot(pos int) {
	slots := p.slots
	n := len(slots)
	for {
		next := pos + 1
		if next == n {
			next = 0
		}
		s := slots[next]
		if s == 0 || homeOf(uint32(s>>32), n) == next {
			slots[pos] = 0
			return
		}
		slots[pos] = s
		pos = next
	}
}

// Index load: grow when an insert would pass 7/8, to about 5/8 after growth
// (the allocator may round up); shrink below 1/4.
func (p *partition) growForInsert() {
	if (p.count+1)*8 <= len(p.slots)*7 {
		return
	}
	p.resize(max(8, (p.count+1)*8/5))
}

func (p *partition) shrinkIfSparse() {
	if n := len(p.slots); n > 16 && p.count*4 < n {
		if p.count == 0 {
			p.slots = nil
			return
		}
		p.resize(max(8, p.count*8/5))
	}
}

func (p *partition) resize(n int) {
	old := p.slots
	p.slots = allocSlots(n)
	for _, s := range old {
		if s != 0 {
			p.insertSlot(s)
		}
	}
}

// maintain runs after a mutation: shrinks a sparse index, compacts the slab
// when garbage is over its bound, and publishes the accounting.
func (p *partition) maintain() {
	p.shrinkIfSparse()
	if p.needCompact() {
		p.compact()
	}
	p.publish()
}

// nextRand is xorshift64* for eviction sampling.
func (p *partition) nextRand() uint64 {
	x := p.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	p.rng = x
	return x * 0x2545F4914F6CDD1D
}
