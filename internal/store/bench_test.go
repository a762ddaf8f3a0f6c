package store

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// benchMap is a map loaded with n Integer-key entries of valueSize bytes,
// with the keys (and their partitions) in random order for lookups.
type benchMap struct {
	m    *Map
	keys [][]byte
	pids []int32
}

func loadBench(b *testing.B, n, valueSize int) *benchMap {
	b.Helper()
	bm := &benchMap{m: newTestMap(b, MapConfig{})}
	value := make([]byte, valueSize)
	for k := range n {
		key := dataKey(nil, k)
		pid := partitionOf(key, bm.m.PartitionCount())
		if err := bm.m.Set(pid, key, fillValue(value, k), Expiry{}); err != nil {
			b.Fatal(err)
		}
		bm.keys = append(bm.keys, key)
		bm.pids = append(bm.pids, pid)
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) {
		bm.keys[i], bm.keys[j] = bm.keys[j], bm.keys[i]
		bm.pids[i], bm.pids[j] = bm.pids[j], bm.pids[i]
	})
	return bm
}

var sink []byte

func BenchmarkGet(b *testing.B) {
	for _, vs := range []int{smallValue, largeValue} {
		bm := loadBench(b, memEntries, vs)
		n := len(bm.keys)
		b.Run(fmt.Sprintf("Get/value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			i := 0
			for b.Loop() {
				sink, _, _ = bm.m.Get(bm.pids[i], bm.keys[i])
				if i++; i == n {
					i = 0
				}
			}
		})
		b.Run(fmt.Sprintf("GetAppend/value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			dst := make([]byte, 0, vs)
			i := 0
			for b.Loop() {
				dst, _, _ = bm.m.GetAppend(dst[:0], bm.pids[i], bm.keys[i])
				if i++; i == n {
					i = 0
				}
			}
			sink = dst
		})
		b.Run(fmt.Sprintf("GetAppendParallel/value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			b.RunParallel(func(pb *testing.PB) {
				dst := make([]byte, 0, vs)
				i := rand.IntN(n)
				for pb.Next() {
					dst, _, _ = bm.m.GetAppend(dst[:0], bm.pids[i], bm.keys[i])
					if i++; i == n {
						i = 0
					}
				}
			})
		})
	}
}

func BenchmarkPut(b *testing.B) {
	for _, vs := range []int{smallValue, largeValue} {
		bm := loadBench(b, memEntries, vs)
		n := len(bm.keys)
		value := fillValue(make([]byte, vs), 7)
		b.Run(fmt.Sprintf("SetUpdateInPlace/value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			i := 0
			for b.Loop() {
				_ = bm.m.Set(bm.pids[i], bm.keys[i], value, Expiry{})
				if i++; i == n {
					i = 0
				}
			}
		})
		b.Run(fmt.Sprintf("PutAppendUpdate/value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			dst := make([]byte, 0, vs)
			i := 0
			for b.Loop() {
				dst, _, _ = bm.m.PutAppend(dst[:0], bm.pids[i], bm.keys[i], value, Expiry{})
				if i++; i == n {
					i = 0
				}
			}
		})
		// Alternating sizes: every write appends and leaves garbage, so
		// this includes compaction.
		other := fillValue(make([]byte, vs+8), 9)
		b.Run(fmt.Sprintf("SetUpdateResize/value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			i := 0
			for b.Loop() {
				v := value
				if i&1 == 0 {
					v = other
				}
				_ = bm.m.Set(bm.pids[i], bm.keys[i], v, Expiry{})
				if i++; i == n {
					i = 0
				}
			}
		})
	}
}

// BenchmarkPutGrowth inserts new keys into an empty map: slab and index
// growth included. Each round of 100 000 inserts uses a fresh map.
func BenchmarkPutGrowth(b *testing.B) {
	for _, vs := range []int{smallValue, largeValue} {
		keys := make([][]byte, memEntries)
		pids := make([]int32, memEntries)
		for k := range keys {
			keys[k] = dataKey(nil, k)
			pids[k] = partitionOf(keys[k], DefaultPartitionCount)
		}
		value := fillValue(make([]byte, vs), 3)
		b.Run(fmt.Sprintf("value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(vs))
			m := newTestMap(b, MapConfig{})
			i := 0
			for b.Loop() {
				if i == memEntries {
					b.StopTimer()
					m, i = newTestMap(b, MapConfig{}), 0
					b.StartTimer()
				}
				_ = m.Set(pids[i], keys[i], value, Expiry{})
				i++
			}
		})
	}
}

