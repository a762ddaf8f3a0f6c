package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const hazelcastFile = "testdata/hazelcast-5.7-full.json"

func TestReadsAHazelcastRunnerFile(t *testing.T) {
	r, err := ReadFile(hazelcastFile)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() != "Hazelcast 5.7.0" || r.AEntries != 100000 || r.Rounds != 3 {
		t.Errorf("read %q, %d A entries, %d rounds", r.Name(), r.AEntries, r.Rounds)
	}
	c, ok := r.Case("A3/sum IDS/PRED")
	if !ok || !c.OK() || c.Check == nil || *c.Check != 4999950000 || len(c.RoundOpsPerSec) != 3 {
		t.Errorf("A3/sum IDS/PRED: %+v", c)
	}
	if got := r.BKeys(); len(got) != 8 || got[0] != "COMPACT SMALL" || got[7] != "BYTE_ARRAY LARGE" {
		t.Errorf("B keys %v, want the workload's order", got)
	}
	if b := r.WorkloadB["PORTABLE LARGE"]; b.MemoryCostPerEntry != 1146 || b.ValueDataTotalSize != 1034 {
		t.Errorf("PORTABLE LARGE: %+v", b)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		path string
		is   error
	}{
		{"missing", filepath.Join(dir, "nope.json"), fs.ErrNotExist},
		{"not JSON", write("bad.json", "{cases"), nil},
		{"no cases", write("empty.json", `{"date":"x"}`), ErrNotARun},
		{"case without id", write("noid.json", `{"cases":[{"api":"SQL"}]}`), nil},
		{"wrong type", write("type.json", `{"cases":[{"id":"x","opsPerSecMedian":"fast"}]}`), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFile(tc.path)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != tc.path {
				t.Fatalf("error %v, want a FileError naming %s", err, tc.path)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want it to wrap %v", err, tc.is)
			}
		})
	}
}

func TestFloatJSON(t *testing.T) {
	for _, tc := range []struct {
		in   Float
		json string
	}{
		{1.5, "1.5"}, {0, "0"}, {NaN(), "null"}, {Float(math.Inf(1)), "null"}, {4999950000, "4999950000"},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.in, b, err, tc.json)
		}
		var back Float
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !(back == tc.in || math.IsNaN(float64(back)) && tc.json == "null") {
			t.Errorf("round trip of %v gave %v", tc.in, back)
		}
	}
}

// run builds a run with the given throughput per case id and memory per
// workload B key.
func run(members int, ops map[string]float64, mem map[string]float64) *Run {
	r := &Run{Members: members, Mode: "full", ClientThreads: 8, AEntries: 100, BEntries: 100, Rounds: 3, WorkloadB: map[string]BInfo{}}
	for _, id := range sortedKeys(ops) {
		parts := strings.Split(id, "/")
		r.Cases = append(r.Cases, Case{ID: id, Group: parts[0], Name: parts[1], API: parts[2],
			OpsPerSecMedian: Float(ops[id]), P50ms: 1, P90ms: 2, P99ms: 3, Maxms: 4})
	}
	for k, v := range mem {
		r.WorkloadB[k] = BInfo{MemoryCostPerEntry: Float(v)}
	}
	return r
}

func sortedKeys(m map[string]float64) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

func TestGoals(t *testing.T) {
	hz := run(2, map[string]float64{
		"A1/scan-all IDS/SQL": 10, "A1/scan-all IDS/PRED": 20,
		"A3/sum IDS/SQL": 20, "A3/sum IDS/PRED": 40,
		"A5/eq sorted-index IDS/SQL": 500, "A5/eq sorted-index IDS/PRED": 7000,
		"B COMPACT SMALL/read/MAP": 30000, "B COMPACT SMALL/query/SQL": 30, "B COMPACT SMALL/query/PRED": 60,
	}, map[string]float64{"COMPACT SMALL": 167})
	hz.HazelcastVersion = "5.7.0"
	for _, tc := range []struct {
		id    string
		ops   float64
		other map[string]float64 // more cases of the Atoll run
		mem   float64
		met   map[string]bool // goal "what" prefix → met
	}{
		{id: "A1/scan-all IDS/SQL", ops: 60, met: map[string]bool{"≥3× Hazelcast's faster API (PRED, 20.0 ops/s)": true}},
		{id: "A1/scan-all IDS/SQL", ops: 59, met: map[string]bool{"≥3× Hazelcast's faster API (PRED, 20.0 ops/s)": false}},
		{id: "A3/sum IDS/PRED", ops: 400, met: map[string]bool{"≥10× Hazelcast's faster API (PRED, 40.0 ops/s)": true}},
		{id: "A3/sum IDS/SQL", ops: 399, met: map[string]bool{"≥10× Hazelcast's faster API (PRED, 40.0 ops/s)": false}},
		{id: "A5/eq sorted-index IDS/PRED", ops: 14000, met: map[string]bool{"≥2× Hazelcast's PRED (7,000.0 ops/s)": true}},
		{id: "A5/eq sorted-index IDS/SQL", ops: 14000, other: map[string]float64{"A5/eq sorted-index IDS/PRED": 16000},
			met: map[string]bool{"≥2× Hazelcast's PRED (7,000.0 ops/s)": true, "within 10% of Atoll's PRED (16,000.0 ops/s)": false}},
		{id: "A5/eq sorted-index IDS/SQL", ops: 14500, other: map[string]float64{"A5/eq sorted-index IDS/PRED": 16000},
			met: map[string]bool{"≥2× Hazelcast's PRED (7,000.0 ops/s)": true, "within 10% of Atoll's PRED (16,000.0 ops/s)": true}},
		{id: "B COMPACT SMALL/read/MAP", ops: 45000, met: map[string]bool{"≥1.5× Hazelcast (30,000.0 ops/s)": true}},
		{id: "B COMPACT SMALL/query/SQL", ops: 599, met: map[string]bool{"≥10× Hazelcast's faster API (PRED, 60.0 ops/s)": false}},
		{id: "B COMPACT SMALL/read/MAP", ops: 1, mem: 116.8, met: map[string]bool{"≥1.5× Hazelcast (30,000.0 ops/s)": false, "≤0.7× Hazelcast (167.0 B/entry)": true}},
		{id: "B COMPACT SMALL/read/MAP", ops: 1, mem: 117, met: map[string]bool{"≥1.5× Hazelcast (30,000.0 ops/s)": false, "≤0.7× Hazelcast (167.0 B/entry)": false}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			ops := map[string]float64{tc.id: tc.ops}
			for k, v := range tc.other {
				ops[k] = v
			}
			var mem map[string]float64
			if tc.mem > 0 {
				mem = map[string]float64{"COMPACT SMALL": tc.mem}
			}
			cmp := Compare(run(2, ops, mem), hz)
			got := map[string]bool{}
			for _, g := range cmp.Goals {
				if g.ID == tc.id || strings.HasSuffix(g.ID, "/memory") {
					got[g.What] = g.Met
				}
			}
			for what, met := range tc.met {
				if m, ok := got[what]; !ok || m != met {
					t.Errorf("goal %q: met %v (present %v), want %v; goals %v", what, m, ok, met, got)
				}
			}
		})
	}
}

