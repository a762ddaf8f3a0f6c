package store

// Stats returns the map's statistics on this member. Entry counts and
// memory costs are kept as running totals; the other counters are summed
// over the partitions (each locked briefly).
func (m *Map) Stats() Stats {
	s := Stats{
		OwnedEntryCount:       m.owned.count.Load(),
		OwnedEntryMemoryCost:  m.owned.cost.Load(),
		BackupEntryCount:      m.backup.count.Load(),
		BackupEntryMemoryCost: m.backup.cost.Load(),
	}
	m.parts.Load().each(0, func(p *partition) bool {
		p.mu.Lock()
		if p.role == RoleOwner {
			s.GarbageBytes += p.garbage
		}
		s.Hits += p.hits
		s.Evictions += p.evictions
		s.Expirations += p.expirations
		s.CompactedChunks += p.evacuated
		s.LastAccessTime = max(s.LastAccessTime, p.lastAccess)
		s.LastUpdateTime = max(s.LastUpdateTime, p.lastUpdate)
		p.mu.Unlock()
		return true
	})
	return s
}
