package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/testcluster"
)

// tableWithout polls the member at addr until its partition table no
// longer names gone and every partition has an owner, and returns how long
// that took from since (or fails after limit).
func tableWithout(t *testing.T, addr, gone string, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := testcluster.State(ctx, addr)
		cancel()
		if err == nil && !names(st.PartitionTable, gone) && allOwned(st.PartitionTable) {
			return time.Since(since)
		}
		if time.Since(since) > limit {
			t.Fatalf("after %v the table of %s still names %s (err %v)", limit, addr, gone, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func names(t *pb.PartitionTable, addr string) bool {
	for _, m := range t.Members {
		if m.Address == addr {
			return true
		}
	}
	return false
}

func allOwned(t *pb.PartitionTable) bool {
	for _, o := range t.Owners {
		if o < 0 {
			return false
		}
	}
	return true
}

// TestFailureDetection checks the product's failure detection (not the
// fast timings other tests use): a member killed with SIGKILL, coordinator
// or not, is declared dead and its partitions promoted within a second,
// since its address refuses connections; a member that stops answering
// (SIGSTOP) is declared dead within gossip.failure-timeout (set to 3s here,
// the default being 5s) and some slack for a loaded machine.
func TestFailureDetection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts member processes")
	}
	for _, victim := range []int{0, 2} {
		t.Run(fmt.Sprintf("KillMember%d", victim), func(t *testing.T) {
			c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{SlowFailureDetection: true})
			c.WaitStable(1, 2*time.Minute)
			dead, survivor := c.Members()[victim], c.Members()[1]
			start := time.Now()
			dead.Kill()
			took := tableWithout(t, survivor.Addr, dead.Addr, start, 30*time.Second)
			t.Logf("a killed member left the table after %v", took)
			require.LessOrEqual(t, took, time.Second, "a killed member was declared dead after %v", took)
			c.WaitStable(1, 2*time.Minute)
		})
	}
	t.Run("PausedMember", func(t *testing.T) {
		const failureTimeout = 3 * time.Second
		c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{SlowFailureDetection: true,
			ConfigYAML: fmt.Sprintf("gossip: {failure-timeout: %v}\n", failureTimeout)})
		c.WaitStable(1, 2*time.Minute)
		paused, survivor := c.Members()[2], c.Members()[0]
		start := time.Now()
		paused.Pause()
		took := tableWithout(t, survivor.Addr, paused.Addr, start, time.Minute)
		paused.Resume()
		t.Logf("a paused member left the table after %v (failure timeout %v)", took, failureTimeout)
		// The detector's own bound is the failure timeout; on a loaded
		// machine probes and the coordinator's step come late by up to a
		// probe interval or two more.
		require.LessOrEqual(t, took, failureTimeout+2*time.Second)
		require.Greater(t, took, failureTimeout/3, "a paused member was declared dead before it could have been suspected")
	})
}
