package exec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// accessor reads one scan column from an entry's key or value: it picks
// the Data the column reads (the key for __key paths) and hands it to the
// serialization layer's compiled FieldReader, which reads the field in
// place, then turns the FieldValue it returns into the column's value.
// The engine decodes no format itself.
//
// Readers are shared (the Service caches them per path, with their plans
// per schema, class and layout), so an accessor is cheap to make and safe
// for concurrent use.
type accessor struct {
	col    plan.ScanCol
	key    bool // the column reads the entry's key
	whole  bool // the whole key or value
	object bool // the whole key or value as an OBJECT: its Data, unread
	rd     *serialization.FieldReader
}

func newAccessor(col plan.ScanCol, ser *serialization.Service) (*accessor, error) {
	a := &accessor{col: col}
	opts := serialization.FieldOptions{Strict: col.Strict, JSONOnly: col.Format == "json-flat", JSONPath: col.JSON}
	path := col.Path
	if !col.JSON {
		switch {
		case path == "__key":
			a.key, path = true, ""
		case path == "this":
			path = ""
		case strings.HasPrefix(path, "__key."):
			a.key, path = true, path[len("__key."):]
		case strings.HasPrefix(path, "this."):
			path = path[len("this."):]
		}
		a.whole = path == ""
		a.object = a.whole && col.Type == expr.Object
	}
	rd, err := ser.FieldReader(path, opts)
	if err != nil {
		return nil, err
	}
	a.rd = rd
	return a, nil
}

// data is the Data the column reads: the entry's key or its value.
func (a *accessor) data(key, value []byte) serialization.Data {
	if a.key {
		return key
	}
	return value
}

// readInto stores the column's value for an entry in dst. Values may
// alias key and value (valid while the entry is); scalars and strings are
// read without allocating. m, when not nil, is the memo of the shared
// read that hands the entry over.
func (a *accessor) readInto(key, value []byte, m *entryMemo, dst *expr.Value) error {
	d := a.data(key, value)
	if a.object {
		if d.Type() == serialization.TypeNull {
			*dst = expr.NullValue
		} else {
			*dst = expr.ObjectValue(d)
		}
		return nil
	}
	if a.rd.Multi() {
		list := []expr.Value{}
		err := a.rd.Each(d, func(v serialization.FieldValue) error {
			var x expr.Value
			err := a.valueInto(&v, &x)
			list = append(list, x)
			return err
		})
		if err != nil {
			*dst = expr.NullValue
			return a.readErr(err)
		}
		*dst = expr.Value{T: expr.List, L: &expr.Values{Items: list}}
		return nil
	}
	var v serialization.FieldValue
	var err error
	if m != nil {
		err = m.readTo(a, d, &v)
	} else {
		err = a.rd.ReadTo(d, &v)
	}
	if err != nil {
		*dst = expr.NullValue
		return a.readErr(err)
	}
	// valueInto, by hand: the scan's hot path.
	if int(v.Kind) < len(scalarTypes) {
		if t := scalarTypes[v.Kind]; t != expr.Unknown {
			return a.scalarInto(t, v.I, v.B, dst)
		}
	}
	return a.otherInto(&v, dst)
}

// field reads the column's field of an entry into v, as the reader
// returns it.
func (a *accessor) field(key, value []byte, v *serialization.FieldValue) error {
	return a.rd.ReadTo(a.data(key, value), v)
}

// readTo reads a's field of d into v through the memo: the value kept
// for a's reader, or the one it reads now, kept while a slot is free.
func (m *entryMemo) readTo(a *accessor, d serialization.Data, v *serialization.FieldValue) error {
	for i := range m.n {
		if s := &m.slots[i]; s.rd == a.rd && s.key == a.key {
			*v = s.v
			return s.err
		}
	}
	err := a.rd.ReadTo(d, v)
	if m.n < len(m.slots) {
		s := &m.slots[m.n]
		s.rd, s.key, s.v, s.err = a.rd, a.key, *v, err
		m.n++
	}
	return err
}

// entryMemo keeps the fields read of the entry a shared read hands its
// scans in turn: a scan that reads a field another one read of the same
// entry, with the same reader (the Service keeps one per path and
// options, which every query on the path shares), takes the value from
// here. Scans that filter or aggregate on one field then read it once per
// entry between them, whatever their constants or aggregates.
type entryMemo struct {
	n     int // slots of the current entry
	slots [4]memoSlot
}

// memoSlot is one field read: the reader, whether it read the key or the
// value, and what it returned.
type memoSlot struct {
	rd  *serialization.FieldReader
	key bool
	v   serialization.FieldValue
	err error
}

// next forgets the entry before; the read calls it before each entry.
func (m *entryMemo) next() { m.n = 0 }

// reset forgets every value kept, which point into the store's memory.
func (m *entryMemo) reset() {
	m.n = 0
	clear(m.slots[:])
}

// intOf returns the integer in v and its type in the column, when the
// column takes it as it is; ok is false for anything else (null, other
// kinds, a conversion), which readInto handles.
func (a *accessor) intOf(v *serialization.FieldValue) (i int64, t expr.Type, ok bool) {
	if int(v.Kind) >= len(scalarTypes) || !scalarTypes[v.Kind].IsInteger() {
		return 0, expr.Unknown, false
	}
	if t = a.col.Type; t == expr.Unknown {
		t = scalarTypes[v.Kind]
	} else if !expr.FitsInteger(v.I, t) {
		return 0, expr.Unknown, false
	}
	return v.I, t, true
}

