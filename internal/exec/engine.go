// Package exec executes the physical plans of internal/query/plan on a
// member: it runs fragments over the member's partitions in parallel,
// reading fields in place from the stored bytes, fans fragments out to the
// other members through Remote, merges their rows on the coordinator,
// applies the coordinator's operators and pages the result to the client
// through cursors. Join fragments run as stages: hash joins whose inputs
// are scans of the member's partitions or rows other members send through
// the exchange (member to member, with bounded in-flight bytes). Every
// query's memory is accounted per member (MemoryAccount). It also keeps
// the member's indexes and runs DML and DDL statements.
package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/gopool"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Errors of the engine.
var (
	// ErrCursorNotFound: the cursor does not exist (finished, closed or
	// expired after CursorIdleTimeout).
	ErrCursorNotFound = errors.New("exec: cursor not found")
	// ErrClosed: the engine is shutting down.
	ErrClosed = errors.New("exec: engine closed")
	// ErrUnavailable: a partition has no owner, or a fragment reached a
	// member that does not own its partitions (a migration moved them);
	// retrying the query re-plans the placement.
	ErrUnavailable = errors.New("exec: partitions unavailable")
	// ErrNotPartitionable: a query asked to run over some partitions only
	// (Options.Partitions) whose result is not the union of its parts'
	// (an aggregate, ORDER BY, LIMIT, a join, DML, DDL): run it whole.
	ErrNotPartitionable = errors.New("exec: the query cannot run by partitions: its result is not the union of its parts' results; run it on the whole cluster")
	// ErrTooManyCursors: the member or the session already holds as many
	// queries running or with an open cursor as allowed; the message names
	// the limit. Retryable once cursors are closed.
	ErrTooManyCursors = errors.New("exec: too many open cursors")
	// ErrMerging: partitions had no stable owners within the query's time
	// while the cluster merged after a network partition healed. It comes
	// with ErrUnavailable: the query can be retried once the cluster
	// settles.
	ErrMerging = errors.New("exec: the cluster is merging")
)

// Session is who holds cursors: a client's query stream, or a client
// connection that runs queries outside a stream. Its cursors close when
// it ends (EndSession), only it can fetch or close them, and it holds at
// most Config.MaxCursorsPerSession queries running or with an open
// cursor. Its fields are guarded by the engine's lock.
type Session struct {
	open  int
	ended bool
}

// NewSession returns a session for a client's stream or connection.
func NewSession() *Session { return &Session{} }

// Maps gives the engine the member's maps.
type Maps interface {
	// Lookup returns the store of a map that exists on this member.
	Lookup(name string) (*store.Map, bool)
	// Get returns the store of a map, creating the map.
	Get(name string) (*store.Map, error)
	// SetIndexObserver installs the observer that maintains the map's
	// indexes (the map must exist).
	SetIndexObserver(name string, o store.Observer) error
}

// Catalog is the cluster-wide metadata the engine reads and changes:
// mappings and index definitions. The member's implementation keeps them
// locally (single member) or replicates them (cluster layer).
type Catalog interface {
	plan.Catalog
	// PutMapping adds a mapping, or replaces it with orReplace; with
	// ifNotExists an existing mapping is kept silently.
	PutMapping(m *plan.Mapping, orReplace, ifNotExists bool) error
	// DropMapping removes a mapping.
	DropMapping(name string, ifExists bool) error
	// AddIndex records an index definition; it reports whether it is new.
	AddIndex(ix plan.IndexInfo, ifNotExists bool) (bool, error)
	// AllIndexes lists every index definition.
	AllIndexes() []plan.IndexInfo
}

// Remote runs fragments on other members. FramedRemote implements it on
// the members' fragments streams (and ExchangeService over gRPC),
// GRPCRemote over QueryService.RunFragment; single members need none.
//
// Contract: RunFragment starts the marshalled fragment (plan.MarshalFragment
// in req.Fragment) on member over the listed partitions and returns its
// row stream.
// Next blocks until a batch arrives and returns io.EOF after the last one;
// an error ends the stream. Cancelling ctx or calling Close stops the
// fragment on the member. A member that no longer owns a partition fails
// the stream with a retryable error; the coordinator then fails the query
// (its fragments are partition-scoped, so a retry re-plans placement).
// OpenExchange opens a stream of a join exchange to member; it ends with
// ctx. ExchangeStats reads (and with clear resets) a member's exchange
// counters. Implementations are safe for concurrent use.
type Remote interface {
	RunFragment(ctx context.Context, member partition.Member, req *pb.RunFragmentRequest) (RowStream, error)
	OpenExchange(ctx context.Context, member partition.Member) (ExchangeSender, error)
	ExchangeStats(ctx context.Context, member partition.Member, clear bool) (ExchangeStats, error)
}

// RowStream is the row batches of a fragment running on a member.
type RowStream interface {
	Next() (*Batch, error)
	Close()
}

