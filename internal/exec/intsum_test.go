package exec

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestIntegerSumMatchesGeneralPath runs SUM and AVG of one column, whose
// integers the scan adds as read (worker.intSum), over sequences of JSON
// values of every kind, and compares the partial result (or the failure)
// with the general path: each value read and converted by the column's
// accessor, then added. Each sequence is stored in one partition, so
// that both add in the same order and overflow at the same entry.
func TestIntegerSumMatchesGeneralPath(t *testing.T) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	e, maps := testEngine(t, ser, nil)
	sequences := [][]string{
		{`{"f":1}`, `{"f":-7}`, `{"f":0}`, `{"f":300}`},
		{`{"f":4611686018427387904}`, `{"f":4611686018427387904}`, `{"f":-5}`},
		{`{"f":-4611686018427387904}`, `{"f":-4611686018427387904}`, `{"f":-4611686018427387904}`},
		{`{"f":3000000000}`, `{"f":2}`},
		{`{"f":1}`, `{"f":1.5}`, `{"f":2}`},
		{`{"f":2}`, `{"f":null}`, `{"g":1}`, `{"f":3}`},
		{`{"f":"5"}`, `{"f":1}`},
		{`{"f":true}`, `{"f":1}`},
		{`{"f":[1,2]}`},
		{`{"f":{"h":1}}`},
		{`{"f":-128}`, `{"f":127}`, `{"f":128}`},
		{`{"g":1}`},
	}
	// What SUM(f) of a BIGINT column gives, beside the comparison: nil
	// for an overflow, which fails the query.
	sumBigInt := map[int][]expr.Value{
		0: {expr.BigIntValue(294), expr.BigIntValue(4)},
		1: nil, 2: nil,
		3: {expr.BigIntValue(3000000002), expr.BigIntValue(2)},
		4: {expr.BigIntValue(4), expr.BigIntValue(3)}, // 1.5 read as a BIGINT column
		5: {expr.BigIntValue(5), expr.BigIntValue(2)},
	}
	hash0, err := ser.ToData(int32(0))
	if err != nil {
		t.Fatal(err)
	}
	target := serialization.Data(hash0).PartitionID(271)
	engaged := 0
	for n, docs := range sequences {
		name := fmt.Sprintf("seq%d", n)
		st, _ := maps.Get(name)
		for k, stored := int32(0), 0; stored < len(docs); k++ {
			kd, err := ser.ToData(k)
			if err != nil {
				t.Fatal(err)
			}
			if serialization.Data(kd).PartitionID(271) == target {
				put(t, ser, st, k, serialization.JSON(docs[stored]))
				stored++
			}
		}
		for _, typ := range []expr.Type{expr.Unknown, expr.TinyInt, expr.Integer, expr.BigInt, expr.Double} {
			for _, fn := range []string{"sum", "avg"} {
				res := expr.BigInt
				if fn == "avg" || typ == expr.Double {
					res = expr.Double
				}
				f := &plan.Fragment{Map: name, Cols: []plan.ScanCol{{Path: "f", Type: typ}}, Limit: -1,
					Aggs: []plan.AggCall{{Func: fn, Arg: &expr.Col{Index: 0, T: typ}, T: res}},
					Out:  []plan.Column{{Type: res}, {Type: expr.BigInt}}}
				merged := newAggState(f.Aggs[0]) // the workers' partials
				err := e.runFragment(context.Background(), f, allParts(271), nil, NewMemoryAccount(0), func(bt *Batch) error {
					rows, err := DecodeRows(bt.Rows, bt.Count, 2)
					for _, r := range rows {
						merged.merge(r)
					}
					return err
				})
				got := merged.partial(nil)
				want, wantErr := generalSum(t, ser, st, target, f)
				label := fmt.Sprintf("%v %s(%v)", docs, fn, typ)
				if expect, ok := sumBigInt[n]; ok && fn == "sum" && typ == expr.BigInt && ((expect == nil) != (err != nil) || (err == nil && !reflect.DeepEqual(got, expect))) {
					t.Errorf("%s: got %v, %v; want %v", label, got, err, expect)
				}
				switch {
				case (err != nil) != (wantErr != nil):
					t.Errorf("%s: error %v, the general path's %v", label, err, wantErr)
				case err == nil && !reflect.DeepEqual(got, want):
					t.Errorf("%s: got %v, the general path gives %v", label, got, want)
				}
				w, err := e.newWorker(context.Background(), f, st, nil, NewMemoryAccount(0))
				if err != nil {
					t.Fatal(err)
				}
				if w.intSum != nil {
					engaged++
				}
			}
		}
	}
	if engaged < len(sequences)*8 {
		t.Fatalf("integers are added as read in %d runs; the test no longer covers that path", engaged)
	}
}

// generalSum adds a partition's values the way a scan does without
// intSum: the column read through its accessor, then added.
func generalSum(t *testing.T, ser *serialization.Service, st interface {
	ScanKV(int32, func(k, v []byte) bool) error
}, pid int32, f *plan.Fragment) ([]expr.Value, error) {
	t.Helper()
	a, err := newAccessor(f.Cols[0], ser)
	if err != nil {
		t.Fatal(err)
	}
	s := newAggState(f.Aggs[0])
	var first error
	_ = st.ScanKV(pid, func(k, v []byte) bool {
		var x expr.Value
		if first = a.readInto(k, v, nil, &x); first != nil {
			return false
		}
		if s.add(&x, nil); s.failed != nil {
			first = s.failed
			return false
		}
		return true
	})
	return s.partial(nil), first
}
