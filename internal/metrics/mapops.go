package metrics

import "github.com/prometheus/client_golang/prometheus"

// latencyBuckets span 50µs to about 1.2s, a factor 2.5 apart: a
// loopback get lands in the first buckets, a write waiting for a
// backup on a slow network in the middle ones.
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2.5, 12)

// MapOps records map operations by map and operation kind (get, set,
// put, remove, ...). Callers look the per-series recorders up once per
// map and operation and keep them: observing is then two atomic adds.
type MapOps struct {
	latency *prometheus.HistogramVec
	errors  *prometheus.CounterVec
}

func newMapOps() *MapOps {
	return &MapOps{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "map_operation_duration_seconds",
			Help:    "Time members took to run map operations, from the request to the answer (including waiting for synchronous backups); the _count is the number of operations.",
			Buckets: latencyBuckets,
		}, []string{"map", "op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "map_operation_errors_total",
			Help: "Map operations that failed (invalid input, wrong owner, unavailable, ...).",
		}, []string{"map", "op"}),
	}
}

// Latency returns the recorder of durations of op on the map, in seconds.
func (m *MapOps) Latency(mapName, op string) prometheus.Observer {
	return m.latency.WithLabelValues(mapName, op)
}

// Errors returns the counter of failed ops on the map.
func (m *MapOps) Errors(mapName, op string) prometheus.Counter {
	return m.errors.WithLabelValues(mapName, op)
}

// Forget drops every series of a map (a destroyed map).
func (m *MapOps) Forget(mapName string) {
	m.latency.DeletePartialMatch(prometheus.Labels{"map": mapName})
	m.errors.DeletePartialMatch(prometheus.Labels{"map": mapName})
}

// Describe implements prometheus.Collector.
func (m *MapOps) Describe(ch chan<- *prometheus.Desc) {
	m.latency.Describe(ch)
	m.errors.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *MapOps) Collect(ch chan<- prometheus.Metric) {
	m.latency.Collect(ch)
	m.errors.Collect(ch)
}
