package report

import (
	"math"
	"slices"
	"strings"
	"testing"
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
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("Median reordered its input: %v", tc.in)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

// Three runs: the summary takes each case's median over the runs, lists
// every run's figure, and leaves a failed case out of its medians.
func TestSummary(t *testing.T) {
	base, err := ReadFile(hazelcastFile)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := WriteSummary(&b, runs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	c0 := base.Cases[0] // A1 scan-all IDS SQL: the median of runs 1 and 2 (run 3 failed)
	want := "| A1 scan-all IDS | SQL | 100000 | " + fmtF(float64(c0.OpsPerSecMedian)*2, 1) + " | " +
		fmtF(float64(c0.OpsPerSecMedian), 1) + " / " + fmtF(float64(c0.OpsPerSecMedian)*3, 1) + " / 1 failed |"
	if !strings.Contains(out, want) {
		t.Errorf("summary lacks\n%s\n%s", want, out)
	}
	c1 := base.Cases[1] // A1 PRED: all three runs, median = 2×
	if !strings.Contains(out, "| A1 scan-all IDS | PRED | 100000 | "+fmtF(float64(c1.OpsPerSecMedian)*2, 1)+" |") {
		t.Errorf("A1 PRED median wrong:\n%s", out)
	}
	if !strings.Contains(out, "| PORTABLE LARGE | 1034 | 349 | 1,146.0 | 1,146.0 / 1,146.0 / 1,146.0 |") {
		t.Errorf("memory table wrong:\n%s", out)
	}
	if !strings.HasPrefix(out, "Hazelcast 5.7.0, mode full, 2 members, 8 client threads") {
		t.Errorf("header: %s", strings.SplitN(out, "\n", 2)[0])
	}
	if err := WriteSummary(&b, nil); err == nil {
		t.Error("a summary of no runs did not fail")
	}
}
