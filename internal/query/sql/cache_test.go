package sql

import (
	"context"
	"strings"
	"testing"

	"github.com/atolldb/atoll/internal/query/catalog"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// TestPlanCache checks that plans are reused for the same normalized
// statement and parameter types, and not after a mapping or index change.
func TestPlanCache(t *testing.T) {
	cat := catalog.New()
	cache, err := plan.NewCache(100)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	p := NewPlanner(cat, cache)
	ddl, err := p.Plan(context.Background(), `CREATE MAPPING m (__key INT, v BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.PutMapping(ddl.Root.(*plan.CreateMapping).Mapping, false, false); err != nil {
		t.Fatal(err)
	}
	q := func(s string, types ...expr.Type) *plan.Physical {
		ph, err := p.Plan(context.Background(), s, types)
		if err != nil {
			t.Fatal(err)
		}
		cache.Wait()
		return ph
	}
	a := q("SELECT __key FROM m WHERE v = ?", expr.BigInt)
	if b := q("  SELECT __key\n FROM m   WHERE v = ? ;", expr.BigInt); a != b {
		t.Fatal("the same normalized statement was planned twice")
	}
	if c := q("SELECT __key FROM m WHERE v = ?", expr.Varchar); c == a {
		t.Fatal("other parameter types reused the plan")
	}
	if _, err := cat.AddIndex(plan.IndexInfo{Name: "m_v", Map: "m", Type: plan.IndexHash, Attribute: "v"}, false); err != nil {
		t.Fatal(err)
	}
	d := q("SELECT __key FROM m WHERE v = ?", expr.BigInt)
	if d == a || !strings.Contains(plan.ExplainText(d), "IndexScan") {
		t.Fatalf("a new index did not replace the plan:\n%s", plan.ExplainText(d))
	}
	if err := cat.DropMapping("m", false); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Plan(context.Background(), "SELECT __key FROM m WHERE v = ?", []expr.Type{expr.BigInt}); err == nil {
		t.Fatal("a dropped mapping still planned from the cache")
	}
	if hits, _ := cache.Stats(); hits == 0 {
		t.Fatal("no cache hit")
	}
}

func TestCatalogReplay(t *testing.T) {
	a, b := catalog.New(), catalog.New()
	var changes []catalog.Change
	a.OnChange(func(c catalog.Change) { changes = append(changes, c) })
	m := &plan.Mapping{Name: "x", MapName: "x"}
	if err := a.PutMapping(m, false, false); err != nil {
		t.Fatal(err)
	}
	if err := a.PutMapping(m, false, false); err == nil {
		t.Fatal("CREATE MAPPING of an existing name without OR REPLACE succeeded")
	}
	if _, err := a.AddIndex(plan.IndexInfo{Name: "i", Map: "x", Attribute: "f"}, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if err := b.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := b.Mapping("x"); !ok || len(b.Indexes("x")) != 1 || len(a.Snapshot()) != 2 {
		t.Fatal("replayed catalog differs")
	}
}
