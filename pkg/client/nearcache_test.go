package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestNearCacheFollowsMembership checks that a near cache never keeps
// serving a value after it changed, while members join and die: the
// changes then happen on owners whose invalidation stream the reader may
// not have yet, or has lost.
func TestNearCacheFollowsMembership(t *testing.T) {
	const keys = 300
	// Memberlist's own timings notice the member killed below within
	// seconds; the fast test timings also took live members for dead
	// under -race on a loaded machine.
	c := testcluster.Start(t, testcluster.InProcess, 2, testcluster.Options{SlowFailureDetection: true})
	c.WaitStable(1, time.Minute)
	reader := connect(t, c, client.Config{NearCaches: map[string]client.NearCacheConfig{"near": {}}})
	writer := connect(t, c, client.Config{})
	rm := client.GetMap[int32, string](reader, "near")
	wm := client.GetMap[int32, string](writer, "near")
	ctx := ctxT(t)

	round := 0
	writeAll := func() {
		round++
		for k := int32(0); k < keys; k++ {
			if err := wm.Set(ctx, k, fmt.Sprintf("r%d-%d", round, k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// readAll reads every key until each shows the latest round, and
	// returns how many reads were near-cache hits.
	readAll := func(what string) {
		t.Helper()
		for k := int32(0); k < keys; k++ {
			want := fmt.Sprintf("r%d-%d", round, k)
			waitFor(t, what, func() bool {
				v, _, err := rm.Get(ctx, k)
				return err == nil && v == want
			})
		}
	}
	writeAll()
	readAll("the first values")
	hits := reader.Stats().NearCacheHits
	readAll("the first values again")
	if reader.Stats().NearCacheHits == hits {
		t.Fatal("the near cache served nothing")
	}

	c.Add()
	c.WaitStable(1, time.Minute)
	writeAll()
	readAll("values written after a member joined")

	c.Members()[0].Kill()
	c.WaitStable(1, time.Minute)
	writeAll()
	readAll("values written after a member died")
}
