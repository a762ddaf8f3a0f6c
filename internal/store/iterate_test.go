package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// drain pages through a partition with the given page size, calling between
// after every page, and returns the keys delivered, in order.
func drain(t *testing.T, m *Map, pid int32, page int, between func()) []string {
	t.Helper()
	var keys []string
	c := Cursor(0)
	for pages := 0; c != CursorDone; pages++ {
		if pages > 100000 {
			t.Fatal("iteration does not end")
		}
		var err error
		c, err = m.Iterate(pid, c, page, func(v EntryView) bool {
			keys = append(keys, string(v.Key))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if between != nil {
			between()
		}
	}
	return keys
}

func TestIterateAllOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, 1000} {
		for _, page := range []int{1, 3, 64, 0} {
			t.Run(fmt.Sprintf("n=%d/page=%d", n, page), func(t *testing.T) {
				m := newTestMap(t, MapConfig{PartitionCount: 1})
				want := map[string]bool{}
				for i := range n {
					k := fmt.Sprint("key", i)
					mustSet(t, m, 0, k, "v")
					want[k] = true
				}
				got := drain(t, m, 0, page, nil)
				if len(got) != n {
					t.Fatalf("%d keys delivered, want %d", len(got), n)
				}
				for _, k := range got {
					if !want[k] {
						t.Fatalf("unexpected or repeated key %q", k)
					}
					delete(want, k)
				}
			})
		}
	}
}

// Entries present for the whole iteration are delivered exactly once even
// when other entries come and go, the index resizes and the slab compacts
// between pages.
func TestIterateUnderChurn(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	r := rand.New(rand.NewPCG(3, 4))
	stable := map[string]bool{}
	for i := range 500 {
		k := fmt.Sprint("stable", i)
		mustSet(t, m, 0, k, "v")
		stable[k] = true
	}
	churn := func() {
		for range 40 {
			k := fmt.Sprint("churn", r.IntN(2000))
			if r.IntN(3) == 0 {
				_, _ = m.Delete(0, []byte(k))
			} else {
				if err := m.Set(0, []byte(k), make([]byte, 1+r.IntN(300)), Expiry{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// rewrite stable entries with new sizes: they move in the slab
		for range 10 {
			k := fmt.Sprint("stable", r.IntN(500))
			if err := m.Set(0, []byte(k), make([]byte, 1+r.IntN(300)), Expiry{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	seen := map[string]int{}
	for _, k := range drain(t, m, 0, 7, churn) {
		seen[k]++
	}
	for k := range stable {
		if seen[k] != 1 {
			t.Fatalf("stable key %q delivered %d times", k, seen[k])
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("key %q delivered %d times", k, n)
		}
	}
	checkInvariants(t, m)
}

// collidingKeys finds two distinct keys with the same 32-bit hash for m.
func collidingKeys(t *testing.T, m *Map) (string, string) {
	seen := map[uint32]string{}
	for i := range 2_000_000 {
		k := fmt.Sprint("c", i)
		h := m.hash([]byte(k))
		if o, ok := seen[h]; ok {
			return o, k
		}
		seen[h] = k
	}
	t.Fatal("no collision found")
	return "", ""
}

func TestIterateHashTies(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	a, b := collidingKeys(t, m)
	mustSet(t, m, 0, a, "1")
	mustSet(t, m, 0, b, "2")
	for i := range 50 {
		mustSet(t, m, 0, fmt.Sprint("other", i), "v")
	}
	checkInvariants(t, m)
	// Both keys of a tie are found and come in the same page, even with
	// a page size of one or fn asking to stop.
	for _, k := range []string{a, b} {
		if _, ok := mustGet(t, m, 0, k); !ok {
			t.Fatalf("colliding key %q not found", k)
		}
	}
	var pages [][]string
	c := Cursor(0)
	for c != CursorDone {
		var page []string
		c, _ = m.Iterate(0, c, 1, func(v EntryView) bool {
			page = append(page, string(v.Key))
			return false
		})
		pages = append(pages, page)
	}
	found := false
	for _, p := range pages {
		if slices.Contains(p, a) || slices.Contains(p, b) {
			if len(p) != 2 || !slices.Contains(p, a) || !slices.Contains(p, b) {
				t.Fatalf("tie split across pages: %q", p)
			}
			found = true
		} else if len(p) != 1 {
			t.Fatalf("page of %d without a tie: %q", len(p), p)
		}
	}
	if !found || len(pages) != 51 {
		t.Fatalf("found %v, %d pages", found, len(pages))
	}
	// Removing one of the pair keeps the other reachable.
	if ok, _ := m.Delete(0, []byte(a)); !ok {
		t.Fatal("delete a")
	}
	if _, ok := mustGet(t, m, 0, b); !ok {
		t.Fatal("b lost after deleting its twin")
	}
	checkInvariants(t, m)
}

func TestScanViewsAndStop(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 2, Clock: clk})
	for i := range 100 {
		mustSet(t, m, 1, fmt.Sprint("k", i), fmt.Sprint("v", i))
	}
	n := 0
	err := m.Scan(1, func(v EntryView) bool {
		if string(v.Value) != "v"+string(v.Key[1:]) || v.Version != 1 || v.CreationTime != clk.Now().UnixMilli() {
			t.Fatalf("view %+v", v)
		}
		n++
		return n < 10
	})
	if err != nil || n != 10 {
		t.Fatalf("scan stopped after %d (%v)", n, err)
	}
	if err := m.Scan(0, func(EntryView) bool { t.Fatal("empty partition"); return false }); err != nil {
		t.Fatal(err)
	}
	if st := m.Stats(); st.Hits != 0 {
		t.Fatalf("scan counted %d hits", st.Hits)
	}
}

func TestIterateExpiredSkipped(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 1, Clock: clk})
	for i := range 10 {
		exp := Expiry{}
		if i%2 == 0 {
			exp.TTL = time.Second
		}
		if err := m.Set(0, []byte(fmt.Sprint(i)), []byte("v"), exp); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(time.Second)
	if got := drain(t, m, 0, 2, nil); len(got) != 5 {
		t.Fatalf("delivered %v", got)
	}
}
