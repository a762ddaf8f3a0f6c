package server

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

func i64(v int64) *int64 { return &v }

// hotRequests are requests of every hot operation, as the clients write
// them.
var hotRequests = []*pb.PipelineRequest{
	{CallId: 1, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "m", Key: []byte("k")}}},
	{CallId: 2, TimeoutMs: 1500, Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: "m", Key: []byte("k"), Value: []byte("v")}}},
	{CallId: 3, Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: "ß", Key: []byte("k"), Value: []byte("v"), TtlMs: i64(0), MaxIdleMs: i64(250)}}},
	{CallId: 1 << 40, Op: &pb.PipelineRequest_Put{Put: &pb.PutRequest{Map: "m", Key: []byte("k"), Value: bytes.Repeat([]byte("v"), 300), TtlMs: i64(9)}}},
	{CallId: 5, Op: &pb.PipelineRequest_Remove{Remove: &pb.KeyRequest{Map: "m", Key: []byte("k")}}},
	{CallId: 6, Op: &pb.PipelineRequest_Delete{Delete: &pb.KeyRequest{Map: "m", Key: []byte("k")}}},
	{CallId: 7, Op: &pb.PipelineRequest_ContainsKey{ContainsKey: &pb.KeyRequest{Map: "m", Key: []byte("k")}}},
	{CallId: 8, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "m"}}}, // no key: the handler refuses it
}

// hotView is what parseHot decodes, read from a request message.
func hotView(r *pb.PipelineRequest) hotCall {
	h := hotCall{id: r.CallId}
	var msg interface {
		GetMap() string
		GetKey() []byte
	}
	switch op := r.Op.(type) {
	case *pb.PipelineRequest_Get:
		h.field, msg = fieldGet, op.Get
	case *pb.PipelineRequest_Remove:
		h.field, msg = fieldRemove, op.Remove
	case *pb.PipelineRequest_Delete:
		h.field, msg = fieldDelete, op.Delete
	case *pb.PipelineRequest_ContainsKey:
		h.field, msg = fieldContains, op.ContainsKey
	case *pb.PipelineRequest_Set:
		h.field, msg, h.value = fieldSet, op.Set, op.Set.Value
		h.ttlMs, h.hasTTL, h.maxIdleMs, h.hasMaxIdle = op.Set.GetTtlMs(), op.Set.TtlMs != nil, op.Set.GetMaxIdleMs(), op.Set.MaxIdleMs != nil
	case *pb.PipelineRequest_Put:
		h.field, msg, h.value = fieldPut, op.Put, op.Put.Value
		h.ttlMs, h.hasTTL, h.maxIdleMs, h.hasMaxIdle = op.Put.GetTtlMs(), op.Put.TtlMs != nil, op.Put.GetMaxIdleMs(), op.Put.MaxIdleMs != nil
	default:
		return hotCall{}
	}
	h.mapName, h.key = []byte(msg.GetMap()), msg.GetKey()
	return h
}

func sameHot(a, b hotCall) bool {
	return a.id == b.id && a.field == b.field && bytes.Equal(a.mapName, b.mapName) && bytes.Equal(a.key, b.key) && bytes.Equal(a.value, b.value) &&
		a.ttlMs == b.ttlMs && a.hasTTL == b.hasTTL && a.maxIdleMs == b.maxIdleMs && a.hasMaxIdle == b.hasMaxIdle
}

