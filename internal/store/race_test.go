package store

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many goroutines mix every operation, sweeps, scans, exports, imports,
// role changes and drops on a few partitions. Run with -race. The op counts
// are fixed (no timing), so a loaded machine only makes it slower.
func TestConcurrentMix(t *testing.T) {
	clk := newManualClock()
	m := newTestMap(t, MapConfig{PartitionCount: 4, Clock: clk, MaxIdle: 30 * time.Second,
		Eviction: EvictionConfig{Policy: EvictionLFU, MaxEntries: 300}})
	replica := newTestMap(t, MapConfig{PartitionCount: 4, Clock: clk})
	var events atomic.Int64
	m.SetObserver(ObserverFunc(func(e Event) {
		events.Add(1)
		_ = append([]byte(nil), e.Key...) // observers copy what they keep
	}))
	const workers, ops = 8, 2500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			dst := make([]byte, 0, 4096)
			for i := range ops {
				pid := int32(r.IntN(4))
				k := []byte(fmt.Sprint("k", r.IntN(200)))
				v := make([]byte, 1+r.IntN(3000))
				v[0] = byte(i)
				var err error
				switch r.IntN(24) {
				case 0, 1, 2:
					err = m.Set(pid, k, v, Expiry{})
				case 3:
					_, _, err = m.Put(pid, k, v, Expiry{TTL: time.Duration(1+r.IntN(5)) * time.Second})
				case 4:
					_, _, err = m.PutIfAbsent(pid, k, v, Expiry{})
				case 5:
					_, _, err = m.Replace(pid, k, v)
				case 6:
					_, err = m.ReplaceIfSame(pid, k, v, v)
				case 7, 8, 9:
					dst, _, err = m.GetAppend(dst[:0], pid, k)
				case 10:
					_, err = m.ContainsKey(pid, k)
				case 11:
					_, _, err = m.Remove(pid, k)
				case 12:
					_, err = m.Evict(pid, k)
				case 13:
					err = m.PutAll(pid, []Entry{{k, v}, {append(k, 'x'), v[:1]}}, Expiry{})
				case 14:
					err = m.GetAll(pid, [][]byte{k, []byte("k1")}, func(int, []byte) {})
				case 15:
					err = m.Scan(pid, func(v EntryView) bool { return len(v.Value) > 0 })
				case 16:
					c := Cursor(0)
					for c != CursorDone && err == nil {
						c, err = m.Iterate(pid, c, 16, func(EntryView) bool { return true })
					}
				case 17:
					var chunk []byte
					chunk, _, err = m.ExportAppend(nil, pid, 0, 8192)
					if err == nil {
						_, err = replica.Import(pid, chunk)
					}
				case 18:
					m.Sweep(64)
				case 19:
					_ = m.Stats()
				case 20:
					role := RoleOwner
					if r.IntN(2) == 0 {
						role = RoleBackup
					}
					err = m.SetRole(pid, role)
				case 21:
					if r.IntN(20) == 0 {
						err = m.DropPartition(pid)
					} else {
						_, err = m.SetTTL(pid, k, time.Second)
					}
				case 22:
					_, _, err = m.SetIfVersion(pid, k, v, uint32(r.IntN(3)), Expiry{})
				case 23:
					if w == 0 {
						clk.Advance(time.Second)
					}
					_, _, err = m.GetEntryView(pid, k)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkInvariants(t, m)
	checkInvariants(t, replica)
	if events.Load() == 0 {
		t.Fatal("no events")
	}
	var n int64
	for pid := range int32(4) {
		c, _ := m.PartitionSize(pid)
		n += int64(c)
	}
	st := m.Stats()
	if st.OwnedEntryCount+st.BackupEntryCount != n {
		t.Fatalf("stats count %d+%d, partitions hold %d", st.OwnedEntryCount, st.BackupEntryCount, n)
	}
}
