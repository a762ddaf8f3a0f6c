package workload

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/jrand"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// benchEntries is the map size of the benchmarks (ATOLL_BENCH_ENTRIES,
// default 100 000 as in the workloads' full mode).
func benchEntries(b *testing.B) int {
	if s := os.Getenv("ATOLL_BENCH_ENTRIES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err, "ATOLL_BENCH_ENTRIES=%q", s)
		require.Positive(b, n, "ATOLL_BENCH_ENTRIES=%q", s)
		return n
	}
	return 100_000
}

var (
	benchOnce   sync.Once
	benchClient *client.Client
	benchN      int
	benchErr    error
)

// benchCluster starts one in-process cluster with every workload map
// loaded, shared by all benchmarks of the run.
func benchCluster(b *testing.B) (*client.Client, int) {
	benchOnce.Do(func() {
		benchN = benchEntries(b)
		cl := testcluster.Start(&keepAlive{b}, testcluster.InProcess, memberCounts(b)[0], testcluster.Options{})
		ctx := context.Background()
		benchClient, benchErr = client.New(ctx, ClientConfig(cl.Addrs(), "test"))
		if benchErr != nil {
			return
		}
		if benchErr = LoadA(ctx, benchClient, benchN, 8); benchErr != nil {
			return
		}
		for _, k := range BKinds {
			if !Queryable(k) {
				continue
			}
			if benchErr = LoadB(ctx, benchClient, k, "small", benchN, 8); benchErr != nil {
				return
			}
			if benchErr = Exec(ctx, benchClient, BMapping(k, "small")); benchErr != nil {
				return
			}
		}
	})
	require.NoError(b, benchErr)
	return benchClient, benchN
}

// keepAlive lets the shared cluster outlive the benchmark that started it
// (the process ends after the benchmarks).
type keepAlive struct{ testing.TB }

func (keepAlive) Cleanup(func()) {}

func runBench(b *testing.B, cs Case, rowsPerOp int64) {
	c, _ := benchCluster(b)
	ctx := context.Background()
	r := jrand.New(cs.Seed)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := cs.Run(ctx, c, r)
		require.NoError(b, err)
		require.Equal(b, cs.Want, got, "%s: check", cs.ID())
	}
	b.StopTimer()
	if sec := b.Elapsed().Seconds(); sec > 0 {
		b.ReportMetric(float64(rowsPerOp)*float64(b.N)/sec, "rows/s")
		b.ReportMetric(float64(b.N)/sec, "queries/s")
	}
}

// BenchmarkWorkloadA runs every workload A case through SQL and through the
// Predicate API side by side, against one in-process member, one client
// goroutine. rows/s counts the entries each query reads (N for scans).
func BenchmarkWorkloadA(b *testing.B) {
	_, n := benchCluster(b)
	for _, cs := range ACases(n) {
		rows := int64(n)
		if cs.Name == "eq sorted-index IDS" {
			rows = 1
		}
		b.Run(cs.Title()+"/"+cs.API, func(b *testing.B) { runBench(b, cs, rows) })
	}
}

// BenchmarkWorkloadB runs the SMALL query cases of workload B.
func BenchmarkWorkloadB(b *testing.B) {
	_, n := benchCluster(b)
	for _, k := range BKinds {
		if !Queryable(k) {
			continue
		}
		for _, cs := range BQueryCases(k, "small", n) {
			b.Run(cs.Title()+"/"+cs.API, func(b *testing.B) { runBench(b, cs, int64(n)) })
		}
	}
}
