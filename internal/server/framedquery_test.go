package server_test

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/partset"
	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/internal/testcluster"
)

// TestFramedQueryCalls: a framed pipeline's welcome offers query calls,
// which run beside its map calls. A statement answers with its rows and a
// cursor the next call fetches from; a query call over
// limits.max-message-size fails alone with TOO_LARGE naming the limit,
// one that cannot be decoded with an error naming the call; the
// connection serves the calls after them.
func TestFramedQueryCalls(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(c *member.Config) {
		c.Limits.MaxMessageSize = 256 << 10
	}})
	nc, rd := dialFramed(t, cluster.Addrs()[0])
	sql := func(id uint64, stmt string, pageSize int32) []byte {
		return sqlCall(t, id, stmt, pageSize, nil)
	}
	call := func(id uint64, stmt string) *pb.QueryReply {
		return runSQL(t, nc, rd, id, stmt)
	}
	call(1, `CREATE MAPPING q (__key INT, this VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	call(2, `INSERT INTO q VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')`)

	var out []byte
	out = append(out, sql(7, "SELECT '"+strings.Repeat("y", 300<<10)+"'", 0)...)
	out = append(out, frame.Append(nil, frame.KindQuery, []byte{8, 9, 0x12, 0xff, 0xff})...) // id 9, then a broken field
	out = append(out, sql(8, "SELECT __key FROM q", 2)...)
	_, err := nc.Write(out)
	require.NoError(t, err)
	replies := map[uint64]*pb.QueryReply{}
	for len(replies) < 3 {
		f, err := rd.Next()
		require.NoError(t, err, "the connection ended")
		require.Equal(t, frame.KindQuery, f.Kind)
		r := &pb.QueryReply{}
		require.NoError(t, proto.Unmarshal(f.Payload, r))
		replies[r.CallId] = r
		rd.Release()
	}
	require.NotNil(t, replies[7].Error, "the oversized call")
	assert.Equal(t, pb.ErrorCode_ERROR_CODE_TOO_LARGE, replies[7].Error.GetDetail().GetCode())
	assert.Contains(t, replies[7].Error.Message, "limits.max-message-size")
	require.NotNil(t, replies[9].Error, "the call that cannot be decoded")
	assert.Equal(t, codes.InvalidArgument, codes.Code(replies[9].Error.GrpcCode))
	assert.Contains(t, replies[9].Error.Message, "could not be decoded")
	require.Nil(t, replies[8].Error, "the statement beside them")
	assert.Equal(t, int32(2), replies[8].Result.GetPage().GetCount())
	cursor := replies[8].Result.CursorId
	require.NotZero(t, cursor, "a cursor for the rows after the first page")

	b, err := proto.Marshal(&pb.QueryCall{CallId: 10, Op: &pb.QueryCall_Fetch{Fetch: &pb.FetchRequest{CursorId: cursor}}})
	require.NoError(t, err)
	_, err = nc.Write(frame.Append(nil, frame.KindQuery, b))
	require.NoError(t, err)
	f, err := rd.Next()
	require.NoError(t, err)
	r := &pb.QueryReply{}
	require.NoError(t, proto.Unmarshal(f.Payload, r))
	require.Equal(t, uint64(10), r.CallId)
	require.Nil(t, r.Error)
	assert.Equal(t, int32(2), r.Result.GetPage().GetCount(), "the second page")
}

