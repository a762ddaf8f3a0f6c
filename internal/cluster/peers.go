package cluster

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
)

// peers holds one gRPC channel per other member, shared by gossip and
// coordination (replication streams have connections of their own,
// framed.go); each of its connections opens with the member handshake
// (handshake.go). Channels connect lazily and reconnect by themselves; a
// member that left is dropped with forget.
//
// Each channel is watched: when its connection breaks, or a connection
// attempt fails, peers dials the address itself (so does a replication
// stream that breaks, suspect). An address that refuses
// the connection goneProbes times in a row has no process listening: the
// member there is gone (killed, crashed, its host up but the process not),
// and onGone reports it at once, well before gossip's failure detector
// would (which must wait out a silent member's suspicion timeout, since
// a member that is slow to answer is not dead). A cut network or a hung
// member refuses nothing: those are left to gossip.
type peers struct {
	creds  credentials.TransportCredentials // the member handshake
	maxMsg int
	opts   []grpc.DialOption
	// probe dials an address to see whether anything listens there; nil
	// turns the watch off.
	probe func(ctx context.Context, addr string) (net.Conn, error)
	// watched reports whether a live member is known at addr (only then is
	// the address probed); onGone is told that nothing listens at addr.
	watched func(addr string) bool
	onGone  func(addr string)

	mu     sync.Mutex
	conns  map[string]*peerConn
	closed bool
	// watches counts the running watch goroutines; close waits for them.
	watches sync.WaitGroup
}

type peerConn struct {
	cc     *grpc.ClientConn
	cancel context.CancelFunc // ends the watch
}

// How a broken connection's address is probed: goneProbes refusals,
// goneProbeInterval apart (each dial bounded by goneProbeTimeout), declare
// the member there gone.
const (
	goneProbes        = 3
	goneProbeInterval = 50 * time.Millisecond
	goneProbeTimeout  = time.Second
)

func newPeers(creds credentials.TransportCredentials, maxMsg int, opts []grpc.DialOption) *peers {
	return &peers{creds: creds, maxMsg: maxMsg, opts: opts, conns: map[string]*peerConn{}}
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
	pc, ok := p.conns[addr]
	if !ok {
		opts := append([]grpc.DialOption{
			grpc.WithTransportCredentials(p.creds),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(p.maxMsg), grpc.MaxCallSendMsgSize(p.maxMsg)),
		}, p.opts...)
		cc, err := grpc.NewClient(addr, opts...)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		pc = &peerConn{cc: cc, cancel: cancel}
		p.conns[addr] = pc
		if p.probe != nil {
			p.watches.Add(1)
			go func() {
				defer p.watches.Done()
				p.watch(ctx, addr, cc)
			}()
		}
	}
	return pc.cc, nil
}

// watch follows the channel's state until ctx ends: whenever a connection
// breaks or an attempt fails, it probes the address.
func (p *peers) watch(ctx context.Context, addr string, cc *grpc.ClientConn) {
	state := cc.GetState()
	for cc.WaitForStateChange(ctx, state) {
		prev := state
		state = cc.GetState()
		broke := prev == connectivity.Ready && state != connectivity.Ready
		if (broke || state == connectivity.TransientFailure) && p.watched(addr) && p.refuses(ctx, addr) {
			p.onGone(addr)
		}
	}
}

// suspect probes addr after another connection to it broke (a
// replication stream's), reporting a member whose process is gone.
func (p *peers) suspect(ctx context.Context, addr string) {
	if p.probe != nil && p.watched(addr) && p.refuses(ctx, addr) {
		p.onGone(addr)
	}
}

// refuses reports whether addr refused goneProbes connections in a row.
func (p *peers) refuses(ctx context.Context, addr string) bool {
	for i := 0; i < goneProbes; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(goneProbeInterval):
			}
		}
		dctx, cancel := context.WithTimeout(ctx, goneProbeTimeout)
		c, err := p.probe(dctx, addr)
		cancel()
		if err == nil {
			_ = c.Close()
			return false
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return false
		}
	}
	return true
}

// forget closes the channel to addr.
func (p *peers) forget(addr string) {
	p.mu.Lock()
	pc := p.conns[addr]
	delete(p.conns, addr)
	p.mu.Unlock()
	if pc != nil {
		pc.cancel()
		_ = pc.cc.Close()
	}
}

// close closes every channel and waits for their watches to end.
func (p *peers) close() {
	p.mu.Lock()
	conns := p.conns
	p.conns, p.closed = map[string]*peerConn{}, true
	p.mu.Unlock()
	for _, pc := range conns {
		pc.cancel()
		_ = pc.cc.Close()
	}
	p.watches.Wait()
}
