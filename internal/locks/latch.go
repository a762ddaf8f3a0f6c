package locks

import (
	"hash/maphash"
	"slices"
	"sync"
)

// latchStripes is the number of mutexes the latches of a member's keys
// are spread over.
const latchStripes = 4096

// Latches serialize the operations on one key of one partition: a write
// checks the key's lock and changes its value, a lock checks the value's
// version and writes the lock, each as one step, under the key's latch.
// Keys share a fixed set of mutexes (striped by a hash of the partition,
// map and key), so a latch costs no allocation; a latch is held only
// while the store is read and written, never across a call to another
// member or a wait for backups.
type Latches struct {
	seed    maphash.Seed
	stripes [latchStripes]struct {
		sync.Mutex
		_ [56]byte // a cache line each
	}
}

// NewLatches returns a member's latches.
func NewLatches() *Latches { return &Latches{seed: maphash.MakeSeed()} }

// Stripe returns the index of the latch of key in map of partition pid.
func (l *Latches) Stripe(pid int32, mapName string, key []byte) int {
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(mapName)
	h.WriteByte(0)
	h.Write(key)
	return int((h.Sum64() ^ uint64(pid)*0x9e3779b97f4a7c15) % latchStripes)
}

// Lock takes the latch of stripe i (from Stripe).
func (l *Latches) Lock(i int) { l.stripes[i].Lock() }

// Unlock releases the latch of stripe i.
func (l *Latches) Unlock(i int) { l.stripes[i].Unlock() }

// LockAll takes the latches of several stripes at once, in increasing
// order (so that two callers never wait for each other's), each once;
// it returns them sorted and without repeats, for UnlockAll.
func (l *Latches) LockAll(stripes []int) []int {
	slices.Sort(stripes)
	out := stripes[:0]
	for i, s := range stripes {
		if i > 0 && s == stripes[i-1] {
			continue
		}
		out = append(out, s)
	}
	for _, s := range out {
		l.stripes[s].Lock()
	}
	return out
}

// UnlockAll releases what LockAll took.
func (l *Latches) UnlockAll(stripes []int) {
	for i := len(stripes) - 1; i >= 0; i-- {
		l.stripes[stripes[i]].Unlock()
	}
}
