package exec

import (
	"testing"

	"github.com/atolldb/atoll/internal/query/expr"
)

// TestGroupJoinFoldsCountersBeforeTheyWrap lowers the pairs a worker counts
// between folds so that folding into 64-bit counters happens, and checks
// every total against counts kept beside, and the memory accounted for it.
func TestGroupJoinFoldsCountersBeforeTheyWrap(t *testing.T) {
	for _, foldEvery := range []uint32{1, 3, 7, 1 << 20} {
		mem := NewMemoryAccount(0)
		rows := make([][]expr.Value, 5)
		g := &groupJoin{t: &joinTable{rows: rows}, width: 2, mem: mem, foldEvery: foldEvery,
			counts:  []gjCount{{col: 0, slot: 1}},
			workers: make([]*gjCounters, 2)}
		var wantPairs, wantCol [5]int64
		null, one := []expr.Value{{}}, []expr.Value{expr.BigIntValue(1)}
		for i := range 101 {
			c, err := g.counters(i % 2)
			if err != nil {
				t.Fatal(err)
			}
			b, probe := int32(i*7%5), one
			if i%3 == 0 {
				probe = null
			} else {
				wantCol[b]++
			}
			wantPairs[b]++
			if err := g.pair(c, probe, b); err != nil {
				t.Fatal(err)
			}
		}
		for i := range rows {
			if got := g.total(i, 0); got != wantPairs[i] {
				t.Errorf("fold every %d: row %d: %d pairs, want %d", foldEvery, i, got, wantPairs[i])
			}
			if got := g.total(i, 1); got != wantCol[i] {
				t.Errorf("fold every %d: row %d: column counted %d times, want %d", foldEvery, i, got, wantCol[i])
			}
		}
		want := int64(2 * 10 * 4) // two workers' 32-bit counters
		if foldEvery < 101/2 {
			want += 2 * 10 * 8 // and their 64-bit ones
		}
		if mem.Used() != want || g.reserved.Load() != want {
			t.Errorf("fold every %d: %d bytes used, %d reserved; want %d", foldEvery, mem.Used(), g.reserved.Load(), want)
		}
	}
}
