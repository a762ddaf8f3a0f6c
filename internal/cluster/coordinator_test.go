package cluster

import (
	"context"
	"log/slog"
	"testing"

	"github.com/atolldb/atoll/internal/partition"
)

// oneAssignment is an assignment of a single partition.
func oneAssignment(owner partition.UUID, backups ...partition.UUID) assignment {
	return assignment{owners: []partition.UUID{owner}, backups: [][]partition.UUID{backups}}
}

// TestBackupsAreTrustedOnceConfirmed follows one partition through the
// coordinator's steps: a backup that repair adds is not trusted (so a
// catch-up runs, and the migration shows, although the list already
// matches the target) until a catch-up confirms it; a handoff keeps the
// confirmed copies; an owner that dies is replaced by a confirmed backup
// before an unconfirmed one.
func TestBackupsAreTrustedOnceConfirmed(t *testing.T) {
	ms := members(4)
	a, b, c, d := ms[0], ms[1], ms[2], ms[3]
	co := newCoordinator(&Node{log: slog.Default()})
	backupsOf := func(tb *partition.Table) []partition.Member { return tb.BackupsOf(0) }

	// A owns the partition, B backs it up, confirmed.
	cur := tableOf(1, []partition.Member{a, b, c}, oneAssignment(a.UUID, b.UUID))
	co.synced[0] = syncedCopies{owner: a.UUID, backups: []partition.UUID{b.UUID}}
	if !co.trusted(0, a.UUID, backupsOf(cur)) {
		t.Fatal("a confirmed backup is not trusted")
	}

	// B dies: repair makes C the backup, which the target wants too.
	target := oneAssignment(a.UUID, c.UUID)
	next := co.repair(cur, []partition.Member{a, c}, target)
	if got := backupsOf(next); len(got) != 1 || got[0].UUID != c.UUID {
		t.Fatalf("backups after repair: %v, want C", got)
	}
	if co.trusted(0, a.UUID, backupsOf(next)) {
		t.Fatal("a backup that repair added is trusted before a catch-up confirmed it")
	}

	// The catch-up completes.
	co.done = []migration{{pid: 0, kind: "syncing", from: a.UUID, want: []partition.UUID{c.UUID}}}
	next, _ = co.applyDone(next, target)
	if !co.trusted(0, a.UUID, backupsOf(next)) {
		t.Fatal("a backup a catch-up confirmed is not trusted")
	}

	// D joins and takes the partition over by a handoff: A (which has
	// everything) and C (confirmed under A) stay confirmed under D.
	cur = tableOf(5, []partition.Member{a, c, d}, oneAssignment(a.UUID, c.UUID, d.UUID))
	target = oneAssignment(d.UUID, c.UUID)
	co.done = []migration{{pid: 0, kind: "handing-off", from: a.UUID, to: d.UUID}}
	next, _ = co.applyDone(cur, target)
	if o, _ := next.Owner(0); o.UUID != d.UUID {
		t.Fatalf("owner after the handoff: %v, want D", o)
	}
	if !co.trusted(0, d.UUID, backupsOf(next)) {
		t.Fatalf("after the handoff the backups %v are not trusted", backupsOf(next))
	}

	// D dies while B' (a fresh, unconfirmed backup) is listed before C:
	// C, which has every change, becomes the owner.
	fresh := partition.Member{UUID: partition.UUID{9}, Address: "fresh"}
	cur = tableOf(7, []partition.Member{c, d, fresh}, oneAssignment(d.UUID, fresh.UUID, c.UUID))
	next = co.repair(cur, []partition.Member{c, fresh}, oneAssignment(c.UUID, fresh.UUID))
	if o, _ := next.Owner(0); o.UUID != c.UUID {
		t.Fatalf("promoted %v, want the confirmed backup C", o)
	}

	// A coordinator that did not confirm a backup does not trust it.
	if newCoordinator(&Node{log: slog.Default()}).trusted(0, c.UUID, backupsOf(next)) {
		t.Fatal("a new coordinator trusts a backup it never confirmed")
	}
}

// TestMembersBeforeStart: /metrics asks for the members as soon as the
// admin port serves, which may be before the node has a table.
func TestMembersBeforeStart(t *testing.T) {
	self := members(1)[0]
	n, err := New(Config{ClusterName: "test", Self: self, PartitionCount: 271, Table: &partition.Holder{}})
	if err != nil {
		t.Fatal(err)
	}
	if ms := n.Members(); len(ms) != 1 || ms[0].UUID != self.UUID {
		t.Fatalf("members before start: %v, want only this member", ms)
	}
	if !n.IsCoordinator() {
		t.Fatal("a member alone is not its own coordinator")
	}
}

// TestHandoffFreeze: a partition frozen for a handoff stays frozen under
// every table the coordinator may publish before it applies the handoff,
// and thaws once a table moves it or no longer lists it as handing off.
func TestHandoffFreeze(t *testing.T) {
	const pid, startedAt = 7, 10
	table := func(version int64, handingOff ...int32) *partition.Table {
		return &partition.Table{Version: version, HandingOff: handingOff}
	}
	cases := []struct {
		name   string
		t      *partition.Table
		owned  bool
		frozen bool
	}{
		{"the handoff's own table, arriving late", table(startedAt), true, true},
		{"an older table", table(startedAt - 1), true, true},
		{"a newer table that lists the handoff", table(startedAt+1, 3, pid), true, true},
		{"a newer table for other migrations, handoff done but not applied", table(startedAt+2, pid), true, true},
		{"a newer table without it: the handoff failed", table(startedAt+3, 3), true, false},
		{"a table that moved the partition", table(startedAt+3, pid), false, false},
	}
	for _, c := range cases {
		if got := staysFrozen(c.t, pid, c.owned, startedAt); got != c.frozen {
			t.Errorf("%s: frozen %v, want %v", c.name, got, c.frozen)
		}
	}
}

// TestAbandonedOpsLeave: a member that stops coordinating cancels and
// forgets its operations (only a coordinator applies their results, so
// they would show as in flight for good) and drops the results it had
// not published yet.
func TestAbandonedOpsLeave(t *testing.T) {
	ms := members(2)
	co := newCoordinator(&Node{log: slog.Default()})
	ctx, cancel := context.WithCancel(context.Background())
	co.ops[3] = migration{pid: 3, kind: "syncing", from: ms[0].UUID, want: []partition.UUID{ms[1].UUID}, cancel: cancel}
	co.done = []migration{{pid: 4, kind: "handing-off", from: ms[0].UUID, to: ms[1].UUID}}
	co.n.coord = co
	co.abandonOps()
	if ctx.Err() == nil {
		t.Fatal("an abandoned operation was not cancelled")
	}
	if inFlight, _, _ := co.n.Migrations(); len(inFlight) != 0 || len(co.done) != 0 {
		t.Fatalf("after abandoning: %d in flight, %d results kept", len(inFlight), len(co.done))
	}
	if co.round != 1 {
		t.Fatalf("round %d after abandoning, want 1", co.round)
	}
}
