package querytest

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestGRPCRemote runs a marshalled fragment on a real member through
// QueryService.RunFragment, as a coordinator does for the partitions of
// a member that refuses the fragments stream.
func TestGRPCRemote(t *testing.T) {
	cl := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	ctx := context.Background()
	c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test"})
	require.NoError(t, err)
	defer c.Close()
	m := client.GetMap[int32, int64](c, "nums")
	var batch []client.Entry[int32, int64]
	for k := int32(0); k < 1000; k++ {
		batch = append(batch, client.Entry[int32, int64]{Key: k, Value: int64(k)})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	// RunFragment is served on member connections only.
	cc, err := grpc.NewClient(cl.Addrs()[0], grpc.WithTransportCredentials(cluster.Credentials(cluster.HandshakeConfig{ClusterName: "test", PartitionCount: 271})))
	require.NoError(t, err)
	defer cc.Close()
	remote := &exec.FramedRemote{
		GRPCRemote: &exec.GRPCRemote{Conn: func(context.Context, partition.Member) (grpc.ClientConnInterface, error) { return cc, nil }},
		Dial: func(context.Context, string) (net.Conn, *frame.Reader, error) {
			return nil, nil, fmt.Errorf("%w: an older member", exec.ErrStreamRefused)
		},
	}
	f := &plan.Fragment{Map: "nums", Cols: []plan.ScanCol{{Path: "this"}}, Limit: -1,
		Aggs:   []plan.AggCall{{Func: "sum", Arg: &expr.Col{Index: 0}, T: expr.BigInt}, {Func: "count", T: expr.BigInt}},
		Out:    []plan.Column{{Type: expr.Unknown}, {Type: expr.BigInt}, {Type: expr.BigInt}},
		Filter: expr.NewCall(">=", expr.Boolean, &expr.Col{Index: 0}, &expr.Param{Index: 0, T: expr.BigInt}),
		Params: []expr.Value{expr.BigIntValue(500)}}
	b, err := plan.MarshalFragment(f)
	require.NoError(t, err)
	all := make([]int32, 271)
	for i := range all {
		all[i] = int32(i)
	}
	rs, err := remote.RunFragment(ctx, partition.Member{}, &pb.RunFragmentRequest{Fragment: b, Partitions: all})
	require.NoError(t, err)
	defer rs.Close()
	var sum, count int64
	for {
		bt, err := rs.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		rows, err := exec.DecodeRows(bt.Rows, bt.Count, 3)
		require.NoError(t, err)
		for _, r := range rows {
			if !r[0].IsNull() {
				sum += r[0].I
			}
			count += r[2].I
		}
	}
	require.Equal(t, int64(500+999)*500/2, sum)
	require.Equal(t, int64(500), count)
	// A partition out of range is refused with the member's error detail.
	rs, err = remote.RunFragment(ctx, partition.Member{}, &pb.RunFragmentRequest{Fragment: b, Partitions: []int32{999}})
	if err == nil {
		_, err = rs.Next()
	}
	st, _ := status.FromError(err)
	var detail *pb.ErrorDetail
	for _, d := range st.Details() {
		if x, ok := d.(*pb.ErrorDetail); ok {
			detail = x
		}
	}
	require.NotErrorIs(t, err, io.EOF, "out-of-range partition")
	require.NotNil(t, detail, "out-of-range partition: %v", err)
	require.Equal(t, pb.ErrorCode_ERROR_CODE_QUERY, detail.Code, "out-of-range partition: %v", err)
}

// fragmentGoroutines counts the goroutines of this process (its members
// run in it) serving a fragment for another member.
func fragmentGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "internal/server.(*fragmentStream).run(")
}

