package overload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/latency"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/pkg/client"
)

// Config configures a run of the workload.
type Config struct {
	// Clients are the client counts, in order; each loops the join.
	Clients []int
	// Step is how long each client count runs per pass; its throughput
	// is sampled once a second.
	Step time.Duration
	// Passes is how many times the client counts run, in order each time
	// (0 means 1). A client count's figures pool the seconds and queries
	// of all its passes, so that a drift of the machine's speed over the
	// run is spread over every client count instead of landing on a few.
	Passes int
	// MemoryLimit is the members' memory limit: a member whose resident
	// set passes it has exceeded it.
	MemoryLimit int64
	// KillAbove is the resident set at which the run kills a member it
	// started, as a container's out-of-memory killer would at the
	// container's limit; 0 never.
	KillAbove int64
	// StallAfter is how long a member may leave its metrics and gets
	// unanswered before it counts as stalled (default 5s).
	StallAfter time.Duration
	// RetryBudget is the client's retry budget, for the report.
	RetryBudget time.Duration
	// Progress receives a line per client count (nil: none).
	Progress io.Writer
}

// Step is the figures of one client count.
type Step struct {
	Clients int `json:"clients"`
	// Requests counts the queries that ended in the step (retries inside
	// the client included in one), Errors those that failed.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// OtherErrors counts the failed queries that the breaker did not
	// refuse (anything but client.ErrMemoryLimit); FirstError is the
	// message of the step's first failed query.
	OtherErrors int64   `json:"otherErrors"`
	FirstError  string  `json:"firstError,omitempty"`
	ErrorRate   float64 `json:"errorRatePercent"`
	// Throughput: queries answered per second, over the step's seconds
	// (of all its passes); PassMedians is the median of each pass alone.
	MinThroughput    float64   `json:"minThroughput"`
	MedianThroughput float64   `json:"medianThroughput"`
	MaxThroughput    float64   `json:"maxThroughput"`
	PassMedians      []float64 `json:"passMedians"`
	// PerSecond is the queries answered in each second, pass after pass.
	PerSecond []float64 `json:"perSecond"`
	// Latency of every query that ended, answered or failed, in ms.
	P50Ms  float64 `json:"p50Ms"`
	P90Ms  float64 `json:"p90Ms"`
	P100Ms float64 `json:"p100Ms"`
	// Breaker actions during the step, all members.
	Rejected   int64 `json:"rejected"`
	Terminated int64 `json:"terminated"`
	// MaxWaiting is the most queries one member had waiting for room
	// to start (query.breaker.admission-wait) when its metrics were read.
	MaxWaiting int64 `json:"maxWaiting"`
	// The largest resident set, anonymous resident set (what the
	// memory limit is judged on) and query memory of any member.
	MaxRSSBytes      int64 `json:"maxRssBytes"`
	MaxAnonBytes     int64 `json:"maxAnonRssBytes"`
	MaxReservedBytes int64 `json:"maxReservedBytes"`
	// Gets made on the side while the queries ran.
	Gets        int64   `json:"gets"`
	GetFailures int64   `json:"getFailures"`
	MaxGetMs    float64 `json:"maxGetMs"`
	// Failure names a member that died or stalled, if one did.
	Failure string  `json:"failure,omitempty"`
	Load1   float64 `json:"load1"`
	// StealPercent is the share of the machine's CPU time that the
	// hypervisor gave to other guests during the step's seconds: a
	// noise indicator, as the load average is.
	StealPercent float64 `json:"stealPercent"`
	// MemberCPUMsPerQuery is the CPU all members used from the step's
	// start to its last query's end (their process_cpu_seconds_total),
	// and ClientCPUMsPerQuery this process's, per query answered: what
	// an answer costs, refused attempts and all.
	MemberCPUMsPerQuery float64 `json:"memberCpuMsPerQuery"`
	ClientCPUMsPerQuery float64 `json:"clientCpuMsPerQuery"`
	cpu                 harness.CPUTimes
	// memberCPU and clientCPU are the CPU behind the two figures.
	memberCPU, clientCPU time.Duration
}

