package cluster_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestStalledBackupLeavesReadsAlone pauses the backup of every partition
// the other member owns (SIGSTOP, with a failure timeout long enough that
// it stays a member) and writes 48 MiB to that owner, more than the
// connection to the backup buffers: the owner's reader, which sends the
// changes of the writes it runs to their backups itself while little is
// unacknowledged, must leave the rest to the sender's goroutine, so that
// it goes on reading the client's connection. Every write reaches the
// owner's store, and a read on the same connection is answered, while the
// writes wait for their backup; once it resumes they all complete.
func TestStalledBackupLeavesReadsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts member processes")
	}
	c := testcluster.Start(t, testcluster.Process, 2, testcluster.Options{
		SlowFailureDetection: true,
		ConfigYAML:           "gossip: {failure-timeout: 10m}\n",
	})
	c.WaitStable(1, 2*time.Minute)
	cl := connect(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	st, err := cl.ClusterState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owner, backup := c.Members()[0], c.Members()[1]
	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		t.Fatal(err)
	}
	const writes = 192
	var keys []int32 // owned by owner, so backed up by backup
	for k := int32(0); len(keys) < writes+1; k++ {
		kd, err := ser.ToData(k)
		if err != nil {
			t.Fatal(err)
		}
		if st.Partitions[serialization.Data(kd).PartitionID(int32(len(st.Partitions)))].Owner == owner.Addr {
			keys = append(keys, k)
		}
	}
	m := client.GetMap[int32, []byte](cl, "stall")
	readKey := keys[writes]
	if err := m.Set(ctx, readKey, []byte("read me")); err != nil {
		t.Fatal(err)
	}

	backup.Pause()
	resumed := false
	defer func() {
		if !resumed {
			backup.Resume()
		}
	}()
	value := make([]byte, 256<<10)
	var wg sync.WaitGroup
	errs := make(chan error, writes)
	for _, k := range keys[:writes] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- m.Set(ctx, k, value)
		}()
	}
	// Every write ran on the owner (its reader read them all) ...
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		n, err := ownerEntries(ctx, owner, "stall")
		if err == nil && n == writes+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the owner holds %v entries of %d two minutes after the writes started (err %v): its reader stopped reading", n, writes+1, err)
		}
	}
	// ... and reads on the connection are answered while they wait.
	readCtx, readCancel := context.WithTimeout(ctx, time.Minute)
	defer readCancel()
	for i := 0; i < 10; i++ {
		v, ok, err := m.Get(readCtx, readKey)
		if err != nil || !ok || string(v) != "read me" {
			t.Fatalf("a read while the backup is stalled: %q %v %v", v, ok, err)
		}
	}
	select {
	case err := <-errs:
		t.Fatalf("a write completed while its backup was stalled: %v", err)
	default:
	}

	backup.Resume()
	resumed = true
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a write after the backup resumed: %v", err)
		}
	}
}

// ownerEntries reads how many entries of map name the member holds as
// owner, from its metrics.
func ownerEntries(ctx context.Context, n *testcluster.Node, name string) (float64, error) {
	families, err := n.Metrics(ctx)
	if err != nil {
		return 0, err
	}
	f := families["atoll_map_entries"]
	if f == nil {
		return 0, nil
	}
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["map"] == name && labels["role"] == "owner" {
			return m.GetGauge().GetValue(), nil
		}
	}
	return 0, nil
}
