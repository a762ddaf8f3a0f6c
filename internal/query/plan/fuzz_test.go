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
	idx := func(m, n string) (IndexInfo, bool) { return IndexInfo{Name: n, Map: m, Attribute: "value"}, n != "" }
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := UnmarshalFragment(b, idx); err != nil {
			return
		}
	})
}
