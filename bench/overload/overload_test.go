package overload

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestMemberSurvivesAJoinFlood starts two member processes with a small
// memory limit and floods them with twice as many large joins as fit:
// the breaker refuses what does not fit, no member dies, stalls or passes
// its limit, gets are answered throughout, every failed query is a
// memory refusal, and afterwards no member holds query memory or runs
// more query engine goroutines than before.
func TestMemberSurvivesAJoinFlood(t *testing.T) {
	const limit = 128 << 20
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	members, err := StartMembers(ctx, ProcessOptions{Binary: testcluster.Binary(t), ClusterName: "flood",
		MemoryLimit: limit, Breaker: true, LogDir: t.TempDir()}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer StopMembers(members)
	// A short retry budget: the step waits for the queries under way.
	retry := client.Backoff{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond}
	c, err := client.New(ctx, client.Config{Addresses: []string{members[0].Addr}, ClusterName: "flood", QueryRetry: retry})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	size := SizeFor(limit, len(members), 20, 1000)
	if err := Load(ctx, c, size, 2); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, c, size); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	res, err := Run(ctx, c, members, size, Config{Clients: []int{40}, Step: 3 * time.Second, MemoryLimit: limit,
		KillAbove: limit * 10 / 9, StallAfter: 20 * time.Second, RetryBudget: retry.Budget(200 * time.Millisecond), Progress: &progress})
	t.Log(progress.String())
	if err != nil {
		// The members did not settle: query memory or goroutines left.
		for _, m := range members {
			if resp, gerr := http.Get("http://" + m.Admin + "/debug/pprof/goroutine?debug=1"); gerr == nil {
				dump, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				t.Logf("%s goroutines:\n%s", m.Name, dump)
			}
		}
		t.Fatal(err)
	}
	if res.FailedAt != 0 {
		t.Fatalf("at %d clients: %s", res.FailedAt, res.Failure)
	}
	st := res.Steps[0]
	if st.Rejected+st.Terminated == 0 {
		t.Fatalf("the breaker never acted: the flood did not press the members (%+v)", st)
	}
	if st.Requests-st.Errors == 0 {
		t.Fatalf("no join was answered: %+v", st)
	}
	if st.OtherErrors != 0 {
		t.Fatalf("%d queries failed for something else than memory; the first: %s", st.OtherErrors, st.FirstError)
	}
	if st.Gets == 0 || st.GetFailures != 0 {
		t.Fatalf("gets during the flood: %d, %d failed", st.Gets, st.GetFailures)
	}
	if st.MaxAnonBytes > limit {
		t.Fatalf("a member's anonymous resident set reached %d bytes, past its limit %d", st.MaxAnonBytes, limit)
	}
	for i := range members {
		if res.ReservedAfter[i] != 0 || res.EngineGoroutinesAfter[i] > res.EngineGoroutinesBefore[i] {
			t.Fatalf("member %d after the flood: %d bytes reserved, %d query engine goroutines (%d before)",
				i+1, res.ReservedAfter[i], res.EngineGoroutinesAfter[i], res.EngineGoroutinesBefore[i])
		}
	}
}

// The goals are judged from the figures: a member past its limit, a
// median below 90% of the peak or errors before the first trip fail them.
func TestReportChecks(t *testing.T) {
	step := func(n int, median, p100 float64, errs, rejected int64, anon int64) Step {
		return Step{Clients: n, Requests: 100, Errors: errs, MedianThroughput: median, P100Ms: p100, Rejected: rejected, MaxAnonBytes: anon}
	}
	on := &Result{Breaker: true, Members: 1, MemoryLimit: 100, RetryBudgetMs: 1000, FirstTrip: 4,
		Steps:         []Step{step(1, 10, 50, 0, 0, 60), step(4, 12, 300, 2, 5, 90), step(8, 11, 900, 9, 50, 95)},
		ReservedAfter: []int64{0}, GoroutinesBefore: []int64{40}, GoroutinesAfter: []int64{40},
		EngineGoroutinesBefore: []int64{3}, EngineGoroutinesAfter: []int64{3}}
	off := &Result{Members: 1, MemoryLimit: 100, Steps: []Step{step(1, 9, 60, 0, 0, 70), step(4, 3, 2000, 50, 0, 120)},
		FailedAt: 4, Failure: "member 1 died (killed)"}
	r := &Report{On: on, Off: off}
	c := r.Check()
	if !c.NoMemberFailed || c.Peak != 12 || c.MedianAtLast != 11 || c.ErrorsBeforeTrip != 0 || !c.Settled || c.OffFailedAt != 4 || c.MaxP100Ms != 900 {
		t.Fatalf("%+v", c)
	}
	on.Steps[2].MaxAnonBytes = 101
	on.Steps[0].Errors = 1
	on.EngineGoroutinesAfter[0] = 4
	if c := r.Check(); c.NoMemberFailed || c.ErrorsBeforeTrip != 1 || c.Settled {
		t.Fatalf("%+v", c)
	}
	var table, page bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"8  ", "/2000", "at 4 clients member 1 died", "median at 8 clients 11.00 q/s = 92% of the peak 12.00"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if n := strings.Count(page.String(), "<polyline"); n != 2*len(graphs) {
		t.Errorf("%d lines in the page, want %d", n, 2*len(graphs))
	}
	var svg bytes.Buffer
	if err := r.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	for dec := xml.NewDecoder(&svg); ; {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
}
