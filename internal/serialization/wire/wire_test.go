package wire

import (
	"errors"
	"math"
	"testing"
)

func TestReaderStopsAtTheEnd(t *testing.T) {
	r := NewReader([]byte{0, 0, 0, 7, 1}, 0)
	if v := r.Int32(); v != 7 || r.Err() != nil {
		t.Fatalf("Int32 = %d, %v", v, r.Err())
	}
	if v := r.Int64(); v != 0 || !errors.Is(r.Err(), ErrShort) {
		t.Fatalf("short Int64 = %d, %v", v, r.Err())
	}
	if v := r.Int8(); v != 0 {
		t.Fatalf("read after error returned %d", v)
	}
	if r := NewReader(nil, 3); !errors.Is(r.Err(), ErrShort) {
		t.Fatalf("reader past the end: %v", r.Err())
	}
}

func TestLengthIsBoundedByTheInput(t *testing.T) {
	cases := []struct {
		in        []byte
		size      int
		allowNull bool
		want      int
		err       error
	}{
		{[]byte{0, 0, 0, 2, 1, 2}, 1, false, 2, nil},
		{[]byte{0, 0, 0, 3, 1, 2}, 1, false, 0, ErrShort},
		{[]byte{0x7f, 0xff, 0xff, 0xff}, 4, false, 0, ErrShort},
		{[]byte{0xff, 0xff, 0xff, 0xff}, 4, true, -1, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff}, 4, false, 0, ErrLength},
		{[]byte{0xff, 0xff, 0xff, 0xfe}, 4, true, 0, ErrLength},
	}
	for _, c := range cases {
		r := NewReader(c.in, 0)
		if got := r.Length(c.size, c.allowNull); got != c.want || !errors.Is(r.Err(), c.err) {
			t.Errorf("Length(%x, %d, %v) = %d, %v; want %d, %v", c.in, c.size, c.allowNull, got, r.Err(), c.want, c.err)
		}
	}
}

func TestStrings(t *testing.T) {
	b, err := AppendString(nil, "é")
	if err != nil || string(b) != "\x00\x00\x00\x02\xc3\xa9" {
		t.Fatalf("AppendString = %x, %v", b, err)
	}
	if _, err := AppendString(nil, "\xff"); !errors.Is(err, ErrUTF8) {
		t.Fatalf("invalid UTF-8: %v", err)
	}
	r := NewReader(AppendNullString(nil), 0)
	if s, ok := r.Str(); ok || s != "" || r.Err() != nil {
		t.Fatalf("null string = %q, %v, %v", s, ok, r.Err())
	}
}

func TestFloatsCanonicalizeNaN(t *testing.T) {
	if b := Float64Bits(math.Float64frombits(0x7ff0000000000001)); b != 0x7ff8000000000000 {
		t.Fatalf("Float64Bits(NaN) = %x", b)
	}
	if b := Float32Bits(math.Float32frombits(0x7f800001)); b != 0x7fc00000 {
		t.Fatalf("Float32Bits(NaN) = %x", b)
	}
	if b := Float64Bits(math.Copysign(0, -1)); b != 0x8000000000000000 {
		t.Fatalf("-0.0 lost its sign: %x", b)
	}
}

// TestNumbersReadAsTheItemReaders: Numbers reads what the one-item
// readers read, item by item, and fails a short input as they do.
func TestNumbersReadAsTheItemReaders(t *testing.T) {
	var in []byte
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 0x0102030405060708, -0x7fc0000000000001} {
		in = AppendInt64(in, v)
	}
	check := func(name string, n int, bulk func(*Reader) any, item func(*Reader) any) {
		t.Helper()
		r1, r2 := NewReader(in, 0), NewReader(in, 0)
		got := bulk(&r1)
		want := make([]any, 0, n)
		for range n {
			want = append(want, item(&r2))
		}
		if g := got.([]any); !equalAny(g, want) || r1.Err() != nil || r1.Len() != r2.Len() {
			t.Fatalf("%s: Numbers read %v (left %d, err %v), the item reader %v (left %d)", name, g, r1.Len(), r1.Err(), want, r2.Len())
		}
	}
	check("int16", len(in)/2, func(r *Reader) any { return anys(bulkOf[int16](r, len(in)/2)) }, func(r *Reader) any { return r.Int16() })
	check("int32", len(in)/4, func(r *Reader) any { return anys(bulkOf[int32](r, len(in)/4)) }, func(r *Reader) any { return r.Int32() })
	check("int64", len(in)/8, func(r *Reader) any { return anys(bulkOf[int64](r, len(in)/8)) }, func(r *Reader) any { return r.Int64() })
	check("float32", len(in)/4, func(r *Reader) any { return anys(bulkOf[float32](r, len(in)/4)) }, func(r *Reader) any { return math.Float32bits(r.Float32()) })
	check("float64", len(in)/8, func(r *Reader) any { return anys(bulkOf[float64](r, len(in)/8)) }, func(r *Reader) any { return math.Float64bits(r.Float64()) })

	// One item too many: the reader fails, the destination is untouched.
	r := NewReader(in, 0)
	dst := []int32{9, 9, 9}
	r.Skip(len(in) - 8)
	Numbers(&r, dst)
	if !errors.Is(r.Err(), ErrShort) || dst[0] != 9 || dst[2] != 9 {
		t.Fatalf("short input: err %v, dst %v", r.Err(), dst)
	}
}

func bulkOf[T Number](r *Reader, n int) []T {
	out := make([]T, n)
	Numbers(r, out)
	return out
}

// anys boxes numbers as the item readers' results are compared (floats by
// their bits, so that NaNs compare).
func anys[T Number](v []T) []any {
	out := make([]any, len(v))
	for i, x := range v {
		switch f := any(x).(type) {
		case float32:
			out[i] = math.Float32bits(f)
		case float64:
			out[i] = math.Float64bits(f)
		default:
			out[i] = x
		}
	}
	return out
}

func equalAny(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