// Tripped reports whether the breaker acted in the step.
func (s Step) Tripped() bool { return s.Rejected+s.Terminated > 0 }

// Result is one run: every client count with the breaker on or off.
type Result struct {
	Breaker     bool    `json:"breaker"`
	Members     int     `json:"members"`
	MemoryLimit int64   `json:"memoryLimitBytes"`
	KillAbove   int64   `json:"killAboveBytes"`
	Size        Size    `json:"size"`
	StepSeconds float64 `json:"stepSeconds"`
	Passes      int     `json:"passes"`
	// RetryBudgetMs is the client's retry budget.
	RetryBudgetMs float64 `json:"retryBudgetMs"`
	Steps         []Step  `json:"steps"`
	// FirstTrip is the client count at which the breaker first acted;
	// FailedAt the one at which a member died or stalled (0: none).
	FirstTrip int    `json:"firstTrip"`
	FailedAt  int    `json:"failedAt"`
	Failure   string `json:"failure,omitempty"`
	// Each member's goroutines before the first client count, and its
	// query memory and goroutines after the last.
	ReservedAfter    []int64 `json:"reservedAfter"`
	GoroutinesBefore []int64 `json:"goroutinesBefore"`
	GoroutinesAfter  []int64 `json:"goroutinesAfter"`
	// The goroutines of the query engine (internal/exec frames) before
	// and after: a query that left one behind shows here.
	EngineGoroutinesBefore []int64 `json:"engineGoroutinesBefore"`
	EngineGoroutinesAfter  []int64 `json:"engineGoroutinesAfter"`
	LoadStart              float64 `json:"loadStart"`
	LoadEnd                float64 `json:"loadEnd"`
}

// Run loops the join on each client count of cfg against the members
// (loaded with s), watching them, and returns the figures. It stops at
// the first client count at which a member dies or stalls. Between client
// counts it waits for the members' query memory to return to 0; after the
// last one (a minute at most) for their query engine goroutines to return
// to their count before the first. It reports their goroutines in all
// too; those also count connections and streams opened on demand that
// stay open (the client's to each member, the members' to each other).
func Run(ctx context.Context, c *client.Client, members []*Member, s Size, cfg Config) (*Result, error) {
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = 5 * time.Second
	}
	if cfg.Step < time.Second {
		return nil, fmt.Errorf("step %v: want at least a second (throughput is sampled per second)", cfg.Step)
	}
	passes := max(cfg.Passes, 1)
	res := &Result{Members: len(members), MemoryLimit: cfg.MemoryLimit, KillAbove: cfg.KillAbove, Size: s,
		StepSeconds: cfg.Step.Seconds(), Passes: passes, RetryBudgetMs: ms(cfg.RetryBudget), LoadStart: harness.LoadAverage()}
	for range 4 * len(members) {
		if _, err := count(ctx, c); err != nil {
			return nil, fmt.Errorf("warming up: %w", err)
		}
	}
	// The baseline is taken before the watch starts and compared after
	// it stopped: its own requests are in neither.
	before, err := Settle(ctx, members, nil, time.Minute)
	if err != nil {
		return nil, err
	}
	w := newWatch(members, cfg)
	wctx, stopWatch := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	watchers.Add(2)
	go func() { defer watchers.Done(); w.run(wctx) }()
	go func() { defer watchers.Done(); w.probeGets(wctx, c, s) }()
	endWatch := func() { stopWatch(); watchers.Wait() }
	defer endWatch()

	accs := make([]*stepAcc, len(cfg.Clients))
	defer func() { res.finishSteps(accs) }()
