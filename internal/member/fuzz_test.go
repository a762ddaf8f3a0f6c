package member_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/pkg/serialization"
)

// The hostile-input fuzz target sends arbitrary request messages to an
// in-process member over a real gRPC connection: to any method it serves,
// as valid protobuf with whatever fields the input holds, then mutated
// the way an attacker would — every bytes field replaced by truncated
// Data, Data of unknown type ids or with huge declared lengths; repeated
// fields inflated; predicates and SQL expressions nested deep. Every
// call must end with success or a typed error (a status with the
// member's ErrorDetail that is not INTERNAL), no handler may panic, the
// heap must stay bounded, and the member must keep serving.

// fuzzMaxMessage is the fuzzed member's message size limit: what a
// request or answer may hold, and so what one call may make it allocate.
const fuzzMaxMessage = 4 << 20

// fuzzHeapLimit is the heap a fuzzing process may reach before the
// target reports unbounded allocation.
const fuzzHeapLimit = 1 << 30

// fuzzMember is the member of one fuzzing process.
type fuzzMember struct {
	m        *member.Member
	cc       *grpc.ClientConn
	methods  []fuzzMethod
	panicked atomic.Value // the first "call panicked" log record's message, if any
	ser      *serialization.Service
}

type fuzzMethod struct {
	name            string
	in, out         protoreflect.MessageType
	clientStreaming bool
	serverStreaming bool
}

// panicWatch is a log handler that remembers recovered panics.
type panicWatch struct {
	slog.Handler
	f *fuzzMember
}

func (p panicWatch) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "call panicked" {
		var detail strings.Builder
		r.Attrs(func(a slog.Attr) bool {
			detail.WriteString(a.Key + "=" + a.Value.String() + "\n")
			return true
		})
		p.f.panicked.CompareAndSwap(nil, detail.String())
	}
	return nil
}

func (p panicWatch) WithAttrs(as []slog.Attr) slog.Handler {
	return panicWatch{p.Handler.WithAttrs(as), p.f}
}
func (p panicWatch) WithGroup(g string) slog.Handler { return panicWatch{p.Handler.WithGroup(g), p.f} }
func (p panicWatch) Enabled(context.Context, slog.Level) bool {
	return true
}

func startFuzzMember(f *testing.F) *fuzzMember {
	fm := &fuzzMember{}
	cfg := member.DefaultConfig()
	cfg.Bind, cfg.Admin = "127.0.0.1:0", ""
	cfg.Limits.MaxMessageSize = fuzzMaxMessage
	cfg.Limits.MaxMaps = 1000
	cfg.Limits.MaxListenersPerConnection = 64
	cfg.Logger = slog.New(panicWatch{slog.NewTextHandler(nopWriter{}, nil), fm})
	m, err := member.Start(context.Background(), cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = m.Close() })
	fm.m = m
	if fm.cc, err = grpc.NewClient(m.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20))); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = fm.cc.Close() })
	if fm.ser, err = serialization.NewService(serialization.Config{}); err != nil {
		f.Fatal(err)
	}
	for _, name := range m.ServiceMethods() {
		svc, method, _ := strings.Cut(strings.TrimPrefix(name, "/"), "/")
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		md := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method))
		in, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
		if err != nil {
			f.Fatal(err)
		}
		out, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
		if err != nil {
			f.Fatal(err)
		}
		fm.methods = append(fm.methods, fuzzMethod{name: name, in: in, out: out, clientStreaming: md.IsStreamingClient(), serverStreaming: md.IsStreamingServer()})
	}
	// Something to find: a map with entries and its mapping.
	ctx := context.Background()
	ms := pb.NewMapServiceClient(fm.cc)
	for i := int32(0); i < 20; i++ {
		k, _ := fm.ser.ToData(i)
		v, _ := fm.ser.ToData("v")
		if _, err := ms.Set(ctx, &pb.SetRequest{Map: "fuzz", Key: k, Value: v}); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := pb.NewQueryServiceClient(fm.cc).Execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{
		Sql: "CREATE MAPPING fuzz TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')"}}); err != nil {
		f.Fatal(err)
	}
	return fm
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// Mutations applied to a decoded request.
const (
	mutateNone = iota
	mutateData
	mutateRepeated
	mutateNestedPredicate
	mutateNestedSQL
	mutations
)

