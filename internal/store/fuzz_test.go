package store

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// model is the reference for FuzzOps: a plain map with the same semantics.
type model struct {
	now     uint32 // seconds
	entries map[string]*modelEntry
}

type modelEntry struct {
	value             string
	version           uint32
	updated, accessed uint32
	ttl, idle         uint32 // 0 = none
}

func (md *model) live(k string) *modelEntry {
	e := md.entries[k]
	if e == nil {
		return nil
	}
	if (e.ttl > 0 && md.now >= e.updated+e.ttl) || (e.idle > 0 && md.now >= e.accessed+e.idle) {
		delete(md.entries, k)
		return nil
	}
	return e
}

func (md *model) write(k, v string, ttl, idle uint32, keepExpiry bool) {
	e := md.entries[k]
	if e == nil {
		e = &modelEntry{}
		md.entries[k] = e
	}
	e.value, e.updated, e.accessed = v, md.now, md.now
	e.version = nextVersion(e.version)
	if !keepExpiry {
		e.ttl, e.idle = ttl, idle
	}
}

var fuzzSizes = [...]int{1, 7, 60, 500, 2100, 9000, 40, 262200}

// FuzzOps applies a random sequence of operations to a Map and to the model
// and compares every result, the internal invariants and the final
// contents. Each op reads 4 bytes: op, key, value size/expiry, extra.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 1, 1, 0, 0, 10, 1, 0, 0, 4, 1, 0, 0})
	f.Add(bytes.Repeat([]byte{0, 5, 3, 0, 0, 5, 4, 0, 7, 5, 0, 0}, 40))
	f.Add(bytes.Repeat([]byte{1, 9, 0x13, 0, 13, 0, 0, 2, 9, 9, 0, 0, 2, 3, 0x22, 0}, 30))
	f.Add([]byte("the quick brown fox jumps over the lazy dog, again and again and again"))
	f.Add(bytes.Repeat([]byte{0, 1, 7, 0, 0, 2, 5, 0, 3, 1, 4, 0, 12, 0, 0, 0}, 20))
	seq := make([]byte, 0, 4096)
	for i := range 1000 {
		seq = append(seq, byte(i*7), byte(i*13), byte(i*5), byte(i))
	}
	f.Add(seq)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, perEntryStats := range []bool{false, true} {
			runOps(t, data, perEntryStats)
		}
	})
}

