package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Comparison sets one run against another case by case: the ratio of
// their median throughputs and of their median latencies, and of the
// memory cost per entry of each workload B map. Against a Hazelcast run it
// also judges the goals Atoll holds itself to.
type Comparison struct {
	This, Other *Run
	Rows        []CompareRow
	Memory      []MemoryRow
	Goals       []Goal
	// Notes name what differs between the runs' set-ups (entries,
	// protocol, threads, members): ratios across them compare unlike things.
	Notes []string
}

// CompareRow is one case of both runs. The ratios are this ÷ other (NaN
// when either run lacks the figure).
type CompareRow struct {
	This, Other Case
	OpsRatio    float64
	P50Ratio    float64
}

// MemoryRow is the memory cost per entry of one workload B map in both runs.
type MemoryRow struct {
	Key         string // "COMPACT SMALL"
	This, Other float64
	Ratio       float64
}

// Goal is one of the targets the benchmark issue sets against Hazelcast,
// judged on this run.
type Goal struct {
	ID     string  // case id or "B COMPACT SMALL/memory"
	What   string  // the goal in words, with the figure it is measured against
	Value  float64 // this run's figure
	Target float64 // what the figure must reach (at least; at most for memory)
	Ratio  float64 // Value ÷ the reference figure
	Met    bool
}

// Compare matches the cases of two runs by id, in this run's order
// (cases only the other run has come last).
func Compare(this, other *Run) *Comparison {
	cmp := &Comparison{This: this, Other: other}
	seen := map[string]bool{}
	for _, c := range this.Cases {
		seen[c.ID] = true
		o, ok := other.Case(c.ID)
		if !ok {
			o = Case{ID: c.ID, Group: c.Group, Name: c.Name, API: c.API, Error: "not in this run", OpsPerSecMedian: NaN(), P50ms: NaN()}
		}
		cmp.Rows = append(cmp.Rows, row(c, o))
	}
	for _, o := range other.Cases {
		if !seen[o.ID] {
			c := Case{ID: o.ID, Group: o.Group, Name: o.Name, API: o.API, Error: "not in this run", OpsPerSecMedian: NaN(), P50ms: NaN()}
			cmp.Rows = append(cmp.Rows, row(c, o))
		}
	}
	for _, k := range this.BKeys() {
		o, ok := other.WorkloadB[k]
		if !ok {
			continue
		}
		t := float64(this.WorkloadB[k].MemoryCostPerEntry)
		cmp.Memory = append(cmp.Memory, MemoryRow{Key: k, This: t, Other: float64(o.MemoryCostPerEntry), Ratio: t / float64(o.MemoryCostPerEntry)})
	}
	if other.HazelcastVersion != "" && this.HazelcastVersion == "" && !this.RateMode && !other.RateMode {
		cmp.Goals = goals(this, other) // throughput goals; a latency run has none
	}
	cmp.Notes = differences(this, other)
	return cmp
}

// differences lists the set-up figures in which two runs differ, for the
// workloads both ran.
func differences(a, b *Run) []string {
	var out []string
	diff := func(what string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s differ: %v here, %v in the other run", what, x, y))
		}
	}
	if a.AEntries > 0 && b.AEntries > 0 {
		diff("workload A entries", a.AEntries, b.AEntries)
		diff("workload A warm-up and round seconds", []Float{a.AWarmupSeconds, a.ADurationSeconds}, []Float{b.AWarmupSeconds, b.ADurationSeconds})
	}
	if a.BEntries > 0 && b.BEntries > 0 {
		diff("workload B entries", a.BEntries, b.BEntries)
		diff("workload B warm-up and round seconds", []Float{a.BWarmupSeconds, a.BDurationSeconds}, []Float{b.BWarmupSeconds, b.BDurationSeconds})
	}
	mode := func(r *Run) string {
		if r.RateMode {
			return "latency mode"
		}
		return "throughput mode"
	}
	diff("modes", mode(a), mode(b))
	if !a.RateMode || !b.RateMode {
		diff("rounds", a.Rounds, b.Rounds)
	}
	diff("client threads", a.ClientThreads, b.ClientThreads)
	diff("members", a.Members, b.Members)
	if a.RateMode && b.RateMode {
		for _, c := range a.Cases {
			if o, ok := b.Case(c.ID); ok && c.Rate != o.Rate {
				diff(c.ID+" rates", c.Rate, o.Rate)
			}
		}
	}
	return out
}

