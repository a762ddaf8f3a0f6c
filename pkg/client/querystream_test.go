package client

import (
	"context"
	"fmt"
	"testing"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/testcluster"
)

// TestAbandonedQueryCursorIsClosed: a caller that gives up waiting for a
// query (its context ends after the call went out, while the member
// works) leaves no cursor behind: when the member's first page arrives,
// the client closes its cursor at once, instead of leaving it (and the
// memory its query holds) to the member's two-minute idle timeout. So on
// both of a query stream's transports: the connection's framed pipe, and
// the gRPC stream it falls back to when a member offers no query calls on
// its pipe.
func TestAbandonedQueryCursorIsClosed(t *testing.T) {
	for _, framed := range []bool{true, false} {
		t.Run(fmt.Sprintf("framed=%v", framed), func(t *testing.T) { testAbandonedQueryCursor(t, framed) })
	}
}

func testAbandonedQueryCursor(t *testing.T, framed bool) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := New(ctx, Config{Addresses: c.Addrs(), ClusterName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if !framed {
		cn, err := cl.anyConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cn.pipe.queries = false // as a member that offers none
	}
	if _, err := cl.SQL(ctx, `CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`); err != nil {
		t.Fatal(err)
	}
	m := GetMap[int32, string](cl, "m")
	var entries []Entry[int32, string]
	for i := range int32(2000) {
		entries = append(entries, Entry[int32, string]{Key: i, Value: fmt.Sprintf("value %d", i)})
	}
	if err := m.PutAll(ctx, entries); err != nil {
		t.Fatal(err)
	}
	member := c.Members()[0].Member()
	cn, err := cl.anyConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := cl.queryStreamFor(cn)
	if err != nil {
		t.Fatal(err)
	}
	if _, onPipe := qs.tr.(*pipeQueries); onPipe != framed {
		t.Fatalf("the query stream runs on %T", qs.tr)
	}
	// The caller has given up already: the call is sent, and its reply
	// (a first page of 10 rows, a cursor for the rest) finds nobody.
	gone, stop := context.WithCancel(ctx)
	stop()
	call := &pb.QueryCall{Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{
		Query: &pb.ExecuteRequest_Sql{Sql: "SELECT this FROM m ORDER BY this"}, PageSize: 10, TimeoutMs: 60000}}}
	if _, err := qs.call(gone, call); err != context.Canceled {
		// The reply won the race with the cancellation: nothing to test.
		t.Skipf("the reply came first: %v", err)
	}
	waitForCursors := func(want int) {
		deadline := time.Now().Add(20 * time.Second)
		for member.QueryCursors() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d cursors open on the member, want %d", member.QueryCursors(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// The member's reply arrives (the stream forgets the call), and the
	// cursor it names closes.
	deadline := time.Now().Add(30 * time.Second)
	for {
		qs.mu.Lock()
		waiting := len(qs.abandoned)
		qs.mu.Unlock()
		if waiting == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the abandoned call's reply never came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitForCursors(0)
	// A cursor the caller holds stays open: only abandoned ones close.
	rows, err := cl.SQL(ctx, "SELECT this FROM m ORDER BY this", WithPageSize(10))
	if err != nil {
		t.Fatal(err)
	}
	waitForCursors(1)
	rows.Close()
	waitForCursors(0)
}
