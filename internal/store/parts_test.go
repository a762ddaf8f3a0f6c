package store

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestSparsePartitions: a map keeps few partitions in a list and more in a
// table, and every partition stays readable across the switch.
func TestSparsePartitions(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 64})
	for pid := int32(63); pid >= 0; pid -= 3 { // out of order
		mustSet(t, m, pid, fmt.Sprint(pid), "v")
		if s := m.parts.Load(); (s.table != nil) != (len(existing(m)) > sparseMax) {
			t.Fatalf("%d partitions, table %v", len(existing(m)), s.table != nil)
		}
		got := existing(m)
		if !slices.IsSorted(got) {
			t.Fatalf("partitions out of order: %v", got)
		}
	}
	for pid := int32(63); pid >= 0; pid -= 3 {
		if v, ok, err := m.Get(pid, []byte(fmt.Sprint(pid))); err != nil || !ok || string(v) != "v" {
			t.Fatalf("partition %d: %q %v %v", pid, v, ok, err)
		}
	}
	if st := m.Stats(); st.OwnedEntryCount != 22 {
		t.Fatalf("%d entries, want 22", st.OwnedEntryCount)
	}
	checkInvariants(t, m)
}

func existing(m *Map) []int32 {
	var out []int32
	m.parts.Load().each(0, func(p *partition) bool {
		out = append(out, p.id)
		return true
	})
	return out
}

// TestDirectory: maps sharing a directory take partition roles from it,
// including partitions created later, and a role change reaches exactly
// the maps holding the partition.
func TestDirectory(t *testing.T) {
	d := NewDirectory(8)
	a := newTestMap(t, MapConfig{PartitionCount: 8, Directory: d})
	b := newTestMap(t, MapConfig{PartitionCount: 8, Directory: d})
	if _, err := NewMap(MapConfig{PartitionCount: 9, Directory: d}); err == nil {
		t.Fatal("a map of 9 partitions took a directory of 8")
	}
	mustSet(t, a, 1, "k", "v")
	if err := d.SetRole(1, RoleBackup); err != nil {
		t.Fatal(err)
	}
	if err := d.SetRole(2, RoleBackup); err != nil {
		t.Fatal(err)
	}
	mustSet(t, b, 2, "k", "v") // created after the role change
	mustSet(t, b, 3, "k", "v")
	if st := a.Stats(); st.BackupEntryCount != 1 || st.OwnedEntryCount != 0 {
		t.Fatalf("a: %+v", st)
	}
	if st := b.Stats(); st.BackupEntryCount != 1 || st.OwnedEntryCount != 1 {
		t.Fatalf("b: %+v", st)
	}
	if got := d.Maps(2); len(got) != 1 || got[0] != b {
		t.Fatalf("maps holding partition 2: %v", got)
	}
	if got := d.Maps(5); len(got) != 0 {
		t.Fatalf("maps holding partition 5: %v", got)
	}
	d.Forget(b)
	if got := d.Maps(2); len(got) != 0 {
		t.Fatalf("a forgotten map is still listed: %v", got)
	}
	checkInvariants(t, a)
	checkInvariants(t, b)
}

// TestDirectoryRace: partitions created while their role flips end in the
// directory's final role, with consistent totals.
func TestDirectoryRace(t *testing.T) {
	const parts = 16
	d := NewDirectory(parts)
	maps := make([]*Map, 20)
	for i := range maps {
		maps[i] = newTestMap(t, MapConfig{PartitionCount: parts, Directory: d})
	}
	var wg sync.WaitGroup
	for i, m := range maps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pid := int32(0); pid < parts; pid++ {
				mustSet(t, m, (pid+int32(i))%parts, "k", "v")
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for round := 0; round < 50; round++ {
			for pid := int32(0); pid < parts; pid++ {
				_ = d.SetRole(pid, Role(round%2))
			}
		}
		for pid := int32(0); pid < parts; pid++ {
			_ = d.SetRole(pid, Role(pid%2))
		}
	}()
	wg.Wait()
	for _, m := range maps {
		checkInvariants(t, m)
		m.parts.Load().each(0, func(p *partition) bool {
			if p.role != Role(p.id%2) {
				t.Fatalf("partition %d is %v, the directory says %v", p.id, p.role, Role(p.id%2))
			}
			return true
		})
		if st := m.Stats(); st.OwnedEntryCount != parts/2 || st.BackupEntryCount != parts/2 {
			t.Fatalf("%+v", st)
		}
	}
}
