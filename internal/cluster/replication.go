package cluster

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/partition"
)

// Replication protocol
//
// The owner of a partition numbers every change of the partition (across
// maps) with a sequence number and keeps the changes its backups have not
// acknowledged in a log. One sender per backup member streams the changes
// of all partitions that member backs up, in order per partition, on one
// Replicate stream (from its goroutine, or from the goroutine that made
// the changes: SendBackups); the backup applies them in order and acknowledges the
// highest sequence it applied per partition. A write returns to its client
// only after the map's synchronous backups acknowledged it.
//
// A backup that is new for a partition, or that reports a gap, first gets a
// copy of the whole partition (the entries of every map that holds it) on
// a Sync stream of its own, chunk by chunk: its cost follows the bytes
// copied, not the number of maps, and it holds off no writes. The copy is
// tagged with the sequence of the last change made before it started; it
// may include later changes too, which is harmless: they follow it on the
// Replicate stream and apply again to the same result (a change carries
// the entry's whole state, a removal or a clear removes). While the copy
// runs, the partition's changes wait in the log. When ownership moves, the
// new owner copies the partition to all its backups. A backup takes
// changes and copies only from the member its own table names as the
// owner, and never a copy older than the changes of the same history it
// applied: what a former owner still sends must not overwrite, nor be
// acknowledged as, what the current owner replicated.
type replicator struct {
	n     *Node
	parts []*partState
	// owned has bit p%64 of word p/64 set while this member owns
	// partition p: it mirrors partState.owned for readers that take no
	// lock (every read, and every partition a query scans, asks), all
	// partitions in a few words instead of a cache line each.
	owned []atomic.Uint64

	mu      sync.Mutex
	senders atomic.Pointer[map[partition.UUID]*sender] // replaced under mu, read without it
	tableCh chan struct{}                              // closed and replaced on every table change
}

type partState struct {
	// rw is read-locked by writes in progress and write-locked to take a
	// snapshot or to freeze the partition for a handoff.
	rw sync.RWMutex
	// writers counts the writes admitted and not ended: while one is,
	// Record leaves waking the senders to its End.
	writers atomic.Int32

	mu     sync.Mutex
	owned  bool // mirrored in replicator.owned
	frozen bool
	// frozenAt is the version of the table a handoff that froze the
	// partition started from; tables up to it predate the handoff.
	frozenAt int64
	epoch    uint64 // this owner's history of the partition
	seq      uint64
	base     uint64 // seq of the change before log[0]
	log      eventLog
	acked    map[partition.UUID]uint64
	// copying lists the backups a copy of the partition is going to: each
	// dropped what it had, so it counts as having nothing (and its late
	// acknowledgements of changes are ignored) until the copy applied.
	copying map[partition.UUID]int
	// extra backups every write waits for, besides the synchronous ones:
	// backups that caught up and that the coordinator is about to make
	// the synchronous ones.
	extra  []partition.UUID
	notify chan struct{} // closed and replaced when acked grows, if watched
	// watchers counts the waits on notify (Backups.Wait, waitAcked): an
	// acknowledgement replaces the channel only when one waits.
	watchers int
	// pending are the writes whose waiters are told when their backups
	// confirm them (Backups.Notify).
	pending []pendingWrite

	// As a backup: the epoch and sequence applied, and whether a copy is
	// arriving (its changes are ignored meanwhile). syncMu lets one copy
	// arrive at a time.
	appliedEpoch uint64
	appliedSeq   uint64
	applied      bool
	syncing      bool
	syncMu       sync.Mutex
}

func newReplicator(n *Node) *replicator {
	r := &replicator{n: n, tableCh: make(chan struct{})}
	r.senders.Store(&map[partition.UUID]*sender{})
	r.parts = make([]*partState, n.cfg.PartitionCount)
	r.owned = make([]atomic.Uint64, (n.cfg.PartitionCount+63)/64)
	for i := range r.parts {
		r.parts[i] = &partState{acked: map[partition.UUID]uint64{}, copying: map[partition.UUID]int{}, notify: make(chan struct{})}
	}
	return r
}

// kick makes every sender look at all its partitions: for changes to send
// again, snapshots to take, and partitions it newly backs up.
func (r *replicator) kick() {
	for _, s := range *r.senders.Load() {
		s.markAll()
	}
}

// run kicks the senders once a second, so that changes not acknowledged
// are sent again.
func (r *replicator) run(context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-r.n.stop:
			return
		case <-t.C:
			r.kick()
		}
	}
}

// maxLog bounds the changes of a partition kept for backups that have not
// acknowledged them.
const maxLog = 1 << 14

// Record numbers a change of an owned partition and queues it, encoded,
// for the partition's backups. The caller holds the store's partition
// lock, so changes are recorded in the order they happen; it must not
// block. c's bytes are copied.
func (n *Node) Record(pid int32, c *Change) {
	r := n.repl
	if int(pid) >= len(r.parts) {
		return
	}
	ps := r.parts[pid]
	ps.mu.Lock()
	if !ps.owned {
		ps.mu.Unlock()
		return
	}
	ps.seq++
	switch {
	case !r.hasBackups(pid):
		ps.log.reset() // nobody to send to
		ps.base = ps.seq
	case ps.log.len() >= maxLog:
		// A backup that lags this far (an asynchronous one, or one that is
		// gone but not yet removed) gets a snapshot instead: the log stays
		// bounded.
		keep := maxLog / 2
		drop := ps.log.len() - keep
		ps.base += uint64(drop)
		ps.log.drop(drop)
		ps.log.add(c, pid, ps.epoch, ps.seq)
	default:
		ps.log.add(c, pid, ps.epoch, ps.seq)
	}
	ps.mu.Unlock()
	r.markBackupsOf(pid, ps.writers.Load() == 0)
}

