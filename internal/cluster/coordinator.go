package cluster

import (
	"context"
	"slices"
	"sync"
	"time"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/partition"
)

// coordinator decides the partition table. It runs on every member and
// acts only on the coordinator (the first live member of the table). Each
// step compares the current table with the balanced target for the live
// members and moves toward it without ever leaving a partition with fewer
// complete copies than it had:
//
//  1. repairs that move no data are published at once: a partition whose
//     owner died gets its first live backup as owner (the synchronous
//     backups come first, and they have every acknowledged write), dead
//     members are removed, and the target's backups and the target owner
//     are added after the backups the partition already has (the owner
//     starts copying the partition to them);
//  2. operations then move the partition, at most MaxConcurrentMigrations
//     at a time: a handoff makes the target owner the owner once it has
//     every change (the old owner stops taking writes for that moment),
//     and a catch-up replaces the backup list with the target's once the
//     owner confirms the new backups have every change. Completed
//     operations are published together by the next step.
//
// Copying a partition to a new backup is not an operation: owners start
// copying as soon as a table lists the backup, all partitions at once
// (replication.go), so an operation only waits for the end of a copy, at
// most opTimeout. One that fails (a copy still under way, a member gone)
// frees its place for other partitions and is tried again after a backoff
// that doubles, per partition; one whose members leave the cluster is
// cancelled at once. Repairs never wait for operations.
//
// A backup is only trusted once a catch-up or handoff confirmed it has
// every change under its current owner (synced): a backup that repair
// added, or one left after its owner died (an asynchronous backup may lag
// the one promoted), gets a catch-up even when the list already matches
// the target, so that the operations in flight show it, and when an owner
// dies a confirmed backup is promoted first. A new coordinator trusts
// nothing it did not confirm itself, which costs a catch-up per partition
// that finds the backups already there.
//
// Removing a member that did not leave gracefully starts a new lineage:
// the member may still be alive on the other side of a network split. A
// member the table names that gossips another lineage for longer than
// forkGrace has done just that (it declared this side dead and went on
// without it): the coordinator counts it as failed, and it merges back
// like the smaller side of a split.
type coordinator struct {
	n    *Node
	wake chan struct{}

	mu          sync.Mutex
	ops         map[int32]migration // operations in flight
	done        []migration         // completed operations, not yet published
	completed   int64
	failed      int64
	coordinated bool // this member coordinated in the previous step
	// A partition whose last operation failed waits until retryAt; the
	// wait doubles with every failure in a row.
	retryAt   map[int32]time.Time
	retryWait map[int32]time.Duration
	start     int32 // where the next step starts looking for operations
	// round counts the times this member stopped coordinating: an
	// operation started in an earlier round has been abandoned.
	round int64

	synced map[int32]syncedCopies // confirmed backups, by partition

	forked map[partition.UUID]*forkedMember // named members gossiping another lineage
}

// forkedMember is a member the table names that gossips another lineage.
type forkedMember struct {
	since      time.Time
	countedOut bool
}

// forkGrace is how long a member the table names may gossip another
// lineage before the coordinator counts it out. A member that adopts a new
// table of this cluster gossips the table's lineage within a second or two
// (it syncs with the coordinator every second); one that forked its own
// cluster keeps gossiping its lineage.
const forkGrace = 10 * time.Second

// syncedCopies are the backups of a partition confirmed to have every
// change made under owner.
type syncedCopies struct {
	owner   partition.UUID
	backups []partition.UUID
}

// trusted reports whether every one of backups is confirmed under owner.
func (c *coordinator) trusted(pid int32, owner partition.UUID, backups []partition.Member) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.synced[pid]
	if !ok || s.owner != owner {
		return len(backups) == 0
	}
	for _, b := range backups {
		if !slices.Contains(s.backups, b.UUID) {
			return false
		}
	}
	return true
}

// migration is one operation on a partition.
type migration struct {
	pid    int32
	kind   string // "handing-off" or "syncing"
	from   partition.UUID
	to     partition.UUID   // handoff: the new owner
	want   []partition.UUID // catch-up: the backups, in order
	table  int64            // table version the operation started from
	round  int64            // the coordinator's round it started in
	failed bool
	cancel context.CancelFunc
}

