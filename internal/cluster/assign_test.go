package cluster

import (
	"math/rand/v2"
	"testing"

	"github.com/atolldb/atoll/internal/partition"
)

func members(n int) []partition.Member {
	out := make([]partition.Member, n)
	for i := range out {
		out[i] = partition.Member{UUID: partition.UUID{byte(i + 1), byte(i >> 8)}, Address: "m" + string(rune('a'+i)), JoinOrder: int64(i)}
	}
	return out
}

// checkAssignment verifies the invariants every assignment must hold.
func checkAssignment(t *testing.T, a assignment, ms []partition.Member, partitions, replicas int) {
	t.Helper()
	alive := map[partition.UUID]bool{}
	for _, m := range ms {
		alive[m.UUID] = true
	}
	owned := map[partition.UUID]int{}
	backed := map[partition.UUID]int{}
	r := min(replicas, len(ms)-1)
	for p := 0; p < partitions; p++ {
		o := a.owners[p]
		if !alive[o] {
			t.Fatalf("partition %d owned by a member that is not alive", p)
		}
		owned[o]++
		if len(a.backups[p]) != r {
			t.Fatalf("partition %d has %d backups, want %d", p, len(a.backups[p]), r)
		}
		seen := map[partition.UUID]bool{o: true}
		for _, b := range a.backups[p] {
			if !alive[b] || seen[b] {
				t.Fatalf("partition %d: backup %v is the owner, repeated or not alive", p, b)
			}
			seen[b] = true
			backed[b]++
		}
	}
	minO, maxO := partitions, 0
	minB, maxB := partitions*r, 0
	for _, m := range ms {
		minO, maxO = min(minO, owned[m.UUID]), max(maxO, owned[m.UUID])
		minB, maxB = min(minB, backed[m.UUID]), max(maxB, backed[m.UUID])
	}
	if maxO-minO > 1 {
		t.Fatalf("owner counts range %d..%d", minO, maxO)
	}
	if r > 0 && maxB-minB > 2 {
		t.Fatalf("backup counts range %d..%d", minB, maxB)
	}
}

func moves(prev *partition.Table, a assignment) int {
	n := 0
	for p, o := range a.owners {
		if prev.Members[prev.Owners[p]].UUID != o {
			n++
		}
	}
	return n
}

func TestAssignNewCluster(t *testing.T) {
	for n := 1; n <= 8; n++ {
		for _, replicas := range []int{0, 1, 2, 6} {
			ms := members(n)
			a := assign(nil, ms, 271, replicas)
			checkAssignment(t, a, ms, 271, replicas)
		}
	}
}

func TestAssignIsStable(t *testing.T) {
	ms := members(3)
	a := assign(nil, ms, 271, 1)
	again := assign(tableOf(1, ms, a), ms, 271, 1)
	for p := range a.owners {
		if a.owners[p] != again.owners[p] || a.backups[p][0] != again.backups[p][0] {
			t.Fatalf("partition %d changed without a membership change", p)
		}
	}
}

func TestAssignJoinMovesAFairShare(t *testing.T) {
	ms := members(3)
	t3 := tableOf(1, ms, assign(nil, ms, 271, 1))
	ms4 := members(4)
	a := assign(t3, ms4, 271, 1)
	checkAssignment(t, a, ms4, 271, 1)
	if m := moves(t3, a); m > 271/4+1 {
		t.Fatalf("a join moved %d owners, a fair share is %d", m, 271/4)
	}
}

func TestAssignPromotesBackupsOfDeadMembers(t *testing.T) {
	ms := members(3)
	t3 := tableOf(1, ms, assign(nil, ms, 271, 1))
	survivors := []partition.Member{ms[0], ms[2]}
	a := assign(t3, survivors, 271, 1)
	checkAssignment(t, a, survivors, 271, 1)
	for p := range a.owners {
		prevOwner := t3.Members[t3.Owners[p]].UUID
		if prevOwner != ms[1].UUID {
			continue
		}
		// The dead member's partitions go to their backup, which has the data.
		backup := t3.Members[t3.Backups[p][0]].UUID
		if a.owners[p] != backup {
			t.Fatalf("partition %d went to %v, not to its backup %v", p, a.owners[p], backup)
		}
	}
}

func TestAssignRandomChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pool := members(10)
	live := append([]partition.Member(nil), pool[:3]...)
	var prev *partition.Table
	for step := 0; step < 200; step++ {
		switch {
		case len(live) > 1 && rng.IntN(2) == 0: // a member leaves
			i := rng.IntN(len(live))
			live = append(live[:i:i], live[i+1:]...)
		case len(live) < len(pool): // a member joins
			for _, m := range pool {
				in := false
				for _, l := range live {
					in = in || l.UUID == m.UUID
				}
				if !in {
					live = append(live, m)
					break
				}
			}
		}
		replicas := 1 + rng.IntN(3)
		a := assign(prev, live, 271, replicas)
		checkAssignment(t, a, live, 271, replicas)
		prev = tableOf(int64(step+1), live, a)
	}
}
