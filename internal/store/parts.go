package store

import (
	"slices"
	"sync"
	"sync/atomic"
)

// The partitions of a map, and what the maps of a member share about
// partitions.
//
// A map allocates a partition on its first write there. Most maps of a
// member with many maps hold a few partitions, so a map keeps the ones it
// holds in a short sorted list, and switches to a table indexed by
// partition id once it holds more than sparseMax: a map with one entry
// costs one partition, not a table of 271 pointers. Readers take no lock:
// the set is replaced (copy-on-write) while it is a list, and its slots
// are set in place once it is a table.
//
// A Directory is shared by the maps of one member. It gives every
// partition this member's role for it (owner or backup), so that a
// partition created later starts in the right role, and it lists the maps
// that hold each partition, so that a role change, an export or a drop of
// partition p costs what the maps holding p cost, not what every map of
// the member costs.

// sparseMax is the most partitions a map keeps in a list.
const sparseMax = 8

// partSet is the partitions of a map that exist.
type partSet struct {
	ids   []int32      // sorted; while table is nil
	list  []*partition // list[i] is partition ids[i]
	table []atomic.Pointer[partition]
}

func (s *partSet) get(pid int32) *partition {
	if s.table != nil {
		return s.table[pid].Load()
	}
	for i, id := range s.ids {
		if id == pid {
			return s.list[i]
		}
	}
	return nil
}

// each calls fn for every partition that exists, in partition order,
// starting at the first partition at or after from and wrapping around;
// fn returns false to stop.
func (s *partSet) each(from int32, fn func(*partition) bool) {
	if s.table != nil {
		n := int32(len(s.table))
		for i := int32(0); i < n; i++ {
			if p := s.table[(from+i)%n].Load(); p != nil && !fn(p) {
				return
			}
		}
		return
	}
	start, _ := slices.BinarySearch(s.ids, from)
	for i := range s.list {
		if !fn(s.list[(start+i)%len(s.list)]) {
			return
		}
	}
}

// with returns the set with p added (s itself when it is a table).
func (s *partSet) with(p *partition, count int) *partSet {
	if s.table != nil {
		s.table[p.id].Store(p)
		return s
	}
	if len(s.ids) < sparseMax {
		i, _ := slices.BinarySearch(s.ids, p.id)
		return &partSet{ids: slices.Insert(slices.Clone(s.ids), i, p.id), list: slices.Insert(slices.Clone(s.list), i, p)}
	}
	t := &partSet{table: make([]atomic.Pointer[partition], count)}
	for _, q := range s.list {
		t.table[q.id].Store(q)
	}
	t.table[p.id].Store(p)
	return t
}

// Directory is what the maps of one member share about partitions: the
// role of each and the maps that hold it. Safe for concurrent use.
type Directory struct {
	parts []dirPart
}

type dirPart struct {
	mu   sync.Mutex
	role Role
	maps map[*Map]struct{} // maps holding the partition
}

// NewDirectory returns a directory of partitionCount partitions, all owned.
func NewDirectory(partitionCount int) *Directory {
	return &Directory{parts: make([]dirPart, partitionCount)}
}

// SetRole sets this member's role for partition pid: in every map that
// holds it now (its entries and memory move between the owned and backup
// statistics) and in maps that create it later.
func (d *Directory) SetRole(pid int32, role Role) error {
	if pid < 0 || int(pid) >= len(d.parts) {
		return opErr("setRole", ErrPartitionRange)
	}
	dp := &d.parts[pid]
	dp.mu.Lock()
	defer dp.mu.Unlock()
	dp.role = role
	for m := range dp.maps {
		if p := m.partition(pid); p != nil {
			p.setRole(role)
		}
	}
	return nil
}

// Maps returns the maps that hold partition pid.
func (d *Directory) Maps(pid int32) []*Map {
	if pid < 0 || int(pid) >= len(d.parts) {
		return nil
	}
	dp := &d.parts[pid]
	dp.mu.Lock()
	defer dp.mu.Unlock()
	out := make([]*Map, 0, len(dp.maps))
	for m := range dp.maps {
		out = append(out, m)
	}
	return out
}

// Forget removes a map that is going away from the directory.
func (d *Directory) Forget(m *Map) {
	m.parts.Load().each(0, func(p *partition) bool {
		dp := &d.parts[p.id]
		dp.mu.Lock()
		delete(dp.maps, m)
		dp.mu.Unlock()
		return true
	})
}

// setRole changes a partition's role, moving its accounting.
func (p *partition) setRole(role Role) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.role != role {
		p.unpublish()
		p.role = role
		p.publish()
	}
}
