package member

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/pprof"
	"time"

	"google.golang.org/grpc"

	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/query/catalog"
	"github.com/atolldb/atoll/internal/query/plan"
	qpred "github.com/atolldb/atoll/internal/query/predicate"
	qsql "github.com/atolldb/atoll/internal/query/sql"
	"github.com/atolldb/atoll/internal/server"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// queryMaps adapts the maps registry to the engine's view of maps.
type queryMaps struct{ r *maps.Registry }

func (q queryMaps) Lookup(name string) (*store.Map, bool) {
	m, ok := q.r.Lookup(name)
	if !ok {
		return nil, false
	}
	return m.Store, true
}

func (q queryMaps) Get(name string) (*store.Map, error) {
	m, err := q.r.Get(name)
	if err != nil {
		return nil, err
	}
	return m.Store, nil
}

func (q queryMaps) SetIndexObserver(name string, o store.Observer) error {
	m, ok := q.r.Lookup(name)
	if !ok {
		return fmt.Errorf("map %q does not exist", name)
	}
	m.SetIndexObserver(o)
	return nil
}

// queryParts is the member's query engine and what it is made of.
type queryParts struct {
	catalog *catalog.Local
	engine  *exec.Engine
	remote  *exec.FramedRemote
	cache   *plan.Cache
	config  *server.QueryConfig
}

// catalogStore replicates the catalog through the cluster layer
// (cluster.CatalogStore).
type catalogStore struct{ cat *catalog.Local }

func (c catalogStore) Changes() [][]byte {
	var out [][]byte
	for _, ch := range c.cat.Snapshot() {
		b, err := ch.Marshal()
		if err != nil {
			continue // a mapping is plain data; it always marshals
		}
		out = append(out, b)
	}
	return out
}

func (c catalogStore) Apply(changes [][]byte) error {
	for _, b := range changes {
		ch, err := catalog.UnmarshalChange(b)
		if err != nil {
			return err
		}
		if err := c.cat.Apply(ch); err != nil {
			return err
		}
	}
	return nil
}

// dmlWriter hands the engine's DML writes to the server's writer, which
// is set once the server exists (the server needs the engine first), and
// before the member serves any query.
type dmlWriter struct{ w *server.DMLWriter }

func (d *dmlWriter) Write(ctx context.Context, op exec.Write) (bool, error) {
	return d.w.Write(ctx, op)
}

// mapSizes estimates maps' entry counts for the planner: this member's
// owned entries scaled to every partition (plan.Stats).
type mapSizes struct {
	r     *maps.Registry
	table *partition.Holder
	self  partition.UUID
	parts int
}

func (m mapSizes) EntryCount(name string) int64 {
	mp, ok := m.r.Lookup(name)
	if !ok {
		return 0
	}
	owned := mp.Store.Size()
	t := m.table.Load()
	if t == nil {
		return owned
	}
	self := t.IndexOf(m.self)
	mine := 0
	for _, o := range t.Owners {
		if o == self {
			mine++
		}
	}
	if mine == 0 {
		return -1
	}
	return owned * int64(m.parts) / int64(mine)
}

// queryPeers is what the engine needs of the cluster: which partitions
// this member owns, channels to the other members (for fragments and
// forwarded DML writes) and the broadcast of catalog changes.
type queryPeers interface {
	Owned(pid int32) bool
	Unowned(parts []int32) (pid int32, ok bool)
	Merging() bool
	Conn(addr string) (grpc.ClientConnInterface, error)
	DialFramed(ctx context.Context, addr, stream string) (net.Conn, *frame.Reader, error)
	Traffic(addr string) cluster.Traffic
	BroadcastCatalog(ctx context.Context, changes [][]byte) error
}

// fragmentsStream names the framed member stream that carries fragments
// (server.ServeFragments serves it, exec.FramedRemote dials it).
const fragmentsStream = "fragments"

