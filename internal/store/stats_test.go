package store

import (
	"fmt"
	"testing"
	"time"
)

// Without per-entry statistics (the default, as in Hazelcast) an entry keeps
// its version and creation time; hits and the update and access times read
// as 0, while the map-level statistics still count every access.
func TestNoPerEntryStats(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	t0 := clk.Now().UnixMilli()
	mustSet(t, m, 0, "k", "v")
	clk.Advance(3 * time.Second)
	mustGet(t, m, 0, "k")
	mustSet(t, m, 0, "k", "w")
	v, ok, err := m.GetEntryView(0, []byte("k"))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if want := (EntryMeta{Version: 2, CreationTime: t0}); v.EntryMeta != want || v.ExpirationTime != 0 {
		t.Fatalf("meta %+v (expires %d), want %+v", v.EntryMeta, v.ExpirationTime, want)
	}
	if st := m.Stats(); st.Hits != 1 || st.LastAccessTime != t0+3000 || st.LastUpdateTime != t0+3000 {
		t.Fatalf("map statistics %+v", st)
	}
}

// An entry with a TTL or max-idle of its own keeps the times they count
// from, whatever the map's statistics setting; so does an entry whose TTL is
// set later, from that moment.
func TestNoPerEntryStatsExpiry(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	t0 := clk.Now().UnixMilli()
	if err := m.Set(0, []byte("idle"), []byte("v"), Expiry{MaxIdle: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	mustSet(t, m, 0, "later", "v")
	clk.Advance(4 * time.Second)
	mustGet(t, m, 0, "idle") // extends its max-idle
	if ok, err := m.SetTTL(0, []byte("later"), 10*time.Second); err != nil || !ok {
		t.Fatal(ok, err)
	}
	for key, want := range map[string]EntryMeta{
		"idle":  {Version: 1, Hits: 1, CreationTime: t0, LastUpdateTime: t0, LastAccessTime: t0 + 4000, Expiry: Expiry{MaxIdle: 5 * time.Second}},
		"later": {Version: 1, CreationTime: t0, LastUpdateTime: t0 + 4000, LastAccessTime: t0 + 4000, Expiry: Expiry{TTL: 10 * time.Second}},
	} {
		v, ok, err := m.GetEntryView(0, []byte(key))
		if err != nil || !ok || v.EntryMeta != want {
			t.Fatalf("%s: %+v %v %v\nwant %+v", key, v.EntryMeta, ok, err, want)
		}
	}
	clk.Advance(4 * time.Second) // 8 s: idle was read at 4 s
	if _, ok := mustGet(t, m, 0, "idle"); !ok {
		t.Fatal("idle expired 4 s after its last read, max-idle 5 s")
	}
	clk.Advance(6 * time.Second) // 14 s: later's TTL counts from 4 s
	if _, ok := mustGet(t, m, 0, "later"); ok {
		t.Fatal("later alive 10 s after SetTTL of 10 s")
	}
	clk.Advance(5 * time.Second)
	if _, ok := mustGet(t, m, 0, "idle"); ok {
		t.Fatal("idle alive 6 s after its last read, max-idle 5 s")
	}
}

// A map whose expiry or eviction reads the statistics keeps them in every
// entry even when per-entry statistics are off.
func TestStatsKeptWhereNeeded(t *testing.T) {
	for _, cfg := range []MapConfig{
		{PerEntryStats: true},
		{TTL: time.Hour},
		{MaxIdle: time.Hour},
		{Eviction: EvictionConfig{Policy: EvictionLFU, MaxEntries: 1000}},
		{Eviction: EvictionConfig{Policy: EvictionLRU}},
	} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			clk := newManualClock()
			cfg.PartitionCount, cfg.Clock = 1, clk
			m := newTestMap(t, cfg)
			t0 := clk.Now().UnixMilli()
			mustSet(t, m, 0, "k", "v")
			clk.Advance(2 * time.Second)
			mustGet(t, m, 0, "k")
			v, _, _ := m.GetEntryView(0, []byte("k"))
			if v.Hits != 1 || v.LastUpdateTime != t0 || v.LastAccessTime != t0+2000 {
				t.Fatalf("meta %+v", v.EntryMeta)
			}
		})
	}
}

// A copy from a member that keeps no statistics into a map that needs them
// takes the creation time for the times it lacks, so that expiry counts from
// no earlier than the entry's creation.
func TestApplyRecordWithoutTimes(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk, TTL: time.Minute})
	created := clk.Now().UnixMilli()
	if err := m.ApplyRecord(0, EntryView{Key: []byte("k"), Value: []byte("v"), EntryMeta: EntryMeta{Version: 4, CreationTime: created}}); err != nil {
		t.Fatal(err)
	}
	v, ok, _ := m.GetEntryView(0, []byte("k"))
	if !ok || v.LastUpdateTime != created || v.LastAccessTime != created || v.ExpirationTime != created+60_000 {
		t.Fatalf("copy %+v (found %v), expires %d", v.EntryMeta, ok, v.ExpirationTime)
	}
}

// The statistics block is the difference in memory: 12 bytes per entry.
func TestPerEntryStatsMemory(t *testing.T) {
	cost := func(stats bool) float64 {
		m := newTestMap(t, MapConfig{PartitionCount: 1, PerEntryStats: stats})
		const n = 20_000
		for i := range n {
			mustSet(t, m, 0, fmt.Sprintf("key-%06d", i), "a 55-byte value, the size of the workloads' small ones.")
		}
		return float64(m.Stats().OwnedEntryMemoryCost) / n
	}
	with, without := cost(true), cost(false)
	if d := with - without; d < 11 || d > 13 {
		t.Fatalf("%.1f B/entry with statistics, %.1f without: %.1f apart, want 12", with, without, d)
	}
}
