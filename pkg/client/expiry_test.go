package client_test

import (
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// clockCluster starts an in-process member whose time only moves when the
// test advances the clock, and disables background sweeps so that expiry
// is observed through reads (and through the explicit sweep below).
func clockCluster(t *testing.T, maps map[string]member.MapConfig) (*testcluster.Cluster, *testcluster.Clock) {
	clock := testcluster.NewClock()
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(cfg *member.Config) {
		cfg.Clock = clock
		cfg.SweepInterval = 0
		cfg.Maps = maps
	}})
	return c, clock
}

func TestTTLWithInjectedClock(t *testing.T) {
	cluster, clock := clockCluster(t, map[string]member.MapConfig{"ttl-*": {TTL: member.Duration(time.Minute)}})
	cl := connect(t, cluster, client.Config{})
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "ttl-map")
	if err := m.Set(ctx, "default", "v"); err != nil { // map default: 1 minute
		t.Fatal(err)
	}
	if err := m.Set(ctx, "own", "v", client.WithTTL(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := m.Set(ctx, "forever", "v", client.WithTTL(0)); err != nil {
		t.Fatal(err)
	}
	ev, _, err := m.GetEntryView(ctx, "own")
	if err != nil || ev.TTL != 10*time.Second || ev.ExpirationTime.IsZero() {
		t.Fatalf("entry view of a 10s entry: %+v, %v", ev, err)
	}
	clock.Advance(11 * time.Second)
	if _, found, _ := m.Get(ctx, "own"); found {
		t.Fatal("entry with a 10s TTL is visible after 11s")
	}
	if _, found, _ := m.Get(ctx, "default"); !found {
		t.Fatal("entry with the 1 minute default expired after 11s")
	}
	// A write restarts the TTL.
	if err := m.Set(ctx, "default", "v2"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(50 * time.Second)
	if _, found, _ := m.Get(ctx, "default"); !found {
		t.Fatal("TTL did not restart on write")
	}
	clock.Advance(11 * time.Second)
	if _, found, _ := m.Get(ctx, "default"); found {
		t.Fatal("entry outlived the map default TTL")
	}
	clock.Advance(24 * time.Hour)
	if _, found, _ := m.Get(ctx, "forever"); !found {
		t.Fatal("TTL 0 entry expired")
	}
	// SetTTL changes an existing entry's TTL.
	if ok, err := m.SetTTL(ctx, "forever", time.Second); err != nil || !ok {
		t.Fatalf("SetTTL = %v, %v", ok, err)
	}
	clock.Advance(2 * time.Second)
	if _, found, _ := m.Get(ctx, "forever"); found {
		t.Fatal("SetTTL did not take effect")
	}
	st, _ := m.Stats(ctx)
	if st.Expirations < 3 {
		t.Fatalf("expirations = %d, want 3", st.Expirations)
	}
}

func TestMaxIdleWithInjectedClock(t *testing.T) {
	cluster, clock := clockCluster(t, nil)
	cl := connect(t, cluster, client.Config{})
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "idle")
	if _, _, err := m.Put(ctx, "read", "v", client.WithMaxIdle(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Put(ctx, "unread", "v", client.WithMaxIdle(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // reads keep "read" alive well past its max-idle
		clock.Advance(6 * time.Second)
		if _, found, _ := m.Get(ctx, "read"); !found {
			t.Fatalf("read entry expired after %d reads", i)
		}
	}
	if _, found, _ := m.Get(ctx, "unread"); found {
		t.Fatal("entry idle for 30s with a 10s max-idle is visible")
	}
}

func TestLFUEvictionKeepsHotEntries(t *testing.T) {
	cluster, clock := clockCluster(t, map[string]member.MapConfig{
		"lfu": {Eviction: member.EvictionConfig{Policy: "LFU", MaxEntries: 2000}},
	})
	cl := connect(t, cluster, client.Config{})
	ctx := ctxT(t)
	m := client.GetMap[int32, int32](cl, "lfu")
	for i := int32(0); i < 100; i++ { // hot keys, read often
		_ = m.Set(ctx, i, i)
		for j := 0; j < 5; j++ {
			_, _, _ = m.Get(ctx, i)
		}
	}
	clock.Advance(time.Second)
	for i := int32(100); i < 6000; i++ {
		if err := m.Set(ctx, i, i); err != nil {
			t.Fatal(err)
		}
	}
	hot := 0
	for i := int32(0); i < 100; i++ {
		if ok, _ := m.ContainsKey(ctx, i); ok {
			hot++
		}
	}
	if hot < 90 {
		t.Fatalf("only %d of 100 hot keys survived LFU eviction", hot)
	}
	if n, _ := m.Size(ctx); n > 2000+271 {
		t.Fatalf("size %d far above the limit", n)
	}
}
