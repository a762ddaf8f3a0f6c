package store

// The slab: records are appended to chunks, plain []byte allocations with
// no pointers in them (nothing for the garbage collector to scan).
//
// A record reference is a uint32: chunk id (1-based) << offBits | offset in
// the chunk, counted in units of 1<<chunk.shift bytes. Reference 0 is never
// valid, so an index slot of 0 is empty. Records live in one of three
// places, by size:
//
//   - tier 0, records up to midRecord (2 KiB): byte offsets, chunks up to
//     32 KiB (Go's largest size class), grown by 1/8;
//   - tier 1, records up to hugeRecord (64 KiB): 16-byte units (so up to
//     15 bytes of padding per record), chunks up to 1 MiB, grown by 1/16,
//     so that a record is a small part of its chunk and the losses at the
//     end of sealed chunks and in the last open chunk stay near 1-2%. The
//     price is copying: while its open chunk grows, a record's bytes are
//     copied about 16 times on average (about 1.3 ns per byte here);
//   - bigger records: an allocation of their own (Go rounds it up to whole
//     8 KiB pages: 4 KiB lost on average, 6% at 64 KiB, 1% at 300 KiB),
//     which bounds the copying any single write can cause.
//
// Each tier has one open chunk receiving appends. It grows by reallocation
// in small steps (references stay valid: they hold chunk ids and
// offsets, not addresses), so the last, partly filled chunk of a partition
// wastes little; where it is sealed is chosen to lose little at its end (see
// growTarget).
const (
	offBits    = 16
	offMask    = 1<<offBits - 1
	maxChunkID = 1<<(32-offBits) - 1 // 65 535 chunks per partition

	midRecord  = 2 << 10  // largest tier-0 record
	hugeRecord = 64 << 10 // largest tier-1 record
	bigShift   = 4        // tier-1 offset unit: 16 bytes
	minChunk   = 128      // first allocation of a tier-0 open chunk
	fitMin     = 16 << 10 // open chunks from this size on choose where to be sealed
)

// tierMax is the largest chunk of each tier.
var tierMax = [2]int{32 << 10, offMask << bigShift}

// growDiv: an open chunk grows by 1/growDiv of its capacity at a time, so
// its slack averages 1/(2*growDiv) and each byte written is copied about
// growDiv times while it fills. Tier 1 uses smaller steps: its chunks are
// large, and the last one's slack is what its records lose most.
var growDiv = [2]int{8, 16}