// Config holds the engine's dependencies.
type Config struct {
	Maps          Maps
	Catalog       Catalog
	Serialization *serialization.Service
	Table         *partition.Holder
	Self          partition.UUID
	Remote        Remote
	// Owned reports whether this member holds a partition as its owner
	// with all its data (the cluster layer knows; the table may name an
	// owner whose copy is still arriving). Nil trusts the table.
	Owned func(pid int32) bool
	// Unowned, when set, is Owned for many partitions at once: the first
	// of parts this member does not hold so, or false when it holds them
	// all.
	Unowned func(parts []int32) (pid int32, ok bool)
	// Merging reports whether the cluster is merging after a network
	// partition healed (nil: never), to say so when a query gives up.
	Merging func() bool
	// OnScanned is told how many entries each fragment run on this member
	// read, with the context the fragment ran under (which carries the
	// query's pprof labels, such as its kind); nil records nothing.
	OnScanned func(ctx context.Context, entries int64)
	// OnScanRead is told of every partition read of a scan fragment
	// (index lookups and counts apart): how many scans it served, more
	// than one when scans of the map shared it; nil records nothing.
	OnScanRead func(scans int)
	// Writer carries out DML writes; nil writes to this member's stores
	// directly (an engine without a cluster).
	Writer Writer
	Logger *slog.Logger
	// PageSize is the default rows per page; 8192 when 0. A page also
	// stops at pageBytes: the rows bound the round trips of a result of
	// small rows, the bytes a page's memory.
	PageSize int
	// CursorIdleTimeout closes cursors that nobody fetches; 2 minutes when 0
	// (the member's query.cursor-idle-timeout).
	CursorIdleTimeout time.Duration
	// MaxCursors bounds the queries running or holding an open cursor on
	// this member (query.max-cursors; DefaultMaxCursors when 0), and
	// MaxCursorsPerSession those of one session
	// (query.max-cursors-per-client; DefaultMaxCursorsPerSession when 0).
	// A query over either fails with ErrTooManyCursors before it runs.
	MaxCursors, MaxCursorsPerSession int
	// Clock is used for CURRENT_TIMESTAMP (time.Now when nil).
	Clock func() time.Time
	// Exchange holds the defaults of the join exchanges.
	Exchange ExchangeSettings
	// MemoryLimit bounds what one query may hold on this member, in
	// bytes; 0: no limit.
	MemoryLimit int64
	// Memory is the member's query memory pool and circuit breaker, whose
	// breaker the engine runs; nil: a pool without limits.
	Memory *MemoryPool
}

// Defaults of the cursor limits.
const (
	DefaultMaxCursors           = 1024
	DefaultMaxCursorsPerSession = 64
)

// Engine executes plans on a member. Safe for concurrent use.
type Engine struct {
	cfg     Config
	writer  Writer
	indexes *Indexes
	nextID  atomic.Uint64

	mu      sync.Mutex
	cursors map[uint64]*query
	open    int // queries running or holding a cursor (see reserve)
	closed  bool
	bg      sync.WaitGroup
	stop    chan struct{}
	// root is the parent of every query's context; Close cancels it.
	root       context.Context
	rootCancel context.CancelFunc

	synced atomic.Uint64 // catalog version whose indexes are built

	placed atomic.Pointer[placementCache]
	// wires and decoded cache the fragments this member sends to others
	// and those it runs for others; shapes, the shapes of the fragments
	// it runs.
	wires   wireCache
	decoded decodedCache
	shapes  shapeCache
	shares  scanShares // the scans that read partitions together

	hub    *hub
	stages atomic.Uint64 // numbers the stages this member coordinates

	pool       *MemoryPool
	goroutines *gopool.Pool  // runs the queries' goroutines (goRun)
	short      string        // this member's id in query ids
	queries    atomic.Uint64 // numbers queries run without a server's id
}

// placementCache is the placement of the latest partition table.
type placementCache struct {
	table *partition.Table
	parts []placementPart
	err   error
}

// goroutineIdle is how long a goroutine of the engine's pool waits for
// the next function before it ends.
const goroutineIdle = 10 * time.Second

