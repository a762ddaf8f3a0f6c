package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
)

// caseLine is the line printed when a case ends, on a terminal and off it.
func caseLine(c report.Case) string {
	if c.Error != "" {
		return fmt.Sprintf("  %-34s %-4s ERROR %s", c.Title(), c.API, c.Error)
	}
	check := "-"
	if c.Check != nil {
		check = fmt.Sprint(*c.Check)
	}
	if c.KeptUp != nil {
		kept := "kept up"
		if !*c.KeptUp {
			kept = fmt.Sprintf("DID NOT KEEP UP (%d unsent)", c.Unsent)
		}
		return fmt.Sprintf("  %-34s %-4s check=%-11s rate=%g/s sent=%.1f/s %s p50=%.3fms p99=%.3fms p99.9=%.3fms max=%.3fms cpu=%.2f (%.1fs)",
			c.Title(), c.API, check, float64(c.Rate), float64(c.AchievedRate), kept, float64(c.P50ms), float64(c.P99ms),
			float64(c.P999ms), float64(c.Maxms), float64(c.ProcessCPU), float64(c.Seconds))
	}
	return fmt.Sprintf("  %-34s %-4s check=%-11s ops=%-8d ops/s=%-10.1f p50=%.3fms p99=%.3fms cpu=%.2f (%.1fs)",
		c.Title(), c.API, check, c.Ops, float64(c.OpsPerSecMedian), float64(c.P50ms), float64(c.P99ms), float64(c.ProcessCPU), float64(c.Seconds))
}

// plainObserver writes one line per step: for logs and pipes.
type plainObserver struct{ w io.Writer }

func (o plainObserver) Message(msg string) { fmt.Fprintln(o.w, msg) }

func (o plainObserver) CaseStart(c workload.Case, expected time.Duration, _ *atomic.Int64) {
	fmt.Fprintf(o.w, "  %s %s: running (%.1fs)\n", c.Title(), c.API, expected.Seconds())
}

func (o plainObserver) Phase(workload.Case, harness.Phase) {}

func (o plainObserver) CaseDone(c report.Case) { fmt.Fprintln(o.w, caseLine(c)) }

// barObserver draws a progress bar per case on a terminal: the bar
// follows the clock through the warm-up and rounds, its description the
// phase and the operations completed.
type barObserver struct {
	w     io.Writer
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	title string
	phase harness.Phase
	done  *atomic.Int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
}

func (o *barObserver) Message(msg string) { fmt.Fprintln(o.w, msg) }

func (o *barObserver) CaseStart(c workload.Case, expected time.Duration, done *atomic.Int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.title = fmt.Sprintf("%-34s %-4s", c.Title(), c.API)
	o.phase, o.done, o.start = harness.PhaseValidate, done, time.Now()
	o.bar = progressbar.NewOptions64(expected.Milliseconds(),
		progressbar.OptionSetWriter(o.w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetDescription(o.describe()),
	)
	o.stop = make(chan struct{})
	o.wg.Add(1)
	go o.tick(o.bar, o.stop)
}

func (o *barObserver) describe() string {
	return fmt.Sprintf("  %s %-10s %9d ops", o.title, o.phase, o.done.Load())
}

func (o *barObserver) tick(bar *progressbar.ProgressBar, stop chan struct{}) {
	defer o.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			o.mu.Lock()
			if o.phase != harness.PhaseValidate {
				bar.Describe(o.describe())
				_ = bar.Set64(min(time.Since(o.start).Milliseconds(), bar.GetMax64()-1))
			}
			o.mu.Unlock()
		}
	}
}

func (o *barObserver) Phase(_ workload.Case, p harness.Phase) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.phase == harness.PhaseValidate {
		o.start = time.Now() // the bar measures the warm-up and rounds
	}
	o.phase = p
}

func (o *barObserver) CaseDone(c report.Case) {
	close(o.stop)
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.bar.Finish()
	fmt.Fprintln(o.w, caseLine(c))
}
