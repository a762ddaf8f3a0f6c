package querytest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/tpch"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestQ13MatchesDuckDB loads TPC-H's customer and orders (scale factor
// ATOLL_Q13_SF, default 0.01) into three members and checks that Q13
// returns exactly DuckDB's rows, with the planner's strategy and with the
// others forced.
func TestQ13MatchesDuckDB(t *testing.T) {
	sf := 0.01
	if s := os.Getenv("ATOLL_Q13_SF"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, "ATOLL_Q13_SF=%q", s)
		sf = v
	}
	dir := tpch.Dir(t.TempDir(), sf)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	require.NoError(t, tpch.Generate(ctx, dir, sf))
	ref, err := tpch.DuckDB(ctx, dir, 0, 0)
	require.NoError(t, err)
	n := members(t)
	if n < 3 {
		n = 3
	}
	cl := testcluster.Start(t, testcluster.InProcess, n, testcluster.Options{SlowFailureDetection: true})
	c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test"})
	require.NoError(t, err)
	defer c.Close()
	_, err = tpch.Load(ctx, c, dir, 4, nil)
	require.NoError(t, err)
	for _, hint := range []string{"", "/*+ JOIN_STRATEGY(broadcast) */ ", "/*+ JOIN_STRATEGY(repartition) VECTOR_SIZE(1000) BATCH_BYTES(4096) */ ", "/*+ JOIN_STRATEGY(coordinator) */ "} {
		q := withHint(tpch.Q13, hint)
		start := time.Now()
		got, err := tpch.Q13Rows(ctx, c, q)
		require.NoError(t, err, "%s", hint)
		assert.Empty(t, tpch.Diff(got, ref.Rows), "Q13 %sdiffers from DuckDB", hint)
		t.Logf("Q13 %sat SF %g on %d members: %d rows in %v", hint, sf, n, len(got), time.Since(start))
	}
}