// New returns an engine; call Close to stop it.
func New(cfg Config) *Engine {
	if cfg.PageSize <= 0 {
		cfg.PageSize = 8192
	}
	if cfg.CursorIdleTimeout <= 0 {
		cfg.CursorIdleTimeout = 2 * time.Minute
	}
	if cfg.MaxCursors <= 0 {
		cfg.MaxCursors = DefaultMaxCursors
	}
	if cfg.MaxCursorsPerSession <= 0 {
		cfg.MaxCursorsPerSession = DefaultMaxCursorsPerSession
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	e := &Engine{cfg: cfg, indexes: NewIndexes(cfg.Serialization), cursors: map[uint64]*query{}, stop: make(chan struct{}), hub: newHub(),
		pool: cfg.Memory, goroutines: gopool.New(goroutineIdle), short: cfg.Self.String()[:8]}
	if e.pool == nil {
		e.pool = NewMemoryPool(PoolConfig{Logger: cfg.Logger})
	}
	e.writer = cfg.Writer
	if e.writer == nil {
		e.writer = localWriter{e}
	}
	e.root, e.rootCancel = context.WithCancel(context.Background())
	e.goRun(e.reap)
	e.goRun(func() { e.pool.run(e.stop) })
	return e
}

// MemoryPool returns the member's query memory pool.
func (e *Engine) MemoryPool() *MemoryPool { return e.pool }

// queryID names a query in logs on every member it runs on: this
// member's id and the server's number of the query (its pprof label), or
// one of the engine's own.
func (e *Engine) queryID(ctx context.Context) string {
	n, ok := pprof.Label(ctx, profiling.LabelQueryID)
	if !ok {
		n = "e" + strconv.FormatUint(e.queries.Add(1), 10)
	}
	return e.short + "-" + n
}

// needsMemory reports whether a plan holds memory that grows with its
// data: a join, a grouping, DISTINCT or a sort. The breaker refuses such
// queries while memory is short; the others hold a page at most.
func needsMemory(n plan.Node) bool {
	switch x := n.(type) {
	case *plan.HashJoin, *plan.Sort, *plan.Distinct:
		return true
	case *plan.Aggregate:
		if len(x.GroupBy) > 0 || anyDistinctAgg(x.Aggs) {
			return true
		}
	case *plan.MergeAggregate:
		if x.Groups > 0 {
			return true
		}
	case *plan.Gather:
		return fragmentNeedsMemory(x.Frag)
	}
	for _, c := range n.Inputs() {
		if needsMemory(c) {
			return true
		}
	}
	return false
}

// fragmentNeedsMemory is needsMemory for a fragment.
func fragmentNeedsMemory(f *plan.Fragment) bool {
	return f.Join != nil || f.Final || len(f.GroupBy) > 0 || len(f.Sort) > 0
}

// goRun runs fn on a tracked goroutine of the engine's pool. fn starts
// without pprof labels: a query's part sets its query's.
func (e *Engine) goRun(fn func()) {
	e.bg.Add(1)
	e.goroutines.Go(func() {
		defer e.bg.Done()
		fn()
	})
}

// Go runs fn on a goroutine of the engine's pool, on a stack that earlier
// queries grew: for the calls that start queries. Close waits for it.
func (e *Engine) Go(fn func()) { e.goroutines.Go(fn) }

// Close cancels every running query and waits for the engine's goroutines.
func (e *Engine) Close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	close(e.stop)
	qs := make([]*query, 0, len(e.cursors))
	for _, q := range e.cursors {
		qs = append(qs, q)
	}
	e.cursors = map[uint64]*query{}
	e.mu.Unlock()
	for _, q := range qs {
		q.discard()
	}
	e.rootCancel() // queries still waiting for their first page
	e.bg.Wait()
	e.goroutines.Close()
}

