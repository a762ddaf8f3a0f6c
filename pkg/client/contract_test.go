package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// waitFor polls cond until it holds or the generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func connect(t *testing.T, c *testcluster.Cluster, cfg client.Config) *client.Client {
	t.Helper()
	cfg.Addresses = c.Addrs()
	cfg.ClusterName = "test"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := client.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Person is a struct stored with zero-config Compact serialization.
type Person struct {
	Name string
	Age  int32
}

// TestMapContract runs the IMap contract against an in-process member and
// against a real member process.
func TestMapContract(t *testing.T) {
	for _, mode := range testcluster.Modes {
		t.Run(string(mode), func(t *testing.T) {
			cluster := testcluster.Start(t, mode, 1, testcluster.Options{})
			cl := connect(t, cluster, client.Config{})
			t.Run("BasicOps", func(t *testing.T) { testBasicOps(t, cl) })
			t.Run("ConditionalOps", func(t *testing.T) { testConditionalOps(t, cl) })
			t.Run("Batches", func(t *testing.T) { testBatches(t, cl) })
			t.Run("Iteration", func(t *testing.T) { testIteration(t, cl) })
			t.Run("Structs", func(t *testing.T) { testStructs(t, cluster, cl) })
			t.Run("Expiry", func(t *testing.T) { testRealTimeExpiry(t, cl) })
			t.Run("Eviction", func(t *testing.T) { testEviction(t, cl) })
			t.Run("Listeners", func(t *testing.T) { testListeners(t, cl) })
			t.Run("NearCache", func(t *testing.T) { testNearCache(t, cluster) })
			t.Run("BadInput", func(t *testing.T) { testBadInput(t, cl) })
		})
	}
}

func testBasicOps(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "basic")
	if _, existed, err := m.Put(ctx, "a", "1"); err != nil || existed {
		t.Fatalf("first Put: existed=%v err=%v", existed, err)
	}
	if old, existed, err := m.Put(ctx, "a", "2"); err != nil || !existed || old != "1" {
		t.Fatalf("second Put: old=%q existed=%v err=%v", old, existed, err)
	}
	if v, found, err := m.Get(ctx, "a"); err != nil || !found || v != "2" {
		t.Fatalf("Get: %q %v %v", v, found, err)
	}
	if _, found, err := m.Get(ctx, "missing"); err != nil || found {
		t.Fatalf("Get(missing): found=%v err=%v", found, err)
	}
	if err := m.Set(ctx, "b", "3"); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.ContainsKey(ctx, "b"); err != nil || !ok {
		t.Fatalf("ContainsKey(b) = %v, %v", ok, err)
	}
	if n, err := m.Size(ctx); err != nil || n != 2 {
		t.Fatalf("Size = %d, %v", n, err)
	}
	if old, found, err := m.Remove(ctx, "a"); err != nil || !found || old != "2" {
		t.Fatalf("Remove: %q %v %v", old, found, err)
	}
	if _, found, err := m.Remove(ctx, "a"); err != nil || found {
		t.Fatalf("second Remove: found=%v err=%v", found, err)
	}
	if ok, err := m.Delete(ctx, "b"); err != nil || !ok {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if ok, err := m.Delete(ctx, "b"); err != nil || ok {
		t.Fatalf("second Delete = %v, %v", ok, err)
	}
	_ = m.Set(ctx, "c", "4")
	ev, found, err := m.GetEntryView(ctx, "c")
	if err != nil || !found || ev.Value != "4" || ev.Version < 1 || ev.CreationTime.IsZero() {
		t.Fatalf("GetEntryView: %+v %v %v", ev, found, err)
	}
	if ok, err := m.Evict(ctx, "c"); err != nil || !ok {
		t.Fatalf("Evict = %v, %v", ok, err)
	}
	for i := 0; i < 10; i++ {
		_ = m.Set(ctx, fmt.Sprint(i), "x")
	}
	if err := m.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := m.Size(ctx); n != 0 {
		t.Fatalf("Size after Clear = %d", n)
	}
	st, err := m.Stats(ctx)
	if err != nil || st.Puts < 2 || st.Gets < 2 || st.Members != 1 {
		t.Fatalf("Stats: %+v %v", st, err)
	}
	if err := m.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
}

func testConditionalOps(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[int32, string](cl, "conditional")
	if _, existed, err := m.PutIfAbsent(ctx, 1, "one"); err != nil || existed {
		t.Fatalf("PutIfAbsent on absent: existed=%v err=%v", existed, err)
	}
	if cur, existed, err := m.PutIfAbsent(ctx, 1, "uno"); err != nil || !existed || cur != "one" {
		t.Fatalf("PutIfAbsent on present: %q %v %v", cur, existed, err)
	}
	if _, existed, err := m.Replace(ctx, 2, "two"); err != nil || existed {
		t.Fatalf("Replace on absent: existed=%v err=%v", existed, err)
	}
	if ok, _ := m.ContainsKey(ctx, 2); ok {
		t.Fatal("Replace on an absent key stored it")
	}
	if old, existed, err := m.Replace(ctx, 1, "eins"); err != nil || !existed || old != "one" {
		t.Fatalf("Replace: %q %v %v", old, existed, err)
	}
	if ok, err := m.ReplaceIfSame(ctx, 1, "one", "x"); err != nil || ok {
		t.Fatalf("ReplaceIfSame with a stale value = %v, %v", ok, err)
	}
	if ok, err := m.ReplaceIfSame(ctx, 1, "eins", "ein"); err != nil || !ok {
		t.Fatalf("ReplaceIfSame = %v, %v", ok, err)
	}
	if ok, err := m.RemoveIfSame(ctx, 1, "eins"); err != nil || ok {
		t.Fatalf("RemoveIfSame with a stale value = %v, %v", ok, err)
	}
	if ok, err := m.RemoveIfSame(ctx, 1, "ein"); err != nil || !ok {
		t.Fatalf("RemoveIfSame = %v, %v", ok, err)
	}
}

