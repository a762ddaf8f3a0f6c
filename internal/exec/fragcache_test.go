package exec

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestFragmentCaches sends one statement's fragment with different
// parameters: the coordinator marshals it once and the member decodes it
// once per catalog version, and every run gets its own parameters.
func TestFragmentCaches(t *testing.T) {
	f := &plan.Fragment{Map: "m", Cols: []plan.ScanCol{{Path: "this", Type: expr.BigInt}}, Limit: -1,
		Filter:  expr.NewCall(">", expr.Boolean, &expr.Col{Index: 0, T: expr.BigInt}, &expr.Param{Index: 0, T: expr.BigInt}),
		Project: []expr.Expr{&expr.Col{Index: 0, T: expr.BigInt}}, Out: []plan.Column{{Type: expr.BigInt}}}
	var wires wireCache
	var decoded decodedCache
	indexes := func(string, string) (plan.IndexInfo, bool) { return plan.IndexInfo{}, false }

	r1, err := wires.request(f, []expr.Value{expr.BigIntValue(1)})
	require.NoError(t, err)
	r2, err := wires.request(f, []expr.Value{expr.BigIntValue(2)})
	require.NoError(t, err)
	require.Equal(t, r1.Fragment, r2.Fragment, "one statement's fragment has the same bytes for every run")
	require.Len(t, r1.Params, 1)

	d1, err := decoded.fragment(r1, 7, indexes)
	require.NoError(t, err)
	d2, err := decoded.fragment(r2, 7, indexes)
	require.NoError(t, err)
	require.Equal(t, []expr.Value{expr.BigIntValue(1)}, d1.Params)
	require.Equal(t, []expr.Value{expr.BigIntValue(2)}, d2.Params)
	require.Same(t, d1.Filter, d2.Filter, "the second run reuses the decoded fragment")

	d3, err := decoded.fragment(r2, 8, indexes)
	require.NoError(t, err)
	require.NotSame(t, d1.Filter, d3.Filter, "a new catalog version decodes the fragment again")
	require.Equal(t, []expr.Value{expr.BigIntValue(2)}, d3.Params)

	// A fragment whose parameter is beyond those sent is refused.
	r1.Params = nil
	_, err = decoded.fragment(r1, 8, indexes)
	require.ErrorIs(t, err, plan.ErrBadFragment)
}

// TestJoinFragmentsAreNotCached: the inputs of a join read the top
// fragment's parameters, so a join fragment travels with them and is
// decoded per run.
func TestJoinFragmentsAreNotCached(t *testing.T) {
	scan := func(m string) *plan.Fragment {
		return &plan.Fragment{Map: m, Cols: []plan.ScanCol{{Path: "__key", Type: expr.BigInt}}, Limit: -1,
			Project: []expr.Expr{&expr.Col{Index: 0, T: expr.BigInt}}, Out: []plan.Column{{Type: expr.BigInt}}}
	}
	key := func() []expr.Expr { return []expr.Expr{&expr.Col{Index: 0, T: expr.BigInt}} }
	jf := &plan.Fragment{Limit: -1, Join: &plan.FragmentJoin{Kind: plan.JoinInner, Left: scan("a"), Right: scan("b"), LeftKeys: key(), RightKeys: key(),
		Residual: expr.NewCall(">", expr.Boolean, &expr.Col{Index: 0, T: expr.BigInt}, &expr.Param{Index: 0, T: expr.BigInt}),
		Strategy: plan.Repartition, RightMove: &plan.Exchange{ID: 1, Keys: key(), HashType: expr.BigInt}},
		GroupBy: key(), Aggs: []plan.AggCall{{Func: "count", Arg: &expr.Col{Index: 1, T: expr.BigInt}, T: expr.BigInt}},
		Out: []plan.Column{{Type: expr.BigInt}, {Type: expr.BigInt}}}
	var wires wireCache
	var decoded decodedCache
	r, err := wires.request(jf, []expr.Value{expr.BigIntValue(5)})
	require.NoError(t, err)
	require.Empty(t, r.Params, "a join fragment carries its parameters")
	d1, err := decoded.fragment(r, 1, nil)
	require.NoError(t, err)
	d2, err := decoded.fragment(r, 1, nil)
	require.NoError(t, err)
	require.NotSame(t, d1, d2)
	require.Equal(t, []expr.Value{expr.BigIntValue(5)}, d2.Params)
	require.Empty(t, decoded.m)
}

// TestFragmentShapes runs one fragment, as a cached plan's runs do (a
// copy with its parameters bound), with different parameters: the runs
// share the fragment's shape, and each converts its own parameter for
// the attribute it compares (the compiled filter is the worker's own).
// A fragment of another shape gets its own.
func TestFragmentShapes(t *testing.T) {
	ser, err := serialization.NewService(serialization.Config{})
	require.NoError(t, err)
	e, maps := testEngine(t, ser, nil)
	st, _ := maps.Get("m")
	for k := int32(0); k < 20; k++ {
		put(t, ser, st, k, int64(k))
	}
	f := &plan.Fragment{Map: "m", Cols: []plan.ScanCol{{Path: "__key", Type: expr.Integer}, {Path: "this", Type: expr.Unknown}}, Limit: -1,
		Filter:  expr.NewCall("=", expr.Boolean, &expr.Col{Index: 1, Name: "this", T: expr.Unknown}, &expr.Param{Index: 0, T: expr.Varchar}),
		Project: []expr.Expr{&expr.Col{Index: 0, T: expr.Integer}}, Out: []plan.Column{{Type: expr.Integer}}}
	run := func(f *plan.Fragment, param string) []int64 {
		t.Helper()
		bound := *f
		bound.Params = []expr.Value{expr.StringValue(param)}
		var keys []int64
		err := e.runFragment(context.Background(), &bound, allParts(271), nil, NewMemoryAccount(0), func(b *Batch) error {
			rows, err := DecodeRows(b.Rows, b.Count, 1)
			for _, r := range rows {
				keys = append(keys, r[0].I)
			}
			return err
		})
		require.NoError(t, err)
		return keys
	}
	require.Equal(t, []int64{5}, run(f, "5"))
	require.Equal(t, []int64{7}, run(f, "7"), "the second run converts its own parameter")
	require.Len(t, e.shapes.m, 1, "the runs share one shape")
	sh, err := e.shapeOf(f)
	require.NoError(t, err)

	other := *f
	other.Project = []expr.Expr{&expr.Col{Index: 1, T: expr.Unknown}}
	osh, err := e.shapeOf(&other)
	require.NoError(t, err)
	require.NotSame(t, sh, osh, "another projection is another shape")
	require.Equal(t, []int{1}, osh.projCol)
	require.Equal(t, []int{0}, sh.projCol)
}
