package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"regexp"
	"strings"
)

// chartJS is Chart.js, embedded whole in every page (see vendor/).
//
//go:embed vendor/chartjs-4.6.1/chart.umd.min.js
var chartJS string

// ChartLibrary names the charting library the pages embed.
const ChartLibrary = "Chart.js v4.6.1"

// chart is one chart of the page, drawn by the page's script: bars of
// Datasets over Labels, or (Percentiles) the lines of Series on
// HdrHistogram's percentile plot.
type chart struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Labels      []string  `json:"labels"`
	Datasets    []dataset `json:"datasets"`
	YTitle      string    `json:"yTitle"`
	Log         bool      `json:"log"`
	Horizontal  bool      `json:"horizontal"`
	Percentiles bool      `json:"percentiles,omitempty"`
	Series      []series  `json:"series,omitempty"`
}

// series is one latency distribution on a percentile plot: points
// (1/(1-p), latency in ms), the last finite percentile last.
type series struct {
	Label  string       `json:"label"`
	Color  string       `json:"color"`
	Dashed bool         `json:"dashed"`
	Points [][2]float64 `json:"points"`
}

type dataset struct {
	Label string     `json:"label"`
	Data  []*float64 `json:"data"`
	Color string     `json:"color"`
}

var palette = map[string]string{
	"SQL": "#4e79a7", "PRED": "#f28e2b", "MAP": "#59a14f", "read": "#59a14f", "write": "#e15759",
	"p50": "#76b7b2", "p90": "#edc948", "p99": "#b07aa1", "this": "#4e79a7", "other": "#9c755f", "ratio": "#4e79a7",
}

