package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ClientReport is one statistics report a client pushed. Counters are
// increments since the client's previous successful report, so that the
// member adds them up whichever member received the earlier ones;
// Connections and near-cache Entries are current values.
type ClientReport struct {
	// ID identifies the client (it keys the current values; it is never a
	// label).
	ID string
	// Type is the SDK language, "go" or "java"; anything else is counted
	// as "other".
	Type string
	// Interval is how often the client reports; it is forgotten after
	// three intervals (at least maxSilence) without a report.
	Interval                 time.Duration
	Calls, Retries, Failures int64
	// Transactions committed, run again after a conflict, and failed with
	// a conflict once their attempts were spent.
	TxCommits, TxRetries, TxConflicts int64
	Connections                       int64
	NearCaches                        []NearCacheReport
}

// NearCacheReport is one near cache in a ClientReport. The member passes
// on only near caches of maps it has, so that clients cannot grow the map
// label set.
type NearCacheReport struct {
	Map                         string
	Hits, Misses, Invalidations int64
	Entries                     int64
}

// minSilence is the least time a client is remembered without a report.
const minSilence = 10 * time.Second

// maxClients bounds the clients whose current values are kept.
const maxClients = 10000

// Clients aggregates the reports of the clients connected to this member
// by SDK type, and their near caches by map.
type Clients struct {
	calls, retries, failures          *prometheus.CounterVec
	txCommits, txRetries, txConflicts *prometheus.CounterVec
	ncHits, ncMisses, ncInvalidations *prometheus.CounterVec
	clientsDesc, connsDesc, ncEntries *prometheus.Desc

	now func() time.Time

	mu   sync.Mutex
	live map[string]clientState
}

type clientState struct {
	typ         string
	until       time.Time
	connections int64
	entries     map[string]int64 // by map
}

func newClients() *Clients {
	typ, m := []string{"client_type"}, []string{"map"}
	counter := func(name, help string, labels []string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	return &Clients{
		calls:           counter("client_calls_total", "Calls clients made, as they report them, by SDK type.", typ),
		retries:         counter("client_call_retries_total", "Extra attempts clients made for calls that failed with a retryable error, by SDK type.", typ),
		failures:        counter("client_call_failures_total", "Calls that failed at the client after retries, by SDK type.", typ),
		txCommits:       counter("client_transaction_commits_total", "Transactions clients committed, as they report them, by SDK type.", typ),
		txRetries:       counter("client_transaction_retries_total", "Transactions clients ran again after a conflict, by SDK type.", typ),
		txConflicts:     counter("client_transaction_conflicts_total", "Transactions that failed with a conflict once their attempts were spent, by SDK type.", typ),
		ncHits:          counter("near_cache_hits_total", "Reads clients answered from their near cache, by map.", m),
		ncMisses:        counter("near_cache_misses_total", "Reads that missed clients' near caches, by map.", m),
		ncInvalidations: counter("near_cache_invalidations_total", "Near cache entries invalidated by changes on the members, by map.", m),
		clientsDesc:     prometheus.NewDesc("atoll_clients", "Clients that report their statistics to this member, by SDK type.", typ, nil),
		connsDesc:       prometheus.NewDesc("atoll_client_connections", "Member connections those clients hold, by SDK type.", typ, nil),
		ncEntries:       prometheus.NewDesc("atoll_near_cache_entries", "Entries in the near caches of those clients, by map.", m, nil),
		now:             time.Now,
		live:            map[string]clientState{},
	}
}

// Record adds a client's report.
func (c *Clients) Record(r ClientReport) {
	typ := r.Type
	if typ != "go" && typ != "java" {
		typ = "other"
	}
	c.calls.WithLabelValues(typ).Add(float64(max(r.Calls, 0)))
	c.retries.WithLabelValues(typ).Add(float64(max(r.Retries, 0)))
	c.failures.WithLabelValues(typ).Add(float64(max(r.Failures, 0)))
	c.txCommits.WithLabelValues(typ).Add(float64(max(r.TxCommits, 0)))
	c.txRetries.WithLabelValues(typ).Add(float64(max(r.TxRetries, 0)))
	c.txConflicts.WithLabelValues(typ).Add(float64(max(r.TxConflicts, 0)))
	st := clientState{typ: typ, until: c.now().Add(max(3*r.Interval, minSilence)), connections: r.Connections, entries: map[string]int64{}}
	for _, nc := range r.NearCaches {
		c.ncHits.WithLabelValues(nc.Map).Add(float64(max(nc.Hits, 0)))
		c.ncMisses.WithLabelValues(nc.Map).Add(float64(max(nc.Misses, 0)))
		c.ncInvalidations.WithLabelValues(nc.Map).Add(float64(max(nc.Invalidations, 0)))
		st.entries[nc.Map] += nc.Entries
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, known := c.live[r.ID]; known || len(c.live) < maxClients {
		c.live[r.ID] = st
	}
}

// ForgetMap drops the near-cache series of a destroyed map.
func (c *Clients) ForgetMap(name string) {
	for _, v := range []*prometheus.CounterVec{c.ncHits, c.ncMisses, c.ncInvalidations} {
		v.DeleteLabelValues(name)
	}
}

func (c *Clients) vecs() []*prometheus.CounterVec {
	return []*prometheus.CounterVec{c.calls, c.retries, c.failures, c.txCommits, c.txRetries, c.txConflicts, c.ncHits, c.ncMisses, c.ncInvalidations}
}

// Describe implements prometheus.Collector.
func (c *Clients) Describe(ch chan<- *prometheus.Desc) {
	for _, v := range c.vecs() {
		v.Describe(ch)
	}
	ch <- c.clientsDesc
	ch <- c.connsDesc
	ch <- c.ncEntries
}

// Collect implements prometheus.Collector.
func (c *Clients) Collect(ch chan<- prometheus.Metric) {
	for _, v := range c.vecs() {
		v.Collect(ch)
	}
	clients, conns, entries := map[string]int{}, map[string]int64{}, map[string]int64{}
	now := c.now()
	c.mu.Lock()
	for id, st := range c.live {
		if now.After(st.until) {
			delete(c.live, id)
			continue
		}
		clients[st.typ]++
		conns[st.typ] += st.connections
		for m, n := range st.entries {
			entries[m] += n
		}
	}
	c.mu.Unlock()
	for typ, n := range clients {
		ch <- prometheus.MustNewConstMetric(c.clientsDesc, prometheus.GaugeValue, float64(n), typ)
		ch <- prometheus.MustNewConstMetric(c.connsDesc, prometheus.GaugeValue, float64(conns[typ]), typ)
	}
	for m, n := range entries {
		ch <- prometheus.MustNewConstMetric(c.ncEntries, prometheus.GaugeValue, float64(n), m)
	}
}