// members lists the members an operation needs.
func (op migration) members() []partition.UUID {
	if op.kind == "handing-off" {
		return []partition.UUID{op.from, op.to}
	}
	return append([]partition.UUID{op.from}, op.want...)
}

// Bounds of an operation and of the backoff after it failed.
const (
	opTimeout    = 15 * time.Second
	minOpRetry   = 500 * time.Millisecond
	maxOpRetry   = 10 * time.Second
	opRetryReset = time.Minute // a success this long after the last failure forgets the backoff
)

func newCoordinator(n *Node) *coordinator {
	return &coordinator{n: n, wake: make(chan struct{}, 1), ops: map[int32]migration{}, synced: map[int32]syncedCopies{},
		forked: map[partition.UUID]*forkedMember{}, retryAt: map[int32]time.Time{}, retryWait: map[int32]time.Duration{}}
}

func (c *coordinator) kick() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *coordinator) run(context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		tick := false
		select {
		case <-c.n.stop:
			return
		case <-c.wake:
		case <-t.C:
			tick = true
		}
		if c.n.IsCoordinator() {
			if !c.coordinated {
				// A new coordinator continues from the newest table any
				// member has: the previous one may have published a table
				// that did not reach this member.
				c.collect()
				c.mu.Lock()
				c.synced = map[int32]syncedCopies{}
				c.mu.Unlock()
				c.coordinated = true
			}
			c.step()
		} else {
			if c.coordinated {
				c.abandonOps()
			}
			c.coordinated = false
			if tick {
				c.n.syncWithCoordinator()
			}
		}
		c.mergeIfSmaller()
	}
}

// abandonOps cancels and forgets the operations of a member that stopped
// coordinating: only the coordinator applies their results, so they would
// otherwise show as in flight for good, and applying a handoff that
// completed long ago, when this member coordinates again, would lose the
// writes its old owner took after a newer table unfroze the partition.
func (c *coordinator) abandonOps() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, op := range c.ops {
		op.cancel()
	}
	c.ops, c.done = map[int32]migration{}, nil
	c.round++
}

// collect adopts the newest table of this lineage among the members.
func (c *coordinator) collect() {
	var wg sync.WaitGroup
	for _, m := range c.n.Members() {
		if m.UUID == c.n.self.UUID {
			continue
		}
		wg.Add(1)
		go func(addr string) {
			defer wg.Done()
			t, _, err := c.n.callSyncTable(addr)
			if err == nil && t.Lineage == c.n.table.Load().Lineage && c.n.table.Store(t) {
				c.n.applyTable()
			}
		}(m.Address)
	}
	wg.Wait()
}

// markLeaving excludes a member from the target so that its partitions
// move, and returns how many members stay.
func (c *coordinator) markLeaving(u partition.UUID) int {
	c.n.mu.Lock()
	c.n.leaving[u] = true
	c.n.mu.Unlock()
	c.kick()
	staying, _ := c.staying()
	return len(staying)
}

// staying returns the live members that are not leaving, and all live ones.
func (c *coordinator) staying() (staying, alive []partition.Member) {
	alive = c.withoutForked(c.n.Members())
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	for _, m := range alive {
		if !c.n.leaving[m.UUID] && !c.n.aliveAll[m.UUID].leaving && !(m.UUID == c.n.self.UUID && c.n.selfLeaving.Load()) {
			staying = append(staying, m)
		}
	}
	return staying, alive
}

// withoutForked drops from ms the members that have gossiped a lineage
// other than the table's for longer than forkGrace.
func (c *coordinator) withoutForked(ms []partition.Member) []partition.Member {
	lineage := c.n.table.Load().Lineage
	now := time.Now()
	c.n.mu.Lock()
	other := map[partition.UUID]partition.UUID{}
	for _, m := range ms {
		if a, ok := c.n.aliveAll[m.UUID]; ok && m.UUID != c.n.self.UUID && a.lineage != lineage {
			other[m.UUID] = a.lineage
		}
	}
	c.n.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	for u := range c.forked {
		if _, ok := other[u]; !ok {
			delete(c.forked, u)
		}
	}
	out := ms[:0:0]
	for _, m := range ms {
		l, ok := other[m.UUID]
		if !ok {
			out = append(out, m)
			continue
		}
		f := c.forked[m.UUID]
		if f == nil {
			f = &forkedMember{since: now}
			c.forked[m.UUID] = f
		}
		if now.Sub(f.since) <= forkGrace {
			out = append(out, m)
			continue
		}
		if !f.countedOut {
			f.countedOut = true
			c.n.log.Warn("a member has gossiped another cluster's lineage for too long: counting it as failed",
				"member", m.Address, "lineage", l.String(), "since", f.since)
		}
	}
	return out
}