func fig(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func okFig(c Case, ok bool, v Float) *float64 {
	if !ok || !c.OK() {
		return nil
	}
	return fig(float64(v))
}

// throughputChart draws SQL against PRED for the cases of groups that
// match keep.
func throughputChart(r *Run, id, title string, keep func(Case) bool) *chart {
	ch := &chart{ID: id, Title: title, YTitle: "ops/s (median of rounds, log scale)", Log: true}
	var sql, pred []*float64
	for _, c := range r.Cases {
		if c.API != "SQL" || !keep(c) {
			continue
		}
		p, ok := r.Case(c.Group + "/" + c.Name + "/PRED")
		ch.Labels = append(ch.Labels, c.Title())
		sql = append(sql, okFig(c, true, c.OpsPerSecMedian))
		pred = append(pred, okFig(p, ok, p.OpsPerSecMedian))
	}
	if len(ch.Labels) == 0 {
		return nil
	}
	ch.Datasets = []dataset{{Label: "SQL", Data: sql, Color: palette["SQL"]}, {Label: "PRED", Data: pred, Color: palette["PRED"]}}
	return ch
}

func latencyChart(r *Run, id, title string, keep func(Case) bool) *chart {
	ch := &chart{ID: id, Title: title, YTitle: "ms (HdrHistogram percentiles, log scale)", Log: true}
	var p50, p90, p99 []*float64
	for _, c := range r.Cases {
		if !keep(c) {
			continue
		}
		ch.Labels = append(ch.Labels, c.Title()+" "+c.API)
		p50 = append(p50, okFig(c, true, c.P50ms))
		p90 = append(p90, okFig(c, true, c.P90ms))
		p99 = append(p99, okFig(c, true, c.P99ms))
	}
	if len(ch.Labels) == 0 {
		return nil
	}
	ch.Datasets = []dataset{{Label: "p50", Data: p50, Color: palette["p50"]}, {Label: "p90", Data: p90, Color: palette["p90"]}, {Label: "p99", Data: p99, Color: palette["p99"]}}
	return ch
}

func mapOpsChart(r *Run) *chart {
	ch := &chart{ID: "b-map", Title: "Workload B: get and set", YTitle: "ops/s (median of rounds)"}
	var read, write []*float64
	for _, k := range r.BKeys() {
		rc, okR := r.Case("B " + k + "/read/MAP")
		wc, okW := r.Case("B " + k + "/write/MAP")
		if !okR && !okW {
			continue
		}
		ch.Labels = append(ch.Labels, k)
		read = append(read, okFig(rc, okR, rc.OpsPerSecMedian))
		write = append(write, okFig(wc, okW, wc.OpsPerSecMedian))
	}
	if len(ch.Labels) == 0 {
		return nil
	}
	ch.Datasets = []dataset{{Label: "get (read)", Data: read, Color: palette["read"]}, {Label: "set (write)", Data: write, Color: palette["write"]}}
	return ch
}

func memoryChart(r, other *Run) *chart {
	ch := &chart{ID: "b-memory", Title: "Workload B: memory cost per entry (owned entries)", YTitle: "bytes per entry"}
	var this, oth []*float64
	for _, k := range r.BKeys() {
		ch.Labels = append(ch.Labels, k)
		this = append(this, fig(float64(r.WorkloadB[k].MemoryCostPerEntry)))
		if other != nil {
			if o, ok := other.WorkloadB[k]; ok {
				oth = append(oth, fig(float64(o.MemoryCostPerEntry)))
			} else {
				oth = append(oth, nil)
			}
		}
	}
	if len(ch.Labels) == 0 {
		return nil
	}
	ch.Datasets = []dataset{{Label: r.Name(), Data: this, Color: palette["this"]}}
	if other != nil {
		ch.Datasets = append(ch.Datasets, dataset{Label: other.Name(), Data: oth, Color: palette["other"]})
	}
	return ch
}

func ratioChart(cmp *Comparison) *chart {
	ch := &chart{ID: "ratio", Title: fmt.Sprintf("Throughput ratio %s ÷ %s per case", cmp.This.Name(), cmp.Other.Name()),
		YTitle: "ratio of median ops/s (log scale; 1 = equal)", Log: true, Horizontal: true}
	var ratios []*float64
	for _, r := range cmp.Rows {
		ch.Labels = append(ch.Labels, r.This.Title()+" "+r.This.API)
		ratios = append(ratios, fig(r.OpsRatio))
	}
	ch.Datasets = []dataset{{Label: "ops/s ratio", Data: ratios, Color: palette["ratio"]}}
	return ch
}

// distributionSeries turns a case's histogram into a series (ok false
// when the case has no histogram or failed).
func distributionSeries(c Case, label, color string, dashed bool) (series, bool, error) {
	if !c.OK() {
		return series{}, false, nil
	}
	h, err := c.Latency()
	if err != nil || h == nil {
		return series{}, false, err
	}
	s := series{Label: fmt.Sprintf("%s (max %s ms)", label, fmtF(float64(c.Maxms), 3)), Color: color, Dashed: dashed}
	for _, p := range h.Distribution() {
		if x := p.InvertedPercentile(); !math.IsInf(x, 0) {
			s.Points = append(s.Points, [2]float64{x, float64(p.Latency) / 1e6})
		}
	}
	return s, len(s.Points) > 0, nil
}

// percentileCharts draws, per case, the latency distribution of each API
// on one percentile plot (as HdrHistogram's plotter draws them: latency
// against percentile on a log scale of 1/(1-p)), with the other run's
// distributions dashed when there is one.
func percentileCharts(r, other *Run) ([]*chart, error) {
	var out []*chart
	seen := map[string]bool{}
	for _, c := range r.Cases {
		key := c.Group + "/" + c.Name
		if seen[key] {
			continue
		}
		seen[key] = true
		title := c.Title() + ": latency by percentile"
		if c.Rate > 0 {
			title = fmt.Sprintf("%s at %s requests/s: latency by percentile (from each request's intended send time)", c.Title(), fmtF(float64(c.Rate), 1))
		}
		ch := &chart{ID: "pct-" + strings.NewReplacer("/", "-", " ", "-", "(", "", ")", "").Replace(key), Title: title,
			YTitle: "latency, ms", Percentiles: true}
		for _, run := range []*Run{r, other} {
			if run == nil {
				continue
			}
			for _, api := range []string{"SQL", "PRED", "MAP"} {
				rc, ok := run.Case(key + "/" + api)
				if !ok {
					continue
				}
				label := api
				if other != nil {
					label = run.Name() + " " + api
				}
				s, ok, err := distributionSeries(rc, label, palette[api], run == other)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", rc.ID, err)
				}
				if ok {
					ch.Series = append(ch.Series, s)
				}
			}
		}
		if len(ch.Series) > 0 {
			out = append(out, ch)
		}
	}
	return out, nil
}

