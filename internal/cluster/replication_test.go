package cluster

import (
	"testing"

	"github.com/atolldb/atoll/internal/partition"
)

// TestBackupTakesOnlyFromItsOwner follows one partition on a backup: a
// copy or a change from a member its table does not name as the owner
// (a former owner whose copy was under way when it handed the partition
// over, or a member the cluster took for dead), and a copy older than the
// changes of the same history it applied, must neither replace its copy
// nor count as applied; a copy from the owner it knows is applied.
func TestBackupTakesOnlyFromItsOwner(t *testing.T) {
	ms := members(3)
	a, b, d := ms[0], ms[1], ms[2]
	n := &Node{cfg: Config{PartitionCount: 1}, self: b, table: &partition.Holder{}}
	n.table.Store(tableOf(1, ms, oneAssignment(a.UUID, b.UUID)))
	r := newReplicator(n)
	copies := 0
	fill := func() error { copies++; return nil }
	applied := func() (uint64, uint64) { return r.parts[0].appliedEpoch, r.parts[0].appliedSeq }

	// A owns the partition: its copy applies.
	if err := r.beginSync(a.UUID, 0); err != nil {
		t.Fatalf("a copy from the owner refused at its start: %v", err)
	}
	if err := r.applySync(a.UUID, 0, 5, 10, fill); err != nil || copies != 1 {
		t.Fatalf("a copy from the owner: %v (%d filled)", err, copies)
	}
	// An older copy of the same history (its sender gave up on it) does not.
	if err := r.applySync(a.UUID, 0, 5, 7, fill); err == nil || copies != 1 {
		t.Fatalf("an older copy of the same history applied (%v)", err)
	}
	if e, s := applied(); e != 5 || s != 10 {
		t.Fatalf("applied epoch %d seq %d after an older copy, want 5 and 10", e, s)
	}

	// A hands the partition to D, with B its backup still.
	n.table.Store(tableOf(2, ms, oneAssignment(d.UUID, b.UUID, a.UUID)))
	if err := r.beginSync(a.UUID, 0); err == nil {
		t.Fatal("a copy from the former owner accepted at its start")
	}
	if err := r.applySync(a.UUID, 0, 5, 12, fill); err == nil || copies != 1 {
		t.Fatalf("a copy from the former owner applied over the new owner's changes (%v)", err)
	}
	// A change of the former owner is ignored (the store, absent here,
	// is not touched) and asks for no copy from it.
	resync, err := r.apply(a.UUID, &Change{Partition: 0, Epoch: 5, Seq: 11})
	if err != nil || resync {
		t.Fatalf("a change from the former owner: resync %v, %v", resync, err)
	}
	if got := r.appliedFrom(5, 0); got != 10 {
		t.Fatalf("applied %d of the former owner's history, want 10", got)
	}
	if err := r.beginSync(d.UUID, 0); err != nil {
		t.Fatalf("a copy from the new owner refused at its start: %v", err)
	}
	if err := r.applySync(d.UUID, 0, 9, 1, fill); err != nil || copies != 2 {
		t.Fatalf("a copy from the new owner: %v (%d filled)", err, copies)
	}
	if e, s := applied(); e != 9 || s != 1 {
		t.Fatalf("applied epoch %d seq %d, want 9 and 1", e, s)
	}
}
