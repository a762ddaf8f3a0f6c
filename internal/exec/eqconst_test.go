package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestEqualityFilterMatchesGeneralPath runs "column = constant" filters,
// which the scan checks on the field as read (eqConst), over values of
// every kind a field can hold, and compares each outcome (the keys, or
// that the query failed) with the general path: the column read and
// converted by its accessor, then the compiled filter.
func TestEqualityFilterMatchesGeneralPath(t *testing.T) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	e, maps := testEngine(t, ser, nil)
	docs := []string{`{"f":"a"}`, `{"f":"b"}`, `{"f":"5"}`, `{"f":5}`, `{"f":-5}`, `{"f":300}`, `{"f":3000000000}`,
		`{"f":null}`, `{"g":1}`, `{"f":true}`, `{"f":1.5}`, `{"f":[1]}`, `{"f":{"h":1}}`, `{"f":"a\u0062"}`, `{"f":""}`}
	// Each filter variant runs over the documents without the ones its
	// general path fails on (kept in one map, one failure hides the rest),
	// then over all of them.
	jsonMap := func(name string, skip func(string) bool) {
		st, _ := maps.Get(name)
		for k, d := range docs {
			if !skip(d) {
				put(t, ser, st, int32(k), serialization.JSON(d))
			}
		}
	}
	jsonMap("all", func(string) bool { return false })
	jsonMap("scalars", func(d string) bool { return d == `{"f":[1]}` || d == `{"f":{"h":1}}` })
	jsonMap("strings", func(d string) bool { return !strings.HasPrefix(d, `{"f":"`) })
	for _, format := range []string{"compact", "portable", "identified"} {
		st, _ := maps.Get(format)
		for k := int32(0); k < 2000; k++ { // keys 0 and 1000 hold "metin"
			put(t, ser, st, k, workloadBValue(format, "SMALL", k))
		}
	}
	key3 := benchmodel.SmallForKey(3)

	lit := func(v expr.Value) expr.Expr { return &expr.Lit{V: v} }
	consts := []struct {
		name   string
		k      expr.Expr
		params []expr.Value
	}{
		{"'a'", lit(expr.StringValue("a")), nil},
		{"'ab'", lit(expr.StringValue("ab")), nil},
		{"'5'", lit(expr.StringValue("5")), nil},
		{"''", lit(expr.StringValue("")), nil},
		{"'metin'", lit(expr.StringValue("metin")), nil},
		{"5", lit(expr.BigIntValue(5)), nil},
		{"-5 INT", lit(expr.IntValue(expr.Integer, -5)), nil},
		{"300", lit(expr.BigIntValue(300)), nil},
		{"intField of key 3", lit(expr.BigIntValue(int64(key3.IntField))), nil},
		{"longField of key 3", lit(expr.BigIntValue(key3.LongField)), nil},
		{"3000000000", lit(expr.BigIntValue(3000000000)), nil},
		{"1.5", lit(expr.DoubleValue(1.5)), nil},
		{"TRUE", lit(expr.BoolValue(true)), nil},
		{"NULL", lit(expr.NullValue), nil},
		{"?=5", &expr.Param{Index: 0}, []expr.Value{expr.BigIntValue(5)}},
		{"?='a'", &expr.Param{Index: 0, T: expr.Varchar}, []expr.Value{expr.StringValue("a")}},
		{"?BIGINT='5'", &expr.Param{Index: 0, T: expr.BigInt}, []expr.Value{expr.StringValue("5")}},
		{"?BIGINT='x'", &expr.Param{Index: 0, T: expr.BigInt}, []expr.Value{expr.StringValue("x")}},
		{"?INT=300", &expr.Param{Index: 0, T: expr.Integer}, []expr.Value{expr.BigIntValue(300)}},
	}
	smallFields := []string{"stringField", "intField", "longField", "doubleField"}
	fieldOf := map[string][]string{"all": {"f"}, "scalars": {"f"}, "strings": {"f"}, "compact": smallFields, "portable": smallFields, "identified": smallFields}
	settled := 0
	for _, m := range []string{"all", "scalars", "strings", "compact", "portable", "identified"} {
		for _, field := range fieldOf[m] {
			for _, typ := range []expr.Type{expr.Unknown, expr.Varchar, expr.TinyInt, expr.SmallInt, expr.Integer, expr.BigInt, expr.Double} {
				for _, c := range consts {
					cols := []plan.ScanCol{{Path: "__key", Type: expr.Integer}, {Path: field, Type: typ}}
					col := &expr.Col{Index: 1, Name: field, T: typ}
					for _, shape := range []string{"f = k", "k = f", "f = k AND f IS NOT NULL", "f = k AND __key >= 0"} {
						var filter expr.Expr
						switch shape {
						case "f = k":
							filter = expr.NewCall("=", expr.Boolean, col, c.k)
						case "k = f":
							filter = expr.NewCall("=", expr.Boolean, c.k, col)
						case "f = k AND f IS NOT NULL":
							filter = expr.NewCall("and", expr.Boolean, expr.NewCall("=", expr.Boolean, col, c.k), expr.NewCall("is_not_null", expr.Boolean, col))
						default:
							filter = expr.NewCall("and", expr.Boolean, expr.NewCall("=", expr.Boolean, col, c.k),
								expr.NewCall(">=", expr.Boolean, &expr.Col{Index: 0, Name: "__key", T: expr.Integer}, lit(expr.IntValue(expr.Integer, 0))))
						}
						name := fmt.Sprintf("%s/%s %v/%s/%s", m, field, typ, c.name, shape)
						f := &plan.Fragment{Map: m, Cols: cols, Limit: -1, Filter: filter, Params: c.params,
							Project: []expr.Expr{&expr.Col{Index: 0, T: expr.Integer}}, Out: []plan.Column{{Type: expr.Integer}}}
						want, wantErr := generalPath(t, e, ser, f)
						var got []int64
						err := e.runFragment(context.Background(), f, allParts(271), nil, NewMemoryAccount(0), func(bt *Batch) error {
							rows, err := DecodeRows(bt.Rows, bt.Count, 1)
							for _, r := range rows {
								got = append(got, r[0].I)
							}
							return err
						})
						slices.Sort(got)
						if (err != nil) != (wantErr != nil) || (err == nil && !slices.Equal(got, want)) {
							t.Errorf("%s: got %v, %v; the general path gives %v, %v", name, got, err, want, wantErr)
						}
						accs := make([]*accessor, len(cols))
						for i, sc := range cols {
							if accs[i], err = newAccessor(sc, ser); err != nil {
								t.Fatal(err)
							}
						}
						if eqConstOf(filter, expr.Columns(filter), c.params, accs) != nil {
							settled++
						}
					}
				}
			}
		}
	}
	if settled < 100 {
		t.Fatalf("only %d filters are checked on the field; the test no longer covers that path", settled)
	}
}

