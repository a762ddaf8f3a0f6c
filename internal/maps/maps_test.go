package maps

import (
	"errors"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/store"
)

func TestConfigResolution(t *testing.T) {
	r := NewRegistry(Options{PartitionCount: 7, Configs: map[string]Config{
		"default":  {TTL: time.Hour},
		"cache-*":  {TTL: time.Minute},
		"cache-x*": {TTL: time.Second},
		"exact":    {TTL: 2 * time.Second},
	}})
	cases := map[string]time.Duration{
		"other":    time.Hour,
		"cache-a":  time.Minute,
		"cache-xy": time.Second, // the longer pattern wins
		"exact":    2 * time.Second,
	}
	for name, want := range cases {
		if got := r.ConfigOf(name).TTL; got != want {
			t.Errorf("%s: TTL %v, want %v", name, got, want)
		}
	}
	if _, err := r.Get(""); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("empty name: %v", err)
	}
	m, err := r.Get("cache-a")
	if err != nil || m.Config().TTL != time.Minute {
		t.Fatalf("Get: %v %v", m, err)
	}
	if err := r.Configure("cache-a", Config{}); !errors.Is(err, ErrMapExists) {
		t.Fatalf("configure a map in use: %v", err)
	}
	if err := r.Configure("later", Config{MaxIdle: time.Second}); err != nil {
		t.Fatal(err)
	}
	if m, _ := r.Get("later"); m.Config().MaxIdle != time.Second {
		t.Fatal("configuration before first use was not applied")
	}
	if !r.Destroy("later") || r.Destroy("later") {
		t.Fatal("Destroy")
	}
	if _, ok := r.Lookup("later"); ok {
		t.Fatal("destroyed map still listed")
	}
}

func TestListenersFilterAndCountDrops(t *testing.T) {
	r := NewRegistry(Options{PartitionCount: 3})
	m, _ := r.Get("m")
	all := m.AddListener(ListenerOptions{IncludeValues: true, Buffer: 2})
	onlyA := m.AddListener(ListenerOptions{Key: []byte("a"), Types: []store.EventType{store.EventRemoved}})
	set := func(k string) {
		if err := m.Store.Set(0, []byte(k), []byte("v-"+k), store.Expiry{}); err != nil {
			t.Fatal(err)
		}
	}
	set("a")
	set("b")
	set("c") // the buffer of 2 is full: dropped and counted
	if _, err := m.Store.Delete(0, []byte("a")); err != nil {
		t.Fatal(err)
	}
	<-all.Ready()
	got := all.Drain(nil, 10)
	if len(got) != 2 || got[0].Type != store.EventAdded || string(got[0].Key) != "a" || string(got[0].Value) != "v-a" || string(got[1].Key) != "b" {
		t.Fatalf("events %+v", got)
	}
	if d := all.TakeDropped(); d != 2 {
		t.Fatalf("dropped %d, want 2 (c's ADDED and a's REMOVED)", d)
	}
	<-onlyA.Ready()
	if got := onlyA.Drain(nil, 10); len(got) != 1 || got[0].Type != store.EventRemoved || got[0].Value != nil {
		t.Fatalf("filtered events %+v", got)
	}
	select {
	case <-onlyA.Ready():
		t.Fatalf("unexpected events %+v", onlyA.Drain(nil, 10))
	default:
	}
	all.Close()
	<-all.Done()
	r.Destroy("m")
	<-onlyA.Done()
}

// TestEventQueueKeepsOrderAcrossGrowth pushes and drains in uneven steps so
// that the ring wraps around while it grows; every event comes out once, in
// order, and pushes past the bound fail.
func TestEventQueueKeepsOrderAcrossGrowth(t *testing.T) {
	q := eventQueue{max: 10_000, ready: make(chan struct{}, 1)}
	next, want := 0, 0
	var out []Event
	for round := 0; round < 50; round++ {
		for i := 0; i < 97*(round%7+1) && next-want < q.max; i++ {
			if !q.push(Event{Partition: int32(next)}) {
				t.Fatalf("push %d refused below the bound", next)
			}
			next++
		}
		out = q.drain(out[:0], 37*(round%5+1))
		for _, e := range out {
			if int(e.Partition) != want {
				t.Fatalf("got event %d, want %d", e.Partition, want)
			}
			want++
		}
	}
	for q.n < q.max {
		q.push(Event{Partition: int32(next)})
		next++
	}
	if q.push(Event{}) {
		t.Fatal("push beyond the bound accepted")
	}
	for out = q.drain(out[:0], q.max); len(out) > 0; out = q.drain(out[:0], 1000) {
		for _, e := range out {
			if int(e.Partition) != want {
				t.Fatalf("got event %d, want %d", e.Partition, want)
			}
			want++
		}
	}
	if want != next || len(q.buf) != 0 {
		t.Fatalf("drained %d of %d; ring of %d left", want, next, len(q.buf))
	}
}

// TestMapLimitAndSeries: Get creates at most MaxMaps maps (Replica, for
// other members' data, is never refused), and the first MaxMapSeries maps
// created have series of their own, a destroyed map's slot going to the
// next one created.
func TestMapLimitAndSeries(t *testing.T) {
	r := NewRegistry(Options{PartitionCount: 7, MaxMaps: 3, MaxMapSeries: 2})
	for _, name := range []string{"a", "b", "c"} {
		if _, err := r.Get(name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Get("d"); !errors.Is(err, ErrTooManyMaps) {
		t.Fatalf("a fourth map: %v", err)
	}
	if _, err := r.Get("a"); err != nil {
		t.Fatalf("an existing map past the limit: %v", err)
	}
	if _, err := r.Replica("d"); err != nil {
		t.Fatalf("a copy of another member's map: %v", err)
	}
	own := func(name string) bool {
		m, ok := r.Lookup(name)
		return ok && m.OwnSeries()
	}
	if !own("a") || !own("b") || own("c") || own("d") {
		t.Fatal("series: want a and b only")
	}
	r.Destroy("a")
	r.Destroy("b")
	if _, err := r.Get("e"); err != nil {
		t.Fatal(err)
	}
	if !own("e") || own("c") {
		t.Fatal("a freed series slot goes to the next map created, not to one that exists")
	}
}
