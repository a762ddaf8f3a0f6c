package serialization_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/atolldb/atoll/internal/serialization/wire"
	s "github.com/atolldb/atoll/pkg/serialization"
)

func addVectorSeeds(f *testing.F, format string) {
	for _, v := range committedVectors(f) {
		if format == "" || v.Format == format {
			b, _ := hex.DecodeString(v.DataHex)
			f.Add(b)
		}
	}
}

// equalFields compares every field of two records of the same format.
func equalFields(t *testing.T, names []string, a, b interface{ Get(string) (any, error) }) {
	t.Helper()
	for _, n := range names {
		av, aerr := a.Get(n)
		bv, berr := b.Get(n)
		if (aerr == nil) != (berr == nil) {
			t.Fatalf("field %s: errors differ: %v / %v", n, aerr, berr)
		}
		if aerr == nil && !equalValue(av, bv) {
			t.Fatalf("field %s: %#v != %#v", n, av, bv)
		}
	}
}

// equalValue compares decoded values, comparing nested records by their bytes.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case *s.CompactRecord:
		y, ok := b.(*s.CompactRecord)
		return ok && (x == nil) == (y == nil) && (x == nil || x.Schema().ID == y.Schema().ID)
	case *s.PortableRecord:
		y, ok := b.(*s.PortableRecord)
		return ok && (x == nil) == (y == nil)
	case s.Decimal:
		y, ok := b.(s.Decimal)
		return ok && x.Scale == y.Scale && x.Unscaled.Cmp(y.Unscaled) == 0
	case *s.Decimal:
		y, ok := b.(*s.Decimal)
		return ok && (x == nil) == (y == nil) && (x == nil || equalValue(*x, *y))
	}
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	if av.Kind() == reflect.Pointer && bv.Kind() == reflect.Pointer && av.Type() == bv.Type() {
		// Nullable values: compare what they point to (NaN bits included).
		return av.IsNil() == bv.IsNil() && (av.IsNil() || equalValue(av.Elem().Interface(), bv.Elem().Interface()))
	}
	if av.Kind() == reflect.Slice && bv.Kind() == reflect.Slice && av.Type() == bv.Type() {
		if av.Len() != bv.Len() {
			return false
		}
		for i := 0; i < av.Len(); i++ {
			if !equalValue(av.Index(i).Interface(), bv.Index(i).Interface()) {
				return false
			}
		}
		return true
	}
	if f, ok := a.(float64); ok {
		g, ok := b.(float64)
		return ok && wire.Float64Bits(f) == wire.Float64Bits(g)
	}
	if f, ok := a.(float32); ok {
		g, ok := b.(float32)
		return ok && wire.Float32Bits(f) == wire.Float32Bits(g)
	}
	return reflect.DeepEqual(a, b)
}

// FuzzData decodes arbitrary bytes as a Data with every vector's metadata
// registered: it must return an error or a value whose fields all read
// without panicking.
func FuzzData(f *testing.F) {
	addVectorSeeds(f, "")
	svc := serviceForVectors(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := svc.ToObject(b)
		if err != nil {
			if !errors.Is(err, s.ErrMalformed) && !errors.Is(err, s.ErrUnknownSchema) && !errors.Is(err, s.ErrUnknownClass) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		readAll(out)
	})
}

// FuzzCompact reads arbitrary Compact data in place; a record whose fields
// all read is rewritten with its schema embedded and must read back equal.
func FuzzCompact(f *testing.F) {
	addVectorSeeds(f, "compact")
	svc := serviceForVectors(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := s.ReadCompactRecord(b, svc.Schemas())
		if err != nil {
			return
		}
		var names []string
		for _, fl := range rec.Schema().Fields {
			if _, err := rec.Get(fl.Name); err != nil {
				return
			}
			names = append(names, fl.Name)
		}
		again, err := svc.AppendDataWithSchema(nil, &rec)
		if err != nil {
			return // nested records may be unreadable; the top level was fine
		}
		rec2, err := s.ReadCompactRecord(again, nil)
		if err != nil {
			t.Fatalf("rewritten record does not read: %v", err)
		}
		equalFields(t, names, &rec, &rec2)
	})
}

