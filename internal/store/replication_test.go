package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

func allViews(t *testing.T, m *Map, pid int32) []string {
	t.Helper()
	var out []string
	_, err := m.Iterate(pid, 0, 0, func(v EntryView) bool {
		out = append(out, fmt.Sprintf("%s=%x %+v exp=%d", v.Key, sha256.Sum256(v.Value), v.EntryMeta, v.ExpirationTime))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out) // iteration order depends on the map's hash seed
	return out
}

// firstDiff describes where two sorted view lists differ, briefly.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d:\n  %.200s\n  %.200s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// loadVaried writes entries with every kind of metadata.
func loadVaried(t *testing.T, m *Map, clk *manualClock, pid int32, n int) {
	for i := range n {
		k := []byte(fmt.Sprint("key-", i))
		v := bytes.Repeat([]byte{byte(i)}, 1+i%5*700) // tiers 0 and 1
		exp := Expiry{}
		switch i % 4 {
		case 1:
			exp.TTL = time.Duration(i) * time.Hour
		case 2:
			exp.MaxIdle = time.Hour
		case 3:
			exp = Expiry{TTL: Forever, MaxIdle: 90 * time.Minute}
		}
		if err := m.Set(pid, k, v, exp); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := m.Set(pid, k, v, exp); err != nil { // version 2
				t.Fatal(err)
			}
		}
		if i%5 == 0 {
			mustGet(t, m, pid, string(k)) // a hit and an access time
		}
		clk.Advance(time.Second)
	}
}

func TestExportImportIdentical(t *testing.T) {
	clk := newManualClock()
	owner := newTestMap(t, MapConfig{PartitionCount: 3, TTL: time.Hour, Clock: clk})
	loadVaried(t, owner, clk, 2, 300)
	backupClock := newManualClock()
	backupClock.Advance(300*time.Second + 1500*time.Millisecond) // another member's clock
	backup := newTestMap(t, MapConfig{PartitionCount: 3, TTL: time.Hour, Clock: backupClock})
	if err := backup.SetRole(2, RoleBackup); err != nil {
		t.Fatal(err)
	}
	mustSet(t, backup, 2, "key-7", "stale") // replaced by the import
	chunks, records := 0, 0
	for c := Cursor(0); c != CursorDone; chunks++ {
		var chunk []byte
		var err error
		chunk, c, err = owner.ExportAppend(nil, 2, c, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunk) > 4096+4000 {
			t.Fatalf("chunk of %d bytes for maxBytes 4096", len(chunk))
		}
		n, err := backup.Import(2, chunk)
		if err != nil {
			t.Fatal(err)
		}
		records += n
	}
	if records != 300 || chunks < 10 {
		t.Fatalf("%d records in %d chunks", records, chunks)
	}
	a, b := allViews(t, owner, 2), allViews(t, backup, 2)
	if len(a) != 300 || !slices.Equal(a, b) {
		t.Fatalf("backup differs from owner %s", firstDiff(a, b))
	}
	st := backup.Stats()
	if st.BackupEntryCount != 300 || st.OwnedEntryCount != 0 || st.BackupEntryMemoryCost <= 0 {
		t.Fatalf("backup stats %+v", st)
	}
	checkInvariants(t, backup)
}

func TestApplyRecordIdentical(t *testing.T) {
	clk := newManualClock()
	owner := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk, PerEntryStats: true})
	backup := newTestMap(t, MapConfig{PartitionCount: 1, Clock: newManualClock(), PerEntryStats: true})
	owner.SetObserver(ObserverFunc(func(e Event) {
		var err error
		switch e.Type {
		case EventAdded, EventUpdated, EventExpiryChanged:
			err = backup.ApplyRecord(e.Partition, EntryView{Key: e.Key, Value: e.NewValue, EntryMeta: e.Meta})
		case EventRemoved, EventEvicted, EventExpired:
			_, err = backup.ApplyRemove(e.Partition, e.Key)
		}
		if err != nil {
			t.Error(err)
		}
	}))
	loadVaried(t, owner, clk, 0, 100)
	owner.Delete(0, []byte("key-3"))
	owner.Evict(0, []byte("key-4"))
	owner.SetTTL(0, []byte("key-5"), time.Minute)
	// Reads change only the owner's access metadata (not replicated).
	a, b := allViews(t, owner, 0), allViews(t, backup, 0)
	// (sorted by key, so entries pair up)
	if len(a) != 98 || len(b) != 98 {
		t.Fatalf("sizes %d %d", len(a), len(b))
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	// The 20 entries read after their last write differ in hits and access
	// time, except key-5 whose SetTTL replicated the whole record after.
	if diff != 19 {
		t.Fatalf("%d entries differ, want 19", diff)
	}
}

