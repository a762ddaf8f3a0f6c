package serialization_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/jrand"
	s "github.com/atolldb/atoll/pkg/serialization"
)

// A Decoder's objects share its blocks: each must keep its own values
// after the Decoder read many more, and growing one of its arrays must
// leave its neighbours alone.
func TestDecoderObjectsStayValid(t *testing.T) {
	svc := newService(t)
	r := jrand.New(7)
	const n = 300 // several blocks of strings and numbers
	var want []any
	var datas []s.Data
	for i := range n {
		l := benchmodel.NewLarge(r)
		var v any
		switch i % 4 {
		case 0:
			v = benchmodel.NewIdentifiedLarge(l)
		case 1:
			v = benchmodel.NewPortableLarge(l)
		case 2:
			v = &l
		default:
			v = &benchmodel.IdentifiedADoc{Value: int64(i), Payload: l.IntArray}
		}
		d, err := svc.ToData(v)
		require.NoError(t, err)
		want = append(want, v)
		datas = append(datas, d)
	}
	dec := svc.NewDecoder()
	got := make([]any, n)
	for i, d := range datas {
		v, err := dec.ToObject(d)
		require.NoError(t, err, "value %d", i)
		got[i] = v
	}
	for i, v := range got {
		if doc, ok := v.(*benchmodel.IdentifiedADoc); ok {
			grown := append(doc.Payload, -1)
			grown[0] = -1
		}
		switch l := v.(type) {
		case *benchmodel.IdentifiedLarge:
			grow(l.LongArray, -1)
		case *benchmodel.PortableLarge:
			grow(l.BooleanArray, true)
			grow(l.ByteArray, 0xff)
			grow(l.ShortArray, -1)
		case *benchmodel.Large:
			grow(l.BooleanArray, true)
			grow(l.ByteArray, -1)
			grow(l.DoubleArray, -1)
		}
		require.Equal(t, want[i], got[i], "value %d", i)
	}
	for i, v := range got {
		assert.Equal(t, want[i], v, "value %d after its neighbours grew", i)
	}
}

// Service.ToObject and a Decoder read the same values.
func TestDecoderMatchesToObject(t *testing.T) {
	svc := newService(t)
	r := jrand.New(8)
	dec := svc.NewDecoder()
	for range 20 {
		l := benchmodel.NewLarge(r)
		for _, v := range []any{benchmodel.NewIdentifiedLarge(l), benchmodel.NewPortableLarge(l), &l, "text", int64(3), []int32{1, 2}} {
			d, err := svc.ToData(v)
			require.NoError(t, err)
			one, err := svc.ToObject(d)
			require.NoError(t, err)
			page, err := dec.ToObject(d)
			require.NoError(t, err)
			assert.Equal(t, one, page)
		}
	}
	_, err := dec.ToObject(s.Data{0, 0, 0, 0, 0xff, 0xff, 0xff, 0x00})
	assert.Error(t, err, "an unknown type id fails")
}

// grow appends v to a and writes v over the first item of the result: a
// slice cut with room past its end would write over its neighbour, and
// one that does not reallocate would change a itself.
func grow[T any](a []T, v T) {
	if len(a) == 0 {
		return
	}
	grown := append(a, v)
	grown[0] = v
}
