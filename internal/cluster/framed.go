package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/frame"
)

// Framed member streams
//
// The changes an owner streams to a backup travel on a member connection
// of their own in the frames of internal/frame rather than on a gRPC
// stream: one write carries a batch, one read takes it, with no HTTP/2
// framing, flow control or goroutines between the connection and the
// replicator. The connection opens like every member connection (the
// member handshake, inside TLS when members have it, so that only a member
// that proved it belongs reaches the stream); then, where gRPC would start
// HTTP/2, the dialer sends frame.Preamble and a FramedStreamHello, and the
// listener answers with an empty hello frame. Batches (ReplicationBatch)
// go one way, acknowledgements (ReplicationAck) the other, each in a
// KindCall frame. The traffic is counted per peer like gRPC's
// (Config.Traffic).

// streamReplicate names the replication stream in its hello.
const streamReplicate = "replicate"

// FramedHandler serves a framed member stream another layer registered
// (HandleFramed): it owns conn, whose frames rd reads, counts its
// messages in traffic (the dialing member's) and returns when the stream
// ends. The node closes conn when it stops.
type FramedHandler func(conn net.Conn, rd *frame.Reader, traffic Traffic)

// HandleFramed serves the framed streams named stream with h. Call it
// before Start; "replicate" is the node's own.
func (n *Node) HandleFramed(stream string, h FramedHandler) {
	n.framedMu.Lock()
	defer n.framedMu.Unlock()
	if n.framed == nil {
		n.framed = map[string]FramedHandler{}
	}
	n.framed[stream] = h
}

// Traffic returns the counters of the framed streams with the member at
// addr (Config.Traffic's).
func (n *Node) Traffic(addr string) Traffic { return n.traffic(addr) }

// DialFramed opens a framed stream named stream to the member at addr,
// which a handler of that name serves there (HandleFramed); ctx bounds
// the opening only. A member that serves no such stream refuses it with
// ErrStreamRefused.
func (n *Node) DialFramed(ctx context.Context, addr, stream string) (net.Conn, *frame.Reader, error) {
	return n.dialFramed(ctx, addr, stream)
}

// framedHelloTimeout bounds the hello exchange of a framed stream.
const framedHelloTimeout = 10 * time.Second

// framedReadBuffer is a framed stream's read buffer.
const framedReadBuffer = 64 << 10

// Traffic counts the messages of member streams with one peer member.
type Traffic = frame.Traffic

// traffic returns the counters of the member at addr.
func (n *Node) traffic(addr string) Traffic {
	if n.cfg.Traffic == nil {
		return frame.NoTraffic{}
	}
	return n.cfg.Traffic(addr)
}

// framedStream is one framed member stream of encoded messages (a
// ReplicationBatch one way, a ReplicationAck the other: change.go),
// written and read by one goroutine each.
type framedStream struct {
	conn    net.Conn
	rd      *frame.Reader
	traffic Traffic
	buf     []byte
	mu      sync.Mutex // serializes Send (a stream has one writer, CloseSend may race it)
}

// Send writes one message.
func (s *framedStream) Send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := frame.Append(s.buf[:0], frame.KindCall, msg)
	t := time.Now()
	_, err := s.conn.Write(b)
	if cap(b) <= 1<<20 {
		s.buf = b[:0]
	} else {
		s.buf = nil
	}
	if err == nil {
		s.traffic.Sent(len(msg), time.Since(t))
	}
	return err
}

// Recv reads one message, valid until the next Recv; io.EOF when the
// peer closed the stream.
func (s *framedStream) Recv() ([]byte, error) {
	s.rd.Release()
	f, err := s.rd.Next()
	if err != nil {
		return nil, err
	}
	if f.Kind != frame.KindCall || f.Skipped {
		return nil, fmt.Errorf("cluster: a framed stream sent a frame of kind %d (%d bytes)", f.Kind, f.Size)
	}
	s.traffic.Received(f.Size)
	return f.Payload, nil
}

// CloseSend ends the stream from this side: the peer reads io.EOF once it
// has read what came before.
func (s *framedStream) CloseSend() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cw, ok := s.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return s.conn.Close()
}