passes:
	for pass := 1; pass <= passes; pass++ {
		for i, n := range cfg.Clients {
			if accs[i] == nil {
				accs[i] = &stepAcc{st: Step{Clients: n}, lat: latency.New()}
			}
			st, err := runStep(ctx, c, w, n, cfg, accs[i])
			if err != nil {
				return res, err
			}
			if cfg.Progress != nil {
				of := ""
				if passes > 1 {
					of = fmt.Sprintf("pass %d/%d, ", pass, passes)
				}
				fmt.Fprintf(cfg.Progress, "  %s%3d clients: %6.2f q/s median, p50 %7.0f ms, p100 %7.0f ms, errors %5.1f%%, rejected %d, terminated %d, waiting %d at most, max RSS %s (anonymous %s), gets %d (%d failed, slowest %.0f ms), CPU per answer %.1f ms in the members and %.1f ms in the client, steal %.1f%%%s\n",
					of, n, st.MedianThroughput, st.P50Ms, st.P100Ms, st.ErrorRate, st.Rejected, st.Terminated, st.MaxWaiting, mib(st.MaxRSSBytes), mib(st.MaxAnonBytes),
					st.Gets, st.GetFailures, st.MaxGetMs, st.MemberCPUMsPerQuery, st.ClientCPUMsPerQuery, st.StealPercent, failureNote(st.Failure))
				if st.FirstError != "" {
					fmt.Fprintf(cfg.Progress, "       first error: %s\n", st.FirstError)
				}
			}
			if st.Failure != "" {
				res.FailedAt, res.Failure = n, st.Failure
				break passes
			}
			// The next client count starts from a quiet cluster: the
			// queries the step cancelled have given their memory back.
			if _, err := Settle(ctx, members, nil, time.Minute); err != nil {
				res.FailedAt, res.Failure = n, err.Error()
				break passes
			}
		}
	}
	endWatch()
	if res.FailedAt == 0 {
		after, err := Settle(ctx, members, before, time.Minute)
		res.recordSettled(before, after)
		if err != nil {
			return res, err
		}
	}
	res.LoadEnd = harness.LoadAverage()
	return res, nil
}

func failureNote(f string) string {
	if f == "" {
		return ""
	}
	return ": " + f
}

// completion is one query that ended.
type completion struct {
	end     time.Duration // since the step began
	latency time.Duration
	err     error
}

// stepAcc gathers a client count's figures over its passes.
type stepAcc struct {
	st  Step // the sums, maxima and seconds; latency comes from:
	lat *latency.Histogram
}

func (a *stepAcc) add(p Step, lat *latency.Histogram) {
	s := &a.st
	s.Requests += p.Requests
	s.Errors += p.Errors
	s.OtherErrors += p.OtherErrors
	if s.FirstError == "" {
		s.FirstError = p.FirstError
	}
	s.Rejected += p.Rejected
	s.Terminated += p.Terminated
	s.MaxWaiting = max(s.MaxWaiting, p.MaxWaiting)
	s.MaxRSSBytes = max(s.MaxRSSBytes, p.MaxRSSBytes)
	s.MaxAnonBytes = max(s.MaxAnonBytes, p.MaxAnonBytes)
	s.MaxReservedBytes = max(s.MaxReservedBytes, p.MaxReservedBytes)
	s.Gets += p.Gets
	s.GetFailures += p.GetFailures
	s.MaxGetMs = max(s.MaxGetMs, p.MaxGetMs)
	if p.Failure != "" {
		s.Failure = p.Failure
	}
	s.Load1 = p.Load1
	s.cpu = s.cpu.Add(p.cpu)
	s.memberCPU += p.memberCPU
	s.clientCPU += p.clientCPU
	s.PassMedians = append(s.PassMedians, p.MedianThroughput)
	s.PerSecond = append(s.PerSecond, p.PerSecond...)
	a.lat.Merge(lat)
}

// finish returns the client count's figures over all its passes.
func (a *stepAcc) finish() Step {
	st := a.st
	st.setRates(st.PerSecond)
	st.setLatency(a.lat)
	st.StealPercent = st.cpu.StealPercent()
	st.setCPUPerQuery()
	return st
}

