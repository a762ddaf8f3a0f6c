package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/partition"
)

// Split brain
//
// When the network cuts a cluster in two, each side's members declare the
// others dead, and the first live member of each side's table coordinates
// it: both sides keep serving (unless a side is below MinClusterSize, which
// refuses writes). Each side's coordinator removed members that did not
// leave gracefully, so each side's table has a new lineage. When the cut
// heals, gossip finds the members again; members of another lineage that
// the table does not name belong to another cluster, and the smaller
// cluster (fewer members; on a tie, the one whose oldest member is younger)
// merges into the larger one: each of its members sends the entries of the
// partitions it holds to the larger side's owners, which store each entry
// only if its key is absent (Hazelcast's default merge policy,
// put-if-absent). Then it drops its data and adopts the larger side's
// table, whose coordinator adds it like a member that joins. A member that
// starts alone and joins a cluster takes the same path, with nothing to
// send.

// sides counts the live members of other clusters by lineage: members the
// table does not name, of another lineage.
func (n *Node) sides() map[partition.UUID]lineageInfo {
	t := n.table.Load()
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[partition.UUID]lineageInfo{}
	for u, m := range n.aliveAll {
		if u == n.self.UUID || m.lineage == t.Lineage || t.IndexOf(u) >= 0 {
			continue
		}
		li := out[m.lineage]
		li.members = append(li.members, m.Member)
		li.count++
		out[m.lineage] = li
	}
	for l, li := range out {
		sortMembers(li.members)
		li.oldest = li.members[0]
		out[l] = li
	}
	return out
}

type lineageInfo struct {
	count   int
	oldest  partition.Member
	members []partition.Member
}

// larger reports whether cluster a wins over cluster b.
func (a lineageInfo) larger(b lineageInfo) bool {
	if a.count != b.count {
		return a.count > b.count
	}
	if a.oldest.JoinOrder != b.oldest.JoinOrder {
		return a.oldest.JoinOrder < b.oldest.JoinOrder
	}
	return bytes.Compare(a.oldest.UUID[:], b.oldest.UUID[:]) < 0
}

// Merging reports whether a split-brain merge is under way as this member
// sees it: it is merging into another cluster, or it sees members of
// another cluster (the smaller side merges once it finds them).
func (n *Node) Merging() bool {
	return n.merging.Load() || len(n.sides()) > 0
}

// mergeIfSmaller merges this member into a larger cluster it can see.
func (c *coordinator) mergeIfSmaller() {
	n := c.n
	if n.selfLeaving.Load() {
		return
	}
	others := n.sides()
	if len(others) == 0 {
		return
	}
	mine := n.Members()
	sortMembers(mine)
	best := lineageInfo{count: len(mine), oldest: mine[0]}
	var winner *lineageInfo
	for _, li := range others {
		if li.larger(best) {
			li := li
			best, winner = li, &li
		}
	}
	if winner == nil {
		return
	}
	for _, m := range winner.members {
		t, _, err := n.callSyncTable(m.Address)
		if err != nil || n.table.Load().Lineage == t.Lineage {
			continue
		}
		if t.IndexOf(n.self.UUID) >= 0 {
			// Their table still names this member, so they may merge
			// into this cluster at the same time, and both sides would
			// drop their data. If this member coordinates their table, it
			// replaced that table when it declared them dead while they
			// were alive: they follow it and merge into this cluster.
			// Otherwise their coordinator counts this member out once it
			// has gossiped this lineage for forkGrace, and it merges then.
			return
		}
		c.mergeInto(t, fmt.Sprintf("found a larger cluster (%d members here, %d there)", len(mine), winner.count))
		return
	}
}

// mergeInto sends every entry this member holds, as owner or as backup,
// to the partitions' owners in theirs (put-if-absent), then adopts theirs
// and drops its data. Writes are refused from the start, and the writes
// already under way finish first, so every write this member acknowledged
// is in what it sends. Backup copies are sent too: the tables of a split
// may disagree about who owns what, and what this member drops is gone
// unless it was sent. A member that was never in a cluster and holds
// nothing is simply joining: that is logged as a join, and WARN is kept
// for real merges.
func (c *coordinator) mergeInto(theirs *partition.Table, why string) {
	n := c.n
	if !n.merging.CompareAndSwap(false, true) {
		return
	}
	defer n.merging.Store(false)
	n.repl.drainWrites()
	var held []int32
	for p := range n.cfg.PartitionCount {
		if n.holdsEntries(int32(p)) {
			held = append(held, int32(p))
		}
	}
	join := len(held) == 0 && !n.clustered.Load()
	if join {
		n.log.Info("joining the cluster", "their members", len(theirs.Members))
	} else {
		n.log.Warn("merging this member's data into another cluster", "reason", why, "their members", len(theirs.Members))
	}
	merged, skipped := int64(0), int64(0)
	for _, p := range held {
		m, s, err := n.sendMerge(p, theirs)
		if err != nil {
			n.log.Error("merging a partition into the other cluster failed; will retry", "partition", p, "err", err)
			return
		}
		merged, skipped = merged+m, skipped+s
	}
	n.table.Replace(theirs)
	n.applyTable()
	n.repl.dropAll()
	n.updateMeta()
	if join {
		n.log.Info("joined the cluster", "members", len(theirs.Members))
		return
	}
	n.log.Warn("merged into the other cluster", "entries merged", merged, "entries already present there", skipped)
}

