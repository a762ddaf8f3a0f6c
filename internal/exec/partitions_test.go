package exec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
)

// TestExecuteByPartitions: a query run over some partitions only
// (Options.Partitions) returns the rows of those partitions, on a plain
// scan and on an index lookup; the parts of a split of the partitions
// together return the whole result, each row once. A query whose result
// is not the union of its parts' is refused, and so is a partition this
// member does not own, at once.
func TestExecuteByPartitions(t *testing.T) {
	f := newIndexFixture(t)
	f.addIndexes()
	const n = 600
	partOf := map[int64]int32{}
	for k := int32(0); k < n; k++ {
		f.set(k, k%7, "s", store.Expiry{})
		_, _, pid := f.data(k, k%7, "s")
		partOf[int64(k)] = pid
	}
	count := int32(f.st.PartitionCount())
	var even, odd []int32
	for p := int32(0); p < count; p++ {
		if p%2 == 0 {
			even = append(even, p)
		} else {
			odd = append(odd, p)
		}
	}
	keysOf := func(ph *plan.Physical, params []expr.Value, parts []int32) []int64 {
		t.Helper()
		res, err := f.e.Execute(context.Background(), ph, params, Options{PageSize: 1 << 20, Partitions: parts})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := DecodeRows(res.Rows, res.Count, 1)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, r := range rows {
			out = append(out, r[0].I)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		name   string
		filter expr.Expr
		params []expr.Value
		index  bool
	}{
		{"scan", nil, nil, false},
		{"index lookup", expr.NewCall("=", expr.Boolean, &expr.Col{Index: 1, Name: "intField"}, &expr.Param{Index: 0, T: expr.Integer}),
			[]expr.Value{expr.IntValue(expr.Integer, 3)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var types []expr.Type
			for _, p := range c.params {
				types = append(types, p.T)
			}
			scan := &plan.Scan{Table: "m", Map: "m", Cols: []plan.ScanCol{{Path: "__key", Type: expr.BigInt}, {Path: "intField"}},
				Project: []expr.Expr{&expr.Col{Index: 0, Name: "__key", T: expr.BigInt}}, Names: []string{"__key"}, Filter: c.filter}
			ph := plan.Build(context.Background(), scan, f.cat, types, "query", plan.Options{})
			if !Partitionable(ph) {
				t.Fatalf("a filter and projection is not partitionable:\n%s", plan.ExplainText(ph))
			}
			if got := plan.ExplainText(ph); strings.Contains(got, "IndexScan") != c.index {
				t.Fatalf("index use %v:\n%s", c.index, got)
			}
			whole := keysOf(ph, c.params, nil)
			if len(whole) == 0 {
				t.Fatal("the whole query returned no rows")
			}
			e, o := keysOf(ph, c.params, even), keysOf(ph, c.params, odd)
			for _, k := range e {
				if partOf[k]%2 != 0 {
					t.Fatalf("key %d of partition %d in the even partitions' rows", k, partOf[k])
				}
			}
			for _, k := range o {
				if partOf[k]%2 != 1 {
					t.Fatalf("key %d of partition %d in the odd partitions' rows", k, partOf[k])
				}
			}
			both := append(append([]int64{}, e...), o...)
			slices.Sort(both)
			if !slices.Equal(both, whole) {
				t.Fatalf("the parts give %d rows, the whole query %d", len(both), len(whole))
			}
			// In pages of 5 rows (an index lookup too runs then as any
			// query, with a cursor): the same rows.
			res, err := f.e.Execute(context.Background(), ph, c.params, Options{PageSize: 5, Partitions: even})
			if err != nil {
				t.Fatal(err)
			}
			var paged []int64
			for {
				rows, err := DecodeRows(res.Rows, res.Count, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					paged = append(paged, r[0].I)
				}
				if res.Cursor == 0 {
					break
				}
				if res, err = f.e.Fetch(context.Background(), res.Cursor, nil); err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(paged)
			if !slices.Equal(paged, e) {
				t.Fatalf("in pages of 5: %d rows, in one page %d", len(paged), len(e))
			}
			// With a timeout: a lookup runs inline without its timer; one
			// whose rows need more than a page runs as any query, under
			// the timeout counted from its start.
			const timeout = time.Minute
			start := time.Now()
			res, err = f.e.Execute(context.Background(), ph, c.params, Options{PageSize: 1, Partitions: even, Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			f.e.mu.Lock()
			q := f.e.cursors[res.Cursor]
			f.e.mu.Unlock()
			if q == nil {
				t.Fatalf("%d row in a page of 1: no cursor", res.Count)
			}
			if dl, ok := q.ctx.Deadline(); !ok || dl.Before(start.Add(timeout)) || dl.After(time.Now().Add(timeout)) {
				t.Fatalf("the query's deadline is %v (set %v), want its start plus %v", dl, ok, timeout)
			}
			if !f.e.CloseCursor(res.Cursor, nil) {
				t.Fatal("the cursor was gone before it was closed")
			}
			// A partition this member does not own (here: none of its
			// table's) fails the query at once.
			_, err = f.e.Execute(context.Background(), ph, c.params, Options{Partitions: []int32{0, count}})
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("a partition not owned: %v, want ErrUnavailable", err)
			}
		})
	}
	// COUNT(*) is the sum of the parts' counts, not their union: refused.
	agg := &plan.Aggregate{Input: &plan.Scan{Table: "m", Map: "m", Cols: []plan.ScanCol{{Path: "__key", Type: expr.BigInt}}},
		Aggs: []plan.AggCall{{Func: "count", T: expr.BigInt}}, Names: []string{"n"}}
	ph := plan.Build(context.Background(), agg, f.cat, nil, "query", plan.Options{})
	if Partitionable(ph) {
		t.Fatalf("COUNT(*) is partitionable:\n%s", plan.ExplainText(ph))
	}
	if _, err := f.e.Execute(context.Background(), ph, nil, Options{Partitions: even}); !errors.Is(err, ErrNotPartitionable) {
		t.Fatalf("COUNT(*) by partitions: %v, want ErrNotPartitionable", err)
	}
	if f.e.Cursors() != 0 {
		t.Fatalf("%d cursors left", f.e.Cursors())
	}
}

// TestRunsInline: a query runs on its caller's goroutine with bounded
// work (RunsInline) only when it is an equality lookup by partitions in
// an index built here, with the catalog's indexes in place: not a scan,
// not a range, not a query over all partitions, not while a catalog
// change has not reached the engine (the lookup would build an index
// first).
func TestRunsInline(t *testing.T) {
	f := newIndexFixture(t)
	for k := int32(0); k < 50; k++ {
		f.set(k, k%7, "s", store.Expiry{})
	}
	build := func(op, attr string) *plan.Physical {
		scan := &plan.Scan{Table: "m", Map: "m", Cols: []plan.ScanCol{{Path: "__key", Type: expr.BigInt}, {Path: attr}},
			Project: []expr.Expr{&expr.Col{Index: 0, Name: "__key", T: expr.BigInt}}, Names: []string{"__key"},
			Filter: expr.NewCall(op, expr.Boolean, &expr.Col{Index: 1, Name: attr}, &expr.Param{Index: 0, T: expr.Integer})}
		return plan.Build(context.Background(), scan, f.cat, []expr.Type{expr.Integer}, "query", plan.Options{})
	}
	byParts := Options{Partitions: allParts(f.st.PartitionCount())}
	f.addIndexes()
	f.e.SyncIndexes()
	lookup := build("=", "intField")
	if got := plan.ExplainText(lookup); !strings.Contains(got, "IndexScan") {
		t.Fatalf("no index lookup:\n%s", got)
	}
	for _, c := range []struct {
		name string
		ph   *plan.Physical
		opts Options
		want bool
	}{
		{"a lookup by partitions", lookup, byParts, true},
		{"a lookup over all partitions", lookup, Options{}, false},
		{"a range", build(">", "intField"), byParts, false},
		{"a scan", build("=", "longField"), byParts, false},
	} {
		if got := f.e.RunsInline(c.ph, c.opts); got != c.want {
			t.Errorf("%s: RunsInline %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := f.cat.AddIndex(plan.IndexInfo{Name: "m_long", Map: "m", Type: plan.IndexSorted, Attribute: "longField"}, true); err != nil {
		t.Fatal(err)
	}
	if f.e.RunsInline(lookup, byParts) {
		t.Error("RunsInline before the engine built the catalog's new index")
	}
	f.e.SyncIndexes()
	if !f.e.RunsInline(lookup, byParts) {
		t.Error("RunsInline false once the engine has the catalog's indexes")
	}
	res, err := f.e.Execute(context.Background(), lookup, []expr.Value{expr.IntValue(expr.Integer, 3)}, byParts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 7 || res.Cursor != 0 {
		t.Fatalf("the lookup answered %d rows (cursor %d), want 7 in one page", res.Count, res.Cursor)
	}
}