// hostileData returns Data made from seed that a member must refuse or
// read without trusting: truncated, of an unknown type id, or declaring a
// length far beyond its bytes.
func (fm *fuzzMember) hostileData(seed []byte, variant int) []byte {
	good, err := fm.ser.ToData(string(seed))
	if err != nil { // not UTF-8
		good, _ = fm.ser.ToData(hex.EncodeToString(seed))
	}
	switch variant % 6 {
	case 0: // truncated
		if len(good) > 1 {
			return good[:len(good)/2]
		}
		return good[:0]
	case 1: // an unknown type id
		d := append([]byte(nil), good...)
		binary.BigEndian.PutUint32(d[4:8], uint32(int32(0x7ead0000)+int32(len(seed))))
		return d
	case 2: // a string declaring 2 GiB
		d := binary.BigEndian.AppendUint32(nil, 0)
		d = binary.BigEndian.AppendUint32(d, typeID(serialization.TypeString))
		d = binary.BigEndian.AppendUint32(d, 0x7ffffff0)
		return append(d, seed...)
	case 3: // an array declaring a billion elements
		d := binary.BigEndian.AppendUint32(nil, 0)
		d = binary.BigEndian.AppendUint32(d, typeID(serialization.TypeInt64Array))
		d = binary.BigEndian.AppendUint32(d, 1<<30)
		return append(d, seed...)
	case 4: // Compact with a schema claiming huge sizes
		d := binary.BigEndian.AppendUint32(nil, 0)
		d = binary.BigEndian.AppendUint32(d, typeID(serialization.TypeCompactWithSchema))
		d = binary.BigEndian.AppendUint32(d, 0x7fffffff)
		return append(d, seed...)
	}
	return append([]byte(nil), seed...) // raw bytes, no header at all
}

// mutate rewrites a decoded request the way mode says.
func (fm *fuzzMember) mutate(m protoreflect.Message, mode int, seed []byte, depth int) {
	if depth > 32 {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.BytesKind && mode == mutateData:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				l.Set(i, protoreflect.ValueOfBytes(fm.hostileData(seed, i+len(l.Get(i).Bytes()))))
			}
		case fd.IsList() && mode == mutateRepeated && l(v) > 0:
			// Inflate to past the batch limits, within the message limit.
			list := v.List()
			first := list.Get(0)
			per := 4
			if fd.Kind() == protoreflect.MessageKind {
				per += proto.Size(first.Message().Interface())
			} else if fd.Kind() == protoreflect.BytesKind {
				per += len(first.Bytes())
			}
			for n := min(150_000, fuzzMaxMessage/2/per); list.Len() < n; {
				list.Append(first)
			}
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len() && i < 64; i++ {
				fm.mutate(l.Get(i).Message(), mode, seed, depth+1)
			}
		case fd.Kind() == protoreflect.BytesKind && !fd.IsList() && !fd.IsMap() && mode == mutateData:
			m.Set(fd, protoreflect.ValueOfBytes(fm.hostileData(seed, int(fd.Number())+len(v.Bytes()))))
		case fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap():
			fm.mutate(v.Message(), mode, seed, depth+1)
		}
		return true
	})
}

func l(v protoreflect.Value) int { return v.List().Len() }

// typeID is a (negative) type id as the 32 bits Data carries.
func typeID(id int32) uint32 { return uint32(id) }