// runOps applies the operations data encodes to a Map and to the model and
// checks that they agree after each.
func runOps(t *testing.T, data []byte, perEntryStats bool) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 3, Clock: clk, MaxValueSize: 1 << 20, PerEntryStats: perEntryStats})
	md := &model{now: secOf(clk.Now().UnixMilli()), entries: map[string]*modelEntry{}}
	pidOf := func(k string) int32 { return int32(k[1]-'a') % 3 }
	for i := 0; i+4 <= len(data) && i < 4*2000; i += 4 {
		op, kb, vb, extra := data[i]%20, data[i+1], data[i+2], data[i+3]
		k := string([]byte{'k', 'a' + kb%11})
		pid := pidOf(k)
		size := fuzzSizes[vb%8]
		if size > 100_000 && extra%16 != 0 {
			size = 3000 // keep huge values rare
		}
		v := bytes.Repeat([]byte{'a' + byte(i%26)}, size)
		var ttl, idle uint32
		switch (vb >> 3) % 4 {
		case 1:
			ttl = uint32(extra%5) + 1
		case 2:
			idle = uint32(extra%4) + 1
		}
		exp := Expiry{TTL: time.Duration(ttl) * time.Second, MaxIdle: time.Duration(idle) * time.Second}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("per-entry stats %v, op %d (%d on %s): %s", perEntryStats, i/4, op, k, fmt.Sprintf(format, args...))
		}
		cur := md.live(k)
		switch op {
		case 0: // put
			old, ok, err := m.Put(pid, []byte(k), v, exp)
			if err != nil || ok != (cur != nil) || (cur != nil && string(old) != cur.value) {
				fail("put: %v %v", ok, err)
			}
			md.write(k, string(v), ttl, idle, false)
		case 1: // set
			if err := m.Set(pid, []byte(k), v, exp); err != nil {
				fail("set: %v", err)
			}
			md.write(k, string(v), ttl, idle, false)
		case 2: // putIfAbsent
			got, stored, err := m.PutIfAbsent(pid, []byte(k), v, exp)
			if err != nil || stored != (cur == nil) || (cur != nil && string(got) != cur.value) {
				fail("putIfAbsent: %v %v", stored, err)
			}
			if cur == nil {
				md.write(k, string(v), ttl, idle, false)
			}
		case 3: // replace
			old, ok, err := m.Replace(pid, []byte(k), v)
			if err != nil || ok != (cur != nil) || (cur != nil && string(old) != cur.value) {
				fail("replace: %v %v", ok, err)
			}
			if cur != nil {
				md.write(k, string(v), 0, 0, true)
			}
		case 4: // replaceIfSame, expecting the current value half the time
			expected := []byte("nope")
			if cur != nil && extra%2 == 0 {
				expected = []byte(cur.value)
			}
			ok, err := m.ReplaceIfSame(pid, []byte(k), expected, v)
			want := cur != nil && cur.value == string(expected)
			if err != nil || ok != want {
				fail("replaceIfSame: %v want %v %v", ok, want, err)
			}
			if want {
				md.write(k, string(v), 0, 0, true)
			}
		case 5: // remove
			old, ok, err := m.Remove(pid, []byte(k))
			if err != nil || ok != (cur != nil) || (cur != nil && string(old) != cur.value) {
				fail("remove: %v %v", ok, err)
			}
			delete(md.entries, k)
		case 6: // removeIfSame
			expected := []byte("nope")
			if cur != nil && extra%2 == 0 {
				expected = []byte(cur.value)
			}
			ok, err := m.RemoveIfSame(pid, []byte(k), expected)
			want := cur != nil && cur.value == string(expected)
			if err != nil || ok != want {
				fail("removeIfSame: %v %v", ok, err)
			}
			if want {
				delete(md.entries, k)
			}
		case 7, 8: // delete / evict
			del := m.Delete
			if op == 8 {
				del = m.Evict
			}
			ok, err := del(pid, []byte(k))
			if err != nil || ok != (cur != nil) {
				fail("delete/evict: %v %v", ok, err)
			}
			delete(md.entries, k)
		case 9, 10: // get / containsKey
			var ok bool
			var got []byte
			var err error
			if op == 9 {
				got, ok, err = m.Get(pid, []byte(k))
			} else {
				ok, err = m.ContainsKey(pid, []byte(k))
			}
			if err != nil || ok != (cur != nil) || (op == 9 && cur != nil && string(got) != cur.value) {
				fail("get: %v %v", ok, err)
			}
			if cur != nil {
				cur.accessed = md.now
			}
		case 11: // setIfVersion with the right version half the time
			var expected uint32
			if cur != nil && extra%2 == 0 {
				expected = cur.version
			} else if cur == nil && extra%2 == 1 {
				expected = 5
			}
			ver, ok, err := m.SetIfVersion(pid, []byte(k), v, expected, exp)
			want := (cur == nil && expected == 0) || (cur != nil && expected == cur.version)
			if err != nil || ok != want {
				fail("setIfVersion: %v want %v %v", ok, want, err)
			}
			if want {
				md.write(k, string(v), ttl, idle, false)
			}
			if e := md.live(k); (e == nil && ver != 0) || (e != nil && ver != e.version) {
				fail("setIfVersion version %d", ver)
			}
		case 12: // advance the clock
			clk.Advance(time.Duration(extra%4) * time.Second)
			md.now = secOf(clk.Now().UnixMilli())
		case 13: // sweep
			m.Sweep(int(extra))
			for mk := range md.entries {
				md.live(mk) // the model drops expired entries lazily anyway
			}
		case 14: // clear one partition
			if _, err := m.Clear(pid); err != nil {
				fail("clear: %v", err)
			}
			for mk := range md.entries {
				if pidOf(mk) == pid {
					delete(md.entries, mk)
				}
			}
		case 15: // getEntryView
			ev, ok, err := m.GetEntryView(pid, []byte(k))
			if err != nil || ok != (cur != nil) {
				fail("getEntryView: %v %v", ok, err)
			}
			// Without per-entry statistics, only the entries with a
			// TTL or max-idle of their own keep their times.
			switch {
			case cur == nil:
			case string(ev.Value) != cur.value || ev.Version != cur.version:
				fail("entry view %+v vs %+v", ev.EntryMeta, *cur)
			case perEntryStats && (ev.LastUpdateTime != msOf(cur.updated) || ev.LastAccessTime != msOf(cur.accessed)):
				fail("entry view times %+v vs %+v", ev.EntryMeta, *cur)
			case !perEntryStats && cur.ttl == 0 && cur.idle == 0 && (ev.LastUpdateTime != 0 || ev.LastAccessTime != 0 || ev.Hits != 0):
				fail("entry view without statistics %+v", ev.EntryMeta)
			}
		case 16: // setTtl
			secs := uint32(extra%5) + 1
			ok, err := m.SetTTL(pid, []byte(k), time.Duration(secs)*time.Second)
			if err != nil || ok != (cur != nil) {
				fail("setTtl: %v %v", ok, err)
			}
			if cur != nil {
				cur.ttl = md.now - cur.updated + secs
			}
		case 17: // export the partition and import it into itself: no change
			chunk, _, err := m.ExportAppend(nil, pid, 0, int(extra)*64)
			if err != nil {
				fail("export: %v", err)
			}
			if _, err := m.Import(pid, chunk); err != nil {
				fail("import: %v", err)
			}
		case 18: // putAll of two entries
			k2 := string([]byte{'k', 'a' + (kb+3)%11})
			if pidOf(k2) != pid {
				k2 = k
			}
			if err := m.PutAll(pid, []Entry{{[]byte(k), v}, {[]byte(k2), v[:1]}}, exp); err != nil {
				fail("putAll: %v", err)
			}
			md.write(k, string(v), ttl, idle, false)
			md.live(k2)
			md.write(k2, string(v[:1]), ttl, idle, false)
		case 19: // removeIfVersion
			var expected uint32 = 77
			if cur != nil && extra%2 == 0 {
				expected = cur.version
			}
			ok, err := m.RemoveIfVersion(pid, []byte(k), expected)
			want := cur != nil && cur.version == expected
			if err != nil || ok != want {
				fail("removeIfVersion: %v %v", ok, err)
			}
			if want {
				delete(md.entries, k)
			}
		}
		checkInvariants(t, m)
	}
	// Final contents equal the model's live entries.
	want := map[string]string{}
	for k := range md.entries {
		if e := md.live(k); e != nil {
			want[k] = e.value
		}
	}
	got := map[string]string{}
	for pid := range int32(3) {
		_ = m.Scan(pid, func(v EntryView) bool {
			got[string(v.Key)] = string(v.Value)
			return true
		})
	}
	if len(got) != len(want) {
		t.Fatalf("final contents: %d entries, model %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("final contents differ at %s", k)
		}
	}
}

