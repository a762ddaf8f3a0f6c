package overload

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Report is a run with the breaker on and one with it off, on the same
// machine, with what they ran on.
type Report struct {
	Date      string  `json:"date"`
	GoVersion string  `json:"goVersion"`
	CPUModel  string  `json:"cpuModel"`
	CPUs      int     `json:"cpus"`
	On        *Result `json:"breakerOn,omitempty"`
	Off       *Result `json:"breakerOff,omitempty"`
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Checks are the workload's goals, judged on the run with the breaker on,
// and the contrast of the run with it off.
type Checks struct {
	// NoMemberFailed: no member died, stalled or passed its memory limit.
	NoMemberFailed bool
	// MedianAtLast is the median throughput at the largest client count,
	// Peak the highest median; the goal is MedianAtLast ≥ 90% of Peak.
	MedianAtLast, Peak float64
	// MaxP100Ms is the highest p100 latency, under RetryBudgetMs.
	MaxP100Ms float64
	// ErrorsBeforeTrip counts the queries that failed at client counts
	// below the first at which the breaker acted; the goal is 0.
	ErrorsBeforeTrip int64
	// Settled: query memory back to 0 and the query engine's goroutines
	// to their count before the workload on every member.
	Settled bool
	// OffFailedAt is the client count at which a member died or stalled
	// with the breaker off (0: none did).
	OffFailedAt int
}

// Check judges the report.
func (r *Report) Check() Checks {
	var c Checks
	if on := r.On; on != nil && len(on.Steps) > 0 {
		c.NoMemberFailed = on.FailedAt == 0
		for _, s := range on.Steps {
			c.NoMemberFailed = c.NoMemberFailed && s.MaxAnonBytes <= on.MemoryLimit
			c.Peak = max(c.Peak, s.MedianThroughput)
			c.MaxP100Ms = max(c.MaxP100Ms, s.P100Ms)
			if on.FirstTrip == 0 || s.Clients < on.FirstTrip {
				c.ErrorsBeforeTrip += s.Errors
			}
		}
		c.MedianAtLast = on.Steps[len(on.Steps)-1].MedianThroughput
		c.Settled = on.FailedAt == 0 && len(on.ReservedAfter) == on.Members
		for i, v := range on.ReservedAfter {
			c.Settled = c.Settled && v == 0 && on.EngineGoroutinesAfter[i] <= on.EngineGoroutinesBefore[i]
		}
	}
	if r.Off != nil {
		c.OffFailedAt = r.Off.FailedAt
	}
	return c
}

// WriteTable writes the document's table, breaker on/off per cell, then
// the goals.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "clients\terror %\tmin q/s\tmedian q/s\tmax q/s\tp50 ms\tp90 ms\tp100 ms\trejected\tterminated\twaiting\tmax RSS MiB\tmax anon MiB\tgets (failed)\tmember CPU ms/answer\tclient CPU ms/answer\tsteal %\t")
	for _, n := range r.clients() {
		on, off := r.On.step(n), r.Off.step(n)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n,
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.ErrorRate) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.MinThroughput) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.MedianThroughput) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.MaxThroughput) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.0f", s.P50Ms) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.0f", s.P90Ms) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.0f", s.P100Ms) }),
			pair(on, off, func(s *Step) string { return fmt.Sprint(s.Rejected) }),
			pair(on, off, func(s *Step) string { return fmt.Sprint(s.Terminated) }),
			pair(on, off, func(s *Step) string { return fmt.Sprint(s.MaxWaiting) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.0f", float64(s.MaxRSSBytes)/(1<<20)) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.0f", float64(s.MaxAnonBytes)/(1<<20)) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%d (%d)", s.Gets, s.GetFailures) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.MemberCPUMsPerQuery) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.ClientCPUMsPerQuery) }),
			pair(on, off, func(s *Step) string { return fmt.Sprintf("%.1f", s.StealPercent) }))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "cells: breaker on/off; an empty side did not run (a member had died or stalled)")
	for _, res := range []*Result{r.On, r.Off} {
		if res == nil {
			continue
		}
		state := map[bool]string{true: "on", false: "off"}[res.Breaker]
		fmt.Fprintf(w, "breaker %s: %d members, memory limit %s each (killed above %s), %d build rows of %d bytes, %d probe rows, %s per client count, load %.2f → %.2f\n",
			state, res.Members, mib(res.MemoryLimit), mib(res.KillAbove), res.Size.BuildRows, res.Size.PadBytes, res.Size.ProbeRows,
			res.stepTime(), res.LoadStart, res.LoadEnd)
		if res.Passes > 1 {
			fmt.Fprintf(w, "  median q/s of each pass alone, per client count:")
			for _, st := range res.Steps {
				fmt.Fprintf(w, " %d: %v;", st.Clients, st.PassMedians)
			}
			fmt.Fprintln(w)
		}
		var other int64
		for _, st := range res.Steps {
			other += st.OtherErrors
		}
		fmt.Fprintf(w, "  queries that failed for something else than a memory refusal: %d\n", other)
		switch {
		case res.FailedAt > 0:
			fmt.Fprintf(w, "  at %d clients %s\n", res.FailedAt, res.Failure)
		default:
			fmt.Fprintf(w, "  no member died or stalled; after the workload: query memory %v bytes, query engine goroutines %v (before: %v), goroutines in all %v (before: %v)\n",
				res.ReservedAfter, res.EngineGoroutinesAfter, res.EngineGoroutinesBefore, res.GoroutinesAfter, res.GoroutinesBefore)
		}
		if res.FirstTrip > 0 {
			fmt.Fprintf(w, "  the breaker first acted at %d clients\n", res.FirstTrip)
		}
	}
	if r.On != nil {
		c := r.Check()
		fmt.Fprintf(w, "goals (breaker on): no member died, stalled or passed its limit: %s; median at %d clients %.2f q/s = %.0f%% of the peak %.2f (goal ≥ 90%%): %s; p100 %.0f ms under the retry budget %.0f ms: %s; errors below the first trip: %d: %s; memory and goroutines back after the workload: %s\n",
			yes(c.NoMemberFailed), r.On.Steps[len(r.On.Steps)-1].Clients, c.MedianAtLast, 100*c.MedianAtLast/c.Peak, c.Peak,
			yes(c.MedianAtLast >= 0.9*c.Peak), c.MaxP100Ms, r.On.RetryBudgetMs, yes(c.MaxP100Ms < r.On.RetryBudgetMs),
			c.ErrorsBeforeTrip, yes(c.ErrorsBeforeTrip == 0), yes(c.Settled))
	}
	return nil
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