// nestedPredicate builds a predicate nested depth levels deep.
func nestedPredicate(depth int, seed []byte) *pb.Predicate {
	p := &pb.Predicate{Kind: &pb.Predicate_Sql{Sql: printable(seed)}}
	for i := 0; i < depth; i++ {
		switch i % 3 {
		case 0:
			p = &pb.Predicate{Kind: &pb.Predicate_Not{Not: p}}
		case 1:
			p = &pb.Predicate{Kind: &pb.Predicate_And{And: &pb.Operands{Operands: []*pb.Predicate{p, {Kind: &pb.Predicate_Constant{Constant: true}}}}}}
		default:
			p = &pb.Predicate{Kind: &pb.Predicate_Paging{Paging: &pb.PagingPredicate{Inner: p, PageSize: 10}}}
		}
	}
	return p
}

// nestedSQL builds a statement whose expression nests depth levels deep.
func nestedSQL(depth int, seed []byte) string {
	s := printable(seed)
	switch depth % 4 {
	case 0:
		return "SELECT " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + " FROM fuzz"
	case 1:
		return "SELECT * FROM fuzz WHERE " + strings.Repeat("NOT ", depth) + "this = '" + s + "'"
	case 2:
		return "SELECT __key" + strings.Repeat(" + __key", depth) + " FROM fuzz"
	}
	return "SELECT " + strings.Repeat("CASE WHEN this = '"+s+"' THEN ", depth) + "1" + strings.Repeat(" END", depth) + " FROM fuzz"
}

// printable keeps the printable ASCII of seed, quotes excepted.
func printable(seed []byte) string {
	return strings.Map(func(r rune) rune {
		if r == '\'' || r < ' ' || r > '~' {
			return 'x'
		}
		return r
	}, string(seed))
}

// typed reports whether err is an answer the member may give: its own
// typed error (an ErrorDetail that is not INTERNAL), a deadline of the
// caller's, or gRPC's refusal of a message over the size limit.
func typed(err error) bool {
	if err == nil {
		return true
	}
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.DeadlineExceeded, codes.Canceled:
		return true
	case codes.ResourceExhausted:
		if strings.Contains(st.Message(), "larger than max") {
			return true
		}
	}
	for _, d := range st.Details() {
		if detail, ok := d.(*pb.ErrorDetail); ok {
			return detail.Code != pb.ErrorCode_ERROR_CODE_INTERNAL && detail.Code != pb.ErrorCode_ERROR_CODE_UNSPECIFIED
		}
	}
	return false
}

// checkReply checks the calls a pipeline reply answers.
func checkReply(t *testing.T, method string, reply protoreflect.Message) {
	fd := reply.Descriptor().Fields().ByName("error")
	if fd == nil || !reply.Has(fd) {
		return
	}
	e, ok := reply.Get(fd).Message().Interface().(*pb.Error)
	if ok && (e.Detail == nil || e.Detail.Code == pb.ErrorCode_ERROR_CODE_INTERNAL) {
		t.Fatalf("%s: a call failed untyped or internal: %v", method, e)
	}
}

