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
	e := <-all.Events()
	if e.Type != store.EventAdded || string(e.Key) != "a" || string(e.Value) != "v-a" {
		t.Fatalf("first event %+v", e)
	}
	<-all.Events()
	if d := all.TakeDropped(); d != 2 {
		t.Fatalf("dropped %d, want 2 (c's ADDED and a's REMOVED)", d)
	}
	if e := <-onlyA.Events(); e.Type != store.EventRemoved || e.Value != nil {
		t.Fatalf("filtered event %+v", e)
	}
	select {
	case e := <-onlyA.Events():
		t.Fatalf("unexpected event %+v", e)
	default:
	}
	all.Close()
	<-all.Done()
	r.Destroy("m")
	<-onlyA.Done()
}
