// Package metrics defines the Prometheus metrics of an Atoll member. Every
// metric is registered on a registry the caller passes in, never on the
// global default one, so that several members share a process (tests,
// embedding) without colliding. Names start with atoll_, carry their unit
// (_seconds, _bytes) and _total on counters, and labels stay of low
// cardinality: map names, operation kinds, query kinds, peer addresses,
// never keys or query texts.
//
// The package is a leaf: it knows nothing of maps, stores or the cluster.
// State that already exists elsewhere (entry counts, memory costs, the
// partition table) is read at scrape time through the Sources functions
// the member supplies, so that the hot paths carry no extra counters;
// events that exist nowhere else (operation latencies, transport traffic,
// client reports, queries) have typed recorders here.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

const namespace = "atoll"

// Sources read the member's state at scrape time. Each may be nil.
type Sources struct {
	// Maps returns the statistics of every map on this member.
	Maps func() []MapStats
	// Cluster returns the member's view of the cluster.
	Cluster func() ClusterStats
	// Ready reports whether the member is ready (see the member's /readyz).
	Ready func() bool
	// Cursors returns the queries running or holding a cursor.
	Cursors func() int
	// Exchange returns the counters of the join exchange since the member
	// started.
	Exchange func() ExchangeStats
	// QueryMemory returns the state of the member's query memory pool and
	// its circuit breaker.
	QueryMemory func() QueryMemoryStats
	// Locks returns the number of keys locked in the partitions the
	// member owns.
	Locks func() int64
}

// QueryMemoryStats is a member's query memory: what queries hold, its
// limits, and the memory circuit breaker's state and actions since the
// member started.
type QueryMemoryStats struct {
	// Reserved is what queries hold now; Limit what they may hold
	// together (0: no limit); MemberLimit the member's memory limit.
	Reserved, Limit, MemberLimit int64
	// Open: the breaker refuses new queries that need memory.
	Open bool
	// Rejected and Terminated count the breaker's actions.
	Rejected, Terminated int64
	// Waiting is the number of queries waiting for room to start.
	Waiting int
}

// ExchangeStats are the counters of a member's join exchange: the rows of
// joins it sent other members and received from them.
type ExchangeStats struct {
	MessagesSent, MessagesReceived int64
	BytesSent, BytesReceived       int64
	RowsShipped                    int64
	// WriteBlockSeconds: senders waited to write to a peer (its in-flight
	// limit, or flow control); SchedulingWaitSeconds: waiting for the
	// locks and queues that hand rows to the join.
	WriteBlockSeconds, SchedulingWaitSeconds float64
}

// MapStats are one map's statistics on this member.
type MapStats struct {
	Name                            string
	OwnedEntries, OwnedEntryBytes   int64
	BackupEntries, BackupEntryBytes int64
	Hits, Evictions, Expirations    int64
}

// ClusterStats are the cluster as one member sees it.
type ClusterStats struct {
	Members                               int
	Coordinator                           bool
	TableVersion                          int64
	OwnedPartitions, BackupPartitions     int
	MigrationsInFlight                    int
	MigrationsCompleted, MigrationsFailed int64
}

// Metrics are a member's metrics, registered on one registry.
type Metrics struct {
	// MapOps records map operations (nil when operation metrics are off).
	MapOps *MapOps
	// Queries records query executions.
	Queries *Queries
	// Transport records member-to-member traffic.
	Transport *Transport
	// Clients aggregates the statistics clients push.
	Clients *Clients
	// Transactions records transactions and locks.
	Transactions *Transactions
	// RefusedCalls counts the calls the access check refused.
	RefusedCalls prometheus.Counter
	// Security counts denied calls, failed authentications and recovered
	// panics.
	Security *Security
}

// Options choose what New registers.
type Options struct {
	// Version is reported by atoll_member_info.
	Version string
	// MapOperations turns on the per-map operation latency histograms and
	// error counters (the only metrics recorded on the get/set hot path).
	MapOperations bool
}

// New registers the member's metrics, the Go runtime collector and the
// process collector on reg.
func New(reg prometheus.Registerer, src Sources, opts Options) *Metrics {
	m := &Metrics{
		Queries:      newQueries(),
		Transport:    newTransport(),
		Clients:      newClients(),
		Transactions: newTransactions(),
		Security:     newSecurity(),
		RefusedCalls: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "calls_refused_total",
			Help: "Calls the member's access check refused: member-to-member calls on connections that did not open with the member handshake.",
		}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsGC, collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Name: "member_info", Help: "Always 1; the version label names the member's version.",
			ConstLabels: prometheus.Labels{"version": opts.Version},
		}, func() float64 { return 1 }),
		&stateCollector{src: src},
		m.Queries, m.Transport, m.Clients, m.Transactions, m.RefusedCalls,
		m.Security.Denied, m.Security.AuthFailures, m.Security.Panics,
	)
	if opts.MapOperations {
		m.MapOps = newMapOps()
		reg.MustRegister(m.MapOps)
	}
	return m
}
