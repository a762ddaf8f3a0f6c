package querytest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

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
		if err != nil {
			t.Fatalf("ATOLL_Q13_SF=%q: %v", s, err)
		}
		sf = v
	}
	dir := tpch.Dir(t.TempDir(), sf)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := tpch.Generate(ctx, dir, sf); err != nil {
		t.Fatal(err)
	}
	ref, err := tpch.DuckDB(ctx, dir, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := members(t)
	if n < 3 {
		n = 3
	}
	cl := testcluster.Start(t, testcluster.InProcess, n, testcluster.Options{SlowFailureDetection: true})
	c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := tpch.Load(ctx, c, dir, 4, nil); err != nil {
		t.Fatal(err)
	}
	for _, hint := range []string{"", "/*+ JOIN_STRATEGY(broadcast) */ ", "/*+ JOIN_STRATEGY(repartition) VECTOR_SIZE(1000) BATCH_BYTES(4096) */ ", "/*+ JOIN_STRATEGY(coordinator) */ "} {
		q := withHint(tpch.Q13, hint)
		start := time.Now()
		got, err := tpch.Q13Rows(ctx, c, q)
		if err != nil {
			t.Fatalf("%s: %v", hint, err)
		}
		if d := tpch.Diff(got, ref.Rows); d != "" {
			t.Errorf("Q13 %sdiffers from DuckDB: %s", hint, d)
		}
		t.Logf("Q13 %sat SF %g on %d members: %d rows in %v", hint, sf, n, len(got), time.Since(start))
	}
}