// FuzzImport feeds arbitrary chunks to Import: it never panics, and either
// fails with ErrCorrupt leaving the map unchanged or applies cleanly.
func FuzzImport(f *testing.F) {
	clk := newManualClock()
	src := newTestMap(f, MapConfig{PartitionCount: 1, Clock: clk})
	for i := range 5 {
		if err := src.Set(0, []byte(fmt.Sprint("k", i)), bytes.Repeat([]byte{byte(i)}, 1+i*40), Expiry{TTL: time.Duration(i) * time.Hour, MaxIdle: Forever}); err != nil {
			f.Fatal(err)
		}
	}
	chunk, _, _ := src.ExportAppend(nil, 0, 0, 0)
	f.Add(chunk)
	f.Add(chunk[:len(chunk)/2])
	f.Add([]byte{exportFormat})
	f.Add([]byte{exportFormat, 1, 'k', 1, 'v', 0, 0, 0, 0, 0, 3, 1, 1})
	f.Add([]byte{exportFormat, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newTestMap(t, MapConfig{PartitionCount: 1, MaxKeySize: 64, MaxValueSize: 4096, Clock: clk})
		mustSet(t, m, 0, "k1", "existing")
		before := snapshot(t, m)
		n, err := m.Import(0, data)
		if err != nil {
			if n != 0 || !bytes.Equal(before, snapshot(t, m)) {
				t.Fatalf("failed import (%v) changed the map", err)
			}
		}
		checkInvariants(t, m)
	})
}
