package cluster

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
)

// gossipTransport is a memberlist.Transport that carries gossip over the
// members' gRPC connections instead of separate UDP and TCP ports: a
// member needs one address, and joining names that address. Packets are
// fire and forget (queued per peer, dropped when the queue is full, as UDP
// would); streams are gRPC bidirectional streams wrapped as net.Conn.
type gossipTransport struct {
	self    string // our member address, host:port
	peers   *peers
	packets chan *memberlist.Packet
	streams chan net.Conn

	mu      sync.Mutex
	queues  map[string]chan []byte
	stop    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
}

var _ memberlist.Transport = (*gossipTransport)(nil)

func newGossipTransport(self string, p *peers) *gossipTransport {
	return &gossipTransport{
		self: self, peers: p,
		packets: make(chan *memberlist.Packet, 1024),
		streams: make(chan net.Conn, 64),
		queues:  map[string]chan []byte{},
		stop:    make(chan struct{}),
	}
}

// FinalAdvertiseAddr returns the member address: gossip shares it.
func (t *gossipTransport) FinalAdvertiseAddr(string, int) (net.IP, int, error) {
	addr, err := net.ResolveTCPAddr("tcp", t.self)
	if err != nil {
		return nil, 0, err
	}
	return addr.IP, addr.Port, nil
}

// WriteTo queues a packet for addr and returns at once.
func (t *gossipTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	q := t.queue(addr)
	if q == nil {
		return time.Time{}, errStopped
	}
	select {
	case q <- append([]byte(nil), b...):
	default: // the peer is slow or gone: drop, as a full UDP buffer would
	}
	return time.Now(), nil
}

// queue returns the packet queue of addr, starting its sender.
func (t *gossipTransport) queue(addr string) chan []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.stop:
		return nil
	default:
	}
	q, ok := t.queues[addr]
	if !ok {
		q = make(chan []byte, 256)
		t.queues[addr] = q
		t.wg.Add(1)
		go t.send(addr, q)
	}
	return q
}

// idleSender is how long a peer's packet sender waits for a packet before
// it ends (it starts again with the next packet): members that are gone
// leave no goroutine behind.
const idleSender = time.Minute

func (t *gossipTransport) send(addr string, q chan []byte) {
	defer t.wg.Done()
	idle := time.NewTimer(idleSender)
	defer idle.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-idle.C:
			t.mu.Lock()
			if len(q) == 0 {
				delete(t.queues, addr)
				t.mu.Unlock()
				return
			}
			t.mu.Unlock()
			idle.Reset(idleSender)
		case b := <-q:
			idle.Reset(idleSender)
			c, err := t.peers.client(addr)
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, _ = c.GossipPacket(ctx, &memberv1.GossipPacketRequest{From: t.self, Payload: b})
			cancel()
		}
	}
}

// receivePacket hands a packet from the GossipPacket RPC to memberlist.
func (t *gossipTransport) receivePacket(from string, payload []byte) {
	addr, err := net.ResolveTCPAddr("tcp", from)
	if err != nil {
		return
	}
	select {
	case t.packets <- &memberlist.Packet{Buf: payload, From: addr, Timestamp: time.Now()}:
	case <-t.stop:
	default: // memberlist is behind: drop
	}
}

// PacketCh returns the channel of incoming packets.
func (t *gossipTransport) PacketCh() <-chan *memberlist.Packet { return t.packets }

// StreamCh returns the channel of incoming stream connections.
func (t *gossipTransport) StreamCh() <-chan net.Conn { return t.streams }

