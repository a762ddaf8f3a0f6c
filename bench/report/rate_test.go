package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/latency"
)

// rateRun builds a latency-mode run of the given cases, each at rate with
// latencies of base, 2×base, ... 1000×base.
func rateRun(t *testing.T, name string, rate float64, base time.Duration, ids ...string) *Run {
	t.Helper()
	r := &Run{Tool: name, Date: "2026-11-26T12:00:00Z", Members: 2, Mode: "full+rate", ClientThreads: 64, AEntries: 100,
		ADurationSeconds: 60, AWarmupSeconds: 5, Rounds: 1, RateMode: true}
	for _, id := range ids {
		parts := strings.Split(id, "/")
		h := latency.New()
		for i := 1; i <= 1000; i++ {
			h.Record(time.Duration(i) * base)
		}
		kept := true
		c := Case{ID: id, Group: parts[0], Name: parts[1], API: parts[2], Rate: Float(rate), AchievedRate: Float(rate),
			KeptUp: &kept, Scheduled: 1000, Ops: 1000, OpsPerSecMedian: Float(rate)}
		require.NoError(t, c.SetLatency(h))
		r.Cases = append(r.Cases, c)
	}
	return r
}

func TestSetLatency(t *testing.T) {
	r := rateRun(t, "atoll-bench", 24, time.Millisecond, "A1/scan-all IDS/SQL")
	c := r.Cases[0]
	assert.InEpsilon(t, 500.0, float64(c.P50ms), 0.001)
	assert.InEpsilon(t, 990.0, float64(c.P99ms), 0.001)
	assert.InEpsilon(t, 999.0, float64(c.P999ms), 0.001)
	assert.InEpsilon(t, 1000.0, float64(c.P9999ms), 0.001)
	assert.InEpsilon(t, 1000.0, float64(c.Maxms), 0.001)
	h, err := c.Latency()
	require.NoError(t, err)
	assert.Equal(t, int64(1000), h.Count())
}

// TestRateRunRoundTrip writes a latency-mode run as JSON and reads it
// back with its histograms.
func TestRateRunRoundTrip(t *testing.T) {
	r := rateRun(t, "atoll-bench", 7500, 10*time.Microsecond, "A5/eq sorted-index IDS/SQL", "A5/eq sorted-index IDS/PRED")
	path := filepath.Join(t.TempDir(), "run.json")
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	var raw map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	assert.Equal(t, true, raw["rateMode"])
	back, err := ReadFile(path)
	require.NoError(t, err)
	require.Len(t, back.Cases, 2)
	assert.True(t, back.RateMode)
	c := back.Cases[0]
	assert.Equal(t, Float(7500), c.Rate)
	require.NotNil(t, c.KeptUp)
	assert.True(t, *c.KeptUp)
	h, err := c.Latency()
	require.NoError(t, err)
	want, _ := r.Cases[0].Latency()
	assert.Equal(t, want.Percentile(99.99), h.Percentile(99.99))
}

func TestRateTable(t *testing.T) {
	r := rateRun(t, "atoll-bench", 24, time.Millisecond, "A1/scan-all IDS/SQL", "A1/scan-all IDS/PRED")
	notKept := false
	r.Cases[1].KeptUp, r.Cases[1].Unsent, r.Cases[1].AchievedRate = &notKept, 12, 20
	var b bytes.Buffer
	require.NoError(t, r.WriteTable(&b))
	out := b.String()
	assert.Contains(t, out, "latency mode (open loop; latency from each request's intended send time), at most 64 requests in flight")
	assert.Contains(t, out, "p99.9 ms  p99.99 ms")
	assert.Regexp(t, `A1 scan-all IDS\s+SQL\s+-\s+24\.0\s+24\.0\s+yes\s+1000\s+500\.\d+\s+900\.\d+\s+990\.\d+\s+999\.\d+\s+1,000\.\d+`, out)
	assert.Regexp(t, `A1 scan-all IDS\s+PRED\s+-\s+24\.0\s+20\.0\s+no \(12 unsent\)`, out)
}

