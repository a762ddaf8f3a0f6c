package querytest

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/gopool"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// glogDaemon is the flush goroutine of glog, which vitess starts for the
// life of the process.
var glogDaemon = goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon")

// joinCluster starts n in-process members with the join tables loaded,
// each holding mult times the rows of genJoinData.
func joinCluster(t *testing.T, n, mult int, opts testcluster.Options) (*testcluster.Cluster, *client.Client, context.Context) {
	t.Helper()
	cl := testcluster.Start(t, testcluster.InProcess, n, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	tables := genJoinData(rand.New(rand.NewPCG(20261125, 14)))
	for _, tb := range tables {
		base := len(tb.rows)
		for m := 1; m < mult; m++ {
			for _, row := range tb.rows[:base] {
				r := append([]string(nil), row...)
				k, _ := strconv.Atoi(r[0])
				r[0] = strconv.Itoa(k + m*base)
				tb.rows = append(tb.rows, r)
			}
		}
	}
	loadJoinData(t, ctx, c, tables)
	return cl, c, ctx
}

// exchangeGoroutines lists the goroutines of this process that run a
// join's exchange or stage.
func exchangeGoroutines() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "internal/exec.(*destination)") || strings.Contains(g, "internal/exec.(*hub).serve") ||
			strings.Contains(g, "internal/exec.(*stage)") || strings.Contains(g, "internal/exec.(*assembler)") {
			out = append(out, g)
		}
	}
	return out
}

// TestJoinCancelLeaksNothing closes joins' cursors half-way and lets
// others time out while their rows move between members: every goroutine
// they started ends.
func TestJoinCancelLeaksNothing(t *testing.T) {
	cl, c, ctx := joinCluster(t, 3, 5, testcluster.Options{SlowFailureDetection: true})
	cl.WaitStable(1, 2*time.Minute) // no migration starts or ends a replication stream meanwhile
	q := "SELECT /*+ JOIN_STRATEGY(repartition) BATCH_BYTES(256) VECTOR_SIZE(50) */ jo.__key, jo.note, jc.name FROM jo JOIN jc ON jo.cust = jc.__key"
	want := len(queryRows(t, ctx, c, q))
	require.GreaterOrEqual(t, want, 1000, "rows of the join")
	// The client draws each statement's member at random: twenty statements
	// warm every member's connections and caches up as coordinator (all but
	// surely; what a cold one starts is ignored below all the same).
	for i := 0; i < 20; i++ {
		require.Len(t, queryRows(t, ctx, c, q), want, "rows of the join")
	}
	baseline := goleak.IgnoreCurrent()
	// Replication streams to backups belong to the cluster, not the joins:
	// one that a backup restarts is not a leak; nor is a goroutine of an
	// engine's pool waiting for its next function, nor the fragments
	// connection between two members, which a member opens the first time
	// it coordinates a query (the client draws each statement's member at
	// random) and keeps, nor the worker of a member's plan cache, which
	// ristretto replaces when the cache is first synced to the catalog.
	replication := []goleak.Option{goleak.IgnoreTopFunction(gopool.IdleFrame),
		goleak.IgnoreAnyFunction("github.com/dgraph-io/ristretto/v2.(*Cache[...]).processItems"),
		goleak.IgnoreAnyFunction("github.com/atolldb/atoll/internal/exec.(*fragmentConn).read"),
		goleak.IgnoreAnyFunction("github.com/atolldb/atoll/internal/server.(*Server).ServeFragments"),
		goleak.IgnoreAnyFunction("github.com/atolldb/atoll/internal/cluster.(*sender).stream.func2"),
		goleak.IgnoreAnyFunction("github.com/atolldb/atoll/internal/cluster.(*sender).stream"),
		goleak.IgnoreAnyFunction("github.com/atolldb/atoll/internal/cluster.(*service).Replicate")}
	for i := 0; i < 5; i++ {
		rows, err := c.SQL(ctx, q, client.WithPageSize(10))
		require.NoError(t, err)
		for n := 0; n < 15 && rows.Next(); n++ {
		}
		require.NoError(t, rows.Close())
		tctx, cancel := context.WithTimeout(ctx, time.Duration(1+i)*time.Millisecond)
		if rows, err := c.SQL(tctx, q); err == nil {
			for rows.Next() {
			}
			rows.Close()
		}
		cancel()
	}
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err = goleak.Find(append([]goleak.Option{baseline, glogDaemon}, replication...)...); err == nil {
			break
		}
	}
	require.NoError(t, err, "goroutines outlived the cancelled joins")
	require.Len(t, queryRows(t, ctx, c, q), want, "rows of the join after the cancelled ones")
}

