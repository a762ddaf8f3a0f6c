package serialization_test

import (
	"reflect"
	"sync/atomic"
	"testing"

	s "github.com/atolldb/atoll/pkg/serialization"
)

// shifting reads its fields in another order on every other call: the
// readers learn the order of the first read, and a read in any other order
// must find the same fields.
type shifting struct {
	A, B, C string
	N       int32
}

type shiftingSerializer struct{ calls *atomic.Int32 }

func (shiftingSerializer) Type() reflect.Type { return reflect.TypeFor[*shifting]() }
func (shiftingSerializer) TypeName() string   { return "shifting" }
func (shiftingSerializer) Write(w *s.CompactWriter, v any) {
	x := v.(*shifting)
	w.WriteString("a", x.A)
	w.WriteString("b", x.B)
	w.WriteString("c", x.C)
	w.WriteInt32("n", x.N)
}
func (z shiftingSerializer) Read(r *s.CompactReader) any {
	x := &shifting{}
	if z.calls.Add(1)%2 == 1 {
		x.A, x.B, x.C, x.N = r.ReadString("a"), r.ReadString("b"), r.ReadString("c"), r.ReadInt32("n")
	} else {
		x.N, x.C = r.ReadInt32("n"), r.ReadString("c")
		x.B, x.A = r.ReadString("b"), r.ReadString("a")
	}
	return x
}

// TestDecodeInAnyOrder: the learned read order speeds up reads in that
// order and changes nothing for reads in another; the strings an object
// reads share its decoder's block, and each keeps its own bytes.
func TestDecodeInAnyOrder(t *testing.T) {
	svc, err := s.NewService(s.Config{CompactSerializers: []s.CompactSerializer{shiftingSerializer{calls: &atomic.Int32{}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []*shifting{{A: "alpha", B: "", C: "gamma", N: 7}, {A: "x", B: "yy", C: "zzz", N: -1}}
	var got []*shifting
	for round := range 3 {
		for _, w := range want {
			d, err := svc.ToData(w)
			if err != nil {
				t.Fatal(err)
			}
			v, err := svc.ToObject(d)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if !reflect.DeepEqual(v, w) {
				t.Fatalf("round %d: decoded %+v, want %+v", round, v, w)
			}
			got = append(got, v.(*shifting))
		}
	}
	// What was decoded earlier is untouched by what was decoded after it.
	for i, g := range got {
		if w := want[i%len(want)]; !reflect.DeepEqual(g, w) {
			t.Fatalf("object %d changed to %+v, want %+v", i, g, w)
		}
	}
}
