package member_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// BenchmarkHotPath measures get and set of small values through the Go
// client against an in-process member with operation metrics and pprof
// labels off, each on its own, and both on (the default): the overhead
// of observability on the hot path. 8 concurrent callers, 10 000 keys.
//
//	go test -run '^$' -bench HotPath -benchtime 3s -count 5 ./internal/member/
func BenchmarkHotPath(b *testing.B) {
	const keys = 10_000
	ctx := context.Background()
	for _, mode := range []struct {
		name            string
		metrics, labels bool
	}{{"off", false, false}, {"metrics", true, false}, {"labels", false, true}, {"on", true, true}} {
		c := testcluster.Start(b, testcluster.InProcess, 1, testcluster.Options{Configure: func(cfg *member.Config) {
			cfg.Metrics.Operations, cfg.Profiling.Labels = mode.metrics, mode.labels
		}})
		cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test", StatisticsInterval: -1})
		if err != nil {
			b.Fatal(err)
		}
		benchGetSet(b, client.GetMap[int32, string](cl, "hot"), keys, mode.name)
		_ = cl.Close()
		c.Stop()
	}
}

// benchGetSet loads keys small values into m, then measures get and set
// of random keys as the sub-benchmarks get/MODE and set/MODE, with 8
// concurrent callers. Besides ns/op it reports cpu-ns/op, the CPU time
// the process (client and member) spent per operation.
func benchGetSet(b *testing.B, m *client.Map[int32, string], keys int32, mode string) {
	ctx := context.Background()
	const value = "a small value of about forty bytes......"
	for k := int32(0); k < keys; k++ {
		if err := m.Set(ctx, k, value); err != nil {
			b.Fatal(err)
		}
	}
	for _, op := range []string{"get", "set"} {
		b.Run(op+"/"+mode, func(b *testing.B) {
			b.SetParallelism(4) // 8 callers on 2 cores
			cpu := processCPU()
			defer func() { b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op") }()
			b.RunParallel(func(pb *testing.PB) {
				r := rand.New(rand.NewPCG(rand.Uint64(), 1))
				for pb.Next() {
					k := r.Int32N(keys)
					var err error
					if op == "get" {
						_, _, err = m.Get(ctx, k)
					} else {
						err = m.Set(ctx, k, value)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
