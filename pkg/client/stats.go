package client

import "sync/atomic"

// counters are the client's own call statistics.
type counters struct {
	calls, retries, failures atomic.Int64
}

// Stats are the client's statistics since it was created.
type Stats struct {
	// Calls counts map and metadata calls; Retries the extra attempts they
	// took; Failures the calls that returned an error.
	Calls, Retries, Failures int64
	// Connections is the number of open member connections.
	Connections int
	// Near cache counters, summed over every near cache.
	NearCacheHits, NearCacheMisses, NearCacheInvalidations int64
	NearCacheEntries                                       int64
}

// Stats returns the client's statistics.
func (c *Client) Stats() Stats {
	st := Stats{Calls: c.stats.calls.Load(), Retries: c.stats.retries.Load(), Failures: c.stats.failures.Load()}
	c.mu.Lock()
	for _, cn := range c.conns {
		if cn.usable() {
			st.Connections++
		}
	}
	c.mu.Unlock()
	st.NearCacheHits, st.NearCacheMisses, st.NearCacheInvalidations, st.NearCacheEntries = c.near.stats()
	return st
}
