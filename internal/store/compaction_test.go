package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Interleaved updates that change sizes and removes, against a reference
// map; compaction must keep every live value intact and garbage bounded.
func TestCompactionAgainstReference(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"small records", []int{1, 20, 55, 120}},
		{"large records", []int{446, 900, 2000}},
		{"tier 1 records", []int{2100, 5000, 30000}},
		{"mixed with huge", []int{10, 400, 400, 3000, 100_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, MapConfig{PartitionCount: 2})
			r := rand.New(rand.NewPCG(7, 8))
			ref := [2]map[string]string{{}, {}}
			keys := 400
			if tc.sizes[len(tc.sizes)-1] > 100_000 {
				keys = 60
			}
			var maxRatio float64
			ops := 30000
			if raceEnabled {
				ops = 5000
			}
			for i := range ops {
				pid := int32(r.IntN(2))
				k := fmt.Sprint("key", r.IntN(keys))
				switch op := r.IntN(10); {
				case op < 6:
					v := patternValue(i, tc.sizes[r.IntN(len(tc.sizes))])
					if err := m.Set(pid, []byte(k), v, Expiry{}); err != nil {
						t.Fatal(err)
					}
					ref[pid][k] = string(v)
				case op < 9:
					if _, err := m.Delete(pid, []byte(k)); err != nil {
						t.Fatal(err)
					}
					delete(ref[pid], k)
				default:
					got, ok := mustGet(t, m, pid, k)
					want, wok := ref[pid][k]
					if ok != wok || got != want {
						t.Fatalf("op %d: get %s mismatch", i, k)
					}
				}
				for _, pid := range []int32{0, 1} {
					p := m.partition(pid)
					if p == nil {
						continue
					}
					p.mu.Lock()
					if p.used > 0 {
						maxRatio = max(maxRatio, float64(p.garbage)/float64(p.used))
					}
					if p.needCompact() {
						t.Fatalf("op %d: garbage %d of %d used left uncompacted", i, p.garbage, p.used)
					}
					p.mu.Unlock()
				}
				if i%2000 == 0 {
					checkInvariants(t, m)
				}
			}
			checkInvariants(t, m)
			for pid := range ref {
				n := 0
				_ = m.Scan(int32(pid), func(v EntryView) bool {
					if ref[pid][string(v.Key)] != string(v.Value) {
						t.Fatalf("partition %d key %s: wrong value", pid, v.Key)
					}
					n++
					return true
				})
				if n != len(ref[pid]) {
					t.Fatalf("partition %d: %d entries, want %d", pid, n, len(ref[pid]))
				}
			}
			st := m.Stats()
			if st.CompactedChunks == 0 && !raceEnabled {
				t.Fatal("no compaction happened")
			}
			t.Logf("%d chunks compacted; max garbage ratio seen %.2f", st.CompactedChunks, maxRatio)
		})
	}
}

// Removing everything gives the memory back, whatever the order.
func TestCompactionReleasesMemory(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	value := make([]byte, 300)
	for i := range 20000 {
		mustSet(t, m, 0, fmt.Sprint(i), string(fillValue(value, i)))
	}
	full := m.Stats().OwnedEntryMemoryCost
	r := rand.New(rand.NewPCG(1, 1))
	perm := r.Perm(20000)
	for j, i := range perm {
		if ok, _ := m.Delete(0, []byte(fmt.Sprint(i))); !ok {
			t.Fatal("missing")
		}
		if j == 15000 {
			// A quarter left: memory must have followed (garbage <= 1/4).
			if c := m.Stats().OwnedEntryMemoryCost; c > full/2 {
				t.Fatalf("cost %d with a quarter of %d left", c, full)
			}
		}
	}
	checkInvariants(t, m)
	st := m.Stats()
	// The open chunks (at most 32 KiB + 1 MiB) may be kept empty.
	if st.OwnedEntryCount != 0 || st.OwnedEntryMemoryCost > partStructSize+40<<10 {
		t.Fatalf("after removing everything: %+v", st)
	}
}

func TestFitSizesAreAllocationSizes(t *testing.T) {
	for _, n := range fitSizes {
		if got := roundUpAlloc(n); got != n {
			t.Errorf("%d is not an allocation size (rounds to %d)", n, got)
		}
		if got := roundUpAlloc(n - 1); got != n {
			t.Errorf("%d is not the next size after %d (got %d)", n, n-1, got)
		}
	}
	for _, n := range []int{40960, 49152, 1 << 20} {
		if got := roundUpAlloc(n); got != n {
			t.Errorf("page multiple %d rounds to %d", n, got)
		}
		if got := roundUpAlloc(n - pageSize + 1); got != n {
			t.Errorf("%d rounds to %d, want %d", n-pageSize+1, got, n)
		}
	}
}

func TestGrowTarget(t *testing.T) {
	tests := []struct {
		name         string
		tier, c, off int
		fp, want     int
	}{
		{"small chunk grows by 1/8", 0, 1024, 1000, 100, 1152},
		{"grows at least to fit", 0, 1024, 1000, 500, 1500},
		{"never beyond the tier maximum", 0, 30000, 29900, 2000, 0},
		// 482-byte records: 32768 would leave 474 bytes, 21760 leaves 70.
		{"482-byte records seal at 21760", 0, 20480, 20240, 482, 21760},
		{"seal now when what is left is the best", 0, 21760, 21690, 482, 0},
		{"tier 1 grows by 1/16", 1, 65536, 65000, 3000, 69632},
	}
	for _, tc := range tests {
		if got := growTarget(tc.tier, tc.c, tc.off, tc.fp); got != tc.want {
			t.Errorf("%s: growTarget(%d, %d, %d, %d) = %d, want %d", tc.name, tc.tier, tc.c, tc.off, tc.fp, got, tc.want)
		}
	}
}
