// Package querytest holds the query engine's end-to-end tests: SQL and the
// Predicate API through a real member and the Go client, compared with each
// other and with a reference engine.
package querytest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// members is the member count (ATOLL_TEST_MEMBERS, default 2: every
// query then runs fragments on this member and on another).
func members(t testing.TB) int {
	if s := os.Getenv("ATOLL_TEST_MEMBERS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 2
}

func start(t testing.TB) (*client.Client, context.Context) {
	t.Helper()
	cl, ctx := startCluster(t)
	return connect(t, ctx, cl), ctx
}

// startCluster starts the members and returns them with the test's
// context.
func startCluster(t testing.TB) (*testcluster.Cluster, context.Context) {
	t.Helper()
	// memberlist's own timings: a loaded machine (or the race detector)
	// does not get members declared dead under a query.
	cl := testcluster.Start(t, testcluster.InProcess, members(t), testcluster.Options{SlowFailureDetection: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return cl, ctx
}

// connect starts a client of cl that knows the workload model's classes.
func connect(t testing.TB, ctx context.Context, cl *testcluster.Cluster) *client.Client {
	t.Helper()
	c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func mustExec(t testing.TB, ctx context.Context, c *client.Client, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		rows, err := c.SQL(ctx, s)
		require.NoError(t, err, "%s", s)
		rows.Close()
	}
}

// queryRows runs a statement and returns its rows as printed strings.
func queryRows(t testing.TB, ctx context.Context, c *client.Client, stmt string, params ...any) []string {
	t.Helper()
	rows, err := c.SQL(ctx, stmt, params...)
	require.NoError(t, err, "%s", stmt)
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		vals, err := rows.Values()
		require.NoError(t, err)
		out = append(out, show(vals...))
	}
	require.NoError(t, rows.Err(), "%s", stmt)
	return out
}

// show prints values the same way whatever side they came from.
func show(vals ...any) string {
	s := ""
	for i, v := range vals {
		if i > 0 {
			s += "|"
		}
		switch x := v.(type) {
		case *benchmodel.Small:
			s += fmt.Sprintf("%d,%d,%g,%s", x.IntField, x.LongField, x.DoubleField, x.StringField)
		case int8, int16, int32, int64, int:
			s += fmt.Sprintf("%d", x)
		case float32:
			s += strconv.FormatFloat(float64(x), 'g', 10, 64)
		case float64:
			s += strconv.FormatFloat(x, 'g', 10, 64)
		default:
			s += fmt.Sprint(x)
		}
	}
	return s
}

func sorted(s []string) []string {
	c := append([]string{}, s...)
	sort.Strings(c)
	return c
}
