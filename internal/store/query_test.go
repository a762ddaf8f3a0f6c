package store

import (
	"bytes"
	"sort"
	"testing"
	"time"
)

// TestQueryReads checks ScanKV, PeekAll and CountExact against Scan and
// Get through updates, removals (dead records), large values, per-entry
// TTL and a map-wide TTL.
func TestQueryReads(t *testing.T) {
	for _, defaultTTL := range []time.Duration{0, time.Hour} {
		clock := newManualClock()
		m, err := NewMap(MapConfig{PartitionCount: 3, TTL: defaultTTL, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		val := func(k, n int) []byte { return bytes.Repeat([]byte{byte(k)}, n) }
		for k := 0; k < 300; k++ {
			size := 10 + k%5*60 // some values over 127 bytes
			if k%50 == 0 {
				size = 20000 // over 16 KiB: the slow path
			}
			exp := Expiry{}
			if k%7 == 0 {
				exp.TTL = time.Second
			}
			if err := m.Set(int32(k%3), dataKey(nil, k), val(k, size), exp); err != nil {
				t.Fatal(err)
			}
		}
		for k := 0; k < 300; k += 5 {
			if _, err := m.Delete(int32(k%3), dataKey(nil, k)); err != nil {
				t.Fatal(err)
			}
		}
		for k := 1; k < 300; k += 10 {
			if err := m.Set(int32(k%3), dataKey(nil, k), val(k, 90), Expiry{}); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(2 * time.Second) // the k%7 entries expire
		for pid := int32(0); pid < 3; pid++ {
			var want, got []string
			_ = m.Scan(pid, func(v EntryView) bool {
				want = append(want, string(v.Key)+"="+string(v.Value))
				return true
			})
			_ = m.ScanKV(pid, func(k, v []byte) bool {
				got = append(got, string(k)+"="+string(v))
				return true
			})
			sort.Strings(want)
			sort.Strings(got)
			if len(want) == 0 || len(want) != len(got) {
				t.Fatalf("ttl %v partition %d: Scan %d entries, ScanKV %d", defaultTTL, pid, len(want), len(got))
			}
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("ttl %v partition %d: entry %d differs", defaultTTL, pid, i)
				}
			}
			n, exact, err := m.CountExact(pid)
			if err != nil || exact || n < len(got) {
				t.Fatalf("count %d exact %v err %v with expirable entries", n, exact, err)
			}
		}
		// PeekAll finds live keys, skips expired and absent ones, and
		// counts no access.
		keys := [][]byte{dataKey(nil, 1), dataKey(nil, 7), dataKey(nil, 5), dataKey(nil, 4)}
		var found []string
		if err := m.PeekAll(1, keys, func(k, v []byte) { found = append(found, string(k)) }); err != nil {
			t.Fatal(err)
		}
		if len(found) != 2 {
			t.Fatalf("PeekAll found %d keys, want 1 and 4", len(found))
		}
		if v, ok, _ := m.GetEntryView(1, dataKey(nil, 4)); !ok || v.Hits != 0 {
			t.Fatalf("PeekAll counted as an access: %+v", v)
		}
	}
	m, _ := NewMap(MapConfig{PartitionCount: 1})
	_ = m.Set(0, dataKey(nil, 1), []byte("x"), Expiry{})
	if n, exact, _ := m.CountExact(0); n != 1 || !exact {
		t.Fatalf("count %d exact %v", n, exact)
	}
}

// TestPrefetchLinesAnySlice asks for the lines of slices of every
// alignment and length, empty and nil ones too, up to the end of their
// backing array: a prefetch never faults, and the loop ends.
func TestPrefetchLinesAnySlice(t *testing.T) {
	b := make([]byte, 300)
	prefetchLines(nil)
	for from := 0; from <= len(b); from += 7 {
		for to := from; to <= len(b); to += 13 {
			prefetchLines(b[from:to])
		}
		prefetchLines(b[from:])
	}
	var p prefetcher
	p.data = b
	for cursor := 0; cursor <= len(b); cursor += 50 {
		p.ahead(cursor)
		if p.done < cursor+scanAhead-scanPrefetchStep {
			t.Fatalf("cursor %d: asked for the bytes up to %d, want at least %d", cursor, p.done, cursor+scanAhead-scanPrefetchStep)
		}
	}
}

// TestScanKVHint checks that a scan's ReadHint changes only what it
// prefetches: with values of mixed sizes (under and over hintedRecord, and
// shorter than the hinted field), a hint the reader moves as it goes, and
// hints past every record, ScanKVHint hands out what ScanKV does.
func TestScanKVHint(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	for k := range 2000 {
		size := []int{40, 300, 600, 1100, 5000}[k%5] + k%17
		if err := m.Set(0, dataKey(nil, k), bytes.Repeat([]byte{byte(k)}, size), Expiry{}); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	if err := m.ScanKV(0, func(k, v []byte) bool {
		want = append(want, string(k)+"="+string(v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	for _, field := range []int{0, 1, 100, 700, 1 << 20} {
		hint := &ReadHint{Field: field}
		var got []string
		n := 0
		err := m.ScanKVHint(0, hint, func(k, v []byte) bool {
			got = append(got, string(k)+"="+string(v))
			if field == 700 { // a reader whose field moves with each value
				n++
				hint.Field = len(v) - n%len(v)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("field %d: %d entries, want %d", field, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("field %d: entry %d differs", field, i)
			}
		}
	}
}
