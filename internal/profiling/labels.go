// Package profiling holds Atoll's profiling hooks: the pprof labels that
// map operations and queries run under, the admin HTTP endpoints that
// serve profiles (CPU, heap, allocs, goroutine, mutex, block, a
// wall-clock profile and the execution trace), and the client side of
// `atoll profile`: fetching a profile, keeping the samples of one label,
// diffing two profiles (all with google/pprof's profile package) and
// rendering a self-contained SVG flame graph.
package profiling

import (
	"context"
	"runtime/pprof"
)

// Label keys. Map operations carry LabelMap and LabelOp; queries carry
// LabelQueryID, LabelKind and LabelMap. `atoll profile --label KEY=VALUE`
// filters on them.
const (
	LabelMap     = "map"
	LabelOp      = "op"
	LabelQueryID = "query_id"
	LabelKind    = "kind"
)

// OpLabels returns a context that carries the labels of operation op on
// map mapName, for pprof.SetGoroutineLabels. Building it allocates, so
// callers build it once per map and operation and keep it; switching a
// goroutine to it and back is then two pointer stores:
//
//	pprof.SetGoroutineLabels(labels)
//	defer pprof.SetGoroutineLabels(ctx)
func OpLabels(mapName, op string) context.Context {
	return pprof.WithLabels(context.Background(), pprof.Labels(LabelMap, mapName, LabelOp, op))
}

// Query identifies a query execution for profiles.
type Query struct {
	ID   string // unique per execution
	Kind string // "sql" or "predicate"
	Map  string // the map it reads first
}

// RunQuery runs fn under the labels of q: every CPU sample taken while fn
// (or a goroutine it starts) runs carries them, so that a profile can be
// cut to one query, one kind or one map.
func RunQuery(ctx context.Context, q Query, fn func(context.Context)) {
	pprof.Do(ctx, pprof.Labels(LabelQueryID, q.ID, LabelKind, q.Kind, LabelMap, q.Map), fn)
}
