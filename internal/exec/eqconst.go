package exec

import (
	"bytes"
	"unsafe"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// eqConst is a filter "column = constant" on one plain field, with a
// string or integer constant (want: VARCHAR or an integer type), checked
// on the field as the reader returns it: the scan reads the column once
// and skips an entry whose field differs without running the compiled
// filter. Values the check does not settle (null, another kind, an
// integer outside the column's type, a read error) leave the entry to the
// general path, which converts and reports as it always does.
type eqConst struct {
	col  int
	acc  *accessor
	want expr.Value
}

// readInto reads the column into dst when the field is a value the check
// settles, and reports whether it did and whether the value equals the
// constant. It tells the scan's hint where a string field lies.
func (q *eqConst) readInto(key, value []byte, m *entryMemo, dst *expr.Value, hint *store.ReadHint) (settled, equal bool) {
	var v serialization.FieldValue
	var err error
	if m != nil {
		err = m.readTo(q.acc, q.acc.data(key, value), &v)
	} else {
		err = q.acc.field(key, value, &v)
	}
	if err != nil {
		return false, false
	}
	if q.want.T == expr.Varchar {
		if v.Kind != serialization.ValueString {
			return false, false
		}
		learnField(hint, value, v.B)
		setScalar(dst, expr.Varchar, v.I, v.B)
		return true, bytes.Equal(v.B, q.want.B)
	}
	i, t, ok := q.acc.intOf(&v)
	if !ok {
		return false, false
	}
	setScalar(dst, t, i, nil)
	return true, i == q.want.I
}

// learnField records in hint where field, the bytes read from value,
// lie in it (bytes of the key lie before the value, and are not taken),
// when value is of a format that reads its fields through an
// offset table (Compact, Portable): the scan then prefetches only the
// lines such a reader loads. Formats read from their start (IDS, JSON)
// load every line up to the field and keep the scan's full prefetch.
//
// It runs for every entry the check reads, so it returns early when the
// field lies where the hint already says, and a scan whose values are of
// another format stops asking at the first.
func learnField(hint *store.ReadHint, value, field []byte) {
	if len(field) == 0 || hint.Field < 0 {
		return
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(field))) - uintptr(unsafe.Pointer(unsafe.SliceData(value)))
	if d >= uintptr(len(value)) || int(d) == hint.Field {
		return
	}
	switch serialization.Data(value).Type() {
	case serialization.TypeCompact, serialization.TypeCompactWithSchema, serialization.TypePortable:
		hint.Field = int(d)
	default:
		hint.Field = -1
	}
}

// eqConstOf returns the filter's eqConst, or nil when the filter is not
// one. The filter may be such a comparison or a conjunction with one,
// provided filterCols, the columns it reads, are that one column (a
// conjunct skipped on another column would hide that column's read
// errors).
func eqConstOf(filter expr.Expr, filterCols []int, params []expr.Value, accs []*accessor) *eqConst {
	if len(filterCols) != 1 {
		return nil
	}
	return findEqConst(filter, params, accs)
}

func findEqConst(filter expr.Expr, params []expr.Value, accs []*accessor) *eqConst {
	c, ok := filter.(*expr.Call)
	if !ok {
		return nil
	}
	switch c.Op {
	case "and":
		for _, a := range c.Args {
			if q := findEqConst(a, params, accs); q != nil {
				return q
			}
		}
	case "=":
		if len(c.Args) != 2 {
			return nil
		}
		if q := eqConstCol(c.Args[0], c.Args[1], params, accs); q != nil {
			return q
		}
		return eqConstCol(c.Args[1], c.Args[0], params, accs)
	}
	return nil
}

// eqConstCol is the eqConst of column = constant, or nil.
func eqConstCol(left, right expr.Expr, params []expr.Value, accs []*accessor) *eqConst {
	col, ok := left.(*expr.Col)
	if !ok || col.Index >= len(accs) {
		return nil
	}
	a := accs[col.Index]
	t := a.col.Type
	if a.whole || a.object || a.rd.Multi() || (t != expr.Unknown && t != expr.Varchar && !t.IsInteger()) {
		return nil
	}
	var k expr.Value
	switch r := right.(type) {
	case *expr.Lit:
		k = r.V
	case *expr.Param:
		if r.Index >= len(params) {
			return nil
		}
		k = params[r.Index]
		if r.T != expr.Unknown && k.T != r.T && !k.IsNull() {
			var err error
			if k, err = expr.Cast(k, r.T); err != nil {
				return nil
			}
		}
	default:
		return nil
	}
	switch {
	case k.T == expr.Varchar && (t == expr.Unknown || t == expr.Varchar):
	case k.T.IsInteger() && (t == expr.Unknown || t.IsInteger()):
	default:
		return nil
	}
	return &eqConst{col: col.Index, acc: a, want: k}
}
