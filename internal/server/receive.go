package server

import (
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/grpcbuf"
)

// Oversized requests
//
// A pipeline stream (map calls, or queries) carries every call of a client
// connection, and gRPC ends a stream at the first message over its receive
// limit: one oversized call would fail all the others. So the member
// receives messages up to ReceiveLimit, twice limits.max-message-size, and
// checks sizes itself. A pipeline call over limits.max-message-size fails
// alone with TOO_LARGE (the codec notes each call's size and decodes only
// the call id of one over the limit), and the stream carries on. A unary
// call over it fails with TOO_LARGE, and a client's other streams (which
// carry one request) end with it (the interceptors check them). Only a
// message over ReceiveLimit still ends its stream: gRPC reads a whole
// message before anyone can look at it.

// ReceiveLimit is the largest message the member's gRPC server receives:
// twice limits.max-message-size, so that a pipeline call up to that size
// fails alone.
func ReceiveLimit(maxMessageSize int) int { return 2 * maxMessageSize }

// Codec is the member's gRPC codec (grpc.ForceServerCodecV2): protobuf,
// with the size check described above.
func Codec(maxMessageSize int) encoding.CodecV2 { return sizeCheckingCodec{max: maxMessageSize} }

var protoCodec grpcbuf.Codec

type sizeCheckingCodec struct{ max int }

func (c sizeCheckingCodec) Marshal(v any) (mem.BufferSlice, error) { return protoCodec.Marshal(v) }

func (c sizeCheckingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	n := data.Len()
	if r, ok := v.(*receivedCall); ok {
		r.size = n
		if n > c.max {
			if len(data) > 0 {
				r.callID = frame.CallID(data[0].ReadOnlyData())
			}
			return nil
		}
		return protoCodec.Unmarshal(data, r.msg)
	}
	return protoCodec.Unmarshal(data, v)
}

func (sizeCheckingCodec) Name() string { return grpcproto.Name }

// receivedCall is what a pipeline reads from its stream: one call's
// message (msg) and its size on the wire. A message over the limit is not
// decoded: callID is its call id (field 1 of both pipelines' calls).
type receivedCall struct {
	msg    proto.Message
	size   int
	callID uint64
}

// checkReceived fails a message a client sent that is over max (a
// pipeline's calls are checked one by one instead).
func checkReceived(m any, max int) error {
	if _, ok := m.(*receivedCall); ok {
		return nil
	}
	if pm, ok := m.(proto.Message); ok {
		if n := proto.Size(pm); n > max {
			return &TooLargeError{Op: "receive", What: "message", Size: n, Limit: max, Unit: "bytes", Setting: "limits.max-message-size"}
		}
	}
	return nil
}

// tooLarge returns the error of a call over max, or nil.
func (r *receivedCall) tooLarge(op string, max int) error {
	if r.size <= max {
		return nil
	}
	return &TooLargeError{Op: op, What: "request", Size: r.size, Limit: max, Unit: "bytes", Setting: "limits.max-message-size"}
}
