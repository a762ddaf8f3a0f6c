package exec

import (
	"math"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// A group join aggregates a join's pairs per row of its build side: when a
// fragment groups the joined rows by a column that is unique in the build
// input (the build map's key) and counts them (COUNT(*), COUNT(column)),
// each build row is a group, so its counters live in an array indexed by
// the row instead of in a hash table of groups, and the joined rows are
// never put together. TPC-H Q13's "orders per customer" is one.

// groupJoin holds the counters of a group join, one array per worker.
// Counters are 32-bit, which halves the memory a probe touches at random:
// before a worker could pass 2^32-1 pairs since its last fold, it folds its
// counters into 64-bit ones (allocated then, and in practice never).
type groupJoin struct {
	t       *joinTable
	aggs    []plan.AggCall
	keyCols []int // the group's columns in the build row
	// counts[k]: what aggregate k counts per pair.
	counts   []gjCount
	width    int // counters per build row: pairs, then one per counted probe column
	mem      *MemoryAccount
	workers  []*gjCounters // by worker index: each worker writes its own
	reserved atomic.Int64  // workers add to it as they start
	// foldEvery: the pairs a worker counts before folding (a test lowers it).
	foldEvery uint32
}

// gjCounters are one worker's counters.
type gjCounters struct {
	c      []uint32
	folded []int64 // earlier counts of c, when a fold was ever needed
	left   uint32  // pairs c may still count before it must be folded
}

type gjCount struct {
	star  bool // COUNT(*)
	pairs bool // never NULL in a pair (a probe key, the probe map's key): the pairs
	build bool // a build column (counted once per pair when not NULL)
	col   int  // the column in its side's row
	slot  int  // its counter among a build row's, for a probe column
}

// newGroupJoin returns the group join of a join fragment, or nil when its
// aggregation is not one.
func newGroupJoin(f *plan.Fragment, t *joinTable, mem *MemoryAccount, workers int) *groupJoin {
	j := f.Join
	if j == nil || f.Filter != nil || len(f.GroupBy) == 0 || len(f.Aggs) == 0 {
		return nil
	}
	// Inner joins, and left joins whose preserved side builds (a NULL
	// group from unmatched probe rows is not a build row).
	if !(j.Kind == plan.JoinInner || (j.Kind == plan.JoinLeft && !j.BuildRight)) {
		return nil
	}
	nl := len(j.Left.Out)
	buildFrag, buildOff, buildW, probeFrag := j.Left, 0, nl, j.Right
	if j.BuildRight {
		buildFrag, buildOff, buildW, probeFrag = j.Right, nl, len(j.Right.Out), j.Left
	}
	g := &groupJoin{t: t, aggs: f.Aggs, width: 1, mem: mem, foldEvery: math.MaxUint32}
	unique := false
	for _, e := range f.GroupBy {
		c, ok := e.(*expr.Col)
		if !ok || c.Index < buildOff || c.Index >= buildOff+buildW {
			return nil
		}
		bc := c.Index - buildOff
		g.keyCols = append(g.keyCols, bc)
		unique = unique || isMapKey(buildFrag, bc)
	}
	if !unique {
		return nil
	}
	for _, a := range f.Aggs {
		if a.Func != "count" || a.Distinct {
			return nil
		}
		if a.Arg == nil {
			g.counts = append(g.counts, gjCount{star: true})
			continue
		}
		c, ok := a.Arg.(*expr.Col)
		if !ok {
			return nil
		}
		inBuild := c.Index >= buildOff && c.Index < buildOff+buildW
		col := c.Index
		probeKeys := j.RightKeys
		if inBuild {
			col -= buildOff
		} else if j.BuildRight {
			col, probeKeys = c.Index, j.LeftKeys // the probe side is the left one
		} else {
			col = c.Index - nl
		}
		// A probe key column is never NULL in a pair, nor is the probe
		// map's key: counting either counts the pairs.
		isKey := !inBuild && isMapKey(probeFrag, col)
		for _, k := range probeKeys {
			if kc, ok := k.(*expr.Col); ok && kc.Index == col && !inBuild {
				isKey = true
			}
		}
		cnt := gjCount{build: inBuild, pairs: isKey, col: col}
		if !inBuild && !isKey {
			cnt.slot = g.width
			g.width++
		}
		g.counts = append(g.counts, cnt)
	}
	g.workers = make([]*gjCounters, workers)
	return g
}

// isGroupJoin reports whether a fragment's aggregation is a group join
// (which emits each group once, from its finishing worker).
func isGroupJoin(f *plan.Fragment) bool {
	return f.Join != nil && newGroupJoin(f, &joinTable{}, nil, 0) != nil
}

// isMapKey reports whether column c of a scan fragment's output is its
// map's key (unique among the map's entries).
func isMapKey(f *plan.Fragment, c int) bool {
	if f.Join != nil || c >= len(f.Project) {
		return false
	}
	col, ok := f.Project[c].(*expr.Col)
	return ok && col.Index < len(f.Cols) && f.Cols[col.Index].Path == "__key" && !f.Cols[col.Index].JSON
}

// counters returns a worker's counters, allocating them on first use.
func (g *groupJoin) counters(w int) (*gjCounters, error) {
	if c := g.workers[w]; c != nil {
		return c, nil
	}
	n := int64(len(g.t.rows) * g.width)
	if err := g.mem.Reserve("join hash table", n*4); err != nil {
		return nil, err
	}
	g.reserved.Add(n * 4)
	g.workers[w] = &gjCounters{c: make([]uint32, n), left: g.foldEvery}
	return g.workers[w], nil
}

// pair counts one pair of a probe row and build row b.
func (g *groupJoin) pair(c *gjCounters, probe []expr.Value, b int32) error {
	if c.left == 0 {
		if err := g.fold(c); err != nil {
			return err
		}
	}
	c.left--
	at := int(b) * g.width
	c.c[at]++
	for _, cnt := range g.counts {
		if cnt.slot > 0 && !probe[cnt.col].IsNull() {
			c.c[at+cnt.slot]++
		}
	}
	return nil
}

// fold adds a worker's 32-bit counters to its 64-bit ones and clears them.
func (g *groupJoin) fold(c *gjCounters) error {
	if c.folded == nil {
		n := int64(len(c.c))
		if err := g.mem.Reserve("join hash table", n*8); err != nil {
			return err
		}
		g.reserved.Add(n * 8)
		c.folded = make([]int64, n)
	}
	for i, v := range c.c {
		c.folded[i] += int64(v)
		c.c[i] = 0
	}
	c.left = g.foldEvery
	return nil
}

// total returns counter slot of build row i, summed over the workers.
func (g *groupJoin) total(i, slot int) int64 {
	at := i*g.width + slot
	n := int64(0)
	for _, c := range g.workers {
		if c == nil {
			continue
		}
		n += int64(c.c[at])
		if c.folded != nil {
			n += c.folded[at]
		}
	}
	return n
}

// finish emits one partial row per group: the build row's key columns,
// then each count's partial state.
func (g *groupJoin) finish(t *worker) error {
	defer func() { g.mem.Release(g.reserved.Swap(0)) }()
	var row []expr.Value
	for i, b := range g.t.rows {
		pairs := g.total(i, 0)
		outer := pairs == 0
		if outer && g.t.spec.kind == plan.JoinInner {
			continue
		}
		row = row[:0]
		for _, kc := range g.keyCols {
			row = append(row, b[kc])
		}
		for k, cnt := range g.counts {
			s := newAggState(g.aggs[k])
			switch {
			case cnt.star:
				s.count = max(pairs, 1) // an unmatched row counts once
			case cnt.pairs:
				s.count = pairs
			case cnt.build:
				if !b[cnt.col].IsNull() {
					s.count = max(pairs, 1)
				}
			default:
				s.count = g.total(i, cnt.slot)
			}
			row = s.partial(row)
		}
		t.buf = EncodeRow(t.buf, row)
		t.count++
	}
	return nil
}
