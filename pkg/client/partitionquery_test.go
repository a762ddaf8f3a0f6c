package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partset"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/predicate"
)

// memberGauge sums a metric (all its series) over the live members.
func memberGauge(t *testing.T, ctx context.Context, c *testcluster.Cluster, name string) float64 {
	t.Helper()
	sum := 0.0
	for _, n := range c.Live() {
		fams, err := n.Metrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fams[name].GetMetric() {
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

// loadKeys creates the mapping m (int keys, varchar values) and puts keys
// 0..n-1.
func loadKeys(t *testing.T, ctx context.Context, cl *Client, n int32) {
	t.Helper()
	if _, err := cl.SQL(ctx, `CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`); err != nil {
		t.Fatal(err)
	}
	var entries []Entry[int32, string]
	for i := range n {
		entries = append(entries, Entry[int32, string]{Key: i, Value: fmt.Sprintf("value %d", i)})
	}
	if err := GetMap[int32, string](cl, "m").PutAll(ctx, entries); err != nil {
		t.Fatal(err)
	}
}

// sqlKeys runs a statement whose first column is the key and returns the
// keys, sorted.
func sqlKeys(ctx context.Context, cl *Client, stmt string, params ...any) ([]int32, error) {
	rows, err := cl.SQL(ctx, stmt, params...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []int32
	for rows.Next() {
		var k int32
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, rows.Err()
}

func keyRange(from, to int32) []int32 {
	var out []int32
	for k := from; k < to; k++ {
		out = append(out, k)
	}
	return out
}

// TestQueryByPartitions: on three member processes, a query whose rows
// are the union of its partitions' goes to every owner at once (each
// member runs a part), with the same rows as through one member, in pages
// too; a query that is not (COUNT(*)) is refused by parts once, then runs
// through one member only; DML never goes by parts; a Rows closed before
// its end closes every owner's cursor.
func TestQueryByPartitions(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{})
	c.WaitStable(1, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	byParts, err := New(ctx, Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer byParts.Close()
	one, err := New(ctx, Config{Addresses: c.Addrs(), ClusterName: "test", QueryThroughOneMember: true})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	loadKeys(t, ctx, byParts, 3000)
	deadline := time.Now().Add(time.Minute)
	for rt := byParts.routing.Load(); rt == nil || len(rt.byOwner) != 3; rt = byParts.routing.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the client never learned a table with three owners")
		}
		time.Sleep(20 * time.Millisecond)
	}
	queries := func() float64 { return memberGauge(t, ctx, c, "atoll_queries_total") }
	// ran runs q and returns how many member executions it took.
	ran := func(q func() error) float64 {
		t.Helper()
		before := queries()
		if err := q(); err != nil {
			t.Fatal(err)
		}
		return queries() - before
	}
	want := keyRange(1000, 3000)
	for _, cl := range []struct {
		name  string
		c     *Client
		execs float64
	}{{"by partitions", byParts, 3}, {"through one member", one, 1}} {
		t.Run(cl.name, func(t *testing.T) {
			for _, pageSize := range []int{7, 5000} {
				var keys []int32
				n := ran(func() (err error) {
					keys, err = sqlKeys(ctx, cl.c, `SELECT __key FROM m WHERE __key >= ?`, 1000, WithPageSize(pageSize))
					return err
				})
				if !slices.Equal(keys, want) {
					t.Fatalf("SQL, pages of %d: %d keys, want %d", pageSize, len(keys), len(want))
				}
				if n != cl.execs {
					t.Fatalf("SQL, pages of %d: %v member executions, want %v", pageSize, n, cl.execs)
				}
			}
			var entries []Entry[int32, string]
			n := ran(func() (err error) {
				entries, err = GetMap[int32, string](cl.c, "m").EntrySetWithPredicate(ctx, predicate.GreaterEqual("__key", int32(1000)))
				return err
			})
			var keys []int32
			for _, e := range entries {
				if e.Value != fmt.Sprintf("value %d", e.Key) {
					t.Fatalf("entry %d has value %q", e.Key, e.Value)
				}
				keys = append(keys, e.Key)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, want) || n != cl.execs {
				t.Fatalf("predicate: %d keys (want %d) in %v member executions (want %v)", len(keys), len(want), n, cl.execs)
			}
		})
	}
	count := func() error {
		rows, err := byParts.SQL(ctx, `SELECT COUNT(*) FROM m`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var got int64
		if !rows.Next() {
			return fmt.Errorf("no row: %v", rows.Err())
		}
		if err := rows.Scan(&got); err != nil {
			return err
		}
		if got != 3000 {
			return fmt.Errorf("COUNT(*) = %d, want 3000", got)
		}
		return nil
	}
	if n := ran(count); n != 4 {
		t.Fatalf("the first COUNT(*) took %v member executions, want 4 (three parts refused, then one whole)", n)
	}
	if n := ran(count); n != 1 {
		t.Fatalf("the second COUNT(*) took %v member executions, want 1", n)
	}
	if n := ran(func() error {
		_, err := byParts.SQL(ctx, `DELETE FROM m WHERE __key = 1`)
		return err
	}); n != 1 {
		t.Fatalf("DELETE took %v member executions, want 1", n)
	}
	if v, found, err := GetMap[int32, string](byParts, "m").Get(ctx, 1); err != nil || found {
		t.Fatalf("key 1 after DELETE: %q, %v, %v", v, found, err)
	}
	// Partitions named twice or outside the table are refused, by name.
	cn, err := byParts.anyConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := byParts.queryStreamFor(cn)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		set  []byte
		says string
	}{{partset.Append(nil, []int32{271}), "partition 271 is not one of the cluster's 0..270"},
		{append(make([]byte, 50), 1), "partition 400 is not one of"}, {make([]byte, 3), "names none"}} {
		_, err := qs.call(ctx, &pb.QueryCall{Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{
			Query: &pb.ExecuteRequest_Sql{Sql: "SELECT __key FROM m"}, Partitions: bad.set}}})
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), bad.says) {
			t.Fatalf("partitions %x: %v, want ErrInvalidArgument saying %q", bad.set, err, bad.says)
		}
	}
	// Closed after 10 rows of pages of 7: no owner keeps a cursor.
	rows, err := byParts.SQL(ctx, `SELECT __key FROM m`, WithPageSize(7))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10 && rows.Next(); i++ {
	}
	if got := memberGauge(t, ctx, c, "atoll_query_cursors"); got != 3 {
		t.Fatalf("%v cursors open while the Rows is read, want 3 (one per owner)", got)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if got := memberGauge(t, ctx, c, "atoll_query_cursors"); got != 0 {
		t.Fatalf("%v cursors open after Close", got)
	}
}

// TestQueryByPartitionsWhileAMemberJoins: queries by partitions run while
// a third member joins and partitions move to it; each returns every key
// exactly once (a part whose partitions moved fails, and the query runs
// through one member instead).
func TestQueryByPartitionsWhileAMemberJoins(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 2, testcluster.Options{})
	c.WaitStable(1, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl, err := New(ctx, Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const n = 5000
	loadKeys(t, ctx, cl, n)
	want := keyRange(0, n)
	var ok, failed atomic.Int64
	var wrong atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				keys, err := sqlKeys(ctx, cl, `SELECT __key FROM m`, WithPageSize(500))
				switch {
				case err != nil && errors.Is(err, ErrUnavailable):
					failed.Add(1) // retryable: the placement did not settle in time
				case err != nil:
					wrong.Store(err.Error())
					return
				case !slices.Equal(keys, want):
					wrong.Store(fmt.Sprintf("%d keys, want %d", len(keys), n))
					return
				default:
					ok.Add(1)
				}
			}
		}()
	}
	// Queries run before, while and after the join.
	waitQueries := func(atLeast int64) {
		deadline := time.Now().Add(time.Minute)
		for ok.Load() < atLeast && wrong.Load() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("only %d queries succeeded", ok.Load())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitQueries(5)
	c.Add()
	c.WaitStable(1, 2*time.Minute)
	waitQueries(ok.Load() + 5)
	close(stop)
	wg.Wait()
	if w := wrong.Load(); w != nil {
		t.Fatalf("a query went wrong: %v", w)
	}
	if rt := cl.routing.Load(); rt == nil || len(rt.byOwner) != 3 {
		t.Fatal("the client does not know the three owners")
	}
	t.Logf("%d queries returned every key once, %d failed retryably", ok.Load(), failed.Load())
	// The client now sends each query to all three owners.
	before := memberGauge(t, ctx, c, "atoll_queries_total")
	if _, err := sqlKeys(ctx, cl, `SELECT __key FROM m`); err != nil {
		t.Fatal(err)
	}
	if got := memberGauge(t, ctx, c, "atoll_queries_total") - before; got != 3 {
		t.Fatalf("a query after the join took %v member executions, want 3", got)
	}
}

// TestPartitionKey: what the client tries to run by partitions.
func TestPartitionKey(t *testing.T) {
	for _, c := range []struct {
		req  *pb.ExecuteRequest
		want bool
	}{
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT * FROM m"}}, true},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "  \n select a FROM m"}}, true},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "(SELECT a FROM m)"}}, true},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT * FROM m"}, Explain: true}, false},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "DELETE FROM m"}}, false},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "INSERT INTO m VALUES (1, 'a')"}}, false},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "CREATE MAPPING m TYPE IMap"}}, false},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELEC"}}, false},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: &pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_ENTRIES}}}, true},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: &pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_KEYS}}}, true},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: &pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_VALUES}}}, true},
		{&pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: &pb.PredicateQuery{Map: "m", Result: pb.PredicateResult_PREDICATE_RESULT_AGGREGATE}}}, false},
	} {
		if _, got := partitionKey(c.req); got != c.want {
			t.Errorf("%v: by partitions %v, want %v", c.req, got, c.want)
		}
	}
}

// TestGroupByOwner: each owner's set names exactly its partitions, and a
// table with a partition without owner has no groups.
func TestGroupByOwner(t *testing.T) {
	owners := make([]string, 271)
	for p := range owners {
		owners[p] = []string{"a", "b", "c"}[(p+p/7)%3]
	}
	groups := groupByOwner(owners)
	if len(groups) != 3 {
		t.Fatalf("%d groups, want 3", len(groups))
	}
	seen := 0
	for _, g := range groups {
		parts, err := partset.Parse(g.set, len(owners))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if owners[p] != g.addr {
				t.Fatalf("partition %d in %s's set, owned by %s", p, g.addr, owners[p])
			}
		}
		seen += len(parts)
	}
	if seen != len(owners) {
		t.Fatalf("%d partitions in the sets, want %d", seen, len(owners))
	}
	owners[100] = ""
	if groups := groupByOwner(owners); groups != nil {
		t.Fatalf("groups %v of a table with a partition without owner", groups)
	}
}
