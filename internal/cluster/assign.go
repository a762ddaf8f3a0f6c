package cluster

import (
	"github.com/atolldb/atoll/internal/partition"
)

// assignment is a target for the partition table: the owner and backups of
// each partition, as member UUIDs.
type assignment struct {
	owners  []partition.UUID
	backups [][]partition.UUID
}

// assign computes a balanced assignment of partitions to members (given in
// join order, oldest first), staying as close to prev as balance allows:
//
//   - every partition gets an owner; owner counts differ by at most one,
//     the oldest members taking the remainder;
//   - an owner that is alive keeps its partitions unless it has more than
//     its share; a partition whose owner is gone goes to one of its
//     backups (which hold its data);
//   - every partition gets min(replicas, members-1) backups, never its
//     owner, preferring members that already hold a copy, and spreading
//     backup counts evenly.
//
// prev may be nil (a new cluster). The result does not depend on map
// iteration order: every member computes the same.
func assign(prev *partition.Table, members []partition.Member, partitions, replicas int) assignment {
	n := len(members)
	out := assignment{owners: make([]partition.UUID, partitions), backups: make([][]partition.UUID, partitions)}
	if n == 0 {
		return out
	}
	index := make(map[partition.UUID]int, n)
	for i, m := range members {
		index[m.UUID] = i
	}
	prevOwner := func(p int) int {
		if prev == nil || p >= len(prev.Owners) || prev.Owners[p] < 0 || int(prev.Owners[p]) >= len(prev.Members) {
			return -1
		}
		if i, ok := index[prev.Members[prev.Owners[p]].UUID]; ok {
			return i
		}
		return -1
	}
	prevBackups := func(p int) []int {
		if prev == nil || p >= len(prev.Backups) {
			return nil
		}
		var out []int
		for _, b := range prev.Backups[p] {
			if int(b) < len(prev.Members) {
				if i, ok := index[prev.Members[b].UUID]; ok {
					out = append(out, i)
				}
			}
		}
		return out
	}

	// Owners.
	quota := make([]int, n)
	for i := range quota {
		quota[i] = partitions / n
		if i < partitions%n {
			quota[i]++
		}
	}
	owners := make([]int, partitions)
	count := make([]int, n)
	for p := range owners {
		owners[p] = prevOwner(p)
		if owners[p] >= 0 {
			count[owners[p]]++
		}
	}
	// Promote a backup for partitions whose owner is gone: the least loaded
	// one relative to its quota.
	for p := range owners {
		if owners[p] >= 0 {
			continue
		}
		best := -1
		for _, b := range prevBackups(p) {
			if best < 0 || count[b]-quota[b] < count[best]-quota[best] {
				best = b
			}
		}
		if best >= 0 {
			owners[p] = best
			count[best]++
		}
	}
	// Release partitions of members over their share, preferring ones a
	// member under its share already backs up (the move copies nothing).
	under := func(i int) bool { return count[i] < quota[i] }
	for i := range members {
		for pass := 0; pass < 2 && count[i] > quota[i]; pass++ {
			for p := partitions - 1; p >= 0 && count[i] > quota[i]; p-- {
				if owners[p] != i {
					continue
				}
				if pass == 0 {
					cheap := false
					for _, b := range prevBackups(p) {
						cheap = cheap || under(b)
					}
					if !cheap {
						continue
					}
				}
				owners[p] = -1
				count[i]--
			}
		}
	}
	// Give unowned partitions to members under their share: a backup of
	// the partition first, else the least loaded.
	for p := range owners {
		if owners[p] >= 0 {
			continue
		}
		best := -1
		for _, b := range prevBackups(p) {
			if under(b) && (best < 0 || count[b]-quota[b] < count[best]-quota[best]) {
				best = b
			}
		}
		if best < 0 {
			for i := range members {
				if under(i) && (best < 0 || count[i]-quota[i] < count[best]-quota[best]) {
					best = i
				}
			}
		}
		owners[p] = best
		count[best]++
	}

	// Backups.
	r := min(replicas, n-1)
	bcount := make([]int, n)
	bquota := make([]int, n)
	for i := range bquota {
		bquota[i] = partitions * r / n
		if i < partitions*r%n {
			bquota[i]++
		}
	}
	chosen := make([][]int, partitions)
	for round := 0; round < r; round++ {
		for p := range owners {
			taken := func(i int) bool {
				if i == owners[p] {
					return true
				}
				for _, c := range chosen[p] {
					if c == i {
						return true
					}
				}
				return false
			}
			pick := -1
			// A member that holds the data already: a previous backup, or
			// the previous owner when ownership moved.
			candidates := prevBackups(p)
			if o := prevOwner(p); o >= 0 && o != owners[p] {
				candidates = append([]int{o}, candidates...)
			}
			for _, c := range candidates {
				if !taken(c) && bcount[c] < bquota[c] {
					pick = c
					break
				}
			}
			if pick < 0 {
				// The least loaded member, starting the scan at a rotating
				// position so that ties spread.
				for k := 0; k < n; k++ {
					i := (p + round + k) % n
					if !taken(i) && (pick < 0 || bcount[i] < bcount[pick]) {
						pick = i
					}
				}
			}
			chosen[p] = append(chosen[p], pick)
			bcount[pick]++
		}
	}

	// The greedy rounds can leave counts uneven (a member cannot back up the
	// partitions it owns); move backup slots from members above their share
	// to members below it until no move helps.
	for moved := true; moved; {
		moved = false
		for p := range owners {
			for k, b := range chosen[p] {
				if bcount[b] <= bquota[b] {
					continue
				}
				for u := range members {
					if bcount[u] >= bquota[u] || u == owners[p] || contains(chosen[p], u) {
						continue
					}
					chosen[p][k] = u
					bcount[b]--
					bcount[u]++
					moved = true
					break
				}
			}
		}
	}

	for p := range owners {
		out.owners[p] = members[owners[p]].UUID
		for _, b := range chosen[p] {
			out.backups[p] = append(out.backups[p], members[b].UUID)
		}
	}
	return out
}

// tableOf builds a table from an assignment over members.
func tableOf(version int64, members []partition.Member, a assignment) *partition.Table {
	t := &partition.Table{Version: version, Members: members, Owners: make([]int32, len(a.owners)), Backups: make([][]int32, len(a.owners))}
	index := make(map[partition.UUID]int32, len(members))
	for i, m := range members {
		index[m.UUID] = int32(i)
	}
	for p, o := range a.owners {
		if i, ok := index[o]; ok {
			t.Owners[p] = i
		} else {
			t.Owners[p] = -1
		}
		for _, b := range a.backups[p] {
			if i, ok := index[b]; ok {
				t.Backups[p] = append(t.Backups[p], i)
			}
		}
	}
	return t
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
