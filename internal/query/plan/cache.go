package plan

import (
	"strconv"
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/atolldb/atoll/internal/query/expr"
)

// Cache holds physical plans by statement key: the normalized statement
// (SQL text, or a predicate query's shape with its values as parameters),
// the parameter types and the catalog version. A plan cached under an
// older catalog version is never returned, and the whole cache is dropped
// when the version moves, so a changed mapping or a new index takes effect
// on the next query. Safe for concurrent use.
type Cache struct {
	c       *ristretto.Cache[string, *Physical]
	version atomic.Uint64
	hits    atomic.Int64
	misses  atomic.Int64
}

// NewCache returns a cache of at most size plans.
func NewCache(size int64) (*Cache, error) {
	if size <= 0 {
		size = 10000
	}
	c, err := ristretto.NewCache(&ristretto.Config[string, *Physical]{
		NumCounters:        size * 10,
		MaxCost:            size,
		BufferItems:        64,
		IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, err
	}
	return &Cache{c: c}, nil
}

// Key builds a cache key.
func Key(kind, text string, params []expr.Type, version uint64) string {
	b := make([]byte, 0, len(text)+len(kind)+len(params)+24)
	b = append(b, kind...)
	b = append(b, 0)
	b = append(b, text...)
	b = append(b, 0)
	for _, t := range params {
		b = append(b, byte(t)+'A')
	}
	b = append(b, 0)
	b = strconv.AppendUint(b, version, 36)
	return string(b)
}

// Get returns the plan cached under key for the catalog version.
func (c *Cache) Get(key string, version uint64) (*Physical, bool) {
	p, ok := c.Peek(key, version)
	if !ok && c != nil {
		c.misses.Add(1)
	}
	return p, ok
}

// Peek is Get for a caller that leaves a plan not cached to be made
// elsewhere: a hit counts, a miss is left for the planning to count.
func (c *Cache) Peek(key string, version uint64) (*Physical, bool) {
	if c == nil {
		return nil, false
	}
	c.sync(version)
	p, ok := c.c.Get(key)
	if ok {
		c.hits.Add(1)
	}
	return p, ok
}

// Put caches a plan. Like ristretto's Set it may drop the plan under load.
func (c *Cache) Put(key string, version uint64, p *Physical) {
	if c == nil {
		return
	}
	c.sync(version)
	c.c.Set(key, p, 1)
}

// Wait makes preceding Puts visible (tests).
func (c *Cache) Wait() { c.c.Wait() }

// Stats returns the hit and miss counts.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// sync drops every plan when the catalog version moves.
func (c *Cache) sync(version uint64) {
	if old := c.version.Load(); old != version {
		if c.version.CompareAndSwap(old, version) {
			c.c.Clear()
		}
	}
}

// Stale reports whether a cached plan was made for map sizes far from the
// current ones (a factor of 8 either way): its join build sides and
// strategies may no longer fit, so the statement is planned again.
func Stale(p *Physical, stats Stats) bool {
	if stats == nil {
		return false
	}
	for m, was := range p.Estimates {
		now := stats.EntryCount(m)
		if now < 0 {
			continue
		}
		if now > 8*was+64 || was > 8*now+64 {
			return true
		}
	}
	return false
}

// Close releases the cache's goroutines.
func (c *Cache) Close() {
	if c != nil {
		c.c.Close()
	}
}
