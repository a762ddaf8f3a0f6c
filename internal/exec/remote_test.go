package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	qsql "github.com/atolldb/atoll/internal/query/sql"
	"github.com/atolldb/atoll/pkg/serialization"
)

// loopRemote runs "remote" fragments on an engine of this process through
// their wire form, the way the cluster layer runs them over gRPC.
type loopRemote struct {
	e     *Engine
	calls atomic.Int64
}

type chanStream struct {
	ch     chan *Batch
	errc   chan error
	cancel context.CancelFunc
}

func (s *chanStream) Next() (*Batch, error) {
	if b, ok := <-s.ch; ok {
		return b, nil
	}
	if err := <-s.errc; err != nil {
		return nil, err
	}
	return nil, io.EOF
}

func (s *chanStream) Close() { s.cancel() }

func (r *loopRemote) RunFragment(ctx context.Context, _ partition.Member, req *pb.RunFragmentRequest) (RowStream, error) {
	r.calls.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	s := &chanStream{ch: make(chan *Batch, 4), errc: make(chan error, 1), cancel: cancel}
	go func() {
		err := r.e.RunFragment(ctx, req, func(b *Batch) error {
			select {
			case s.ch <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(s.ch)
		s.errc <- err
	}()
	return s, nil
}

// OpenExchange: the exchanges of joins are tested through real members
// (internal/querytest); these engines run scans only.
func (r *loopRemote) OpenExchange(context.Context, partition.Member) (ExchangeSender, error) {
	return nil, errors.New("loopRemote runs no exchanges")
}

func (r *loopRemote) ExchangeStats(context.Context, partition.Member, bool) (ExchangeStats, error) {
	return ExchangeStats{}, errors.New("loopRemote runs no exchanges")
}

// wireEngines returns engines over one map "s" (mapped in SQL as s) of n
// SMALL values, value(k) for key k: single is one member owning every
// partition; dual owns the even partitions and reaches the other member,
// which owns the odd ones, through remote (marshalled fragments).
func wireEngines(t *testing.T, n int32, value func(k int32) benchmodel.Small) (single, dual *Engine, remote *loopRemote, p *qsql.Planner) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	cat := &memCatalog{}
	single, maps := testEngine(t, ser, cat)
	st, _ := maps.Get("s")
	for k := range n {
		v := value(k)
		put(t, ser, st, k, &v)
	}
	self := partition.Member{UUID: partition.NewUUID(), Address: "self"}
	other := partition.Member{UUID: partition.NewUUID(), Address: "other"}
	table := &partition.Table{Version: 2, Members: []partition.Member{self, other}, Owners: make([]int32, 271), Backups: make([][]int32, 271)}
	for p := range table.Owners {
		table.Owners[p] = int32(p % 2)
	}
	h := &partition.Holder{}
	h.Store(table)
	// The other member: an engine over the same maps that is that member.
	peer := New(Config{Maps: maps, Catalog: cat, Serialization: ser, Table: h, Self: other.UUID})
	t.Cleanup(peer.Close)
	remote = &loopRemote{e: peer}
	dual = New(Config{Maps: maps, Catalog: cat, Serialization: ser, Table: h, Self: self.UUID, Remote: remote})
	t.Cleanup(dual.Close)

	mapping := &plan.Mapping{Name: "s", MapName: "s", KeyFormat: "int", ValueFormat: "compact", Options: map[string]string{"valueCompactTypeName": "small"},
		Columns: []plan.MappingColumn{{Name: "__key", Type: expr.Integer, Path: "__key"}, {Name: "intField", Type: expr.Integer, Path: "intField"},
			{Name: "longField", Type: expr.BigInt, Path: "longField"}, {Name: "stringField", Type: expr.Varchar, Path: "stringField"},
			{Name: "this", Type: expr.Object, Path: "this", Hidden: true}}}
	_ = cat.PutMapping(mapping, true, false)
	return single, dual, remote, qsql.NewPlanner(cat, nil)
}

// TestFragmentsOverTheWire runs queries on a two-member table whose second
// member is reached through Remote (marshalled fragments) and compares
// every result with the single-member run.
func TestFragmentsOverTheWire(t *testing.T) {
	single, dual, remote, p := wireEngines(t, 3000, func(k int32) benchmodel.Small {
		v := benchmodel.SmallForKey(k)
		v.IntField = k % 17
		return v
	})
	for _, q := range []struct {
		sql     string
		ordered bool
	}{
		{"SELECT COUNT(*) FROM s", false},
		{"SELECT intField, COUNT(*), SUM(__key), MIN(stringField), MAX(longField) FROM s GROUP BY intField", false},
		{"SELECT __key, stringField FROM s WHERE intField = 3", false},
		{"SELECT __key FROM s ORDER BY longField DESC LIMIT 7", true},
		{"SELECT __key FROM s WHERE intField < 5 ORDER BY __key LIMIT 5 OFFSET 40", true},
		{"SELECT COUNT(DISTINCT intField), AVG(intField) FROM s", false},
		{"SELECT DISTINCT intField FROM s WHERE __key > 100", false},
	} {
		ph, err := p.Plan(context.Background(), q.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
		run := func(e *Engine) []string {
			res, err := e.Execute(context.Background(), ph, nil, Options{PageSize: 1 << 20})
			if err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
			rows, err := DecodeRows(res.Rows, res.Count, len(ph.Columns))
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				s := ""
				for _, v := range r {
					s += v.String() + "|"
				}
				out = append(out, s)
			}
			if !q.ordered {
				sort.Strings(out)
			}
			return out
		}
		want, got := run(single), run(dual)
		if !slices.Equal(want, got) || len(want) == 0 {
			t.Fatalf("%s\none member: %v\ntwo members: %v", q.sql, want, got)
		}
	}
	if remote.calls.Load() == 0 {
		t.Fatal("no fragment went through Remote")
	}
	// A member refuses to run a fragment over partitions it does not own
	// (a migration moved them): the error is retryable.
	b, err := plan.MarshalFragment(&plan.Fragment{Map: "s", Limit: -1, CountOnly: true,
		Aggs: []plan.AggCall{{Func: "count", T: expr.BigInt}}, Out: []plan.Column{{Type: expr.BigInt}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := dual.RunFragment(context.Background(), &pb.RunFragmentRequest{Fragment: b, Partitions: []int32{1}}, func(*Batch) error { return nil }); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("fragment on a partition owned elsewhere: %v", err)
	}
	if err := dual.RunFragment(context.Background(), &pb.RunFragmentRequest{Fragment: []byte{0xff, 0x01}, Partitions: []int32{0}}, func(*Batch) error { return nil }); !errors.Is(err, plan.ErrBadFragment) {
		t.Fatalf("garbage fragment: %v", err)
	}
}

// TestQueryRestartsUntilPartitionsSettle: a query whose partitions have no
// stable owner (another member refuses them, as during a split-brain merge)
// starts again until they settle, for as long as its own time allows; it
// used to give up after about ten seconds. When its time runs out while
// the cluster is merging, it fails with a retryable error that says so,
// before its deadline.
func TestQueryRestartsUntilPartitionsSettle(t *testing.T) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	cat := &memCatalog{}
	_, maps := testEngine(t, ser, cat)
	st, _ := maps.Get("s")
	for k := int32(0); k < 500; k++ {
		v := benchmodel.SmallForKey(k)
		put(t, ser, st, k, &v)
	}
	self := partition.Member{UUID: partition.NewUUID(), Address: "self"}
	other := partition.Member{UUID: partition.NewUUID(), Address: "other"}
	table := &partition.Table{Version: 2, Members: []partition.Member{self, other}, Owners: make([]int32, 271), Backups: make([][]int32, 271)}
	for p := range table.Owners {
		table.Owners[p] = int32(p % 2)
	}
	h := &partition.Holder{}
	h.Store(table)
	var settled atomic.Int64 // Unix nanoseconds from which the other member owns its partitions
	owned := func(pid int32) bool { return pid%2 == 1 && time.Now().UnixNano() >= settled.Load() }
	merging := func() bool { return time.Now().UnixNano() < settled.Load() }
	peer := New(Config{Maps: maps, Catalog: cat, Serialization: ser, Table: h, Self: other.UUID, Owned: owned})
	t.Cleanup(peer.Close)
	e := New(Config{Maps: maps, Catalog: cat, Serialization: ser, Table: h, Self: self.UUID, Remote: &loopRemote{e: peer},
		Owned: func(pid int32) bool { return pid%2 == 0 }, Merging: merging})
	t.Cleanup(e.Close)
	ph := plan.Build(context.Background(), &plan.Aggregate{Input: &plan.Scan{Table: "s", Map: "s"}, Aggs: []plan.AggCall{{Func: "count", T: expr.BigInt}}, Names: []string{"n"}}, cat, nil, "query", plan.Options{})

	// Settles after 11 s: the query, with a minute to run, waits it out.
	settled.Store(time.Now().Add(11 * time.Second).UnixNano())
	res, err := e.Execute(context.Background(), ph, nil, Options{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("a query while partitions settle for 11 s: %v", err)
	}
	if rows, err := DecodeRows(res.Rows, res.Count, 1); err != nil || rows[0][0].I != 500 {
		t.Fatalf("count %v %v, want 500", rows, err)
	}

	// Never settles within the query's 2 s: a retryable error naming the
	// merge, before the deadline.
	settled.Store(time.Now().Add(time.Hour).UnixNano())
	start := time.Now()
	_, err = e.Execute(context.Background(), ph, nil, Options{Timeout: 2 * time.Second})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrMerging) || !strings.Contains(err.Error(), "the cluster is merging") {
		t.Fatalf("a query during a merge longer than its timeout: %v", err)
	}
	// It gives up at its timeout, not later (a loaded machine may wake the
	// query a few milliseconds after it: the slack allows for that, not for
	// another wait).
	if took := time.Since(start); took > 2*time.Second+250*time.Millisecond {
		t.Fatalf("gave up after %v, past its 2 s timeout", took)
	}
	// The caller's deadline bounds it the same way.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := e.Execute(ctx, ph, nil, Options{}); !errors.Is(err, ErrMerging) {
		t.Fatalf("a query during a merge longer than its caller's deadline: %v", err)
	}
}

// TestLargeResultsRecycleBatches: queries whose results span many full
// batches and pages of one chunk or many, run side by side with their
// fragments on both members, return every row intact. A batch gives its
// buffer back once its rows are joined into a page, and the next batch
// writes over it: a page still reading it would show another row.
func TestLargeResultsRecycleBatches(t *testing.T) {
	const n = 40000
	_, dual, remote, p := wireEngines(t, n, benchmodel.SmallForKey)
	ph, err := p.Plan(context.Background(), "SELECT __key, stringField, this FROM s", nil)
	if err != nil {
		t.Fatal(err)
	}
	query := func(pageSize int) error {
		seen := make([]bool, n)
		res, err := dual.Execute(context.Background(), ph, nil, Options{PageSize: pageSize})
		for err == nil {
			rows, derr := DecodeRows(res.Rows, res.Count, len(ph.Columns))
			if derr != nil {
				return derr
			}
			for _, r := range rows {
				k := r[0].I
				if k < 0 || k >= n || seen[k] {
					return fmt.Errorf("key %d twice or out of range", k)
				}
				seen[k] = true
				v := benchmodel.SmallForKey(int32(k))
				if string(r[1].B) != v.StringField || len(r[2].B) == 0 {
					return fmt.Errorf("key %d: stringField %q, want %q (%d bytes of object)", k, r[1].B, v.StringField, len(r[2].B))
				}
			}
			if res.Cursor == 0 {
				break
			}
			res, err = dual.Fetch(context.Background(), res.Cursor, nil)
		}
		if err != nil {
			return err
		}
		if i := slices.Index(seen, false); i >= 0 {
			return fmt.Errorf("key %d missing", i)
		}
		return nil
	}
	for _, pageSize := range []int{97, 5000, n} {
		errs := make(chan error, 4)
		for range 4 {
			go func() { errs <- query(pageSize) }()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("pages of %d rows: %v", pageSize, err)
			}
		}
	}
	if remote.calls.Load() == 0 {
		t.Fatal("no fragment went through Remote")
	}
}
