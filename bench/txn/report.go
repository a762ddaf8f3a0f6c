package txn

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/atolldb/atoll/bench/report"
)

// Run holds the figures of one run of the transaction workload.
type Run struct {
	Date          string  `json:"date"`
	GoVersion     string  `json:"goVersion"`
	CPUModel      string  `json:"cpuModel,omitempty"`
	CPUs          int     `json:"cpus"`
	Members       int     `json:"members"`
	MemberProcess string  `json:"memberProcess"`
	Threads       int     `json:"clientThreads"`
	Keys          int     `json:"keys"`
	Warmup        float64 `json:"warmupSeconds"`
	Duration      float64 `json:"durationSeconds"`
	Rounds        int     `json:"rounds"`
	// Attempts is how many times a transaction runs before it fails with
	// a conflict.
	Attempts  int     `json:"attempts"`
	LoadStart float64 `json:"loadAvgStart"`
	LoadEnd   float64 `json:"loadAvgEnd"`
	Cases     []Case  `json:"cases"`
}

// Case is one mix in one mode at one contention level.
type Case struct {
	Mix  string `json:"mix"`
	Mode string `json:"mode"`
	// HotKeys is the contention level: 0 draws rows from the whole key
	// space, N from the first N keys.
	HotKeys int `json:"hotKeys"`
	report.Case
	// Transactions run in the measured rounds, conflicts they met (one
	// per losing attempt) and those that lost every attempt; the rates
	// are per transaction, in percent.
	Transactions int64   `json:"transactions,omitempty"`
	Conflicts    int64   `json:"conflicts,omitempty"`
	Failures     int64   `json:"failures,omitempty"`
	ConflictPct  float64 `json:"conflictPercent"`
	FailurePct   float64 `json:"failurePercent"`
}

// Level names a contention level.
func Level(hotKeys, keys int) string {
	if hotKeys == 0 {
		return fmt.Sprintf("%d keys", keys)
	}
	return fmt.Sprintf("%d hot keys", hotKeys)
}

// raw returns the raw case of c's mix and level.
func (r *Run) raw(c Case) (Case, bool) {
	for _, o := range r.Cases {
		if o.Mix == c.Mix && o.HotKeys == c.HotKeys && o.Mode == "raw" {
			return o, true
		}
	}
	return Case{}, false
}

// Overhead returns a transaction case's figures against the same
// operations done raw: throughput ratio (transaction over raw) and p50
// latency ratio; NaN without a raw case.
func (r *Run) Overhead(c Case) (throughput, latency float64) {
	raw, ok := r.raw(c)
	if !ok || !c.OK() || !raw.OK() {
		return math.NaN(), math.NaN()
	}
	return float64(c.OpsPerSecMedian) / float64(raw.OpsPerSecMedian), float64(c.P50ms) / float64(raw.P50ms)
}

// WriteTable prints the figures: per contention level and mix, the raw
// and transaction cases with the transaction's overhead against raw.
func (r *Run) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "transactions after Haeinsa: %d member(s) (%s), %d client threads, %d rounds of %gs after %gs of warm-up, %d attempts per transaction\n",
		r.Members, r.MemberProcess, r.Threads, r.Rounds, r.Duration, r.Warmup, r.Attempts)
	fmt.Fprintf(w, "load average %.2f at the start, %.2f at the end\n\n", r.LoadStart, r.LoadEnd)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "contention\tmix\tmode\tops/s\tp50 ms\tp90 ms\tp99 ms\t× raw ops/s\t× raw p50\tconflicts %\tfailed %\tload\t")
	for _, c := range r.Cases {
		if c.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\t\t\t\t\t\n", Level(c.HotKeys, r.Keys), c.Mix, c.Mode, c.Error)
			continue
		}
		ratio, lat, conflicts, failed := "", "", "", ""
		if c.Mode == "transaction" {
			t, l := r.Overhead(c)
			ratio, lat = fmt.Sprintf("%.2f", t), fmt.Sprintf("%.2f", l)
			conflicts, failed = fmt.Sprintf("%.4f", c.ConflictPct), fmt.Sprintf("%.4f", c.FailurePct)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.2f\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%.2f\t\n", Level(c.HotKeys, r.Keys), c.Mix, c.Mode,
			float64(c.OpsPerSecMedian), float64(c.P50ms), float64(c.P90ms), float64(c.P99ms), ratio, lat, conflicts, failed, float64(c.Load1))
	}
	return tw.Flush()
}

// WriteJSON writes the run as JSON.
func (r *Run) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteHTML writes a self-contained page: throughput and latency of each
// mix raw and in a transaction, per contention level, and the table.
func (r *Run) WriteHTML(w io.Writer) error {
	var labels []string
	var rawOps, txOps, rawP50, txP50, txP99, rawP99, conflicts []float64
	for _, c := range r.Cases {
		if c.Mode != "transaction" {
			continue
		}
		raw, ok := r.raw(c)
		labels = append(labels, c.Mix+", "+Level(c.HotKeys, r.Keys))
		txOps = append(txOps, float64(c.OpsPerSecMedian))
		txP50, txP99 = append(txP50, float64(c.P50ms)), append(txP99, float64(c.P99ms))
		conflicts = append(conflicts, c.ConflictPct)
		if ok {
			rawOps = append(rawOps, float64(raw.OpsPerSecMedian))
			rawP50, rawP99 = append(rawP50, float64(raw.P50ms)), append(rawP99, float64(raw.P99ms))
		} else {
			rawOps, rawP50, rawP99 = append(rawOps, math.NaN()), append(rawP50, math.NaN()), append(rawP99, math.NaN())
		}
	}
	charts := []report.Chart{
		{ID: "ops", Title: "Throughput: the mixes raw and in a transaction", YTitle: "operations/s (median of rounds)", Labels: labels,
			Series: []report.Series{{Label: "raw", Data: rawOps}, {Label: "transaction", Data: txOps}}},
		{ID: "lat", Title: "Latency: the mixes raw and in a transaction", YTitle: "ms (percentiles of the latency histogram)", Labels: labels,
			Series: []report.Series{{Label: "raw p50", Data: rawP50}, {Label: "transaction p50", Data: txP50},
				{Label: "raw p99", Data: rawP99}, {Label: "transaction p99", Data: txP99}}},
		{ID: "conflicts", Title: "Conflicts per transaction", YTitle: "percent of transactions", Labels: labels,
			Series: []report.Series{{Label: "conflicts", Data: conflicts}}},
	}
	env := [][2]string{{"date", r.Date}, {"Go", r.GoVersion}, {"CPU", fmt.Sprintf("%s (%d)", r.CPUModel, r.CPUs)},
		{"members", fmt.Sprintf("%d (%s)", r.Members, r.MemberProcess)}, {"client threads", fmt.Sprint(r.Threads)},
		{"key space", fmt.Sprint(r.Keys)}, {"attempts per transaction", fmt.Sprint(r.Attempts)},
		{"load average (1 min)", fmt.Sprintf("%.2f at start, %.2f at end", r.LoadStart, r.LoadEnd)}}
	var table strings.Builder
	if err := r.WriteTable(&table); err != nil {
		return err
	}
	return report.WritePage(w, "atoll-bench txn: transactions against raw operations, "+r.Date, env, table.String(), charts)
}