// TestFramedQueryPagesOfManyBatches: a page gathered from many batches of
// rows (the member sends their pieces without joining them) answers every
// row once, whole, on the first page and on the pages fetched after it.
func TestFramedQueryPagesOfManyBatches(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	nc, rd := dialFramed(t, cluster.Addrs()[0])
	runSQL(t, nc, rd, 1, `CREATE MAPPING q (__key INT, this VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	const n = 3000
	value := func(k int) string { return fmt.Sprintf("%05d-%s", k, strings.Repeat("v", 120)) }
	id := uint64(1)
	for from := 0; from < n; from += 500 {
		tuples := make([]string, 0, 500)
		for k := from; k < from+500; k++ {
			tuples = append(tuples, fmt.Sprintf("(%d, '%s')", k, value(k)))
		}
		id++
		runSQL(t, nc, rd, id, "INSERT INTO q VALUES "+strings.Join(tuples, ", "))
	}
	for _, pageSize := range []int32{0, 1100} {
		seen := make([]bool, n)
		reply := func(r *pb.QueryReply) uint64 {
			require.Nil(t, r.Error)
			page := r.Result.GetPage()
			rows, err := exec.DecodeRows(page.GetRows(), int(page.GetCount()), 2)
			require.NoError(t, err)
			for _, row := range rows {
				k := int(row[0].I)
				require.False(t, seen[k], "key %d twice", k)
				seen[k] = true
				require.Equal(t, value(k), string(row[1].B), "the value of key %d", k)
			}
			return r.Result.GetCursorId()
		}
		id++
		_, err := nc.Write(sqlCall(t, id, `SELECT __key, this FROM q`, pageSize, nil))
		require.NoError(t, err)
		cursor := reply(nextQueryReply(t, rd))
		for cursor != 0 {
			id++
			b, err := proto.Marshal(&pb.QueryCall{CallId: id, Op: &pb.QueryCall_Fetch{Fetch: &pb.FetchRequest{CursorId: cursor}}})
			require.NoError(t, err)
			_, err = nc.Write(frame.Append(nil, frame.KindQuery, b))
			require.NoError(t, err)
			cursor = reply(nextQueryReply(t, rd))
		}
		for k, ok := range seen {
			require.True(t, ok, "key %d missing with page size %d", k, pageSize)
		}
	}
}

// nextQueryReply reads the next frame, which must be a query reply.
func nextQueryReply(t *testing.T, rd *frame.Reader) *pb.QueryReply {
	t.Helper()
	f, err := rd.Next()
	require.NoError(t, err)
	require.Equal(t, frame.KindQuery, f.Kind)
	r := &pb.QueryReply{}
	require.NoError(t, proto.Unmarshal(f.Payload, r))
	rd.Release()
	return r
}

// TestFramedIndexLookupsRunOnReader: the part of a query a client sends
// to an owner that is a lookup in an index runs where the connection's
// frames are read, once its plan is cached, so its reply leaves before
// the answer to a ping read after it. A query by partitions that scans
// runs as before. Both answer their rows.
func TestFramedIndexLookupsRunOnReader(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	nc, rd := dialFramed(t, cluster.Addrs()[0])
	runSQL(t, nc, rd, 1, `CREATE MAPPING q (__key INT, this VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	runSQL(t, nc, rd, 2, `INSERT INTO q VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')`)
	runSQL(t, nc, rd, 3, `CREATE INDEX qi ON q (this) TYPE SORTED`)
	all := make([]int32, store.DefaultPartitionCount)
	for i := range all {
		all[i] = int32(i)
	}
	parts := partset.Append(nil, all)

	// kinds returns the kinds of the next n frames, and the query replies
	// among them.
	kinds := func(n int) ([]byte, []*pb.QueryReply) {
		var got []byte
		var replies []*pb.QueryReply
		for range n {
			f, err := rd.Next()
			require.NoError(t, err)
			got = append(got, f.Kind)
			if f.Kind == frame.KindQuery {
				r := &pb.QueryReply{}
				require.NoError(t, proto.Unmarshal(f.Payload, r))
				require.Nil(t, r.Error)
				replies = append(replies, r)
			}
			rd.Release()
		}
		return got, replies
	}
	// lookup sends a lookup and a ping in one write and returns the kinds
	// of the two frames that answer them.
	id := uint64(10)
	lookup := func() []byte {
		id++
		out := sqlCall(t, id, `SELECT __key FROM q WHERE this = 'c'`, 0, parts)
		out = frame.Append(out, frame.KindPing, []byte("after"))
		_, err := nc.Write(out)
		require.NoError(t, err)
		got, replies := kinds(2)
		require.Len(t, replies, 1)
		assert.Equal(t, int32(1), replies[0].Result.GetPage().GetCount())
		cols := replies[0].Result.GetColumns()
		require.Len(t, cols, 1, "the reply's columns")
		assert.Equal(t, "__key", cols[0].GetName())
		return got
	}
	// The reader plans nothing: the first lookup is planned where calls
	// run, and the plan cache shows a plan shortly after it is put.
	deadline := time.Now().Add(30 * time.Second)
	for lookup()[0] != frame.KindQuery {
		require.True(t, time.Now().Before(deadline), "no lookup ran on the reader")
	}
	for range 20 {
		require.Equal(t, []byte{frame.KindQuery, frame.KindPong}, lookup(), "the lookup's reply leaves before the pong")
	}

	// A part of a query whose caller has the columns from another part
	// is answered without them, with the same rows.
	b, err := proto.Marshal(&pb.QueryCall{CallId: 30, Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{
		Query: &pb.ExecuteRequest_Sql{Sql: `SELECT __key FROM q WHERE this = 'c'`}, Partitions: parts, OmitColumns: true}}})
	require.NoError(t, err)
	_, err = nc.Write(frame.Append(nil, frame.KindQuery, b))
	require.NoError(t, err)
	_, replies := kinds(1)
	require.Len(t, replies, 1)
	assert.Empty(t, replies[0].Result.GetColumns(), "columns the call left out")
	assert.Equal(t, int32(1), replies[0].Result.GetPage().GetCount())

	// A scan by partitions runs on a goroutine of its own, its reply
	// before or after the pong.
	out := sqlCall(t, 40, `SELECT __key FROM q WHERE this LIKE 'c%'`, 0, parts)
	out = frame.Append(out, frame.KindPing, []byte("after"))
	_, err = nc.Write(out)
	require.NoError(t, err)
	got, replies := kinds(2)
	assert.ElementsMatch(t, []byte{frame.KindPong, frame.KindQuery}, got)
	assert.Equal(t, int32(1), replies[0].Result.GetPage().GetCount())
}

// dialFramed opens a framed pipeline to a member and reads its welcome,
// which must offer query calls.
func dialFramed(t *testing.T, addr string) (net.Conn, *frame.Reader) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(time.Minute)))
	hello, err := proto.Marshal(&pb.PipelineHello{ClusterName: "test", ClientUuid: make([]byte, 16)})
	require.NoError(t, err)
	_, err = nc.Write(frame.Append(append([]byte(nil), frame.Preamble...), frame.KindHello, hello))
	require.NoError(t, err)
	rd := frame.NewReader(nc, 64<<10, 1<<20, 1<<20)
	f, err := rd.Next()
	require.NoError(t, err)
	welcome := &pb.PipelineWelcome{}
	require.Equal(t, frame.KindHello, f.Kind)
	require.NoError(t, proto.Unmarshal(f.Payload, welcome))
	require.Nil(t, welcome.Error)
	require.True(t, welcome.Queries, "the welcome offers query calls")
	rd.Release()
	return nc, rd
}