// finishSteps sets the steps of the client counts that ran, in their
// order, and the first at which the breaker acted.
func (res *Result) finishSteps(accs []*stepAcc) {
	res.Steps = res.Steps[:0]
	for _, a := range accs {
		if a == nil || len(a.st.PassMedians) == 0 {
			continue
		}
		st := a.finish()
		res.Steps = append(res.Steps, st)
		if res.FirstTrip == 0 && st.Tripped() {
			res.FirstTrip = st.Clients
		}
	}
}

// setCPUPerQuery sets the CPU figures per answered query.
func (st *Step) setCPUPerQuery() {
	if answered := st.Requests - st.Errors; answered > 0 {
		st.MemberCPUMsPerQuery = ms(st.memberCPU) / float64(answered)
		st.ClientCPUMsPerQuery = ms(st.clientCPU) / float64(answered)
	}
}

// setRates sets the error rate and the per-second throughput figures.
func (st *Step) setRates(perSecond []float64) {
	st.PerSecond = perSecond
	if st.Requests > 0 {
		st.ErrorRate = 100 * float64(st.Errors) / float64(st.Requests)
	}
	s := slices.Clone(perSecond)
	slices.Sort(s)
	st.MinThroughput, st.MaxThroughput = s[0], s[len(s)-1]
	st.MedianThroughput = report.Median(s)
}

func (st *Step) setLatency(lat *latency.Histogram) {
	st.P50Ms, st.P90Ms, st.P100Ms = ms(lat.Percentile(50)), ms(lat.Percentile(90)), ms(lat.Max())
}

// runStep runs one pass of n clients, adds its figures to acc and returns
// the pass's own.
func runStep(ctx context.Context, c *client.Client, w *watch, n int, cfg Config, acc *stepAcc) (Step, error) {
	st := Step{Clients: n}
	base, clientCPU := w.snapshot(), harness.ProcessCPU()
	memberCPU, cpuErr := membersCPU(ctx, w.members, w.cfg.StallAfter)
	w.resetPeaks()
	// At the step's end the clients start no new query, and those under
	// way (retries included) run to their end: the latencies include
	// the slowest. Only a member that failed, or a query still going
	// after the drain bound, cuts them short.
	stepCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopping := make(chan struct{})
	cpu := harness.ReadCPUTimes()
	start := time.Now()
	var mu sync.Mutex
	var done []completion
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stopping:
					return
				default:
				}
				t := time.Now()
				_, err := count(stepCtx, c)
				if stepCtx.Err() != nil {
					return // cut short: not an outcome
				}
				mu.Lock()
				done = append(done, completion{end: time.Since(start), latency: time.Since(t), err: err})
				mu.Unlock()
			}
		}()
	}
	select {
	case <-time.After(cfg.Step):
	case <-w.failed:
	case <-ctx.Done():
	}
	st.cpu = harness.ReadCPUTimes().Sub(cpu)
	st.StealPercent = st.cpu.StealPercent()
	close(stopping)
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-w.failed:
	case <-ctx.Done():
	case <-time.After(cfg.RetryBudget + time.Minute):
	}
	cancel()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return st, err
	}
	end := w.snapshot()
	st.clientCPU = harness.ProcessCPU() - clientCPU
	if used, err := membersCPU(ctx, w.members, w.cfg.StallAfter); err == nil && cpuErr == nil {
		st.memberCPU = used - memberCPU
	}
	st.Failure = w.failure()
	st.Load1 = harness.LoadAverage()
	seconds := int(cfg.Step / time.Second)
	perSecond := make([]float64, seconds)
	lat := latency.New()
	for _, d := range done {
		st.Requests++
		if d.err != nil {
			st.Errors++
			if !errors.Is(d.err, client.ErrMemoryLimit) {
				st.OtherErrors++
			}
			if st.FirstError == "" {
				st.FirstError = d.err.Error()
			}
		} else if i := int(d.end / time.Second); i < seconds {
			perSecond[i]++
		}
		lat.Record(d.latency)
	}
	if st.Failure != "" {
		// The step ended early: only the seconds that passed count.
		perSecond = perSecond[:min(seconds, max(1, int(time.Since(start)/time.Second)))]
	}
	st.setRates(perSecond)
	st.setLatency(lat)
	st.setCPUPerQuery()
	for i := range end.members {
		st.Rejected += end.members[i].rejected - base.members[i].rejected
		st.Terminated += end.members[i].terminated - base.members[i].terminated
		st.MaxRSSBytes = max(st.MaxRSSBytes, end.members[i].peakRSS)
		st.MaxAnonBytes = max(st.MaxAnonBytes, end.members[i].peakAnon)
		st.MaxReservedBytes = max(st.MaxReservedBytes, end.members[i].peakReserved)
		st.MaxWaiting = max(st.MaxWaiting, end.members[i].peakWaiting)
	}
	st.Gets, st.GetFailures = end.gets-base.gets, end.getFailures-base.getFailures
	st.MaxGetMs = ms(end.peakGet)
	acc.add(st, lat)
	return st, nil
}

