package store

import (
	"encoding/binary"
	"hash/fnv"
	"sync"
	"testing"
	"time"
)

// manualClock is an injectable clock that only moves when told to.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newManualClock() *manualClock {
	return &manualClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// dataKey appends a Hazelcast-style serialized Integer key (Data: 4-byte
// partition hash, 4-byte type id -7, 4-byte big-endian int32): 12 bytes.
func dataKey(dst []byte, k int) []byte {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:], uint32(k)*0x9E3779B1)
	binary.BigEndian.PutUint32(b[4:], uint32(0xFFFFFFF9)) // -7
	binary.BigEndian.PutUint32(b[8:], uint32(k))
	return append(dst, b[:]...)
}

// partitionOf spreads keys over n partitions by hash (binomially, like a
// real key set), not round robin.
func partitionOf(key []byte, n int) int32 {
	h := fnv.New32a()
	h.Write(key)
	return int32(h.Sum32() % uint32(n))
}

// fillValue writes deterministic pseudo-random bytes for entry k.
func fillValue(dst []byte, k int) []byte {
	x := uint64(k)*0x9E3779B97F4A7C15 + 1
	for i := range dst {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		dst[i] = byte(x)
	}
	return dst
}

func newTestMap(t testing.TB, cfg MapConfig) *Map {
	t.Helper()
	m, err := NewMap(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustSet(t testing.TB, m *Map, pid int32, k, v string) {
	t.Helper()
	if err := m.Set(pid, []byte(k), []byte(v), Expiry{}); err != nil {
		t.Fatal(err)
	}
}

func mustGet(t testing.TB, m *Map, pid int32, k string) (string, bool) {
	t.Helper()
	v, ok, err := m.Get(pid, []byte(k))
	if err != nil {
		t.Fatal(err)
	}
	return string(v), ok
}

// pattern is pseudo-random bytes; patternValue slices it, so tests get
// varied values without filling them byte by byte (slow under -race).
var pattern = fillValue(make([]byte, 1<<20), 12345)

func patternValue(seed, size int) []byte {
	off := seed * 7919 % (len(pattern) - size + 1)
	return pattern[off : off+size : off+size]
}