func isA(c Case) bool      { return strings.HasPrefix(c.Group, "A") }
func isBQuery(c Case) bool { return strings.HasPrefix(c.Group, "B ") && c.Name == "query" }
func isBMap(c Case) bool   { return strings.HasPrefix(c.Group, "B ") && c.API == "MAP" }

type page struct {
	Title      string
	Run        *Run
	Cmp        *Comparison
	Table      string
	CmpTable   string
	Env        [][2]string
	Library    string
	ChartsJSON template.JS
	ChartJS    template.JS
}

// WriteHTML writes a self-contained page: the environment, charts of
// throughput (SQL and PRED side by side), latency percentiles, get and
// set, and memory per entry, and the tables; with a comparison (cmp may
// be nil), the ratio per case and the other run's memory too. A run in
// latency mode gets, per case, the percentile distribution of SQL and
// PRED on one plot instead (the other run's dashed beside them). The
// page embeds its charting library and loads nothing from anywhere.
func (r *Run) WriteHTML(w io.Writer, cmp *Comparison) error {
	var other *Run
	if cmp != nil {
		other = cmp.Other
	}
	charts, err := r.charts(cmp, other)
	if err != nil {
		return err
	}
	js, err := json.Marshal(charts)
	if err != nil {
		return err
	}
	var table, cmpTable strings.Builder
	if err := r.WriteTable(&table); err != nil {
		return err
	}
	if cmp != nil {
		if err := cmp.WriteTable(&cmpTable); err != nil {
			return err
		}
	}
	p := page{
		Title: "atoll-bench: " + r.Name() + ", " + r.Date, Run: r, Cmp: cmp,
		Table: table.String(), CmpTable: cmpTable.String(), Env: environment(r), Library: ChartLibrary,
		ChartsJSON: template.JS(js), ChartJS: template.JS(embeddedLibrary()),
	}
	return pageTemplate.Execute(w, p)
}

// Chart is a bar chart of a page that WritePage draws: a group of bars
// per label, a bar per series in each.
type Chart struct {
	ID, Title, YTitle string
	Labels            []string
	Series            []Series
	Log               bool
}

// Series is one bar of every label of a chart (NaN: no bar).
type Series struct {
	Label string
	Data  []float64
}

// seriesColors colour the series of a Chart in order.
var seriesColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"}

// WritePage writes a self-contained page like WriteHTML's for a workload
// with figures of its own: the environment rows, the charts, and the
// figures' table as preformatted text.
func WritePage(w io.Writer, title string, env [][2]string, table string, charts []Chart) error {
	out := make([]*chart, 0, len(charts))
	for _, c := range charts {
		ch := &chart{ID: c.ID, Title: c.Title, YTitle: c.YTitle, Labels: c.Labels, Log: c.Log}
		for i, s := range c.Series {
			d := dataset{Label: s.Label, Color: seriesColors[i%len(seriesColors)]}
			for _, v := range s.Data {
				d.Data = append(d.Data, fig(v))
			}
			ch.Datasets = append(ch.Datasets, d)
		}
		out = append(out, ch)
	}
	js, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, page{Title: title, Table: table, Env: env, Library: ChartLibrary,
		ChartsJSON: template.JS(js), ChartJS: template.JS(embeddedLibrary())})
}

// embeddedLibrary is Chart.js without its source map comment (the map is
// not shipped).
func embeddedLibrary() string {
	lib := chartJS
	if i := strings.LastIndex(lib, "\n//# sourceMappingURL="); i >= 0 {
		lib = lib[:i+1]
	}
	return lib
}

