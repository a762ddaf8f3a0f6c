package member

import (
	"context"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/grpcbuf"
	"github.com/atolldb/atoll/internal/metrics"
)

// Member-to-member traffic is counted by gRPC interceptors: on the
// connections this member opens to others (cluster.Config.DialOptions)
// and on the member service of its own server. Calls between members
// carry the caller's address in a header, so that the receiving side
// can name the peer; only addresses of live members become label values.
// The framed streams (replication) count theirs through
// cluster.Config.Traffic, under the same rule.

// peerHeader carries the calling member's address.
const peerHeader = "atoll-member"

// memberServicePrefix starts the methods members call on each other.
const memberServicePrefix = "/atoll.member.v1.MemberService/"

type transportMetrics struct {
	m     *metrics.Transport
	self  string
	known func(addr string) bool // a live member's address
}

func size(msg any) float64 {
	if pm, ok := msg.(proto.Message); ok {
		return float64(proto.Size(pm))
	}
	return 0
}

// dialOptions count the traffic of the connections to other members, and
// encode it with the codec the member's server has.
func (t *transportMetrics) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcbuf.Codec{})),
		grpc.WithChainUnaryInterceptor(t.clientUnary),
		grpc.WithChainStreamInterceptor(t.clientStream),
	}
}

func (t *transportMetrics) clientUnary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	p := t.m.Peer(cc.Target())
	p.SentMessages.Inc()
	p.SentBytes.Add(size(req))
	err := invoker(metadata.AppendToOutgoingContext(ctx, peerHeader, t.self), method, req, reply, cc, opts...)
	if err == nil {
		p.ReceivedMessages.Inc()
		p.ReceivedBytes.Add(size(reply))
	}
	return err
}

func (t *transportMetrics) clientStream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(metadata.AppendToOutgoingContext(ctx, peerHeader, t.self), desc, cc, method, opts...)
	if err != nil {
		return nil, err
	}
	return &countedClientStream{ClientStream: cs, p: t.m.Peer(cc.Target())}, nil
}

type countedClientStream struct {
	grpc.ClientStream
	p *metrics.Peer
}

func (s *countedClientStream) SendMsg(m any) error {
	start := time.Now()
	err := s.ClientStream.SendMsg(m)
	s.p.SendQueue.Observe(time.Since(start).Seconds())
	if err == nil {
		s.p.SentMessages.Inc()
		s.p.SentBytes.Add(size(m))
	}
	return err
}

func (s *countedClientStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.p.ReceivedMessages.Inc()
		s.p.ReceivedBytes.Add(size(m))
	}
	return err
}

// traffic counts the framed streams with the member at addr
// (cluster.Config.Traffic).
func (t *transportMetrics) traffic(addr string) cluster.Traffic {
	if !t.known(addr) {
		addr = "unknown"
	}
	return peerTraffic{t.m.Peer(addr)}
}

// peerTraffic counts one peer's framed messages.
type peerTraffic struct{ p *metrics.Peer }

func (c peerTraffic) Sent(size int, took time.Duration) {
	c.p.SendQueue.Observe(took.Seconds())
	c.p.SentMessages.Inc()
	c.p.SentBytes.Add(float64(size))
}

func (c peerTraffic) Received(size int) {
	c.p.ReceivedMessages.Inc()
	c.p.ReceivedBytes.Add(float64(size))
}

// peerOf names the member that made an incoming call, or "" for a call
// that is not from a member (clients' calls are not counted here).
func (t *transportMetrics) peerOf(ctx context.Context, method string) string {
	if !strings.HasPrefix(method, memberServicePrefix) {
		return ""
	}
	if v := metadata.ValueFromIncomingContext(ctx, peerHeader); len(v) == 1 && t.known(v[0]) {
		return v[0]
	}
	return "unknown"
}

func (t *transportMetrics) serverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	addr := t.peerOf(ctx, info.FullMethod)
	if addr == "" {
		return handler(ctx, req)
	}
	p := t.m.Peer(addr)
	p.ReceivedMessages.Inc()
	p.ReceivedBytes.Add(size(req))
	resp, err := handler(ctx, req)
	if err == nil {
		p.SentMessages.Inc()
		p.SentBytes.Add(size(resp))
	}
	return resp, err
}

func (t *transportMetrics) serverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	addr := t.peerOf(ss.Context(), info.FullMethod)
	if addr == "" {
		return handler(srv, ss)
	}
	return handler(srv, &countedServerStream{ServerStream: ss, p: t.m.Peer(addr)})
}

type countedServerStream struct {
	grpc.ServerStream
	p *metrics.Peer
}

func (s *countedServerStream) SendMsg(m any) error {
	start := time.Now()
	err := s.ServerStream.SendMsg(m)
	s.p.SendQueue.Observe(time.Since(start).Seconds())
	if err == nil {
		s.p.SentMessages.Inc()
		s.p.SentBytes.Add(size(m))
	}
	return err
}

func (s *countedServerStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if err == nil {
		s.p.ReceivedMessages.Inc()
		s.p.ReceivedBytes.Add(size(m))
	}
	return err
}
