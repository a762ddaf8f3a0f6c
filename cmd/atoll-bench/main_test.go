package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
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
			if f[1] != fmt.Sprint(c.Want) { // api, check, ops/s, p50, p90, p99, max
				t.Errorf("row of %s: check %s, want %d: %q", c.ID(), f[1], c.Want, line)
			}
		}
		if !found {
			t.Errorf("the table has no row for %s:\n%s", c.ID(), table)
		}
	}
	for _, want := range []string{"SQL÷PRED", "Atoll (2 members) ÷ Hazelcast 5.7.0", "note: workload A entries differ: 300 here, 100000", "goals met"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}

	r, err := report.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tool != "atoll-bench" || r.Members != 2 || r.ClientThreads != 2 || r.AEntries != 300 || r.Rounds != 2 ||
		r.GoVersion == "" || r.CPUs < 1 || r.Mode != "full+custom" || r.LoadAvg == nil {
		t.Errorf("environment: %+v", r)
	}
	if len(r.Cases) != len(cases) {
		t.Fatalf("%d cases in the JSON, want %d", len(r.Cases), len(cases))
	}
	for i, c := range r.Cases {
		want := cases[i]
		if c.ID != want.ID() || !c.OK() || c.Check == nil || *c.Check != want.Want || len(c.RoundOpsPerSec) != 2 || c.Ops < 1 {
			t.Errorf("case %d: %+v, want %s with check %d over 2 rounds", i, c, want.ID(), want.Want)
		}
		if !(c.ProcessCPU > 0) {
			t.Errorf("%s: process CPU %v cores", c.ID, c.ProcessCPU)
		}
		if !(c.P50ms > 0 && c.P50ms <= c.P90ms && c.P90ms <= c.P99ms && c.P99ms <= c.Maxms) {
			t.Errorf("%s: latencies p50 %v p90 %v p99 %v max %v", c.ID, c.P50ms, c.P90ms, c.P99ms, c.Maxms)
		}
	}

	page, err := os.ReadFile(htmlOut)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), report.ChartLibrary) || !strings.Contains(string(page), "window.Chart=") {
		t.Error("the page does not embed Chart.js")
	}
	for _, ref := range report.ExternalReferences(string(page)) {
		t.Errorf("the page refers outside itself: …%s…", ref)
	}
	for _, want := range []string{`"id":"a-ops"`, `"id":"a-lat"`, `"id":"ratio"`, "A5 eq sorted-index IDS"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	// The same run compared with itself: every ratio is 1.
	stdout, _, err = execute(t, "compare", jsonOut, jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout, "1.00x"); n < 2*len(cases) {
		t.Errorf("comparing a run with itself printed %d ratios of 1.00x, want %d:\n%s", n, 2*len(cases), stdout)
	}
}

