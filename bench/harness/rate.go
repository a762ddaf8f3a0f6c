package harness

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atolldb/atoll/bench/latency"
)

// RateProtocol is the latency mode of a case (open loop, as wrk2 runs
// it): requests are scheduled at a fixed rate, request i at start +
// i/Rate, and each is timed from that intended time to its completion,
// so that a request held back because the ones before it were slow
// counts the wait (coordinated omission is accounted for). Threads
// workers send them: a free worker takes the next request, waits for its
// time if it is early and sends it at once if it is late.
type RateProtocol struct {
	Rate     float64 // requests per second
	Threads  int     // requests in flight at most
	Warmup   time.Duration
	Duration time.Duration // the schedule's length
}

// Validate checks the protocol's figures.
func (p RateProtocol) Validate() error {
	switch {
	case !(p.Rate > 0) || math.IsInf(p.Rate, 0):
		return &ConfigError{Flag: "rate", Value: fmt.Sprint(p.Rate), Why: "want a positive number of requests per second"}
	case p.Threads < 1:
		return &ConfigError{Flag: "threads", Value: fmt.Sprint(p.Threads), Why: "want at least 1"}
	case p.Duration <= 0:
		return &ConfigError{Flag: "duration", Value: p.Duration.String(), Why: "want a positive duration"}
	case p.Warmup < 0:
		return &ConfigError{Flag: "warmup", Value: p.Warmup.String(), Why: "want zero or more"}
	case p.scheduled(p.Duration) > maxScheduled:
		return &ConfigError{Flag: "rate", Value: fmt.Sprint(p.Rate),
			Why: fmt.Sprintf("%d requests in %v: at most %d per run", p.scheduled(p.Duration), p.Duration, maxScheduled)}
	}
	return nil
}

// maxScheduled bounds the requests of one schedule (a day at 10 000/s).
const maxScheduled = 864_000_000

// scheduled is the number of requests a schedule of length d holds: those
// whose time falls within it (at least one).
func (p RateProtocol) scheduled(d time.Duration) int64 {
	return max(1, int64(math.Ceil(d.Seconds()*p.Rate)))
}

// Expected is how long the case's warm-up and schedule take when the
// system keeps up.
func (p RateProtocol) Expected() time.Duration { return p.Warmup + p.Duration }

// Drain is how long after the end of its schedule a run still sends the
// requests that are behind: half the schedule's length. Requests not sent
// by then are counted as unsent and recorded with the time they had
// waited (a lower bound of their latency).
func (p RateProtocol) Drain() time.Duration { return p.Duration / 2 }

// KeptUpSlack is how far behind its time the last request of a schedule
// may be sent for the run to count as having kept up: a hundredth of the
// schedule, at least 100 ms (timer and scheduling noise).
func (p RateProtocol) KeptUpSlack() time.Duration { return max(p.Duration/100, 100*time.Millisecond) }

// RateMeasurement is what the latency mode measured of one case.
type RateMeasurement struct {
	Check   int64
	Checked bool
	// Scheduled requests, those sent and completed, and those never sent.
	Scheduled, Completed, Unsent int64
	// AchievedRate is the rate at which requests were sent: the requests
	// sent over the time from the schedule's start to the last send (plus
	// one interval, so that a schedule kept exactly gives Rate).
	AchievedRate float64
	// EndLag is how long after its time the last request was sent.
	EndLag time.Duration
	// KeptUp says every request was sent, the last at most KeptUpSlack
	// after its time.
	KeptUp bool
	// Latency holds, per request, the time from its intended send time to
	// its completion.
	Latency *latency.Histogram
}