func (fm *fuzzMember) call(t *testing.T, selector uint16, mode uint8, payload []byte) {
	mth := fm.methods[int(selector)%len(fm.methods)]
	req := mth.in.New()
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(payload, req.Interface()); err != nil {
		return // not valid protobuf of this request type: gRPC refuses it before the member
	}
	switch int(mode) % mutations {
	case mutateData, mutateRepeated:
		fm.mutate(req, int(mode)%mutations, payload, 0)
	case mutateNestedPredicate, mutateNestedSQL:
		depth := 50 + int(selector)%4000
		var ex *pb.ExecuteRequest
		if int(mode)%mutations == mutateNestedPredicate {
			ex = &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: &pb.PredicateQuery{Map: "fuzz", Predicate: nestedPredicate(depth, payload)}}}
		} else {
			ex = &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: nestedSQL(depth, payload)}}
		}
		if selector%2 == 0 {
			mth = fm.method(pb.QueryService_Execute_FullMethodName)
			req = ex.ProtoReflect()
		} else {
			mth = fm.method(pb.QueryService_Pipeline_FullMethodName)
			req = (&pb.QueryCall{CallId: 1, Op: &pb.QueryCall_Execute{Execute: ex}}).ProtoReflect()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := fm.cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, mth.name)
	if err != nil {
		t.Fatalf("%s: opening the call: %v", mth.name, err)
	}
	sends := 1
	if mth.clientStreaming {
		sends = 1 + len(payload)%3
	}
	for i := 0; i < sends; i++ {
		if err := st.SendMsg(req.Interface()); err != nil {
			break // the member ended the call; RecvMsg says how
		}
	}
	_ = st.CloseSend()
	for i := 0; i < 8; i++ {
		reply := mth.out.New()
		err := st.RecvMsg(reply.Interface())
		if err != nil {
			if err.Error() != "EOF" && !typed(err) {
				t.Fatalf("%s (mode %d): an untyped error: %v", mth.name, mode, err)
			}
			break
		}
		checkReply(t, mth.name, reply)
		if !mth.serverStreaming {
			break
		}
		if i == 0 {
			// A listener or a table watch sends until it is cancelled:
			// what follows the first message has little time to come.
			time.AfterFunc(200*time.Millisecond, cancel)
		}
	}
	cancel()
	if p := fm.panicked.Load(); p != nil {
		t.Fatalf("%s (mode %d): a handler panicked:\n%s", mth.name, mode, p)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > fuzzHeapLimit {
		t.Fatalf("%s (mode %d): the heap reached %d bytes", mth.name, mode, ms.HeapAlloc)
	}
	// The member keeps serving.
	k, _ := fm.ser.ToData(int32(1))
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if _, err := pb.NewMapServiceClient(fm.cc).ContainsKey(ctx2, &pb.KeyRequest{Map: "fuzz", Key: k}); err != nil {
		t.Fatalf("after %s (mode %d) the member no longer serves: %v", mth.name, mode, err)
	}
}

func (fm *fuzzMember) method(name string) fuzzMethod {
	for _, m := range fm.methods {
		if m.name == name {
			return m
		}
	}
	panic("no method " + name)
}

