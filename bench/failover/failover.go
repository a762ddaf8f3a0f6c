// Package failover is the failover workload: writers keep writing while a
// member fails, and the run reports how long the cluster left them without
// an acknowledgement, the slowest call, and whether an acknowledged write
// was lost. It is the workload of Hazelcast's reference harness (8 writer
// threads, each setting keys "t<writer>-<i>" to themselves, a member
// killed after 5 s, 15 s more, then every acknowledged key read back), run
// here through the Go SDK; the Java SDK's runner
// (io.atoll.client.bench.Failover) and the Hazelcast runner
// (bench/hazelcast, Failover) run the same workload and print the same
// FAILOVER line, so that the three compare.
package failover

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/atolldb/atoll/pkg/client"
)

// Config is one run's workload.
type Config struct {
	// Writers is how many goroutines write (default 8).
	Writers int
	// Before is how long they write before the disruption (default 5s),
	// After how long after it (default 15s).
	Before, After time.Duration
	// CallTimeout is each write's deadline (default 30s, as the SDKs'
	// failover runs used).
	CallTimeout time.Duration
	// Disrupt is called once, Before into the run (kill a member).
	Disrupt func() error
	// Settle, if set, is called once the writers stopped, before the
	// acknowledged keys are read back (resume a paused member).
	Settle func() error
}

func (c Config) withDefaults() Config {
	if c.Writers <= 0 {
		c.Writers = 8
	}
	if c.Before <= 0 {
		c.Before = 5 * time.Second
	}
	if c.After <= 0 {
		c.After = 15 * time.Second
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 30 * time.Second
	}
	return c
}

// Result is what a run measured, in the shape every runner prints.
type Result struct {
	// System and Disruption label the run ("atoll go", "kill -9").
	System     string `json:"system"`
	Disruption string `json:"disruption"`
	// LongestPause is the longest time without an acknowledgement of any
	// writer, over the whole run (until the writers are told to stop, or a
	// later acknowledgement); SlowestCall the longest single write.
	LongestPause time.Duration `json:"longest_pause_ns"`
	SlowestCall  time.Duration `json:"slowest_call_ns"`
	// Acknowledged writes succeeded; Failed returned an error; Lost are
	// acknowledged keys that did not read back with their value.
	Acknowledged int `json:"acknowledged"`
	Failed       int `json:"failed"`
	Lost         int `json:"lost"`
	// FirstError is the first failed write's error, as the SDK said it.
	FirstError string `json:"first_error,omitempty"`
}

// Line is the run's FAILOVER line, as the other runners print it.
func (r Result) Line() string {
	return fmt.Sprintf("FAILOVER %s, %s: longest pause without an ack %d ms; slowest call %d ms; %d acknowledged, %d failed, %d lost",
		r.System, r.Disruption, r.LongestPause.Milliseconds(), r.SlowestCall.Milliseconds(), r.Acknowledged, r.Failed, r.Lost)
}

// WriteJSON writes the result as one JSON object.
func (r Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Run runs the workload through m and reads every acknowledged key back.
// It fails only when it cannot run: failed writes and lost keys are in
// the result.
func Run(ctx context.Context, m *client.Map[string, string], cfg Config) (Result, error) {
	cfg = cfg.withDefaults()
	var res Result
	var (
		mu       sync.Mutex
		acked    []string
		last     = time.Now()
		pause    time.Duration
		firstErr atomic.Pointer[string]
	)
	var slowest atomic.Int64
	var failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < cfg.Writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string
			defer func() {
				mu.Lock()
				acked = append(acked, mine...)
				mu.Unlock()
			}()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				k := fmt.Sprintf("t%d-%d", w, i)
				start := time.Now()
				cctx, cancel := context.WithTimeout(ctx, cfg.CallTimeout)
				err := m.Set(cctx, k, k)
				cancel()
				now := time.Now()
				if took := now.Sub(start); int64(took) > slowest.Load() {
					for cur := slowest.Load(); int64(took) > cur && !slowest.CompareAndSwap(cur, int64(took)); cur = slowest.Load() {
					}
				}
				if err != nil {
					failed.Add(1)
					msg := err.Error()
					firstErr.CompareAndSwap(nil, &msg)
					continue
				}
				mine = append(mine, k)
				mu.Lock()
				pause = max(pause, now.Sub(last))
				last = now
				mu.Unlock()
			}
		}()
	}
	wait := func(d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := wait(cfg.Before)
	if err == nil && cfg.Disrupt != nil {
		err = cfg.Disrupt()
	}
	if err == nil {
		err = wait(cfg.After)
	}
	// A pause still going on at the end counts too: writers that all
	// hang get no acknowledgement to end it.
	mu.Lock()
	pause = max(pause, time.Since(last))
	mu.Unlock()
	close(stop)
	wg.Wait()
	if cfg.Settle != nil {
		if serr := cfg.Settle(); err == nil {
			err = serr
		}
	}
	if err != nil {
		return res, err
	}
	res.LongestPause, res.SlowestCall = pause, time.Duration(slowest.Load())
	res.Acknowledged, res.Failed = len(acked), int(failed.Load())
	if p := firstErr.Load(); p != nil {
		res.FirstError = *p
	}
	res.Lost, err = lost(ctx, m, acked)
	return res, err
}

// lost reads the acknowledged keys back, 500 at a time, and counts those
// that are missing or wrong.
func lost(ctx context.Context, m *client.Map[string, string], keys []string) (int, error) {
	n := 0
	for i := 0; i < len(keys); i += 500 {
		batch := keys[i:min(i+500, len(keys))]
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		got, err := m.GetAll(rctx, batch)
		cancel()
		if err != nil {
			return 0, fmt.Errorf("reading the acknowledged keys back: %w", err)
		}
		found := make(map[string]string, len(got))
		for _, e := range got {
			found[e.Key] = e.Value
		}
		for _, k := range batch {
			if found[k] != k {
				n++
			}
		}
	}
	return n, nil
}

// Signal sends sig to process pid: a disruption (SIGKILL, SIGSTOP) or its
// end (SIGCONT).
func Signal(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("signal %v to process %d: %w", sig, pid, err)
	}
	return nil
}
