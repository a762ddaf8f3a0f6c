package client

import (
	"context"
	"encoding/binary"
	"testing"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/pkg/serialization"
)

// BenchmarkRowsValues decodes a page of workload A1's rows (__key INT,
// this: an IdentifiedDataSerializable with 20 ints) as Rows.Values does,
// without a member: the client's share of a scan to the client.
func BenchmarkRowsValues(b *testing.B) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		b.Fatal(err)
	}
	const rows = 4096
	var page []byte
	for k := int32(0); k < rows; k++ {
		d, err := ser.ToData(&benchmodel.IdentifiedADoc{Value: int64(k), Payload: benchmodel.APayload(k)})
		if err != nil {
			b.Fatal(err)
		}
		page = append(page, 3, byte(pb.SqlType_SQL_TYPE_INTEGER))
		page = binary.AppendVarint(page, int64(k))
		page = append(page, 6)
		page = binary.AppendUvarint(page, uint64(len(d)))
		page = append(page, d...)
	}
	c := &Client{ser: ser}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		r := &Rows{ctx: context.Background(), c: c, columns: make([]Column, 2), page: page, left: rows}
		for r.Next() {
			if _, err := r.Values(); err != nil {
				b.Fatal(err)
			}
		}
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