// sqlCall returns the frame of a query call running stmt, over parts when
// given (a partition set).
func sqlCall(t *testing.T, id uint64, stmt string, pageSize int32, parts []byte) []byte {
	b, err := proto.Marshal(&pb.QueryCall{CallId: id, Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{
		Query: &pb.ExecuteRequest_Sql{Sql: stmt}, PageSize: pageSize, Partitions: parts}}})
	require.NoError(t, err)
	return frame.Append(nil, frame.KindQuery, b)
}

// runSQL runs stmt as call id and returns its reply, which must not be
// an error.
func runSQL(t *testing.T, nc net.Conn, rd *frame.Reader, id uint64, stmt string) *pb.QueryReply {
	t.Helper()
	_, err := nc.Write(sqlCall(t, id, stmt, 0, nil))
	require.NoError(t, err)
	f, err := rd.Next()
	require.NoError(t, err)
	r := &pb.QueryReply{}
	require.Equal(t, frame.KindQuery, f.Kind)
	require.NoError(t, proto.Unmarshal(f.Payload, r))
	rd.Release()
	require.Equal(t, id, r.CallId)
	require.Nil(t, r.Error, "%s", stmt)
	return r
}

// TestFramedIndexLookupsLabelledWhileProfiled: an index lookup run on the
// connection's reader carries its query's labels while a CPU profile is
// taken through the admin endpoint (profiling.CPUProfiling), so that the
// profile can be cut to it by kind.
func TestFramedIndexLookupsLabelledWhileProfiled(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	nc, rd := dialFramed(t, cluster.Addrs()[0])
	runSQL(t, nc, rd, 1, `CREATE MAPPING q (__key INT, this VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	runSQL(t, nc, rd, 2, `INSERT INTO q VALUES (1, 'a'), (2, 'b'), (3, 'c')`)
	runSQL(t, nc, rd, 3, `CREATE INDEX qi ON q (this) TYPE SORTED`)
	all := make([]int32, store.DefaultPartitionCount)
	for i := range all {
		all[i] = int32(i)
	}
	parts := partset.Append(nil, all)
	id := uint64(10)
	lookup := func() {
		id++
		_, err := nc.Write(sqlCall(t, id, `SELECT __key FROM q WHERE this = 'c'`, 0, parts))
		require.NoError(t, err)
		f, err := rd.Next()
		require.NoError(t, err)
		r := &pb.QueryReply{}
		require.NoError(t, proto.Unmarshal(f.Payload, r))
		rd.Release()
		require.Nil(t, r.Error)
		require.Equal(t, int32(1), r.Result.GetPage().GetCount())
	}
	require.False(t, profiling.CPUProfiling())
	// capture runs lookups while a CPU profile is taken and reports
	// whether a sample of one on the reader carries the kind label.
	capture := func() bool {
		type result struct {
			p   *profile.Profile
			err error
		}
		done := make(chan result, 1)
		go func() {
			resp, err := http.Get("http://" + cluster.Members()[0].AdminAddr + "/debug/pprof/profile?seconds=2")
			if err != nil {
				done <- result{err: err}
				return
			}
			defer resp.Body.Close()
			p, err := profile.Parse(resp.Body)
			done <- result{p, err}
		}()
		deadline := time.Now().Add(time.Minute)
		for !profiling.CPUProfiling() {
			require.True(t, time.Now().Before(deadline), "no CPU profile started")
			time.Sleep(time.Millisecond)
		}
		for {
			select {
			case r := <-done:
				require.NoError(t, r.err)
				for _, s := range r.p.Sample {
					if !slices.Contains(s.Label[profiling.LabelKind], "sql") {
						continue
					}
					for _, loc := range s.Location {
						for _, l := range loc.Line {
							if strings.Contains(l.Function.Name, "(*query).lookupInline") {
								return true
							}
						}
					}
				}
				return false
			default:
				lookup()
			}
		}
	}
	// A loaded machine may give the member too few samples in a capture.
	labelled := false
	for range 5 {
		if labelled = capture(); labelled {
			break
		}
	}
	assert.True(t, labelled, "no sample of an inline lookup labelled kind=sql")
	deadline := time.Now().Add(time.Minute)
	for profiling.CPUProfiling() {
		require.True(t, time.Now().Before(deadline), "the profile still counted after it was served")
		time.Sleep(time.Millisecond)
	}
}
