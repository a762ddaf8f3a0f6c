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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/bench/latency"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestMemberSurvivesAJoinFlood starts two member processes with a small
// memory limit and floods them with twice as many large joins as fit:
// the breaker holds back what does not fit, no member dies, stalls or passes
// its limit, gets are answered throughout, every failed query is a
// memory refusal, and afterwards no member holds query memory or runs
// more query engine goroutines than before.
func TestMemberSurvivesAJoinFlood(t *testing.T) {
	const limit = 128 << 20
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	members, err := StartMembers(ctx, ProcessOptions{Binary: testcluster.Binary(t), ClusterName: "flood",
		MemoryLimit: limit, Breaker: true, LogDir: t.TempDir()}, 2)
	require.NoError(t, err)
	defer StopMembers(members)
	// A short retry budget: the step waits for the queries under way.
	retry := client.Backoff{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond}
	c, err := client.New(ctx, client.Config{Addresses: []string{members[0].Addr}, ClusterName: "flood", QueryRetry: retry})
	require.NoError(t, err)
	defer c.Close()
	size := SizeFor(limit, len(members), 20, 1000)
	require.NoError(t, Load(ctx, c, size, 2))
	require.NoError(t, Check(ctx, c, size))
	var progress bytes.Buffer
	res, err := Run(ctx, c, members, size, Config{Clients: []int{40}, Step: 3 * time.Second, Passes: 2, MemoryLimit: limit,
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
		require.NoError(t, err)
	}
	require.Zero(t, res.FailedAt, "at %d clients: %s", res.FailedAt, res.Failure)
	require.Len(t, res.Steps, 1, "one client count, its two passes pooled")
	st := res.Steps[0]
	require.Len(t, st.PassMedians, 2, "a median per pass")
	require.Positive(t, st.Rejected+st.Terminated+st.MaxWaiting, "the breaker held queries back (the flood pressed the members): %+v", st)
	require.Positive(t, st.Requests-st.Errors, "joins answered: %+v", st)
	require.Zero(t, st.OtherErrors, "queries failed for something else than memory; the first: %s", st.FirstError)
	require.Positive(t, st.MemberCPUMsPerQuery, "the members' CPU per answer, from their metrics: %+v", st)
	require.Positive(t, st.ClientCPUMsPerQuery, "the client's CPU per answer: %+v", st)
	require.Positive(t, st.Gets, "gets during the flood")
	require.Zero(t, st.GetFailures, "gets that failed during the flood")
	require.LessOrEqual(t, st.MaxAnonBytes, int64(limit), "a member's anonymous resident set stays within its limit")
	for i := range members {
		require.Zero(t, res.ReservedAfter[i], "member %d: bytes reserved after the flood", i+1)
		require.LessOrEqual(t, res.EngineGoroutinesAfter[i], res.EngineGoroutinesBefore[i], "member %d: query engine goroutines after the flood", i+1)
	}
}

// A client count's figures pool its passes: throughput over the seconds
// of all, latency over the queries of all, sums and maxima of the rest.
func TestPassesPool(t *testing.T) {
	acc := &stepAcc{st: Step{Clients: 8}, lat: latency.New()}
	pass := func(perSecond []float64, latencies []time.Duration, p Step) {
		lat := latency.New()
		for _, d := range latencies {
			lat.Record(d)
		}
		p.Clients = 8
		p.setRates(perSecond)
		acc.add(p, lat)
	}
	pass([]float64{10, 12, 14}, []time.Duration{100 * time.Millisecond, 300 * time.Millisecond},
		Step{Requests: 40, Errors: 4, Rejected: 3, MaxAnonBytes: 90, Gets: 10, FirstError: "first", memberCPU: 2 * time.Second, clientCPU: time.Second / 10})
	pass([]float64{20, 22, 24}, []time.Duration{200 * time.Millisecond},
		Step{Requests: 70, Errors: 7, OtherErrors: 1, Terminated: 2, MaxAnonBytes: 80, Gets: 12, GetFailures: 1, FirstError: "second", memberCPU: 4 * time.Second, clientCPU: time.Second / 5})
	st := acc.finish()
	assert.Equal(t, []float64{12, 22}, st.PassMedians)
	assert.Equal(t, []float64{10, 12, 14, 20, 22, 24}, st.PerSecond, "every second, pass after pass")
	assert.Equal(t, 17.0, st.MedianThroughput, "median of the six seconds")
	assert.Equal(t, 10.0, st.MinThroughput)
	assert.Equal(t, 24.0, st.MaxThroughput)
	assert.Equal(t, int64(110), st.Requests)
	assert.Equal(t, int64(11), st.Errors)
	assert.InDelta(t, 10.0, st.ErrorRate, 1e-9)
	assert.InDelta(t, 6000.0/99, st.MemberCPUMsPerQuery, 1e-9, "the members' CPU over the 99 answered queries")
	assert.InDelta(t, 300.0/99, st.ClientCPUMsPerQuery, 1e-9)
	assert.Equal(t, int64(1), st.OtherErrors)
	assert.Equal(t, "first", st.FirstError)
	assert.Equal(t, int64(3), st.Rejected)
	assert.Equal(t, int64(2), st.Terminated)
	assert.Equal(t, int64(90), st.MaxAnonBytes)
	assert.Equal(t, int64(22), st.Gets)
	assert.Equal(t, int64(1), st.GetFailures)
	assert.InDelta(t, 300, st.P100Ms, 1, "the slowest query of both passes")
	assert.InDelta(t, 200, st.P50Ms, 1)

	res := &Result{}
	res.finishSteps([]*stepAcc{acc, nil})
	require.Len(t, res.Steps, 1, "a client count that never ran has no step")
	assert.Equal(t, 8, res.FirstTrip, "the breaker acted at 8 clients")
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
	assert.True(t, c.NoMemberFailed)
	assert.Equal(t, 12.0, c.Peak)
	assert.Equal(t, 11.0, c.MedianAtLast)
	assert.Zero(t, c.ErrorsBeforeTrip)
	assert.True(t, c.Settled)
	assert.Equal(t, 4, c.OffFailedAt)
	assert.Equal(t, 900.0, c.MaxP100Ms)
	on.Steps[2].MaxAnonBytes = 101
	on.Steps[0].Errors = 1
	on.EngineGoroutinesAfter[0] = 4
	c = r.Check()
	assert.False(t, c.NoMemberFailed, "a member past its limit failed")
	assert.Equal(t, int64(1), c.ErrorsBeforeTrip)
	assert.False(t, c.Settled, "a goroutine more after the flood")
	var table, page bytes.Buffer
	require.NoError(t, r.WriteTable(&table))
	require.NoError(t, r.WriteHTML(&page))
	for _, want := range []string{"8  ", "/2000", "at 4 clients member 1 died", "median at 8 clients 11.00 q/s = 92% of the peak 12.00"} {
		assert.Contains(t, table.String(), want)
	}
	assert.Equal(t, 2*len(graphs), strings.Count(page.String(), "<polyline"), "lines in the page")
	var svg bytes.Buffer
	require.NoError(t, r.WriteSVG(&svg))
	for dec := xml.NewDecoder(&svg); ; {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is not well-formed XML")
	}
}
