package store

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestTTL(t *testing.T) {
	type check struct {
		after   time.Duration // since the previous check
		present bool
	}
	tests := []struct {
		name   string
		mapTTL time.Duration
		exp    Expiry
		checks []check
	}{
		{"map default", 10 * time.Second, Expiry{}, []check{{9 * time.Second, true}, {time.Second, false}}},
		{"entry overrides default", 10 * time.Second, Expiry{TTL: 3 * time.Second}, []check{{2 * time.Second, true}, {time.Second, false}}},
		{"entry forever beats default", 10 * time.Second, Expiry{TTL: Forever}, []check{{1000 * time.Hour, true}}},
		{"no default: forever", 0, Expiry{}, []check{{1000 * time.Hour, true}}},
		{"entry ttl without default", 0, Expiry{TTL: 5 * time.Second}, []check{{4 * time.Second, true}, {time.Second, false}}},
		{"milliseconds", 0, Expiry{TTL: 1500 * time.Millisecond}, []check{{1499 * time.Millisecond, true}, {time.Millisecond, false}}},
		{"one millisecond", 0, Expiry{TTL: time.Millisecond}, []check{{0, true}, {time.Millisecond, false}}},
		{"beyond 24 days: whole seconds", 0, Expiry{TTL: 30*24*time.Hour + 1500*time.Millisecond}, []check{{30*24*time.Hour + 1999*time.Millisecond, true}, {time.Millisecond, false}}},
		{"reads do not extend ttl", 0, Expiry{TTL: 5 * time.Second}, []check{{2 * time.Second, true}, {2 * time.Second, true}, {time.Second, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newManualClock()
			m := newTestMap(t, MapConfig{PartitionCount: 1, TTL: tc.mapTTL, Clock: clk})
			if err := m.Set(0, []byte("k"), []byte("v"), tc.exp); err != nil {
				t.Fatal(err)
			}
			for i, c := range tc.checks {
				clk.Advance(c.after)
				if _, ok := mustGet(t, m, 0, "k"); ok != c.present {
					t.Fatalf("check %d: present %v, want %v", i, ok, c.present)
				}
			}
			checkInvariants(t, m)
		})
	}
}

// TestExpiryNeverEarly writes and reads at every tenth of a second: times
// are stored in whole seconds, and an entry must still never expire before
// its TTL or max-idle has elapsed, and at most a second after.
func TestExpiryNeverEarly(t *testing.T) {
	for _, tc := range []struct {
		name string
		exp  Expiry
		read bool // read once, 100 ms after the write (max-idle counts from it)
	}{
		{"ttl", Expiry{TTL: time.Second}, false},
		{"max-idle", Expiry{MaxIdle: time.Second}, true},
	} {
		for offset := time.Duration(0); offset < time.Second; offset += 100 * time.Millisecond {
			clk := newManualClock()
			clk.Advance(offset)
			m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
			if err := m.Set(0, []byte("k"), []byte("v"), tc.exp); err != nil {
				t.Fatal(err)
			}
			since := time.Duration(0)
			if tc.read {
				clk.Advance(100 * time.Millisecond)
				mustGet(t, m, 0, "k")
			}
			for ; since < time.Second; since += 100 * time.Millisecond {
				if _, ok, _ := m.GetEntryView(0, []byte("k")); !ok {
					t.Fatalf("%s, written at +%v: expired %v after the last access", tc.name, offset, since)
				}
				clk.Advance(100 * time.Millisecond)
			}
			clk.Advance(time.Second)
			if _, ok, _ := m.GetEntryView(0, []byte("k")); ok {
				t.Fatalf("%s, written at +%v: still present 2s after the last access", tc.name, offset)
			}
		}
	}
}

func TestTTLCountsFromLastWrite(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, TTL: 10 * time.Second, Clock: clk})
	mustSet(t, m, 0, "k", "v1")
	clk.Advance(8 * time.Second)
	mustSet(t, m, 0, "k", "v2") // restarts the TTL
	clk.Advance(8 * time.Second)
	if v, ok := mustGet(t, m, 0, "k"); !ok || v != "v2" {
		t.Fatalf("update did not restart the TTL: %q %v", v, ok)
	}
	if _, _, err := m.Replace(0, []byte("k"), []byte("v3")); err != nil { // so does replace
		t.Fatal(err)
	}
	clk.Advance(9 * time.Second)
	if _, ok := mustGet(t, m, 0, "k"); !ok {
		t.Fatal("replace did not restart the TTL")
	}
	clk.Advance(time.Second)
	if _, ok := mustGet(t, m, 0, "k"); ok {
		t.Fatal("not expired 10s after the last write")
	}
}