// holdsEntries reports whether any map has an entry in partition pid.
func (n *Node) holdsEntries(pid int32) bool {
	found := false
	_ = n.cfg.Store.Entries(pid, func(string, []byte, []byte, time.Duration) bool {
		found = true
		return false
	})
	return found
}

// A merge message holds at most mergeBatch entries and about
// mergeBatchBytes of keys and values.
const (
	mergeBatch      = 500
	mergeBatchBytes = 1 << 20
)

// sendMerge sends one partition's entries to its owner in theirs. An
// owner that moved meanwhile is asked for its table and the partition sent
// again: put-if-absent makes that harmless.
func (n *Node) sendMerge(pid int32, theirs *partition.Table) (merged, skipped int64, err error) {
	for attempt := 0; ; attempt++ {
		owner, ok := theirs.Owner(pid)
		if !ok {
			return 0, 0, fmt.Errorf("partition %d has no owner in the other cluster", pid)
		}
		merged, skipped, err = n.sendMergeTo(pid, owner.Address)
		if err == nil || attempt == 10 {
			return merged, skipped, err
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
		if t, _, serr := n.callSyncTable(owner.Address); serr == nil && t.Lineage == theirs.Lineage {
			theirs = t
		}
	}
}

func (n *Node) sendMergeTo(pid int32, addr string) (merged, skipped int64, err error) {
	c, err := n.peers.client(addr)
	if err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stream memberv1.MemberService_MergeClient
	batch := &memberv1.MergeBatch{}
	size := 0
	var sendErr error
	flush := func() {
		if len(batch.Entries) == 0 || sendErr != nil {
			return
		}
		if stream == nil {
			if stream, sendErr = c.Merge(ctx); sendErr != nil {
				return
			}
		}
		sendErr = stream.Send(batch)
		batch, size = &memberv1.MergeBatch{}, 0
	}
	err = n.cfg.Store.Entries(pid, func(m string, key, value []byte, ttl time.Duration) bool {
		batch.Entries = append(batch.Entries, &memberv1.MergeEntry{Map: m, Key: bytes.Clone(key), Value: bytes.Clone(value), TtlMs: ttl.Milliseconds(), Partition: pid})
		if size += len(key) + len(value); len(batch.Entries) >= mergeBatch || size >= mergeBatchBytes {
			flush()
		}
		return sendErr == nil
	})
	if err != nil {
		return 0, 0, err
	}
	flush()
	if sendErr != nil {
		return 0, 0, sendErr
	}
	if stream == nil {
		return 0, 0, nil // nothing to merge
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return 0, 0, err
	}
	return resp.Merged, resp.Skipped, nil
}

// receiveMerge stores merged entries whose keys are absent, as the owner.
// It fails the whole stream when this member does not own a partition, so
// that the sender retries with the current owner. The entries of a message
// are written together and wait once for the backups.
func (n *Node) receiveMerge(stream memberv1.MemberService_MergeServer) error {
	resp := &memberv1.MergeResponse{}
	for {
		batch, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(resp)
		}
		if err != nil {
			return err
		}
		for i := 0; i < len(batch.Entries); {
			// A run of entries of one partition (a sender sends one
			// partition per stream).
			pid, j := batch.Entries[i].Partition, i+1
			for j < len(batch.Entries) && batch.Entries[j].Partition == pid {
				j++
			}
			w, err := n.BeginWrite(pid, n.cfg.Replicas)
			if err != nil {
				return err
			}
			for _, e := range batch.Entries[i:j] {
				var stored bool
				if stored, err = n.cfg.Store.MergeEntry(e.Map, pid, e.Key, e.Value, time.Duration(e.TtlMs)*time.Millisecond); err != nil {
					n.log.Warn("refused an entry another member merged into this cluster", "map", e.Map, "partition", pid, "err", err)
					break
				}
				if stored {
					resp.Merged++
				} else {
					resp.Skipped++
				}
			}
			if werr := w.End().Wait(stream.Context()); err == nil {
				err = werr
			}
			if err != nil {
				return err
			}
			i = j
		}
	}
}
