package store

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

type recorder struct{ events []string }

func (r *recorder) OnEvent(e Event) {
	r.events = append(r.events, e.Type.String()+" "+string(e.Key))
}

func TestEvictionPolicies(t *testing.T) {
	tests := []struct {
		name   string
		policy EvictionPolicy
		reads  []string // after loading a, b, c one second apart
		want   []string // events of the write of "d"
	}{
		{"LRU evicts the least recently accessed", EvictionLRU, []string{"a"}, []string{"ADDED d", "EVICTED b"}},
		{"LRU without reads evicts the oldest", EvictionLRU, nil, []string{"ADDED d", "EVICTED a"}},
		{"LFU evicts the fewest hits", EvictionLFU, []string{"a", "a", "c", "b", "c"}, []string{"ADDED d", "EVICTED b"}},
		{"LFU ties go to the least recently accessed", EvictionLFU, []string{"c", "a"}, []string{"ADDED d", "EVICTED b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newManualClock()
			m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk,
				Eviction: EvictionConfig{Policy: tc.policy, MaxEntries: 3, SampleSize: 64}})
			for _, k := range []string{"a", "b", "c"} {
				mustSet(t, m, 0, k, "v")
				clk.Advance(time.Second)
			}
			for _, k := range tc.reads {
				mustGet(t, m, 0, k)
				clk.Advance(time.Second)
			}
			rec := &recorder{}
			m.SetObserver(rec)
			mustSet(t, m, 0, "d", "v")
			if !slices.Equal(rec.events, tc.want) {
				t.Fatalf("events %v, want %v", rec.events, tc.want)
			}
			if st := m.Stats(); st.OwnedEntryCount != 3 || st.Evictions != 1 {
				t.Fatalf("stats %+v", st)
			}
			checkInvariants(t, m)
		})
	}
}

func TestEvictionNeverEvictsTheNewEntry(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1,
		Eviction: EvictionConfig{Policy: EvictionLFU, MaxEntries: 1}})
	mustSet(t, m, 0, "a", "v")
	for range 5 {
		mustGet(t, m, 0, "a") // a has hits, the new entry has none
	}
	mustSet(t, m, 0, "b", "v")
	if _, ok := mustGet(t, m, 0, "b"); !ok {
		t.Fatal("the entry just written was evicted")
	}
	if _, ok := mustGet(t, m, 0, "a"); ok {
		t.Fatal("over the limit")
	}
}

func TestEvictionPrefersExpired(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk,
		Eviction: EvictionConfig{Policy: EvictionLRU, MaxEntries: 2, SampleSize: 64}})
	mustSet(t, m, 0, "old", "v")
	clk.Advance(time.Second)
	if err := m.Set(0, []byte("short"), []byte("v"), Expiry{TTL: time.Second}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	rec := &recorder{}
	m.SetObserver(rec)
	mustSet(t, m, 0, "new", "v")
	if want := []string{"ADDED new", "EXPIRED short"}; !slices.Equal(rec.events, want) {
		t.Fatalf("events %v, want %v", rec.events, want)
	}
}

func TestEvictionPerMember(t *testing.T) {
	const limit, parts = 50, 8
	m := newTestMap(t, MapConfig{PartitionCount: parts,
		Eviction: EvictionConfig{Policy: EvictionLRU, MaxEntries: limit}})
	for i := range 2000 {
		key := dataKey(nil, i)
		if err := m.Set(partitionOf(key, parts), key, []byte("v"), Expiry{}); err != nil {
			t.Fatal(err)
		}
		// Approximate like Hazelcast's: a partition evicts only its own
		// entries, so the map may exceed the limit by at most one entry
		// per partition (each keeps the entry just written).
		if n := m.Size(); n > limit+parts {
			t.Fatalf("after %d writes: size %d", i+1, n)
		}
	}
	if st := m.Stats(); st.Evictions < 2000-limit-parts {
		t.Fatalf("evictions %d", st.Evictions)
	}
	checkInvariants(t, m)
}

func TestEvictionMaxBytes(t *testing.T) {
	const limit = 64 << 10
	m := newTestMap(t, MapConfig{PartitionCount: 4,
		Eviction: EvictionConfig{Policy: EvictionLRU, MaxBytes: limit}})
	value := make([]byte, 200)
	for i := range 5000 {
		key := dataKey(nil, i)
		if err := m.Set(partitionOf(key, 4), key, fillValue(value, i), Expiry{}); err != nil {
			t.Fatal(err)
		}
		st := m.Stats()
		// The limit applies to the live cost; garbage awaiting compaction
		// (bounded) comes on top. One partition may hold its newest entry
		// over the limit.
		if live := st.OwnedEntryMemoryCost - st.GarbageBytes; live > limit+4*2048 {
			t.Fatalf("after %d writes: live cost %d", i+1, live)
		}
	}
	st := m.Stats()
	if st.Evictions == 0 || st.OwnedEntryCount < 100 {
		t.Fatalf("stats %+v", st)
	}
	checkInvariants(t, m)
}

func TestEvictionSkipsBackupsAndNone(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 2,
		Eviction: EvictionConfig{Policy: EvictionLRU, MaxEntries: 5}})
	if err := m.SetRole(1, RoleBackup); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		mustSet(t, m, 1, fmt.Sprint(i), "v")
	}
	if n, _ := m.PartitionSize(1); n != 20 {
		t.Fatalf("backup partition evicted: %d left", n)
	}
	if m.Size() != 0 || m.Stats().BackupEntryCount != 20 {
		t.Fatalf("stats %+v", m.Stats())
	}

	none := newTestMap(t, MapConfig{PartitionCount: 1,
		Eviction: EvictionConfig{Policy: EvictionNone, MaxEntries: 5}})
	for i := range 20 {
		mustSet(t, none, 0, fmt.Sprint(i), "v")
	}
	if none.Size() != 20 {
		t.Fatalf("policy NONE evicted: %d left", none.Size())
	}
}
