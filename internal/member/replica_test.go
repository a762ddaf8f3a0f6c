package member

import (
	"encoding/binary"
	"testing"

	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestReplicaStoreRefusesBadEntries: every way another member hands this
// one entries (a replicated change, a chunk of a partition's copy, a merged
// entry) refuses a key or value that is not well-formed Data of a known
// type, or a key whose hash maps to another partition, and stores nothing.
func TestReplicaStoreRefusesBadEntries(t *testing.T) {
	const partitions = 271
	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		t.Fatal(err)
	}
	data := func(v any) []byte {
		d, err := ser.ToData(v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	key, value := data(int32(7)), data("v")
	pid := serialization.Data(key).PartitionID(partitions)
	other := (pid + 1) % partitions
	unknownType := append([]byte(nil), value...)
	binary.BigEndian.PutUint32(unknownType[4:8], 0x7fff0000) // a type id no serializer has
	bad := map[string][2][]byte{
		"a value that is not Data":   {key, {1, 2, 3}},
		"an empty value":             {key, nil},
		"a value of an unknown type": {key, unknownType},
		"a key that is not Data":     {{1, 2, 3}, value},
		"an empty key":               {nil, value},
	}
	newStore := func() *replicaStore {
		reg := maps.NewRegistry(maps.Options{PartitionCount: partitions})
		return &replicaStore{maps: reg, ser: ser, partitions: partitions, clock: store.SystemClock}
	}
	r := newStore()
	r.SetRole(pid, false)
	r.SetRole(other, false)
	count := func() int {
		m, err := r.maps.Replica("victim")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range []int32{pid, other} {
			if err := m.Store.Scan(p, func(store.EntryView) bool { n++; return true }); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	// A chunk of a partition's copy holding one entry as it is (a store
	// does not look into Data), or nil when a store cannot hold it at all.
	chunkOf := func(p int32, k, v []byte) []byte {
		m, err := maps.NewRegistry(maps.Options{PartitionCount: partitions}).Get("victim")
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Store.Set(p, k, v, store.Expiry{}); err != nil {
			return nil // empty: no copy can hold it
		}
		chunk, _, err := m.Store.ExportAppend(nil, p, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return chunk
	}
	try := func(what string, p int32, k, v []byte) {
		t.Helper()
		rec := &cluster.Change{Partition: p, Map: "victim", Kind: cluster.ChangeRecord, Key: k, Value: v}
		if err := r.Apply(p, rec); err == nil {
			t.Errorf("a replicated change with %s was applied", what)
		}
		if stored, err := r.MergeEntry("victim", p, k, v, 0); err == nil || stored {
			t.Errorf("a merged entry with %s was stored (%v)", what, err)
		}
		if chunk := chunkOf(p, k, v); chunk != nil {
			if err := r.Check("victim", p, chunk); err == nil {
				t.Errorf("a copy holding an entry with %s passed its check", what)
			}
			if err := r.Import("victim", p, chunk); err == nil {
				t.Errorf("a copy holding an entry with %s was imported", what)
			}
		}
		if n := count(); n != 0 {
			t.Fatalf("after an entry with %s: %d entries stored", what, n)
		}
	}
	for what, kv := range bad {
		try(what, pid, kv[0], kv[1])
	}
	try("a key of another partition", other, key, value)
	removed := &cluster.Change{Partition: other, Map: "victim", Kind: cluster.ChangeRemoved, Key: key}
	if err := r.Apply(other, removed); err == nil {
		t.Error("a removal of a key of another partition was applied")
	}
	// The well-formed entry, in its own partition, is stored every way.
	if err := r.Import("victim", pid, chunkOf(pid, key, value)); err != nil {
		t.Fatalf("a good copy: %v", err)
	}
	if n := count(); n != 1 {
		t.Fatalf("a good copy stored %d entries, want 1", n)
	}
}
