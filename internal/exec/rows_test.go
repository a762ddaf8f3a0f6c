package exec

import (
	"math"
	"reflect"
	"testing"

	"github.com/atolldb/atoll/internal/query/expr"
)

// TestRowsRoundTrip: every kind of value decodes to what was encoded, the
// integers (read on their own path) at the edges of their varints too.
func TestRowsRoundTrip(t *testing.T) {
	row := []expr.Value{expr.NullValue, expr.BoolValue(true), expr.BoolValue(false), expr.DoubleValue(-1.5),
		{T: expr.Real, F: 2.25}, expr.StringValue("Customer#000000001"), {T: expr.JSON, B: []byte(`{"a":1}`)},
		expr.ObjectValue([]byte{1, 2, 3}), {T: expr.Date, I: 19000}, {T: expr.TimestampTZ, I: -5}}
	for _, i := range []int64{0, 1, -1, 63, -64, 64, -65, 150000, -150000, 1 << 35, math.MaxInt64, math.MinInt64} {
		row = append(row, expr.BigIntValue(i))
	}
	row = append(row, expr.Value{T: expr.TinyInt, I: -128}, expr.Value{T: expr.SmallInt, I: 32767}, expr.Value{T: expr.Integer, I: math.MinInt32})
	b := EncodeRow(EncodeRow(nil, row), row)
	rows, err := DecodeRows(b, 2, len(row))
	if err != nil {
		t.Fatal(err)
	}
	for r := range rows {
		for c, want := range row {
			got := rows[r][c]
			if want.IsNull() {
				if !got.IsNull() {
					t.Errorf("row %d column %d: %v, want NULL", r, c, got)
				}
				continue
			}
			if want.T == expr.Object || want.T == expr.Varchar || want.T == expr.JSON {
				want.B = want.B[:len(want.B):len(want.B)]
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("row %d column %d: %#v, want %#v", r, c, got, want)
			}
		}
	}
	// A value decoded over another keeps nothing of it.
	v := expr.Value{T: expr.Varchar, B: []byte("old"), F: 3}
	if _, err := decodeInto(EncodeRow(nil, []expr.Value{expr.BigIntValue(7)}), &v); err != nil || !reflect.DeepEqual(v, expr.BigIntValue(7)) {
		t.Fatalf("decoded over a string: %#v, %v", v, err)
	}
	// A truncated integer is corrupt.
	if _, err := DecodeRows(EncodeRow(nil, []expr.Value{expr.BigIntValue(150000)})[:3], 1, 1); err == nil {
		t.Fatal("a truncated integer decoded")
	}
}