func (r *replicator) hasBackups(pid int32) bool {
	t := r.n.table.Load()
	return t != nil && int(pid) < len(t.Backups) && len(t.Backups[pid]) > 0
}

// backupSenders calls f with the sender of each of pid's backups.
func (r *replicator) backupSenders(pid int32, f func(*sender)) {
	t := r.n.table.Load()
	if t == nil || int(pid) >= len(t.Backups) {
		return
	}
	senders := *r.senders.Load()
	for _, b := range t.Backups[pid] {
		if s := senders[t.Members[b].UUID]; s != nil {
			f(s)
		}
	}
}

// markBackupsOf marks pid for the senders of its backups, and wakes them
// when wake.
func (r *replicator) markBackupsOf(pid int32, wake bool) {
	r.backupSenders(pid, func(s *sender) { s.mark(pid, wake) })
}

// wakeBackupsOf wakes the senders of pid's backups that have something
// marked.
func (r *replicator) wakeBackupsOf(pid int32) {
	r.backupSenders(pid, func(s *sender) {
		if s.marked.Load() {
			s.poke()
		}
	})
}

// SendBackups sends the changes recorded for backups from the calling
// goroutine, to each backup whose sender is not sending already (that one
// is woken instead). A write ended by EndSending must be followed by it.
func (n *Node) SendBackups() {
	for _, s := range *n.repl.senders.Load() {
		s.sendNow()
	}
}

// BeginWrite admits a write to partition pid on this member. It fails with
// a *WrongOwnerError when the member does not own the partition (or is
// handing it over) and with ErrUnavailable below the minimum cluster size.
// The write must call End after the store changed.
func (n *Node) BeginWrite(pid int32, syncBackups int) (Write, error) {
	r := n.repl
	if !n.MinClusterSizeMet() {
		return Write{}, ErrUnavailable
	}
	if pid < 0 || int(pid) >= len(r.parts) {
		return Write{}, &WrongOwnerError{Partition: pid, Reason: "no such partition"}
	}
	ps := r.parts[pid]
	ps.rw.RLock()
	if n.merging.Load() { // a merge started after the check above: see drainWrites
		ps.rw.RUnlock()
		return Write{}, ErrUnavailable
	}
	ps.mu.Lock()
	owned, frozen := ps.owned, ps.frozen
	ps.mu.Unlock()
	if !owned || frozen {
		ps.rw.RUnlock()
		reason := "this member does not own the partition"
		if frozen {
			reason = "this member is handing the partition over"
		}
		return Write{}, &WrongOwnerError{Partition: pid, TableVersion: n.table.Load().Version, Reason: reason}
	}
	ps.writers.Add(1)
	return Write{r: r, pid: pid, sync: syncBackups}, nil
}

// Write is a write BeginWrite admitted.
type Write struct {
	r    *replicator
	pid  int32
	sync int
}

// End ends the write's admission (a handoff or a snapshot waits for the
// writes admitted) once the store changed, and returns what the write
// needs of its backups: the first syncBackups of them to confirm the
// change.
func (w Write) End() Backups {
	b := w.EndSending()
	w.r.wakeBackupsOf(w.pid)
	return b
}

// EndSending ends the write as End does but leaves sending its change to
// the caller, which must call Node.SendBackups (after ending the other
// writes it runs, so that one message carries them all).
func (w Write) EndSending() Backups {
	ps := w.r.parts[w.pid]
	ps.writers.Add(-1)
	ps.rw.RUnlock()
	if w.sync <= 0 {
		return Backups{}
	}
	ps.mu.Lock()
	seq := ps.seq
	ps.mu.Unlock()
	return Backups{r: w.r, pid: w.pid, seq: seq, count: w.sync}
}

// Backups is what a write that changed the store needs of its backups:
// the first count of them to acknowledge seq. The zero value needs
// nothing.
type Backups struct {
	r     *replicator
	pid   int32
	seq   uint64
	count int
}

// Needed reports whether the write waits for any backup.
func (b Backups) Needed() bool { return b.count > 0 }

// Wait waits until the backups confirmed the write, or ctx ends.
func (b Backups) Wait(ctx context.Context) error {
	if b.count <= 0 {
		return nil
	}
	return b.r.await(ctx, b.pid, b.seq, b.count)
}

// BackupsWaiter is told when the backups of a write confirmed it, or why
// they cannot (the partition moved before they did, the member stopped).
// BackupsDone is called once, from the goroutine that learned it (the one
// that received the acknowledgement, applied a table, or registered the
// waiter): it must not block.
type BackupsWaiter interface {
	BackupsDone(err error)
}

// Notify tells w once the backups confirmed the write, with no goroutine
// waiting meanwhile.
func (b Backups) Notify(w BackupsWaiter) {
	if b.count <= 0 {
		w.BackupsDone(nil)
		return
	}
	b.r.notify(b.pid, b.seq, b.count, w)
}

// CheckRead fails with a *WrongOwnerError when the member does not own pid.
func (n *Node) CheckRead(pid int32) error {
	r := n.repl
	if pid < 0 || int(pid) >= len(r.parts) {
		return &WrongOwnerError{Partition: pid, Reason: "no such partition"}
	}
	if !r.ownedNow(pid) {
		return &WrongOwnerError{Partition: pid, TableVersion: n.table.Load().Version, Reason: "this member does not own the partition"}
	}
	return nil
}

// Owned reports whether this member owns pid.
func (n *Node) Owned(pid int32) bool {
	return pid >= 0 && int(pid) < len(n.repl.parts) && n.repl.ownedNow(pid)
}