// newQuery builds the catalog (replicated to every member through peers),
// the plan cache shared by both front ends, and the engine, which runs
// fragments on other members through peers and carries out DML through
// writer.
func newQuery(cfg QueryConfig, memoryLimit int64, cat *catalog.Local, reg *maps.Registry, ser *serialization.Service, table *partition.Holder, self partition.UUID,
	partitions int, peers queryPeers, writer exec.Writer, qm *metrics.Queries, log *slog.Logger) (*queryParts, error) {
	cache, err := plan.NewCache(10000)
	if err != nil {
		return nil, err
	}
	pool := exec.NewMemoryPool(poolConfig(cfg, memoryLimit, log))
	remote := &exec.FramedRemote{
		GRPCRemote: &exec.GRPCRemote{Conn: func(_ context.Context, m partition.Member) (grpc.ClientConnInterface, error) {
			return peers.Conn(m.Address)
		}},
		Dial: func(ctx context.Context, addr string) (net.Conn, *frame.Reader, error) {
			conn, rd, err := peers.DialFramed(ctx, addr, fragmentsStream)
			if errors.Is(err, cluster.ErrStreamRefused) {
				err = fmt.Errorf("%w: %v", exec.ErrStreamRefused, err)
			}
			return conn, rd, err
		},
		Traffic: peers.Traffic,
	}
	eng := exec.New(exec.Config{
		Maps: queryMaps{reg}, Catalog: cat, Serialization: ser, Table: table, Self: self,
		Remote: remote, Owned: peers.Owned, Unowned: peers.Unowned, Merging: peers.Merging, Writer: writer, Logger: log, MemoryLimit: int64(cfg.MemoryLimitPerQuery), Memory: pool,
		Exchange:          exec.ExchangeSettings{BatchBytes: cfg.Join.BatchBytes, VectorSize: cfg.Join.VectorSize, InFlightBytes: cfg.Join.InFlightBytes},
		CursorIdleTimeout: time.Duration(cfg.CursorIdleTimeout), MaxCursors: cfg.MaxCursors, MaxCursorsPerSession: cfg.MaxCursorsPerClient,
		OnScanned: func(ctx context.Context, n int64) {
			kind, _ := pprof.Label(ctx, profiling.LabelKind)
			qm.Scanned(kind, n)
		},
		OnScanRead: qm.ScanRead,
	})
	cat.OnChange(func(ch catalog.Change) {
		if ch.Kind == catalog.AddIndex {
			eng.SyncIndexes()
		}
		if ch.Replayed {
			return
		}
		// Made here: every other member applies it too. A member that
		// misses it (unreachable now) gets the whole catalog when it
		// rejoins, from every member.
		b, err := ch.Marshal()
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = peers.BroadcastCatalog(ctx, [][]byte{b})
			cancel()
		}
		if err != nil {
			log.Warn("replicating a SQL catalog change", "change", ch.Kind, "err", err)
		}
	})
	sqlPlanner := qsql.NewPlanner(cat, cache)
	sqlPlanner.Options = plan.Options{Stats: mapSizes{r: reg, table: table, self: self, parts: partitions},
		BroadcastRows: cfg.Join.BroadcastThresholdRows}
	return &queryParts{
		catalog: cat, engine: eng, remote: remote, cache: cache,
		config: &server.QueryConfig{
			Engine:     eng,
			SQL:        sqlPlanner,
			Predicates: &qpred.Planner{Catalog: cat, Cache: cache},
			Metrics:    qm,
		},
	}, nil
}

// poolConfig is the query memory pool of a member with memoryLimit.
func poolConfig(cfg QueryConfig, memoryLimit int64, log *slog.Logger) exec.PoolConfig {
	b := cfg.Breaker
	limit := int64(cfg.MemoryLimitPerMember)
	if limit <= 0 {
		limit = int64(float64(memoryLimit) * poolFraction)
	}
	return exec.PoolConfig{Limit: limit, MemoryLimit: memoryLimit, Breaker: b.Enabled,
		PoolOpen: b.PoolOpen, PoolClose: b.PoolClose, HeapOpen: b.HeapOpen, HeapClose: b.HeapClose,
		Interval: time.Duration(b.CheckInterval), RetryAfter: time.Duration(b.RetryAfter),
		AdmissionWait: time.Duration(b.AdmissionWait), Logger: log}
}

func (q *queryParts) close() {
	q.engine.Close()
	q.remote.Close()
	q.cache.Close()
}

// QueryCursors returns the number of queries running or holding an open
// cursor on this member (results that clients have not read to the end or
// closed).
func (m *Member) QueryCursors() int {
	if m.query == nil { // scraped while starting
		return 0
	}
	return m.query.engine.Cursors()
}