// generalPath evaluates a fragment's filter the way a scan does without
// eqConst: every column the filter reads through its accessor, then the
// compiled filter. It returns the keys that pass, in order, or the first
// error.
func generalPath(t *testing.T, e *Engine, ser *serialization.Service, f *plan.Fragment) ([]int64, error) {
	t.Helper()
	st, _ := e.cfg.Maps.Lookup(f.Map)
	cond, err := expr.CompileCond(f.Filter)
	if err != nil {
		t.Fatal(err)
	}
	var accs []*accessor
	for _, c := range f.Cols {
		a, err := newAccessor(c, ser)
		if err != nil {
			t.Fatal(err)
		}
		accs = append(accs, a)
	}
	env := expr.Env{Params: f.Params, Ctx: context.Background()}
	row := expr.Row{Cols: make([]expr.Value, len(f.Cols)), Env: &env}
	filterCols := expr.Columns(f.Filter)
	var keys []int64
	var first error
	for pid := int32(0); pid < 271 && first == nil; pid++ {
		_ = st.ScanKV(pid, func(k, v []byte) bool {
			for _, c := range filterCols {
				if err := accs[c].readInto(k, v, nil, &row.Cols[c]); err != nil {
					first = err
					return false
				}
			}
			if cond(&row) {
				if err := accs[0].readInto(k, v, nil, &row.Cols[0]); err != nil {
					first = err
					return false
				}
				keys = append(keys, row.Cols[0].I)
			}
			if env.Err != nil {
				first = env.Err
				return false
			}
			return true
		})
	}
	slices.Sort(keys)
	return keys, first
}

// TestEqualityFilterLearnsField checks what a string equality tells the
// scan's hint (store.ReadHint): the offset of the field's bytes in the
// value for Compact and Portable values, which find the field through an
// offset table, and nothing for IDS and JSON values, which are read from
// their start (nor for the values after those in one scan), nor for a
// column of the key.
func TestEqualityFilterLearnsField(t *testing.T) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	value := func(v any) []byte { return toData(t, ser, v) }
	key := value(benchmodel.NewPortableLarge(benchmodel.LargeForKey(1000)))
	for _, c := range []struct {
		name   string
		path   string
		value  []byte
		learns bool
	}{
		{"compact", "stringField", value(workloadBValue("compact", "LARGE", 1000)), true},
		{"portable", "stringField", value(workloadBValue("portable", "LARGE", 1000)), true},
		{"identified", "stringField", value(workloadBValue("identified", "LARGE", 1000)), false},
		{"json", "stringField", value(serialization.JSON(`{"stringField":"metin"}`)), false},
		{"key", "__key.stringField", value(workloadBValue("compact", "LARGE", 1000)), false},
	} {
		acc, err := newAccessor(plan.ScanCol{Path: c.path, Type: expr.Varchar}, ser)
		if err != nil {
			t.Fatal(err)
		}
		q := &eqConst{acc: acc, want: expr.StringValue("metin")}
		var hint store.ReadHint
		var dst expr.Value
		settled, equal := q.readInto(key, c.value, nil, &dst, &hint)
		if !settled || !equal {
			t.Fatalf("%s: settled %v, equal %v", c.name, settled, equal)
		}
		switch {
		case !c.learns && hint.Field > 0:
			t.Fatalf("%s: hint %d, want none", c.name, hint.Field)
		case c.learns && string(c.value[hint.Field:hint.Field+len("metin")]) != "metin":
			t.Fatalf("%s: hint %d does not point at the field's bytes", c.name, hint.Field)
		}
	}
	// A scan that met a value read from its start keeps the full prefetch
	// for the values after it.
	acc, err := newAccessor(plan.ScanCol{Path: "stringField", Type: expr.Varchar}, ser)
	if err != nil {
		t.Fatal(err)
	}
	q := &eqConst{acc: acc, want: expr.StringValue("metin")}
	var hint store.ReadHint
	var dst expr.Value
	for _, format := range []string{"identified", "portable", "compact"} {
		q.readInto(key, value(workloadBValue(format, "LARGE", 1000)), nil, &dst, &hint)
	}
	if hint.Field > 0 {
		t.Fatalf("hint %d after an IDS value, want none", hint.Field)
	}
}
