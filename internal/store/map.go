package store

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// Map is one map's records on one member: PartitionCount independent
// partitions, each with its own lock, so operations on different partitions
// run in parallel. All methods are safe for concurrent use.
//
// Every operation takes the partition id the caller computed from the key
// (the store never interprets key or value bytes; key equality is byte
// equality). The store copies the bytes it is given and returns copies,
// except where a method says it passes views to a callback.
type Map struct {
	cfg   MapConfig
	seed  maphash.Seed
	clock Clock
	// parts holds the partitions that exist (created on first write,
	// parts.go); partsMu serializes their creation.
	parts   atomic.Pointer[partSet]
	partsMu sync.Mutex

	defTTL, defIdle uint32 // map defaults as duration codes; 0 = forever
	defExpiry       bool   // defTTL != 0 || defIdle != 0
	evict           bool   // eviction configured
	// stats is whether every record carries the statistics block (last
	// update and access times, hits): when the map keeps per-entry
	// statistics, or has a default TTL or max-idle, or an eviction policy,
	// all of which read them.
	stats bool

	observer atomic.Pointer[observerBox]
	owned    totals
	backup   totals
	sweepAt  atomic.Uint32 // partition where the next Sweep starts
}

type observerBox struct{ o Observer }

type totals struct {
	count   atomic.Int64
	cost    atomic.Int64
	garbage atomic.Int64
}

// NewMap creates an empty map. It fails with ErrInvalidConfig.
func NewMap(cfg MapConfig) (*Map, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Map{
		cfg:     cfg,
		seed:    maphash.MakeSeed(),
		clock:   cfg.Clock,
		defTTL:  configCode(cfg.TTL),
		defIdle: configCode(cfg.MaxIdle),
	}
	m.parts.Store(&partSet{})
	m.defExpiry = m.defTTL != 0 || m.defIdle != 0
	m.evict = cfg.Eviction.Policy != EvictionNone && (cfg.Eviction.MaxEntries > 0 || cfg.Eviction.MaxBytes > 0)
	m.stats = cfg.PerEntryStats || m.defExpiry || cfg.Eviction.Policy != EvictionNone
	return m, nil
}

// Config returns the map's configuration with defaults filled in.
func (m *Map) Config() MapConfig { return m.cfg }

// PartitionCount returns the number of partitions.
func (m *Map) PartitionCount() int { return m.cfg.PartitionCount }

// SetObserver installs the observer that receives every change (nil
// removes it). Changes in flight may still go to the previous one. With no
// observer, changes cost nothing extra.
func (m *Map) SetObserver(o Observer) {
	if o == nil {
		m.observer.Store(nil)
		return
	}
	m.observer.Store(&observerBox{o})
}

func (m *Map) obs() Observer {
	if b := m.observer.Load(); b != nil {
		return b.o
	}
	return nil
}

func (m *Map) hash(key []byte) uint32 { return uint32(maphash.Bytes(m.seed, key) >> 32) }

func (m *Map) now() instant { return instantOf(m.clock.Now()) }

func (m *Map) totals(r Role) *totals {
	if r == RoleBackup {
		return &m.backup
	}
	return &m.owned
}

// partition returns partition pid if it exists (nil otherwise).
func (m *Map) partition(pid int32) *partition { return m.parts.Load().get(pid) }

// partitionForWrite returns partition pid, creating it. A partition
// created in a map that shares a Directory takes the directory's role for
// it and is listed there, both under the directory's lock of the
// partition, so that a concurrent role change reaches it.
func (m *Map) partitionForWrite(pid int32) *partition {
	if p := m.partition(pid); p != nil {
		return p
	}
	var dp *dirPart
	if d := m.cfg.Directory; d != nil {
		dp = &d.parts[pid]
		dp.mu.Lock()
		defer dp.mu.Unlock()
	}
	m.partsMu.Lock()
	defer m.partsMu.Unlock()
	if p := m.partition(pid); p != nil {
		return p
	}
	np := newPartition(m, pid)
	np.rng ^= uint64(m.hash([]byte{byte(pid), byte(pid >> 8), byte(pid >> 16), byte(pid >> 24)}))
	np.rng |= 1
	if dp != nil {
		np.role = dp.role
		if dp.maps == nil {
			dp.maps = map[*Map]struct{}{}
		}
		dp.maps[m] = struct{}{}
	}
	m.parts.Store(m.parts.Load().with(np, m.cfg.PartitionCount))
	np.mu.Lock()
	np.publish()
	np.mu.Unlock()
	return np
}

