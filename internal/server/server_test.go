package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/serialization"
)

func dialRaw(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func data(t *testing.T, v any) []byte {
	t.Helper()
	svc, _ := serialization.NewService(serialization.Config{})
	d, err := svc.ToData(v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// wantError checks the gRPC code and the machine-readable detail.
func wantError(t *testing.T, what string, err error, code codes.Code, ec pb.ErrorCode) *pb.ErrorDetail {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || st.Code() != code {
		t.Fatalf("%s: got %v, want code %v", what, err, code)
	}
	for _, d := range st.Details() {
		if detail, ok := d.(*pb.ErrorDetail); ok {
			if detail.Code != ec {
				t.Fatalf("%s: detail code %v, want %v (%s)", what, detail.Code, ec, st.Message())
			}
			return detail
		}
	}
	if ec != pb.ErrorCode_ERROR_CODE_UNSPECIFIED {
		t.Fatalf("%s: no ErrorDetail in %v", what, err)
	}
	return nil
}

func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(c *member.Config) {
		c.Limits.MaxMessageSize = 256 << 10
		c.Limits.MaxValueSize = 128 << 10
	}})
	maps := pb.NewMapServiceClient(dialRaw(t, cluster.Addrs()[0]))
	ctx := context.Background()
	key := data(t, "k")
	good := data(t, "v")
	cases := []struct {
		name string
		req  *pb.PutRequest
		code codes.Code
		ec   pb.ErrorCode
	}{
		{"no key", &pb.PutRequest{Map: "m", Value: good}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA},
		{"short key", &pb.PutRequest{Map: "m", Key: []byte{1, 2, 3}, Value: good}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA},
		{"no value", &pb.PutRequest{Map: "m", Key: key}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA},
		{"truncated string value", &pb.PutRequest{Map: "m", Key: key, Value: good[:len(good)-1]}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA},
		{"unknown type id", &pb.PutRequest{Map: "m", Key: key, Value: []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0x9c, 1}}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA},
		{"unknown schema", &pb.PutRequest{Map: "m", Key: key, Value: []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xc9, 1, 2, 3, 4, 5, 6, 7, 8}}, codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_UNKNOWN_SCHEMA},
		{"empty map name", &pb.PutRequest{Map: "", Key: key, Value: good}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT},
		{"negative ttl", &pb.PutRequest{Map: "m", Key: key, Value: good, TtlMs: ptr(int64(-5))}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT},
		{"value over the member's limit", &pb.PutRequest{Map: "m", Key: key, Value: data(t, strings.Repeat("x", 200<<10))}, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE},
	}
	for _, c := range cases {
		_, err := maps.Put(ctx, c.req)
		detail := wantError(t, c.name, err, c.code, c.ec)
		if c.ec == pb.ErrorCode_ERROR_CODE_UNKNOWN_SCHEMA && detail.SchemaId != 0x0102030405060708 {
			t.Fatalf("unknown schema id %x not reported", detail.SchemaId)
		}
	}
	// A message over limits.max-message-size fails its call with
	// TOO_LARGE; one over the receive limit (twice as much) is refused by
	// gRPC itself.
	_, err := maps.Put(ctx, &pb.PutRequest{Map: "m", Key: key, Value: data(t, strings.Repeat("x", 300<<10))})
	if wantError(t, "message over the limit", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE); !strings.Contains(status.Convert(err).Message(), "limits.max-message-size") {
		t.Fatalf("the error does not name the limit: %v", err)
	}
	_, err = maps.Put(ctx, &pb.PutRequest{Map: "m", Key: key, Value: data(t, strings.Repeat("x", 600<<10))})
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("message over the receive limit: %v", err)
	}
	size, err := maps.Size(ctx, &pb.MapRequest{Map: "m"})
	if err != nil || size.Size != 0 {
		t.Fatalf("bad input changed the map: size %v, %v", size, err)
	}
	// A bad entry in a batch changes nothing either.
	_, err = maps.PutAll(ctx, &pb.PutAllRequest{Map: "m", Entries: []*pb.Entry{{Key: key, Value: good}, {Key: key, Value: []byte{9}}}})
	wantError(t, "batch with a bad entry", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA)
	if size, _ := maps.Size(ctx, &pb.MapRequest{Map: "m"}); size.Size != 0 {
		t.Fatal("a rejected batch stored entries")
	}
	// Registering a forged schema (its id does not match its fields) fails.
	meta := pb.NewMetadataServiceClient(dialRaw(t, cluster.Addrs()[0]))
	_, err = meta.PutSchemas(ctx, &pb.PutSchemasRequest{Schemas: []*pb.Schema{{Id: 42, TypeName: "t", Fields: []*pb.SchemaField{{Name: "a", Kind: 9}}}}})
	wantError(t, "forged schema", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT)
}

