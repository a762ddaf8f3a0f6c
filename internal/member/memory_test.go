package member_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// BenchmarkMemoryPerEntry loads 100 000 of the workloads' SMALL and LARGE
// Compact values into an in-process member through the Go client and
// reports, per entry: the serialized key+value size, the owned entry memory
// cost the member reports, and the real heap growth (runtime.MemStats after
// a GC), with the overhead of both above key+value.
//
//	go test -run '^$' -bench MemoryPerEntry -benchtime 1x ./internal/member/
func BenchmarkMemoryPerEntry(b *testing.B) {
	const entries = 100_000
	for _, kind := range []string{"small", "large"} {
		b.Run(kind, func(b *testing.B) {
			for range b.N {
				c := testcluster.Start(b, testcluster.InProcess, 1, testcluster.Options{})
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
				if err != nil {
					b.Fatal(err)
				}
				m := client.GetMap[int32, any](cl, "mem_"+kind)
				ser := cl.Serialization()
				var kv int64
				values := func(k int32) any {
					if kind == "small" {
						v := benchmodel.SmallForKey(k)
						return &v
					}
					v := benchmodel.LargeForKey(k)
					return &v
				}
				before := member.HeapAfterGC().HeapAllocBytes
				batch := make([]client.Entry[int32, any], 0, 500)
				for k := int32(0); k < entries; k++ {
					v := values(k)
					kd, _ := ser.ToData(k)
					vd, _ := ser.ToData(v)
					kv += int64(len(kd) + len(vd))
					batch = append(batch, client.Entry[int32, any]{Key: k, Value: v})
					if len(batch) == cap(batch) {
						if err := m.PutAll(ctx, batch); err != nil {
							b.Fatal(err)
						}
						batch = batch[:0]
					}
				}
				after := member.HeapAfterGC().HeapAllocBytes
				st, err := m.Stats(ctx)
				if err != nil || st.OwnedEntryCount != entries {
					b.Fatalf("stats %+v, %v", st, err)
				}
				perKV := float64(kv) / entries
				cost := float64(st.OwnedEntryMemoryCost) / entries
				heap := (float64(after) - float64(before)) / entries
				b.ReportMetric(perKV, "B-key+value/entry")
				b.ReportMetric(cost, "B-cost/entry")
				b.ReportMetric(cost-perKV, "B-cost-overhead/entry")
				b.ReportMetric(heap, "B-heap/entry")
				b.ReportMetric(heap-perKV, "B-heap-overhead/entry")
				if testing.Verbose() {
					fmt.Printf("%s: key+value %.1f B, cost %.1f B (+%.1f), heap %.1f B (+%.1f)\n", kind, perKV, cost, cost-perKV, heap, heap-perKV)
				}
				_ = cl.Close()
			}
		})
	}
}
