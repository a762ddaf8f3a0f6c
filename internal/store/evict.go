package store

// overLimit reports whether the owned entries are over the eviction limits.
// MaxBytes is compared with the owned memory cost minus garbage awaiting
// compaction: evicting an entry lowers that at once, whereas the memory
// itself is returned when its chunk is compacted (garbage stays within a
// quarter of the slab, see compaction).
func (m *Map) overLimit() bool {
	e := &m.cfg.Eviction
	if e.MaxEntries > 0 && m.owned.count.Load() > e.MaxEntries {
		return true
	}
	return e.MaxBytes > 0 && m.owned.cost.Load()-m.owned.garbage.Load() > e.MaxBytes
}

// evictFor evicts entries of p (never the key just written) while the map
// is over its limits. Expired entries met in the sample go first, as
// EXPIRED.
func (m *Map) evictFor(p *partition, obs Observer, keepHash uint32, keepKey []byte, now instant) {
	p.publish()
	for m.overLimit() && p.count > 1 {
		pos, expired := p.sample(keepHash, keepKey, now)
		if pos < 0 {
			return
		}
		if expired {
			p.removeAt(obs, pos, EventExpired)
			p.expirations++
		} else {
			p.removeAt(obs, pos, EventEvicted)
			p.evictions++
		}
		p.maintain()
	}
}

// sample looks at up to SampleSize entries from a random slot on and
// returns the eviction victim's slot (-1 if none), and whether it is
// expired.
func (p *partition) sample(keepHash uint32, keepKey []byte, now instant) (int, bool) {
	n := len(p.slots)
	if n == 0 {
		return -1, false
	}
	lfu := p.m.cfg.Eviction.Policy == EvictionLFU
	want := p.m.cfg.Eviction.SampleSize
	pos := int(p.nextRand() % uint64(n))
	best := -1
	var bestAccess, bestHits uint32
	for i, seen := 0, 0; i < n && seen < want; i++ {
		if s := p.slots[pos]; s != 0 {
			b, r := p.recOf(uint32(s))
			if uint32(s>>32) != keepHash || string(r.key(b)) != string(keepKey) {
				seen++
				if p.m.expired(b, &r, now.ms) {
					return pos, true
				}
				a, h := r.u32(b, offAccessed), r.u32(b, offHits)
				if best < 0 ||
					(!lfu && a < bestAccess) ||
					(lfu && (h < bestHits || h == bestHits && a < bestAccess)) {
					best, bestAccess, bestHits = pos, a, h
				}
			}
		}
		if pos++; pos == n {
			pos = 0
		}
	}
	return best, false
}