// target computes the balanced assignment for the members staying.
func (c *coordinator) target(cur *partition.Table) (assignment, []partition.Member) {
	staying, alive := c.staying()
	if len(staying) == 0 {
		staying = alive
	}
	return assign(cur, staying, c.n.cfg.PartitionCount, c.n.cfg.Replicas), alive
}

func (c *coordinator) step() {
	cur := c.n.table.Load()
	target, alive := c.target(cur)
	c.cancelStranded(alive)
	next, force := c.applyDone(cur, target)
	next = c.repair(next, alive, target)
	if force || !sameTable(next, cur) {
		next.HandingOff = c.handingOff()
		next.Version = cur.Version + 1
		next.Lineage = cur.Lineage
		if removed := c.failedMembers(cur, next); len(removed) > 0 {
			next.Lineage = partition.NewUUID()
			c.n.log.Warn("removed members that did not leave gracefully; the table starts a new lineage",
				"members", removed, "lineage", next.Lineage.String())
		}
		c.n.publish(next)
		cur = c.n.table.Load()
	}
	c.startOps(cur, target)
}

// failedMembers lists the members of cur that next drops without them
// having left gracefully.
func (c *coordinator) failedMembers(cur, next *partition.Table) []string {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	var out []string
	for _, m := range cur.Members {
		if next.IndexOf(m.UUID) < 0 && !c.n.left[m.UUID] {
			out = append(out, m.Address)
		}
	}
	// Forget departures the table no longer names.
	for u := range c.n.left {
		if next.IndexOf(u) < 0 {
			delete(c.n.left, u)
		}
	}
	return out
}

