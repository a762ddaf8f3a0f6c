package store

// Sweep removes expired entries of owned partitions, emitting EXPIRED,
// examining at most budget entries per call. The member calls it
// periodically; successive calls continue where the previous one stopped,
// so every owned entry is examined once per budget-sized round. Partitions
// without entries that can expire are skipped at no cost to the budget.
// Backup partitions are not swept: the owner's EXPIRED events are replicated.
// Concurrent calls are safe but share one position.
func (m *Map) Sweep(budget int) SweepResult {
	var res SweepResult
	n := int32(m.cfg.PartitionCount)
	m.parts.Load().each(int32(m.sweepAt.Load())%n, func(p *partition) bool {
		if res.Examined >= budget {
			return false
		}
		finished := true
		p.mu.Lock()
		if p.role == RoleOwner && p.expirable > 0 {
			finished = p.sweep(&res, budget, m.obs(), m.now())
		}
		p.unlock()
		next := p.id + 1
		if !finished {
			next = p.id
		}
		m.sweepAt.Store(uint32(next % n))
		return true
	})
	return res
}

// sweep visits the partition's slots from sweepPos, at most once each,
// until the budget is spent; it reports whether it visited them all.
func (p *partition) sweep(res *SweepResult, budget int, obs Observer, now instant) bool {
	n := len(p.slots)
	if p.sweepPos >= n {
		p.sweepPos = 0
	}
	pos := p.sweepPos
	for visited := 0; visited < n; {
		if res.Examined >= budget {
			p.sweepPos = pos
			return false
		}
		if s := p.slots[pos]; s != 0 {
			res.Examined++
			b, r := p.recOf(uint32(s))
			if p.m.expired(b, &r, now.ms) {
				// Backward shift moves the next slot into pos: look again.
				p.removeAt(obs, pos, EventExpired)
				p.expirations++
				res.Expired++
				continue
			}
		}
		visited++
		if pos++; pos == n {
			pos = 0
		}
	}
	p.sweepPos = pos
	return true
}