func TestMaxIdle(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, MaxIdle: 10 * time.Second, Clock: clk})
	mustSet(t, m, 0, "k", "v")
	mustSet(t, m, 0, "other", "v")
	for range 5 { // each read extends the idle time
		clk.Advance(9 * time.Second)
		if _, ok := mustGet(t, m, 0, "k"); !ok {
			t.Fatal("read entry expired")
		}
	}
	clk.Advance(9 * time.Second)
	if ok, _ := m.ContainsKey(0, []byte("k")); !ok { // containsKey counts as access
		t.Fatal("expired before idle time")
	}
	// Scans, entry views and exports do not count as access.
	clk.Advance(9 * time.Second)
	_ = m.Scan(0, func(EntryView) bool { return true })
	_, _, _ = m.GetEntryView(0, []byte("k"))
	_, _, _ = m.ExportAppend(nil, 0, 0, 0)
	clk.Advance(time.Second)
	if _, ok := mustGet(t, m, 0, "k"); ok {
		t.Fatal("scan, entry view or export extended the idle time")
	}
	// A write counts as access too.
	mustSet(t, m, 0, "k", "v")
	clk.Advance(9 * time.Second)
	if err := m.Set(0, []byte("k"), []byte("v2"), Expiry{}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(9 * time.Second)
	if _, ok := mustGet(t, m, 0, "k"); !ok {
		t.Fatal("write did not count as access")
	}
	// Per-entry max-idle overrides the default.
	if err := m.Set(0, []byte("e"), []byte("v"), Expiry{MaxIdle: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	if _, ok := mustGet(t, m, 0, "e"); ok {
		t.Fatal("per-entry max-idle ignored")
	}
}

func TestTTLAndMaxIdleTogether(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	if err := m.Set(0, []byte("k"), []byte("v"), Expiry{TTL: 10 * time.Second, MaxIdle: 4 * time.Second}); err != nil {
		t.Fatal(err)
	}
	v, _, _ := m.GetEntryView(0, []byte("k"))
	if want := clk.Now().Add(4 * time.Second).UnixMilli(); v.ExpirationTime != want {
		t.Fatalf("ExpirationTime %d, want %d (max-idle first)", v.ExpirationTime, want)
	}
	for range 3 {
		clk.Advance(3 * time.Second)
		if _, ok := mustGet(t, m, 0, "k"); !ok {
			t.Fatal("expired early")
		}
	}
	clk.Advance(time.Second) // 10s since the write: TTL wins despite reads
	if _, ok := mustGet(t, m, 0, "k"); ok {
		t.Fatal("TTL ignored")
	}
}

func TestExpiredEntryBehavesAbsent(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, TTL: time.Second, Clock: clk})
	var events []EventType
	m.SetObserver(ObserverFunc(func(e Event) { events = append(events, e.Type) }))
	steps := []struct {
		name string
		fn   func() bool // reports "present"
	}{
		{"get", func() bool { _, ok, _ := m.Get(0, []byte("k")); return ok }},
		{"containsKey", func() bool { ok, _ := m.ContainsKey(0, []byte("k")); return ok }},
		{"getEntryView", func() bool { _, ok, _ := m.GetEntryView(0, []byte("k")); return ok }},
		{"remove", func() bool { _, ok, _ := m.Remove(0, []byte("k")); return ok }},
		{"replace", func() bool { _, ok, _ := m.Replace(0, []byte("k"), []byte("x")); return ok }},
		{"put", func() bool { _, ok, _ := m.Put(0, []byte("k"), []byte("x"), Expiry{}); return ok }},
		{"putIfAbsent", func() bool { _, stored, _ := m.PutIfAbsent(0, []byte("k"), []byte("x"), Expiry{}); return !stored }},
		{"setTtl", func() bool { ok, _ := m.SetTTL(0, []byte("k"), time.Hour); return ok }},
		{"scan", func() bool { n := 0; _ = m.Scan(0, func(EntryView) bool { n++; return true }); return n > 0 }},
		{"iterate", func() bool {
			n := 0
			_, _ = m.Iterate(0, 0, 0, func(EntryView) bool { n++; return true })
			return n > 0
		}},
	}
	for _, s := range steps {
		mustSet(t, m, 0, "k", "v")
		clk.Advance(time.Second)
		events = events[:0]
		if s.fn() {
			t.Errorf("%s: expired entry seen as present", s.name)
		}
		if s.name != "scan" && s.name != "iterate" && (len(events) == 0 || events[0] != EventExpired) {
			t.Errorf("%s: events %v, want EXPIRED first", s.name, events)
		}
		_, _ = m.Delete(0, []byte("k"))
	}
	// Scan and iterate skip the expired entry; the Delete that follows
	// removes it as EXPIRED.
	if st := m.Stats(); st.Expirations != int64(len(steps)) {
		t.Errorf("expirations %d, want %d", st.Expirations, len(steps))
	}
}

