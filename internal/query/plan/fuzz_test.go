package plan

import (
	"testing"

	"github.com/atolldb/atoll/internal/query/expr"
)

// FuzzUnmarshalFragment feeds arbitrary bytes to the fragment decoder that
// members run for each other: a fragment or an error, never a panic.
func FuzzUnmarshalFragment(f *testing.F) {
	fr := &Fragment{Map: "m", Cols: []ScanCol{{Path: "value", Type: expr.BigInt}}, Limit: -1,
		Filter: expr.NewCall(">", expr.Boolean, &expr.Col{Index: 0, T: expr.BigInt}, &expr.Param{Index: 0, T: expr.BigInt}),
		Aggs:   []AggCall{{Func: "sum", Arg: &expr.Col{Index: 0, T: expr.BigInt}, T: expr.BigInt}},
		Params: []expr.Value{expr.BigIntValue(3)}, Out: []Column{{Type: expr.BigInt}, {Type: expr.BigInt}}}
	b, err := MarshalFragment(fr)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	scan := func(m string) *Fragment {
		return &Fragment{Map: m, Cols: []ScanCol{{Path: "__key", Type: expr.BigInt}}, Limit: -1,
			Project: []expr.Expr{&expr.Col{Index: 0, T: expr.BigInt}}, Out: []Column{{Type: expr.BigInt}}}
	}
	key := func() []expr.Expr { return []expr.Expr{&expr.Col{Index: 0, T: expr.BigInt}} }
	jf := &Fragment{Limit: -1, Join: &FragmentJoin{Kind: JoinLeft, Left: scan("a"), Right: scan("b"), LeftKeys: key(), RightKeys: key(),
		Residual: expr.NewCall("<", expr.Boolean, &expr.Col{Index: 0, T: expr.BigInt}, &expr.Col{Index: 1, T: expr.BigInt}),
		Strategy: Repartition, RightMove: &Exchange{ID: 1, Keys: key(), HashType: expr.BigInt}},
		GroupBy: key(), Aggs: []AggCall{{Func: "count", Arg: &expr.Col{Index: 1, T: expr.BigInt}, T: expr.BigInt}},
		Out: []Column{{Type: expr.BigInt}, {Type: expr.BigInt}}}
	if b, err = MarshalFragment(jf); err != nil {
		f.Fatal(err)
	}
	if _, err := UnmarshalFragment(b, nil, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	idx := func(m, n string) (IndexInfo, bool) { return IndexInfo{Name: n, Map: m, Attribute: "value"}, n != "" }
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := UnmarshalFragment(b, nil, idx); err != nil {
			return
		}
	})
}
