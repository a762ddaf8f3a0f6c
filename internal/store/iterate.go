package store

// Iterate calls fn for the entries of a partition in key-hash order,
// starting at cursor (0 for the beginning), and returns the cursor to pass
// next time (CursorDone when the partition is exhausted). It stops after
// limit entries (limit <= 0: no limit) or once fn returns false — but a page
// always ends on a hash boundary, so fn may be called for the few further
// entries whose 32-bit key hash equals the last one's (almost never more
// than zero). fn receives views valid only during the call and runs with
// the partition locked: it must not call into the Map.
//
// Guarantee: across a sequence of calls, an entry present for the whole
// iteration is delivered exactly once, whatever writes, removes, index
// resizes and compactions happen between the calls; entries added or
// removed meanwhile may or may not be delivered. Expired entries are
// skipped. Iteration does not count as access.
func (m *Map) Iterate(pid int32, cursor Cursor, limit int, fn func(EntryView) bool) (Cursor, error) {
	if err := m.checkPartition("iterate", pid); err != nil {
		return CursorDone, err
	}
	p := m.partition(pid)
	if p == nil || cursor >= CursorDone {
		return CursorDone, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return Cursor(p.iterate(uint64(cursor), limit, m.now(), fn)), nil
}

// Scan calls fn with a view of every entry of a partition until fn returns
// false: the zero-copy full scan of the query engine, in memory order (the
// cheapest; use Iterate for an order that survives pauses). Views (key,
// value, metadata) are valid only during the call; fn runs with the
// partition locked and must not call into the Map. Expired entries are
// skipped. Scanning does not count as access.
func (m *Map) Scan(pid int32, fn func(EntryView) bool) error {
	if err := m.checkPartition("scan", pid); err != nil {
		return err
	}
	p := m.partition(pid)
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.scan(m.now(), fn)
	return nil
}

// scan walks the slab chunks in memory order (no index reads; sequential
// access the hardware prefetches), skipping dead and expired records.
func (p *partition) scan(now instant, fn func(EntryView) bool) {
	for i := range p.chunks {
		c := &p.chunks[i]
		data, shift := c.data, c.shift
		for off := 0; off < len(data); {
			r := decodeRec(data, off, p.m.stats)
			off = alignUp(r.end(), shift)
			if r.flags&flagDead != 0 || p.m.expired(data, &r, now.ms) {
				continue
			}
			if !fn(p.m.view(data, &r)) {
				return
			}
		}
	}
}

// iterate walks the slots in hash order from hash >= from. The table is
// sorted by hash except that the slots at its start may hold entries that
// wrapped around from the end (home > position): pass 1 walks
// home(from)..n-1 skipping those, pass 2 walks the wrapped prefix.
func (p *partition) iterate(from uint64, limit int, now instant, fn func(EntryView) bool) uint64 {
	const done = uint64(CursorDone)
	n := len(p.slots)
	if n == 0 {
		return done
	}
	delivered, stopped := 0, false
	var last uint32
	// visit returns true when the walk must end.
	visit := func(s uint64) (end bool) {
		sh := uint32(s >> 32)
		if uint64(sh) < from {
			return false
		}
		if stopped && sh != last {
			return true
		}
		b, r := p.recOf(uint32(s))
		if p.m.expired(b, &r, now.ms) {
			return false
		}
		more := fn(p.m.view(b, &r))
		delivered++
		last = sh
		if !more || (limit > 0 && delivered >= limit) {
			stopped = true
		}
		return false
	}
	for pos := homeOf(uint32(from), n); pos < n; pos++ {
		s := p.slots[pos]
		if s == 0 || homeOf(uint32(s>>32), n) > pos {
			continue
		}
		if visit(s) {
			return uint64(last) + 1
		}
	}
	for pos := 0; pos < n; pos++ {
		s := p.slots[pos]
		if s == 0 || homeOf(uint32(s>>32), n) <= pos {
			break
		}
		if visit(s) {
			return uint64(last) + 1
		}
	}
	return done // nothing after the last delivered entry
}
