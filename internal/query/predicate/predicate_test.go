package predicate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	pp "github.com/atolldb/atoll/pkg/predicate"
)

// TestCachedPlans: Cached returns a query's plan, with the parameter
// values of the query asked about, only once Plan has cached it; it plans
// nothing and counts no miss.
func TestCachedPlans(t *testing.T) {
	cache, err := plan.NewCache(100)
	require.NoError(t, err)
	defer cache.Close()
	p := &Planner{Catalog: &plan.MemCatalog{}, Cache: cache}
	query := func(v int64) *pb.PredicateQuery {
		pr, err := pp.ToProto(pp.Equal("value", v), nil)
		require.NoError(t, err)
		return &pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_ENTRIES, Predicate: pr}
	}

	_, before := cache.Stats()
	_, _, ok := p.Cached(query(1))
	require.False(t, ok, "a query never planned")
	_, after := cache.Stats()
	require.Equal(t, before, after, "Cached counts no miss")
	_, _, ok = p.Cached(&pb.PredicateQuery{})
	require.False(t, ok, "a query that names no map")

	planned, _, err := p.Plan(context.Background(), query(1))
	require.NoError(t, err)
	cache.Wait()
	got, params, ok := p.Cached(query(2))
	require.True(t, ok, "the same query with another constant")
	require.Same(t, planned, got)
	require.Equal(t, []expr.Value{expr.BigIntValue(2)}, params, "the values of the query asked about")
	_, _, ok = p.Cached(&pb.PredicateQuery{Map: "other", Result: pb.PredicateResult_PREDICATE_RESULT_ENTRIES, Predicate: query(1).Predicate})
	require.False(t, ok, "another map")
}
