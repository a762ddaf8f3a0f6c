package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pprofile "github.com/google/pprof/profile"

	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// Frames of query execution, as they appear in profiles: the read of a
// partition by a fragment's worker (for its scan alone, or for the scans
// sharing it), and the query service's execute
// (behind its Execute and the calls of both pipelines).
const (
	scanFrame    = "github.com/atolldb/atoll/internal/exec.(*worker).scanAlong"
	executeFrame = "github.com/atolldb/atoll/internal/server.(*queryService).execute"
)

// queryLoad runs queries over the map "profiled" until ctx ends: sqlShare
// of every 10 are SQL, the others Predicate API aggregations. Every
// statement is new to the member (its key bound differs), so the query
// service's Execute parses and plans each one: the profiles see work in
// Execute as well as in the scans. running is closed once every worker has
// completed a query, so that a capture started then sees the workload.
func queryLoad(ctx context.Context, t *testing.T, addr string, sqlShare int, running chan<- struct{}) {
	cl, err := client.New(ctx, client.Config{Addresses: []string{addr}, ClusterName: "test", StatisticsInterval: -1})
	if err != nil {
		t.Error(err)
		close(running)
		return
	}
	defer cl.Close()
	m := client.GetMap[int32, string](cl, "profiled")
	const workers = 4
	var wg, started sync.WaitGroup
	started.Add(workers)
	go func() {
		started.Wait()
		close(running)
	}()
	var seq atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			for i := w; ctx.Err() == nil; i++ {
				var err error
				if i%10 < sqlShare {
					var rows *client.Rows
					stmt := fmt.Sprintf("SELECT COUNT(*) FROM profiled WHERE this LIKE '%%7%%' AND __key > %d", -seq.Add(1))
					if rows, err = cl.SQL(ctx, stmt); err == nil {
						rows.Close()
					}
				} else {
					_, err = m.Aggregate(ctx, predicate.Count(), predicate.Like("this", "%7%"))
				}
				if err != nil && ctx.Err() == nil {
					t.Error(err)
				}
				if first {
					first = false
					started.Done()
				}
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// svgText checks that path is well-formed XML with an <svg> root and
// returns its text.
func svgText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", path, root)
	}
	return string(b)
}