func TestSetTTL(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, TTL: 100 * time.Second, Clock: clk})
	mustSet(t, m, 0, "k", "v")
	clk.Advance(50 * time.Second)
	if ok, err := m.SetTTL(0, []byte("k"), 10*time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	v, _, _ := m.GetEntryView(0, []byte("k"))
	if v.Version != 1 {
		t.Fatalf("SetTTL changed the version to %d", v.Version)
	}
	clk.Advance(9 * time.Second)
	if _, ok := mustGet(t, m, 0, "k"); !ok {
		t.Fatal("expired before the new TTL counted from now")
	}
	clk.Advance(time.Second)
	if _, ok := mustGet(t, m, 0, "k"); ok {
		t.Fatal("new TTL not applied")
	}
	mustSet(t, m, 0, "k", "v")
	if ok, _ := m.SetTTL(0, []byte("k"), Forever); !ok {
		t.Fatal("SetTTL Forever")
	}
	clk.Advance(1000 * time.Second)
	if _, ok := mustGet(t, m, 0, "k"); !ok {
		t.Fatal("Forever expired")
	}
	if ok, _ := m.SetTTL(0, []byte("k"), 0); !ok { // back to the map default, from now
		t.Fatal("SetTTL 0")
	}
	clk.Advance(99 * time.Second)
	if _, ok := mustGet(t, m, 0, "k"); !ok {
		t.Fatal("the map default did not count from SetTTL")
	}
	clk.Advance(time.Second)
	if _, ok := mustGet(t, m, 0, "k"); ok {
		t.Fatal("map default not restored")
	}
	if ok, _ := m.SetTTL(0, []byte("absent"), time.Second); ok {
		t.Fatal("SetTTL on an absent key")
	}
}

// TestSetTTLReadsBackAsSet: the entry view reports the TTL that was set,
// to the millisecond, however much time passed since the last write (it
// used to report the TTL shifted by the whole seconds since the write:
// 2h0m1s for 2h when a second ticked in between), and the entry expires
// that long after SetTTL.
func TestSetTTLReadsBackAsSet(t *testing.T) {
	for _, ttl := range []time.Duration{2 * time.Hour, 1500 * time.Millisecond, 40 * 24 * time.Hour} {
		clk := newManualClock()
		clk.Advance(700 * time.Millisecond)
		m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
		mustSet(t, m, 0, "k", "v")
		clk.Advance(600 * time.Millisecond) // a second ticks
		if ok, err := m.SetTTL(0, []byte("k"), ttl); !ok || err != nil {
			t.Fatal(ok, err)
		}
		set := clk.Now()
		v, _, _ := m.GetEntryView(0, []byte("k"))
		if v.Expiry.TTL != ttl {
			t.Errorf("TTL %v reads back as %v", ttl, v.Expiry.TTL)
		}
		if exp := time.UnixMilli(v.ExpirationTime); exp.Before(set.Add(ttl)) || exp.After(set.Add(ttl+time.Second)) {
			t.Errorf("TTL %v set at %v expires at %v", ttl, set, exp)
		}
		clk.Advance(ttl - time.Millisecond)
		if _, ok := mustGet(t, m, 0, "k"); !ok {
			t.Errorf("TTL %v: expired before the TTL elapsed since SetTTL", ttl)
		}
		clk.Advance(time.Second + time.Millisecond)
		if _, ok := mustGet(t, m, 0, "k"); ok {
			t.Errorf("TTL %v: present a second after it elapsed", ttl)
		}
	}
}

