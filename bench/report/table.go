package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the run's figures as the workloads' tables do: one
// row per case and API (ops/s, latency percentiles, memory per entry of
// the map for workload B, SQL÷PRED, the CPU the process used), then the
// sizes and memory cost of the workload B maps. A run in latency mode
// has its own table (WriteRateTable).
func (r *Run) WriteTable(w io.Writer) error {
	if r.RateMode {
		return r.WriteRateTable(w)
	}
	var entries []string
	if r.AEntries > 0 {
		entries = append(entries, fmt.Sprintf("A %d entries", r.AEntries))
	}
	if r.BEntries > 0 {
		entries = append(entries, fmt.Sprintf("B %d entries", r.BEntries))
	}
	fmt.Fprintf(w, "%s, %s mode, %d client threads, %s, %d rounds\n\n",
		r.Name(), r.Mode, r.ClientThreads, strings.Join(entries, ", "), r.Rounds)
	width := r.titleWidth()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tapi\tcheck\tops/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\tB/entry\tSQL÷PRED\tCPU cores\t\n", width, "case")
	for _, c := range r.Cases {
		mem := ""
		if b, ok := r.WorkloadB[strings.TrimPrefix(c.Group, "B ")]; ok && strings.HasPrefix(c.Group, "B ") && c.Name == "read" {
			mem = fmtF(float64(b.MemoryCostPerEntry), 1)
		}
		if !c.OK() {
			fmt.Fprintf(tw, "%-*s\t%s\tERROR\t\t\t\t\t\t%s\t\t\t\n", width, c.Title(), c.API, mem)
			continue
		}
		ratio := ""
		if v, ok := r.SQLToPred(c); ok {
			ratio = fmt.Sprintf("%.2f", v)
		}
		cores := "-"
		if c.ProcessCPU > 0 {
			cores = fmtF(float64(c.ProcessCPU), 2)
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", width, c.Title(), c.API, checkString(c.Check),
			fmtF(float64(c.OpsPerSecMedian), 1), fmtF(float64(c.P50ms), 3), fmtF(float64(c.P90ms), 3),
			fmtF(float64(c.P99ms), 3), fmtF(float64(c.Maxms), 3), mem, ratio, cores)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r.writeErrors(w)
	if keys := r.BKeys(); len(keys) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%-18s\tvalue bytes\tbyte[] length\towned entries\tmemory B/entry\t\n", "B kind size")
		for _, k := range keys {
			b := r.WorkloadB[k]
			fmt.Fprintf(tw, "%-18s\t%d\t%d\t%d\t%s\t\n", k, b.ValueDataTotalSize, b.ByteArrayLength, b.OwnedEntryCount, fmtF(float64(b.MemoryCostPerEntry), 1))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// WriteRateTable writes a latency-mode run: per case and API the rate
// scheduled and achieved, whether the run kept up, and the latency
// percentiles from each request's intended send time.
func (r *Run) WriteRateTable(w io.Writer) error {
	var entries []string
	if r.AEntries > 0 {
		entries = append(entries, fmt.Sprintf("A %d entries, warm-up %gs, schedule %gs", r.AEntries, float64(r.AWarmupSeconds), float64(r.ADurationSeconds)))
	}
	if r.BEntries > 0 {
		entries = append(entries, fmt.Sprintf("B %d entries, warm-up %gs, schedule %gs", r.BEntries, float64(r.BWarmupSeconds), float64(r.BDurationSeconds)))
	}
	fmt.Fprintf(w, "%s, latency mode (open loop; latency from each request's intended send time), at most %d requests in flight, %s\n\n",
		r.Name(), r.ClientThreads, strings.Join(entries, "; "))
	width := r.titleWidth()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tapi\tcheck\trate/s\tsent/s\tkept up\trequests\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tp99.99 ms\tmax ms\tCPU cores\t\n", width, "case")
	for _, c := range r.Cases {
		if !c.OK() {
			fmt.Fprintf(tw, "%-*s\t%s\tERROR\t%s\t\t\t\t\t\t\t\t\t\t\t\n", width, c.Title(), c.API, fmtF(float64(c.Rate), 1))
			continue
		}
		cores := "-"
		if c.ProcessCPU > 0 {
			cores = fmtF(float64(c.ProcessCPU), 2)
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", width, c.Title(), c.API, checkString(c.Check),
			fmtF(float64(c.Rate), 1), fmtF(float64(c.AchievedRate), 1), keptUpString(c), c.Scheduled,
			fmtF(float64(c.P50ms), 3), fmtF(float64(c.P90ms), 3), fmtF(float64(c.P99ms), 3),
			fmtF(float64(c.P999ms), 3), fmtF(float64(c.P9999ms), 3), fmtF(float64(c.Maxms), 3), cores)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r.writeErrors(w)
	return nil
}

// titleWidth is the width of the case column: the longest case title.
func (r *Run) titleWidth() int {
	width := len("case")
	for _, c := range r.Cases {
		width = max(width, len(c.Title()))
	}
	return width
}

// keptUpString says whether a latency-mode case kept its schedule, with
// the requests it never sent.
func keptUpString(c Case) string {
	switch {
	case c.KeptUp == nil:
		return "-"
	case *c.KeptUp:
		return "yes"
	case c.Unsent > 0:
		return fmt.Sprintf("no (%d unsent)", c.Unsent)
	}
	return "no"
}

// writeErrors lists the cases that failed, with their errors.
func (r *Run) writeErrors(w io.Writer) {
	first := true
	for _, c := range r.Cases {
		if c.OK() {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		msg := c.Error
		if msg == "" {
			msg = "no figures"
		}
		fmt.Fprintf(w, "ERROR %s: %s\n", c.ID, oneLine(strings.TrimPrefix(msg, c.ID+": "), 300))
	}
}

func checkString(c *int64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprint(*c)
}

func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// fmtF formats a figure with thousands separators; "-" when it is missing.
func fmtF(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	s := fmt.Sprintf("%.*f", decimals, v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, ch := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