// setScalar stores a scalar read whole in I or B into dst, field by field.
// Assigning a Value literal instead builds it on the stack and copies it
// over in 16-byte moves, which wait for the narrower stores just made to
// the copy to reach the cache (a store-forwarding stall).
func setScalar(dst *expr.Value, t expr.Type, i int64, b []byte) {
	dst.T, dst.I, dst.F, dst.B, dst.L = t, i, 0, b, nil
}

// read returns the column's value for an entry.
func (a *accessor) read(key, value []byte) (expr.Value, error) {
	var v expr.Value
	err := a.readInto(key, value, nil, &v)
	return v, err
}

// readErr names the attribute in a reader's error: a field that no
// version of the value's type has is a query error, as Hazelcast's
// predicates report it.
func (a *accessor) readErr(err error) error {
	var unknown *serialization.UnknownFieldError
	if errors.As(err, &unknown) {
		return plan.Errorf("attribute %s does not exist: %s", a.col.Path, unknown.Reason)
	}
	return fmt.Errorf("attribute %s: %w", a.col.Path, err)
}

// scalarTypes maps the kinds of values a reader returns whole in I or B
// (integers, booleans, strings, objects) to their SQL types; the others
// map to Unknown.
var scalarTypes = [...]expr.Type{
	serialization.ValueBool: expr.Boolean, serialization.ValueInt8: expr.TinyInt, serialization.ValueInt16: expr.SmallInt,
	serialization.ValueInt32: expr.Integer, serialization.ValueInt64: expr.BigInt, serialization.ValueString: expr.Varchar,
	serialization.ValueObject: expr.Object, serialization.ValueArray: expr.Unknown,
}

// valueInto converts what the reader returned to the column's type, into
// dst: the common kinds here, on the scan's hot path, the others in
// otherInto.
func (a *accessor) valueInto(v *serialization.FieldValue, dst *expr.Value) error {
	if int(v.Kind) < len(scalarTypes) {
		if t := scalarTypes[v.Kind]; t != expr.Unknown {
			return a.scalarInto(t, v.I, v.B, dst)
		}
	}
	return a.otherInto(v, dst)
}

// scalarInto stores a scalar of type t, read whole in i or b, into dst as
// the column's type.
func (a *accessor) scalarInto(t expr.Type, i int64, b []byte, dst *expr.Value) error {
	setScalar(dst, t, i, b)
	c := a.col.Type
	if c == expr.Unknown || c == t || c == expr.Object {
		return nil
	}
	if t.IsInteger() && expr.FitsInteger(i, c) {
		dst.T = c // an integer in the column's integer type: no Cast
		return nil
	}
	return a.cast(dst)
}

// otherInto converts the kinds valueInto leaves. Nested objects are
// OBJECT values (their own Data, which a client decodes through its
// registered types or as a generic record); JSON objects and arrays found
// in a document are JSON values only where the column takes JSON, while a
// whole JSON document is cast like any value.
func (a *accessor) otherInto(v *serialization.FieldValue, dst *expr.Value) error {
	switch v.Kind {
	case serialization.ValueNull:
		*dst = expr.NullValue
		return nil
	case serialization.ValueFloat32:
		*dst = expr.TypedFloat(expr.Real, v.Float())
	case serialization.ValueFloat64:
		*dst = expr.DoubleValue(v.Float())
	case serialization.ValueChar:
		*dst = expr.StringValue(string(rune(v.I)))
	case serialization.ValueJSON:
		if !a.whole && a.col.Type != expr.JSON && a.col.Type != expr.Unknown {
			*dst = expr.NullValue
			return nil
		}
		*dst = expr.Value{T: expr.JSON, B: v.B}
	case serialization.ValueArray:
		*dst = expr.NullValue
		return plan.Errorf("attribute %s is an array, which cannot be read as one value: read an element (%[1]s[0]) or every element (%[1]s[any])", a.col.Path)
	default:
		t, text, err := temporalText(v)
		if err != nil {
			*dst = expr.NullValue
			return a.readErr(err)
		}
		*dst, _ = expr.Cast(expr.StringValue(text), t)
	}
	if t := a.col.Type; t == expr.Unknown || t == dst.T || t == expr.Object {
		return nil
	}
	return a.cast(dst)
}

// cast converts dst to the column's type.
func (a *accessor) cast(dst *expr.Value) error {
	c, err := expr.Cast(*dst, a.col.Type)
	if err != nil {
		*dst = expr.NullValue
		return fmt.Errorf("attribute %s: %w", a.col.Path, err)
	}
	*dst = c
	return nil
}

// temporalText returns a decimal or temporal value as the text its SQL
// type is cast from.
func temporalText(v *serialization.FieldValue) (expr.Type, string, error) {
	switch v.Kind {
	case serialization.ValueDecimal:
		d, err := v.Decimal()
		return expr.Decimal, d.String(), err
	case serialization.ValueDate:
		d, err := v.Date()
		return expr.Date, d.String(), err
	case serialization.ValueTime:
		t, err := v.Time()
		return expr.Time, t.String(), err
	case serialization.ValueTimestamp:
		t, err := v.Timestamp()
		return expr.Timestamp, t.String(), err
	}
	t, err := v.TimestampTZ()
	return expr.TimestampTZ, t.String(), err
}