// TestBadInput checks that flags and files that cannot run are typed
// errors naming what is wrong, reported before any member starts.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	notRun := filepath.Join(dir, "other.json")
	if err := os.WriteFile(notRun, []byte(`{"date":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(error) bool
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
		{"unknown flag", []string{"all", "--thread", "3"}, func(err error) bool { return err != nil }, "unknown flag: --thread"},
		{"overload, bad memory limit", []string{"join-overload", "--memory-limit", "lots"}, isUsage, `--memory-limit "lots"`},
		{"overload, no clients", []string{"join-overload", "--clients", "0"}, isUsage, "--clients 0"},
		{"overload, bad breaker", []string{"join-overload", "--breaker", "maybe"}, isUsage, `--breaker "maybe"`},
		{"overload, both with addr", []string{"join-overload", "--breaker", "both", "--addr", "127.0.0.1:1"}, isUsage, "not with --addr"},
		{"overload, addr without admin", []string{"join-overload", "--addr", "127.0.0.1:1"}, isUsage, "--admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			if err == nil || !tc.check(err) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v (%T), want one saying %q", err, err, tc.says)
			}
		})
	}
}

func isUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

func isConfig(flag string) func(error) bool {
	return func(err error) bool {
		var c *harness.ConfigError
		return errors.As(err, &c) && c.Flag == flag
	}
}

func isFile(target error) func(error) bool {
	return func(err error) bool {
		var f *report.FileError
		return errors.As(err, &f) && errors.Is(err, target)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"A3/sum IDS/SQL":               "A3-sum-IDS-SQL",
		"A3/sum JSON(json-flat)/PRED":  "A3-sum-JSON-json-flat-PRED",
		"B BYTE_ARRAY LARGE/write/MAP": "B-BYTE_ARRAY-LARGE-write-MAP",
		"A5/eq sorted-index IDS/SQL":   "A5-eq-sorted-index-IDS-SQL",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProfiles runs one case with --profile and checks that the member's
// CPU and allocation profiles were written, drawn and summarized.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	jsonOut := filepath.Join(dir, "run.json")
	profDir := filepath.Join(dir, "profiles")
	stdout, stderr, err := execute(t, "predicate-vs-sql", "--members", benchMembers, "--entries", "300", "--only", "^A3/sum IDS/SQL$",
		"--warmup", "10ms", "--duration", "300ms", "--rounds", "1", "--threads", "2", "--json", jsonOut, "--profile", profDir)
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	r, err := report.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) != 1 || r.Cases[0].ID != "A3/sum IDS/SQL" {
		t.Fatalf("cases %+v, want only A3/sum IDS/SQL", r.Cases)
	}
	kinds := map[string]bool{}
	for _, p := range r.Cases[0].Profiles {
		kinds[p.Kind] = true
		stem := strings.TrimSuffix(p.File, ".pb.gz")
		if filepath.Base(stem) != "A3-sum-IDS-SQL.member1."+p.Kind {
			t.Errorf("profile file %s", p.File)
		}
		for _, f := range []string{p.File, stem + ".svg"} {
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
		if p.Kind == "allocs" && len(p.Top) == 0 {
			t.Errorf("the allocation profile has no top functions")
		}
	}
	if !kinds["cpu"] || !kinds["allocs"] {
		t.Errorf("profiles %+v, want cpu and allocs", r.Cases[0].Profiles)
	}
}

// TestQ13EndToEnd runs Q13 at a tiny scale factor on one and two embedded
// members, checked against DuckDB, and reads back its table, JSON and page.
func TestQ13EndToEnd(t *testing.T) {
	dir := t.TempDir()
	jsonOut, htmlOut := filepath.Join(dir, "q13.json"), filepath.Join(dir, "q13.html")
	stdout, stderr, err := execute(t, "q13", "--sf", "0.01", "--members", "1,2", "--vector-sizes", "100,1000", "--runs", "1",
		"--data", filepath.Join(dir, "data"), "--json", jsonOut, "--html", htmlOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "Q13 on 2 member(s) returns DuckDB's") || !strings.Contains(stdout, "vector size") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	b, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Results []struct {
			Members     int     `json:"members"`
			VectorSize  int64   `json:"vectorSize"`
			MedianMs    float64 `json:"medianMs"`
			Rows        float64 `json:"rowsShippedPerRun"`
			BytesPerRow float64 `json:"bytesPerShippedRow"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	// One member sends nothing (one setting); two members each vector size.
	if len(run.Results) != 3 || run.Results[0].Members != 1 || run.Results[0].Rows != 0 ||
		run.Results[2].Members != 2 || run.Results[2].VectorSize != 1000 || run.Results[2].Rows == 0 || run.Results[2].BytesPerRow <= 0 {
		t.Fatalf("results %+v", run.Results)
	}
	if page, err := os.ReadFile(htmlOut); err != nil || !strings.Contains(string(page), "<svg") {
		t.Fatalf("page: %v", err)
	}
	if _, _, err := execute(t, "q13", "--members", "0"); err == nil || !strings.Contains(err.Error(), "--members 0") {
		t.Fatalf("--members 0: %v", err)
	}
}