func pair(on, off *Step, f func(*Step) string) string {
	a, b := "", ""
	if on != nil {
		a = f(on)
	}
	if off != nil {
		b = f(off)
	}
	return a + "/" + b
}

// stepTime says how long each client count ran.
func (res *Result) stepTime() string {
	if res.Passes > 1 {
		return fmt.Sprintf("%d passes of %gs (all client counts in order each time; the figures pool them)", res.Passes, res.StepSeconds)
	}
	return fmt.Sprintf("%gs", res.StepSeconds)
}

// clients returns the client counts of either run, in order.
func (r *Report) clients() []int {
	var out []int
	seen := map[int]bool{}
	for _, res := range []*Result{r.On, r.Off} {
		if res == nil {
			continue
		}
		for _, s := range res.Steps {
			if !seen[s.Clients] {
				seen[s.Clients] = true
				out = append(out, s.Clients)
			}
		}
	}
	return out
}

func (res *Result) step(clients int) *Step {
	if res == nil {
		return nil
	}
	for i := range res.Steps {
		if res.Steps[i].Clients == clients {
			return &res.Steps[i]
		}
	}
	return nil
}

// graph is one of the document's five graphs.
type graph struct {
	Title, Unit string
	Value       func(Step) float64
}

var graphs = []graph{
	{"Error rate", "%", func(s Step) float64 { return s.ErrorRate }},
	{"Median throughput", "queries/s", func(s Step) float64 { return s.MedianThroughput }},
	{"Max throughput", "queries/s", func(s Step) float64 { return s.MaxThroughput }},
	{"Latency (p90)", "ms", func(s Step) float64 { return s.P90Ms }},
	{"Latency (p100)", "ms", func(s Step) float64 { return s.P100Ms }},
}

// WriteSVG writes the five graphs (error rate, median and max throughput,
// p90 and p100 latency against the client count, breaker on and off) as
// one SVG image.
func (r *Report) WriteSVG(w io.Writer) error {
	const width, height, left, top, gap = 760.0, 220.0, 70.0, 30.0, 60.0
	xs := r.clients()
	var b strings.Builder
	total := float64(len(graphs))*(height+gap) + top
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width+left+150, total)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	series := []struct {
		res    *Result
		label  string
		colour string
	}{{r.On, "breaker on", "#4e79a7"}, {r.Off, "breaker off", "#e15759"}}
	for gi, g := range graphs {
		y0 := top + float64(gi)*(height+gap)
		top := 0.0
		for _, s := range series {
			if s.res != nil {
				for _, st := range s.res.Steps {
					top = max(top, g.Value(st))
				}
			}
		}
		top = niceCeil(top)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s (%s)</text>`+"\n", left, y0-8, g.Title, g.Unit)
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, y0, width, height)
		for t := 0; t <= 4; t++ {
			v := top * float64(t) / 4
			y := y0 + height - height*float64(t)/4
			fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n",
				left, left+width, y, y, left-4, y+4, tick(v))
		}
		x := func(i int) float64 {
			if len(xs) < 2 {
				return left + width/2
			}
			return left + width*float64(i)/float64(len(xs)-1)
		}
		for i, n := range xs {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%d</text>`+"\n", x(i), y0+height+14, n)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">clients</text>`+"\n", left+width/2, y0+height+28)
		for si, s := range series {
			if s.res == nil {
				continue
			}
			var pts []string
			for i, n := range xs {
				st := s.res.step(n)
				if st == nil {
					continue
				}
				y := y0 + height
				if top > 0 {
					y -= height * g.Value(*st) / top
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`+"\n", x(i), y, s.colour)
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.colour, strings.Join(pts, " "))
			fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
				left+width+14, y0+float64(si)*18, s.colour, left+width+30, y0+float64(si)*18+10, s.label)
			if s.res.FailedAt > 0 {
				fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s">member down at %d</text>`+"\n",
					left+width+14, y0+float64(si)*18+40, s.colour, s.res.FailedAt)
			}
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// WriteHTML writes a self-contained page: the table, the goals and the
// five graphs (inline SVG, no script).
func (r *Report) WriteHTML(w io.Writer) error {
	var table, svg strings.Builder
	if err := r.WriteTable(&table); err != nil {
		return err
	}
	if err := r.WriteSVG(&svg); err != nil {
		return err
	}
	return page.Execute(w, map[string]any{"R": r, "Table": table.String(), "SVG": template.HTML(svg.String())})
}

var page = template.Must(template.New("overload").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Atoll: join overload, breaker on and off</title>
<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em;overflow-x:auto}</style></head><body>
<h1>Join overload: the query memory circuit breaker on and off</h1>
<p>{{.R.Date}}, Go {{.R.GoVersion}}, {{.R.CPUModel}} ({{.R.CPUs}} CPUs); members are separate processes with a memory limit.</p>
<pre>{{.Table}}</pre>
{{.SVG}}
</body></html>
`))
