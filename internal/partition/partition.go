// Package partition holds the partition table: which member owns each of
// the cluster's partitions and which members keep its backups. Tables are
// immutable and versioned; a Holder publishes the current one to readers
// without locks and notifies subscribers of every newer table.
package partition

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
)

// UUID identifies a member (16 random bytes).
type UUID [16]byte

// NewUUID returns a random UUID (version 4 layout).
func NewUUID() UUID {
	var u UUID
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// Member is one member as the table names it.
type Member struct {
	UUID         UUID
	Address      string // host:port for clients and members
	AdminAddress string // host:port of the admin HTTP server
	JoinOrder    int64  // lower joined earlier
}

// Table is an immutable partition table.
type Table struct {
	Version int64
	// Lineage identifies the table's history. A coordinator chooses a new
	// one when it removes members that did not leave gracefully, so the two
	// sides of a split cluster have different lineages when they meet again.
	Lineage UUID
	Members []Member
	// Owners[p] indexes Members: the owner of partition p, or -1.
	Owners []int32
	// Backups[p] lists the Members indexes holding backups of partition p.
	Backups [][]int32
	// HandingOff lists the partitions whose owner is handing them over:
	// the handoff is under way, or done and not yet in the table. Their
	// owner keeps them frozen.
	HandingOff []int32
}

// Single returns the table of a one-member cluster: m owns every partition.
func Single(m Member, partitions int) *Table {
	t := &Table{Version: 1, Members: []Member{m}, Owners: make([]int32, partitions), Backups: make([][]int32, partitions)}
	return t
}

// PartitionCount returns the number of partitions.
func (t *Table) PartitionCount() int { return len(t.Owners) }

// Owner returns the owner of partition p.
func (t *Table) Owner(p int32) (Member, bool) {
	if p < 0 || int(p) >= len(t.Owners) || t.Owners[p] < 0 {
		return Member{}, false
	}
	return t.Members[t.Owners[p]], true
}

// Holder publishes the current table. The zero Holder holds no table.
type Holder struct {
	cur  atomic.Pointer[Table]
	mu   sync.Mutex
	subs map[chan *Table]struct{}
}

// Load returns the current table, or nil.
func (h *Holder) Load() *Table { return h.cur.Load() }

// Store publishes t if it is newer than the current table and reports
// whether it did. Subscribers receive it (a slow subscriber misses
// intermediate tables but always gets the latest).
func (h *Holder) Store(t *Table) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.cur.Load(); old != nil && old.Version >= t.Version {
		return false
	}
	h.publish(t)
	return true
}

// Replace publishes t whatever its version: a member that merges into
// another cluster adopts that cluster's table history.
func (h *Holder) Replace(t *Table) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.publish(t)
}

func (h *Holder) publish(t *Table) {
	h.cur.Store(t)
	for ch := range h.subs {
		select {
		case <-ch: // drop the stale table nobody read yet
		default:
		}
		ch <- t
	}
}

// Subscribe returns a channel that receives every newer table (the latest
// one when the reader is slow), and a function that ends the subscription.
func (h *Holder) Subscribe() (<-chan *Table, func()) {
	ch := make(chan *Table, 1)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan *Table]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

// IndexOf returns the index of the member with UUID u, or -1.
func (t *Table) IndexOf(u UUID) int32 {
	for i, m := range t.Members {
		if m.UUID == u {
			return int32(i)
		}
	}
	return -1
}

// BackupsOf returns the backup members of partition p, in order.
func (t *Table) BackupsOf(p int32) []Member {
	if p < 0 || int(p) >= len(t.Backups) {
		return nil
	}
	out := make([]Member, 0, len(t.Backups[p]))
	for _, i := range t.Backups[p] {
		if int(i) < len(t.Members) {
			out = append(out, t.Members[i])
		}
	}
	return out
}