// FuzzGRPCRequests: see the comment at the top of the file. Its seed
// corpus (below and testdata/fuzz) runs with every `go test`; `make fuzz`
// explores further.
func FuzzGRPCRequests(f *testing.F) {
	fm := startFuzzMember(f)
	index := map[string]uint16{}
	for i, m := range fm.methods {
		index[m.name] = uint16(i)
	}
	k, _ := fm.ser.ToData(int32(3))
	v, _ := fm.ser.ToData("value")
	add := func(method string, msg proto.Message) {
		b, err := proto.Marshal(msg)
		if err != nil {
			f.Fatal(err)
		}
		for mode := uint8(0); mode < mutations; mode++ {
			f.Add(index[method], mode, b)
		}
	}
	add(pb.MapService_Put_FullMethodName, &pb.PutRequest{Map: "fuzz", Key: k, Value: v})
	add(pb.MapService_PutAll_FullMethodName, &pb.PutAllRequest{Map: "fuzz", Entries: []*pb.Entry{{Key: k, Value: v}}})
	add(pb.MapService_GetAll_FullMethodName, &pb.GetAllRequest{Map: "fuzz", Keys: [][]byte{k}})
	add(pb.MapService_ReplaceIfSame_FullMethodName, &pb.ReplaceIfSameRequest{Map: "fuzz", Key: k, Expected: v, Value: v})
	add(pb.MapService_Listen_FullMethodName, &pb.ListenRequest{Map: "fuzz", Key: k, Types: []pb.EntryEventType{pb.EntryEventType_ENTRY_EVENT_TYPE_ADDED}})
	add(pb.MapService_Iterate_FullMethodName, &pb.IterateRequest{Map: "fuzz", Kind: pb.IterationKind_ITERATION_KIND_ENTRIES, PageSize: 5})
	add(pb.PipelineService_Pipeline_FullMethodName, &pb.PipelineRequest{CallId: 1, Op: &pb.PipelineRequest_Put{Put: &pb.PutRequest{Map: "fuzz", Key: k, Value: v}}})
	add(pb.PipelineService_Pipeline_FullMethodName, &pb.PipelineRequest{CallId: 2, Op: &pb.PipelineRequest_PutAll{PutAll: &pb.PutAllRequest{Map: "fuzz", Entries: []*pb.Entry{{Key: k, Value: v}}}}})
	add(pb.QueryService_Execute_FullMethodName, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT * FROM fuzz WHERE this = ?"},
		Params: []*pb.QueryValue{{Type: pb.SqlType_SQL_TYPE_VARCHAR, S: "v"}}})
	add(pb.QueryService_Execute_FullMethodName, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: &pb.PredicateQuery{Map: "fuzz",
		Predicate: &pb.Predicate{Kind: &pb.Predicate_Compare{Compare: &pb.Comparison{Attribute: "this", Value: &pb.QueryValue{Type: pb.SqlType_SQL_TYPE_OBJECT, Data: v}}}}}}})
	add(pb.QueryService_Pipeline_FullMethodName, &pb.QueryCall{CallId: 1, Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT COUNT(*) FROM fuzz"}}}})
	add(pb.MetadataService_PutSchemas_FullMethodName, &pb.PutSchemasRequest{Schemas: []*pb.Schema{{TypeName: "t", Fields: []*pb.SchemaField{{Name: "f", Kind: 8}}}}})
	add(pb.MetadataService_PutLayouts_FullMethodName, &pb.PutLayoutsRequest{Layouts: []*pb.Layout{{FactoryId: 1, ClassId: 1, Fields: []*pb.LayoutField{{Name: "f", Op: "writeInt"}}}}})
	add(pb.ClusterService_PushClientStatistics_FullMethodName, &pb.ClientStatistics{ClientUuid: make([]byte, 16)})
	add(pb.QueryService_RunFragment_FullMethodName, &pb.RunFragmentRequest{Partitions: []int32{1}})
	f.Fuzz(func(t *testing.T, selector uint16, mode uint8, payload []byte) {
		fm.call(t, selector, mode, payload)
	})
}

// FuzzFramedPipeline sends arbitrary bytes on the framed pipeline after a
// valid hello: frames of any kind and length, map and query calls that
// are not protobuf, calls over the message limit, pings. Whatever they hold, the
// member answers each call it could decode with a response to it, closes
// the connection on what breaks the protocol, never panics, and keeps
// serving.
func FuzzFramedPipeline(f *testing.F) {
	fm := startFuzzMember(f)
	k, _ := fm.ser.ToData(int32(3))
	v, _ := fm.ser.ToData("value")
	call := func(req *pb.PipelineRequest) []byte {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		return frame.Append(nil, frame.KindCall, b)
	}
	get := call(&pb.PipelineRequest{CallId: 1, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "fuzz", Key: k}}})
	set := call(&pb.PipelineRequest{CallId: 2, Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: "fuzz", Key: k, Value: v}}})
	putAll := call(&pb.PipelineRequest{CallId: 3, Op: &pb.PipelineRequest_PutAll{PutAll: &pb.PutAllRequest{Map: "fuzz", Entries: []*pb.Entry{{Key: k, Value: v}}}}})
	lock := call(&pb.PipelineRequest{CallId: 4, TimeoutMs: 50, Op: &pb.PipelineRequest_Lock{Lock: &pb.LockRequest{Map: "fuzz", Key: k}}})
	f.Add(append(append(append([]byte(nil), get...), set...), putAll...))
	f.Add(append(append([]byte(nil), lock...), set...))
	query := func(c *pb.QueryCall) []byte {
		b, err := proto.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		return frame.Append(nil, frame.KindQuery, b)
	}
	sql := func(id uint64, stmt string) []byte {
		return query(&pb.QueryCall{CallId: id, Op: &pb.QueryCall_Execute{Execute: &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: stmt}}}})
	}
	f.Add(append(append(sql(1, "SELECT 1"), set...), query(&pb.QueryCall{CallId: 1, Op: &pb.QueryCall_Cancel{Cancel: true}})...))
	f.Add(append(sql(2, "SELECT * FROM fuzz"), query(&pb.QueryCall{CallId: 3, Op: &pb.QueryCall_Fetch{Fetch: &pb.FetchRequest{CursorId: 99}}})...))
	f.Add(frame.Append(nil, frame.KindQuery, []byte{8, 9, 0xff, 0xff}))
	f.Add(frame.Append(nil, frame.KindPing, []byte("12345678")))
	f.Add(frame.Append(nil, frame.KindCall, []byte{8, 9, 0xff, 0xff}))
	f.Add(frame.Append(nil, frame.KindGoAway, nil))
	f.Add(binary.BigEndian.AppendUint32(nil, fuzzMaxMessage+100))
	f.Add(append(binary.BigEndian.AppendUint32(nil, 0), frame.KindCall))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm.framed(t, data)
	})
}