func TestSweep(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 7, Clock: clk})
	const n = 1000
	for i := range n {
		key := dataKey(nil, i)
		exp := Expiry{}
		if i%2 == 0 {
			exp.TTL = 5 * time.Second
		}
		if err := m.Set(partitionOf(key, 7), key, []byte("v"), exp); err != nil {
			t.Fatal(err)
		}
	}
	if r := m.Sweep(n); r.Expired != 0 {
		t.Fatalf("swept %d before expiry", r.Expired)
	}
	clk.Advance(5 * time.Second)
	var expired []int32
	m.SetObserver(ObserverFunc(func(e Event) {
		if e.Type != EventExpired {
			t.Errorf("event %v", e.Type)
		}
		expired = append(expired, e.Partition)
	}))
	total, calls := 0, 0
	for total < n/2 {
		r := m.Sweep(50)
		if r.Examined > 50 {
			t.Fatalf("examined %d over the budget", r.Examined)
		}
		total += r.Expired
		if calls++; calls > 100 {
			t.Fatalf("sweep made no progress: %d expired", total)
		}
		checkInvariants(t, m)
	}
	if total != n/2 || len(expired) != n/2 || m.Size() != n/2 {
		t.Fatalf("expired %d, events %d, size %d", total, len(expired), m.Size())
	}
	if st := m.Stats(); st.Expirations != n/2 {
		t.Fatalf("stats expirations %d", st.Expirations)
	}
	// Nothing left that can expire: sweeping costs no budget.
	if r := m.Sweep(10); r.Examined != 0 {
		t.Fatalf("examined %d entries that cannot expire", r.Examined)
	}
}

func TestSweepSkipsBackups(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 2, TTL: time.Second, Clock: clk})
	mustSet(t, m, 0, "owned", "v")
	mustSet(t, m, 1, "backup", "v")
	if err := m.SetRole(1, RoleBackup); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if r := m.Sweep(100); r.Expired != 1 {
		t.Fatalf("expired %d, want only the owned entry", r.Expired)
	}
	if n, _ := m.PartitionSize(1); n != 1 {
		t.Fatal("backup partition swept")
	}
}

// The same TTL behaviour on the real clock, with time faked by synctest.
func TestTTLSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newTestMap(t, MapConfig{PartitionCount: 1, TTL: time.Minute})
		mustSet(t, m, 0, "k", "v")
		time.Sleep(59 * time.Second)
		if _, ok := mustGet(t, m, 0, "k"); !ok {
			t.Fatal("expired early")
		}
		time.Sleep(time.Second)
		if _, ok := mustGet(t, m, 0, "k"); ok {
			t.Fatal("not expired after a minute")
		}
	})
}

func TestEntryViewTimes(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk, PerEntryStats: true})
	t0 := clk.Now().UnixMilli()
	mustSet(t, m, 0, "k", "v")
	clk.Advance(3 * time.Second)
	mustGet(t, m, 0, "k")
	mustGet(t, m, 0, "k")
	clk.Advance(4 * time.Second)
	mustSet(t, m, 0, "k", "w")
	clk.Advance(5 * time.Second)
	if err := m.Set(0, []byte("k"), []byte("w"), Expiry{TTL: time.Hour, MaxIdle: Forever}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	mustGet(t, m, 0, "k")
	v, _, _ := m.GetEntryView(0, []byte("k"))
	want := EntryMeta{
		Version:        3,
		Hits:           3,
		CreationTime:   t0,
		LastUpdateTime: t0 + 12000,
		LastAccessTime: t0 + 13000,
		Expiry:         Expiry{TTL: time.Hour, MaxIdle: Forever},
	}
	if v.EntryMeta != want {
		t.Fatalf("meta %+v\nwant %+v", v.EntryMeta, want)
	}
	if v.ExpirationTime != t0+12000+3600000 {
		t.Fatalf("ExpirationTime %d", v.ExpirationTime)
	}
	st := m.Stats()
	if st.Hits != 3 || st.LastAccessTime != t0+13000 || st.LastUpdateTime != t0+12000 {
		t.Fatalf("stats %+v", st)
	}
}
