package store

import (
	"fmt"
	"testing"
)

// checkInvariants verifies every internal invariant of every partition:
// index order and reachability, slab bookkeeping, accounting totals.
func checkInvariants(t testing.TB, m *Map) {
	t.Helper()
	var owned, backup [2]int64 // count, cost
	m.parts.Load().each(0, func(p *partition) bool {
		p.mu.Lock()
		err := p.check()
		if p.role == RoleOwner {
			owned[0] += p.pubCount
			owned[1] += p.pubCost
		} else {
			backup[0] += p.pubCount
			backup[1] += p.pubCost
		}
		if err == nil && (p.pubCount != int64(p.count) || p.pubCost != p.cost()) {
			err = fmt.Errorf("unpublished accounting: count %d/%d cost %d/%d", p.pubCount, p.count, p.pubCost, p.cost())
		}
		p.mu.Unlock()
		if err != nil {
			t.Fatalf("partition %d: %v", p.id, err)
		}
		return true
	})
	if got := [2]int64{m.owned.count.Load(), m.owned.cost.Load()}; got != owned {
		t.Fatalf("owned totals %v, partitions sum to %v", got, owned)
	}
	if got := [2]int64{m.backup.count.Load(), m.backup.cost.Load()}; got != backup {
		t.Fatalf("backup totals %v, partitions sum to %v", got, backup)
	}
}

func (p *partition) check() error {
	n := len(p.slots)
	// Index: every slot points at a live record whose key hashes to the
	// slot's hash; Robin Hood order (home, hash) holds; count matches.
	refs := map[uint32]bool{}
	occupied := 0
	expirable := 0
	for pos, s := range p.slots {
		if s == 0 {
			continue
		}
		occupied++
		h, ref := uint32(s>>32), uint32(s)
		id := ref >> offBits
		if id == 0 || int(id) > len(p.chunks) || p.chunks[id-1].data == nil {
			return fmt.Errorf("slot %d: bad ref %#x", pos, ref)
		}
		b, r := p.recOf(ref)
		if r.flags&flagDead != 0 {
			return fmt.Errorf("slot %d: points at a dead record", pos)
		}
		if p.m.hash(r.key(b)) != h {
			return fmt.Errorf("slot %d: hash mismatch", pos)
		}
		if refs[ref] {
			return fmt.Errorf("slot %d: duplicate ref", pos)
		}
		refs[ref] = true
		if q := p.find(h, r.key(b)); q != pos {
			return fmt.Errorf("slot %d: find returns %d", pos, q)
		}
		if p.m.canExpire(b, &r) {
			expirable++
		}
		prev := pos - 1
		if prev < 0 {
			prev = n - 1
		}
		if ps := p.slots[prev]; ps != 0 && prev != pos {
			ph := uint32(ps >> 32)
			d := func(at int, hh uint32) int {
				x := at - homeOf(hh, n)
				if x < 0 {
					x += n
				}
				return x
			}
			dCur, dPrev := d(pos, h), d(prev, ph)
			if dCur > dPrev+1 {
				return fmt.Errorf("slot %d: robin hood order broken (dist %d after %d)", pos, dCur, dPrev)
			}
			if dCur == dPrev+1 && homeOf(ph, n) == homeOf(h, n) && ph > h {
				return fmt.Errorf("slot %d: hash order broken within home", pos)
			}
		} else if d := pos - homeOf(h, n); d != 0 {
			return fmt.Errorf("slot %d: displaced after an empty slot", pos)
		}
	}
	if occupied != p.count {
		return fmt.Errorf("count %d, occupied slots %d", p.count, occupied)
	}
	if expirable != p.expirable {
		return fmt.Errorf("expirable %d, counted %d", p.expirable, expirable)
	}
	// Slab: walk every chunk; live records are exactly the indexed ones.
	var chunkBytes, used, garbage int64
	live := 0
	freeSet := map[uint32]bool{}
	for _, id := range p.free {
		freeSet[id] = true
	}
	for i := range p.chunks {
		c := &p.chunks[i]
		id := uint32(i + 1)
		if c.data == nil {
			if !freeSet[id] {
				return fmt.Errorf("chunk %d: released but not free", id)
			}
			continue
		}
		if freeSet[id] {
			return fmt.Errorf("chunk %d: in use and free", id)
		}
		chunkBytes += int64(cap(c.data))
		used += int64(len(c.data))
		dead := 0
		for off := 0; off < len(c.data); {
			r := decodeRec(c.data, off, p.m.stats)
			if r.end() > len(c.data) {
				return fmt.Errorf("chunk %d: record at %d overruns", id, off)
			}
			ref := id<<offBits | uint32(off>>c.shift)
			if r.flags&flagDead != 0 {
				dead += alignUp(r.size(), c.shift)
				if refs[ref] {
					return fmt.Errorf("chunk %d: dead record at %d indexed", id, off)
				}
			} else {
				if !refs[ref] {
					return fmt.Errorf("chunk %d: live record at %d not indexed", id, off)
				}
				live++
			}
			off = alignUp(r.end(), c.shift)
		}
		if uint32(dead) != c.dead {
			return fmt.Errorf("chunk %d: dead %d, counted %d", id, c.dead, dead)
		}
		if dead == len(c.data) && len(c.data) > 0 && !p.isTail(id) {
			return fmt.Errorf("chunk %d: all dead but kept", id)
		}
		garbage += int64(dead)
	}
	if live != p.count {
		return fmt.Errorf("live records %d, count %d", live, p.count)
	}
	if chunkBytes != p.chunkBytes || used != p.used || garbage != p.garbage {
		return fmt.Errorf("slab totals: bytes %d/%d used %d/%d garbage %d/%d",
			chunkBytes, p.chunkBytes, used, p.used, garbage, p.garbage)
	}
	if p.needCompact() {
		return fmt.Errorf("garbage %d over bound (used %d)", p.garbage, p.used)
	}
	if n > 0 && p.count*8 > n*7 {
		return fmt.Errorf("index overfull: %d in %d", p.count, n)
	}
	return nil
}