func ptr[T any](v T) *T { return &v }

func TestPipelineReportsErrorsPerCall(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	stream, err := pb.NewPipelineServiceClient(dialRaw(t, cluster.Addrs()[0])).Pipeline(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key, value := data(t, "k"), data(t, "v")
	reqs := []*pb.PipelineRequest{
		{CallId: 1, Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: "p", Key: key, Value: value}}},
		{CallId: 2},
		{CallId: 3, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "p", Key: []byte{1}}}},
		{CallId: 4, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "p", Key: key}}},
	}
	for _, r := range reqs {
		if err := stream.Send(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	got := map[uint64]*pb.PipelineResponse{}
	for {
		resp, err := stream.Recv()
		if err != nil {
			break
		}
		got[resp.CallId] = resp
	}
	if len(got) != 4 {
		t.Fatalf("got %d responses, want 4", len(got))
	}
	if got[1].Error != nil || got[1].GetEmpty() == nil {
		t.Fatalf("set: %v", got[1])
	}
	if got[2].Error.GetDetail().GetCode() != pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT {
		t.Fatalf("empty request: %v", got[2])
	}
	if got[3].Error.GetDetail().GetCode() != pb.ErrorCode_ERROR_CODE_INVALID_DATA {
		t.Fatalf("bad key: %v", got[3])
	}
	// Call 4 may run before or after call 1: both answers are valid.
	if got[4].Error != nil {
		t.Fatalf("get: %v", got[4])
	}
}

func TestClusterNameMismatch(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{ClusterName: "blue"})
	cs := pb.NewClusterServiceClient(dialRaw(t, cluster.Addrs()[0]))
	_, err := cs.Connect(context.Background(), &pb.ConnectRequest{ClusterName: "green"})
	wantError(t, "wrong cluster", err, codes.PermissionDenied, pb.ErrorCode_ERROR_CODE_CLUSTER_NAME_MISMATCH)
	resp, err := cs.Connect(context.Background(), &pb.ConnectRequest{ClusterName: "blue"})
	if err != nil || resp.PartitionCount != 271 || len(resp.PartitionTable.Owners) != 271 {
		t.Fatalf("connect: %v, %v", resp, err)
	}
}