// membersCPU is the CPU the members have used (the sum of their
// process_cpu_seconds_total); a member that does not answer within wait
// fails it.
func membersCPU(ctx context.Context, members []*Member, wait time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var sum float64
	for _, m := range members {
		mf, err := scrape(ctx, m.Admin)
		if err != nil {
			return 0, err
		}
		v, ok := gauge(mf, "process_cpu_seconds_total", "")
		if !ok {
			return 0, fmt.Errorf("%s exports no process_cpu_seconds_total", m.Name)
		}
		sum += v
	}
	return time.Duration(sum * float64(time.Second)), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// memberState is what the watch knows of a member.
type memberState struct {
	rss, peakRSS           int64
	anon, peakAnon         int64
	reserved, peakReserved int64
	waiting, peakWaiting   int64
	rejected, terminated   int64
	goroutines             int64
	answered               time.Time // its metrics last answered
}

// watchState is a copy of the watch's figures.
type watchState struct {
	members           []memberState
	gets, getFailures int64
	peakGet           time.Duration
}

// watch follows the members while the workload runs: their resident
// sets (from /proc for the processes this one started, else their
// metrics), query memory and breaker counters (their metrics), whether
// they live and answer, and gets on the side.
type watch struct {
	members []*Member
	cfg     Config
	failed  chan struct{} // closed at the first member that dies or stalls

	mu    sync.Mutex
	state watchState
	why   string
}

func newWatch(members []*Member, cfg Config) *watch {
	w := &watch{members: members, cfg: cfg, failed: make(chan struct{})}
	w.state.members = make([]memberState, len(members))
	now := time.Now()
	for i := range w.state.members {
		w.state.members[i].answered = now
	}
	return w
}

func (w *watch) snapshot() watchState {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.state
	s.members = slices.Clone(w.state.members)
	return s
}

func (w *watch) resetPeaks() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.state.members {
		m := &w.state.members[i]
		m.peakRSS, m.peakAnon, m.peakReserved = m.rss, m.anon, m.reserved
		// The last step's queries have all ended: what the metrics
		// read last may be from its drain.
		m.peakWaiting = 0
	}
	w.state.peakGet = 0
}

func (w *watch) failure() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.why
}

// fail records the first member failure.
func (w *watch) fail(why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.why == "" {
		w.why = why
		close(w.failed)
	}
}

