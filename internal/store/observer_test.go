package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// eventLog copies what it keeps, as the Observer contract requires.
type eventLog struct{ got []string }

func (l *eventLog) OnEvent(e Event) {
	s := fmt.Sprintf("%s p%d %s", e.Type, e.Partition, e.Key)
	if e.OldValue != nil {
		s += " old=" + string(e.OldValue)
	}
	if e.NewValue != nil {
		s += " new=" + string(e.NewValue)
	}
	if e.Type != EventCleared && e.Type != EventDropped {
		s += fmt.Sprintf(" v%d", e.Meta.Version)
	}
	if e.Backup {
		s += " backup"
	}
	l.got = append(l.got, strings.TrimSpace(s))
}

func TestObserverSequences(t *testing.T) {
	k, v1, v2 := []byte("k"), []byte("one"), []byte("two")
	tests := []struct {
		name string
		ops  func(m *Map)
		want []string
	}{
		{"put, update, remove", func(m *Map) {
			m.Put(1, k, v1, Expiry{})
			m.Put(1, k, v2, Expiry{})
			m.Remove(1, k)
		}, []string{"ADDED p1 k new=one v1", "UPDATED p1 k old=one new=two v2", "REMOVED p1 k old=two v2"}},
		{"same-size update still reports the old value", func(m *Map) {
			m.Set(0, k, []byte("aaa"), Expiry{})
			m.Set(0, k, []byte("bbb"), Expiry{})
		}, []string{"ADDED p0 k new=aaa v1", "UPDATED p0 k old=aaa new=bbb v2"}},
		{"failed conditional writes emit nothing", func(m *Map) {
			m.Set(0, k, v1, Expiry{})
			m.PutIfAbsent(0, k, v2, Expiry{})
			m.Replace(0, []byte("x"), v2)
			m.ReplaceIfSame(0, k, v2, v1)
			m.RemoveIfSame(0, k, v2)
			m.SetIfVersion(0, k, v2, 5, Expiry{})
			m.RemoveIfVersion(0, k, 5)
			m.Delete(0, []byte("x"))
		}, []string{"ADDED p0 k new=one v1"}},
		{"conditional writes that apply", func(m *Map) {
			m.PutIfAbsent(0, k, v1, Expiry{})
			m.ReplaceIfSame(0, k, v1, v2)
			m.SetIfVersion(0, k, v1, 2, Expiry{})
			m.RemoveIfVersion(0, k, 3)
		}, []string{"ADDED p0 k new=one v1", "UPDATED p0 k old=one new=two v2", "UPDATED p0 k old=two new=one v3", "REMOVED p0 k old=one v3"}},
		{"evict", func(m *Map) {
			m.Set(0, k, v1, Expiry{})
			m.Evict(0, k)
		}, []string{"ADDED p0 k new=one v1", "EVICTED p0 k old=one v1"}},
		{"clear and drop are one event each", func(m *Map) {
			m.Set(0, k, v1, Expiry{})
			m.Set(0, []byte("j"), v1, Expiry{})
			m.Clear(0)
			m.Clear(0) // empty: nothing to report
			m.Clear(3) // never written
			m.Set(1, k, v1, Expiry{})
			m.DropPartition(1)
			m.DropPartition(1)
		}, []string{"ADDED p0 k new=one v1", "ADDED p0 j new=one v1", "CLEARED p0", "ADDED p1 k new=one v1", "DROPPED p1"}},
		{"putAll in order", func(m *Map) {
			m.PutAll(2, []Entry{{k, v1}, {[]byte("j"), v2}, {k, v2}}, Expiry{})
		}, []string{"ADDED p2 k new=one v1", "ADDED p2 j new=two v1", "UPDATED p2 k old=one new=two v2"}},
		{"setTtl", func(m *Map) {
			m.Set(0, k, v1, Expiry{})
			m.SetTTL(0, k, time.Hour)
		}, []string{"ADDED p0 k new=one v1", "EXPIRY_CHANGED p0 k old=one new=one v1"}},
		{"replication keeps the owner's version; backups say so", func(m *Map) {
			m.SetRole(3, RoleBackup)
			m.ApplyRecord(3, EntryView{Key: k, Value: v1, EntryMeta: EntryMeta{Version: 41}})
			m.ApplyRecord(3, EntryView{Key: k, Value: v2, EntryMeta: EntryMeta{Version: 42}})
			m.ApplyRemove(3, k)
		}, []string{"ADDED p3 k new=one v41 backup", "UPDATED p3 k old=one new=two v42 backup", "REMOVED p3 k old=two v42 backup"}},
		{"reads emit nothing", func(m *Map) {
			m.Set(0, k, v1, Expiry{})
			m.Get(0, k)
			m.ContainsKey(0, k)
			m.GetEntryView(0, k)
			m.GetAll(0, [][]byte{k}, func(int, []byte) {})
			m.Scan(0, func(EntryView) bool { return true })
		}, []string{"ADDED p0 k new=one v1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, MapConfig{PartitionCount: 4})
			log := &eventLog{}
			m.SetObserver(log)
			tc.ops(m)
			if !slices.Equal(log.got, tc.want) {
				t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(log.got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			checkInvariants(t, m)
		})
	}
}

func TestObserverExpiredEvents(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, TTL: time.Second, Clock: clk})
	log := &eventLog{}
	m.SetObserver(log)
	mustSet(t, m, 0, "a", "1")
	mustSet(t, m, 0, "b", "2")
	clk.Advance(time.Second)
	mustGet(t, m, 0, "a")      // lazy
	mustSet(t, m, 0, "b", "3") // expired, then added anew
	want := []string{"ADDED p0 a new=1 v1", "ADDED p0 b new=2 v1",
		"EXPIRED p0 a old=1 v1", "EXPIRED p0 b old=2 v1", "ADDED p0 b new=3 v1"}
	if !slices.Equal(log.got, want) {
		t.Fatalf("events %q\nwant %q", log.got, want)
	}
}

func TestObserverMeta(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	var metas []EntryMeta
	m.SetObserver(ObserverFunc(func(e Event) { metas = append(metas, e.Meta) }))
	t0 := clk.Now().UnixMilli()
	if err := m.Set(0, []byte("k"), []byte("v"), Expiry{TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	mustSet(t, m, 0, "k", "w")
	want := []EntryMeta{
		{Version: 1, CreationTime: t0, LastUpdateTime: t0, LastAccessTime: t0, Expiry: Expiry{TTL: time.Minute}},
		{Version: 2, CreationTime: t0, LastUpdateTime: t0 + 2000, LastAccessTime: t0 + 2000},
	}
	if !slices.Equal(metas, want) {
		t.Fatalf("metas %+v\nwant %+v", metas, want)
	}
	// An event carries everything needed to replicate the record.
	backup := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	m.SetObserver(ObserverFunc(func(e Event) {
		if err := backup.ApplyRecord(e.Partition, EntryView{Key: e.Key, Value: e.NewValue, EntryMeta: e.Meta}); err != nil {
			t.Error(err)
		}
	}))
	mustSet(t, m, 0, "k", "x")
	a, _, _ := m.GetEntryView(0, []byte("k"))
	b, _, _ := backup.GetEntryView(0, []byte("k"))
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("replica differs:\n%+v\n%+v", a, b)
	}
}

func TestObserverRemoved(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	n := 0
	m.SetObserver(ObserverFunc(func(Event) { n++ }))
	mustSet(t, m, 0, "a", "1")
	m.SetObserver(nil)
	mustSet(t, m, 0, "b", "1")
	if n != 1 {
		t.Fatalf("%d events after removing the observer", n)
	}
}
