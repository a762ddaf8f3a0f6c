package querytest

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// TestGRPCRemote runs a marshalled fragment on a real member through
// QueryService.RunFragment, as a coordinator does for the partitions of
// another member.
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
	cc, err := grpc.NewClient(cl.Addrs()[0], grpc.WithTransportCredentials(cluster.Credentials("test", 271)))
	require.NoError(t, err)
	defer cc.Close()
	remote := &exec.GRPCRemote{Conn: func(context.Context, partition.Member) (grpc.ClientConnInterface, error) { return cc, nil }}
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