// TestFragmentsStreamFlowControl holds a query whose fragments have many
// batches to send, one page read, while other queries run on the same
// members: the held query's fragment waits for credit on the connection
// they share instead of blocking it, resumes when read, and ends on the
// other member when its cursor closes.
func TestFragmentsStreamFlowControl(t *testing.T) {
	c, ctx := start(t)
	mustExec(t, ctx, c, `CREATE MAPPING big TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	const n = 40000
	note := strings.Repeat("x", 200)
	m := client.GetMap[int32, string](c, "big")
	for lo := int32(0); lo < n; lo += 1000 {
		batch := make([]client.Entry[int32, string], 0, 1000)
		for k := lo; k < lo+1000; k++ {
			batch = append(batch, client.Entry[int32, string]{Key: k, Value: note})
		}
		require.NoError(t, m.PutAll(ctx, batch))
	}
	// Each member holds about 4 MB of rows: far more 64 KB batches than a
	// call's window.
	read := func(rows *client.Rows) int {
		got := 0
		for rows.Next() {
			got++
		}
		require.NoError(t, rows.Err())
		return got
	}
	held, err := c.SQL(ctx, `SELECT __key, this FROM big`, client.WithPageSize(10))
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		require.True(t, held.Next())
	}
	// The held fragments fill their windows and wait; 40 other queries,
	// 8 at a time, run fragments on the same connections.
	errs := make(chan error, 40)
	sem := make(chan struct{}, 8)
	for i := 0; i < 40; i++ {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			rows, err := c.SQL(ctx, `SELECT COUNT(*) FROM big`)
			if err == nil {
				var cnt int64
				if !rows.Next() {
					err = fmt.Errorf("no row: %v", rows.Err())
				} else if err = rows.Scan(&cnt); err == nil && cnt != n {
					err = fmt.Errorf("count %d, want %d", cnt, n)
				}
				rows.Close()
			}
			errs <- err
		}()
	}
	for i := 0; i < 40; i++ {
		require.NoError(t, <-errs)
	}
	require.Equal(t, n-10, read(held), "rows of the held query after the others")
	require.NoError(t, held.Close())

	// Eight readers of the whole map at once, under a query timeout: the
	// coordinator takes their batches more slowly than the members scan,
	// so fragments end with their last batch waiting for credit.
	for i := 0; i < 8; i++ {
		go func() {
			tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			rows, err := c.SQL(tctx, `SELECT __key, this FROM big`, client.WithPageSize(100))
			if err == nil {
				got := 0
				for rows.Next() {
					got++
				}
				if err = rows.Err(); err == nil && got != n {
					err = fmt.Errorf("%d rows, want %d", got, n)
				}
				rows.Close()
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		require.NoError(t, <-errs)
	}

	// A cursor closed half-way stops its fragment on the other member.
	held, err = c.SQL(ctx, `SELECT __key, this FROM big`, client.WithPageSize(10))
	require.NoError(t, err)
	require.True(t, held.Next())
	require.NoError(t, held.Close())
	deadline := time.Now().Add(time.Minute)
	for fragmentGoroutines() > 0 {
		require.True(t, time.Now().Before(deadline), "fragments still running a minute after their cursor closed")
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFragmentsStreamErrors fails a fragment on every member: the
// client gets the query error (its code and message) as it would from a
// gRPC fragment stream, and the connection serves the next query.
func TestFragmentsStreamErrors(t *testing.T) {
	c, ctx := start(t)
	mustExec(t, ctx, c, `CREATE MAPPING nums (__key INT, this BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='bigint')`)
	m := client.GetMap[int32, int64](c, "nums")
	var batch []client.Entry[int32, int64]
	for k := int32(0); k < 1000; k++ {
		batch = append(batch, client.Entry[int32, int64]{Key: k, Value: int64(k)})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	for i := 0; i < 3; i++ {
		_, err := c.SQL(ctx, `SELECT this / (this - this) FROM nums`)
		require.ErrorIs(t, err, client.ErrQuery)
		require.Contains(t, err.Error(), "division by zero")
		require.Equal(t, []string{"1000"}, queryRows(t, ctx, c, `SELECT COUNT(*) FROM nums`))
	}
}