// FuzzPortable reads arbitrary Portable data in place; a record whose fields
// all read is rewritten (positions change) and must read back equal.
func FuzzPortable(f *testing.F) {
	addVectorSeeds(f, "portable")
	svc := serviceForVectors(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := s.ReadPortableRecord(b, svc.ClassRegistry())
		if err != nil {
			return
		}
		cd, err := rec.ClassDefinition()
		if err != nil {
			return
		}
		var names []string
		for _, fl := range cd.Fields {
			v, err := rec.Get(fl.Name)
			if err != nil {
				return
			}
			readAll(v)
			names = append(names, fl.Name)
		}
		again, err := svc.ToData(&rec)
		if err != nil {
			return
		}
		rec2, err := s.ReadPortableRecord(again, nil)
		if err != nil {
			t.Fatalf("rewritten record does not read: %v", err)
		}
		equalFields(t, names, &rec, &rec2)
	})
}

// FuzzIdentifiedLayout builds a layout from the first input (one op per
// byte) and reads the second input through it.
func FuzzIdentifiedLayout(f *testing.F) {
	svc := serviceForVectors(f)
	for _, l := range svc.LayoutRegistry().All() {
		ops := make([]byte, len(l.Fields))
		for i, fl := range l.Fields {
			ops[i] = byte(fl.Op)
		}
		for _, v := range committedVectors(f) {
			if v.Identified != nil && v.Identified.FactoryID == l.FactoryID && v.Identified.ClassID == l.ClassID {
				b, _ := hex.DecodeString(v.DataHex)
				f.Add(ops, b[17:])
			}
		}
	}
	small, _ := svc.LayoutRegistry().Get(1, 1)
	f.Fuzz(func(t *testing.T, ops, body []byte) {
		if len(ops) > 64 {
			return
		}
		fields := make([]s.LayoutField, len(ops))
		for i, op := range ops {
			fields[i] = s.LayoutField{Name: "f" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Op: s.LayoutOp(1 + op%22)}
			if small != nil {
				fields[i].FactoryID, fields[i].ClassID = small.FactoryID, small.ClassID
			}
		}
		l, err := s.NewLayout(99, 1, fields)
		if err != nil {
			t.Fatalf("layout: %v", err)
		}
		reg := s.NewLayoutRegistry()
		if small != nil {
			_ = reg.Add(small)
		}
		_ = reg.Add(l)
		local, err := s.NewService(s.Config{LayoutRegistry: reg, Schemas: svc.Schemas(), ClassRegistry: svc.ClassRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		d := append([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe, 1, 0, 0, 0, 99, 0, 0, 0, 1}, body...)
		rec, err := s.ReadIdentifiedRecord(d, local)
		if err != nil {
			t.Fatalf("header was valid: %v", err)
		}
		readAll(&rec)
	})
}

// FuzzJSONPath evaluates arbitrary paths on arbitrary documents. On a valid
// document evaluation never fails, and every value found is valid JSON.
func FuzzJSONPath(f *testing.F) {
	for _, v := range committedVectors(f) {
		if v.Format == "json" {
			var p struct {
				Value string `json:"value"`
			}
			_ = json.Unmarshal(v.Value, &p)
			f.Add("$.value", []byte(p.Value))
			f.Add("payload[any]", []byte(p.Value))
		}
	}
	f.Add("$.a['b c'][0]", []byte(`{"a":{"b c":[1,{"d":"\u00e9"}]}}`))
	f.Add("x[*].y", []byte(`{"x":[{"y":true},{"y":null}]}`))
	f.Fuzz(func(t *testing.T, path string, doc []byte) {
		p, err := s.ParseJSONPath(path)
		if err != nil {
			return
		}
		valid := json.Valid(doc)
		err = p.Each(doc, func(v s.JSONValue) bool {
			if valid && !json.Valid(v.Raw) {
				t.Fatalf("found invalid JSON %q in a valid document", v.Raw)
			}
			v.Int64()
			v.Float64()
			v.Text()
			return true
		})
		if valid && err != nil {
			t.Fatalf("valid document, path %q: %v", path, err)
		}
		if err != nil && !errors.Is(err, s.ErrMalformed) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}

// FuzzSchema parses arbitrary bytes as an embedded Compact schema; a schema
// that parses must write out and read back as the same schema.
func FuzzSchema(f *testing.F) {
	for _, v := range committedVectors(f) {
		if v.Compact != nil && v.Compact.WithSchema {
			b, _ := hex.DecodeString(v.DataHex)
			f.Add(b[20:])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		schema, n, err := s.ParseSchema(b)
		if err != nil {
			return
		}
		again, m, err := s.ParseSchema(s.AppendSchema(nil, schema))
		if err != nil || again.ID != schema.ID || m > n {
			t.Fatalf("schema read from %x does not survive a rewrite: %v", b[:n], err)
		}
	})
}
