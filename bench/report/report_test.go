package report

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/latency"
)

const hazelcastFile = "testdata/hazelcast-5.7-full.json"

func TestReadsAHazelcastRunnerFile(t *testing.T) {
	r, err := ReadFile(hazelcastFile)
	require.NoError(t, err)
	assert.Equal(t, "Hazelcast 5.7.0", r.Name())
	assert.Equal(t, 100000, r.AEntries)
	assert.Equal(t, 3, r.Rounds)
	c, ok := r.Case("A3/sum IDS/PRED")
	require.True(t, ok)
	assert.True(t, c.OK())
	require.NotNil(t, c.Check)
	assert.Equal(t, int64(4999950000), *c.Check)
	assert.Len(t, c.RoundOpsPerSec, 3)
	assert.True(t, math.IsNaN(float64(c.P999ms)), "a file from before the histograms has no p99.9")
	h, err := c.Latency()
	assert.NoError(t, err)
	assert.Nil(t, h)
	got := r.BKeys()
	require.Len(t, got, 8)
	assert.Equal(t, "COMPACT SMALL", got[0], "the workload's order")
	assert.Equal(t, "BYTE_ARRAY LARGE", got[7])
	b := r.WorkloadB["PORTABLE LARGE"]
	assert.Equal(t, Float(1146), b.MemoryCostPerEntry)
	assert.Equal(t, 1034, b.ValueDataTotalSize)
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
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
		{"bad histogram", write("hist.json", `{"cases":[{"id":"x","histogram":"HISTFAAAnope"}]}`), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFile(tc.path)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.path, fe.Path)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
	_, err := ReadFile(write("hist2.json", `{"cases":[{"id":"x","histogram":"HISTFAAAnope"}]}`))
	var de *latency.DecodeError
	assert.ErrorAs(t, err, &de, "a histogram that does not decode is named")
}

func TestFloatJSON(t *testing.T) {
	for _, tc := range []struct {
		in   Float
		json string
	}{
		{1.5, "1.5"}, {0, "0"}, {NaN(), "null"}, {Float(math.Inf(1)), "null"}, {4999950000, "4999950000"},
	} {
		b, err := json.Marshal(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.json, string(b))
		var back Float
		require.NoError(t, json.Unmarshal(b, &back))
		if tc.json == "null" {
			assert.True(t, math.IsNaN(float64(back)), "null reads as NaN")
		} else {
			assert.Equal(t, tc.in, back)
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
			OpsPerSecMedian: Float(ops[id]), P50ms: 1, P90ms: 2, P99ms: 3, P999ms: 3.5, P9999ms: 3.9, Maxms: 4})
	}
	for k, v := range mem {
		r.WorkloadB[k] = BInfo{MemoryCostPerEntry: Float(v)}
	}
	return r
}

func sortedKeys(m map[string]float64) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
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
				require.Contains(t, got, what)
				assert.Equal(t, met, got[what], "goal %q", what)
			}
		})
	}
}

func TestCompareNotesDifferentSetUps(t *testing.T) {
	a := run(1, map[string]float64{"A2/count IDS/SQL": 10}, nil)
	b := run(2, map[string]float64{"A2/count IDS/SQL": 5, "A2/count IDS/PRED": 5}, nil)
	b.AEntries = 2000
	cmp := Compare(a, b)
	require.Len(t, cmp.Rows, 2)
	assert.Equal(t, 2.0, cmp.Rows[0].OpsRatio)
	assert.True(t, math.IsNaN(cmp.Rows[1].OpsRatio), "a case only the other run has has no ratio")
	notes := strings.Join(cmp.Notes, "\n")
	assert.Contains(t, notes, "workload A entries differ: 100 here, 2000")
	assert.Contains(t, notes, "members differ: 1 here, 2")
	assert.Nil(t, cmp.Goals, "no goals between two Atoll runs")
}

func TestHTMLIsSelfContained(t *testing.T) {
	hz, err := ReadFile(hazelcastFile)
	require.NoError(t, err)
	this := run(2, map[string]float64{"A3/sum IDS/SQL": 400, "A3/sum IDS/PRED": 380, "B COMPACT SMALL/read/MAP": 50000}, map[string]float64{"COMPACT SMALL": 100})
	this.Tool, this.Date = "atoll-bench", "2026-11-21T12:00:00Z"
	var b bytes.Buffer
	require.NoError(t, this.WriteHTML(&b, Compare(this, hz)))
	checkSelfContainedHTML(t, b.String())
	for _, want := range []string{`"id":"a-ops"`, `"id":"ratio"`, `"id":"b-memory"`, "Hazelcast 5.7.0", "A3 sum IDS"} {
		assert.Contains(t, b.String(), want)
	}
}

// checkSelfContainedHTML fails t unless page embeds Chart.js and refers
// to nothing outside itself.
func checkSelfContainedHTML(t testing.TB, page string) {
	t.Helper()
	assert.Contains(t, page, ChartLibrary)
	assert.Contains(t, page, "window.Chart=", "the page embeds Chart.js")
	assert.Empty(t, ExternalReferences(page), "the page refers to nothing outside itself")
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
		assert.Len(t, ExternalReferences(tc.page), tc.refs, tc.page)
	}
}

func TestMarkdown(t *testing.T) {
	hz, err := ReadFile(hazelcastFile)
	require.NoError(t, err)
	this := run(2, map[string]float64{"A3/sum IDS/SQL": 400, "A3/sum IDS/PRED": 500}, map[string]float64{"COMPACT SMALL": 100})
	this.AEntries, this.BEntries = 100000, 100000
	var b bytes.Buffer
	require.NoError(t, Compare(this, hz).WriteMarkdown(&b))
	for _, want := range []string{
		"| A3 sum IDS | SQL | 400.0 | 23.0 | 17.4x |",
		"≥10× Hazelcast's faster API (PRED, 44.0 ops/s) | **no** (9.10x) |",
		"| A3 sum IDS | PRED | 500.0 | 44.0 | 11.4x |",
		"| COMPACT SMALL | 100.0 | 167.0 | 0.60x | ≤0.7× Hazelcast (167.0 B/entry) | yes |",
		"2 of 3 goals met.",
		"| A3 sum IDS | SQL | 1.000 / 347.436 | 2.000 / 521.402 | 3.000 / 653.197 | 3.500 / - | 3.900 / - | 4.000 / 680.403 |",
	} {
		assert.Contains(t, b.String(), want)
	}
	assert.NotContains(t, b.String(), "Note: workload A entries", "no note on entries that agree")
}
