package serialization_test

import (
	"bytes"
	"errors"
	"testing"

	s "github.com/atolldb/atoll/pkg/serialization"
)

// Inline arrays as Hazelcast writes them: a null array is length -1, and
// items may take no bytes (a class that writes nothing, or one that only
// inlines such a class), so a count larger than the bytes left is valid.
func TestInlineArraysOfItemsWithoutBytes(t *testing.T) {
	reg := s.NewLayoutRegistry()
	mustLayout := func(classID int32, fields ...s.LayoutField) *s.Layout {
		t.Helper()
		l, err := s.NewLayout(10, classID, fields)
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Add(l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	nothing := mustLayout(1)
	wrapper := mustLayout(2, s.LayoutField{Name: "nothing", Op: s.OpInline, FactoryID: 10, ClassID: 1})
	// Each array of items without bytes comes last in its object, where no
	// bytes are left for its items.
	holder := mustLayout(3,
		s.LayoutField{Name: "none", Op: s.OpInlineArray, FactoryID: 10, ClassID: 2},
		s.LayoutField{Name: "empty", Op: s.OpInlineArray, FactoryID: 10, ClassID: 1},
	)
	holder2 := mustLayout(4, s.LayoutField{Name: "wrapped", Op: s.OpInlineArray, FactoryID: 10, ClassID: 2})
	svc, err := s.NewService(s.Config{LayoutRegistry: reg})
	if err != nil {
		t.Fatal(err)
	}
	build := func(l *s.Layout, fields map[string]any) *s.IdentifiedRecord {
		t.Helper()
		b := s.NewIdentifiedRecordBuilder(l, reg)
		for k, v := range fields {
			b.Set(k, v)
		}
		rec, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	empty := build(nothing, nil)
	wrapped := build(wrapper, map[string]any{"nothing": empty})
	roundTrip := func(rec *s.IdentifiedRecord, want []byte) (*s.IdentifiedRecord, []byte) {
		t.Helper()
		data, err := svc.AppendData(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(data, want) {
			t.Fatalf("data %x does not end with %x", data, want)
		}
		got, err := svc.ToObject(data)
		if err != nil {
			t.Fatal(err)
		}
		return got.(*s.IdentifiedRecord), data
	}
	// The lengths and nothing else: -1 (null), 3.
	want := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3}
	r, data := roundTrip(build(holder, map[string]any{"none": nil, "empty": []*s.IdentifiedRecord{empty, empty, empty}}), want)
	if items, err := r.GetArrayOfInline("empty"); err != nil || len(items) != 3 {
		t.Errorf("empty: %d items, %v; want 3", len(items), err)
	}
	if items, err := r.GetArrayOfInline("none"); err != nil || items != nil {
		t.Errorf("none: %v, %v; want a null array", items, err)
	}
	r2, _ := roundTrip(build(holder2, map[string]any{"wrapped": []*s.IdentifiedRecord{wrapped, wrapped}}), []byte{0, 0, 0, 2})
	if items, err := r2.GetArrayOfInline("wrapped"); err != nil || len(items) != 2 {
		t.Errorf("wrapped: %d items, %v; want 2", len(items), err)
	}
	// A count of empty items beyond the bound is refused, not allocated.
	huge := append(bytes.Clone(data[:len(data)-4]), 0x7f, 0xff, 0xff, 0xff)
	if out, err := svc.ToObject(huge); err == nil {
		if _, err = out.(*s.IdentifiedRecord).GetArrayOfInline("empty"); !errors.Is(err, s.ErrMalformed) {
			t.Errorf("2^31-1 empty items: %v, want a malformed-data error", err)
		}
	} else if !errors.Is(err, s.ErrMalformed) {
		t.Errorf("2^31-1 empty items: %v, want a malformed-data error", err)
	}
}
