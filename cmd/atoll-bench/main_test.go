package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
)

// benchMembers is the embedded cluster's size in the end-to-end tests:
// two, as the default, so that queries span members.
const benchMembers = "2"

func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

// TestPredicateVsSQLEndToEnd runs workload A on an embedded cluster with a
// tiny protocol and checks the table, the JSON and the HTML page.
func TestPredicateVsSQLEndToEnd(t *testing.T) {
	dir := t.TempDir()
	jsonOut, htmlOut := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.html")
	stdout, stderr, err := execute(t, "predicate-vs-sql", "--members", benchMembers, "--entries", "300",
		"--warmup", "20ms", "--duration", "100ms", "--rounds", "2", "--threads", "2",
		"--json", jsonOut, "--html", htmlOut, "--compare", "../../bench/report/testdata/hazelcast-5.7-full.json")
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	cases := workload.ACases(300)
	table, _, _ := strings.Cut(stdout, " ÷ Hazelcast") // the run's table comes before the comparison
	for _, c := range cases {
		found := false
		for _, line := range strings.Split(table, "\n") {
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), c.Title()+" ")
			f := strings.Fields(rest)
			if !ok || len(f) < 7 || f[0] != c.API {
				continue
			}
			found = true
			assert.Equal(t, fmt.Sprint(c.Want), f[1], "row of %s: api, check, ops/s, p50, p90, p99, max: %q", c.ID(), line)
		}
		assert.True(t, found, "the table has a row for %s:\n%s", c.ID(), table)
	}
	for _, want := range []string{"SQL÷PRED", "Atoll (2 members) ÷ Hazelcast 5.7.0", "note: workload A entries differ: 300 here, 100000", "goals met",
		"latency percentiles (this / other)"} {
		assert.Contains(t, stdout, want)
	}

	r, err := report.ReadFile(jsonOut)
	require.NoError(t, err)
	assert.Equal(t, "atoll-bench", r.Tool)
	assert.Equal(t, 2, r.Members)
	assert.Equal(t, 2, r.ClientThreads)
	assert.Equal(t, 300, r.AEntries)
	assert.Equal(t, 2, r.Rounds)
	assert.Equal(t, "full+custom", r.Mode)
	assert.NotEmpty(t, r.GoVersion)
	assert.Positive(t, r.CPUs)
	assert.NotNil(t, r.LoadAvg)
	assert.False(t, r.RateMode)
	require.Len(t, r.Cases, len(cases))
	for i, c := range r.Cases {
		want := cases[i]
		assert.Equal(t, want.ID(), c.ID)
		assert.True(t, c.OK(), c.Error)
		require.NotNil(t, c.Check, c.ID)
		assert.Equal(t, want.Want, *c.Check, c.ID)
		assert.Len(t, c.RoundOpsPerSec, 2, c.ID)
		assert.Positive(t, c.Ops, c.ID)
		assert.Positive(t, float64(c.ProcessCPU), "%s: process CPU in cores", c.ID)
		assert.Positive(t, float64(c.P50ms), c.ID)
		assert.True(t, c.P50ms <= c.P90ms && c.P90ms <= c.P99ms && c.P99ms <= c.P999ms && c.P999ms <= c.Maxms,
			"%s: latencies p50 %v p90 %v p99 %v p99.9 %v max %v", c.ID, c.P50ms, c.P90ms, c.P99ms, c.P999ms, c.Maxms)
		h, err := c.Latency()
		require.NoError(t, err)
		require.NotNil(t, h, "%s: the JSON holds the histogram", c.ID)
		assert.Equal(t, c.Ops, h.Count(), "%s: every measured operation is in the histogram", c.ID)
	}

	page, err := os.ReadFile(htmlOut)
	require.NoError(t, err)
	assert.Contains(t, string(page), report.ChartLibrary)
	assert.Contains(t, string(page), "window.Chart=", "the page embeds Chart.js")
	assert.Empty(t, report.ExternalReferences(string(page)), "the page refers to nothing outside itself")
	for _, want := range []string{`"id":"a-ops"`, `"id":"a-lat"`, `"id":"ratio"`, "A5 eq sorted-index IDS"} {
		assert.Contains(t, string(page), want)
	}

	// The same run compared with itself: every ratio is 1.
	stdout, _, err = execute(t, "compare", jsonOut, jsonOut)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, strings.Count(stdout, "1.00x"), 2*len(cases), "comparing a run with itself gives ratios of 1:\n%s", stdout)
}

