package exec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
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