func TestImportCorrupt(t *testing.T) {
	clk := newManualClock()
	src := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	loadVaried(t, src, clk, 0, 20)
	chunk, _, _ := src.ExportAppend(nil, 0, 0, 0)
	dst := newTestMap(t, MapConfig{PartitionCount: 1, MaxValueSize: 2000})
	mustSet(t, dst, 0, "existing", "v")
	before := snapshot(t, dst)
	bad := [][]byte{nil, {}, {9}, {exportFormat, 0}}
	for i := 1; i < len(chunk); i++ {
		bad = append(bad, chunk[:i]) // every truncation but the empty chunk
	}
	flags := bytes.Clone(chunk)
	flags = append(flags[:1], append([]byte{1, 'k', 1, 'v', 1, 0, 0, 0, 0, 7}, flags[1:]...)...) // unknown flag bits
	bad = append(bad, flags)
	for i, c := range bad {
		if i > 0 && len(c) == 1 {
			continue // format byte only: a valid empty chunk
		}
		n, err := dst.Import(0, c)
		if !errors.Is(err, ErrCorrupt) || n != 0 {
			// A truncation can end exactly at a record boundary: valid.
			if err == nil && bytes.HasPrefix(chunk, c) {
				dst = newTestMap(t, MapConfig{PartitionCount: 1, MaxValueSize: 2000})
				mustSet(t, dst, 0, "existing", "v")
				before = snapshot(t, dst)
				continue
			}
			t.Fatalf("chunk %d (%d bytes): n=%d err=%v", i, len(c), n, err)
		}
		if !bytes.Equal(before, snapshot(t, dst)) {
			t.Fatalf("chunk %d changed the map", i)
		}
	}
	// Values over this map's limit (3500 bytes in src) are refused whole.
	if _, err := dst.Import(0, chunk); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("over-limit value: %v", err)
	}
	if !bytes.Equal(before, snapshot(t, dst)) {
		t.Fatal("partial import")
	}
}

func TestRoleAccounting(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 3})
	for i := range 30 {
		mustSet(t, m, int32(i%3), fmt.Sprint(i), "value")
	}
	s0 := m.Stats()
	if s0.OwnedEntryCount != 30 || s0.BackupEntryCount != 0 {
		t.Fatalf("%+v", s0)
	}
	if err := m.SetRole(1, RoleBackup); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Role(1); r != RoleBackup {
		t.Fatal("role not set")
	}
	s1 := m.Stats()
	if s1.OwnedEntryCount != 20 || s1.BackupEntryCount != 10 ||
		s1.OwnedEntryMemoryCost+s1.BackupEntryMemoryCost != s0.OwnedEntryMemoryCost {
		t.Fatalf("after role change %+v (before %+v)", s1, s0)
	}
	if err := m.SetRole(1, RoleOwner); err != nil {
		t.Fatal(err)
	}
	if s2 := m.Stats(); s2.OwnedEntryCount != 30 || s2.OwnedEntryMemoryCost != s0.OwnedEntryMemoryCost || s2.BackupEntryMemoryCost != 0 {
		t.Fatalf("back to owner %+v", s2)
	}
	if err := m.DropPartition(2); err != nil {
		t.Fatal(err)
	}
	s3 := m.Stats()
	if s3.OwnedEntryCount != 20 {
		t.Fatalf("after drop %+v", s3)
	}
	checkInvariants(t, m)
}

// Dropping or clearing returns the memory: only the partition struct stays.
func TestDropReleasesMemory(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	empty := m.Stats().OwnedEntryMemoryCost
	for i := range 5000 {
		mustSet(t, m, 0, fmt.Sprint(i), string(make([]byte, 1+i%3000)))
	}
	if c := m.Stats().OwnedEntryMemoryCost; c < 6_500_000 {
		t.Fatalf("cost %d too low", c)
	}
	if _, err := m.Clear(0); err != nil {
		t.Fatal(err)
	}
	if got := m.Stats().OwnedEntryMemoryCost; got != partStructSize || empty != 0 {
		t.Fatalf("cost after clear %d, want %d (empty map %d)", got, partStructSize, empty)
	}
}

// TestImportEventsAreABackups: a copy Import applies is another member's
// data, so its events are marked as a backup's even in a partition still
// in the owner role (a table that moves the partition away waits for the
// import's lock), and a replication hook never numbers them as its own
// changes.
func TestImportEventsAreABackups(t *testing.T) {
	owner := newTestMap(t, MapConfig{PartitionCount: 3})
	for i := range 20 {
		mustSet(t, owner, 1, fmt.Sprintf("key-%d", i), "v")
	}
	chunk, _, err := owner.ExportAppend(nil, 1, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []Role{RoleOwner, RoleBackup} {
		m := newTestMap(t, MapConfig{PartitionCount: 3})
		if err := m.SetRole(1, role); err != nil {
			t.Fatal(err)
		}
		mustSet(t, m, 1, "key-3", "stale")
		var events, backups int
		m.SetObserver(ObserverFunc(func(e Event) {
			events++
			if e.Backup {
				backups++
			}
		}))
		if _, err := m.Import(1, chunk); err != nil {
			t.Fatal(err)
		}
		if events != 20 || backups != 20 {
			t.Fatalf("role %v: %d events, %d of them a backup's; want 20 and 20", role, events, backups)
		}
		mustSet(t, m, 1, "key-3", "own") // a write's event follows the role
		want := 20
		if role == RoleBackup {
			want = 21
		}
		if backups != want {
			t.Fatalf("role %v: %d events marked as a backup's after a write, want %d", role, backups, want)
		}
	}
}