func testBatches(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[int32, int64](cl, "batches")
	var entries []client.Entry[int32, int64]
	for i := int32(0); i < 1000; i++ {
		entries = append(entries, client.Entry[int32, int64]{Key: i, Value: int64(i) * 10})
	}
	if err := m.PutAll(ctx, entries); err != nil {
		t.Fatal(err)
	}
	keys := []int32{0, 5, 999, 1000, 12345}
	got, err := m.GetAll(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Key < got[j].Key })
	want := []client.Entry[int32, int64]{{0, 0}, {5, 50}, {999, 9990}}
	if !slices.Equal(got, want) {
		t.Fatalf("GetAll = %v, want %v", got, want)
	}
	if n, _ := m.Size(ctx); n != 1000 {
		t.Fatalf("Size = %d", n)
	}
}

func testIteration(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, int32](cl, "iteration")
	want := map[string]int32{}
	for i := int32(0); i < 2500; i++ { // several pages
		k := fmt.Sprintf("k%04d", i)
		want[k] = i
		if err := m.Set(ctx, k, i); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := m.EntrySet(ctx)
	if err != nil || len(entries) != len(want) {
		t.Fatalf("EntrySet: %d entries, %v", len(entries), err)
	}
	for _, e := range entries {
		if want[e.Key] != e.Value {
			t.Fatalf("entry %s = %d, want %d", e.Key, e.Value, want[e.Key])
		}
	}
	keys, err := m.KeySet(ctx)
	if err != nil || len(keys) != len(want) {
		t.Fatalf("KeySet: %d, %v", len(keys), err)
	}
	values, err := m.Values(ctx)
	if err != nil || len(values) != len(want) {
		t.Fatalf("Values: %d, %v", len(values), err)
	}
	n := 0
	for range m.All(ctx) {
		if n++; n == 10 {
			break // stopping early must release the stream
		}
	}
}

func testStructs(t *testing.T, cluster *testcluster.Cluster, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, Person](cl, "people")
	if err := m.Set(ctx, "ada", Person{Name: "Ada", Age: 36}); err != nil {
		t.Fatal(err)
	}
	p, found, err := m.Get(ctx, "ada")
	if err != nil || !found || p != (Person{Name: "Ada", Age: 36}) {
		t.Fatalf("Get = %+v %v %v", p, found, err)
	}
	// A second client that never wrote the type fetches the schema.
	cl2 := connect(t, cluster, client.Config{})
	m2 := client.GetMap[string, Person](cl2, "people")
	p, found, err = m2.Get(ctx, "ada")
	if err != nil || !found || p.Name != "Ada" {
		t.Fatalf("Get from a fresh client = %+v %v %v", p, found, err)
	}
	// A reader without the Go type sees a record.
	cl3 := connect(t, cluster, client.Config{})
	raw := client.GetMap[string, any](cl3, "people")
	v, _, err := raw.Get(ctx, "ada")
	rec, ok := v.(*serialization.CompactRecord)
	if err != nil || !ok {
		t.Fatalf("untyped Get = %T %v", v, err)
	}
	if age, _ := rec.GetInt32("age"); age != 36 {
		t.Fatalf("record age = %d", age)
	}
}

func testRealTimeExpiry(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "expiry")
	if err := m.Set(ctx, "short", "v", client.WithTTL(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := m.Set(ctx, "forever", "v", client.WithTTL(0)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a 1s TTL to expire", func() bool {
		_, found, err := m.Get(ctx, "short")
		return err == nil && !found
	})
	if _, found, _ := m.Get(ctx, "forever"); !found {
		t.Fatal("an entry with TTL 0 (forever) expired")
	}
}