// TestLatencyModeEndToEnd runs two cases of workload A at a fixed rate on
// an embedded cluster and checks the table, the JSON with its histograms,
// the percentile chart and the side-by-side comparison.
func TestLatencyModeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	jsonOut, htmlOut := filepath.Join(dir, "rate.json"), filepath.Join(dir, "rate.html")
	stdout, stderr, err := execute(t, "predicate-vs-sql", "--members", benchMembers, "--entries", "300", "--quick",
		"--rate", "A2/=40", "--rate", "A5/eq sorted-index=100", "--only", "^A2/|^A5/eq sorted", "--duration", "500ms", "--warmup", "50ms",
		"--json", jsonOut, "--html", htmlOut)
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "latency mode (open loop; latency from each request's intended send time), at most 64 requests in flight")
	r, err := report.ReadFile(jsonOut)
	require.NoError(t, err)
	assert.True(t, r.RateMode)
	assert.Equal(t, "quick+rate+custom", r.Mode)
	assert.Equal(t, 64, r.ClientThreads)
	var ids []string
	for _, c := range r.Cases {
		ids = append(ids, c.ID)
		assert.True(t, c.OK(), c.Error)
		want := map[string]report.Float{"A2": 40, "A5": 100}[c.Group]
		assert.Equal(t, want, c.Rate, c.ID)
		assert.Equal(t, int64(want/2), c.Scheduled, "%s: half a second at the rate", c.ID)
		require.NotNil(t, c.KeptUp, c.ID)
		assert.Positive(t, float64(c.AchievedRate), c.ID)
		assert.Positive(t, float64(c.P50ms), c.ID)
		assert.LessOrEqual(t, c.P99ms, c.P9999ms, c.ID)
		h, err := c.Latency()
		require.NoError(t, err)
		require.NotNil(t, h)
		assert.Equal(t, c.Scheduled, h.Count(), "%s: every scheduled request's latency is recorded", c.ID)
	}
	assert.Equal(t, []string{"A2/count IDS/SQL", "A2/count IDS/PRED", "A5/eq sorted-index IDS/SQL", "A5/eq sorted-index IDS/PRED"}, ids)
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "A2 count IDS") {
			assert.Regexp(t, `A2 count IDS\s+(SQL|PRED)\s+300\s+40\.0\s+[\d.]+\s+(yes|no.*)\s+20\s`, line)
		}
	}
	page, err := os.ReadFile(htmlOut)
	require.NoError(t, err)
	assert.Contains(t, string(page), `"percentiles":true`)
	assert.Contains(t, string(page), "A5 eq sorted-index IDS at 100.0 requests/s: latency by percentile")
	assert.Empty(t, report.ExternalReferences(string(page)))

	stdout, _, err = execute(t, "compare", jsonOut, jsonOut, "--format", "markdown")
	require.NoError(t, err)
	assert.Contains(t, stdout, "| case | api | rate/s | sent/s | kept up | p50 ms | p90 ms | p99 ms | p99.9 ms | p99.99 ms | max ms |")
	assert.NotContains(t, stdout, "goals met")
}