// Unowned returns the first partition of parts this member does not own,
// or false when it owns them all.
func (n *Node) Unowned(parts []int32) (pid int32, ok bool) {
	r := n.repl
	for _, p := range parts {
		if p < 0 || int(p) >= len(r.parts) || !r.ownedNow(p) {
			return p, true
		}
	}
	return 0, false
}

// ownedNow reports whether this member owns pid, a valid partition id,
// without taking its lock.
func (r *replicator) ownedNow(pid int32) bool {
	return r.owned[pid/64].Load()&(1<<(pid%64)) != 0
}

// setOwned records in r.owned whether this member owns pid (under the
// partition's mu, with partState.owned).
func (r *replicator) setOwned(pid int32, owned bool) {
	if owned {
		r.owned[pid/64].Or(1 << (pid % 64))
	} else {
		r.owned[pid/64].And(^uint64(1 << (pid % 64)))
	}
}

// confirmed reports whether the first count backups of pid acknowledged
// seq under table t, or fails when the partition moved before its new
// owner had seq (under ps.mu).
func (r *replicator) confirmed(t *partition.Table, ps *partState, pid int32, seq uint64, count int) (bool, error) {
	self := t.IndexOf(r.n.self.UUID)
	if int(pid) < len(t.Owners) && t.Owners[pid] == self {
		for i, b := range t.Backups[pid] {
			u := t.Members[b].UUID
			if (i < count || slices.Contains(ps.extra, u)) && ps.acked[u] < seq {
				return false, nil
			}
		}
		return true, nil
	}
	if owner := t.Owners[pid]; owner >= 0 && ps.acked[t.Members[owner].UUID] < seq {
		// Ownership moved: the change is safe if the new owner has it.
		return false, &WrongOwnerError{Partition: pid, TableVersion: t.Version, Reason: "the partition moved before its backups confirmed the write"}
	}
	return true, nil
}

