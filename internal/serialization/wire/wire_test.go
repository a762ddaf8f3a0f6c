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