// TestBadInput checks that flags and files that cannot run are typed
// errors naming what is wrong, reported before any member starts.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	notRun := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(notRun, []byte(`{"date":"x"}`), 0o644))
	for _, tc := range []struct {
		name  string
		args  []string
		check func(*testing.T, error)
		says  string
	}{
		{"no members", []string{"all", "--members", "0"}, isUsage, "--members 0"},
		{"members with addr", []string{"all", "--members", "3", "--addr", "127.0.0.1:1"}, isUsage, "cannot be combined with --addr"},
		{"bad only", []string{"predicate-vs-sql", "--only", "(A1"}, isUsage, "--only"},
		{"no entries", []string{"all", "--entries", "0"}, isUsage, "--entries 0"},
		{"no rounds", []string{"all", "--rounds", "0"}, isConfig("rounds"), "--rounds 0"},
		{"negative warm-up", []string{"all", "--warmup", "-1s"}, isConfig("warmup"), "--warmup -1s"},
		{"unknown kind", []string{"serialization", "--kinds", "json"}, isConfig("kinds"), "--kinds json"},
		{"unknown size", []string{"serialization", "--sizes", "huge"}, isConfig("sizes"), "--sizes huge"},
		{"compare file missing", []string{"all", "--compare", filepath.Join(dir, "none.json")}, isFile(fs.ErrNotExist), "none.json"},
		{"compare file not a run", []string{"all", "--compare", notRun}, isFile(report.ErrNotARun), "other.json"},
		{"compare command, missing file", []string{"compare", notRun, filepath.Join(dir, "none.json")}, isFile(report.ErrNotARun), "other.json"},
		{"compare command, bad format", []string{"compare", notRun, notRun, "--format", "xml"}, isUsage, `--format "xml"`},
		{"unknown flag", []string{"all", "--thread", "3"}, func(*testing.T, error) {}, "unknown flag: --thread"},
		{"overload, bad memory limit", []string{"join-overload", "--memory-limit", "lots"}, isUsage, `--memory-limit "lots"`},
		{"overload, no clients", []string{"join-overload", "--clients", "0"}, isUsage, "--clients 0"},
		{"overload, no passes", []string{"join-overload", "--passes", "0"}, isUsage, "--passes ≥ 1"},
		{"overload, bad breaker", []string{"join-overload", "--breaker", "maybe"}, isUsage, `--breaker "maybe"`},
		{"overload, both with addr", []string{"join-overload", "--breaker", "both", "--addr", "127.0.0.1:1"}, isUsage, "not with --addr"},
		{"overload, addr without admin", []string{"join-overload", "--addr", "127.0.0.1:1"}, isUsage, "--admin"},
		{"rate, not a number", []string{"predicate-vs-sql", "--rate", "fast"}, isUsage, `--rate "fast"`},
		{"rate, zero", []string{"predicate-vs-sql", "--rate", "A1=0"}, isUsage, `--rate "A1=0"`},
		{"rate, bad expression", []string{"predicate-vs-sql", "--rate", "(A1=5"}, isUsage, `--rate "(A1=5"`},
		{"rate with rounds", []string{"predicate-vs-sql", "--rate", "5", "--rounds", "2"}, isUsage, "--rounds does not apply with --rate"},
		{"rate, no threads", []string{"predicate-vs-sql", "--rate", "5", "--threads", "0"}, isConfig("threads"), "--threads 0"},
		{"unknown profile", []string{"predicate-vs-sql", "--profile", "wall,disk"}, isUsage, `--profile "disk"`},
		{"bad client memory", []string{"all", "--addr", "127.0.0.1:1", "--client-memory", "lots"}, isUsage, `--client-memory "lots"`},
		{"negative client memory", []string{"all", "--addr", "127.0.0.1:1", "--client-memory", "-1GiB"}, isUsage, `--client-memory "-1GiB"`},
		{"no client heap growth", []string{"all", "--addr", "127.0.0.1:1", "--client-gogc", "0"}, isUsage, "--client-gogc 0"},
		{"client memory, embedded", []string{"all", "--client-gogc", "200"}, isUsage, "apply with --addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			require.Error(t, err)
			tc.check(t, err)
			assert.ErrorContains(t, err, tc.says)
		})
	}
}

// TestClientMemoryBudget: with --addr the client gets the Hazelcast
// runner's client heap as its memory limit, and its heap growth.
func TestClientMemoryBudget(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	assert.Equal(t, "GOGC 400, GOMEMLIMIT 2048 MiB", budgetClientMemory(2<<30, 400))
	assert.Equal(t, 400, debug.SetGCPercent(100), "GOGC")
	assert.EqualValues(t, 2<<30, debug.SetMemoryLimit(-1), "GOMEMLIMIT")
	debug.SetMemoryLimit(math.MaxInt64)
	assert.Equal(t, "GOGC 200, no limit", budgetClientMemory(0, 200))
	assert.EqualValues(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1), "0 sets no limit")
}

func isUsage(t *testing.T, err error) {
	var u *UsageError
	assert.ErrorAs(t, err, &u)
}

func isConfig(flag string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var c *harness.ConfigError
		require.ErrorAs(t, err, &c)
		assert.Equal(t, flag, c.Flag)
	}
}

