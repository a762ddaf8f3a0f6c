package member

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
)

// Registry returns the registry the member's metrics are on (what
// /metrics serves).
func (m *Member) Registry() *prometheus.Registry { return m.registry }

// mapStats reads every map's statistics for /metrics.
// mapStats reads the maps' statistics for /metrics: one series set per
// map with series of its own (metrics.map-series-limit), and one, with an
// empty map name, summing all the others.
func (m *Member) mapStats() []metrics.MapStats {
	var out []metrics.MapStats
	others := metrics.MapStats{}
	anyOther := false
	for _, mp := range m.maps.All() {
		if mp.System() {
			continue // the lock table and transaction outcomes: see lockCount
		}
		st := mp.Store.Stats()
		s := metrics.MapStats{
			Name: mp.Name(), OwnedEntries: st.OwnedEntryCount, OwnedEntryBytes: st.OwnedEntryMemoryCost,
			BackupEntries: st.BackupEntryCount, BackupEntryBytes: st.BackupEntryMemoryCost,
			Hits: st.Hits, Evictions: st.Evictions, Expirations: st.Expirations,
		}
		if mp.OwnSeries() {
			out = append(out, s)
			continue
		}
		anyOther = true
		others.OwnedEntries += s.OwnedEntries
		others.OwnedEntryBytes += s.OwnedEntryBytes
		others.BackupEntries += s.BackupEntries
		others.BackupEntryBytes += s.BackupEntryBytes
		others.Hits += s.Hits
		others.Evictions += s.Evictions
		others.Expirations += s.Expirations
	}
	if anyOther {
		out = append(out, others)
	}
	return out
}

// lockCount reads the number of locked keys of owned partitions for
// /metrics: the owned entries of the lock maps.
func (m *Member) lockCount() int64 {
	var n int64
	for _, mp := range m.maps.All() {
		if _, ok := maps.LockedMapName(mp.Name()); ok {
			n += mp.Store.Stats().OwnedEntryCount
		}
	}
	return n
}

// exchangeStats reads the join exchange's counters for /metrics (the
// engine exists from the start of Start on; a scrape cannot come sooner).
func (m *Member) exchangeStats() metrics.ExchangeStats {
	if m.query == nil {
		return metrics.ExchangeStats{}
	}
	x := m.query.engine.ExchangeTotals()
	return metrics.ExchangeStats{MessagesSent: x.MessagesSent, MessagesReceived: x.MessagesReceived,
		BytesSent: x.BytesSent, BytesReceived: x.BytesReceived, RowsShipped: x.RowsShipped,
		WriteBlockSeconds: x.WriteBlock.Seconds(), SchedulingWaitSeconds: x.SchedulingWait.Seconds()}
}

// queryMemory reads the query memory pool for /metrics.
func (m *Member) queryMemory() metrics.QueryMemoryStats {
	if m.query == nil {
		return metrics.QueryMemoryStats{MemberLimit: m.memoryLimit}
	}
	s := m.query.engine.MemoryPool().Stats()
	return metrics.QueryMemoryStats{Reserved: s.Reserved, Limit: s.Limit, MemberLimit: m.memoryLimit, Open: s.Open,
		Rejected: s.Rejected, Terminated: s.Terminated, Waiting: s.Waiting}
}

// clusterStats reads the member's view of the cluster for /metrics.
func (m *Member) clusterStats() metrics.ClusterStats {
	t := m.table.Load()
	s := metrics.ClusterStats{Members: len(m.node.Members()), Coordinator: m.node.IsCoordinator()}
	if t != nil {
		s.TableVersion = t.Version
		self := t.IndexOf(m.self.UUID)
		for p, owner := range t.Owners {
			if owner == self {
				s.OwnedPartitions++
			}
			for _, b := range t.Backups[p] {
				if b == self {
					s.BackupPartitions++
				}
			}
		}
	}
	inFlight, completed, failed := m.node.Migrations()
	s.MigrationsInFlight, s.MigrationsCompleted, s.MigrationsFailed = len(inFlight), completed, failed
	return s
}

// isMember reports whether addr is the address of a live member.
func (m *Member) isMember(addr string) bool {
	for _, mb := range m.node.Members() {
		if mb.Address == addr {
			return true
		}
	}
	return false
}

// stableFor is how long the partition table must stay the same before the
// member calls itself ready: a member that just joined adopts the
// cluster's table within about a second.
const stableFor = 2 * time.Second

// stability remembers when the partition table last changed.
type stability struct {
	mu    sync.Mutex
	since time.Time
}

func (s *stability) changed() {
	s.mu.Lock()
	s.since = time.Now()
	s.mu.Unlock()
}

func (s *stability) unchangedFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.since)
}

// watchTable notes every change of the partition table, for readiness.
func (m *Member) watchTable() {
	tables, cancel := m.table.Subscribe()
	defer cancel()
	for {
		select {
		case <-m.stop:
			return
		case <-tables:
			m.stable.changed()
		}
	}
}

func (m *Member) ready() bool { return m.unready() == "" }

// unready says why the member is not ready, or "" when it is: ready means
// it is running, has joined (the partition table it applies names it and
// owns every partition), no migration it coordinates is in flight, and
// that table has not changed for stableFor.
func (m *Member) unready() string {
	select {
	case <-m.stop:
		return "shutting down"
	default:
	}
	if !m.started.Load() {
		return "starting"
	}
	t := m.table.Load()
	if t == nil || t.IndexOf(m.self.UUID) < 0 {
		return "not in the partition table yet"
	}
	for p, owner := range t.Owners {
		if owner < 0 {
			return fmt.Sprintf("partition %d has no owner", p)
		}
	}
	if inFlight, _, _ := m.node.Migrations(); len(inFlight) > 0 {
		return fmt.Sprintf("%d partition migrations in flight", len(inFlight))
	}
	if u := m.node.UnsyncedPartitions(); len(u) > 0 {
		return fmt.Sprintf("%d partitions this member owns lack a synced backup (their copies are still arriving or a backup is gone)", len(u))
	}
	if d := m.stable.unchangedFor(); d < stableFor {
		return "partition table changed " + d.Round(time.Millisecond).String() + " ago"
	}
	return ""
}
