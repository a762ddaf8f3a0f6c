package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// BenchmarkRebalance measures how long a fourth member takes to receive its
// fair share of 100 000 SMALL entries held by three member processes
// (backup-count 1), from its start until every member has the same
// balanced table and no migration is in flight. Each iteration builds a
// new cluster.
//
//	go test -run '^$' -bench Rebalance -benchtime 1x ./internal/cluster/
func BenchmarkRebalance(b *testing.B) {
	const entries = 100_000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := testcluster.Start(b, testcluster.Process, 3, testcluster.Options{})
		c.WaitStable(1, 2*time.Minute)
		ctx := context.Background()
		cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
		if err != nil {
			b.Fatal(err)
		}
		m := client.GetMap[int32, *benchmodel.Small](cl, "small")
		batch := make([]client.Entry[int32, *benchmodel.Small], 0, 1000)
		for k := int32(0); k < entries; k++ {
			v := benchmodel.SmallForKey(k)
			batch = append(batch, client.Entry[int32, *benchmodel.Small]{Key: k, Value: &v})
			if len(batch) == cap(batch) {
				if err := m.PutAll(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		b.StartTimer()
		start := time.Now()
		c.Add()
		c.WaitStable(1, 5*time.Minute)
		elapsed := time.Since(start)
		b.StopTimer()
		st, err := cl.ClusterState(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(elapsed.Milliseconds()), "rebalance-ms")
		b.ReportMetric(float64(st.MigrationsCompleted), "migrations")
		if n, err := m.Size(ctx); err != nil || n != entries {
			b.Fatalf("after the rebalance the map holds %d entries (%v), want %d", n, err, entries)
		}
		_ = cl.Close()
		c.Stop()
	}
}