// reap closes idle cursors.
func (e *Engine) reap() {
	t := time.NewTicker(max(e.cfg.CursorIdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		e.mu.Lock()
		for id, q := range e.cursors {
			q.mu.Lock()
			idle := now.Sub(q.lastUsed) > e.cfg.CursorIdleTimeout
			q.mu.Unlock()
			if idle {
				e.dropLocked(id, q)
				q.discard()
			}
		}
		e.mu.Unlock()
	}
}

// placementPart is the partitions one member runs.
type placementPart struct {
	member     partition.Member
	local      bool
	partitions []int32
}

// placement groups the partitions by owner, from the current table (the
// grouping is computed once per table version).
func (e *Engine) placement() ([]placementPart, error) {
	t := e.cfg.Table.Load()
	if t == nil {
		return nil, fmt.Errorf("%w: no partition table", ErrUnavailable)
	}
	if c := e.placed.Load(); c != nil && c.table == t {
		return c.parts, c.err
	}
	byOwner := map[int32]*placementPart{}
	var order []int32
	var missing error
	for pid, o := range t.Owners {
		if o < 0 || int(o) >= len(t.Members) {
			if missing == nil {
				missing = fmt.Errorf("%w: partition %d has no owner (table version %d)", ErrUnavailable, pid, t.Version)
			}
			continue
		}
		pp := byOwner[o]
		if pp == nil {
			m := t.Members[o]
			pp = &placementPart{member: m, local: m.UUID == e.cfg.Self || e.cfg.Remote == nil}
			byOwner[o] = pp
			order = append(order, o)
		}
		pp.partitions = append(pp.partitions, int32(pid))
	}
	out := make([]placementPart, 0, len(order))
	for _, o := range order {
		out = append(out, *byOwner[o])
	}
	e.placed.Store(&placementCache{table: t, parts: out, err: missing})
	return out, missing
}

// runRemote runs fragment f of a plan with the query's parameters on
// another member and forwards its batches.
func (e *Engine) runRemote(ctx context.Context, p placementPart, f *plan.Fragment, params []expr.Value, xc *pb.ExchangeContext, memLimit int64, queryID string, out func(*Batch) error) error {
	req, err := e.wires.request(f, params)
	if err != nil {
		return err
	}
	req.Partitions, req.Exchange, req.MemoryLimitBytes, req.QueryId = p.partitions, xc, memLimit, queryID
	rs, err := e.cfg.Remote.RunFragment(ctx, p.member, req)
	if err != nil {
		return err
	}
	defer rs.Close()
	for {
		batch, err := rs.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := out(batch); err != nil {
			return err
		}
	}
}

// RunFragment runs a marshalled fragment from another member over the
// given partitions (which must be this member's) and passes its batches to
// send. The server's QueryService.RunFragment calls it.
func (e *Engine) RunFragment(ctx context.Context, req *pb.RunFragmentRequest, send func(*Batch) error) error {
	var version uint64
	if e.cfg.Catalog != nil {
		version = e.cfg.Catalog.Version()
	}
	f, err := e.decoded.fragment(req, version, e.indexInfo)
	if err != nil {
		return err
	}
	t := e.cfg.Table.Load()
	for _, p := range req.Partitions {
		if p < 0 || t == nil || int(p) >= t.PartitionCount() {
			return plan.Errorf("partition %d is out of range", p)
		}
		if err := e.owns(p); err != nil {
			return err
		}
	}
	// A coordinator sends no exchange context when one member owns every
	// partition (this one): the rows then stay where they are, as on a
	// single member.
	if f.Join != nil && len(f.Exchanges()) > 0 && req.Exchange == nil && (t == nil || len(req.Partitions) < t.PartitionCount()) {
		return plan.Errorf("a join fragment whose rows move needs an exchange context")
	}
	id := req.QueryId
	if id == "" {
		id = e.queryID(ctx)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	adm := NoMemory
	if fragmentNeedsMemory(f) {
		adm = Admitted
	}
	mem, err := e.openAccount(ctx, id, req.MemoryLimitBytes, adm, cancel)
	if err != nil {
		return err
	}
	defer mem.Close()
	err = e.runFragment(ctx, f, req.Partitions, req.Exchange, mem, send)
	if err != nil && ctx.Err() != nil {
		return stopCause(ctx)
	}
	return err
}

// openAccount opens a query's account on this member, with the query's
// limit or the member's; the breaker may refuse a query that needs memory,
// after it waited for room until ctx ended at most.
func (e *Engine) openAccount(ctx context.Context, id string, limit int64, adm Admission, cancel context.CancelCauseFunc) (*MemoryAccount, error) {
	if limit <= 0 {
		limit = e.cfg.MemoryLimit
	}
	return e.pool.Open(ctx, id, limit, adm, func(err error) { cancel(err) })
}

// admission is how the breaker admits a query starting on this member
// with plan n.
func admission(n plan.Node) Admission {
	if needsMemory(n) {
		return AdmitHere
	}
	return NoMemory
}

// stopCause returns why a query's context ended: the breaker's error when
// it terminated the query, else the context's own error.
func stopCause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// ServeExchange receives one exchange stream from another member (the
// server's ExchangeService.Exchange calls it).
func (e *Engine) ServeExchange(stream ExchangeReceiver) error { return e.hub.serve(stream) }

// LocalExchangeStats returns this member's exchange counters since they
// were last cleared; with clear they restart from zero.
func (e *Engine) LocalExchangeStats(clear bool) ExchangeStats { return e.hub.Stats(clear) }

// ExchangeTotals returns this member's exchange counters since it started
// (for metrics: they never go down).
func (e *Engine) ExchangeTotals() ExchangeStats { return e.hub.Totals() }

// owns fails with ErrUnavailable unless this member holds partition p as
// its owner: by the cluster's account when Config.Owned is set (the
// partition's data has fully arrived), else by the partition table.
func (e *Engine) owns(p int32) error {
	t := e.cfg.Table.Load()
	if t == nil {
		return errNoTable
	}
	if !e.owned(t, p) {
		return notOwned(p, t)
	}
	return nil
}

// ownsAll is owns for every partition of parts, under one reading of the
// partition table.
func (e *Engine) ownsAll(parts []int32) error {
	t := e.cfg.Table.Load()
	if t == nil {
		return errNoTable
	}
	if e.cfg.Unowned != nil {
		if p, ok := e.cfg.Unowned(parts); ok {
			return notOwned(p, t)
		}
		return nil
	}
	for _, p := range parts {
		if !e.owned(t, p) {
			return notOwned(p, t)
		}
	}
	return nil
}

// owned reports whether this member holds partition p of table t as its
// owner (see owns).
func (e *Engine) owned(t *partition.Table, p int32) bool {
	if e.cfg.Owned != nil {
		return e.cfg.Owned(p)
	}
	o, ok := t.Owner(p)
	return ok && o.UUID == e.cfg.Self
}

// errNoTable: a member that has no partition table owns nothing yet.
var errNoTable = fmt.Errorf("%w: no partition table", ErrUnavailable)

// notOwned is ownsAll's error for partition p.
func notOwned(p int32, t *partition.Table) error {
	return fmt.Errorf("%w: this member does not own partition %d (table version %d)", ErrUnavailable, p, t.Version)
}

func (e *Engine) indexInfo(mapName, name string) (plan.IndexInfo, bool) {
	if e.cfg.Catalog == nil {
		return plan.IndexInfo{}, false
	}
	for _, ix := range e.cfg.Catalog.Indexes(mapName) {
		if ix.Name == name {
			return ix, true
		}
	}
	return plan.IndexInfo{}, false
}

// syncIndexes builds the catalog's indexes of a map that this member does
// not have yet (new definitions, or a map whose store was recreated).
func (e *Engine) syncIndexes(mapName string, st *store.Map) {
	if e.cfg.Catalog == nil {
		return
	}
	for _, ix := range e.cfg.Catalog.Indexes(mapName) {
		if !e.indexes.Has(mapName, ix.Name, st) {
			if err := e.ensureIndex(ix); err != nil {
				e.cfg.Logger.Warn("building index failed", "index", ix.Name, "map", mapName, "err", err)
			}
		}
	}
}

// SyncIndexes builds every index of the catalog that is missing here. The
// member calls it when the catalog changes.
func (e *Engine) SyncIndexes() {
	if e.cfg.Catalog == nil {
		return
	}
	v := e.cfg.Catalog.Version()
	for _, ix := range e.cfg.Catalog.AllIndexes() {
		if err := e.ensureIndex(ix); err != nil {
			e.cfg.Logger.Warn("building index failed", "index", ix.Name, "map", ix.Map, "err", err)
		}
	}
	e.synced.Store(v)
}

func (e *Engine) ensureIndex(ix plan.IndexInfo) error {
	st, err := e.cfg.Maps.Get(ix.Map)
	if err != nil {
		return err
	}
	return e.indexes.Ensure(st, ix, func(o store.Observer) {
		if err := e.cfg.Maps.SetIndexObserver(ix.Map, o); err != nil {
			e.cfg.Logger.Warn("attaching index failed", "map", ix.Map, "err", err)
		}
	})
}

// Result is the first page of a statement's result.
type Result struct {
	Columns []plan.Column
	// Rows are the page's rows, encoded; nil when Parts holds them.
	Rows []byte
	// Parts holds, for a query run with Options.RowParts, the rows of a
	// page gathered from several batches: Rows cut in pieces, in order,
	// which saves their join into one buffer for a caller that copies
	// them out anyway (onto a connection). Release gives their buffers
	// back once they were.
	Parts [][]byte
	// recycle are the batches whose buffers Parts alone holds.
	recycle     []*Batch
	Count       int
	Cursor      uint64 // 0 when complete
	UpdateCount int64  // -1 for row results
	// Kind is the pprof label "kind" the query was started under (set by
	// Fetch, for a server that counts rows by kind).
	Kind string
}

// Release gives the buffers of r.Parts back for later batches; Parts must
// not be read afterwards. A result that is not released leaves them to
// the collector.
func (r *Result) Release() {
	for _, b := range r.recycle {
		b.Recycle()
	}
	r.Parts, r.recycle = nil, nil
}

// Options tune one execution.
type Options struct {
	PageSize int
	Timeout  time.Duration
	// RowParts lets the pages of the query (its first and those fetched
	// later) carry their rows in Result.Parts.
	RowParts bool
	// Session holds the query's cursor; nil: nobody's (only the member's
	// limit and the idle timeout apply).
	Session *Session
	// Partitions, when set, runs the query over these partitions of this
	// member only: a client runs it so on every owner at once and joins
	// the rows. The plan must be Partitionable (else ErrNotPartitionable),
	// and a partition this member does not own fails the query with
	// ErrUnavailable, at once: the caller knows the placement, not this
	// member, so it is not restarted on a new one.
	Partitions []int32
}

// RunsInline reports whether Execute runs ph on its caller's goroutine
// with bounded work: an equality lookup over given partitions
// (Options.Partitions), whose rows a client asked each owner for, in an
// index this member has built, with every index of the catalog in
// place. It reads a page of rows from the index: when they fill more than
// one page, the first is made on a goroutine of its own and awaited. A
// server may run such a query where it reads its calls; a lookup that
// would first build an index, or scan for want of one, is not such a
// query.
func (e *Engine) RunsInline(ph *plan.Physical, opts Options) bool {
	if ph.Kind != "query" || !inlineLookup(ph.Root, opts.Partitions) {
		return false
	}
	if e.cfg.Catalog != nil && e.synced.Load() != e.cfg.Catalog.Version() {
		return false
	}
	f := ph.Root.(*plan.Gather).Frag
	st, ok := e.cfg.Maps.Lookup(f.Map)
	return ok && e.indexes.lookup(f.Map, f.Index.Index.Name, st) != nil
}

// inlineLookup reports whether root, run over the partitions only, is a
// lookup query.lookupInline runs.
func inlineLookup(root plan.Node, only []int32) bool {
	g, ok := root.(*plan.Gather)
	return only != nil && ok && g.Frag.Index != nil && g.Frag.Index.Equals != nil
}

// Partitionable reports whether a plan's result is the union of the
// results of its runs over disjoint sets of partitions: a query whose
// rows come straight from one fragment that filters and projects
// (no aggregate, sort, limit, join or DISTINCT on the coordinator).
func Partitionable(ph *plan.Physical) bool {
	if ph.Kind != "query" {
		return false
	}
	g, ok := ph.Root.(*plan.Gather)
	if !ok {
		return false
	}
	f := g.Frag
	return f.Join == nil && !f.Aggregating() && len(f.Sort) == 0 && f.Limit < 0 && !f.Final && f.Post == nil && !f.CountOnly
}

// Execute runs a physical plan with its parameter values and returns the
// first page; later pages come from Fetch. The query runs beyond ctx (it
// stops on Close, on its timeout, or when its cursor idles); ctx bounds
// the wait for the first page and cancels the query if it ends first.
func (e *Engine) Execute(ctx context.Context, ph *plan.Physical, params []expr.Value, opts Options) (*Result, error) {
	if len(params) < len(ph.ParamTypes) {
		return nil, plan.Errorf("the statement has %d parameters but %d values were given", len(ph.ParamTypes), len(params))
	}
	bound := make([]expr.Value, len(params))
	for i, v := range params {
		if i < len(ph.ParamTypes) && ph.ParamTypes[i] != expr.Unknown && !v.IsNull() && v.T != ph.ParamTypes[i] {
			c, err := expr.Cast(v, ph.ParamTypes[i])
			if err != nil {
				return nil, plan.Errorf("parameter %d: %v", i+1, err)
			}
			v = c
		}
		bound[i] = v
	}
	if opts.Partitions != nil && !Partitionable(ph) {
		return nil, ErrNotPartitionable
	}
	switch ph.Kind {
	case "ddl":
		return e.ddl(ph.Root)
	case "dml":
		n, err := e.dml(ctx, ph.Root, bound, opts)
		if err != nil {
			return nil, err
		}
		return &Result{UpdateCount: n}, nil
	case "explain":
		text := plan.ExplainText(&plan.Physical{Root: ph.Root.(*plan.Explain).Input})
		var rows []byte
		n := 0
		for _, line := range splitLines(text) {
			rows = appendValue(rows, expr.StringValue(line))
			n++
		}
		return &Result{Columns: []plan.Column{{Name: "plan", Type: expr.Varchar}}, Rows: rows, Count: n, UpdateCount: -1}, nil
	}
	if e.cfg.Catalog != nil && e.synced.Load() != e.cfg.Catalog.Version() {
		e.SyncIndexes()
	}
	// A query counts against the cursor limits from its start: until it
	// ends, or, if it leaves a cursor, until the cursor closes.
	if err := e.reserve(opts.Session); err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		if !kept {
			e.mu.Lock()
			e.releaseLocked(opts.Session)
			e.mu.Unlock()
		}
	}()
	pageSize := opts.PageSize
	if pageSize <= 0 {
		pageSize = e.cfg.PageSize
	}
	// A partition that moves between placement and scan fails the query
	// before it returns rows: it is started again on the new placement.
	var q *query
	var p page
	attempt := func(opts Options) error {
		var err error
		if q, p, err = e.start(ctx, ph, bound, opts, pageSize); err != nil {
			return err
		}
		if p.err != nil && errors.Is(p.err, ErrUnavailable) {
			q.took(p)
			q.discard()
			return p.err
		}
		return nil
	}
	var err error
	if opts.Partitions != nil {
		err = attempt(opts)
	} else {
		err = e.whileMoving(ctx, opts, attempt)
	}
	if err != nil {
		return nil, err
	}
	q.took(p)
	if p.err != nil {
		q.discard()
		return nil, p.err
	}
	res := &Result{Columns: ph.Columns, Rows: p.rows, Parts: p.parts, recycle: p.recycle, Count: p.count, UpdateCount: -1}
	if p.last {
		q.discard()
		return res, nil
	}
	q.id = e.nextID.Add(1)
	q.session = opts.Session
	e.mu.Lock()
	if s := opts.Session; s != nil && s.ended {
		e.mu.Unlock()
		q.discard()
		return nil, context.Canceled // the client's stream or connection is gone
	}
	e.cursors[q.id] = q
	kept = true
	e.mu.Unlock()
	res.Cursor = q.id
	return res, nil
}

// reserve counts a query against the member's and its session's cursor
// limits, or fails with ErrTooManyCursors.
func (e *Engine) reserve(s *Session) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open >= e.cfg.MaxCursors {
		return fmt.Errorf("%w: this member has %d queries running or holding a cursor, its limit (query.max-cursors); close cursors or raise the limit",
			ErrTooManyCursors, e.open)
	}
	if s != nil && s.open >= e.cfg.MaxCursorsPerSession {
		return fmt.Errorf("%w: this client has %d queries running or holding a cursor on this member, its limit (query.max-cursors-per-client); close cursors or raise the limit",
			ErrTooManyCursors, s.open)
	}
	e.open++
	if s != nil {
		s.open++
	}
	return nil
}