func TestCompareNotesDifferentSetUps(t *testing.T) {
	a := run(1, map[string]float64{"A2/count IDS/SQL": 10}, nil)
	b := run(2, map[string]float64{"A2/count IDS/SQL": 5, "A2/count IDS/PRED": 5}, nil)
	b.AEntries = 2000
	cmp := Compare(a, b)
	if len(cmp.Rows) != 2 || cmp.Rows[0].OpsRatio != 2 || !math.IsNaN(cmp.Rows[1].OpsRatio) {
		t.Errorf("rows %+v", cmp.Rows)
	}
	notes := strings.Join(cmp.Notes, "\n")
	for _, want := range []string{"workload A entries differ: 100 here, 2000", "members differ: 1 here, 2"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if cmp.Goals != nil {
		t.Errorf("goals between two Atoll runs: %v", cmp.Goals)
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	hz, err := ReadFile(hazelcastFile)
	if err != nil {
		t.Fatal(err)
	}
	this := run(2, map[string]float64{"A3/sum IDS/SQL": 400, "A3/sum IDS/PRED": 380, "B COMPACT SMALL/read/MAP": 50000}, map[string]float64{"COMPACT SMALL": 100})
	this.Tool, this.Date = "atoll-bench", "2026-11-21T12:00:00Z"
	var b bytes.Buffer
	if err := this.WriteHTML(&b, Compare(this, hz)); err != nil {
		t.Fatal(err)
	}
	CheckSelfContainedHTML(t, b.String())
	for _, want := range []string{`"id":"a-ops"`, `"id":"ratio"`, `"id":"b-memory"`, "Hazelcast 5.7.0", "A3 sum IDS"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// CheckSelfContainedHTML fails t unless page embeds Chart.js and refers
// to nothing outside itself.
func CheckSelfContainedHTML(t testing.TB, page string) {
	t.Helper()
	if !strings.Contains(page, ChartLibrary) || !strings.Contains(page, "window.Chart=") {
		t.Error("the page does not embed Chart.js")
	}
	for _, ref := range ExternalReferences(page) {
		t.Errorf("the page refers outside itself: …%s…", ref)
	}
}

func TestExternalReferences(t *testing.T) {
	for _, tc := range []struct {
		page string
		refs int
	}{
		{`<script>/*! Chart.js https://www.chartjs.org */ var a = 1;</script>`, 0},
		{`<script src="https://cdn.example/chart.js"></script>`, 3}, // the URL, the script source, the CDN
		{`<link rel="stylesheet" href="style.css">`, 1},
		{`<div style="background: url(x.png)"></div>`, 1},
		{`<a href="http://example.org">x</a> and https://example.org`, 2},
		{"var x = 1;\n//# sourceMappingURL=chart.umd.min.js.map", 1},
	} {
		if got := ExternalReferences(tc.page); len(got) != tc.refs {
			t.Errorf("ExternalReferences(%q) = %q, want %d", tc.page, got, tc.refs)
		}
	}
}

func TestMarkdown(t *testing.T) {
	hz, err := ReadFile(hazelcastFile)
	if err != nil {
		t.Fatal(err)
	}
	this := run(2, map[string]float64{"A3/sum IDS/SQL": 400, "A3/sum IDS/PRED": 500}, map[string]float64{"COMPACT SMALL": 100})
	this.AEntries, this.BEntries = 100000, 100000
	var b bytes.Buffer
	if err := Compare(this, hz).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| A3 sum IDS | SQL | 400.0 | 23.0 | 17.4x |",
		"≥10× Hazelcast's faster API (PRED, 44.0 ops/s) | **no** (9.10x) |",
		"| A3 sum IDS | PRED | 500.0 | 44.0 | 11.4x |",
		"| COMPACT SMALL | 100.0 | 167.0 | 0.60x | ≤0.7× Hazelcast (167.0 B/entry) | yes |",
		"2 of 3 goals met.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "Note: workload A entries") {
		t.Errorf("a note on entries that agree:\n%s", b.String())
	}
}
