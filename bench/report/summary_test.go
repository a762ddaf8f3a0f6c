package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, 30}, 20},
	} {
		in := slices.Clone(tc.in)
		assert.Equal(t, tc.want, Median(tc.in), "Median(%v)", tc.in)
		assert.Equal(t, in, tc.in, "Median leaves its input in order")
	}
	assert.True(t, math.IsNaN(Median(nil)), "Median(nil) is NaN")
}

// Three runs: the summary takes each case's median over the runs, lists
// every run's figure, and leaves a failed case out of its medians.
func TestSummary(t *testing.T) {
	base, err := ReadFile(hazelcastFile)
	require.NoError(t, err)
	runs := make([]*Run, 3)
	for i, scale := range []float64{1, 3, 2} {
		r := *base
		r.Cases = slices.Clone(base.Cases)
		for j := range r.Cases {
			r.Cases[j].OpsPerSecMedian *= Float(scale)
		}
		runs[i] = &r
	}
	runs[2].Cases[0].Error = "boom"
	var b strings.Builder
	require.NoError(t, WriteSummary(&b, runs))
	out := b.String()
	c0 := base.Cases[0] // A1 scan-all IDS SQL: the median of runs 1 and 2 (run 3 failed)
	want := "| A1 scan-all IDS | SQL | 100000 | " + fmtF(float64(c0.OpsPerSecMedian)*2, 1) + " | " +
		fmtF(float64(c0.OpsPerSecMedian), 1) + " / " + fmtF(float64(c0.OpsPerSecMedian)*3, 1) + " / 1 failed |"
	assert.Contains(t, out, want)
	c1 := base.Cases[1] // A1 PRED: all three runs, median = 2×
	assert.Contains(t, out, "| A1 scan-all IDS | PRED | 100000 | "+fmtF(float64(c1.OpsPerSecMedian)*2, 1)+" |")
	assert.Contains(t, out, "| PORTABLE LARGE | 1034 | 349 | 1,146.0 | 1,146.0 / 1,146.0 / 1,146.0 |")
	assert.True(t, strings.HasPrefix(out, "Hazelcast 5.7.0, mode full, 2 members, 8 client threads"), out)
	assert.Error(t, WriteSummary(&b, nil), "a summary of no runs")
}
