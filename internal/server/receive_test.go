package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
)

// TestOversizedPipelineCallFailsAlone: a call over limits.max-message-size
// on a pipeline stream (map calls, or queries) fails alone with TOO_LARGE
// naming the limit; the calls before and after it on the same stream are
// answered, and the stream stays open.
func TestOversizedPipelineCallFailsAlone(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(c *member.Config) {
		c.Limits.MaxMessageSize = 256 << 10
	}})
	cc := dialRaw(t, cluster.Addrs()[0])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	stream, err := pb.NewPipelineServiceClient(cc).Pipeline(ctx)
	require.NoError(t, err)
	key, value := data(t, "k"), data(t, "v")
	big := data(t, strings.Repeat("x", 400<<10))
	for id, req := range map[uint64]*pb.PipelineRequest{
		1: {Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: "p", Key: key, Value: value}}},
		2: {Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: "p", Key: data(t, "big"), Value: big}}},
	} {
		req.CallId = id
		require.NoError(t, stream.Send(req))
	}
	got := map[uint64]*pb.PipelineResponse{}
	for len(got) < 2 {
		resp, err := stream.Recv()
		require.NoError(t, err, "the stream ended after an oversized call")
		got[resp.CallId] = resp
	}
	assert.Nil(t, got[1].Error, "the call beside the oversized one")
	require.NotNil(t, got[2].Error, "the oversized call")
	assert.Equal(t, pb.ErrorCode_ERROR_CODE_TOO_LARGE, got[2].Error.GetDetail().GetCode())
	assert.Contains(t, got[2].Error.Message, "limits.max-message-size")
	// The same stream serves the next call.
	require.NoError(t, stream.Send(&pb.PipelineRequest{CallId: 3, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "p", Key: key}}}))
	resp, err := stream.Recv()
	require.NoError(t, err)
	assert.Equal(t, uint64(3), resp.CallId)
	assert.True(t, resp.GetValue().GetFound())

	qs, err := pb.NewQueryServiceClient(cc).Pipeline(ctx)
	require.NoError(t, err)
	require.NoError(t, qs.Send(&pb.QueryCall{CallId: 7, Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT '" + strings.Repeat("y", 300<<10) + "'"}}}}))
	require.NoError(t, qs.Send(&pb.QueryCall{CallId: 8, Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT 1"}}}}))
	replies := map[uint64]*pb.QueryReply{}
	for len(replies) < 2 {
		r, err := qs.Recv()
		require.NoError(t, err, "the query stream ended after an oversized call")
		replies[r.CallId] = r
	}
	assert.Equal(t, pb.ErrorCode_ERROR_CODE_TOO_LARGE, replies[7].Error.GetDetail().GetCode())
	assert.Nil(t, replies[8].Error)
}
