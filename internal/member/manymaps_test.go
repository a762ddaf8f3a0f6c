package member_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestManyMaps writes one entry into each of 10 000 maps with 200-byte
// names on a member process and checks what the maps cost it: at most 2 KB
// of heap per map beyond its entry's key and value, with the entry and
// once it is removed, and a /metrics page under 5 MB; a write that would
// create a map past limits.max-maps fails with a typed error naming it.
func TestManyMaps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a member process")
	}
	const maps = 10_000
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{ConfigYAML: fmt.Sprintf("limits: {max-maps: %d}\n", maps+1)})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	node := c.Members()[0]
	heap0, err := node.Heap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, page0, err := httpGet(ctx, "http://"+node.AdminAddr+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	name := func(i int) string { return fmt.Sprintf("%s-%05d", strings.Repeat("m", 194), i) }
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < maps; i += 8 {
				if err := client.GetMap[int32, int32](cl, name(i)).Set(ctx, int32(i), int32(i)); err != nil {
					errs <- err
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
	heap1, err := node.Heap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, page1, err := httpGet(ctx, "http://"+node.AdminAddr+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	// One map more is the limit; the next one is refused.
	if err := client.GetMap[int32, int32](cl, "one-more").Set(ctx, 1, 1); err != nil {
		t.Fatal(err)
	}
	err = client.GetMap[int32, int32](cl, "too-many").Set(ctx, 1, 1)
	if !errors.Is(err, client.ErrLimitExceeded) || !strings.Contains(err.Error(), "limits.max-maps") {
		t.Fatalf("a map past limits.max-maps: %v", err)
	}
	// Reads of a map that does not exist create none, even at the limit.
	if _, ok, err := client.GetMap[int32, int32](cl, "never-written").Get(ctx, 1); ok || err != nil {
		t.Fatalf("a read of a map that does not exist: %v %v", ok, err)
	}
	// The same maps, empty.
	for i := 0; i < maps; i++ {
		if _, err := client.GetMap[int32, int32](cl, name(i)).Delete(ctx, int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	heap2, err := node.Heap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// An int32 key and value are 12 bytes of Data each.
	const entryBytes = 24
	oneEntry := (int64(heap1.HeapAllocBytes)-int64(heap0.HeapAllocBytes))/maps - entryBytes
	empty := (int64(heap2.HeapAllocBytes) - int64(heap0.HeapAllocBytes)) / maps
	t.Logf("%d maps: heap %d -> %d bytes with an entry each (%d bytes per map beyond its key and value), %d bytes once empty (%d per map); /metrics %d -> %d bytes",
		maps, heap0.HeapAllocBytes, heap1.HeapAllocBytes, oneEntry, heap2.HeapAllocBytes, empty, len(page0), len(page1))
	if oneEntry > 2048 || empty > 2048 {
		t.Errorf("a one-entry map costs %d bytes of heap beyond its key and value and an empty one %d, want at most 2048", oneEntry, empty)
	}
	if len(page1) > 5<<20 {
		t.Errorf("/metrics is %d bytes with %d maps, want under 5 MB", len(page1), maps)
	}
}
