package client_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// BenchmarkClient measures get and set through the Go client against an
// in-process member over loopback, with 8 concurrent callers, for the
// workloads' SMALL and LARGE Compact values (10 000 keys; every set is an
// update). Besides ns/op it reports throughput and the p50/p99 latency of
// single calls.
//
//	go test -run '^$' -bench Client -benchtime 5s ./pkg/client/
func BenchmarkClient(b *testing.B) {
	const keys = 10_000
	cluster := testcluster.Start(b, testcluster.InProcess, 1, testcluster.Options{})
	ctx := context.Background()
	cl, err := client.New(ctx, client.Config{Addresses: cluster.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	for _, kind := range []string{"small", "large"} {
		m := client.GetMap[int32, any](cl, "bench_"+kind)
		value := func(k int32) any {
			if kind == "small" {
				v := benchmodel.SmallForKey(k)
				return &v
			}
			v := benchmodel.LargeForKey(k)
			return &v
		}
		batch := make([]client.Entry[int32, any], 0, 500)
		for k := int32(0); k < keys; k++ {
			batch = append(batch, client.Entry[int32, any]{Key: k, Value: value(k)})
			if len(batch) == cap(batch) {
				if err := m.PutAll(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		fixed := value(7)
		for _, op := range []string{"get", "set"} {
			b.Run(kind+"/"+op, func(b *testing.B) {
				run := func(r *rand.Rand) error {
					k := r.Int32N(keys)
					if op == "get" {
						_, _, err := m.Get(ctx, k)
						return err
					}
					return m.Set(ctx, k, fixed)
				}
				measureParallel(b, 8, run)
			})
		}
	}
}

// BenchmarkClientCluster measures get and set of the workloads' SMALL and
// LARGE Compact values, and equality lookups through a sorted index,
// through the smart client against 1, 2 and 3 member processes, 8
// concurrent callers, 10 000 keys. With backup-count 1, every set on 2 or
// 3 members also waits for its backup; a lookup on 2 or 3 members asks
// every owner for its partitions at once. All processes share the
// machine's cores (Hazelcast's published figures are for 2 members and a
// client on 2 cores). Besides the client's allocs/op it reports the CPU
// time each operation cost the client and the members, and the members'
// allocations (memberCosts).
//
//	go test -run '^$' -bench ClientCluster -benchtime 5s ./pkg/client/
func BenchmarkClientCluster(b *testing.B) {
	for _, members := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("members=%d", members), func(b *testing.B) {
			cluster := testcluster.Start(b, testcluster.Process, members, testcluster.Options{})
			cluster.WaitStable(1, 2*time.Minute)
			ctx := context.Background()
			cl, err := client.New(ctx, client.Config{Addresses: cluster.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			b.Run("small", func(b *testing.B) {
				benchGetSet(b, cluster, client.GetMap[int32, *benchmodel.Small](cl, "small"), benchmodel.SmallForKey)
			})
			b.Run("large", func(b *testing.B) {
				benchGetSet(b, cluster, client.GetMap[int32, *benchmodel.Large](cl, "large"), benchmodel.LargeForKey)
			})
			b.Run("small/lookup", func(b *testing.B) {
				benchLookup(b, cluster, client.GetMap[int32, *benchmodel.Small](cl, "lookup"))
			})
		})
	}
}

// benchLookup fills m with 10 000 SMALL values, adds a sorted index on
// intField and measures equality lookups through it (workload A5's shape:
// a query whose answer comes from the index, a row or a few), with the
// Predicate API (BenchmarkClientCluster).
func benchLookup(b *testing.B, cluster *testcluster.Cluster, m *client.Map[int32, *benchmodel.Small]) {
	const keys = 10_000
	ctx := context.Background()
	batch := make([]client.Entry[int32, *benchmodel.Small], 0, 500)
	ints := make([]int32, keys)
	for k := int32(0); k < keys; k++ {
		v := benchmodel.SmallForKey(k)
		ints[k] = v.IntField
		batch = append(batch, client.Entry[int32, *benchmodel.Small]{Key: k, Value: &v})
		if len(batch) == cap(batch) {
			if err := m.PutAll(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := m.AddIndex(ctx, client.IndexConfig{Type: client.IndexSorted, Attributes: []string{"intField"}}); err != nil {
		b.Fatal(err)
	}
	memberCosts(b, cluster, func() {
		measureParallel(b, 8, func(r *rand.Rand) error {
			want := ints[r.Int32N(keys)]
			es, err := m.EntrySetWithPredicate(ctx, predicate.Equal("intField", want))
			if err == nil && len(es) == 0 {
				err = fmt.Errorf("intField = %d: no entry, want at least one", want)
			}
			return err
		})
	})
}

// benchGetSet fills m with 10 000 values and measures gets and sets of
// them (BenchmarkClientCluster).
func benchGetSet[V any](b *testing.B, cluster *testcluster.Cluster, m *client.Map[int32, *V], valueOf func(int32) V) {
	const keys = 10_000
	ctx := context.Background()
	batch := make([]client.Entry[int32, *V], 0, 500)
	for k := int32(0); k < keys; k++ {
		v := valueOf(k)
		batch = append(batch, client.Entry[int32, *V]{Key: k, Value: &v})
		if len(batch) == cap(batch) {
			if err := m.PutAll(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	fixed := valueOf(7)
	b.Run("get", func(b *testing.B) {
		memberCosts(b, cluster, func() {
			measureParallel(b, 8, func(r *rand.Rand) error {
				_, _, err := m.Get(ctx, r.Int32N(keys))
				return err
			})
		})
	})
	b.Run("set", func(b *testing.B) {
		memberCosts(b, cluster, func() {
			measureParallel(b, 8, func(r *rand.Rand) error { return m.Set(ctx, r.Int32N(keys), &fixed) })
		})
	})
}

// memberCosts runs measure and reports what each operation cost in CPU
// and allocations: cpu-µs/op of this process (the client) and
// member-cpu-µs/op of all members (process CPU time, less than the load
// of the machine moves than throughput), and member-allocs/op (the
// objects all members allocated meanwhile, from their Go runtime's
// counter), less what scraping their metrics costs (measured by a scrape
// just before) and less what the members allocate when no call arrives
// (member-idle-allocs/s, measured over idleWindow before: the work of
// every second, such as the partition table's exchange with the
// coordinator, which does not grow with the calls).
func memberCosts(b *testing.B, cluster *testcluster.Cluster, measure func()) {
	counters := func() (mallocs, cpu float64) {
		for _, n := range cluster.Live() {
			fams, err := n.Metrics(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			for name, sum := range map[string]*float64{"go_memstats_mallocs_total": &mallocs, "process_cpu_seconds_total": &cpu} {
				f := fams[name]
				if f == nil || len(f.Metric) == 0 {
					b.Fatalf("a member's metrics have no %s", name)
				}
				m := f.Metric[0]
				if m.GetCounter() != nil {
					*sum += m.GetCounter().GetValue()
				} else {
					*sum += m.GetGauge().GetValue()
				}
			}
		}
		return mallocs, cpu
	}
	first, _ := counters()
	second, _ := counters()
	scrape := second - first
	time.Sleep(idleWindow) // a measurement of the members at rest, not a wait for a condition
	before, cpuBefore := counters()
	idle := max(before-second-scrape, 0) / idleWindow.Seconds()
	self := processCPU(b)
	start := time.Now()
	measure()
	elapsed := time.Since(start)
	self = processCPU(b) - self
	after, cpuAfter := counters()
	b.ReportMetric(idle, "member-idle-allocs/s")
	b.ReportMetric(max(after-before-scrape-idle*elapsed.Seconds(), 0)/float64(b.N), "member-allocs/op")
	b.ReportMetric((cpuAfter-cpuBefore)*1e6/float64(b.N), "member-cpu-µs/op")
	b.ReportMetric(self.Seconds()*1e6/float64(b.N), "cpu-µs/op")
}

// idleWindow is how long memberCosts watches the members at rest: a few
// of their once-a-second tasks.
const idleWindow = 3 * time.Second

// processCPU returns the CPU time this process used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureParallel runs op from callers goroutines for b.N operations in
// all and reports ops/s and p50/p99 latency.
func measureParallel(b *testing.B, callers int, op func(*rand.Rand) error) {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	remaining := b.N
	var remMu sync.Mutex
	take := func() bool {
		remMu.Lock()
		defer remMu.Unlock()
		if remaining == 0 {
			return false
		}
		remaining--
		return true
	}
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, seed))
			local := make([]time.Duration, 0, b.N/callers+1)
			for take() {
				t0 := time.Now()
				if err := op(r); err != nil {
					b.Error(err)
					return
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}(uint64(c))
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	pct := func(q float64) float64 {
		i := int(q*float64(len(lat))+0.999999) - 1
		return float64(lat[max(i, 0)].Microseconds())
	}
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "ops/s")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