func row(c, o Case) CompareRow {
	r := CompareRow{This: c, Other: o, OpsRatio: math.NaN(), P50Ratio: math.NaN()}
	if c.OK() && o.OK() {
		r.OpsRatio = float64(c.OpsPerSecMedian / o.OpsPerSecMedian)
		r.P50Ratio = float64(c.P50ms / o.P50ms)
	}
	return r
}

// goals judges this run against the targets: A2, A3, A4, A5
// without index and the workload B queries at least 10x Hazelcast's faster
// API (for both of Atoll's APIs); A1 at least 3x; A5 with a sorted index
// at least 2x Hazelcast's predicate figure and Atoll's SQL within 10% of
// its own predicate figure; get and set at least 1.5x; memory per entry at
// most 0.7x.
func goals(this, hz *Run) []Goal {
	var out []Goal
	faster := func(c Case) (float64, string) {
		sql, okS := hz.Case(c.Group + "/" + c.Name + "/SQL")
		pred, okP := hz.Case(c.Group + "/" + c.Name + "/PRED")
		best, api := math.NaN(), ""
		if okS && sql.OK() {
			best, api = float64(sql.OpsPerSecMedian), "SQL"
		}
		if okP && pred.OK() && (math.IsNaN(best) || float64(pred.OpsPerSecMedian) > best) {
			best, api = float64(pred.OpsPerSecMedian), "PRED"
		}
		return best, api
	}
	for _, c := range this.Cases {
		v := float64(c.OpsPerSecMedian)
		if !c.OK() {
			v = math.NaN()
		}
		var ref, factor float64
		var what string
		switch {
		case c.API == "MAP":
			o, ok := hz.Case(c.ID)
			if !ok || !o.OK() {
				continue
			}
			ref, factor = float64(o.OpsPerSecMedian), 1.5
			what = fmt.Sprintf("≥1.5× Hazelcast (%s ops/s)", fmtF(ref, 1))
		case c.Group == "A5" && strings.Contains(c.Name, "sorted-index"):
			o, ok := hz.Case(c.Group + "/" + c.Name + "/PRED")
			if !ok || !o.OK() {
				continue
			}
			ref, factor = float64(o.OpsPerSecMedian), 2
			what = fmt.Sprintf("≥2× Hazelcast's PRED (%s ops/s)", fmtF(ref, 1))
			if c.API == "SQL" {
				if p, ok := this.Case(c.Group + "/" + c.Name + "/PRED"); ok && p.OK() {
					pv := float64(p.OpsPerSecMedian)
					out = append(out, Goal{ID: c.ID, What: fmt.Sprintf("within 10%% of Atoll's PRED (%s ops/s)", fmtF(pv, 1)),
						Value: v, Target: 0.9 * pv, Ratio: v / pv, Met: v >= 0.9*pv})
				}
			}
		case c.Group == "A1":
			best, api := faster(c)
			if math.IsNaN(best) {
				continue
			}
			ref, factor = best, 3
			what = fmt.Sprintf("≥3× Hazelcast's faster API (%s, %s ops/s)", api, fmtF(best, 1))
		case strings.HasPrefix(c.Group, "A") || c.Name == "query":
			best, api := faster(c)
			if math.IsNaN(best) {
				continue
			}
			ref, factor = best, 10
			what = fmt.Sprintf("≥10× Hazelcast's faster API (%s, %s ops/s)", api, fmtF(best, 1))
		default:
			continue
		}
		out = append(out, Goal{ID: c.ID, What: what, Value: v, Target: factor * ref, Ratio: v / ref, Met: v >= factor*ref})
	}
	for _, k := range this.BKeys() {
		o, ok := hz.WorkloadB[k]
		if !ok {
			continue
		}
		t, h := float64(this.WorkloadB[k].MemoryCostPerEntry), float64(o.MemoryCostPerEntry)
		out = append(out, Goal{ID: "B " + k + "/memory", What: fmt.Sprintf("≤0.7× Hazelcast (%s B/entry)", fmtF(h, 1)),
			Value: t, Target: 0.7 * h, Ratio: t / h, Met: t <= 0.7*h})
	}
	return out
}

// rateMode says whether the comparison sets latency-mode runs side by
// side: their throughputs are the rates they were given.
func (cmp *Comparison) rateMode() bool { return cmp.This.RateMode || cmp.Other.RateMode }

