package tpch

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// Run holds the figures of one Q13 benchmark run.
type Run struct {
	Date          string  `json:"date"`
	GoVersion     string  `json:"goVersion"`
	CPUModel      string  `json:"cpuModel,omitempty"`
	CPUs          int     `json:"cpus"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
	MemberProcess string  `json:"memberProcess"`
	ScaleFactor   float64 `json:"scaleFactor"`
	Customers     int64   `json:"customers"`
	Orders        int64   `json:"orders"`
	// LoadSeconds is how long loading took on the first cluster.
	LoadSeconds float64 `json:"loadSeconds"`
	Runs        int     `json:"runs"`
	BatchBytes  int64   `json:"batchBytes"`
	// DuckDB is the reference: its time for the same query and data, in
	// the same run on the same machine.
	DuckDB    DuckDBFigures `json:"duckdb"`
	LoadStart float64       `json:"loadAvgStart"`
	LoadEnd   float64       `json:"loadAvgEnd"`
	Results   []Result      `json:"results"`
}

// DuckDBFigures are DuckDB's times.
type DuckDBFigures struct {
	Version  string    `json:"version"`
	Threads  int       `json:"threads"`
	Millis   []float64 `json:"millis"`
	MedianMs float64   `json:"medianMs"`
}

// Result is Q13 on one cluster size with one vector size.
type Result struct {
	Members    int       `json:"members"`
	VectorSize int64     `json:"vectorSize"`
	Millis     []float64 `json:"millis"`
	MedianMs   float64   `json:"medianMs"`
	// DuckDBMs is DuckDB's median on the same machine just before this
	// cluster size's runs (the machine's load moves); VsDuckDB is MedianMs
	// over it.
	DuckDBMs float64 `json:"duckdbMs"`
	VsDuckDB float64 `json:"vsDuckdb"`
	// CPUMsPerRun is the CPU time (user and system) the benchmark's
	// process used per timed run: every embedded member and the client.
	// Unlike the milliseconds, it hardly moves with the machine's load.
	CPUMsPerRun float64 `json:"cpuMsPerRun"`
	// Per timed run, summed over the members: microseconds waiting for
	// the locks and queues that hand rows to the join, and blocked
	// writing to a peer; messages, bytes and rows the members sent each
	// other.
	SchedulingWaitUs float64         `json:"schedulingWaitUsPerRun"`
	WriteBlockUs     float64         `json:"writeBlockUsPerRun"`
	Messages         float64         `json:"messagesPerRun"`
	Bytes            float64         `json:"bytesPerRun"`
	RowsShipped      float64         `json:"rowsShippedPerRun"`
	BytesPerRow      float64         `json:"bytesPerShippedRow"`
	PerMember        []MemberTraffic `json:"perMember,omitempty"`
	Load1            float64         `json:"load1"`
	Profiles         []string        `json:"profiles,omitempty"`
}

// MemberTraffic is one member's exchange traffic while the runs ran.
type MemberTraffic struct {
	Member            string  `json:"member"`
	MessagesPerSecond float64 `json:"messagesPerSecond"`
	KBPerSecond       float64 `json:"kbPerSecond"`
}

// Median returns the median of xs (NaN for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// vector prints a vector size ("-" for a single member, which sends no rows).
func (r Result) vector() string {
	if r.Members == 1 {
		return "-"
	}
	return fmt.Sprint(r.VectorSize)
}

// WriteTable prints the run as the Virtuoso article's table: one line per
// cluster size and vector size, the members' traffic below it.
func (run *Run) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "TPC-H Q13, scale factor %g (%d customers, %d orders), %s\n", run.ScaleFactor, run.Customers, run.Orders, run.MemberProcess)
	fmt.Fprintf(w, "DuckDB %s (%d threads): %.1f ms (median of %d) at the start, again before each cluster size; load average %.2f at the start, %.2f at the end\n\n",
		run.DuckDB.Version, run.DuckDB.Threads, run.DuckDB.MedianMs, len(run.DuckDB.Millis), run.LoadStart, run.LoadEnd)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "members\tvector size\tmsec\tDuckDB msec\t× DuckDB\tCPU msec\tsched wait µs\twrite-block µs\tmessages\tKB\tbytes/row\tload\t")
	for _, r := range run.Results {
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.1f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.2f\t\n", r.Members, r.vector(), r.MedianMs, r.DuckDBMs, r.VsDuckDB, r.CPUMsPerRun,
			r.SchedulingWaitUs, r.WriteBlockUs, r.Messages, r.Bytes/1024, r.BytesPerRow, r.Load1)
		for _, m := range r.PerMember {
			fmt.Fprintf(tw, "\t\t\t\t\t\t\t\t%.0f m/s\t%.0f KB/s\t%s\t\t\n", m.MessagesPerSecond, m.KBPerSecond, m.Member)
		}
	}
	return tw.Flush()
}

// WriteJSON writes the run as JSON.
func (run *Run) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(run)
}

// WriteHTML writes a self-contained page: the table and bar charts of the
// times and of the exchange counters per vector size (inline SVG, no
// script).
func (run *Run) WriteHTML(w io.Writer) error {
	type bar struct {
		Label        string
		Value        float64
		X, Y, W, H   float64
		TextX        float64
		Text, Colour string
	}
	type chart struct {
		Title string
		Bars  []bar
		H     float64
	}
	mk := func(title string, val func(Result) float64, unit string) chart {
		c := chart{Title: title}
		maxV := 0.0
		for _, r := range run.Results {
			maxV = max(maxV, val(r))
		}
		if title == "Q13 milliseconds" {
			maxV = max(maxV, run.DuckDB.MedianMs)
		}
		const width = 520.0
		y := 0.0
		add := func(label string, v float64, colour string) {
			wv := 0.0
			if maxV > 0 {
				wv = v / maxV * width
			}
			wv = math.Max(wv, 1)
			c.Bars = append(c.Bars, bar{Label: label, Value: v, X: 190, Y: y, W: wv, H: 18, TextX: 194 + wv, Text: fmt.Sprintf("%.1f %s", v, unit), Colour: colour})
			y += 24
		}
		if title == "Q13 milliseconds" {
			add(fmt.Sprintf("DuckDB (%d threads)", run.DuckDB.Threads), run.DuckDB.MedianMs, "#888")
		}
		colours := []string{"#3b7dd8", "#d8843b", "#3bb273", "#a03bd8"}
		for _, r := range run.Results {
			add(fmt.Sprintf("%d member(s), vector %s", r.Members, r.vector()), val(r), colours[(r.Members-1)%len(colours)])
		}
		c.H = y + 4
		return c
	}
	charts := []chart{
		mk("Q13 milliseconds", func(r Result) float64 { return r.MedianMs }, "ms"),
		mk("CPU milliseconds per run", func(r Result) float64 { return r.CPUMsPerRun }, "ms"),
		mk("Scheduling wait per run", func(r Result) float64 { return r.SchedulingWaitUs }, "µs"),
		mk("Write-block per run", func(r Result) float64 { return r.WriteBlockUs }, "µs"),
		mk("Messages per run", func(r Result) float64 { return r.Messages }, ""),
	}
	var table strings.Builder
	if err := run.WriteTable(&table); err != nil {
		return err
	}
	return q13Page.Execute(w, map[string]any{"Run": run, "Table": table.String(), "Charts": charts})
}

var q13Page = template.Must(template.New("q13").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Atoll: TPC-H Q13 at SF {{.Run.ScaleFactor}}</title>
<style>body{font-family:sans-serif;margin:2em;max-width:900px}pre{background:#f4f4f4;padding:1em;overflow-x:auto}
text{font-size:12px}</style></head><body>
<h1>TPC-H Q13, scale factor {{.Run.ScaleFactor}}</h1>
<p>{{.Run.Date}}, Go {{.Run.GoVersion}}, {{.Run.CPUModel}} ({{.Run.CPUs}} CPUs, GOMAXPROCS {{.Run.GOMAXPROCS}});
{{.Run.MemberProcess}}; {{.Run.Runs}} timed runs per setting after a warm-up, batch bytes {{.Run.BatchBytes}}.</p>
<pre>{{.Table}}</pre>
{{range .Charts}}<h2>{{.Title}}</h2>
<svg width="900" height="{{.H}}" xmlns="http://www.w3.org/2000/svg">
{{range .Bars}}<text x="0" y="{{.Y}}" dy="13">{{.Label}}</text><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Colour}}"/><text x="{{.TextX}}" y="{{.Y}}" dy="13">{{.Text}}</text>
{{end}}</svg>
{{end}}</body></html>
`))
