package exec

import (
	"fmt"
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

// TestDirectAddressTableFindsEveryKey builds tables of integer keys dense
// enough for the direct-address table (gaps, repeats, negative keys, a NULL)
// and probes every key around their range.
func TestDirectAddressTableFindsEveryKey(t *testing.T) {
	for _, keys := range [][]int64{
		{3},
		{-30, -29, -26, -24, -20, -15, -14, -13, -10, -3, -3, 0, 0, 1},
		{10, 12, 13, 13, 13, 20, 21, 22, 23, 40, 41, 63, 64, 65, 66, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80},
	} {
		rows := [][]expr.Value{{{}}} // a NULL key: in no chain
		for _, k := range keys {
			rows = append(rows, []expr.Value{expr.BigIntValue(k)})
		}
		mem := NewMemoryAccount(0)
		tb := &joinTable{rows: rows, keyFns: []expr.Fn{nil}, keyCol: []int{0}, probeFns: []expr.Fn{nil},
			probeCol: []int{0}, intKeys: true, mem: mem}
		if err := tb.build(); err != nil {
			t.Fatal(err)
		}
		if tb.dense == nil {
			t.Fatalf("%v: no direct-address table", keys)
		}
		p := tb.newProber(nil, false)
		for k := keys[0] - 70; k <= keys[len(keys)-1]+70; k++ {
			var want []int32
			for i := 1; i < len(rows); i++ { // chains run in the rows' order
				if rows[i][0].I == k {
					want = append(want, int32(i))
				}
			}
			var got []int32
			first, _ := p.first([]expr.Value{expr.BigIntValue(k)})
			for i := first; i >= 0; i = p.nextOf(i) {
				got = append(got, i)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%v: key %d: rows %v, want %v", keys, k, got, want)
			}
		}
		tb.release()
		if mem.Used() != 0 {
			t.Errorf("%v: %d bytes still reserved", keys, mem.Used())
		}
	}
}
