package server

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
)

// A reply whose page's rows are in parts is encoded as the same message
// with the parts joined, whatever else it carries, and leaves the message
// as it found it.
func TestQueryReplyAppendsRowParts(t *testing.T) {
	parts := [][]byte{bytes.Repeat([]byte{1}, 300), {}, bytes.Repeat([]byte{2}, 70000), []byte("tail")}
	joined := bytes.Join(parts, nil)
	for _, tc := range []struct {
		name string
		resp *pb.ExecuteResponse
	}{
		{"first page", &pb.ExecuteResponse{Columns: []*pb.Column{{Name: "__key", Type: pb.SqlType_SQL_TYPE_INTEGER, Nullable: true}}, CursorId: 9, UpdateCount: -1}},
		{"last page", &pb.ExecuteResponse{UpdateCount: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.resp.Page = &pb.RowBatch{Count: 1234}
			msg := &pb.QueryReply{CallId: 1 << 40, Result: tc.resp}
			r := queryReply{msg: msg, rows: &exec.Result{Parts: parts, Count: 1234}}
			prefix := []byte("frame header")
			b, err := r.appendTo(append([]byte(nil), prefix...))
			require.NoError(t, err)
			require.Equal(t, prefix, b[:len(prefix)], "appended after what b held")

			got := &pb.QueryReply{}
			require.NoError(t, proto.Unmarshal(b[len(prefix):], got))
			want := proto.Clone(msg).(*pb.QueryReply)
			want.Result.Page.Rows = joined
			require.True(t, proto.Equal(want, got), "got %v", got)
			require.Nil(t, msg.Result.Page.Rows, "the message keeps its page as it was")
			require.Equal(t, int32(1234), msg.Result.Page.Count)
		})
	}
}