// TestProfile captures CPU and allocation profiles of a member process
// running SQL and Predicate API queries with `atoll profile`, cuts one to
// the SQL queries with --label kind=sql, and diffs two captures with
// --diff-base.
func TestProfile(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	admin := c.Members()[0].AdminAddr
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	fill, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test", StatisticsInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	// A small map: each query's scan is short, and the statements' parsing
	// and planning in Execute are a good part of the work.
	var batch []client.Entry[int32, string]
	for k := range int32(2000) {
		batch = append(batch, client.Entry[int32, string]{Key: k, Value: fmt.Sprintf("value %d of the profiled map", k)})
	}
	if err := client.GetMap[int32, string](fill, "profiled").PutAll(ctx, batch); err != nil {
		t.Fatal(err)
	}
	rows, err := fill.SQL(ctx, `CREATE MAPPING profiled TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	fill.Close()

	profile := func(sqlShare int, args ...string) string {
		t.Helper()
		lctx, stop := context.WithCancel(ctx)
		done, running := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			queryLoad(lctx, t, c.Addrs()[0], sqlShare, running)
		}()
		<-running
		out, errOut, code := c.Run(append([]string{"profile", "--member", admin, "--seconds", "2"}, args...)...)
		stop()
		<-done
		if code != 0 {
			t.Fatalf("atoll profile %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}

	// capture takes a profile under the load until missing is empty: on a
	// busy machine the member may get so little CPU in two seconds that its
	// profile holds too few samples to show the work checked, so such a
	// capture is taken again until the test's deadline nears.
	capture := func(sqlShare int, missing func(out string) []string, args ...string) string {
		t.Helper()
		for attempt := 1; ; attempt++ {
			out := profile(sqlShare, args...)
			m := missing(out)
			if len(m) == 0 {
				return out
			}
			if deadline, _ := ctx.Deadline(); time.Until(deadline) < time.Minute {
				t.Fatalf("atoll profile %s, %d captures: %s", strings.Join(args, " "), attempt, strings.Join(m, "; "))
			}
			t.Logf("capture %d of atoll profile %s: %s; capturing again", attempt, strings.Join(args, " "), strings.Join(m, "; "))
		}
	}
	framesMissing := func(text string, frames ...string) []string {
		var m []string
		for _, f := range frames {
			if !strings.Contains(text, f) {
				m = append(m, "no frame "+f)
			}
		}
		return m
	}

	cpu := filepath.Join(dir, "cpu")
	capture(5, func(string) []string {
		if fi, err := os.Stat(cpu + ".pb.gz"); err != nil || fi.Size() == 0 {
			t.Fatalf("raw profile: %v", err)
		}
		m := framesMissing(svgText(t, cpu+".svg"), scanFrame, executeFrame)
		// Both kinds of query ran under their label.
		kinds := map[string]int{}
		for _, s := range readProfile(t, cpu+".pb.gz").Sample {
			for _, k := range s.Label[profiling.LabelKind] {
				kinds[k]++
			}
		}
		if kinds["sql"] == 0 || kinds["predicate"] == 0 {
			m = append(m, fmt.Sprintf("samples by kind label %v, want sql and predicate", kinds))
		}
		return m
	}, "cpu", "--out", cpu)

	allocs := filepath.Join(dir, "allocs")
	capture(5, func(string) []string {
		return framesMissing(svgText(t, allocs+".svg"), executeFrame)
	}, "allocs", "--out", allocs+".svg")

	// --label kind=sql keeps exactly the samples labelled sql.
	sqlOnly := filepath.Join(dir, "sql")
	want := 0
	out := capture(5, func(string) []string {
		raw := readProfile(t, sqlOnly+".pb.gz")
		want = 0
		for _, s := range raw.Sample {
			if slices.Contains(s.Label[profiling.LabelKind], "sql") {
				want++
			}
		}
		if want == 0 || want == len(raw.Sample) {
			return []string{fmt.Sprintf("%d of %d samples are SQL; want some but not all", want, len(raw.Sample))}
		}
		return framesMissing(svgText(t, sqlOnly+".svg"), scanFrame)
	}, "cpu", "--label", "kind=sql", "--out", sqlOnly)
	if !strings.Contains(out, fmt.Sprintf("flame graph of %d samples", want)) {
		t.Errorf("--label kind=sql: %q, want a flame graph of the %d SQL samples", out, want)
	}
	if text := svgText(t, sqlOnly+".svg"); !strings.Contains(text, "kind=sql") {
		t.Errorf("the SQL flame graph does not name its label")
	}

	// Nearly all SQL against the balanced first capture.
	diff := filepath.Join(dir, "diff")
	capture(9, func(string) []string {
		text := svgText(t, diff+".svg")
		if !strings.Contains(text, "base ") {
			t.Fatal("the diff flame graph does not name its base")
		}
		m := framesMissing(text, scanFrame)
		if !strings.Contains(text, "hotter") && !strings.Contains(text, "colder") {
			m = append(m, "no frame hotter or colder than the base")
		}
		return m
	}, "cpu", "--diff-base", cpu+".pb.gz", "--out", diff)
}

// readProfile parses a raw profile `atoll profile` wrote.
func readProfile(t *testing.T, path string) *pprofile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprofile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProfileBadInput checks that bad input gets a clear error.
func TestProfileBadInput(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	admin := c.Members()[0].AdminAddr
	dir := t.TempDir()
	notProfile := filepath.Join(dir, "not.pb.gz")
	if err := os.WriteFile(notProfile, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "gpu", "--out", dir + "/x"}, `unknown profile type "gpu"`},
		{[]string{"profile", "cpu", "--member", "127.0.0.1:1", "--seconds", "1", "--out", dir + "/x"}, "member admin 127.0.0.1:1"},
		{[]string{"profile", "cpu", "--member", admin, "--label", "op", "--out", dir + "/x"}, "want KEY=VALUE"},
		{[]string{"profile", "cpu", "--member", admin, "--seconds", "0", "--out", dir + "/x"}, "want at least 1"},
		{[]string{"profile", "cpu", "--member", admin, "--out", dir + "/x", "--diff-base", notProfile}, "not a profile"},
		{[]string{"profile", "heap", "--member", admin, "--out", dir + "/x", "--label", "op=set"}, "carries no labels"},
		{[]string{"profile", "cpu", "--member", admin, "--out", dir + "/x", "--rate", "5"}, "mutex and block"},
		{[]string{"profile", "cpu", "--member", admin}, "--out FILE is required"},
	} {
		out, errOut, code := c.Run(tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "panic") {
			t.Errorf("atoll %s: exit %d, stdout %q, stderr %q; want an error with %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
	// A CPU profile cannot be diffed against a heap profile.
	heap := filepath.Join(dir, "heap")
	if _, errOut, code := c.Run("profile", "heap", "--member", admin, "--out", heap); code != 0 {
		t.Fatal(errOut)
	}
	_, errOut, code := c.Run("profile", "cpu", "--member", admin, "--seconds", "1", "--out", dir+"/y", "--diff-base", heap+".pb.gz")
	if code == 0 || !strings.Contains(errOut, "--diff-base") || strings.Contains(errOut, "panic") {
		t.Errorf("cpu against a heap base: exit %d, %q", code, errOut)
	}
}
