package member

import (
	"fmt"
	"log/slog"

	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/partition"
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
	cache   *plan.Cache
	config  *server.QueryConfig
}

// newQuery builds the catalog (local to this member until the cluster
// layer replicates its changes), the plan cache shared by both front ends,
// and the engine. remote is nil for a single member.
func newQuery(reg *maps.Registry, ser *serialization.Service, table *partition.Holder, self partition.UUID, remote exec.Remote, log *slog.Logger) (*queryParts, error) {
	cat := catalog.New()
	cache, err := plan.NewCache(10000)
	if err != nil {
		return nil, err
	}
	eng := exec.New(exec.Config{
		Maps: queryMaps{reg}, Catalog: cat, Serialization: ser, Table: table, Self: self, Remote: remote, Logger: log,
	})
	cat.OnChange(func(ch catalog.Change) {
		if ch.Kind == catalog.AddIndex {
			eng.SyncIndexes()
		}
	})
	return &queryParts{
		catalog: cat, engine: eng, cache: cache,
		config: &server.QueryConfig{
			Engine:     eng,
			SQL:        qsql.NewPlanner(cat, cache),
			Predicates: &qpred.Planner{Catalog: cat, Cache: cache},
		},
	}, nil
}

func (q *queryParts) close() {
	q.engine.Close()
	q.cache.Close()
}

// QueryCursors returns the number of open query cursors on this member
// (results that clients have not read to the end or closed).
func (m *Member) QueryCursors() int { return m.query.engine.Cursors() }