// MeasureRate runs one case in latency mode: the validation run (newOp
// of thread Threads+1000, whose check must be want), a warm-up on the
// schedule for p.Warmup (not recorded), then the measured schedule. Each
// worker t has its own operation newOp(t). done, when not nil, counts
// completed requests (progress). The first error of any request ends the case.
func MeasureRate(ctx context.Context, p RateProtocol, name string, want int64, newOp func(thread int) Op, done *atomic.Int64, h Hooks) (RateMeasurement, error) {
	var m RateMeasurement
	ops, err := prepare(ctx, p.Validate(), p.Threads, name, want, newOp, h, &m.Check, &m.Checked)
	if err != nil {
		return m, err
	}
	if p.Warmup > 0 {
		h.phase(PhaseWarmup)
		if _, err := runSchedule(ctx, ops, p.Rate, p.scheduled(p.Warmup), 0, false, done); err != nil {
			return m, fmt.Errorf("%s: warm-up: %w", name, err)
		}
	}
	h.phase(Phase(fmt.Sprintf("%g/s for %v", p.Rate, p.Duration)))
	var end func()
	if h.Rounds != nil {
		end = h.Rounds()
	}
	s, err := runSchedule(ctx, ops, p.Rate, p.scheduled(p.Duration), p.Duration+p.Drain(), true, done)
	if end != nil {
		end()
	}
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	m.Scheduled, m.Completed, m.Unsent, m.Latency = s.scheduled, s.completed, s.unsent, s.latency
	interval := time.Duration(float64(time.Second) / p.Rate)
	lastDue := time.Duration(float64(s.scheduled-1) * float64(time.Second) / p.Rate)
	m.EndLag = max(0, s.lastSend-lastDue)
	if sent := s.scheduled - s.unsent; sent > 0 {
		m.AchievedRate = float64(sent) / (s.lastSend + interval).Seconds()
	}
	m.KeptUp = s.unsent == 0 && m.EndLag <= p.KeptUpSlack()
	return m, nil
}

// schedule is what one run of a schedule did.
type schedule struct {
	scheduled, completed, unsent int64
	lastSend                     time.Duration // after the start
	latency                      *latency.Histogram
}

// runSchedule sends n requests at rate per second from now over the
// workers ops. With record set, each completed request's latency from
// its intended time goes into the result's histogram; requests whose
// time came but that are not sent by giveUp after the start are not sent
// and, with record, recorded with the time they had waited (giveUp 0:
// wait for every request). Without record (the warm-up), requests not
// sent by the end of the schedule are dropped: the measured schedule
// starts once the requests in flight complete.
func runSchedule(ctx context.Context, ops []Op, rate float64, n int64, giveUp time.Duration, record bool, done *atomic.Int64) (schedule, error) {
	var (
		wg       sync.WaitGroup
		next     atomic.Int64
		failure  firstError
		hists    = make([]*latency.Histogram, len(ops))
		unsent   = make([]int64, len(ops))
		count    = make([]int64, len(ops))
		lastSend = make([]time.Duration, len(ops))
	)
	perRequest := float64(time.Second) / rate
	due := func(i int64) time.Duration { return time.Duration(float64(i) * perRequest) }
	end := due(n)
	start := time.Now()
	for t, op := range ops {
		hists[t] = latency.New()
		wg.Add(1)
		go func() {
			defer wg.Done()
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			for !failure.failed.Load() {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				at := due(i)
				if wait := at - time.Since(start); wait > 0 {
					timer.Reset(wait)
					select {
					case <-ctx.Done():
						timer.Stop()
						return
					case <-timer.C:
					}
				}
				sent := time.Since(start)
				if (record && giveUp > 0 && sent > giveUp) || (!record && sent > end) {
					if record {
						hists[t].Record(sent - at)
						unsent[t]++
					}
					continue
				}
				if _, err := op(ctx); err != nil {
					failure.set(err)
					return
				}
				if record {
					hists[t].Record(time.Since(start) - at)
				}
				lastSend[t] = max(lastSend[t], sent)
				count[t]++
				if done != nil {
					done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := failure.get(ctx); err != nil {
		return schedule{}, err
	}
	s := schedule{scheduled: n, latency: latency.New()}
	for t := range ops {
		s.latency.Merge(hists[t])
		s.completed += count[t]
		s.unsent += unsent[t]
		s.lastSend = max(s.lastSend, lastSend[t])
	}
	return s, nil
}