// latencyHeader names the columns of the latency table: each holds this
// run's figure, then the other's.
var latencyHeader = []string{"p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "p99.99 ms", "max ms"}

// latencyCells are a row's latency percentiles, "this / other".
func latencyCells(r CompareRow) []string {
	pair := func(a, b Case, fa, fb Float) string {
		return caseFig(a, float64(fa), 3) + " / " + caseFig(b, float64(fb), 3)
	}
	t, o := r.This, r.Other
	return []string{pair(t, o, t.P50ms, o.P50ms), pair(t, o, t.P90ms, o.P90ms), pair(t, o, t.P99ms, o.P99ms),
		pair(t, o, t.P999ms, o.P999ms), pair(t, o, t.P9999ms, o.P9999ms), pair(t, o, t.Maxms, o.Maxms)}
}

// rateCells are a latency-mode row's rate and, per run, the rate
// achieved and whether it kept up.
func rateCells(r CompareRow) []string {
	t, o := r.This, r.Other
	rate := fmtF(float64(t.Rate), 1)
	if t.Rate != o.Rate {
		rate += " / " + fmtF(float64(o.Rate), 1)
	}
	return []string{rate, caseFig(t, float64(t.AchievedRate), 1) + " / " + caseFig(o, float64(o.AchievedRate), 1),
		keptUpString(t) + " / " + keptUpString(o)}
}

// writeLatency writes the latency percentiles of both runs side by side
// (and, in latency mode, the rates), as text or Markdown.
func (cmp *Comparison) writeLatency(w io.Writer, markdown bool) error {
	header := []string{"case", "api"}
	if cmp.rateMode() {
		header = append(header, "rate/s", "sent/s", "kept up")
	}
	header = append(header, latencyHeader...)
	rows := [][]string{}
	for _, r := range cmp.Rows {
		row := []string{r.This.Title(), r.This.API}
		if cmp.rateMode() {
			row = append(row, rateCells(r)...)
		}
		rows = append(rows, append(row, latencyCells(r)...))
	}
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, row := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
		return nil
	}
	width := len("case")
	for _, row := range rows {
		width = max(width, len(row[0]))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range append([][]string{header}, rows...) {
		fmt.Fprintf(tw, "%-*s\t%s\t\n", width, row[0], strings.Join(row[1:], "\t"))
	}
	return tw.Flush()
}

// WriteTable writes the comparison: per case both throughputs and the
// ratio, both median latencies and the ratio, then both runs' latency
// percentiles; the memory per entry; and the goals when the other run is
// Hazelcast's. Latency-mode runs get the rates and the latency
// percentiles side by side instead of the throughputs.
func (cmp *Comparison) WriteTable(w io.Writer) error {
	a, b := cmp.This.Name(), cmp.Other.Name()
	if cmp.rateMode() {
		fmt.Fprintf(w, "%s / %s at the same rates: latency from each request's intended send time (this / other)\n", a, b)
	} else {
		fmt.Fprintf(w, "%s ÷ %s (ratios > 1: this run has more ops/s, or longer latencies)\n", a, b)
	}
	for _, n := range cmp.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w)
	if cmp.rateMode() {
		if err := cmp.writeLatency(w, false); err != nil {
			return err
		}
		return cmp.writeMemory(w)
	}
	width := len("case")
	for _, r := range cmp.Rows {
		width = max(width, len(r.This.Title()))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tapi\tops/s\tother ops/s\tratio\tp50 ms\tother p50 ms\tratio\t\n", width, "case")
	for _, r := range cmp.Rows {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", width, r.This.Title(), r.This.API,
			caseFig(r.This, float64(r.This.OpsPerSecMedian), 1), caseFig(r.Other, float64(r.Other.OpsPerSecMedian), 1), ratioString(r.OpsRatio),
			caseFig(r.This, float64(r.This.P50ms), 3), caseFig(r.Other, float64(r.Other.P50ms), 3), ratioString(r.P50Ratio))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nlatency percentiles (this / other)\n")
	if err := cmp.writeLatency(w, false); err != nil {
		return err
	}
	if err := cmp.writeMemory(w); err != nil {
		return err
	}
	if len(cmp.Goals) > 0 {
		met := 0
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "goal\tcase\tthis run\tratio\tmet\t")
		for _, g := range cmp.Goals {
			mark := "no"
			if g.Met {
				mark, met = "yes", met+1
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", g.What, g.ID, fmtF(g.Value, 1), ratioString(g.Ratio), mark)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "%d of %d goals met\n", met, len(cmp.Goals))
	}
	return nil
}

// writeMemory writes the memory per entry of the workload B maps of both
// runs.
func (cmp *Comparison) writeMemory(w io.Writer) error {
	if len(cmp.Memory) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-18s\tB/entry\tother B/entry\tratio\t\n", "B kind size")
	for _, m := range cmp.Memory {
		fmt.Fprintf(tw, "%-18s\t%s\t%s\t%s\t\n", m.Key, fmtF(m.This, 1), fmtF(m.Other, 1), ratioString(m.Ratio))
	}
	return tw.Flush()
}

func caseFig(c Case, v float64, decimals int) string {
	if !c.OK() {
		return "-"
	}
	return fmtF(v, decimals)
}

func ratioString(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if v >= 10 {
		return fmt.Sprintf("%.1fx", v)
	}
	return fmt.Sprintf("%.2fx", v)
}

// WriteMarkdown writes the comparison as Markdown tables: per case both
// throughputs, the ratio, both median latencies, and the goal with its
// verdict (when the other run is Hazelcast's), then both runs' latency
// percentiles (latency-mode runs: the rates and the percentiles); then
// the memory per entry.
func (cmp *Comparison) WriteMarkdown(w io.Writer) error {
	a, b := cmp.This.Name(), cmp.Other.Name()
	goalsOf := map[string][]Goal{}
	for _, g := range cmp.Goals {
		goalsOf[g.ID] = append(goalsOf[g.ID], g)
	}
	for _, n := range cmp.Notes {
		fmt.Fprintf(w, "Note: %s.\n\n", n)
	}
	if cmp.rateMode() {
		fmt.Fprintf(w, "Latency from each request's intended send time, ms: %s / %s.\n\n", a, b)
		if err := cmp.writeLatency(w, true); err != nil {
			return err
		}
	} else if err := cmp.writeThroughputMarkdown(w, goalsOf); err != nil {
		return err
	}
	if len(cmp.Memory) > 0 {
		fmt.Fprintf(w, "\n| B kind size | %s B/entry | %s B/entry | ratio | goal | met |\n|---|---:|---:|---:|---|---|\n", a, b)
		for _, m := range cmp.Memory {
			what, met := "", ""
			for _, g := range goalsOf["B "+m.Key+"/memory"] {
				what, met = g.What, map[bool]string{true: "yes", false: "**no**"}[g.Met]
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", m.Key, fmtF(m.This, 1), fmtF(m.Other, 1), ratioString(m.Ratio), what, met)
		}
	}
	if len(cmp.Goals) > 0 {
		met := 0
		for _, g := range cmp.Goals {
			if g.Met {
				met++
			}
		}
		fmt.Fprintf(w, "\n%d of %d goals met.\n", met, len(cmp.Goals))
	}
	return nil
}

// writeThroughputMarkdown writes the throughput table of two throughput
// runs with their goals, then their latency percentiles.
func (cmp *Comparison) writeThroughputMarkdown(w io.Writer, goalsOf map[string][]Goal) error {
	a, b := cmp.This.Name(), cmp.Other.Name()
	fmt.Fprintf(w, "| case | api | %s ops/s | %s ops/s | ratio | %s p50 ms | %s p50 ms | goal | met |\n", a, b, a, b)
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|---|")
	for _, r := range cmp.Rows {
		var what, met []string
		for _, g := range goalsOf[r.This.ID] {
			what = append(what, g.What)
			met = append(met, map[bool]string{true: "yes", false: fmt.Sprintf("**no** (%s)", ratioString(g.Ratio))}[g.Met])
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.This.Title(), r.This.API,
			caseFig(r.This, float64(r.This.OpsPerSecMedian), 1), caseFig(r.Other, float64(r.Other.OpsPerSecMedian), 1), ratioString(r.OpsRatio),
			caseFig(r.This, float64(r.This.P50ms), 3), caseFig(r.Other, float64(r.Other.P50ms), 3),
			strings.Join(what, "; "), strings.Join(met, "; "))
	}
	fmt.Fprintf(w, "\nLatency percentiles, ms: %s / %s.\n\n", a, b)
	return cmp.writeLatency(w, true)
}