// fitSizes are Go's allocation sizes from fitMin to 32 KiB (a test checks
// them against the allocator); beyond 32 KiB every multiple of 8 KiB is one.
var fitSizes = [...]int{16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

const pageSize = 8 << 10

// chunk is one slab chunk: records back to back in data[:len] (each padded
// to the chunk's unit); cap(data) is its memory. dead counts the bytes of
// dead records, padding included.
type chunk struct {
	data  []byte
	dead  uint32
	shift uint8
}

func alignUp(n int, shift uint8) int {
	u := 1<<shift - 1
	return (n + u) &^ u
}

func tierOf(size int) int {
	if size > midRecord {
		return 1
	}
	return 0
}

// at returns the chunk data holding ref and the record's byte offset.
func (p *partition) at(ref uint32) ([]byte, int) {
	c := &p.chunks[ref>>offBits-1]
	return c.data, int(ref&offMask) << c.shift
}

func (p *partition) recOf(ref uint32) ([]byte, rec) {
	b, off := p.at(ref)
	return b, decodeRec(b, off, p.m.stats)
}

// space returns the size bytes reserved at ref by alloc.
func (p *partition) space(ref uint32, size int) []byte {
	b, off := p.at(ref)
	return b[off : off+size]
}

func (p *partition) newChunk(size int, shift uint8) (uint32, bool) {
	var id uint32
	if n := len(p.free); n > 0 {
		id = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		if len(p.chunks) >= maxChunkID {
			return 0, false
		}
		p.chunks = append(p.chunks, chunk{})
		id = uint32(len(p.chunks))
	}
	d := allocBytes(size)[:0]
	p.chunks[id-1] = chunk{data: d, shift: shift}
	p.chunkBytes += int64(cap(d))
	return id, true
}

// alloc reserves size bytes for a record and returns its reference. ok is
// false only when the partition has no chunk id left.
func (p *partition) alloc(size int) (ref uint32, ok bool) {
	if size > hugeRecord {
		id, ok := p.newChunk(size, 0)
		if !ok {
			return 0, false
		}
		p.take(&p.chunks[id-1], size)
		return id << offBits, true
	}
	t := tierOf(size)
	shift := uint8(t * bigShift)
	fp := alignUp(size, shift)
	if id := p.tails[t]; id != 0 {
		c := &p.chunks[id-1]
		off := len(c.data)
		if off+fp <= cap(c.data) {
			p.take(c, fp)
			return id<<offBits | uint32(off>>shift), true
		}
		if n := growTarget(t, cap(c.data), off, fp); n > 0 {
			d := allocBytes(n)
			copy(d, c.data)
			p.chunkBytes += int64(cap(d) - cap(c.data))
			c.data = d[:off]
			p.take(c, fp)
			return id<<offBits | uint32(off>>shift), true
		}
		p.seal(t)
	}
	id, ok := p.newChunk(max(fp, minChunk), shift)
	if !ok {
		return 0, false
	}
	p.tails[t] = id
	p.take(&p.chunks[id-1], fp)
	return id << offBits, true
}

func (p *partition) take(c *chunk, n int) {
	c.data = c.data[:len(c.data)+n]
	p.used += int64(n)
}

// growTarget decides what to do when a record with footprint fp does not
// fit in the open chunk of tier t (capacity c, off bytes used): it returns
// the capacity to grow to, or 0 to seal the chunk and open a new one.
//
// Whatever is left at the end of a chunk when it is sealed is lost; for
// uniform records of R bytes that averages R/2 per chunk (474 bytes for
// 482-byte records at 32 KiB). So from fitMin on, the chunk picks where to
// be sealed: now, or at one of the larger allocation sizes of its tier, each
// scored by the fraction it would leave over if the following records have
// this one's size. The smallest fraction wins (ties: the smallest size), and
// the chunk still grows towards it by small steps.
func growTarget(t, c, off, fp int) int {
	need := off + fp
	limit := tierMax[t]
	if need > limit {
		return 0
	}
	if c >= fitMin {
		best, bestLoss := c, c-off // seal now
		consider := func(x int) {
			if x > c && x >= need && x <= limit {
				if loss := (x - need) % fp; loss*best < bestLoss*x {
					best, bestLoss = x, loss
				}
			}
		}
		for _, x := range fitSizes {
			consider(x)
		}
		for x := fitSizes[len(fitSizes)-1] + pageSize; x <= limit; x += pageSize {
			consider(x)
		}
		if best == c {
			return 0
		}
		limit = best
	}
	return min(max(need, c+c/growDiv[t]), limit)
}

// seal closes the open chunk of tier t; new records go to a new one.
func (p *partition) seal(t int) {
	id := p.tails[t]
	p.tails[t] = 0
	if c := &p.chunks[id-1]; int(c.dead) == len(c.data) {
		p.release(id)
	}
}

func (p *partition) isTail(id uint32) bool { return id == p.tails[0] || id == p.tails[1] }

// markDead turns the record at ref (size bytes) into garbage without
// freeing anything.
func (p *partition) markDead(ref uint32, size int) *chunk {
	c := &p.chunks[ref>>offBits-1]
	off := int(ref&offMask) << c.shift
	c.data[off+offFlags] |= flagDead
	fp := alignUp(size, c.shift)
	c.dead += uint32(fp)
	p.garbage += int64(fp)
	return c
}

// kill turns the record at ref into garbage; a chunk left without live
// records is freed at once (an open chunk is emptied and kept).
func (p *partition) kill(ref uint32, size int) {
	c := p.markDead(ref, size)
	if int(c.dead) != len(c.data) {
		return
	}
	if id := ref >> offBits; !p.isTail(id) {
		p.release(id)
		return
	}
	p.used -= int64(len(c.data))
	p.garbage -= int64(c.dead)
	c.data = c.data[:0]
	c.dead = 0
}

func (p *partition) release(id uint32) {
	c := &p.chunks[id-1]
	p.chunkBytes -= int64(cap(c.data))
	p.used -= int64(len(c.data))
	p.garbage -= int64(c.dead)
	*c = chunk{}
	p.free = append(p.free, id)
}

// needCompact: garbage is over a quarter of the slab's used bytes (and over
// compactMin).
func (p *partition) needCompact() bool {
	return p.garbage > compactMin && p.garbage*4 > p.used
}

// compact evacuates the chunks with the largest share of garbage, copying
// their live records to the open chunks, until garbage is at most an eighth
// of the used bytes. Index positions do not change; only references do. A
// record is copied at most a few times per byte of garbage reclaimed: a
// victim has at least 1/8 garbage.
func (p *partition) compact() {
	for p.garbage > compactMin/2 && p.garbage*8 > p.used {
		var victim uint32
		var vDead, vLen int64 = 0, 1
		for i := range p.chunks {
			c := &p.chunks[i]
			if d := int64(c.dead); d > 0 && d*vLen > vDead*int64(len(c.data)) {
				victim, vDead, vLen = uint32(i+1), d, int64(len(c.data))
			}
		}
		if victim == 0 || !p.evacuate(victim) {
			return
		}
	}
}

// evacuate moves the live records of chunk id elsewhere and frees it.
func (p *partition) evacuate(id uint32) bool {
	for t := range p.tails {
		if p.tails[t] == id {
			p.tails[t] = 0
		}
	}
	c := p.chunks[id-1] // a copy: data stays valid, id is not reused before release
	for off := 0; off < len(c.data); {
		r := decodeRec(c.data, off, p.m.stats)
		size := r.size()
		if r.flags&flagDead == 0 {
			key := r.key(c.data)
			h := p.m.hash(key)
			pos := p.find(h, key)
			ref, ok := p.alloc(size)
			if !ok {
				return false
			}
			copy(p.space(ref, size), c.data[off:off+size])
			p.slots[pos] = uint64(h)<<32 | uint64(ref)
			p.markDead(id<<offBits|uint32(off>>c.shift), size)
		}
		off += alignUp(size, c.shift)
	}
	p.release(id)
	p.evacuated++
	return true
}
