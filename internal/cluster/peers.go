package cluster

import (
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
)

// peers holds one gRPC channel per other member, shared by gossip,
// replication and coordination; each of its connections opens with the
// member handshake (handshake.go). Channels connect lazily and reconnect by
// themselves; a member that left is dropped with forget.
type peers struct {
	creds  credentials.TransportCredentials // the member handshake
	maxMsg int
	opts   []grpc.DialOption
	mu     sync.Mutex
	conns  map[string]*grpc.ClientConn
	closed bool
}

func newPeers(creds credentials.TransportCredentials, maxMsg int, opts []grpc.DialOption) *peers {
	return &peers{creds: creds, maxMsg: maxMsg, opts: opts, conns: map[string]*grpc.ClientConn{}}
}

// client returns a MemberService client for the member at addr.
func (p *peers) client(addr string) (memberv1.MemberServiceClient, error) {
	cc, err := p.conn(addr)
	if err != nil {
		return nil, err
	}
	return memberv1.NewMemberServiceClient(cc), nil
}

// conn returns the channel to the member at addr.
func (p *peers) conn(addr string) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errStopped
	}
	cc, ok := p.conns[addr]
	if !ok {
		var err error
		opts := append([]grpc.DialOption{
			grpc.WithTransportCredentials(p.creds),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(p.maxMsg), grpc.MaxCallSendMsgSize(p.maxMsg)),
		}, p.opts...)
		cc, err = grpc.NewClient(addr, opts...)
		if err != nil {
			return nil, err
		}
		p.conns[addr] = cc
	}
	return cc, nil
}

// forget closes the channel to addr.
func (p *peers) forget(addr string) {
	p.mu.Lock()
	cc := p.conns[addr]
	delete(p.conns, addr)
	p.mu.Unlock()
	if cc != nil {
		_ = cc.Close()
	}
}

func (p *peers) close() {
	p.mu.Lock()
	conns := p.conns
	p.conns, p.closed = map[string]*grpc.ClientConn{}, true
	p.mu.Unlock()
	for _, cc := range conns {
		_ = cc.Close()
	}
}
