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
	"strconv"
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

// QueryLabels returns ctx with the labels of a query execution: its id
// (unique per member) and kind ("sql" or "predicate"). The engine keeps
// them for the query's goroutines on this member and sends the kind with
// the fragments it starts on others, so that a profile can be cut to one
// query or one kind; fragments add the label map.
func QueryLabels(ctx context.Context, id uint64, kind string) context.Context {
	return pprof.WithLabels(ctx, pprof.Labels(LabelQueryID, strconv.FormatUint(id, 10), LabelKind, kind))
}
