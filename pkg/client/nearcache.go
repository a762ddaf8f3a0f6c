package client

import (
	"context"
	"hash/maphash"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// NearCacheConfig configures a near cache: a client-side cache of a map's
// values, invalidated by the members' change events.
type NearCacheConfig struct {
	// MaxEntries bounds the cache; default 10 000. Entries beyond it are
	// evicted by TinyLFU admission and sampled LFU eviction (ristretto).
	MaxEntries int64
	// TTL bounds how long an entry is served; 0 means until invalidated.
	TTL time.Duration
	// CacheObjects keeps deserialized values (faster hits, but callers must
	// not modify what Get returns). By default serialized values are kept
	// and decoded on every hit, as Hazelcast's BINARY format does.
	CacheObjects bool
}

// nearCaches owns the client's near caches, one per configured map.
type nearCaches struct {
	c     *Client
	mu    sync.Mutex
	byMap map[string]*nearCache
}

func (n *nearCaches) init(c *Client) {
	n.c = c
	n.byMap = map[string]*nearCache{}
}

// configFor returns the near cache configuration of a map, if any.
func (n *nearCaches) configFor(name string) (NearCacheConfig, bool) {
	cfgs := n.c.cfg.NearCaches
	if cfg, ok := cfgs[name]; ok {
		return cfg, true
	}
	best, bestLen := NearCacheConfig{}, -1
	for pattern, cfg := range cfgs {
		if strings.Contains(pattern, "*") {
			if ok, _ := path.Match(pattern, name); ok && len(pattern) > bestLen {
				best, bestLen = cfg, len(pattern)
			}
		}
	}
	return best, bestLen >= 0
}

// forMap returns the map's near cache, creating it on first use, or nil.
func (n *nearCaches) forMap(name string) *nearCache {
	cfg, ok := n.configFor(name)
	if !ok {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if nc := n.byMap[name]; nc != nil {
		return nc
	}
	nc, err := newNearCache(n.c, name, cfg)
	if err != nil {
		n.c.log.Warn("near cache disabled", "map", name, "err", err)
		return nil
	}
	n.byMap[name] = nc
	return nc
}

// reset empties every near cache (events may have been missed).
func (n *nearCaches) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, nc := range n.byMap {
		nc.clear()
	}
}

func (n *nearCaches) close() {
	n.mu.Lock()
	caches := n.byMap
	n.byMap = map[string]*nearCache{}
	n.mu.Unlock()
	for _, nc := range caches {
		nc.close()
	}
}

// stats sums the near caches' counters.
func (n *nearCaches) stats() (hits, misses, invalidations, entries int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, nc := range n.byMap {
		hits += nc.hits.Load()
		misses += nc.misses.Load()
		invalidations += nc.invalidations.Load()
		entries += int64(nc.cache.Metrics.KeysAdded() - nc.cache.Metrics.KeysEvicted())
	}
	return
}

// nearStripes is the number of invalidation counters keys hash into.
const nearStripes = 1 << 12

// nearCache caches one map's values. Staleness is prevented with
// invalidation counters: a key's stripe counter grows on every
// invalidation, an entry remembers the counter (and the cache epoch) it was
// fetched under, and is served only while both are unchanged. So a value
// fetched before an invalidation can never be served after it, even when
// its insertion lands late; collisions in the stripes only cost misses.
type nearCache struct {
	c       *Client
	cfg     NearCacheConfig
	cache   *ristretto.Cache[[]byte, nearEntry]
	seed    maphash.Seed
	stripes [nearStripes]atomic.Uint64
	epoch   atomic.Uint64
	// sub is the invalidation listener, once every member confirmed it;
	// coveredTable is the partition table version for which every member
	// of the table has a confirmed stream (-1: not known to). Entries are
	// cached and served only while that holds, so that no invalidation can
	// be missed: not while a member's stream is broken, nor while a member
	// that just joined has none yet.
	sub          atomic.Pointer[subscription]
	coveredTable atomic.Int64
	coverMu      sync.Mutex // orders updates of coveredTable

	hits, misses, invalidations atomic.Int64
	stop                        context.CancelFunc
	done                        chan struct{}
}

type nearEntry struct {
	data   []byte // serialized value
	obj    any    // deserialized value with CacheObjects
	seq    uint64
	epoch  uint64
	stored time.Time
}

// reservation records the invalidation state before a remote read.
type reservation struct{ seq, epoch uint64 }

func newNearCache(c *Client, name string, cfg NearCacheConfig) (*nearCache, error) {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 10000
	}
	cache, err := ristretto.NewCache(&ristretto.Config[[]byte, nearEntry]{
		NumCounters:        cfg.MaxEntries * 10,
		MaxCost:            cfg.MaxEntries,
		BufferItems:        64,
		IgnoreInternalCost: true,
		Metrics:            true,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	nc := &nearCache{c: c, cfg: cfg, cache: cache, seed: maphash.MakeSeed(), stop: cancel, done: make(chan struct{})}
	nc.coveredTable.Store(-1)
	go nc.listen(ctx, name)
	return nc, nil
}

// listen subscribes to the map's events (without values) and invalidates.
func (nc *nearCache) listen(ctx context.Context, name string) {
	defer close(nc.done)
	r := nc.c.retrier()
	for ctx.Err() == nil {
		sub, err := nc.c.subscribe(ctx, &pb.ListenRequest{Map: name}, func(_ string, b *pb.EntryEventBatch) {
			if b.Dropped > 0 {
				nc.clear()
			}
			for _, e := range b.Events {
				if e.Type == pb.EntryEventType_ENTRY_EVENT_TYPE_CLEARED {
					nc.clear()
				} else {
					nc.invalidate(e.Key)
				}
			}
		}, func(string) {
			nc.coverMu.Lock()
			nc.coveredTable.Store(-1)
			nc.coverMu.Unlock()
			nc.clear()
		})
		if err == nil {
			nc.sub.Store(sub)
			<-ctx.Done()
			sub.close()
			return
		}
		_ = r.wait(ctx, 0) // the loop ends when ctx does
	}
}

func (nc *nearCache) stripe(key []byte) *atomic.Uint64 {
	return &nc.stripes[maphash.Bytes(nc.seed, key)%nearStripes]
}

// covered reports whether every member of the current partition table has
// a confirmed invalidation stream.
func (nc *nearCache) covered() bool {
	rt := nc.c.routing.Load()
	if rt == nil {
		return false
	}
	if nc.coveredTable.Load() == rt.version {
		return true
	}
	nc.coverMu.Lock()
	defer nc.coverMu.Unlock()
	sub := nc.sub.Load()
	if sub == nil || !sub.covers(rt.members) {
		return false
	}
	nc.coveredTable.Store(rt.version)
	return true
}

// get returns a cached entry that is still valid.
func (nc *nearCache) get(key []byte) (nearEntry, bool) {
	e, ok := nc.cache.Get(key)
	if !ok || !nc.covered() || e.epoch != nc.epoch.Load() || e.seq != nc.stripe(key).Load() ||
		(nc.cfg.TTL > 0 && time.Since(e.stored) > nc.cfg.TTL) {
		nc.misses.Add(1)
		return nearEntry{}, false
	}
	nc.hits.Add(1)
	return e, true
}

// reserve captures the invalidation state before a remote read.
func (nc *nearCache) reserve(key []byte) reservation {
	return reservation{seq: nc.stripe(key).Load(), epoch: nc.epoch.Load()}
}

// put caches a value read remotely under reservation r, unless the key was
// invalidated since.
func (nc *nearCache) put(key, data []byte, obj any, r reservation) {
	if !nc.covered() || r.seq != nc.stripe(key).Load() || r.epoch != nc.epoch.Load() {
		return
	}
	e := nearEntry{data: data, seq: r.seq, epoch: r.epoch, stored: time.Now()}
	if nc.cfg.CacheObjects {
		e.data, e.obj = nil, obj
	}
	nc.cache.Set(key, e, 1)
}

func (nc *nearCache) invalidate(key []byte) {
	nc.stripe(key).Add(1)
	nc.cache.Del(key)
	nc.invalidations.Add(1)
}

func (nc *nearCache) clear() {
	nc.epoch.Add(1)
	nc.cache.Clear()
	nc.invalidations.Add(1)
}

func (nc *nearCache) close() {
	nc.stop()
	<-nc.done
	nc.cache.Close()
}