// TestJoinMemberDeath kills a member while joins move rows between the
// members: a join fails with a retryable error (or is started again and
// returns every row), later joins return every row from the members that
// are left, and no exchange goroutine is left behind.
func TestJoinMemberDeath(t *testing.T) {
	cl, c, ctx := joinCluster(t, 3, 5, testcluster.Options{
		Configure: func(cfg *member.Config) { cfg.Query.Join.InFlightBytes = 4096 },
	})
	q := "SELECT /*+ JOIN_STRATEGY(repartition) BATCH_BYTES(512) VECTOR_SIZE(100) */ COUNT(*), SUM(jo.amount) FROM jo JOIN jc ON jo.cust = jc.__key"
	want := queryRows(t, ctx, c, q)[0]
	victim := cl.Members()[2].Addr
	done := make(chan struct{})
	results := make(chan string, 100000)
	go func() {
		defer close(results)
		for {
			select {
			case <-done:
				return
			default:
			}
			rows, err := c.SQL(ctx, q)
			if err == nil {
				var got []string
				for rows.Next() {
					vals, verr := rows.Values()
					if verr != nil {
						err = verr
						break
					}
					got = append(got, show(vals...))
				}
				if err == nil {
					err = rows.Err()
				}
				rows.Close()
				if err == nil {
					results <- "rows " + strings.Join(got, ",")
					continue
				}
			}
			var ce *client.Error
			if errors.As(err, &ce) && ce.Retryable {
				results <- "retryable"
				continue
			}
			if errors.Is(err, client.ErrUnavailable) && strings.Contains(err.Error(), victim) {
				// The query's coordinator was the member that died: its
				// connection broke with the statement sent, so the client
				// says the member is unavailable rather than sending the
				// statement again itself.
				results <- "retryable"
				continue
			}
			results <- "error " + err.Error()
		}
	}()
	time.Sleep(200 * time.Millisecond)
	cl.Members()[2].Kill()
	time.Sleep(3 * time.Second)
	close(done)
	var ok, retry int
	for r := range results {
		switch {
		case r == "rows "+want:
			ok++
		case r == "retryable":
			retry++
		default:
			assert.Failf(t, "a join while a member died", "%s (want %s or a retryable error)", r, want)
		}
	}
	t.Logf("%d joins returned every row, %d failed with a retryable error", ok, retry)
	// The members left own every partition once the backups take over;
	// the join then returns every row again.
	var got string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		rows, err := c.SQL(ctx, q)
		if err != nil {
			continue
		}
		for rows.Next() {
			vals, _ := rows.Values()
			got = show(vals...)
		}
		rows.Close()
		if got == want {
			break
		}
	}
	require.Equal(t, want, got, "the join after the member died")
	var left []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = exchangeGoroutines(); len(left) == 0 {
			break
		}
	}
	require.Empty(t, left, "exchange goroutines that outlived their joins")
}

// TestJoinMemoryLimit: a join's hash table and exchange buffers count
// against the query's memory limit (the MEMORY_LIMIT hint, or the
// member's query.memory-limit-per-query): past it the query fails with an
// error that names the knob, and nothing is left reserved for the next.
func TestJoinMemoryLimit(t *testing.T) {
	_, c, ctx := joinCluster(t, 3, 1, testcluster.Options{SlowFailureDetection: true})
	for _, hint := range []string{"JOIN_STRATEGY(repartition)", "JOIN_STRATEGY(broadcast)", "JOIN_STRATEGY(coordinator)"} {
		q := "SELECT /*+ " + hint + " MEMORY_LIMIT(2000) */ COUNT(*) FROM jo a JOIN jo b ON a.cust = b.cust"
		_, err := c.SQL(ctx, q)
		var ce *client.Error
		require.ErrorAs(t, err, &ce, hint)
		require.Contains(t, ce.Message, "memory limit of 2000 bytes exceeded", hint)
		require.Contains(t, ce.Message, "MEMORY_LIMIT", "%s: the error names the knob", hint)
		require.False(t, ce.Retryable, "%s: a query over its own limit is not retried", hint)
	}
	got := queryRows(t, ctx, c, "SELECT /*+ MEMORY_LIMIT(100000000) */ COUNT(*) FROM jo a JOIN jo b ON a.cust = b.cust")
	require.NotEqual(t, []string{"0"}, got, "the join under a sufficient limit")
}