// ---- validation ---------------------------------------------------------

func (m *Map) checkPartition(op string, pid int32) error {
	if pid < 0 || int(pid) >= m.cfg.PartitionCount {
		return opErr(op, ErrPartitionRange)
	}
	return nil
}

func (m *Map) checkKey(op string, pid int32, key []byte) error {
	if pid < 0 || int(pid) >= m.cfg.PartitionCount {
		return opErr(op, ErrPartitionRange)
	}
	if len(key) == 0 {
		return opErr(op, ErrInvalidKey)
	}
	if len(key) > m.cfg.MaxKeySize {
		return tooLarge(op, "key", len(key), m.cfg.MaxKeySize, "MapConfig.MaxKeySize")
	}
	return nil
}

func (m *Map) checkValue(op string, value []byte) error {
	if len(value) == 0 {
		return opErr(op, ErrInvalidValue)
	}
	if len(value) > m.cfg.MaxValueSize {
		return tooLarge(op, "value", len(value), m.cfg.MaxValueSize, "MapConfig.MaxValueSize")
	}
	return nil
}

// ---- expiry -----------------------------------------------------------

// limits returns a record's effective TTL and max-idle codes (0 = none).
func (m *Map) limits(b []byte, r *rec) (ttl, idle uint32) {
	ttl, idle = m.defTTL, m.defIdle
	i := r.opt
	if r.flags&flagTTL != 0 {
		ttl = leU32(b[i:])
		i += 4
	}
	if r.flags&flagMaxIdle != 0 {
		idle = leU32(b[i:])
	}
	return ttl, idle
}

func (m *Map) canExpire(b []byte, r *rec) bool {
	if r.flags&flagsExpiry == 0 {
		return m.defExpiry
	}
	ttl, idle := m.limits(b, r)
	return ttl != 0 || idle != 0
}

func (m *Map) metaCanExpire(mt *meta) bool {
	ttl, idle := m.defTTL, m.defIdle
	if mt.flags&flagTTL != 0 {
		ttl = mt.ttl
	}
	if mt.flags&flagMaxIdle != 0 {
		idle = mt.maxIdle
	}
	return ttl != 0 || idle != 0
}

// deadline is the Unix millisecond at which a record expires; ok is false
// if it never does. TTL counts from the last write, max-idle from the last
// access (both stored rounded up to the second).
func (m *Map) deadline(b []byte, r *rec) (ms int64, ok bool) {
	if r.flags&flagsExpiry == 0 && !m.defExpiry {
		return 0, false
	}
	ttl, idle := m.limits(b, r)
	if ttl != 0 {
		ms, ok = msOf(r.u32(b, offUpdated))+codeMs(ttl), true
	}
	if idle != 0 {
		if d := msOf(r.u32(b, offAccessed)) + codeMs(idle); !ok || d < ms {
			ms, ok = d, true
		}
	}
	return ms, ok
}

func (m *Map) expired(b []byte, r *rec, nowMs int64) bool {
	d, ok := m.deadline(b, r)
	return ok && nowMs >= d
}

// view builds an EntryView over the record (views, not copies).
func (m *Map) view(b []byte, r *rec) EntryView {
	mt := r.meta(b)
	v := EntryView{Key: r.key(b), Value: r.value(b), EntryMeta: entryMeta(&mt)}
	if d, ok := m.deadline(b, r); ok {
		v.ExpirationTime = d
	}
	return v
}

func entryMeta(mt *meta) EntryMeta {
	return EntryMeta{
		Version:        mt.version,
		Hits:           mt.hits,
		CreationTime:   msOf(mt.created),
		LastUpdateTime: msOrZero(mt.updated),
		LastAccessTime: msOrZero(mt.accessed),
		Expiry:         mt.expiry(),
	}
}

// msOrZero is msOf for the statistics fields, 0 standing for "not kept".
func msOrZero(sec uint32) int64 {
	if sec == 0 {
		return 0
	}
	return msOf(sec)
}

func leU32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