// DialTimeout opens a gossip stream to addr.
func (t *gossipTransport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	c, err := t.peers.client(addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	dctx, dcancel := context.WithTimeout(ctx, timeout)
	defer dcancel()
	stream, err := c.GossipStream(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	// Announce ourselves; the first Send also surfaces connection errors.
	done := make(chan error, 1)
	go func() { done <- stream.Send(&memberv1.GossipChunk{From: t.self}) }()
	select {
	case err := <-done:
		if err != nil {
			cancel()
			return nil, err
		}
	case <-dctx.Done():
		cancel()
		return nil, dctx.Err()
	}
	remote, _ := net.ResolveTCPAddr("tcp", addr)
	local, _ := net.ResolveTCPAddr("tcp", t.self)
	// gRPC forbids CloseSend during a Send. A close while a send is
	// blocked (a write deadline passed: the peer stopped reading) skips
	// the half-close; cancel ends the stream and the send either way.
	var sendMu sync.Mutex
	send := func(c *memberv1.GossipChunk) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(c)
	}
	conn := newStreamConn(local, remote, send, stream.Recv, func() {
		if sendMu.TryLock() {
			_ = stream.CloseSend()
			sendMu.Unlock()
		}
		cancel()
	})
	return conn, nil
}

// acceptStream serves one incoming gossip stream (the GossipStream RPC):
// it hands a connection to memberlist and returns when that is closed.
func (t *gossipTransport) acceptStream(stream memberv1.MemberService_GossipStreamServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	remote, err := net.ResolveTCPAddr("tcp", first.From)
	if err != nil {
		return err
	}
	local, _ := net.ResolveTCPAddr("tcp", t.self)
	closed := make(chan struct{})
	var once sync.Once
	conn := newStreamConn(local, remote, stream.Send, stream.Recv, func() { once.Do(func() { close(closed) }) })
	select {
	case t.streams <- conn:
	case <-t.stop:
		return errStopped
	}
	select {
	case <-closed:
	case <-stream.Context().Done():
		_ = conn.Close()
	case <-t.stop:
		_ = conn.Close()
	}
	return nil
}

// Shutdown stops the senders.
func (t *gossipTransport) Shutdown() error {
	t.stopped.Do(func() { close(t.stop) })
	t.wg.Wait()
	return nil
}

// streamConn adapts a gRPC stream of GossipChunks to net.Conn. A reader
// goroutine pumps chunks so that Read can honour deadlines.
type streamConn struct {
	local, remote net.Addr
	send          func(*memberv1.GossipChunk) error
	closeFn       func()

	in      chan []byte
	inErr   error // set before in is closed
	buf     []byte
	mu      sync.Mutex
	rdl     time.Time
	wdl     time.Time
	closed  chan struct{}
	closeMu sync.Once
}

func newStreamConn(local, remote net.Addr, send func(*memberv1.GossipChunk) error, recv func() (*memberv1.GossipChunk, error), closeFn func()) *streamConn {
	c := &streamConn{local: local, remote: remote, send: send, closeFn: closeFn, in: make(chan []byte, 16), closed: make(chan struct{})}
	go func() {
		defer close(c.in)
		for {
			chunk, err := recv()
			if err != nil {
				c.inErr = err
				return
			}
			if len(chunk.Data) == 0 {
				continue
			}
			select {
			case c.in <- chunk.Data:
			case <-c.closed:
				c.inErr = net.ErrClosed
				return
			}
		}
	}()
	return c
}

func (c *streamConn) Read(p []byte) (int, error) {
	if len(c.buf) == 0 {
		c.mu.Lock()
		dl := c.rdl
		c.mu.Unlock()
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			timer := time.NewTimer(d)
			defer timer.Stop()
			timeout = timer.C
		}
		select {
		case b, ok := <-c.in:
			if !ok {
				if errors.Is(c.inErr, io.EOF) || c.inErr == nil {
					return 0, io.EOF
				}
				return 0, c.inErr
			}
			c.buf = b
		case <-timeout:
			return 0, os.ErrDeadlineExceeded
		case <-c.closed:
			return 0, net.ErrClosed
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// maxChunk bounds the bytes of one gossip chunk.
const maxChunk = 64 << 10

func (c *streamConn) Write(p []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	c.mu.Lock()
	dl := c.wdl
	c.mu.Unlock()
	if !dl.IsZero() {
		d := time.Until(dl)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		// A send blocked past the deadline (the peer stopped reading)
		// ends by closing the stream.
		timer := time.AfterFunc(d, func() { _ = c.Close() })
		defer timer.Stop()
	}
	written := 0
	for len(p) > 0 {
		n := min(len(p), maxChunk)
		if err := c.send(&memberv1.GossipChunk{Data: append([]byte(nil), p[:n]...)}); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

func (c *streamConn) Close() error {
	c.closeMu.Do(func() {
		close(c.closed)
		c.closeFn()
	})
	return nil
}

func (c *streamConn) LocalAddr() net.Addr  { return c.local }
func (c *streamConn) RemoteAddr() net.Addr { return c.remote }

func (c *streamConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.rdl, c.wdl = t, t
	c.mu.Unlock()
	return nil
}

func (c *streamConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.rdl = t
	c.mu.Unlock()
	return nil
}

func (c *streamConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.wdl = t
	c.mu.Unlock()
	return nil
}

// hostPort splits an address, for messages.
func hostPort(addr string) (string, int) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}