// TestCompareRateRuns sets two latency-mode runs side by side: the
// percentiles of both, no throughput goals.
func TestCompareRateRuns(t *testing.T) {
	a := rateRun(t, "atoll-bench", 6, time.Millisecond, "A3/sum IDS/SQL", "A3/sum IDS/PRED")
	b := rateRun(t, "bench/hazelcast", 6, 10*time.Millisecond, "A3/sum IDS/SQL", "A3/sum IDS/PRED")
	b.HazelcastVersion = "5.7.0"
	cmp := Compare(a, b)
	assert.Empty(t, cmp.Goals, "a latency run has no throughput goals")
	assert.Empty(t, cmp.Notes)
	var text, md bytes.Buffer
	require.NoError(t, cmp.WriteTable(&text))
	assert.Contains(t, text.String(), "Atoll (2 members) / Hazelcast 5.7.0 at the same rates")
	assert.Regexp(t, `A3 sum IDS\s+SQL\s+6\.0\s+6\.0 / 6\.0\s+yes / yes\s+500\.\d+ / 5,00\d\.\d+`, text.String())
	require.NoError(t, cmp.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "| case | api | rate/s | sent/s | kept up | p50 ms | p90 ms | p99 ms | p99.9 ms | p99.99 ms | max ms |")
	assert.Regexp(t, `\| A3 sum IDS \| PRED \| 6\.0 \| 6\.0 / 6\.0 \| yes / yes \| 500\.\d+ / 5,00\d\.\d+ \|`, md.String())

	b.Cases[0].Rate = 5
	b.ClientThreads = 8
	notes := strings.Join(Compare(a, b).Notes, "\n")
	assert.Contains(t, notes, "A3/sum IDS/SQL rates differ: 6 here, 5")
	assert.Contains(t, notes, "client threads differ: 64 here, 8")

	thr := run(2, map[string]float64{"A3/sum IDS/SQL": 400}, nil)
	assert.Contains(t, strings.Join(Compare(a, thr).Notes, "\n"), "modes differ: latency mode here, throughput mode")
}

// TestPercentileChart checks that a latency-mode page draws one
// percentile plot per case with SQL and PRED, the other run's dashed.
func TestPercentileChart(t *testing.T) {
	a := rateRun(t, "atoll-bench", 24, time.Millisecond, "A1/scan-all IDS/SQL", "A1/scan-all IDS/PRED")
	b := rateRun(t, "bench/hazelcast", 24, 3*time.Millisecond, "A1/scan-all IDS/SQL", "A1/scan-all IDS/PRED")
	b.HazelcastVersion = "5.7.0"
	var page bytes.Buffer
	require.NoError(t, a.WriteHTML(&page, Compare(a, b)))
	checkSelfContainedHTML(t, page.String())
	charts, err := a.charts(Compare(a, b), b)
	require.NoError(t, err)
	require.Len(t, charts, 1)
	ch := charts[0]
	assert.True(t, ch.Percentiles)
	assert.Contains(t, ch.Title, "A1 scan-all IDS at 24.0 requests/s")
	require.Len(t, ch.Series, 4)
	var labels []string
	for _, s := range ch.Series {
		labels = append(labels, s.Label)
		assert.Equal(t, strings.HasPrefix(s.Label, "Hazelcast"), s.Dashed, "the other run's lines are dashed")
		require.NotEmpty(t, s.Points)
		last := s.Points[len(s.Points)-1]
		assert.Greater(t, last[0], 100.0, "the plot reaches past p99")
	}
	assert.Equal(t, []string{"Atoll (2 members) SQL (max 1,000.447 ms)", "Atoll (2 members) PRED (max 1,000.447 ms)",
		"Hazelcast 5.7.0 SQL (max 3,000.319 ms)", "Hazelcast 5.7.0 PRED (max 3,000.319 ms)"}, labels)
	assert.Contains(t, page.String(), "percentilePlot")
	assert.Contains(t, page.String(), "latency mode (open loop): A warm-up 5s, schedule 60s; at most 64 requests in flight")
}
