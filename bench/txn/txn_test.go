package txn

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/report"
)

func TestRowsAreDistinctAndInTheirKeySpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []Config{{Keys: 3}, {Keys: 100_000}, {Keys: 100_000, HotKeys: 16}, {Keys: 10, HotKeys: 3}} {
		require.NoError(t, cfg.Validate())
		n := int32(cfg.Keys)
		if cfg.HotKeys > 0 {
			n = int32(cfg.HotKeys)
		}
		for i := 0; i < 10_000; i++ {
			a, b, c := cfg.rows(rng)
			require.True(t, a != b && b != c && a != c, "rows %d %d %d are not distinct", a, b, c)
			for _, r := range []int32{a, b, c} {
				require.True(t, r >= 0 && r < n, "row %d outside 0..%d", r, n)
			}
		}
	}
}

func TestConfigRefusesWhatCannotRun(t *testing.T) {
	for _, cfg := range []Config{{Keys: 2}, {Keys: 100, HotKeys: 2}, {Keys: 100, HotKeys: 101}} {
		assert.Error(t, cfg.Validate(), "%+v", cfg)
	}
}

func TestReportOverheadTableAndPage(t *testing.T) {
	run := &Run{Date: "2026-11-26T00:00:00Z", Members: 2, Threads: 8, Keys: 1000, Rounds: 1, Attempts: 10, Cases: []Case{
		{Mix: "worst", Mode: "raw", Case: report.Case{OpsPerSecMedian: 1000, P50ms: 1, P90ms: 2, P99ms: 3}},
		{Mix: "worst", Mode: "transaction", Case: report.Case{OpsPerSecMedian: 500, P50ms: 1.5, P90ms: 3, P99ms: 6},
			Transactions: 2000, Conflicts: 4, ConflictPct: 0.2},
	}}
	thr, lat := run.Overhead(run.Cases[1])
	assert.InDelta(t, 0.5, thr, 1e-9)
	assert.InDelta(t, 1.5, lat, 1e-9)
	var table bytes.Buffer
	require.NoError(t, run.WriteTable(&table))
	assert.Contains(t, table.String(), "0.50")
	assert.Contains(t, table.String(), "1.50")
	var page bytes.Buffer
	require.NoError(t, run.WriteHTML(&page))
	assert.True(t, strings.Contains(page.String(), "Throughput: the mixes raw and in a transaction"))
	assert.Empty(t, report.ExternalReferences(page.String()), "the page loads nothing from anywhere")
}