// await waits until the first count backups of pid acknowledged seq (see
// Backups.Wait).
func (r *replicator) await(ctx context.Context, pid int32, seq uint64, count int) error {
	ps := r.parts[pid]
	for {
		t := r.n.table.Load()
		ps.mu.Lock()
		done, err := r.confirmed(t, ps, pid, seq, count)
		notify := ps.notify
		if !done && err == nil {
			ps.watchers++
		}
		ps.mu.Unlock()
		if done || err != nil {
			return err
		}
		r.mu.Lock()
		tableCh := r.tableCh
		r.mu.Unlock()
		select {
		case <-notify:
		case <-tableCh:
		case <-ctx.Done():
			err = ctx.Err()
		case <-r.n.stop:
			err = errStopped
		}
		ps.mu.Lock()
		ps.watchers--
		ps.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// pendingWrite is a write whose waiter is told when its backups confirm
// it (Backups.Notify).
type pendingWrite struct {
	seq    uint64
	count  int
	waiter BackupsWaiter
}

// notify registers w for seq of pid, or tells it at once.
func (r *replicator) notify(pid int32, seq uint64, count int, w BackupsWaiter) {
	ps := r.parts[pid]
	ps.mu.Lock()
	if r.n.life.Err() != nil {
		ps.mu.Unlock()
		w.BackupsDone(errStopped)
		return
	}
	// The table is read under ps.mu: a table applied after this look
	// checks the waiters under ps.mu too (settle), this one among them.
	done, err := r.confirmed(r.n.table.Load(), ps, pid, seq, count)
	if !done && err == nil {
		ps.pending = append(ps.pending, pendingWrite{seq: seq, count: count, waiter: w})
		ps.mu.Unlock()
		return
	}
	ps.mu.Unlock()
	w.BackupsDone(err)
}

// settle tells the waiters of pid whose writes are confirmed now, or
// cannot be (under ps.mu: it returns them with their outcome for the
// caller to tell once it released the lock).
func (r *replicator) settle(t *partition.Table, ps *partState, pid int32, told []settled) []settled {
	if len(ps.pending) == 0 {
		return told
	}
	keep := ps.pending[:0]
	for _, p := range ps.pending {
		done, err := r.confirmed(t, ps, pid, p.seq, p.count)
		if done || err != nil {
			told = append(told, settled{p.waiter, err})
		} else {
			keep = append(keep, p)
		}
	}
	clear(ps.pending[len(keep):])
	ps.pending = keep
	return told
}

// settled is a waiter and what to tell it.
type settled struct {
	waiter BackupsWaiter
	err    error
}

// tell tells each waiter its outcome.
func tell(told []settled) {
	for _, s := range told {
		s.waiter.BackupsDone(s.err)
	}
}

// stopWaiters fails every registered waiter: the member stops.
func (r *replicator) stopWaiters() {
	var told []settled
	for _, ps := range r.parts {
		ps.mu.Lock()
		for _, p := range ps.pending {
			told = append(told, settled{p.waiter, errStopped})
		}
		ps.pending = nil
		ps.mu.Unlock()
	}
	tell(told)
}

// ack records that peer applied pid up to seq of epoch and trims the log.
// It returns told, with the waiters (Backups.Notify) the acknowledgement
// confirmed appended, for the caller to tell (tell) once it has handled
// every acknowledgement of a message: it keeps the buffer.
func (r *replicator) ack(peer partition.UUID, pid int32, epoch, seq uint64, told []settled) []settled {
	if pid < 0 || int(pid) >= len(r.parts) {
		return told
	}
	ps := r.parts[pid]
	t := r.n.table.Load()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.owned || epoch != ps.epoch || seq <= ps.acked[peer] || ps.copying[peer] > 0 {
		return told
	}
	ps.acked[peer] = seq
	if ps.watchers > 0 {
		close(ps.notify)
		ps.notify = make(chan struct{})
	}
	told = r.settle(t, ps, pid, told)
	// Trim what every current backup has.
	low := ps.seq
	if int(pid) < len(t.Backups) {
		for _, b := range t.Backups[pid] {
			low = min(low, ps.acked[t.Members[b].UUID])
		}
	}
	if low > ps.base {
		ps.log.drop(int(low - ps.base))
		ps.base = low
	}
	return told
}

// onTable updates ownership, senders and snapshots for a new table.
func (r *replicator) onTable(prev, t *partition.Table) {
	r.mu.Lock()
	close(r.tableCh)
	r.tableCh = make(chan struct{})
	r.mu.Unlock()

	self := t.IndexOf(r.n.self.UUID)
	needed := map[partition.UUID]string{}
	type snap struct {
		peer partition.UUID
		pid  int32
	}
	var snaps []snap
	for p := range t.Owners {
		pid := int32(p)
		ps := r.parts[p]
		owned := self >= 0 && t.Owners[p] == self
		ps.mu.Lock()
		wasOwned := ps.owned
		ps.owned = owned
		r.setOwned(pid, owned)
		if ps.frozen && !staysFrozen(t, pid, owned, ps.frozenAt) {
			ps.frozen, ps.frozenAt = false, 0
		}
		if !owned || sameMembers(t.BackupsOf(pid)[:min(len(ps.extra), len(t.Backups[p]))], ps.extra) {
			ps.extra = nil
		}
		if owned && !wasOwned {
			// A new owner starts a new history: every backup gets a
			// snapshot. The history starts one past the previous sequence,
			// so that no backup counts as having it before it acknowledged
			// a snapshot.
			ps.epoch = rand.Uint64() | 1
			ps.seq++
			ps.log.reset()
			ps.base = ps.seq
			ps.acked = map[partition.UUID]uint64{}
			ps.applied = false
		}
		if !owned {
			ps.log.reset()
			ps.base = ps.seq
		} else {
			// A member that is no longer a backup dropped its copy: what
			// it acknowledged no longer counts if it becomes one again.
			for u := range ps.acked {
				if !wasBackup(t, pid, u) {
					delete(ps.acked, u)
				}
			}
		}
		told := r.settle(t, ps, pid, nil)
		ps.mu.Unlock()
		tell(told)
		r.n.cfg.Store.SetRole(pid, owned)
		if owned {
			for _, b := range t.BackupsOf(pid) {
				needed[b.UUID] = b.Address
				if !wasOwned || !wasBackup(prev, pid, b.UUID) {
					snaps = append(snaps, snap{b.UUID, pid})
				}
			}
		} else if self >= 0 && !slices.Contains(t.Backups[p], self) && t.Owners[p] >= 0 && (wasOwned || wasBackup(prev, pid, r.n.self.UUID)) {
			// Another member owns the partition and this one keeps no copy.
			_ = r.n.cfg.Store.DropPartition(pid)
			ps.mu.Lock()
			ps.applied = false
			ps.mu.Unlock()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	senders := map[partition.UUID]*sender{}
	for u, s := range *r.senders.Load() {
		if _, ok := needed[u]; ok {
			senders[u] = s
		} else {
			s.close()
		}
	}
	for u, addr := range needed {
		if _, ok := senders[u]; !ok {
			senders[u] = newSender(r, u, addr)
		}
	}
	r.senders.Store(&senders)
	for _, sn := range snaps {
		senders[sn.peer].needSnapshot(sn.pid)
	}
	for _, s := range senders {
		s.markAll()
	}
}

func wasBackup(t *partition.Table, pid int32, u partition.UUID) bool {
	if t == nil {
		return false
	}
	for _, b := range t.BackupsOf(pid) {
		if b.UUID == u {
			return true
		}
	}
	return false
}

func (r *replicator) stopSenders() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range *r.senders.Load() {
		s.close()
	}
	r.senders.Store(&map[partition.UUID]*sender{})
}

// isOwner reports whether this member's table names u the owner of pid.
// A backup takes changes and copies of a partition only from the owner
// its table names: a member that lost the partition (a handoff this
// member already applied, or a member the cluster took for dead) may
// still send, and what it sends must neither be acknowledged as safe nor
// overwrite what the current owner sent.
func (r *replicator) isOwner(u partition.UUID, pid int32) bool {
	t := r.n.table.Load()
	if t == nil {
		return false
	}
	o, ok := t.Owner(pid)
	return ok && o.UUID == u
}

// apply applies one change received from owner as a backup and reports
// whether the partition needs a snapshot.
func (r *replicator) apply(owner partition.UUID, ev *Change) (resync bool, err error) {
	pid := ev.Partition
	if pid < 0 || int(pid) >= len(r.parts) {
		return false, nil
	}
	ps := r.parts[pid]
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.owned || ps.syncing || !r.isOwner(owner, pid) {
		// A stale owner's change (this member owns the partition now, or
		// its table names another owner), or one that a copy arriving now
		// includes or precedes. A new owner this member does not know yet
		// sends a copy first, which it refuses until it does.
		return false, nil
	}
	switch {
	case !ps.applied || ps.appliedEpoch != ev.Epoch:
		return true, nil
	case ev.Seq <= ps.appliedSeq:
		return false, nil // sent again after a reconnection
	case ev.Seq != ps.appliedSeq+1:
		return true, nil
	}
	if err := r.n.cfg.Store.Apply(pid, ev); err != nil {
		return false, err
	}
	ps.appliedSeq = ev.Seq
	return false, nil
}

// UnsyncedPartitions returns the partitions this member owns whose
// backups (every one the table lists) have not all confirmed a full copy
// under its ownership: until they have, a failure of this member may lose
// what only it holds.
func (n *Node) UnsyncedPartitions() []int32 {
	t := n.table.Load()
	if t == nil {
		return nil
	}
	self := t.IndexOf(n.self.UUID)
	var out []int32
	for p, o := range t.Owners {
		if self < 0 || o != self {
			continue
		}
		ps := n.repl.parts[p]
		ps.mu.Lock()
		for _, b := range t.BackupsOf(int32(p)) {
			if ps.acked[b.UUID] == 0 {
				out = append(out, int32(p))
				break
			}
		}
		ps.mu.Unlock()
	}
	return out
}

// appliedFrom returns what this backup applied of pid in epoch.
func (r *replicator) appliedFrom(epoch uint64, pid int32) uint64 {
	ps := r.parts[pid]
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.applied && ps.appliedEpoch == epoch {
		return ps.appliedSeq
	}
	return 0
}

// drainWrites waits for the writes under way on every partition to reach
// the store. A merge calls it after setting merging, which BeginWrite
// checks while it holds the partition's read lock, so no write starts
// after it.
func (r *replicator) drainWrites() {
	for _, ps := range r.parts {
		ps.rw.Lock()
		ps.rw.Unlock()
	}
}

// dropAll empties every partition (a member merging into another cluster).
func (r *replicator) dropAll() {
	for p, ps := range r.parts {
		ps.mu.Lock()
		ps.applied = false
		ps.mu.Unlock()
		_ = r.n.cfg.Store.DropPartition(int32(p))
	}
}

// waitAcked waits until every member in to acknowledged pid up to seq.
func (r *replicator) waitAcked(ctx context.Context, pid int32, seq uint64, to []partition.UUID) error {
	ps := r.parts[pid]
	for {
		ps.mu.Lock()
		done := true
		for _, u := range to {
			done = done && ps.acked[u] >= seq
		}
		notify := ps.notify
		if !done {
			ps.watchers++
		}
		ps.mu.Unlock()
		if done {
			return nil
		}
		r.markBackupsOf(pid, true)
		var err error
		select {
		case <-notify:
		case <-ctx.Done():
			err = ctx.Err()
		case <-r.n.stop:
			err = errStopped
		case <-time.After(100 * time.Millisecond):
		}
		ps.mu.Lock()
		ps.watchers--
		ps.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// checkBackups verifies that this member owns pid and that every member
// in to is one of its backups.
func (r *replicator) checkBackups(pid int32, to []partition.UUID) error {
	t := r.n.table.Load()
	if !r.n.Owned(pid) {
		return &WrongOwnerError{Partition: pid, TableVersion: t.Version, Reason: "this member does not own the partition"}
	}
	for _, u := range to {
		if !wasBackup(t, pid, u) {
			return &WrongOwnerError{Partition: pid, TableVersion: t.Version, Reason: "a member asked to catch up does not hold a backup of the partition"}
		}
	}
	return nil
}

func (r *replicator) currentSeq(pid int32) uint64 {
	ps := r.parts[pid]
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.seq
}

// catchUp waits until the backups in to have every change of pid made so
// far. From then until a table makes them its first backups, every write
// waits for them too: the coordinator may drop the other backups as soon
// as it learns they caught up.
func (r *replicator) catchUp(ctx context.Context, pid int32, to []partition.UUID) error {
	if err := r.checkBackups(pid, to); err != nil {
		return err
	}
	ps := r.parts[pid]
	ps.mu.Lock()
	ps.extra = slices.Clone(to)
	seq := ps.seq
	ps.mu.Unlock()
	err := r.waitAcked(ctx, pid, seq, to)
	if err != nil {
		ps.mu.Lock()
		ps.extra = nil
		ps.mu.Unlock()
	}
	return err
}

// staysFrozen reports whether a partition frozen for a handoff that
// started from table version frozenAt stays frozen under table t: while
// this member owns it and the coordinator may still apply the handoff (t is
// the handoff's own table or an older one, or lists it as handing off).
// Unfreezing it on any other table would let in writes that the new owner,
// once the handoff is applied, never gets.
func staysFrozen(t *partition.Table, pid int32, owned bool, frozenAt int64) bool {
	return owned && (t.Version <= frozenAt || slices.Contains(t.HandingOff, pid))
}

// handoff prepares this owner to hand pid to the backup to: it waits until
// to has the changes made so far, freezes the partition (new writes fail
// with a retryable error) and waits for the last changes. The partition
// stays frozen until a table moves it, or until a table newer than the one
// the handoff started from (tableVersion) no longer lists it as handing
// off: the coordinator publishes one after every handoff, successful or
// not.
func (r *replicator) handoff(ctx context.Context, pid int32, to partition.UUID, tableVersion int64) error {
	if err := r.checkBackups(pid, []partition.UUID{to}); err != nil {
		return err
	}
	if err := r.waitAcked(ctx, pid, r.currentSeq(pid), []partition.UUID{to}); err != nil {
		return err
	}
	ps := r.parts[pid]
	ps.rw.Lock()
	ps.mu.Lock()
	ps.frozen = ps.owned
	ps.frozenAt = tableVersion
	owned := ps.owned
	ps.mu.Unlock()
	ps.rw.Unlock()
	if !owned {
		return &WrongOwnerError{Partition: pid, TableVersion: r.n.table.Load().Version, Reason: "this member does not own the partition"}
	}
	return r.waitAcked(ctx, pid, r.currentSeq(pid), []partition.UUID{to})
}

// sender streams changes to one backup member.
type sender struct {
	r    *replicator
	peer partition.UUID
	addr string
	wake chan struct{}
	done chan struct{}

	mu       sync.Mutex
	dirty    []bool  // by partition: may have something to send
	dirtyIDs []int32 // the partitions marked dirty
	takenIDs []int32 // those takeDirty returned last
	sent     map[int32]uint64
	snapshot map[int32]bool // the backup needs a copy of the partition
	// Changes sent but not acknowledged are sent again after a timeout
	// that doubles while the backup makes no progress (a backup that did
	// not yet learn it lost ownership ignores them).
	sentAt map[int32]time.Time
	rto    map[int32]time.Duration
	// Copies (Sync streams) under way, at most maxSyncs at once; a copy
	// that failed is tried again after a backoff that doubles.
	syncing   map[int32]bool
	syncAfter map[int32]time.Time
	syncWait  map[int32]time.Duration

	// marked mirrors len(dirtyIDs) > 0 for a look without the lock.
	marked atomic.Bool

	// sendMu is held to collect and send batches, by the sender's
	// goroutine or by one that sends its own writes' changes (sendNow);
	// st is the stream they go on, nil while there is none.
	sendMu sync.Mutex
	st     *replicaStream
	// batch is the buffer batches are collected into (under sendMu).
	batch []byte
}

// replicaStream is a replication stream to a backup and the sizes of the
// batches sent on it that the backup has not acknowledged: it answers
// every batch with one acknowledgement, in order.
type replicaStream struct {
	*framedStream
	flight flight
}

// send writes a batch, counted in flight until its acknowledgement.
func (st *replicaStream) send(batch []byte) error {
	st.flight.sent(len(batch))
	return st.Send(batch)
}

// flight is the sizes of the batches in flight, oldest first.
type flight struct {
	mu    sync.Mutex
	sizes []int
	head  int
	total int
}

func (f *flight) sent(n int) {
	f.mu.Lock()
	if f.head > 0 && f.head == len(f.sizes) {
		f.sizes, f.head = f.sizes[:0], 0
	} else if f.head >= 64 && 2*f.head >= len(f.sizes) {
		f.sizes = f.sizes[:copy(f.sizes, f.sizes[f.head:])]
		f.head = 0
	}
	f.sizes = append(f.sizes, n)
	f.total += n
	f.mu.Unlock()
}

// acked drops the oldest batch.
func (f *flight) acked() {
	f.mu.Lock()
	if f.head < len(f.sizes) {
		f.total -= f.sizes[f.head]
		f.head++
	}
	f.mu.Unlock()
}

func (f *flight) bytes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total
}

const (
	minRetransmit = 2 * time.Second
	maxRetransmit = time.Minute
)

// Copies of partitions to one backup member: how many run at once, the
// size of their messages, and the backoff after a failure.
const (
	maxSyncs     = 4
	syncChunk    = 1 << 20
	minSyncRetry = 100 * time.Millisecond
	maxSyncRetry = 10 * time.Second
)

func newSender(r *replicator, peer partition.UUID, addr string) *sender {
	s := &sender{r: r, peer: peer, addr: addr, wake: make(chan struct{}, 1), done: make(chan struct{}),
		dirty: make([]bool, len(r.parts)),
		sent:  map[int32]uint64{}, snapshot: map[int32]bool{}, sentAt: map[int32]time.Time{}, rto: map[int32]time.Duration{},
		syncing: map[int32]bool{}, syncAfter: map[int32]time.Time{}, syncWait: map[int32]time.Duration{}}
	s.markAll()
	go s.run()
	return s
}

// mark notes that pid may have something to send and wakes the sender
// when wake.
func (s *sender) mark(pid int32, wake bool) {
	s.mu.Lock()
	s.markLocked(pid)
	s.mu.Unlock()
	if wake {
		s.poke()
	}
}

// inlineWindow bounds the bytes sent to a backup and not acknowledged
// beyond which a goroutine sending a batch itself (sendNow) leaves it to
// the sender's: under it, a write finds room in the connection's buffers
// and does not block, so a backup that stops reading holds up the
// sender's goroutine and not the connection of a client.
const inlineWindow = 64 << 10

// sendNow sends what is marked from the calling goroutine, while the
// backup's unacknowledged bytes stay within inlineWindow; the sender's
// goroutine is woken for the rest, and when another goroutine is sending
// or no stream is open.
func (s *sender) sendNow() {
	if !s.marked.Load() {
		return
	}
	if !s.sendMu.TryLock() {
		s.poke()
		return
	}
	st := s.st
	if st == nil {
		s.sendMu.Unlock()
		s.poke()
		return
	}
	var err error
	for err == nil {
		room := inlineWindow - st.flight.bytes()
		if room <= 0 {
			break
		}
		batch := s.collect(room)
		if batch == nil {
			break
		}
		err = st.send(batch)
	}
	s.sendMu.Unlock()
	if err != nil {
		_ = st.conn.Close() // the stream's goroutine sees it end
	}
	if s.marked.Load() {
		s.poke()
	}
}

func (s *sender) markLocked(pid int32) {
	if !s.dirty[pid] {
		s.dirty[pid] = true
		s.dirtyIDs = append(s.dirtyIDs, pid)
		s.marked.Store(true)
	}
}

// markAll marks every partition.
func (s *sender) markAll() {
	s.mu.Lock()
	for p := range s.dirty {
		s.markLocked(int32(p))
	}
	s.mu.Unlock()
	s.poke()
}

// takeDirty returns the marked partitions and clears the marks. The slice
// is valid until the next call (made under sendMu: the two buffers take
// turns).
func (s *sender) takeDirty() []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.dirtyIDs
	s.dirtyIDs, s.takenIDs = s.takenIDs[:0], ids
	s.marked.Store(false)
	for _, p := range ids {
		s.dirty[p] = false
	}
	return ids
}

func (s *sender) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sender) needSnapshot(pid int32) {
	s.mu.Lock()
	s.snapshot[pid] = true
	s.markLocked(pid)
	s.mu.Unlock()
	s.poke()
}

func (s *sender) close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// maxBatch bounds the changes of one message.
const maxBatch = 512

func (s *sender) run() {
	backoff := 50 * time.Millisecond
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		err := s.stream()
		if err == nil {
			return
		}
		s.r.n.log.Debug("replication stream broke", "peer", s.addr, "err", err)
		addr := s.addr
		s.r.n.goRun(func(ctx context.Context) { s.r.n.peers.suspect(ctx, addr) })
		// Resend what was not acknowledged.
		s.mu.Lock()
		s.sent = map[int32]uint64{}
		s.mu.Unlock()
		select {
		case <-s.done:
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 2*time.Second)
		s.markAll()
	}
}

// streamContext returns the context of a stream to the backup: it ends
// when the sender closes, so that a send blocked by a peer that stopped
// reading ends with the sender, or when cancel is called.
func (s *sender) streamContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// stream opens a Replicate stream and sends until the sender closes
// (nil) or the stream breaks (the error).
func (s *sender) stream() error {
	ctx, cancel := s.streamContext()
	defer cancel()
	fs, conn, err := s.r.n.openReplicate(ctx, s.addr)
	if err != nil {
		return err
	}
	st := &replicaStream{framedStream: fs}
	defer conn.Close()
	stopAtEnd := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stopAtEnd()
	s.sendMu.Lock()
	s.st = st
	s.sendMu.Unlock()
	defer func() {
		s.sendMu.Lock()
		s.st = nil
		s.sendMu.Unlock()
	}()
	recvErr := make(chan error, 1)
	go func() {
		var told []settled
		ack := func(a partitionAck) { told = s.r.ack(s.peer, a.partition, a.epoch, a.seq, told) }
		for {
			msg, err := st.Recv()
			if err == nil {
				st.flight.acked()
				told = told[:0]
				err = readAck(msg, ack, s.needSnapshot)
				tell(told)
				clear(told)
			}
			if err != nil {
				recvErr <- err
				return
			}
		}
	}()
	for {
		s.sendMu.Lock()
		var err error
		for batch := s.collect(math.MaxInt); batch != nil && err == nil; batch = s.collect(math.MaxInt) {
			err = st.send(batch)
		}
		s.sendMu.Unlock()
		if err != nil {
			return err
		}
		select {
		case <-s.done:
			_ = st.CloseSend()
			return nil
		case err := <-recvErr:
			return err
		case <-s.wake:
		}
	}
}

// startSync starts copying partition pid to the peer on a Sync stream of
// its own, unless maxSyncs copies run already or the last one failed too
// recently; the partition stays marked for a copy until one starts.
func (s *sender) startSync(pid int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snapshot[pid] = true
	if len(s.syncing) >= maxSyncs || time.Now().Before(s.syncAfter[pid]) {
		return // a finishing copy, or the next kick, marks it again
	}
	delete(s.snapshot, pid)
	s.syncing[pid] = true
	go s.sync(pid)
}

// sync copies partition pid to the peer and records the outcome: the
// backup's acknowledgement of the copy's sequence, or a failure that
// schedules the next attempt.
func (s *sender) sync(pid int32) {
	seq, err := s.copyPartition(pid)
	s.mu.Lock()
	delete(s.syncing, pid)
	if err != nil {
		wait := min(max(2*s.syncWait[pid], minSyncRetry), maxSyncRetry)
		s.syncWait[pid], s.syncAfter[pid] = wait, time.Now().Add(wait)
		s.snapshot[pid] = true
	} else {
		delete(s.syncWait, pid)
		delete(s.syncAfter, pid)
		s.sent[pid], s.sentAt[pid] = seq, time.Now()
	}
	// Changes made since the copy go next, and a copy waiting for a free
	// place starts.
	for p := range s.snapshot {
		s.markLocked(p)
	}
	s.markLocked(pid)
	s.mu.Unlock()
	if err != nil {
		select {
		case <-s.done:
		default:
			s.r.n.log.Debug("copying a partition to a backup failed; will retry", "partition", pid, "peer", s.addr, "err", err)
		}
	}
	s.poke()
}

// copyPartition streams partition pid, the entries of every map that
// holds it, to the peer and returns the sequence the copy includes, once
// the peer applied it.
func (s *sender) copyPartition(pid int32) (uint64, error) {
	ps := s.r.parts[pid]
	ps.mu.Lock()
	owned, epoch, seq := ps.owned, ps.epoch, ps.seq
	if owned {
		// The backup drops its copy first: what it acknowledged no longer
		// counts (handoffs, catch-ups and writes wait for the new copy).
		delete(ps.acked, s.peer)
		ps.copying[s.peer]++
	}
	ps.mu.Unlock()
	if !owned {
		return 0, &WrongOwnerError{Partition: pid, Reason: "this member no longer owns the partition"}
	}
	copying := true
	done := func() {
		ps.mu.Lock()
		if copying {
			if ps.copying[s.peer]--; ps.copying[s.peer] <= 0 {
				delete(ps.copying, s.peer)
			}
			copying = false
		}
		ps.mu.Unlock()
	}
	defer done()
	c, err := s.r.n.peers.client(s.addr)
	if err != nil {
		return 0, err
	}
	ctx, cancel := s.streamContext()
	defer cancel()
	st, err := c.Sync(ctx)
	if err != nil {
		return 0, err
	}
	if err := st.Send(&memberv1.SyncChunk{OwnerUuid: s.r.n.self.UUID[:], Partition: pid, Epoch: epoch, Seq: seq}); err != nil {
		_, err = st.CloseAndRecv()
		return 0, err
	}
	// Entries written after seq may be copied too: their changes follow
	// on the Replicate stream and apply again harmlessly.
	err = s.r.n.cfg.Store.Export(pid, syncChunk, func(mapName string, chunk []byte) error {
		return st.Send(&memberv1.SyncChunk{Map: mapName, Data: chunk})
	})
	if err != nil {
		_, rerr := st.CloseAndRecv()
		if rerr != nil && rerr != io.EOF {
			return 0, rerr
		}
		return 0, err
	}
	ack, err := st.CloseAndRecv()
	if err != nil {
		return 0, err
	}
	done()
	tell(s.r.ack(s.peer, pid, ack.Epoch, ack.Seq, nil))
	return seq, nil
}

// beginSync prepares this member, a backup of pid, to receive a copy of
// the partition from its owner: the changes that arrive meanwhile are
// ignored, and the copy it holds stays whole until the new one has
// arrived and applies at once (applySync). The caller holds ps.syncMu
// until applySync or abortSync.
func (r *replicator) beginSync(owner partition.UUID, pid int32) error {
	ps := r.parts[pid]
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if err := r.staleCopy(ps, owner, pid, 0, 0); err != nil {
		return err
	}
	ps.syncing = true
	return nil
}

// staleCopy refuses a copy of pid from owner, of its history epoch up to
// seq (0 before the copy arrived), that must not replace what this member
// holds: this member owns the partition, its table names another owner (a
// copy a former owner started before it handed the partition over would
// overwrite the changes the new owner replicated since), or the copy is
// older than the changes of the same history already applied (a copy
// whose sender gave up on it while it was under way). The caller holds
// ps.mu.
func (r *replicator) staleCopy(ps *partState, owner partition.UUID, pid int32, epoch, seq uint64) error {
	reason := ""
	switch {
	case ps.owned:
		reason = "this member owns the partition; a copy from another owner is stale"
	case !r.isOwner(owner, pid):
		reason = "this member's table names another owner of the partition; the copy is stale or early"
	case seq > 0 && ps.applied && ps.appliedEpoch == epoch && seq < ps.appliedSeq:
		reason = "this member applied later changes of the partition than the copy holds"
	default:
		return nil
	}
	return &WrongOwnerError{Partition: pid, TableVersion: r.n.table.Load().Version, Reason: reason}
}

// applySync replaces the backup's copy of pid by the one that arrived from
// owner (fill drops the old and imports the new) and records that it holds
// the owner's changes of epoch up to seq. The partition's state is locked
// meanwhile, so that no table makes this member its owner with half a
// copy.
func (r *replicator) applySync(owner partition.UUID, pid int32, epoch, seq uint64, fill func() error) error {
	ps := r.parts[pid]
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.syncing = false
	if err := r.staleCopy(ps, owner, pid, epoch, seq); err != nil {
		return err
	}
	if err := fill(); err != nil {
		ps.applied = false
		return err
	}
	ps.appliedEpoch, ps.appliedSeq, ps.applied = epoch, seq, true
	return nil
}

// abortSync ends a copy that failed to arrive: the backup keeps what it
// had.
func (r *replicator) abortSync(pid int32) {
	ps := r.parts[pid]
	ps.mu.Lock()
	ps.syncing = false
	ps.mu.Unlock()
}

// collect gathers the next batch of changes for the peer into the
// sender's buffer (an encoded ReplicationBatch), of at most maxBatch
// changes and room bytes past its header (math.MaxInt: no bound), or
// returns nil. The batch is valid
// until the next collect; the caller holds sendMu.
func (s *sender) collect(room int) []byte {
	t := s.r.n.table.Load()
	self := t.IndexOf(s.r.n.self.UUID)
	peer := t.IndexOf(s.peer)
	if self < 0 || peer < 0 {
		return nil
	}
	batch := protowire.AppendBytes(protowire.AppendTag(s.batch[:0], batchOwner, protowire.BytesType), s.r.n.self.UUID[:])
	events, full := 0, false
	limit := len(batch) + room
	if room == math.MaxInt {
		limit = math.MaxInt
	}
	ids := s.takeDirty()
	for i, pid := range ids {
		if full || events >= maxBatch {
			s.mu.Lock()
			for _, rest := range ids[i:] {
				s.markLocked(rest)
			}
			s.mu.Unlock()
			break
		}
		p := int(pid)
		if p >= len(t.Owners) || t.Owners[p] != self || !slices.Contains(t.Backups[p], peer) {
			continue
		}
		ps := s.r.parts[p]
		ps.mu.Lock()
		acked := ps.acked[s.peer]
		ps.mu.Unlock()
		s.mu.Lock()
		if s.syncing[pid] {
			s.mu.Unlock()
			continue // its changes follow the copy under way
		}
		wantSnap := s.snapshot[pid]
		sent := s.sent[pid]
		if sent > acked {
			rto := max(s.rto[pid], minRetransmit)
			if time.Since(s.sentAt[pid]) > rto {
				sent = acked // send again what was not acknowledged
				s.rto[pid] = min(2*rto, maxRetransmit)
			}
		} else {
			delete(s.rto, pid)
		}
		s.mu.Unlock()
		if !wantSnap {
			ps.mu.Lock()
			if from := max(sent, ps.acked[s.peer]); from < ps.base {
				wantSnap = true // the changes it lacks were trimmed
			} else {
				for i := int(from - ps.base); i < ps.log.len(); i++ {
					ev := ps.log.event(i)
					if events >= maxBatch || len(batch)+len(ev) > limit {
						full = true
						s.mu.Lock()
						s.markLocked(pid) // the rest goes in the next batch
						s.mu.Unlock()
						break
					}
					batch = append(batch, ev...)
					events++
					sent = ps.base + uint64(i) + 1
				}
			}
			ps.mu.Unlock()
		}
		if wantSnap {
			s.startSync(pid)
			continue
		}
		s.mu.Lock()
		if sent != s.sent[pid] {
			s.sentAt[pid] = time.Now()
		}
		s.sent[pid] = sent
		s.mu.Unlock()
	}
	s.batch = batch
	if events == 0 {
		return nil
	}
	return batch
}