// framed opens a framed pipeline, sends data after the hello and checks
// what comes back (see FuzzFramedPipeline).
func (fm *fuzzMember) framed(t *testing.T, data []byte) {
	nc, err := net.Dial("tcp", fm.m.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	hello, _ := proto.Marshal(&pb.PipelineHello{ClusterName: member.DefaultConfig().ClusterName, ClientUuid: make([]byte, 16)})
	out := frame.Append(append([]byte(nil), frame.Preamble...), frame.KindHello, hello)
	if _, err := nc.Write(out); err != nil {
		t.Fatal(err)
	}
	rd := frame.NewReader(nc, 64<<10, 64<<20, 64<<20)
	f, err := rd.Next()
	welcome := &pb.PipelineWelcome{}
	if err != nil || f.Kind != frame.KindHello || proto.Unmarshal(f.Payload, welcome) != nil || welcome.Error != nil {
		t.Fatalf("the hello was not welcomed: %v, %v", err, welcome.Error)
	}
	// The member reads what follows while it answers.
	go func() {
		_, _ = nc.Write(data)
		_ = nc.(*net.TCPConn).CloseWrite()
	}()
	for {
		f, err := rd.Next()
		if err != nil {
			break // the end: after the calls, or on a protocol error
		}
		switch f.Kind {
		case frame.KindCall:
			resp := &pb.PipelineResponse{}
			if err := proto.Unmarshal(f.Payload, resp); err != nil {
				t.Fatalf("an answer that is not a PipelineResponse: %v", err)
			}
			if resp.Error != nil && codes.Code(resp.Error.GrpcCode) == codes.Internal {
				t.Fatalf("call %d: an internal error: %s", resp.CallId, resp.Error.Message)
			}
		case frame.KindQuery:
			reply := &pb.QueryReply{}
			if err := proto.Unmarshal(f.Payload, reply); err != nil {
				t.Fatalf("an answer that is not a QueryReply: %v", err)
			}
			if reply.Error != nil && codes.Code(reply.Error.GrpcCode) == codes.Internal {
				t.Fatalf("query call %d: an internal error: %s", reply.CallId, reply.Error.Message)
			}
		case frame.KindPong:
		default:
			t.Fatalf("a frame of kind %d from the member", f.Kind)
		}
	}
	if p := fm.panicked.Load(); p != nil {
		t.Fatalf("a handler panicked:\n%s", p)
	}
	k, _ := fm.ser.ToData(int32(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := pb.NewMapServiceClient(fm.cc).ContainsKey(ctx, &pb.KeyRequest{Map: "fuzz", Key: k}); err != nil {
		t.Fatalf("the member no longer serves: %v", err)
	}
}
