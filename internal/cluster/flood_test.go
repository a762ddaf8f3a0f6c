package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// floodSize is the scale of TestFloodedPartition: a smaller one by
// default, that CI runs, and the full one with ATOLL_FLOOD=full:
//
//	ATOLL_FLOOD=full go test -count=1 -timeout 30m -run TestFloodedPartition -v ./internal/cluster/
//
// Both go through the same steps and mechanisms (a partition holding
// thousands of maps, copied, merged and handed over while a member pauses
// and another dies); only the counts and the pause differ.
type floodSize struct {
	maps, entries int
	pause         time.Duration
}

func floodScale() floodSize {
	if os.Getenv("ATOLL_FLOOD") == "full" {
		return floodSize{maps: 20_000, entries: 500_000, pause: 20 * time.Second}
	}
	return floodSize{maps: 2_000, entries: 50_000, pause: 10 * time.Second}
}

// TestFloodedPartition: with one partition holding thousands of one-entry
// maps beside a map of many entries, the owner of that partition is paused
// under write load; after it resumes, every migration completes and every
// member's /readyz answers 200 within 60 s, and then a kill -9 of another
// member holding the partition loses no acknowledged key.
func TestFloodedPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("starts member processes")
	}
	size := floodScale()
	// The members keep the default failure detection: the tests' fast one
	// (a member is dead after ~1 s without an answer) has healthy members
	// of a loaded machine declare each other failed over and over while
	// they copy and merge hundreds of thousands of entries. The pause is
	// long enough for the defaults to declare the paused member dead.
	c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{
		ConfigYAML:           fmt.Sprintf("limits: {max-maps: %d}\n", size.maps+10),
		SlowFailureDetection: true,
	})
	c.WaitStable(1, 2*time.Minute)
	cl := connect(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	// Every flood map holds one entry under the same key, so all of them
	// are in that key's partition.
	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		t.Fatal(err)
	}
	const floodKey = int32(7)
	kd, _ := ser.ToData(floodKey)
	flooded := serialization.Data(kd).PartitionID(271)
	floodName := func(i int) string { return fmt.Sprintf("flood-%05d", i) }
	start := time.Now()
	parallel(t, 8, size.maps, func(i int) error {
		return client.GetMap[int32, int32](cl, floodName(i)).Set(ctx, floodKey, int32(i))
	})
	data := client.GetMap[int32, string](cl, "data")
	batches := (size.entries + 499) / 500
	parallel(t, 4, batches, func(b int) error {
		batch := make([]client.Entry[int32, string], 0, 500)
		for k := b * 500; k < min((b+1)*500, size.entries); k++ {
			batch = append(batch, client.Entry[int32, string]{Key: int32(k), Value: fillValue(int32(k))})
		}
		return data.PutAll(ctx, batch)
	})
	t.Logf("wrote %d maps in partition %d and %d entries in %v", size.maps, flooded, size.entries, time.Since(start))
	waitReady(t, c, 2*time.Minute)

	// Pause the flooded partition's owner under write load.
	owner := ownerOf(t, ctx, c, cl, flooded)
	w := startWriter(data, 10_000_000)
	w.waitAcked(t, 200)
	owner.Pause()
	t.Logf("paused %s, the owner of partition %d, for %v", owner.Addr, flooded, size.pause)
	time.Sleep(size.pause)
	owner.Resume()
	resumed := time.Now()
	waitReady(t, c, time.Minute)
	t.Logf("every migration done and every member ready %v after the member resumed", time.Since(resumed))

	// Kill another member holding the flooded partition: its copy on the
	// member that was paused must be whole by now.
	victim := holderBesides(t, ctx, c, cl, flooded, owner)
	w.waitAcked(t, 200)
	victim.Kill()
	t.Logf("killed %s, which holds partition %d beside the member that was paused", victim.Addr, flooded)
	c.WaitStable(1, 2*time.Minute)
	acked := w.finish(t)

	// Every acknowledged key is there.
	start = time.Now()
	missing := atomic.Int64{}
	parallel(t, 8, size.maps, func(i int) error {
		v, ok, err := client.GetMap[int32, int32](cl, floodName(i)).Get(ctx, floodKey)
		if err == nil && (!ok || v != int32(i)) {
			missing.Add(1)
		}
		return err
	})
	keys := make([]int32, 0, size.entries+len(acked.acked))
	want := map[int32]string{}
	for k := 0; k < size.entries; k++ {
		keys = append(keys, int32(k))
		want[int32(k)] = fillValue(int32(k))
	}
	for k, v := range acked.acked {
		keys = append(keys, k)
		want[k] = v
	}
	parallel(t, 8, (len(keys)+999)/1000, func(b int) error {
		part := keys[b*1000 : min((b+1)*1000, len(keys))]
		got, err := data.GetAll(ctx, part)
		if err != nil {
			return err
		}
		found := make(map[int32]string, len(got))
		for _, e := range got {
			found[e.Key] = e.Value
		}
		n := 0
		for _, k := range part {
			if found[k] != want[k] {
				n++
			}
		}
		missing.Add(int64(n))
		return nil
	})
	t.Logf("checked %d maps and %d keys in %v", size.maps, len(keys), time.Since(start))
	if n := missing.Load(); n > 0 {
		t.Fatalf("%d acknowledged keys missing or wrong after the kill", n)
	}
}

// parallel runs fn(0..n-1) on workers goroutines; the first error fails
// the test.
func parallel(t *testing.T, workers, n int, fn func(i int) error) {
	t.Helper()
	var next atomic.Int64
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errs <- fmt.Errorf("item %d: %w", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// ownerOf returns the node that owns partition pid.
func ownerOf(t *testing.T, ctx context.Context, c *testcluster.Cluster, cl *client.Client, pid int32) *testcluster.Node {
	t.Helper()
	st, err := cl.ClusterState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Live() {
		if n.Addr == st.Partitions[pid].Owner {
			return n
		}
	}
	t.Fatalf("partition %d is owned by %q, not a live member", pid, st.Partitions[pid].Owner)
	return nil
}

// holderBesides returns a live member other than not that owns partition
// pid or holds a backup of it (the owner first).
func holderBesides(t *testing.T, ctx context.Context, c *testcluster.Cluster, cl *client.Client, pid int32, not *testcluster.Node) *testcluster.Node {
	t.Helper()
	st, err := cl.ClusterState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := st.Partitions[pid]
	for _, addr := range append([]string{p.Owner}, p.Backups...) {
		for _, n := range c.Live() {
			if n.Addr == addr && n != not {
				return n
			}
		}
	}
	t.Fatalf("partition %d (owner %q, backups %v) has no live holder besides %s", pid, p.Owner, p.Backups, not.Addr)
	return nil
}

// waitReady waits until the cluster is stable (every live member in one
// table, balanced, every partition backed up by a synced copy, no
// migration in flight) and every live member's /readyz answers 200.
func waitReady(t *testing.T, c *testcluster.Cluster, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := c.Unstable(1)
		for _, n := range c.Live() {
			if why != "" {
				break
			}
			resp, err := http.Get("http://" + n.AdminAddr + "/readyz")
			if err != nil {
				why = err.Error()
				break
			}
			body := make([]byte, 512)
			k, _ := resp.Body.Read(body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				why = fmt.Sprintf("%s: %s %s", n.Addr, resp.Status, body[:k])
				break
			}
		}
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("members not ready within %v: %s", timeout, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