// releaseLocked undoes reserve; e.mu is held.
func (e *Engine) releaseLocked(s *Session) {
	e.open--
	if s != nil {
		s.open--
	}
}

// dropLocked forgets cursor id and releases its reservation; e.mu is held.
func (e *Engine) dropLocked(id uint64, q *query) {
	delete(e.cursors, id)
	e.releaseLocked(q.session)
}

// EndSession closes every cursor of a session whose stream or connection
// ended; queries it starts afterwards keep no cursor.
func (e *Engine) EndSession(s *Session) {
	e.mu.Lock()
	s.ended = true
	var qs []*query
	for id, q := range e.cursors {
		if q.session == s {
			e.dropLocked(id, q)
			qs = append(qs, q)
		}
	}
	e.mu.Unlock()
	for _, q := range qs {
		q.discard()
	}
}

// maxPlacementWait caps the wait between restarts of a query whose
// partitions moved (10 ms, doubling); noTimeoutRestarts bounds the
// restarts of a query that has no timeout and no deadline.
const (
	maxPlacementWait  = 640 * time.Millisecond
	noTimeoutRestarts = 2 * time.Minute
)

// restartDeadline is when a query stops restarting: before its timeout or
// its caller's deadline, whichever comes first (a small margin is kept to
// answer in time).
func restartDeadline(ctx context.Context, timeout time.Duration) time.Time {
	end := time.Now().Add(noTimeoutRestarts)
	if timeout > 0 {
		end = time.Now().Add(timeout)
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(end) {
		end = dl
	}
	return end.Add(-20 * time.Millisecond)
}

// whileMoving runs attempt, and again while it fails with ErrUnavailable
// (its partitions moved, or their owner went), until the partitions settle
// or the query's own time (its timeout, the caller's deadline) would run
// out: it then returns the last error, which is retryable and says when
// the cluster is merging. Each attempt gets the time left as its timeout.
func (e *Engine) whileMoving(ctx context.Context, opts Options, attempt func(Options) error) error {
	end := restartDeadline(ctx, opts.Timeout)
	var moved error // the last attempt's ErrUnavailable
	for n := 0; ; n++ {
		if opts.Timeout > 0 {
			opts.Timeout = max(time.Until(end), time.Millisecond)
		}
		err := attempt(opts)
		if moved != nil && errors.Is(err, context.DeadlineExceeded) {
			// A restart ran out of the query's time (on a loaded machine,
			// the last one may get only milliseconds): the partitions did
			// not settle in time.
			return e.unsettled(moved)
		}
		if err == nil || !errors.Is(err, ErrUnavailable) {
			return err
		}
		moved = err
		wait := min(time.Duration(10<<min(n, 6))*time.Millisecond, maxPlacementWait)
		if time.Until(end) < wait {
			return e.unsettled(err)
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return e.unsettled(err)
			}
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// unsettled is the error of a query that gave up restarting: err, or when
// the cluster is merging, a retryable error that says so.
func (e *Engine) unsettled(err error) error {
	if e.cfg.Merging != nil && e.cfg.Merging() {
		return fmt.Errorf("%w: %w after a network partition healed: partitions had no stable owners within the query's time; retry once it settles (%v)", ErrUnavailable, ErrMerging, err)
	}
	return err
}

// start runs a query until its first page, which it returns with the
// query. The breaker may refuse a query that needs memory.
func (e *Engine) start(ctx context.Context, ph *plan.Physical, bound []expr.Value, opts Options, pageSize int) (*query, page, error) {
	qctx, stop := context.WithCancelCause(e.root)
	cancel := func() { stop(nil) }
	// A lookup that may run inline (lookupInline: a page of rows read
	// from an index on the caller's goroutine) runs without its timeout's
	// timer, which costs more than the lookup's own reads; one whose rows
	// need more than a page gets it before it runs again as any query.
	inline := inlineLookup(ph.Root, opts.Partitions)
	var deadline time.Time
	if opts.Timeout > 0 {
		deadline = time.Now().Add(opts.Timeout)
	}
	setDeadline := func() {
		var cancelT context.CancelFunc
		qctx, cancelT = context.WithDeadline(qctx, deadline)
		cancel = func() { cancelT(); stop(nil) }
	}
	if !inline && !deadline.IsZero() {
		setDeadline()
	}
	// A query that needs memory may wait for room in the memory pool:
	// while its caller waits, within its timeout, and not past the
	// engine's closing. The others never wait.
	adm, wait := admission(ph.Root), ctx
	if adm != NoMemory {
		var cancelWait context.CancelFunc
		wait, cancelWait = context.WithCancel(ctx)
		defer cancelWait()
		defer context.AfterFunc(qctx, cancelWait)()
	}
	mem, err := e.openAccount(wait, e.queryID(ctx), ph.Hints.MemoryLimit, adm, stop)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() == nil && qctx.Err() != nil {
			err = qctx.Err() // its timeout
			if e.root.Err() != nil {
				err = ErrClosed
			}
		}
		cancel()
		return nil, page{}, err
	}
	// The query outlives the call but keeps its pprof labels (its kind),
	// for profiles and for the fragments it starts on other members.
	if hasLabels(ctx) {
		qctx = pprof.WithLabels(qctx, labelsOf(ctx))
	}
	q := &query{e: e, ctx: qctx, cancel: cancel, params: bound, only: opts.Partitions, rowParts: opts.RowParts, now: e.cfg.Clock(), cols: ph.Columns,
		pages: make(chan page, 1), lastUsed: time.Now(), hints: ph.Hints, mem: mem, ops: memGrant{mem: mem, what: "result"}}
	q.refs.Store(1) // the producer's
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		cancel()
		mem.Close()
		return nil, page{}, ErrClosed
	}
	e.mu.Unlock()
	if inline {
		if p, ok := q.lookupInline(ph.Root, pageSize); ok {
			return q, p, nil
		}
		if !deadline.IsZero() {
			setDeadline()
			q.ctx, q.cancel = qctx, cancel
		}
	}
	e.goRun(func() {
		pprof.SetGoroutineLabels(qctx)
		q.produce(ph.Root, pageSize)
	})
	var p page
	var ok bool
	select {
	case p, ok = <-q.pages:
	case <-ctx.Done():
		q.discard()
		return nil, page{}, ctx.Err()
	}
	if !ok {
		err := stopCause(qctx)
		cancel()
		if err == nil {
			err = context.Canceled
		}
		return nil, page{}, err
	}
	return q, p, nil
}

// labelsOf returns the pprof labels ctx carries.
func labelsOf(ctx context.Context) pprof.LabelSet {
	var kv []string
	pprof.ForLabels(ctx, func(k, v string) bool {
		kv = append(kv, k, v)
		return true
	})
	return pprof.Labels(kv...)
}

// hasLabels reports whether ctx carries pprof labels.
func hasLabels(ctx context.Context) bool {
	found := false
	pprof.ForLabels(ctx, func(string, string) bool {
		found = true
		return false
	})
	return found
}

// Fetch returns the next page of a cursor of session s.
func (e *Engine) Fetch(ctx context.Context, id uint64, s *Session) (*Result, error) {
	e.mu.Lock()
	q := e.cursors[id]
	e.mu.Unlock()
	if q == nil || q.session != s {
		return nil, fmt.Errorf("%w: %d", ErrCursorNotFound, id)
	}
	q.mu.Lock()
	q.lastUsed = time.Now()
	q.mu.Unlock()
	var p page
	var ok bool
	select {
	case p, ok = <-q.pages:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if ok {
		q.took(p)
	}
	if !ok || p.err != nil || p.last {
		e.CloseCursor(id, s)
	}
	if !ok {
		if q.ctx.Err() != nil {
			return nil, stopCause(q.ctx)
		}
		return nil, fmt.Errorf("%w: %d", ErrCursorNotFound, id)
	}
	if p.err != nil {
		return nil, p.err
	}
	res := &Result{Rows: p.rows, Parts: p.parts, recycle: p.recycle, Count: p.count, UpdateCount: -1}
	res.Kind, _ = pprof.Label(q.ctx, profiling.LabelKind)
	if !p.last {
		res.Cursor = id
	}
	return res, nil
}

// CloseCursor cancels the query of a cursor of session s on every member;
// it reports whether the cursor existed.
func (e *Engine) CloseCursor(id uint64, s *Session) bool {
	e.mu.Lock()
	q := e.cursors[id]
	if q == nil || q.session != s {
		e.mu.Unlock()
		return false
	}
	e.dropLocked(id, q)
	e.mu.Unlock()
	q.discard()
	return true
}

// Cursors returns the number of queries running or holding an open
// cursor.
func (e *Engine) Cursors() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.open
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