// charts are the page's charts: percentile plots in latency mode, the
// throughput and latency bars otherwise.
func (r *Run) charts(cmp *Comparison, other *Run) ([]*chart, error) {
	if r.RateMode {
		var otherRate *Run
		if other != nil && other.RateMode {
			otherRate = other
		}
		return percentileCharts(r, otherRate)
	}
	var charts []*chart
	for _, ch := range []*chart{
		throughputChart(r, "a-ops", "Workload A: throughput, SQL and predicate side by side", isA),
		latencyChart(r, "a-lat", "Workload A: latency", isA),
		throughputChart(r, "b-query", "Workload B: query throughput, SQL and predicate side by side", isBQuery),
		latencyChart(r, "b-query-lat", "Workload B: query latency", isBQuery),
		mapOpsChart(r),
		latencyChart(r, "b-map-lat", "Workload B: get and set latency", isBMap),
		memoryChart(r, other),
	} {
		if ch != nil {
			charts = append(charts, ch)
		}
	}
	if cmp != nil {
		charts = append([]*chart{ratioChart(cmp)}, charts...)
	}
	return charts, nil
}

// bannerComment matches the license banners of the embedded library (the
// only place a page names a web address).
var bannerComment = regexp.MustCompile(`(?s)/\*!.*?\*/`)

// ExternalReferences returns the places where an HTML page refers to
// anything outside itself: web addresses (outside the embedded library's
// license banners), script sources, links, imports and style URLs, source
// maps. A page written by WriteHTML has none.
func ExternalReferences(page string) []string {
	stripped := bannerComment.ReplaceAllString(page, "")
	var out []string
	for _, bad := range []string{"http://", "https://", "<script src", "<link", "@import", "url(", "sourceMappingURL", "//cdn"} {
		for rest, off := stripped, 0; ; {
			i := strings.Index(rest, bad)
			if i < 0 {
				break
			}
			at := off + i
			out = append(out, stripped[max(0, at-40):min(len(stripped), at+60)])
			rest, off = rest[i+len(bad):], at+len(bad)
		}
	}
	return out
}