// handingOff lists the partitions with a handoff under way or done and not
// yet applied: their owners keep them frozen while a table lists them.
func (c *coordinator) handingOff() []int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int32
	for p, op := range c.ops {
		if op.kind == "handing-off" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// applyDone applies the completed operations that still make sense; force
// reports a failed handoff, which needs a new table version even if
// nothing else changed.
func (c *coordinator) applyDone(cur *partition.Table, target assignment) (next *partition.Table, force bool) {
	c.mu.Lock()
	done := c.done
	c.done = nil
	c.mu.Unlock()
	next = cloneTable(cur)
	for _, op := range done {
		p := op.pid
		c.mu.Lock()
		delete(c.ops, p)
		c.mu.Unlock()
		if op.failed {
			// A failed handoff may have frozen the partition on its owner:
			// the next table no longer lists it as handing off, which
			// unfreezes it.
			force = force || op.kind == "handing-off"
			continue
		}
		owner, ok := next.Owner(p)
		if !ok || owner.UUID != op.from {
			continue // the table moved on (a member died meanwhile)
		}
		switch op.kind {
		case "handing-off":
			ti := next.IndexOf(op.to)
			if ti < 0 || target.owners[p] != op.to {
				force = true // the target changed meanwhile: unfreeze
				continue
			}
			// The new owner's old backups stay, and the old owner keeps
			// its copy as a backup until a catch-up settles the list.
			backups := []int32{}
			for _, b := range next.Backups[p] {
				if b != ti {
					backups = append(backups, b)
				}
			}
			next.Owners[p] = ti
			next.Backups[p] = append(backups, next.IndexOf(op.from))
			// The old owner has every change; the backups that were
			// confirmed under it got the same changes in the same order.
			c.mu.Lock()
			confirmed := []partition.UUID{op.from}
			if s, ok := c.synced[p]; ok && s.owner == op.from {
				for _, b := range s.backups {
					if b != op.to {
						confirmed = append(confirmed, b)
					}
				}
			}
			c.synced[p] = syncedCopies{owner: op.to, backups: confirmed}
			c.mu.Unlock()
		case "syncing":
			if !slices.Equal(target.backups[p], op.want) || target.owners[p] != op.from {
				continue // the target changed meanwhile
			}
			backups := make([]int32, 0, len(op.want))
			for _, u := range op.want {
				if i := next.IndexOf(u); i >= 0 {
					backups = append(backups, i)
				}
			}
			if len(backups) != len(op.want) {
				continue
			}
			next.Backups[p] = backups
			c.mu.Lock()
			c.synced[p] = syncedCopies{owner: op.from, backups: slices.Clone(op.want)}
			c.mu.Unlock()
		}
	}
	return next, force
}

// repair builds the next table from cur: owners that died replaced by
// their first live backup, dead members removed, and the target's backups
// and owner added after the partition's current backups. Members are named
// in table order, members new to the table last.
func (c *coordinator) repair(cur *partition.Table, alive []partition.Member, target assignment) *partition.Table {
	isAlive := map[partition.UUID]bool{}
	for _, m := range alive {
		isAlive[m.UUID] = true
	}
	a := assignment{owners: make([]partition.UUID, len(cur.Owners)), backups: make([][]partition.UUID, len(cur.Owners))}
	for p := range cur.Owners {
		pid := int32(p)
		var backups []partition.UUID
		for _, b := range cur.BackupsOf(pid) {
			if isAlive[b.UUID] {
				backups = append(backups, b.UUID)
			}
		}
		var owner partition.UUID
		if o, ok := cur.Owner(pid); ok && isAlive[o.UUID] {
			owner = o.UUID
		} else if len(backups) > 0 {
			// The first confirmed backup (the synchronous ones come
			// first), else the first: it may have every change.
			first := 0
			c.mu.Lock()
			if sc, known := c.synced[pid]; known && ok && sc.owner == o.UUID {
				for i, b := range backups {
					if slices.Contains(sc.backups, b) {
						first = i
						break
					}
				}
			}
			c.mu.Unlock()
			owner = backups[first]
			backups = append(slices.Clone(backups[:first]), backups[first+1:]...)
		} else {
			owner = target.owners[p]
			if ok {
				c.n.log.Error("a partition lost its owner and every backup; its data is gone", "partition", p)
			}
		}
		a.owners[p] = owner
		add := func(u partition.UUID) {
			if u != owner && isAlive[u] && !slices.Contains(backups, u) {
				backups = append(backups, u)
			}
		}
		for _, b := range target.backups[p] {
			add(b)
		}
		add(target.owners[p])
		a.backups[p] = backups
	}
	return tableOf(0, alive, a)
}

// cancelStranded cancels the operations that need a member that is no
// longer alive: they would only hold their place until they time out.
func (c *coordinator) cancelStranded(alive []partition.Member) {
	isAlive := map[partition.UUID]bool{}
	for _, m := range alive {
		isAlive[m.UUID] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, op := range c.ops {
		for _, u := range op.members() {
			if !isAlive[u] && op.cancel != nil {
				op.cancel()
				break
			}
		}
	}
}

// startOps starts handoffs and catch-ups toward the target, looking at the
// partitions from where the previous step stopped, so that every
// partition gets its turn; partitions waiting after a failure are skipped.
func (c *coordinator) startOps(cur *partition.Table, target assignment) {
	n := int32(len(cur.Owners))
	c.mu.Lock()
	first := c.start % max(n, 1)
	c.mu.Unlock()
	now := time.Now()
	for i := int32(0); i < n; i++ {
		pid := (first + i) % n
		p := int(pid)
		owner, ok := cur.Owner(pid)
		if !ok {
			continue
		}
		c.mu.Lock()
		waiting := now.Before(c.retryAt[pid])
		c.mu.Unlock()
		if waiting {
			continue
		}
		var op migration
		switch {
		case owner.UUID != target.owners[p]:
			if !wasBackup(cur, pid, target.owners[p]) {
				continue
			}
			op = migration{pid: pid, kind: "handing-off", from: owner.UUID, to: target.owners[p], table: cur.Version}
		case !sameMembers(cur.BackupsOf(pid), target.backups[p]):
			op = migration{pid: pid, kind: "syncing", from: owner.UUID, want: target.backups[p], table: cur.Version}
		case !c.trusted(pid, owner.UUID, cur.BackupsOf(pid)):
			op = migration{pid: pid, kind: "syncing", from: owner.UUID, want: target.backups[p], table: cur.Version}
		default:
			continue
		}
		c.mu.Lock()
		_, busy := c.ops[pid]
		full := len(c.ops) >= c.n.cfg.MaxConcurrentMigrations
		var ctx context.Context
		if !busy && !full {
			op.round = c.round
			ctx, op.cancel = context.WithTimeout(context.Background(), opTimeout)
			c.ops[pid] = op
			c.start = pid + 1
		}
		c.mu.Unlock()
		if full {
			return
		}
		if !busy {
			go c.runOp(ctx, op)
		}
	}
}

func sameMembers(ms []partition.Member, us []partition.UUID) bool {
	if len(ms) != len(us) {
		return false
	}
	for i := range ms {
		if ms[i].UUID != us[i] {
			return false
		}
	}
	return true
}

// runOp runs one operation on the partition's owner and queues its result
// for the next step.
func (c *coordinator) runOp(ctx context.Context, op migration) {
	defer op.cancel()
	var err error
	if op.kind == "handing-off" {
		err = c.callOwner(ctx, op.from, func(cl memberv1.MemberServiceClient) error {
			_, err := cl.Handoff(ctx, &memberv1.HandoffRequest{Partition: op.pid, ToUuid: op.to[:], TableVersion: op.table})
			return err
		}, func() error { return c.n.repl.handoff(ctx, op.pid, op.to, op.table) })
	} else {
		uuids := make([][]byte, len(op.want))
		for i, u := range op.want {
			uuids[i] = u[:]
		}
		err = c.callOwner(ctx, op.from, func(cl memberv1.MemberServiceClient) error {
			_, err := cl.CatchUp(ctx, &memberv1.CatchUpRequest{Partition: op.pid, MemberUuids: uuids})
			return err
		}, func() error { return c.n.repl.catchUp(ctx, op.pid, op.want) })
	}
	c.mu.Lock()
	if op.round != c.round {
		c.mu.Unlock()
		return // abandoned: this member stopped coordinating meanwhile
	}
	if op.failed = err != nil; op.failed {
		c.failed++
		wait := min(max(2*c.retryWait[op.pid], minOpRetry), maxOpRetry)
		c.retryWait[op.pid], c.retryAt[op.pid] = wait, time.Now().Add(wait)
		c.n.log.Info("partition migration failed; it will be retried", "partition", op.pid, "operation", op.kind, "retry in", wait, "err", err)
	} else {
		c.completed++
		if time.Since(c.retryAt[op.pid]) > opRetryReset {
			delete(c.retryWait, op.pid)
			delete(c.retryAt, op.pid)
		}
	}
	c.done = append(c.done, op) // the operation stays in flight until the next step
	c.mu.Unlock()
	c.kick()
}

// callOwner runs remote on the member u, or local when u is this member.
func (c *coordinator) callOwner(ctx context.Context, u partition.UUID, remote func(memberv1.MemberServiceClient) error, local func() error) error {
	if u == c.n.self.UUID {
		return local()
	}
	addr, ok := c.n.memberAddr(u)
	if !ok {
		return errStopped
	}
	cl, err := c.n.peers.client(addr)
	if err != nil {
		return err
	}
	return remote(cl)
}

// sameTable compares two tables by member identity, ignoring versions.
func sameTable(a, b *partition.Table) bool {
	if len(a.Owners) != len(b.Owners) || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Members {
		if a.Members[i].UUID != b.Members[i].UUID {
			return false
		}
	}
	for p := range a.Owners {
		if a.Owners[p] != b.Owners[p] || !slices.Equal(a.Backups[p], b.Backups[p]) {
			return false
		}
	}
	return true
}

func cloneTable(t *partition.Table) *partition.Table {
	out := &partition.Table{Version: t.Version, Lineage: t.Lineage, Members: slices.Clone(t.Members), Owners: slices.Clone(t.Owners), Backups: make([][]int32, len(t.Backups))}
	for i, b := range t.Backups {
		out.Backups[i] = slices.Clone(b)
	}
	return out
}

// Migrations returns the operations in flight and the totals.
func (n *Node) Migrations() (inFlight []migration, completed, failed int64) {
	c := n.coord
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, op := range c.ops {
		inFlight = append(inFlight, op)
	}
	slices.SortFunc(inFlight, func(a, b migration) int { return int(a.pid - b.pid) })
	return inFlight, c.completed, c.failed
}
