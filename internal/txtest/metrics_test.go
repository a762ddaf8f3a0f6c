package txtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// metricSum sums a counter or gauge over the live members, for the series
// whose labels include every pair of match.
func metricSum(t *testing.T, cluster *testcluster.Cluster, name string, match map[string]string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	total := 0.0
	for _, n := range cluster.Live() {
		fams, err := n.Metrics(ctx)
		require.NoError(t, err)
		f := fams[name]
		if f == nil {
			continue
		}
	series:
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range match {
				if labels[k] != v {
					continue series
				}
			}
			switch {
			case m.Counter != nil:
				total += m.Counter.GetValue()
			case m.Gauge != nil:
				total += m.Gauge.GetValue()
			case m.Histogram != nil:
				total += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return total
}

// TestTransactionMetrics makes each event the transaction metrics count
// happen on two member processes and reads the counts from /metrics.
func TestTransactionMetrics(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.Process, 2, testcluster.Options{ConfigYAML: "locks: {sweep-interval: 200ms}\n"})
	cluster.WaitStable(1, time.Minute)
	ctx := ctxT(t)
	cfg := client.Config{Addresses: cluster.Addrs(), ClusterName: "test", StatisticsInterval: 200 * time.Millisecond}
	c, err := client.New(ctx, cfg)
	require.NoError(t, err)
	defer c.Close()
	other := connect(t, cluster, time.Minute)
	m := client.GetMap[string, int64](c, "metered")
	require.NoError(t, m.Set(ctx, "a", 1))
	require.NoError(t, m.Set(ctx, "b", 1))

	// Commits: two phases (two keys) and one phase (one key).
	require.NoError(t, c.RunInTransaction(ctx, func(tx *client.Tx) error {
		tm := client.TxMap[string, int64](tx, "metered")
		if err := tm.Set(ctx, "a", 2); err != nil {
			return err
		}
		return tm.Set(ctx, "b", 2)
	}))
	require.NoError(t, c.RunInTransaction(ctx, func(tx *client.Tx) error {
		return client.TxMap[string, int64](tx, "metered").Set(ctx, "a", 3)
	}))
	// A conflict of a changed key, which the client retries.
	attempt := 0
	require.NoError(t, c.RunInTransaction(ctx, func(tx *client.Tx) error {
		tm := client.TxMap[string, int64](tx, "metered")
		v, _, err := tm.Get(ctx, "a")
		if err != nil {
			return err
		}
		if attempt++; attempt == 1 {
			require.NoError(t, client.GetMap[string, int64](other, "metered").Set(ctx, "a", 100))
		}
		return tm.Set(ctx, "a", v+1)
	}))
	// A conflict of a locked key, and a plain write that waits for a lock.
	require.NoError(t, m.Lock(ctx, "b"))
	err = other.RunInTransaction(ctx, func(tx *client.Tx) error {
		return client.TxMap[string, int64](tx, "metered").Set(ctx, "b", 9)
	}, client.WithTxRetry(client.Backoff{Attempts: 1}))
	require.ErrorIs(t, err, client.ErrConflict)
	done := make(chan error, 1)
	go func() { done <- client.GetMap[string, int64](other, "metered").Set(ctx, "b", 7) }()
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, m.Unlock(ctx, "b"))
	require.NoError(t, <-done)
	// Locks resolved for their dead holders: a client lock whose lease
	// ended, a transaction rolled back, one rolled forward.
	require.NoError(t, m.Lock(ctx, "leased", client.WithLease(100*time.Millisecond)))
	tbl := owners(t, cluster.Live()[0].Addr)
	newDeadClient(t, c, tbl, "metered", []string{"x", "y"}, "never").lock(ctx, 100*time.Millisecond)
	dead := newDeadClient(t, c, tbl, "metered", []string{"p", "q"}, "yes")
	dead.lock(ctx, 2*time.Second)
	dead.commit(ctx)

	require.Eventually(t, func() bool {
		return metricSum(t, cluster, "atoll_locks", nil) == 0
	}, time.Minute, 100*time.Millisecond, "the sweep resolved every lock")
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_transaction_commits_total", map[string]string{"kind": "two_phase"}), 2.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_transaction_commits_total", map[string]string{"kind": "one_phase"}), 2.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_transaction_aborts_total", map[string]string{"cause": "changed"}), 1.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_transaction_aborts_total", map[string]string{"cause": "locked"}), 1.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_lock_waits_total", nil), 1.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_lock_wait_seconds", nil), 1.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_locks_resolved_total", map[string]string{"outcome": "released"}), 1.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_locks_resolved_total", map[string]string{"outcome": "rolled_back"}), 1.0)
	assert.GreaterOrEqual(t, metricSum(t, cluster, "atoll_locks_resolved_total", map[string]string{"outcome": "rolled_forward"}), 1.0)
	require.Eventually(t, func() bool {
		return metricSum(t, cluster, "atoll_client_transaction_retries_total", map[string]string{"client_type": "go"}) >= 1 &&
			metricSum(t, cluster, "atoll_client_transaction_commits_total", map[string]string{"client_type": "go"}) >= 3
	}, 30*time.Second, 100*time.Millisecond, "the client reported its transaction retries and commits")
}
