//go:build unix

package querytest

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/pkg/client"
)

// cpuTime is the CPU time this process (members and client) has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLikeStopsWithItsQuery: LIKE costs time linear in text × pattern, so
// the pattern that once cost seconds answers at once, and a LIKE that does
// take seconds (folded at plan time: all its arguments are constants)
// stops using CPU within 100 ms of its query's timeout, and of its
// client's cancellation.
func TestLikeStopsWithItsQuery(t *testing.T) {
	c, ctx := start(t)
	// The pattern of many % segments over a long text: no backtracking.
	begin := time.Now()
	got := queryRows(t, ctx, c, "SELECT '"+strings.Repeat("a", 100_000)+"c' LIKE '"+strings.Repeat("%a", 5000)+"%b'")
	require.Equal(t, []string{"false"}, got)
	t.Logf("100 000 characters LIKE 5 000 %%a segments: %v", time.Since(begin))

	// About 4e9 character comparisons: seconds of work.
	slow := "SELECT '" + strings.Repeat("a", 1_000_000) + "' LIKE '%" + strings.Repeat("a_", 2000) + "b%'"
	// What the idle members (gossip, sweeps; more under the race
	// detector) and the test use in a second: the bar after a query ends.
	idle0 := cpuTime(t)
	time.Sleep(time.Second)
	idle := cpuTime(t) - idle0
	for _, how := range []string{"query timeout", "client cancels"} {
		t.Run(how, func(t *testing.T) {
			qctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var opts []any
			if how == "query timeout" {
				opts = append(opts, client.WithQueryTimeout(500*time.Millisecond))
			} else {
				time.AfterFunc(500*time.Millisecond, cancel)
			}
			start := time.Now()
			rows, err := c.SQL(qctx, slow, opts...)
			if err == nil {
				rows.Close()
				require.Failf(t, "the slow LIKE answered", "after %v", time.Since(start))
			}
			require.True(t, errors.Is(err, client.ErrTimeout) || errors.Is(err, context.Canceled) || errors.Is(err, client.ErrCancelled),
				"the slow LIKE failed with %v, want a timeout or a cancellation", err)
			// The call may return before the member noticed: allow it
			// 100 ms, then the members must be back to idle.
			time.Sleep(100 * time.Millisecond)
			cpu0 := cpuTime(t)
			time.Sleep(time.Second)
			used := cpuTime(t) - cpu0
			t.Logf("%s: the call ended after %v; CPU used in the second after: %v (%v when idle)", how, time.Since(start)-1100*time.Millisecond, used, idle)
			require.LessOrEqual(t, used, idle+150*time.Millisecond, "the members' CPU in the second after the query ended (%v when idle)", idle)
		})
	}
}