// BenchmarkScan scans whole partitions (about 369 entries each) through
// the zero-copy callback, reading every value byte as a filter would.
func BenchmarkScan(b *testing.B) {
	for _, vs := range []int{smallValue, largeValue} {
		bm := loadBench(b, memEntries, vs)
		b.Run(fmt.Sprintf("value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			var entries, sum int
			pid := int32(0)
			for b.Loop() {
				_ = bm.m.Scan(pid, func(v EntryView) bool {
					sum += int(v.Value[len(v.Value)-1])
					entries++
					return true
				})
				if pid++; int(pid) == bm.m.PartitionCount() {
					pid = 0
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(entries), "ns/entry")
			b.ReportMetric(float64(entries)/float64(b.N), "entries/op")
			_ = sum
		})
	}
}

// BenchmarkScanKV is BenchmarkScan through ScanKV, the query engine's scan:
// key and value views only, no metadata, no expiry check for partitions
// whose entries cannot expire.
func BenchmarkScanKV(b *testing.B) {
	for _, vs := range []int{smallValue, largeValue} {
		bm := loadBench(b, memEntries, vs)
		b.Run(fmt.Sprintf("value=%d", vs), func(b *testing.B) {
			b.ReportAllocs()
			var entries, sum int
			pid := int32(0)
			for b.Loop() {
				_ = bm.m.ScanKV(pid, func(_, v []byte) bool {
					sum += int(v[len(v)-1])
					entries++
					return true
				})
				if pid++; int(pid) == bm.m.PartitionCount() {
					pid = 0
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(entries), "ns/entry")
			b.ReportMetric(float64(entries)/float64(b.N), "entries/op")
			_ = sum
		})
	}
}

// BenchmarkReadBandwidth is the machine's ceiling for a scan: one load per
// 64-byte line over 256 MiB (far over any cache), on one goroutine and on
// GOMAXPROCS of them (MB/s). A scan that reads every line of its values
// cannot pass MB/s ÷ its bytes per entry, in millions of entries per
// second.
func BenchmarkReadBandwidth(b *testing.B) {
	const size = 256 << 20
	buf := make([]uint64, size/8)
	for i := range buf {
		buf[i] = uint64(i)
	}
	for _, g := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			b.SetBytes(size)
			sums := make([]uint64, g)
			for b.Loop() {
				var wg sync.WaitGroup
				part := len(buf) / g
				for w := 0; w < g; w++ {
					wg.Add(1)
					go func(words []uint64) {
						defer wg.Done()
						var sum uint64
						for i := 0; i < len(words); i += 8 {
							sum += words[i]
						}
						sums[w] += sum
					}(buf[w*part : (w+1)*part])
				}
				wg.Wait()
			}
			if sums[0] == 1 {
				b.Log(sums)
			}
		})
	}
}

// BenchmarkMemory loads 100 000 entries and reports the owned entry memory
// cost and the Go heap growth per entry, and both above key+value. Run with
// -benchtime=1x.
func BenchmarkMemory(b *testing.B) {
	for _, c := range []struct {
		name  string
		value int
	}{{"SMALL", smallValue}, {"LARGE", largeValue}} {
		b.Run(c.name, func(b *testing.B) { benchMemory(b, memEntries, c.value) })
	}
}

// BenchmarkMemoryByValueSize is the same across value sizes (fewer entries
// for the big ones, at most 400 MB of values).
func BenchmarkMemoryByValueSize(b *testing.B) {
	for _, vs := range []int{20, 55, 200, 446, 1000, 2000, 3000, 5000, 8000, 12000, 20000, 33000, 100000, 300000} {
		b.Run(fmt.Sprintf("value=%d", vs), func(b *testing.B) { benchMemory(b, min(memEntries, 400_000_000/vs), vs) })
	}
}

func benchMemory(b *testing.B, n, valueSize int) {
	var r memResult
	for b.Loop() {
		r = measureMemory(n, valueSize)
	}
	data := float64(keySize + valueSize)
	b.ReportMetric(r.costPerEntry, "B/entry-cost")
	b.ReportMetric(r.heapPerEntry, "B/entry-heap")
	b.ReportMetric(r.costPerEntry-data, "B/entry-cost-overhead")
	b.ReportMetric(r.heapPerEntry-data, "B/entry-heap-overhead")
	runtime.GC()
}