// A client that goes away in the middle of streams must not leave
// goroutines behind on the member.
func TestDisconnectMidStreamLeaksNoGoroutine(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	addr := cluster.Addrs()[0]
	// Warm up: the first map creates nothing per-connection that lingers.
	{
		cc := dialRaw(t, addr)
		_, _ = pb.NewMapServiceClient(cc).Set(context.Background(), &pb.SetRequest{Map: "leak", Key: data(t, 1), Value: data(t, 2)})
		_ = cc.Close()
	}
	baseline := goleak.IgnoreCurrent()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	maps := pb.NewMapServiceClient(cc)
	for i := int32(0); i < 3000; i++ {
		_, _ = maps.Set(ctx, &pb.SetRequest{Map: "leak", Key: data(t, i), Value: data(t, i)})
	}
	// A listener, an iteration that is never drained, and a pipeline with
	// calls in flight, all cut off by closing the connection.
	listen, err := maps.Listen(ctx, &pb.ListenRequest{Map: "leak", IncludeValues: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := listen.Recv(); err != nil {
		t.Fatal(err)
	}
	iter, err := maps.Iterate(ctx, &pb.IterateRequest{Map: "leak", Kind: pb.IterationKind_ITERATION_KIND_ENTRIES, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iter.Recv(); err != nil {
		t.Fatal(err)
	}
	pipe, err := pb.NewPipelineServiceClient(cc).Pipeline(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		_ = pipe.Send(&pb.PipelineRequest{CallId: uint64(i), Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "leak", Key: data(t, int32(i))}}})
	}
	for i := int32(0); i < 50; i++ { // events queued for the listener
		_, _ = maps.Set(ctx, &pb.SetRequest{Map: "leak", Key: data(t, i), Value: data(t, -i)})
	}
	_ = cc.Close()
	// Wait (generously) for the member to notice and clean up.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := goleak.Find(baseline)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
}

// TestRequestLimits: repeated-field requests over the documented limits
// are refused before any work, and an answer stops growing at the largest
// message the member sends.
func TestRequestLimits(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(c *member.Config) {
		c.Limits.MaxBatchEntries = 1000
		c.Limits.MaxMessageSize = 1 << 20
	}})
	cc := dialRaw(t, cluster.Addrs()[0])
	maps := pb.NewMapServiceClient(cc)
	ctx := context.Background()
	// 100 entries of 20 KiB: 2 MB in all, more than one answer may hold.
	var entries []*pb.Entry
	var keys [][]byte
	for i := int32(0); i < 100; i++ {
		k := data(t, i)
		keys = append(keys, k)
		entries = append(entries, &pb.Entry{Key: k, Value: data(t, strings.Repeat("v", 20<<10))})
	}
	for i := 0; i < len(entries); i += 10 {
		if _, err := maps.PutAll(ctx, &pb.PutAllRequest{Map: "big", Entries: entries[i : i+10]}); err != nil {
			t.Fatal(err)
		}
	}
	stats := func() *pb.MapStats {
		st, err := maps.GetMapStats(ctx, &pb.MapRequest{Map: "big"})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := stats()

	// Over the count limit: refused before any lookup (no get counted, no hit).
	many := make([][]byte, 1001)
	for i := range many {
		many[i] = keys[i%len(keys)]
	}
	_, err := maps.GetAll(ctx, &pb.GetAllRequest{Map: "big", Keys: many})
	if d := wantError(t, "GetAll over limits.max-batch-entries", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE); d.Limit != 1000 ||
		!strings.Contains(status.Convert(err).Message(), "limits.max-batch-entries") {
		t.Fatalf("the refusal does not name the limit: %v (limit %d)", err, d.Limit)
	}
	if after := stats(); after.GetCount != before.GetCount || after.Hits != before.Hits {
		t.Fatalf("a refused GetAll looked keys up: gets %d -> %d, hits %d -> %d", before.GetCount, after.GetCount, before.Hits, after.Hits)
	}
	more := make([]*pb.Entry, 1001)
	for i := range more {
		more[i] = &pb.Entry{Key: data(t, int32(1000+i)), Value: data(t, "x")}
	}
	_, err = maps.PutAll(ctx, &pb.PutAllRequest{Map: "big", Entries: more})
	wantError(t, "PutAll over limits.max-batch-entries", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE)
	if st := stats(); st.OwnedEntryCount != 100 {
		t.Fatalf("a refused PutAll stored entries: %d", st.OwnedEntryCount)
	}

	// Under the count limit, but the answer would exceed the message limit.
	_, err = maps.GetAll(ctx, &pb.GetAllRequest{Map: "big", Keys: keys})
	if wantError(t, "GetAll answer over limits.max-message-size", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE); !strings.Contains(status.Convert(err).Message(), "limits.max-message-size") {
		t.Fatalf("the refusal does not name the limit: %v", err)
	}
	if resp, err := maps.GetAll(ctx, &pb.GetAllRequest{Map: "big", Keys: keys[:10]}); err != nil || len(resp.Entries) != 10 {
		t.Fatalf("a GetAll within the limits: %v", err)
	}

	// An iteration sends several messages rather than one too large.
	it, err := maps.Iterate(ctx, &pb.IterateRequest{Map: "big", Kind: pb.IterationKind_ITERATION_KIND_ENTRIES, PageSize: 10000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		page, err := it.Recv()
		if err != nil {
			if err.Error() != "EOF" && status.Code(err) != codes.OK {
				t.Fatalf("iterate: %v", err)
			}
			break
		}
		n += len(page.Entries)
	}
	if n != 100 {
		t.Fatalf("iterated %d entries, want 100", n)
	}

	// A schema with too many fields is refused before it is registered.
	fields := make([]*pb.SchemaField, 10_001)
	for i := range fields {
		fields[i] = &pb.SchemaField{Name: "f" + strings.Repeat("x", i%7), Kind: 9}
	}
	meta := pb.NewMetadataServiceClient(cc)
	_, err = meta.PutSchemas(ctx, &pb.PutSchemasRequest{Schemas: []*pb.Schema{{Id: 42, TypeName: "wide", Fields: fields}}})
	wantError(t, "schema over the field limit", err, codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE)
}
