package metrics

import "github.com/prometheus/client_golang/prometheus"

// Commit kinds of atoll_transaction_commits_total.
const (
	CommitTwoPhase = "two_phase" // a primary committed after its keys were locked
	CommitOnePhase = "one_phase" // a transaction of one key, checked and applied at once
)

// Abort causes of atoll_transaction_aborts_total, and what a member that
// resolved a lock did with it (atoll_locks_resolved_total).
const (
	AbortLocked  = "locked"  // another transaction or client held a key
	AbortChanged = "changed" // a key read changed since
	AbortAborted = "aborted" // its locks were rolled back by another after their lease

	ResolvedForward  = "rolled_forward" // a committed transaction's writes applied by another
	ResolvedBack     = "rolled_back"    // an uncommitted transaction's lock released by another
	ResolvedReleased = "released"       // a client's lock released at its lease's end or its session's
)

// Transactions records the transactions and locks a member takes part in:
// commits of the primaries it owns, conflicts it detected, waits of map
// operations for locks, and locks it resolved for others.
type Transactions struct {
	commits   *prometheus.CounterVec
	aborts    *prometheus.CounterVec
	waits     prometheus.Counter
	waitTime  prometheus.Histogram
	resolved  *prometheus.CounterVec
	commitTwo prometheus.Counter
	commitOne prometheus.Counter
}

func newTransactions() *Transactions {
	t := &Transactions{
		commits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "transaction_commits_total",
			Help: "Transactions committed on this member (counted on the owner of their primary key), by kind: two_phase (locked, then committed) or one_phase (one key, checked and applied at once).",
		}, []string{"kind"}),
		aborts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "transaction_aborts_total",
			Help: "Transaction conflicts detected on this member, by cause: locked (a key was locked by another), changed (a key read changed since), aborted (the transaction's locks outlived their lease and were rolled back).",
		}, []string{"cause"}),
		waits: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "lock_waits_total",
			Help: "Map operations and lock requests that waited for a key's lock held by another.",
		}),
		waitTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "lock_wait_seconds",
			Help:    "How long map operations and lock requests waited for a key's lock held by another.",
			Buckets: latencyBuckets,
		}),
		resolved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "locks_resolved_total",
			Help: "Locks this member resolved for their holders, by outcome: rolled_forward (a committed transaction's write applied), rolled_back (a transaction that did not commit), released (a client's lock whose lease or session ended).",
		}, []string{"outcome"}),
	}
	t.commitTwo = t.commits.WithLabelValues(CommitTwoPhase)
	t.commitOne = t.commits.WithLabelValues(CommitOnePhase)
	for _, c := range []string{AbortLocked, AbortChanged, AbortAborted} {
		t.aborts.WithLabelValues(c)
	}
	for _, o := range []string{ResolvedForward, ResolvedBack, ResolvedReleased} {
		t.resolved.WithLabelValues(o)
	}
	return t
}

// Commit counts a commit of kind CommitTwoPhase or CommitOnePhase.
func (t *Transactions) Commit(kind string) {
	if t == nil {
		return
	}
	if kind == CommitOnePhase {
		t.commitOne.Inc()
		return
	}
	t.commitTwo.Inc()
}

// Abort counts a conflict of the given cause.
func (t *Transactions) Abort(cause string) {
	if t != nil {
		t.aborts.WithLabelValues(cause).Inc()
	}
}

// Waited records a wait for a lock of the given seconds.
func (t *Transactions) Waited(seconds float64) {
	if t != nil {
		t.waits.Inc()
		t.waitTime.Observe(seconds)
	}
}

// Resolved counts a lock resolved with the given outcome.
func (t *Transactions) Resolved(outcome string) {
	if t != nil {
		t.resolved.WithLabelValues(outcome).Inc()
	}
}

// Describe implements prometheus.Collector.
func (t *Transactions) Describe(ch chan<- *prometheus.Desc) {
	t.commits.Describe(ch)
	t.aborts.Describe(ch)
	t.waits.Describe(ch)
	t.waitTime.Describe(ch)
	t.resolved.Describe(ch)
}

// Collect implements prometheus.Collector.
func (t *Transactions) Collect(ch chan<- prometheus.Metric) {
	t.commits.Collect(ch)
	t.aborts.Collect(ch)
	t.waits.Collect(ch)
	t.waitTime.Collect(ch)
	t.resolved.Collect(ch)
}
