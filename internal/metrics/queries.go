package metrics

import (
	"fmt"
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
	}
}

// QueryRun is one query execution in progress.
type QueryRun struct {
	q     *Queries
	kind  string
	start time.Time
}

// Start counts a query of kind as running and returns it; End must be
// called once when it finishes. Kinds other than QuerySQL and
// QueryPredicate are refused, so that no caller can grow the label set.
func (q *Queries) Start(kind string) (*QueryRun, error) {
	if !knownKind(kind) {
		return nil, fmt.Errorf("metrics: query kind %q: want %q or %q", kind, QuerySQL, QueryPredicate)
	}
	q.active.WithLabelValues(kind).Inc()
	// These series exist from the first query on, so that rates of them
	// read 0 rather than nothing.
	q.errors.WithLabelValues(kind)
	q.scanned.WithLabelValues(kind)
	q.returned.WithLabelValues(kind)
	return &QueryRun{q: q, kind: kind, start: time.Now()}, nil
}

// End records the query's duration (to its first page of rows, which
// for most queries is all of them) and whether it failed.
func (r *QueryRun) End(err error) {
	q := r.q
	q.active.WithLabelValues(r.kind).Dec()
	q.count.WithLabelValues(r.kind).Inc()
	q.latency.WithLabelValues(r.kind).Observe(time.Since(r.start).Seconds())
	if err != nil {
		q.errors.WithLabelValues(r.kind).Inc()
	}
}

// Scanned adds entries that queries of kind read on this member (their
// fragments, whichever member coordinated them). Unknown kinds are
// dropped.
func (q *Queries) Scanned(kind string, n int64) {
	if knownKind(kind) && n > 0 {
		q.scanned.WithLabelValues(kind).Add(float64(n))
	}
}

// Returned adds rows that queries of kind this member coordinated sent
// to their clients. Unknown kinds are dropped.
func (q *Queries) Returned(kind string, n int64) {
	if knownKind(kind) && n > 0 {
		q.returned.WithLabelValues(kind).Add(float64(n))
	}
}

func knownKind(kind string) bool { return kind == QuerySQL || kind == QueryPredicate }

func (q *Queries) collectors() []prometheus.Collector {
	return []prometheus.Collector{q.count, q.errors, q.latency, q.scanned, q.returned, q.active}
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
