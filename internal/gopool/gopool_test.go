package gopool

import (
	"context"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunsEveryFunctionConcurrently(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := New(time.Minute)
	defer p.Close()
	const n = 64
	// Every function waits for all the others to start: the pool must
	// run them at the same time, not queue them.
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	for range n {
		p.Go(func() {
			defer done.Done()
			started.Done()
			started.Wait()
		})
	}
	done.Wait()
}

func TestReusesAnIdleGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := New(time.Minute)
	defer p.Close()
	// One function at a time: each finds the goroutine of the one before
	// waiting, unless it has not reached its wait yet.
	const n = 1000
	for range n {
		ran := make(chan struct{})
		p.Go(func() { close(ran) })
		<-ran
	}
	require.Less(t, p.started.Load(), int64(n), "no function ran on a kept goroutine")
	t.Logf("%d functions ran on %d goroutines", n, p.started.Load())
}

func TestIdleGoroutinesEnd(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := New(10 * time.Millisecond)
	defer p.Close()
	var wg sync.WaitGroup
	wg.Add(8)
	for range 8 {
		p.Go(wg.Done)
	}
	wg.Wait()
	waitFor(t, func() bool { return p.live.Load() == 0 }, "idle goroutines to end")
}

func TestCloseWaitsForRunningFunctions(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := New(time.Minute)
	release, running := make(chan struct{}), make(chan struct{})
	finished := false
	p.Go(func() {
		close(running)
		<-release
		finished = true
	})
	<-running
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a function ran")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-closed
	require.True(t, finished)
	// Go still runs functions after Close.
	ran := make(chan struct{})
	p.Go(func() { close(ran) })
	<-ran
}

func TestFunctionsStartWithoutLabels(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := New(time.Minute)
	defer p.Close()
	for range 20 {
		labelled := make(chan struct{})
		p.Go(func() {
			pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("query", "q1")))
			close(labelled)
		})
		<-labelled
		// The next function (on the same goroutine or another) blocks
		// while the goroutine profile, which prints labels, is taken.
		release, running := make(chan struct{}), make(chan struct{})
		p.Go(func() { probe(running, release) })
		<-running
		var b strings.Builder
		require.NoError(t, pprof.Lookup("goroutine").WriteTo(&b, 1))
		close(release)
		found := false
		for _, rec := range strings.Split(b.String(), "\n\n") {
			if strings.Contains(rec, "gopool.probe") {
				found = true
				require.NotContains(t, rec, `"query":"q1"`, "a function kept the labels of the one before it")
			}
		}
		require.True(t, found, "the probe is not in the goroutine profile")
	}
}

// probe signals running, then blocks until release closes.
func probe(running, release chan struct{}) {
	close(running)
	<-release
}