func testEviction(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[int32, string](cl, "evicting")
	limit := int64(1000)
	if err := m.Configure(ctx, client.MapConfig{EvictionPolicy: client.EvictionLRU, MaxEntries: &limit}); err != nil {
		t.Fatal(err)
	}
	for i := int32(0); i < 3000; i++ {
		if err := m.Set(ctx, i, "v"); err != nil {
			t.Fatal(err)
		}
	}
	n, err := m.Size(ctx)
	if err != nil || n > limit || n < limit/2 {
		t.Fatalf("Size after eviction = %d (limit %d), %v", n, limit, err)
	}
	st, _ := m.Stats(ctx)
	if st.Evictions < 3000-limit {
		t.Fatalf("evictions = %d, want at least %d", st.Evictions, 3000-limit)
	}
	// A map in use cannot be reconfigured.
	if err := m.Configure(ctx, client.MapConfig{MaxEntries: &limit}); err == nil {
		t.Fatal("Configure of a map in use succeeded")
	}
	// The members keep one backup of each partition (the default): a map
	// cannot ask for more.
	three := int32(3)
	err = client.GetMap[int32, string](cl, "three-backups").Configure(ctx, client.MapConfig{BackupCount: &three})
	if !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "exceeds the 1 backups") {
		t.Fatalf("Configure with 3 backups: %v", err)
	}
}

type eventLog struct {
	mu     sync.Mutex
	events []client.EntryEvent[string, string]
}

func (l *eventLog) add(e client.EntryEvent[string, string]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) types() []client.EventType {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]client.EventType, len(l.events))
	for i, e := range l.events {
		out[i] = e.Type
	}
	return out
}

func testListeners(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "listened")
	var all, one eventLog
	sub, err := m.AddEntryListener(ctx, client.ListenerConfig[string]{IncludeValues: true}, all.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	key := "k"
	sub2, err := m.AddEntryListener(ctx, client.ListenerConfig[string]{Key: &key}, one.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	_ = m.Set(ctx, "k", "v1")
	_ = m.Set(ctx, "k", "v2")
	_ = m.Set(ctx, "other", "x")
	_, _ = m.Evict(ctx, "other")
	_, _, _ = m.Remove(ctx, "k")
	_ = m.Set(ctx, "ttl", "x", client.WithTTL(time.Second))
	want := []client.EventType{client.EventAdded, client.EventUpdated, client.EventAdded, client.EventEvicted, client.EventRemoved, client.EventAdded, client.EventExpired}
	waitFor(t, "all events", func() bool {
		_, _, _ = m.Get(ctx, "ttl") // reading an expired entry removes it
		return len(all.types()) >= len(want)
	})
	if got := all.types(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	all.mu.Lock()
	upd := all.events[1]
	all.mu.Unlock()
	if upd.Key != "k" || upd.Value != "v2" || upd.OldValue != "v1" || !upd.HasValue || !upd.HasOldValue {
		t.Fatalf("UPDATED event %+v", upd)
	}
	if got := one.types(); !slices.Equal(got, []client.EventType{client.EventAdded, client.EventUpdated, client.EventRemoved}) {
		t.Fatalf("key listener events %v", got)
	}
	one.mu.Lock()
	if one.events[0].HasValue {
		t.Fatal("listener without values got a value")
	}
	one.mu.Unlock()
}

func testNearCache(t *testing.T, cluster *testcluster.Cluster) {
	ctx := ctxT(t)
	reader := connect(t, cluster, client.Config{NearCaches: map[string]client.NearCacheConfig{"near-*": {}}})
	writer := connect(t, cluster, client.Config{})
	rm := client.GetMap[string, string](reader, "near-cached")
	wm := client.GetMap[string, string](writer, "near-cached")
	if err := wm.Set(ctx, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	// Read until a hit shows that the cache is active.
	waitFor(t, "a near cache hit", func() bool {
		v, _, err := rm.Get(ctx, "k")
		return err == nil && v == "v1" && reader.Stats().NearCacheHits > 0
	})
	if err := wm.Set(ctx, "k", "v2"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the invalidation of a remote update", func() bool {
		v, _, err := rm.Get(ctx, "k")
		return err == nil && v == "v2"
	})
	if reader.Stats().NearCacheInvalidations == 0 {
		t.Fatal("no invalidation counted")
	}
	// Own writes invalidate at once.
	if err := rm.Set(ctx, "k", "v3"); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := rm.Get(ctx, "k"); v != "v3" {
		t.Fatalf("after own write got %q", v)
	}
}

func testBadInput(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[any, any](cl, "bad")
	if err := m.Set(ctx, nil, "v"); !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("nil key: %v", err)
	}
	if err := m.Set(ctx, "k", nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("nil value: %v", err)
	}
	if err := m.Set(ctx, "k", make(chan int)); !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("unserializable value: %v", err)
	}
	typed := client.GetMap[string, int32](cl, "bad-types")
	if err := client.GetMap[string, string](cl, "bad-types").Set(ctx, "k", "text"); err != nil {
		t.Fatal(err)
	}
	var te *client.TypeError
	if _, _, err := typed.Get(ctx, "k"); !errors.As(err, &te) {
		t.Fatalf("reading a string as int32: %v", err)
	}
	if err := m.Set(ctx, "", "empty map name is fine"); err != nil {
		t.Fatalf("empty string key: %v", err)
	}
	bad := client.GetMap[string, string](cl, "")
	if err := bad.Set(ctx, "k", "v"); !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("empty map name: %v", err)
	}
	if _, _, err := client.GetMap[string, string](cl, "bad").Put(ctx, "k", "v", client.WithTTL(-time.Second)); !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("negative TTL: %v", err)
	}
}