func environment(r *Run) [][2]string {
	env := [][2]string{{"date", r.Date}}
	add := func(k, v string) {
		if v != "" && v != "0" {
			env = append(env, [2]string{k, v})
		}
	}
	add("Go", r.GoVersion)
	add("Hazelcast", r.HazelcastVersion)
	add("Java", r.JavaVersion)
	add("OS/arch", strings.Trim(r.OS+"/"+r.Arch, "/"))
	add("CPU", r.CPUModel)
	add("CPUs", fmt.Sprint(r.CPUs))
	add("GOMAXPROCS", fmt.Sprint(r.GOMAXPROCS))
	add("members", fmt.Sprintf("%d (%s)", r.Members, r.MemberProcess))
	add("client threads", fmt.Sprint(r.ClientThreads))
	add("client memory", r.ClientMemory)
	add("mode", r.Mode)
	add("entries", fmt.Sprintf("A %d, B %d", r.AEntries, r.BEntries))
	var proto []string
	phase, rest := "rounds of", fmt.Sprintf("%d rounds", r.Rounds)
	if r.RateMode {
		phase, rest = "schedule", fmt.Sprintf("at most %d requests in flight", r.ClientThreads)
	}
	if r.AEntries > 0 {
		proto = append(proto, fmt.Sprintf("A warm-up %gs, %s %gs", float64(r.AWarmupSeconds), phase, float64(r.ADurationSeconds)))
	}
	if r.BEntries > 0 {
		proto = append(proto, fmt.Sprintf("B warm-up %gs, %s %gs", float64(r.BWarmupSeconds), phase, float64(r.BDurationSeconds)))
	}
	if r.RateMode {
		add("protocol", "latency mode (open loop): "+strings.Join(append(proto, rest), "; "))
	} else {
		add("protocol", strings.Join(append(proto, rest), "; "))
	}
	add("total", fmt.Sprintf("%.0f s", float64(r.TotalSeconds)))
	if r.LoadAvg != nil {
		add("load average (1 min)", fmt.Sprintf("%.2f at start, %.2f at end", float64(r.LoadAvg.Start), float64(r.LoadAvg.End)))
	}
	return env
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 1200px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
table.env td { padding: 0.1rem 1rem 0.1rem 0; vertical-align: top; }
table.env td:first-child { color: #666; }
.chart { position: relative; height: 420px; margin: 1rem 0 2rem; }
pre { background: #f6f6f6; padding: 0.8rem; overflow-x: auto; font-size: 12px; }
footer { color: #888; font-size: 0.8rem; margin-top: 2rem; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<table class="env">
{{range .Env}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>
{{if .Cmp}}<p>Compared with {{.Cmp.Other.Name}}, {{.Cmp.Other.Date}}.</p>{{end}}
<div id="charts"></div>
<h2>Figures</h2>
<pre>{{.Table}}</pre>
{{if .Cmp}}<h2>Comparison</h2>
<pre>{{.CmpTable}}</pre>{{end}}
<footer>Charts drawn with {{.Library}} (MIT License), embedded in this page.</footer>
<script>
{{.ChartJS}}
</script>
<script>
(function () {
  // HdrHistogram's percentile plot: x is 1/(1-p) on a log scale, so
  // 90%, 99%, 99.9%... lie at 10, 100, 1000...
  function percentileLabel(v) {
    var nines = Math.round(Math.log10(v));
    if (nines <= 0) { return "0%"; }
    return (100 - 100 / Math.pow(10, nines)).toFixed(Math.max(0, nines - 2)) + "%";
  }
  function percentilePlot(canvas, c) {
    var maxX = 10;
    c.series.forEach(function (s) { s.points.forEach(function (p) { maxX = Math.max(maxX, p[0]); }); });
    maxX = Math.pow(10, Math.ceil(Math.log10(maxX)));
    new Chart(canvas, {
      type: "line",
      data: { datasets: c.series.map(function (s) {
        return { label: s.label, data: s.points.map(function (p) { return { x: p[0], y: p[1] }; }),
          borderColor: s.color, backgroundColor: s.color, borderDash: s.dashed ? [6, 4] : [], pointRadius: 0, borderWidth: 2 };
      }) },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: "logarithmic", min: 1, max: maxX, title: { display: true, text: "percentile" },
            afterBuildTicks: function (axis) {
              var ticks = [];
              for (var v = 1; v <= maxX; v *= 10) { ticks.push({ value: v }); }
              axis.ticks = ticks;
            },
            ticks: { callback: function (v) { return percentileLabel(v); } } },
          y: { type: "linear", beginAtZero: true, title: { display: true, text: c.yTitle } }
        },
        plugins: { tooltip: { callbacks: {
          title: function (items) { return items.length ? (100 - 100 / items[0].parsed.x).toFixed(4) + "%" : ""; },
          label: function (ctx) { return ctx.dataset.label + ": " + ctx.parsed.y.toLocaleString(undefined, { maximumFractionDigits: 3 }) + " ms"; }
        } } }
      }
    });
  }
  var charts = {{.ChartsJSON}};
  var root = document.getElementById("charts");
  charts.forEach(function (c) {
    var h = document.createElement("h2");
    h.textContent = c.title;
    root.appendChild(h);
    var box = document.createElement("div");
    box.className = "chart";
    if (c.horizontal) { box.style.height = Math.max(420, c.labels.length * 22 + 80) + "px"; }
    var canvas = document.createElement("canvas");
    canvas.id = c.id;
    box.appendChild(canvas);
    root.appendChild(box);
    if (c.percentiles) { percentilePlot(canvas, c); return; }
    var valueAxis = { type: c.log ? "logarithmic" : "linear", title: { display: true, text: c.yTitle } };
    var scales = c.horizontal ? { x: valueAxis } : { y: valueAxis };
    new Chart(canvas, {
      type: "bar",
      data: {
        labels: c.labels,
        datasets: c.datasets.map(function (d) { return { label: d.label, data: d.data, backgroundColor: d.color }; })
      },
      options: {
        indexAxis: c.horizontal ? "y" : "x",
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: scales,
        plugins: { tooltip: { callbacks: { label: function (ctx) {
          var v = ctx.parsed[c.horizontal ? "x" : "y"];
          return ctx.dataset.label + ": " + (v === null ? "-" : v.toLocaleString(undefined, { maximumFractionDigits: 3 }));
        } } } }
      }
    });
  });
})();
</script>
</body>
</html>
`))
