package exec

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// FuzzAccessor reads attributes out of arbitrary Data: whatever the bytes,
// the in-place readers return a value or an error and never panic.
func FuzzAccessor(f *testing.F) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range []any{
		&benchmodel.IdentifiedADoc{Value: 7, Payload: benchmodel.APayload(7)}, &benchmodel.PortableADoc{Value: 7, Payload: []int32{1}},
		func() *benchmodel.Small { s := benchmodel.SmallForKey(3); return &s }(), serialization.JSON(benchmodel.AJSON(5)),
		benchmodel.NewIdentifiedLarge(benchmodel.LargeForKey(2)), int32(5), "text",
	} {
		d := toData(f, ser, v)
		f.Add(d, "value")
		f.Add(d, "stringField")
	}
	f.Fuzz(func(t *testing.T, d []byte, path string) {
		for _, typ := range []expr.Type{expr.Unknown, expr.BigInt, expr.Varchar} {
			for _, col := range []plan.ScanCol{{Path: path, Type: typ}, {Path: path, Type: typ, Format: "json-flat"}, {Path: "$." + path, Type: typ, JSON: true}, {Path: "this", Type: typ}} {
				a, err := newAccessor(col, ser)
				if err != nil {
					continue
				}
				var v expr.Value
				_ = a.readInto(d, d, nil, &v)
				_, _ = a.read(d, d)
			}
		}
	})
}

// FuzzDecodeRows feeds arbitrary bytes to the row decoder.
func FuzzDecodeRows(f *testing.F) {
	f.Add(EncodeRow(nil, []expr.Value{expr.BigIntValue(-3), expr.StringValue("x"), expr.NullValue, expr.DoubleValue(1.5), expr.ObjectValue([]byte{1, 2})}), 1, 5)
	f.Fuzz(func(t *testing.T, b []byte, count, width int) {
		if count < 0 || width < 0 || count > 64 || width > 64 {
			return
		}
		_, _ = DecodeRows(b, count, width)
	})
}

// FuzzDecodeFragmentReply: the in-place decoder of a fragment's reply
// accepts what protobuf's decoder accepts, rejects what it rejects, and
// reads the same fields.
func FuzzDecodeFragmentReply(f *testing.F) {
	for _, m := range []*memberpb.FragmentReply{
		{CallId: 7, Rows: []byte{1, 2, 3}, Count: 1},
		{CallId: 1 << 40, End: true, Status: []byte("status")},
		{CallId: 3, Rows: make([]byte, 300), Count: -1, End: true},
		{},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(append(b, 0x30, 0x05))       // a repeated count: the last wins
		f.Add(append(b, 0x52, 0x01, 0x09)) // an unknown field 10
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := &memberpb.FragmentReply{}
		werr := proto.Unmarshal(b, want)
		got, err := decodeFragmentReply(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("error %v, protobuf's %v", err, werr)
		}
		if err != nil {
			return
		}
		if got.callID != want.CallId || !bytes.Equal(got.rows, want.Rows) || got.count != want.Count || got.end != want.End || !bytes.Equal(got.status, want.Status) {
			t.Fatalf("decoded %+v, protobuf %v", got, want)
		}
	})
}
