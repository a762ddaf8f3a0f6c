// Package grpcbuf is the protobuf codec of Atoll's gRPC connections, the
// members' and the Go client's: gRPC's own, except for where its buffers
// come from.
//
// gRPC's codec copies a message that arrived in several frames into one
// buffer, and marshals a large message into one, taking both from gRPC's
// default pool. That pool has no size between 32 KiB and 1 MiB and clears
// a buffer's whole capacity each time it hands it out, so each join
// exchange message or query page of 64 KiB cleared a megabyte: a sixth of
// a member's CPU under a join load; and a message under 1 KiB, a get's or
// a set's, was encoded into a fresh allocation. The codec here takes its
// buffers from power-of-two tiers that fit every message size, from 2 KiB
// (the least gRPC hands back to a pool), and does not clear them: it
// writes every byte it later reads (a copy or an encoding of exactly the
// buffer's length), and protobuf decoding copies what it keeps.
package grpcbuf

import (
	"fmt"
	"math/bits"
	"sync"

	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Tiers: buffers of 2^minShift to 2^maxShift bytes are reused (gRPC
// returns no buffer of 1 KiB or less to its pool); larger ones are
// allocated for the call alone.
const (
	minShift = 11
	maxShift = 24
)

// pool is a mem.BufferPool of power-of-two tiers whose buffers are handed
// out as they were left.
type pool struct {
	tiers [maxShift - minShift + 1]sync.Pool
}

// buffers is the codec's pool.
var buffers = &pool{}

// tier returns the index of the smallest tier holding n bytes, or -1.
func tier(n int) int {
	if n > 1<<maxShift {
		return -1
	}
	shift := max(bits.Len(uint(max(n, 1)-1)), minShift)
	return shift - minShift
}

// Get returns a buffer of length n, its contents undefined.
func (p *pool) Get(n int) *[]byte {
	t := tier(n)
	if t < 0 {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.tiers[t].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, 1<<(t+minShift))
	return &b
}

// Put takes back a buffer Get returned; others are left to the collector.
func (p *pool) Put(b *[]byte) {
	c := cap(*b)
	if t := tier(c); t >= 0 && c == 1<<(t+minShift) {
		p.tiers[t].Put(b)
	}
}

// Codec is gRPC's protobuf codec ("proto") with buffers from the pool
// above. Install it with grpc.ForceServerCodecV2 on a server and
// grpc.ForceCodecV2 on a connection's calls.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Marshal encodes v, a proto.Message.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("grpcbuf: cannot marshal %T: not a protobuf message", v)
	}
	size := proto.Size(m)
	b := buffers.Get(size)
	// The size was just computed and the message is not changing.
	out, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend((*b)[:0], m)
	if err != nil || len(out) != size {
		buffers.Put(b)
		if err == nil {
			err = fmt.Errorf("grpcbuf: %T encoded to %d bytes, not the %d it measured", v, len(out), size)
		}
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(b, buffers)}, nil
}

// Unmarshal decodes data into v, a proto.Message.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("grpcbuf: cannot unmarshal into %T: not a protobuf message", v)
	}
	b := data.MaterializeToBuffer(buffers)
	defer b.Free()
	return proto.Unmarshal(b.ReadOnlyData(), m)
}

// Name is the content subtype gRPC's own protobuf codec has.
func (Codec) Name() string { return grpcproto.Name }
