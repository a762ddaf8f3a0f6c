package member_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestCursorsBelongToTheirClient: a client that opens cursors over a sorted
// result and goes away without closing them (its query stream, or its
// connection for cursors opened outside a stream) has them released within
// a second, and the memory they pinned with them; caps on cursors per
// client and per member refuse more with LIMIT_EXCEEDED naming the limit;
// the idle timeout is configurable; nobody else can fetch a cursor.
func TestCursorsBelongToTheirClient(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(cfg *member.Config) {
		cfg.Query.MaxCursorsPerClient = 20
		cfg.Query.MaxCursors = 30
		cfg.Query.CursorIdleTimeout = member.Duration(10 * time.Minute) // no cursor times out while the test runs
	}})
	m := c.Members()[0].Member()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	big := client.GetMap[int32, string](cl, "big")
	batch := make([]client.Entry[int32, string], 0, 1000)
	pad := strings.Repeat("x", 200)
	for k := int32(0); k < 20_000; k++ {
		batch = append(batch, client.Entry[int32, string]{Key: k, Value: pad})
		if len(batch) == cap(batch) {
			if err := big.PutAll(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	rows, err := cl.SQL(ctx, "CREATE MAPPING big TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	const sorted = "SELECT __key, this FROM big ORDER BY this, __key"
	heap0 := member.HeapAfterGC().HeapAllocBytes

	// A stranger opens cursors outside a stream, over its connection.
	conn := dialWith(t, c.Addrs()[0], insecure.NewCredentials())
	qs := pb.NewQueryServiceClient(conn)
	execute := func(qs pb.QueryServiceClient) (uint64, error) {
		resp, err := qs.Execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: sorted}, PageSize: 1})
		if err != nil {
			return 0, err
		}
		return resp.CursorId, nil
	}
	var ids []uint64
	for i := 0; i < 20; i++ {
		id, err := execute(qs)
		if err != nil || id == 0 {
			t.Fatalf("cursor %d: %d, %v", i, id, err)
		}
		ids = append(ids, id)
	}
	// The 21st is over the client's limit.
	_, err = execute(qs)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "query.max-cursors-per-client") {
		t.Fatalf("a 21st cursor of one client: %v", err)
	}
	// Another client may not read them.
	other := pb.NewQueryServiceClient(dialWith(t, c.Addrs()[0], insecure.NewCredentials()))
	if _, err := other.Fetch(ctx, &pb.FetchRequest{CursorId: ids[0]}); status.Code(err) != codes.NotFound {
		t.Fatalf("fetching another client's cursor: %v", err)
	}
	// The member's limit: 30 in all.
	for i := 0; i < 10; i++ {
		if _, err := execute(other); err != nil {
			t.Fatalf("cursor %d of the second client: %v", i, err)
		}
	}
	if _, err := execute(other); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "query.max-cursors") {
		t.Fatalf("a cursor over the member's limit: %v", err)
	}
	if n := m.QueryCursors(); n != 30 {
		t.Fatalf("%d cursors open, want 30", n)
	}
	heap1 := member.HeapAfterGC().HeapAllocBytes

	// The first client goes away without closing its cursors.
	_ = conn.Close()
	start := time.Now()
	for m.QueryCursors() != 10 {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d cursors still open 10s after their client left", m.QueryCursors())
		}
		time.Sleep(5 * time.Millisecond)
	}
	released := time.Since(start)

	// A client's query stream holds its cursors too: the Go client's rows,
	// left unclosed, go when the client closes.
	cl2, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		r, err := cl2.SQL(ctx, sorted, client.WithPageSize(1))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal("no first row")
		}
	}
	if n := m.QueryCursors(); n != 15 {
		t.Fatalf("%d cursors open, want 15", n)
	}
	_ = cl2.Close()
	start = time.Now()
	for m.QueryCursors() != 10 {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d cursors still open 10s after the Go client closed", m.QueryCursors())
		}
		time.Sleep(5 * time.Millisecond)
	}
	releasedStream := time.Since(start)
	heap2 := member.HeapAfterGC().HeapAllocBytes
	t.Logf("heap %d MiB before the cursors, %d MiB with 30 open, %d MiB with 10; released %v after the connection closed, %v after the stream",
		heap0>>20, heap1>>20, heap2>>20, released, releasedStream)
	if released > time.Second || releasedStream > time.Second {
		t.Fatalf("the cursors of a client that left were released after %v (connection) and %v (stream), want within a second", released, releasedStream)
	}
	if per := (int64(heap1) - int64(heap0)) / 30; int64(heap2) > int64(heap0)+10*per+per {
		t.Fatalf("the memory of released cursors was kept: heap %d with 30 cursors, %d with 10, %d before", heap1, heap2, heap0)
	}

	// The rows a sort materialises count against the query's memory
	// limit: 20 000 rows of 200 bytes do not fit in 1 MB.
	err = func() error {
		r, err := cl.SQL(ctx, "SELECT /*+ MEMORY_LIMIT(1000000) */ __key, this FROM big ORDER BY this, __key", client.WithPageSize(1))
		if err != nil {
			return err
		}
		for r.Next() {
		}
		return errors.Join(r.Err(), r.Close())
	}()
	if err == nil || !strings.Contains(err.Error(), "memory limit of 1000000 bytes exceeded") {
		t.Fatalf("a sort over the query's memory limit: %v", err)
	}
}

// TestCursorIdleTimeout: the idle timeout is configurable.
func TestCursorIdleTimeout(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(cfg *member.Config) {
		cfg.Query.CursorIdleTimeout = member.Duration(300 * time.Millisecond)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	m := client.GetMap[int32, int32](cl, "nums")
	for k := int32(0); k < 10; k++ {
		if err := m.Set(ctx, k, k); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := cl.SQL(ctx, "CREATE MAPPING nums TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='int')")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	rows, err = cl.SQL(ctx, "SELECT __key FROM nums ORDER BY __key", client.WithPageSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	mem := c.Members()[0].Member()
	if mem.QueryCursors() != 1 {
		t.Fatalf("%d cursors open, want 1", mem.QueryCursors())
	}
	deadline := time.Now().Add(30 * time.Second)
	for mem.QueryCursors() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("an idle cursor is still open 30s after a 300ms idle timeout")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
