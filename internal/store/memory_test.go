package store

import (
	"fmt"
	"runtime"
	"testing"
)

// Workload B sizes: Integer key Data (12 B); COMPACT SMALL / LARGE value
// Data (55 B / 446 B). See bench/WORKLOADS.md.
const (
	memEntries  = 100_000
	keySize     = 12
	smallValue  = 55
	largeValue  = 446
	maxOverhead = 32 // bytes per entry above key+value, for cost and heap
)

// valueSizes are the serialized value sizes of the eight workload B kinds
// as atoll-bench reports them (valueDataTotalSize): IDENTIFIED, COMPACT and BYTE_ARRAY SMALL, PORTABLE
// SMALL, IDENTIFIED LARGE, BYTE_ARRAY LARGE, COMPACT LARGE, PORTABLE LARGE.
var valueSizes = []int{51, smallValue, 133, 357, 361, largeValue, 1034}

type memResult struct {
	costPerEntry, heapPerEntry float64
}

// measureMemory loads n entries with the given value size into a new map
// (271 partitions) and returns the reported owned memory cost per entry and
// the Go heap growth per entry (HeapAlloc after runtime.GC, before creating
// the map and after loading).
func measureMemory(n, valueSize int) memResult {
	key := make([]byte, 0, keySize)
	value := make([]byte, valueSize)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := NewMap(MapConfig{})
	if err != nil {
		panic(err)
	}
	for k := range n {
		key = dataKey(key[:0], k)
		if err := m.Set(partitionOf(key, m.PartitionCount()), key, fillValue(value, k), Expiry{}); err != nil {
			panic(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := m.Stats()
	runtime.KeepAlive(m)
	return memResult{
		costPerEntry: float64(st.OwnedEntryMemoryCost) / float64(st.OwnedEntryCount),
		heapPerEntry: float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n),
	}
}

func TestMemoryPerEntry(t *testing.T) {
	for _, value := range valueSizes {
		t.Run(fmt.Sprintf("value=%d", value), func(t *testing.T) {
			r := measureMemory(memEntries, value)
			data := float64(keySize + value)
			t.Logf("key+value %.0f B, cost %.1f B/entry (+%.1f), heap %.1f B/entry (+%.1f)",
				data, r.costPerEntry, r.costPerEntry-data, r.heapPerEntry, r.heapPerEntry-data)
			if r.costPerEntry-data > maxOverhead {
				t.Errorf("owned cost overhead %.1f B/entry, want <= %d", r.costPerEntry-data, maxOverhead)
			}
			if r.heapPerEntry-data > maxOverhead {
				t.Errorf("heap overhead %.1f B/entry, want <= %d", r.heapPerEntry-data, maxOverhead)
			}
		})
	}
}