// TestParseHot: the hot path decodes what protobuf-go encodes, and leaves
// everything else to the generic path.
func TestParseHot(t *testing.T) {
	for _, r := range hotRequests {
		b, err := proto.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var h hotCall
		if !parseHot(b, &h) {
			t.Fatalf("%v: not taken by the hot path", r)
		}
		if want := hotView(r); !sameHot(h, want) {
			t.Fatalf("%v: decoded %+v, want %+v", r, h, want)
		}
	}
	set, _ := proto.Marshal(hotRequests[1])
	for name, b := range map[string][]byte{
		"another operation":    must(proto.Marshal(&pb.PipelineRequest{CallId: 1, Op: &pb.PipelineRequest_Evict{Evict: &pb.KeyRequest{Map: "m", Key: []byte("k")}}})),
		"no operation":         must(proto.Marshal(&pb.PipelineRequest{CallId: 1})),
		"no call id":           must(proto.Marshal(&pb.PipelineRequest{Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "m", Key: []byte("k")}}})),
		"a map name not UTF-8": must(proto.Marshal(&pb.PipelineRequest{CallId: 1, Op: &pb.PipelineRequest_Delete{Delete: &pb.KeyRequest{Key: []byte("k")}}})),
		"an unknown field":     protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), set...), 99, protowire.VarintType), 1),
		"two operations":       append(append([]byte(nil), set...), set[2:]...),
		"truncated":            set[:len(set)-2],
	} {
		if name == "a map name not UTF-8" {
			b = must(proto.Marshal(&pb.PipelineRequest{CallId: 1}))
			b = protowire.AppendTag(b, fieldDelete, protowire.BytesType)
			inner := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0xff, 0xfe})
			b = protowire.AppendBytes(b, inner)
		}
		var h hotCall
		if parseHot(b, &h) {
			t.Errorf("%s: taken by the hot path as %+v", name, h)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestHotResponses: the hot path's answers decode to the messages the
// generic path builds.
func TestHotResponses(t *testing.T) {
	value := bytes.Repeat([]byte{7}, 200)
	for _, tc := range []struct {
		res  hotResult
		want *pb.PipelineResponse
	}{
		{hotResult{kind: fieldRespValue, found: true, value: value}, &pb.PipelineResponse{CallId: 9, Result: &pb.PipelineResponse_Value{Value: &pb.ValueResponse{Found: true, Value: value}}}},
		{hotResult{kind: fieldRespValue, found: true, value: []byte{}}, &pb.PipelineResponse{CallId: 9, Result: &pb.PipelineResponse_Value{Value: &pb.ValueResponse{Found: true, Value: []byte{}}}}},
		{hotResult{kind: fieldRespValue}, &pb.PipelineResponse{CallId: 9, Result: &pb.PipelineResponse_Value{Value: &pb.ValueResponse{}}}},
		{hotResult{kind: fieldRespEmpty}, &pb.PipelineResponse{CallId: 9, Result: &pb.PipelineResponse_Empty{Empty: &pb.Empty{}}}},
		{hotResult{kind: fieldRespBool, found: true}, &pb.PipelineResponse{CallId: 9, Result: &pb.PipelineResponse_Bool{Bool: &pb.BoolResponse{Value: true}}}},
		{hotResult{kind: fieldRespBool}, &pb.PipelineResponse{CallId: 9, Result: &pb.PipelineResponse_Bool{Bool: &pb.BoolResponse{}}}},
	} {
		b := appendHotResponse([]byte("prefix"), 9, tc.res)
		got := &pb.PipelineResponse{}
		if err := proto.Unmarshal(b[len("prefix"):], got); err != nil {
			t.Fatalf("%+v: %v", tc.res, err)
		}
		if !proto.Equal(got, tc.want) {
			t.Fatalf("%+v: decoded %v, want %v", tc.res, got, tc.want)
		}
		if want, _ := proto.Marshal(tc.want); !bytes.Equal(b[len("prefix"):], want) {
			t.Errorf("%+v: %x, protobuf-go writes %x", tc.res, b[len("prefix"):], want)
		}
	}
}

// FuzzParseHot: whatever the input, parseHot does not panic, and what it
// takes protobuf-go decodes to the same call.
func FuzzParseHot(f *testing.F) {
	for _, r := range hotRequests {
		f.Add(must(proto.Marshal(r)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h hotCall
		if !parseHot(b, &h) {
			return
		}
		r := &pb.PipelineRequest{}
		if err := proto.Unmarshal(b, r); err != nil {
			t.Fatalf("taken by the hot path, refused by protobuf-go: %v", err)
		}
		if want := hotView(r); !sameHot(h, want) {
			t.Fatalf("decoded %+v, protobuf-go %+v", h, want)
		}
	})
}
