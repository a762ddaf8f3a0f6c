package predicate

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/plan"
	pp "github.com/atolldb/atoll/pkg/predicate"
)

// FuzzPredicateQuery feeds arbitrary predicate queries to the planner: a
// plan or an error, never a panic.
func FuzzPredicateQuery(f *testing.F) {
	add := func(q *pb.PredicateQuery) {
		b, _ := proto.Marshal(q)
		f.Add(b)
	}
	p1, _ := pp.ToProto(pp.And(pp.Equal("value", int64(3)), pp.Like("s", "a%")), nil)
	p2, _ := pp.ToProto(pp.Paging(pp.GreaterThan("x", 1), 5), nil)
	p3, _ := pp.ToProto(pp.SQL("a > 1 OR NOT b IN (1,2)"), nil)
	add(&pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_ENTRIES, Predicate: p1})
	add(&pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_KEYS, Predicate: p2})
	add(&pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_AGGREGATE, Predicate: p3,
		Aggregator: &pb.Aggregator{Kind: pb.AggregatorKind_AGGREGATOR_KIND_MAX_BY, Attribute: "v"}})
	add(&pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_PROJECT, Projection: []string{"a", "b.c"}})
	pl := &Planner{Catalog: &plan.MemCatalog{}}
	f.Fuzz(func(t *testing.T, b []byte) {
		var q pb.PredicateQuery
		if proto.Unmarshal(b, &q) != nil {
			return
		}
		ph, _, err := pl.Plan(context.Background(), &q)
		if err != nil {
			return
		}
		_ = plan.ExplainText(ph)
	})
}
