package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// WriteSummary writes, as Markdown, the medians of several runs of the same
// protocol: per case the median over the runs of each run's median
// throughput (with every run's figure), the medians of the runs' p50, p90
// and p99, the largest max and the SQL÷PRED ratio of the medians; then the
// memory per entry of every workload B map and the load averages. Failed
// cases of a run are left out of its medians and named.
func WriteSummary(w io.Writer, runs []*Run) error {
	if len(runs) == 0 {
		return errors.New("summary: no runs")
	}
	var ids []string
	byID := map[string][]Case{}
	for _, r := range runs {
		for _, c := range r.Cases {
			if _, seen := byID[c.ID]; !seen {
				ids = append(ids, c.ID)
			}
			byID[c.ID] = append(byID[c.ID], c)
		}
	}
	median := func(cs []Case, f func(Case) float64) float64 {
		var xs []float64
		for _, c := range cs {
			if c.OK() {
				xs = append(xs, f(c))
			}
		}
		return Median(xs)
	}
	tput := func(c Case) float64 { return float64(c.OpsPerSecMedian) }
	r0 := runs[0]
	var dates []string
	for _, r := range runs {
		dates = append(dates, r.Date)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, mode %s, %d members, %d client threads, A entries %d, B entries %d; %d runs (%s)\n\n",
		r0.Name(), r0.Mode, r0.Members, r0.ClientThreads, r0.AEntries, r0.BEntries, len(runs), strings.Join(dates, ", "))
	b.WriteString("| case | api | check | ops/s (median) | ops/s per run | p50 ms | p90 ms | p99 ms | max ms | SQL÷PRED ops/s |\n")
	b.WriteString("|---|---|---:|---:|---|---:|---:|---:|---:|---:|\n")
	for _, id := range ids {
		cs := byID[id]
		c0 := cs[0]
		var perRun, failed []string
		maxMs := math.NaN()
		for _, c := range cs {
			if !c.OK() {
				failed = append(failed, c.Error)
				continue
			}
			perRun = append(perRun, fmtF(float64(c.OpsPerSecMedian), 1))
			if math.IsNaN(maxMs) || float64(c.Maxms) > maxMs {
				maxMs = float64(c.Maxms)
			}
		}
		if len(perRun) == 0 {
			fmt.Fprintf(&b, "| %s | %s | failed: %s | | | | | | | |\n", c0.Title(), c0.API, oneLine(failed[0], 80))
			continue
		}
		ratio := ""
		if c0.API == "SQL" {
			if pred, ok := byID[c0.Group+"/"+c0.Name+"/PRED"]; ok {
				if s, p := median(cs, tput), median(pred, tput); p > 0 {
					ratio = fmt.Sprintf("%.2f", s/p)
				}
			}
		}
		if len(failed) > 0 {
			perRun = append(perRun, fmt.Sprintf("%d failed", len(failed)))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c0.Title(), c0.API, checkString(c0.Check),
			fmtF(median(cs, tput), 1), strings.Join(perRun, " / "),
			fmtF(median(cs, func(c Case) float64 { return float64(c.P50ms) }), 2),
			fmtF(median(cs, func(c Case) float64 { return float64(c.P90ms) }), 2),
			fmtF(median(cs, func(c Case) float64 { return float64(c.P99ms) }), 2), fmtF(maxMs, 1), ratio)
	}
	var keys []string
	for _, r := range runs {
		for _, k := range r.BKeys() {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) > 0 {
		b.WriteString("\n| B kind size | value Data bytes | byte[] length | memory B/entry (median) | per run |\n|---|---:|---:|---:|---|\n")
		for _, k := range keys {
			var costs []float64
			var perRun []string
			var first BInfo
			for _, r := range runs {
				if info, ok := r.WorkloadB[k]; ok {
					if len(costs) == 0 {
						first = info
					}
					costs = append(costs, float64(info.MemoryCostPerEntry))
					perRun = append(perRun, fmtF(float64(info.MemoryCostPerEntry), 1))
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", k, first.ValueDataTotalSize, first.ByteArrayLength,
				fmtF(Median(costs), 1), strings.Join(perRun, " / "))
		}
	}
	var loads []string
	for _, r := range runs {
		if r.LoadAvg != nil {
			loads = append(loads, fmt.Sprintf("%s → %s", fmtF(float64(r.LoadAvg.Start), 2), fmtF(float64(r.LoadAvg.End), 2)))
		}
	}
	if len(loads) > 0 {
		fmt.Fprintf(&b, "\nOne-minute load average at the start and end of each run: %s\n", strings.Join(loads, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Median is the median of xs (the mean of the two middle values for an
// even count), NaN for none; xs is left as it is.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