// run polls resident sets every 20ms and metrics every 250ms.
func (w *watch) run(ctx context.Context) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var scrapes sync.WaitGroup
	defer scrapes.Wait()
	scraping := make([]bool, len(w.members))
	var scrapeMu sync.Mutex
	lastScrape := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for i, m := range w.members {
			if dead, how := m.Exited(); dead {
				w.fail(fmt.Sprintf("%s died (%s)", m.Name, how))
				continue
			}
			if pid := m.PID(); pid > 0 {
				if rss, anon, err := processRSS(pid); err == nil {
					w.recordRSS(i, rss, anon)
				}
			}
			w.mu.Lock()
			silent := time.Since(w.state.members[i].answered)
			w.mu.Unlock()
			if silent > w.cfg.StallAfter {
				w.fail(fmt.Sprintf("%s stalled (no answer for %v)", m.Name, silent.Round(time.Second)))
			}
		}
		if time.Since(lastScrape) < 250*time.Millisecond {
			continue
		}
		lastScrape = time.Now()
		for i, m := range w.members {
			scrapeMu.Lock()
			busy := scraping[i]
			scraping[i] = true
			scrapeMu.Unlock()
			if busy {
				continue // the last scrape has not answered yet
			}
			scrapes.Add(1)
			go func() {
				defer scrapes.Done()
				defer func() { scrapeMu.Lock(); scraping[i] = false; scrapeMu.Unlock() }()
				sctx, cancel := context.WithTimeout(ctx, w.cfg.StallAfter)
				defer cancel()
				mf, err := scrape(sctx, m.Admin)
				if err != nil {
					return
				}
				w.recordMetrics(i, m, mf)
			}()
		}
	}
}

func (w *watch) recordRSS(i int, rss, anon int64) {
	w.mu.Lock()
	m := &w.state.members[i]
	m.rss, m.peakRSS = rss, max(m.peakRSS, rss)
	m.anon, m.peakAnon = anon, max(m.peakAnon, anon)
	w.mu.Unlock()
	if w.cfg.KillAbove > 0 && anon > w.cfg.KillAbove {
		mem := w.members[i]
		if mem.PID() > 0 {
			mem.kill(fmt.Sprintf("killed at an anonymous resident set of %s, past the %s a container would allow", mib(anon), mib(w.cfg.KillAbove)))
		}
	}
}

