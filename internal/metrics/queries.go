package metrics

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Query kinds, the values of the kind label: both front ends share one
// engine, and the dashboards put them side by side.
const (
	QuerySQL       = "sql"
	QueryPredicate = "predicate"
)

// Queries records query executions by kind (QuerySQL or QueryPredicate).
type Queries struct {
	count    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	scanned  *prometheus.CounterVec
	returned *prometheus.CounterVec
	active   *prometheus.GaugeVec
	// Scans' partition reads and the partitions they served (shared
	// scans: one read serves every scan that rides along).
	scanReads, scanParts prometheus.Counter

	// The series of each kind, looked up in the vectors once, at the
	// kind's first use: every query records in several of them.
	sql, predicate atomic.Pointer[kindSeries]
}

// kindSeries are the series of one query kind.
type kindSeries struct {
	count, errors, scanned, returned prometheus.Counter
	latency                          prometheus.Observer
	active                           prometheus.Gauge
}

func newQueries() *Queries {
	kind := []string{"kind"}
	return &Queries{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "queries_total",
			Help: "Queries run, by kind (sql or predicate); a query a client runs by partitions counts once on each owner."}, kind),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "query_errors_total",
			Help: "Queries that failed, by kind."}, kind),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "query_duration_seconds",
			Help: "Time queries took, by kind.", Buckets: prometheus.ExponentialBuckets(100e-6, 3, 12)}, kind),
		scanned: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "query_rows_scanned_total",
			Help: "Entries queries read, by kind."}, kind),
		returned: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "query_rows_returned_total",
			Help: "Rows queries returned, by kind."}, kind),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "queries_active",
			Help: "Queries running now, by kind."}, kind),
		scanReads: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "query_scan_reads_total",
			Help: "Partition reads of queries' scans (index lookups and counts apart); one read serves every scan of the map that shares it."}),
		scanParts: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "query_scan_partitions_total",
			Help: "Partitions queries' scans were given, each by a read of its own or one it shared; divided by atoll_query_scan_reads_total, the scans a read served."}),
	}
}

// QueryRun is one query execution in progress.
type QueryRun struct {
	s     *kindSeries
	start time.Time
}

// series returns the series of kind, nil for a kind other than QuerySQL
// and QueryPredicate. They exist from the kind's first use on, so that
// rates of them read 0 rather than nothing.
func (q *Queries) series(kind string) *kindSeries {
	var p *atomic.Pointer[kindSeries]
	switch kind {
	case QuerySQL:
		p = &q.sql
	case QueryPredicate:
		p = &q.predicate
	default:
		return nil
	}
	if s := p.Load(); s != nil {
		return s
	}
	// Racing first uses find the same series in the vectors.
	p.Store(&kindSeries{count: q.count.WithLabelValues(kind), errors: q.errors.WithLabelValues(kind),
		scanned: q.scanned.WithLabelValues(kind), returned: q.returned.WithLabelValues(kind),
		latency: q.latency.WithLabelValues(kind), active: q.active.WithLabelValues(kind)})
	return p.Load()
}

// Start counts a query of kind as running and returns it; End must be
// called once when it finishes. Kinds other than QuerySQL and
// QueryPredicate are refused, so that no caller can grow the label set.
func (q *Queries) Start(kind string) (QueryRun, error) {
	s := q.series(kind)
	if s == nil {
		return QueryRun{}, fmt.Errorf("metrics: query kind %q: want %q or %q", kind, QuerySQL, QueryPredicate)
	}
	s.active.Inc()
	return QueryRun{s: s, start: time.Now()}, nil
}

// End records the query's duration (to its first page of rows, which
// for most queries is all of them) and whether it failed. The run of a
// refused Start records nothing.
func (r QueryRun) End(err error) {
	if r.s == nil {
		return
	}
	r.s.active.Dec()
	r.s.count.Inc()
	r.s.latency.Observe(time.Since(r.start).Seconds())
	if err != nil {
		r.s.errors.Inc()
	}
}

// Scanned adds entries that queries of kind read on this member (their
// fragments, whichever member coordinated them). Unknown kinds are
// dropped.
func (q *Queries) Scanned(kind string, n int64) {
	if n <= 0 {
		return
	}
	if s := q.series(kind); s != nil {
		s.scanned.Add(float64(n))
	}
}

// Returned adds rows that queries of kind this member coordinated sent
// to their clients. Unknown kinds are dropped.
func (q *Queries) Returned(kind string, n int64) {
	if n <= 0 {
		return
	}
	if s := q.series(kind); s != nil {
		s.returned.Add(float64(n))
	}
}

// ScanRead records a partition read of queries' scans that served scans
// of them.
func (q *Queries) ScanRead(scans int) {
	q.scanReads.Inc()
	q.scanParts.Add(float64(scans))
}

func (q *Queries) collectors() []prometheus.Collector {
	return []prometheus.Collector{q.count, q.errors, q.latency, q.scanned, q.returned, q.active, q.scanReads, q.scanParts}
}

// Describe implements prometheus.Collector.
func (q *Queries) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range q.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (q *Queries) Collect(ch chan<- prometheus.Metric) {
	for _, c := range q.collectors() {
		c.Collect(ch)
	}
}