// openReplicate opens a replication stream to the member at addr; ctx
// bounds the opening, closing conn (through the stream) ends it.
func (n *Node) openReplicate(ctx context.Context, addr string) (*framedStream, net.Conn, error) {
	conn, rd, err := n.dialFramed(ctx, addr, streamReplicate)
	if err != nil {
		return nil, nil, err
	}
	return &framedStream{conn: conn, rd: rd, traffic: n.traffic(addr)}, conn, nil
}

// dialFramed opens a framed member stream to the member at addr: a member
// connection, then the preamble and hello, which the member must accept.
func (n *Node) dialFramed(ctx context.Context, addr, stream string) (net.Conn, *frame.Reader, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, framedHelloTimeout)
		defer cancel()
	}
	raw, err := n.peers.probe(ctx, addr)
	if err != nil {
		return nil, nil, err
	}
	conn, _, err := n.creds.ClientHandshake(ctx, addr, raw)
	if err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	fail := func(err error) (net.Conn, *frame.Reader, error) {
		_ = conn.Close()
		return nil, nil, err
	}
	dl, _ := ctx.Deadline()
	_ = conn.SetDeadline(dl)
	hello, err := proto.Marshal(&memberv1.FramedStreamHello{Stream: stream, Member: n.self.Address})
	if err != nil {
		return fail(err)
	}
	if _, err := conn.Write(frame.Append(append([]byte(nil), frame.Preamble...), frame.KindHello, hello)); err != nil {
		return fail(err)
	}
	rd := frame.NewReader(conn, framedReadBuffer, n.cfg.MaxMessageSize, n.cfg.MaxMessageSize)
	f, err := rd.Next()
	switch {
	case err != nil:
		return fail(fmt.Errorf("cluster: the member at %s did not open a %s stream: %w", addr, stream, err))
	case f.Kind != frame.KindHello || f.Size != 0:
		return fail(fmt.Errorf("%w: the member at %s refused a %s stream: %q", ErrStreamRefused, addr, stream, f.Payload))
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, rd, nil
}

// serveFramed takes a framed stream from the handshake
// (HandshakeConfig.MemberFramed): it reads the preamble and hello, then
// serves the stream on a goroutine of its own. It owns conn.
func (n *Node) serveFramed(conn net.Conn, _ PeerInfo) {
	_ = conn.SetDeadline(time.Now().Add(framedHelloTimeout))
	pre := make([]byte, len(frame.Preamble))
	if _, err := io.ReadFull(conn, pre); err != nil || !bytes.Equal(pre, frame.Preamble) {
		_ = conn.Close()
		return
	}
	hello := &memberv1.FramedStreamHello{}
	rd := frame.NewReader(conn, framedReadBuffer, n.cfg.MaxMessageSize, n.cfg.MaxMessageSize)
	f, err := rd.Next()
	if err != nil || f.Kind != frame.KindHello || f.Skipped || proto.Unmarshal(f.Payload, hello) != nil {
		_ = conn.Close()
		return
	}
	n.framedMu.Lock()
	handler := n.framed[hello.Stream]
	n.framedMu.Unlock()
	if hello.Stream != streamReplicate && handler == nil {
		_, _ = conn.Write(frame.Append(nil, frame.KindHello, []byte("unknown stream "+hello.Stream)))
		_ = conn.Close()
		return
	}
	if _, err := conn.Write(frame.Append(nil, frame.KindHello, nil)); err != nil {
		_ = conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	if handler != nil {
		if !n.goRun(func(life context.Context) {
			stop := context.AfterFunc(life, func() { _ = conn.Close() })
			defer stop()
			handler(conn, rd, n.traffic(hello.Member))
		}) {
			_ = conn.Close()
		}
		return
	}
	st := &framedStream{conn: conn, rd: rd, traffic: n.traffic(hello.Member)}
	served := n.goRun(func(life context.Context) {
		defer conn.Close()
		stop := context.AfterFunc(life, func() { _ = conn.Close() })
		defer stop()
		if err := n.replicate(st); err != nil && !errors.Is(err, io.EOF) && life.Err() == nil {
			n.log.Debug("a replication stream ended", "member", hello.Member, "err", err)
		}
	})
	if !served {
		_ = conn.Close()
	}
}