func (w *watch) recordMetrics(i int, mem *Member, mf map[string]*dto.MetricFamily) {
	if mem.PID() == 0 {
		// Only the whole resident set is exported: it stands for both.
		if v, ok := gauge(mf, "process_resident_memory_bytes", ""); ok {
			w.recordRSS(i, int64(v), int64(v))
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	m := &w.state.members[i]
	m.answered = time.Now()
	if v, ok := gauge(mf, "atoll_query_memory_reserved_bytes", ""); ok {
		m.reserved, m.peakReserved = int64(v), max(m.peakReserved, int64(v))
	}
	if v, ok := gauge(mf, "atoll_query_admission_waiting", ""); ok {
		m.waiting, m.peakWaiting = int64(v), max(m.peakWaiting, int64(v))
	}
	if v, ok := gauge(mf, "atoll_query_breaker_total", "reject"); ok {
		m.rejected = int64(v)
	}
	if v, ok := gauge(mf, "atoll_query_breaker_total", "terminate"); ok {
		m.terminated = int64(v)
	}
	if v, ok := gauge(mf, "go_goroutines", ""); ok {
		m.goroutines = int64(v)
	}
}

// probeGets gets a random key of the probe map every 50ms: map
// operations must go on while queries are refused.
func (w *watch) probeGets(ctx context.Context, c *client.Client, s Size) {
	probe := client.GetMap[int32, *ProbeRow](c, "overload_probe")
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		gctx, cancel := context.WithTimeout(ctx, w.cfg.StallAfter)
		t := time.Now()
		_, found, err := probe.Get(gctx, int32(rand.IntN(max(s.ProbeRows, 1))))
		took := time.Since(t)
		cancel()
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		w.state.gets++
		if err != nil || !found {
			w.state.getFailures++
		}
		w.state.peakGet = max(w.state.peakGet, took)
		w.mu.Unlock()
	}
}

// scrapeClient keeps no connection open between scrapes: an idle
// connection holds a goroutine on the member, which would blur the count
// of its goroutines before and after the workload.
var scrapeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// scrape reads a member's metrics.
func scrape(ctx context.Context, admin string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s/metrics: %s", admin, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// gauge returns a gauge's or counter's value; action, when set, picks the
// series with that action label.
func gauge(mf map[string]*dto.MetricFamily, name, action string) (float64, bool) {
	f := mf[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if action != "" {
			match := false
			for _, l := range m.GetLabel() {
				match = match || (l.GetName() == "action" && l.GetValue() == action)
			}
			if !match {
				continue
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// Figures are a member's query memory, its goroutines, and those of them
// in the query engine (a frame of internal/exec on their stack: its own
// few background loops, and every goroutine a query runs; not the reader
// of a fragments connection to another member, which the first query
// that needs it opens and which lives as long as that member).
type Figures struct{ Reserved, Goroutines, EngineGoroutines int64 }

// ErrNotSettled is wrapped when members keep query memory or engine
// goroutines after the workload.
var ErrNotSettled = errors.New("members did not settle")

// Settle waits until no member holds query memory and, with baseline, no
// member runs more engine goroutines than baseline's count; it returns the
// last figures. Its requests keep no connection open.
func Settle(ctx context.Context, members []*Member, baseline []Figures, timeout time.Duration) ([]Figures, error) {
	deadline := time.Now().Add(timeout)
	for {
		figs, why := make([]Figures, len(members)), ""
		for i, m := range members {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			mf, err := scrape(sctx, m.Admin)
			var eg int64
			if err == nil {
				eg, err = engineGoroutines(sctx, m.Admin)
			}
			cancel()
			if err != nil {
				why = fmt.Sprintf("%s: %v", m.Name, err)
				continue
			}
			r, _ := gauge(mf, "atoll_query_memory_reserved_bytes", "")
			g, _ := gauge(mf, "go_goroutines", "")
			figs[i] = Figures{Reserved: int64(r), Goroutines: int64(g), EngineGoroutines: eg}
			switch {
			case r != 0:
				why = fmt.Sprintf("%s holds %d bytes of query memory", m.Name, int64(r))
			case baseline != nil && eg > baseline[i].EngineGoroutines:
				why = fmt.Sprintf("%s runs %d query engine goroutines, %d before the workload", m.Name, eg, baseline[i].EngineGoroutines)
			}
		}
		if why == "" {
			return figs, nil
		}
		if time.Now().After(deadline) {
			return figs, fmt.Errorf("%w after %v: %s", ErrNotSettled, timeout, why)
		}
		select {
		case <-ctx.Done():
			return figs, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var goroutineGroup = regexp.MustCompile(`^(\d+) @ `)

// connectionReader is the frame of a fragments connection's reader
// (Figures).
const connectionReader = "/internal/exec.(*fragmentConn).read"

// engineGoroutines counts a member's goroutines with a frame of the query
// engine (internal/exec) on their stack, from its goroutine profile, but
// for the readers of its fragments connections.
func engineGoroutines(ctx context.Context, admin string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		return 0, err
	}
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s goroutine profile: %s", admin, resp.Status)
	}
	var n, group int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := goroutineGroup.FindStringSubmatch(line); m != nil {
			group, _ = strconv.ParseInt(m[1], 10, 64)
		} else if strings.HasPrefix(line, "#\t") && strings.Contains(line, "/internal/exec.") {
			if !strings.Contains(line, connectionReader) {
				n += group
			}
			group = 0 // once per group
		}
	}
	return n, sc.Err()
}

// recordSettled records each member's goroutines before the workload and
// after it (all of them, and the engine's), and its query memory after.
func (res *Result) recordSettled(before, after []Figures) {
	for _, f := range before {
		res.GoroutinesBefore = append(res.GoroutinesBefore, f.Goroutines)
		res.EngineGoroutinesBefore = append(res.EngineGoroutinesBefore, f.EngineGoroutines)
	}
	for _, f := range after {
		res.ReservedAfter = append(res.ReservedAfter, f.Reserved)
		res.GoroutinesAfter = append(res.GoroutinesAfter, f.Goroutines)
		res.EngineGoroutinesAfter = append(res.EngineGoroutinesAfter, f.EngineGoroutines)
	}
}
