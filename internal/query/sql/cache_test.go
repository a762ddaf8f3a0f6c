package sql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/catalog"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// TestPlanCache checks that plans are reused for the same normalized
// statement and parameter types, and not after a mapping or index change.
func TestPlanCache(t *testing.T) {
	p, cat, cache := mappedPlanner(t)
	q := func(s string, types ...expr.Type) *plan.Physical {
		ph, err := p.Plan(context.Background(), s, types)
		require.NoError(t, err)
		cache.Wait()
		return ph
	}
	a := q("SELECT __key FROM m WHERE v = ?", expr.BigInt)
	require.Same(t, a, q("  SELECT __key\n FROM m   WHERE v = ? ;", expr.BigInt), "the same normalized statement is planned once")
	require.NotSame(t, a, q("SELECT __key FROM m WHERE v = ?", expr.Varchar), "other parameter types get their own plan")
	_, err := cat.AddIndex(plan.IndexInfo{Name: "m_v", Map: "m", Type: plan.IndexHash, Attribute: "v"}, false)
	require.NoError(t, err)
	d := q("SELECT __key FROM m WHERE v = ?", expr.BigInt)
	require.NotSame(t, a, d, "a new index replaces the plan")
	require.Contains(t, plan.ExplainText(d), "IndexScan", "a new index replaces the plan")
	require.NoError(t, cat.DropMapping("m", false))
	_, err = p.Plan(context.Background(), "SELECT __key FROM m WHERE v = ?", []expr.Type{expr.BigInt})
	require.Error(t, err, "a dropped mapping does not plan from the cache")
	hits, _ := cache.Stats()
	require.Positive(t, hits, "cache hits")
}

func TestCatalogReplay(t *testing.T) {
	a, b := catalog.New(), catalog.New()
	var changes []catalog.Change
	a.OnChange(func(c catalog.Change) { changes = append(changes, c) })
	m := &plan.Mapping{Name: "x", MapName: "x"}
	require.NoError(t, a.PutMapping(m, false, false))
	require.Error(t, a.PutMapping(m, false, false), "CREATE MAPPING of an existing name without OR REPLACE")
	_, err := a.AddIndex(plan.IndexInfo{Name: "i", Map: "x", Attribute: "f"}, false)
	require.NoError(t, err)
	for _, c := range changes {
		require.NoError(t, b.Apply(c))
	}
	_, ok := b.Mapping("x")
	require.True(t, ok, "the replayed catalog has the mapping")
	require.Len(t, b.Indexes("x"), 1, "the replayed catalog's indexes")
	require.Len(t, a.Snapshot(), 2)
}

// TestCachedPlans: Cached returns a statement's plan only once Plan has
// cached it, without planning, and counts no miss; a new catalog version
// leaves nothing cached.
func TestCachedPlans(t *testing.T) {
	p, cat, cache := mappedPlanner(t)
	const stmt = "SELECT __key FROM m WHERE v = ?"
	types := []expr.Type{expr.BigInt}

	_, before := cache.Stats()
	_, ok := p.Cached(stmt, types)
	require.False(t, ok, "a statement never planned")
	_, after := cache.Stats()
	require.Equal(t, before, after, "Cached counts no miss")
	_, ok = p.Cached("  ", types)
	require.False(t, ok, "an empty statement")

	planned, err := p.Plan(context.Background(), stmt, types)
	require.NoError(t, err)
	cache.Wait()
	got, ok := p.Cached(" SELECT __key FROM m\n WHERE v = ? ;", types)
	require.True(t, ok, "the same statement, normalized")
	require.Same(t, planned, got)
	_, ok = p.Cached(stmt, []expr.Type{expr.Varchar})
	require.False(t, ok, "other parameter types")

	_, err = cat.AddIndex(plan.IndexInfo{Name: "m_v", Map: "m", Type: plan.IndexHash, Attribute: "v"}, false)
	require.NoError(t, err)
	_, ok = p.Cached(stmt, types)
	require.False(t, ok, "a plan of an older catalog")
}

// mappedPlanner returns a planner with a plan cache and a catalog that
// holds the mapping m (__key INT, v BIGINT).
func mappedPlanner(t *testing.T) (*Planner, *catalog.Local, *plan.Cache) {
	cat := catalog.New()
	cache, err := plan.NewCache(100)
	require.NoError(t, err)
	t.Cleanup(cache.Close)
	p := NewPlanner(cat, cache)
	ddl, err := p.Plan(context.Background(), `CREATE MAPPING m (__key INT, v BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`, nil)
	require.NoError(t, err)
	require.NoError(t, cat.PutMapping(ddl.Root.(*plan.CreateMapping).Mapping, false, false))
	return p, cat, cache
}
