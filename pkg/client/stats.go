package client

import (
	"context"
	"sync/atomic"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// counters are the client's own call statistics.
type counters struct {
	calls, retries, failures atomic.Int64
	// Transactions committed, run again after a conflict, and failed
	// with a conflict once their attempts were spent.
	txCommits, txRetries, txConflicts atomic.Int64
}

// Stats are the client's statistics since it was created.
type Stats struct {
	// Calls counts map and metadata calls; Retries the extra attempts they
	// took; Failures the calls that returned an error.
	Calls, Retries, Failures int64
	// Connections is the number of open member connections.
	Connections int
	// Transactions committed, run again after a conflict
	// (RunInTransaction), and failed with a conflict once their attempts
	// were spent.
	TxCommits, TxRetries, TxConflicts int64
	// Near cache counters, summed over every near cache.
	NearCacheHits, NearCacheMisses, NearCacheInvalidations int64
	NearCacheEntries                                       int64
}

// Stats returns the client's statistics.
func (c *Client) Stats() Stats {
	st := Stats{Calls: c.stats.calls.Load(), Retries: c.stats.retries.Load(), Failures: c.stats.failures.Load(),
		TxCommits: c.stats.txCommits.Load(), TxRetries: c.stats.txRetries.Load(), TxConflicts: c.stats.txConflicts.Load()}
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

// reported are the cumulative counters of the last report a member
// accepted; reports carry the increments since.
type reported struct {
	calls, retries, failures          int64
	txCommits, txRetries, txConflicts int64
	near                              map[string]nearCounters
}

type nearCounters struct{ hits, misses, invalidations int64 }

// reportStatistics sends the client's statistics to one member every
// StatisticsInterval; members export them as metrics.
func (c *Client) reportStatistics() {
	defer c.bg.Done()
	t := time.NewTicker(c.cfg.StatisticsInterval)
	defer t.Stop()
	last := reported{near: map[string]nearCounters{}}
	var to string // the member that took the last report: reports stay there while it is connected
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		req, cur := c.statistics(last)
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.StatisticsInterval)
		c.mu.Lock()
		cn := c.conns[to]
		c.mu.Unlock()
		var err error
		if cn == nil || !cn.usable() {
			cn, err = c.anyConn(ctx)
		}
		if err == nil {
			if _, err = cn.cluster.PushClientStatistics(ctx, req); err == nil {
				cn.seen()
			}
		}
		cancel()
		if err != nil {
			c.log.Debug("reporting statistics failed", "err", err)
			continue
		}
		last, to = cur, cn.addr
	}
}

// statistics builds a report of the increments since last, and the
// cumulative counters it is based on.
func (c *Client) statistics(last reported) (*pb.ClientStatistics, reported) {
	st := c.Stats()
	cur := reported{calls: st.Calls, retries: st.Retries, failures: st.Failures, near: map[string]nearCounters{},
		txCommits: st.TxCommits, txRetries: st.TxRetries, txConflicts: st.TxConflicts}
	req := &pb.ClientStatistics{
		ClientUuid: c.uuid, ClientType: "go", ClientVersion: Version, IntervalMs: c.cfg.StatisticsInterval.Milliseconds(),
		Calls: cur.calls - last.calls, Retries: cur.retries - last.retries, Failures: cur.failures - last.failures,
		Connections:        int32(st.Connections),
		TransactionCommits: cur.txCommits - last.txCommits, TransactionRetries: cur.txRetries - last.txRetries,
		TransactionConflicts: cur.txConflicts - last.txConflicts,
	}
	c.near.mu.Lock()
	for name, nc := range c.near.byMap {
		n := nearCounters{hits: nc.hits.Load(), misses: nc.misses.Load(), invalidations: nc.invalidations.Load()}
		cur.near[name] = n
		prev := last.near[name]
		req.NearCaches = append(req.NearCaches, &pb.NearCacheStatistics{
			Map: name, Hits: n.hits - prev.hits, Misses: n.misses - prev.misses, Invalidations: n.invalidations - prev.invalidations,
			Entries: int64(nc.cache.Metrics.KeysAdded() - nc.cache.Metrics.KeysEvicted()),
		})
	}
	c.near.mu.Unlock()
	return req, cur
}