func isFile(target error) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var f *report.FileError
		assert.ErrorAs(t, err, &f)
		assert.ErrorIs(t, err, target)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"A3/sum IDS/SQL":               "A3-sum-IDS-SQL",
		"A3/sum JSON(json-flat)/PRED":  "A3-sum-JSON-json-flat-PRED",
		"B BYTE_ARRAY LARGE/write/MAP": "B-BYTE_ARRAY-LARGE-write-MAP",
		"A5/eq sorted-index IDS/SQL":   "A5-eq-sorted-index-IDS-SQL",
	} {
		assert.Equal(t, want, slug(in), in)
	}
}

// TestProfiles runs one case with --profile and checks that the member's
// CPU, allocation and wall-clock profiles were written, labelled, drawn
// and summarized.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	jsonOut := filepath.Join(dir, "run.json")
	profDir := filepath.Join(dir, "profiles")
	stdout, stderr, err := execute(t, "predicate-vs-sql", "--members", benchMembers, "--entries", "300", "--only", "^A3/sum IDS/SQL$",
		"--warmup", "10ms", "--duration", "300ms", "--rounds", "1", "--threads", "2", "--json", jsonOut,
		"--profile", "cpu,allocs,wall", "--profile-dir", profDir)
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	r, err := report.ReadFile(jsonOut)
	require.NoError(t, err)
	require.Len(t, r.Cases, 1)
	require.Equal(t, "A3/sum IDS/SQL", r.Cases[0].ID)
	var kinds []string
	for _, p := range r.Cases[0].Profiles {
		kinds = append(kinds, p.Kind)
		assert.Equal(t, "SQL", p.API)
		stem := strings.TrimSuffix(p.File, ".pb.gz")
		assert.Equal(t, "A3-sum-IDS-SQL.member1."+p.Kind, filepath.Base(stem))
		for _, f := range []string{p.File, stem + ".svg"} {
			st, err := os.Stat(f)
			require.NoError(t, err)
			assert.Positive(t, st.Size(), f)
		}
		if p.Kind == "allocs" {
			assert.NotEmpty(t, p.Top, "the allocation profile has top functions")
		}
		f, err := os.Open(p.File)
		require.NoError(t, err)
		prof, err := profile.Parse(f)
		f.Close()
		require.NoError(t, err)
		for _, s := range prof.Sample {
			require.Equal(t, []string{"SQL"}, s.Label["api"], "%s: every sample is labelled with the API", p.File)
			require.Equal(t, []string{"A3/sum IDS/SQL"}, s.Label["case"])
		}
	}
	assert.ElementsMatch(t, []string{"cpu", "allocs", "wall"}, kinds)
}

// TestQ13EndToEnd runs Q13 at a tiny scale factor on one and two embedded
// members, checked against DuckDB, and reads back its table, JSON and page.
func TestQ13EndToEnd(t *testing.T) {
	dir := t.TempDir()
	jsonOut, htmlOut := filepath.Join(dir, "q13.json"), filepath.Join(dir, "q13.html")
	stdout, stderr, err := execute(t, "q13", "--sf", "0.01", "--members", "1,2", "--vector-sizes", "100,1000", "--runs", "1",
		"--data", filepath.Join(dir, "data"), "--json", jsonOut, "--html", htmlOut)
	require.NoError(t, err, stderr)
	require.Contains(t, stderr, "Q13 on 2 member(s) returns DuckDB's")
	require.Contains(t, stdout, "vector size")
	b, err := os.ReadFile(jsonOut)
	require.NoError(t, err)
	var run struct {
		Results []struct {
			Members     int     `json:"members"`
			VectorSize  int64   `json:"vectorSize"`
			MedianMs    float64 `json:"medianMs"`
			Rows        float64 `json:"rowsShippedPerRun"`
			BytesPerRow float64 `json:"bytesPerShippedRow"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &run))
	// One member sends nothing (one setting); two members each vector size.
	require.Len(t, run.Results, 3)
	assert.Equal(t, 1, run.Results[0].Members)
	assert.Zero(t, run.Results[0].Rows, "one member ships no rows")
	assert.Equal(t, 2, run.Results[2].Members)
	assert.Equal(t, int64(1000), run.Results[2].VectorSize)
	assert.Positive(t, run.Results[2].Rows)
	assert.Positive(t, run.Results[2].BytesPerRow)
	page, err := os.ReadFile(htmlOut)
	require.NoError(t, err)
	assert.Contains(t, string(page), "<svg")
	_, _, err = execute(t, "q13", "--members", "0")
	assert.ErrorContains(t, err, "--members 0")
}
