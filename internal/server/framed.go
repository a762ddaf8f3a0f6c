package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/security"
)

// The framed pipeline
//
// The Go client sends its map calls on a connection of their own in the
// frames of internal/frame rather than on a gRPC stream: the same
// PipelineRequest and PipelineResponse messages, run by the same runCall
// (the access check of each call, its timeout, the handlers), without
// HTTP/2's framing, flow control and the goroutines gRPC puts between a
// connection and a handler. The connection is admitted as a Pipeline
// stream is (its hello carries what a call's authorization header would,
// and the connection's handshake what it established), joins its client's
// session like a Connect, and counts as an open stream for a drain. A call
// over limits.max-message-size fails alone with TOO_LARGE, as on the
// stream.
//
// The connection's reader runs the plain key operations itself (a get, a
// set, a remove...) instead of starting a goroutine for each: they never
// wait but for a lock in their way and for their backups. A lock in the
// way makes the call give up before it changed anything (errWouldWait),
// and it then runs on a goroutine of its own like any other call. A write
// does not wait for its backups either: the replicator tells the
// connection once they confirmed it (cluster.Backups.Notify), from the
// goroutine that received their acknowledgement, and the answer goes out
// then. The answers of the calls the reader ran go out in one write once
// it has run every call it had read; those of writes a backup confirmed,
// through the connection's flusher, in one write per acknowledgement. Draining, the member stops taking calls, answers those it runs,
// and sends a go-away (SHUTTING_DOWN) before it closes: the client knows
// that the calls still unanswered never ran.

// framedHelloTimeout bounds the preamble and hello of a connection.
const framedHelloTimeout = 10 * time.Second

// framedReadBuffer is a connection's read buffer: a call that fits is
// decoded where it was read.
const framedReadBuffer = 64 << 10

// framedWriteLimit is how many bytes of answers may wait for a client
// that reads slowly before the calls answering wait too.
const framedWriteLimit = 1 << 20

// ServeFramed takes a framed pipeline connection from the member's
// handshake (cluster.HandshakeConfig.Framed): it reads the preamble and
// the hello, then serves the connection on goroutines of its own. It owns
// conn.
func (s *Server) ServeFramed(conn net.Conn, info cluster.PeerInfo) {
	_ = conn.SetDeadline(time.Now().Add(framedHelloTimeout))
	pre := make([]byte, len(frame.Preamble))
	if _, err := io.ReadFull(conn, pre); err != nil || !bytes.Equal(pre, frame.Preamble) {
		_ = conn.Close()
		return
	}
	rd := frame.NewReader(conn, framedReadBuffer, s.cfg.MaxMessageSize, ReceiveLimit(s.cfg.MaxMessageSize))
	f, err := rd.Next()
	hello := &pb.PipelineHello{}
	if err != nil || f.Kind != frame.KindHello || f.Skipped || proto.Unmarshal(f.Payload, hello) != nil {
		_ = conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	go s.serveFramed(conn, rd, info, hello)
}

// framedConn is one framed pipeline connection being served.
type framedConn struct {
	s    *Server
	conn net.Conn
	rd   *frame.Reader
	w    *frame.Writer
	ctx  context.Context // the calls', ended when the client goes
	sem  chan struct{}   // bounds the calls running at once

	// inline marks the call the reader runs (inlineCtx carries it).
	inline    inlineCall
	inlineCtx context.Context
	// owesFlush: the reader appended a frame it must flush before it
	// waits for the client.
	owesFlush bool
	// owesBackups: the reader ended writes whose changes it must send
	// to their backups (sendBackups).
	owesBackups bool
	// hotCall is the hot call being run, scratch the buffer its value
	// goes through, mapNames the map names it met (hot.go).
	hotCall  hotCall
	scratch  []byte
	mapNames map[string]string
	// kick wakes the flusher, which writes the answers of confirmed
	// writes; done ends it once the last call answered.
	kick chan struct{}
	done chan struct{}

	// queries runs the connection's query calls (framedquery.go).
	queries *framedQueries

	mu        sync.Mutex
	accepting bool // false once draining or ended: no call starts
	calls     sync.WaitGroup
}

func (s *Server) serveFramed(conn net.Conn, rd *frame.Reader, info cluster.PeerInfo, hello *pb.PipelineHello) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = peer.NewContext(ctx, &peer.Peer{Addr: conn.RemoteAddr(), LocalAddr: conn.LocalAddr(), AuthInfo: info})
	if hello.Authorization != "" {
		ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(security.AuthorizationHeader, hello.Authorization))
	}
	c := &framedConn{s: s, conn: conn, rd: rd, w: frame.NewWriter(conn, framedWriteLimit), sem: make(chan struct{}, s.cfg.PipelineInFlight), accepting: true,
		kick: make(chan struct{}, 1), done: make(chan struct{}), mapNames: map[string]string{}}
	ctx, err := s.admitFramed(ctx, hello)
	welcome := &pb.PipelineWelcome{Queries: true, PartitionQueries: true}
	if err != nil {
		welcome.Error = toPipelineError(err)
	}
	if c.send(frame.KindHello, welcome) != nil || err != nil {
		_ = conn.Close()
		return
	}
	c.ctx = ctx
	c.inlineCtx = context.WithValue(ctx, inlineKey{}, &c.inline)
	c.queries = newFramedQueries(ctx, s.cfg.PipelineInFlight)
	if qc := s.cfg.Query; qc != nil {
		defer qc.Engine.EndSession(c.queries.session)
	}
	if !s.framed.add(c) {
		_ = conn.Close()
		return
	}
	defer s.framed.remove(c)
	s.openSession(ctx, hello.ClientUuid)
	s.active.Add(1)
	defer s.active.Add(-1)
	drained := make(chan struct{})
	stopDrain := context.AfterFunc(s.life, func() {
		defer close(drained)
		c.drain()
	})
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		c.flusher()
	}()
	c.read()
	c.stop()
	cancel()
	c.calls.Wait()
	close(c.done)
	<-flushed
	if !stopDrain() {
		<-drained
	}
	_ = conn.Close()
}

// flusher writes what confirmed writes appended, until done.
func (c *framedConn) flusher() {
	for {
		select {
		case <-c.kick:
			_ = c.w.Flush()
		case <-c.done:
			select {
			case <-c.kick:
				_ = c.w.Flush()
			default:
			}
			return
		}
	}
}

// admitFramed admits a framed connection as a Pipeline stream and its
// client as a Connect would be.
func (s *Server) admitFramed(ctx context.Context, hello *pb.PipelineHello) (context.Context, error) {
	ctx, _, err := s.access.admit(ctx, pb.PipelineService_Pipeline_FullMethodName)
	if err != nil {
		return ctx, err
	}
	if err := s.admit(ctx); err != nil {
		return ctx, err
	}
	if hello.ClusterName != s.cfg.ClusterName {
		return ctx, &clusterNameError{got: hello.ClusterName}
	}
	return ctx, nil
}

// read runs the connection's frames until the client closes it, it
// breaks, or the client breaks the protocol.
func (c *framedConn) read() {
	defer c.sendBackups()
	for {
		f, err := c.rd.Next()
		if err != nil {
			return
		}
		switch f.Kind {
		case frame.KindCall:
			if !c.call(f) {
				return
			}
		case frame.KindQuery:
			if !c.query(f) {
				return
			}
		case frame.KindPing:
			if f.Skipped || f.Size > frame.MaxPing {
				return
			}
			payload := f.Payload
			if !c.appendLocal(frame.KindPong, func(b []byte) ([]byte, error) { return append(b, payload...), nil }) {
				return
			}
		default:
			return // not a client's frame
		}
		c.rd.Release()
		if c.inline.unsent {
			c.inline.unsent, c.owesBackups = false, true
		}
		if c.rd.Buffered() == 0 {
			c.sendBackups()
			if !c.flushOwed() {
				return
			}
		}
	}
}

// sendBackups sends the changes of the writes the reader ran to their
// backups.
func (c *framedConn) sendBackups() {
	if c.owesBackups {
		c.owesBackups = false
		c.s.cfg.Cluster.SendBackups()
	}
}

// flushOwed writes what the reader appended; false when the connection
// broke.
func (c *framedConn) flushOwed() bool {
	if !c.owesFlush {
		return true
	}
	c.owesFlush = false
	return c.w.Flush() == nil
}

// appendLocal appends a frame from the reader, to be flushed once it has
// run what it read; false when the connection broke.
func (c *framedConn) appendLocal(kind byte, fill func([]byte) ([]byte, error)) bool {
	flush, err := c.w.Append(context.Background(), kind, fill)
	c.owesFlush = c.owesFlush || flush
	return err == nil || c.w.Err() == nil
}

// call starts the call f carries; false ends the connection (a call that
// names no id cannot be answered).
func (c *framedConn) call(f frame.Frame) bool {
	if f.Skipped {
		id := frame.CallID(f.Payload)
		err := &TooLargeError{Op: "pipeline", What: "request", Size: f.Size, Limit: c.s.cfg.MaxMessageSize, Unit: "bytes", Setting: "limits.max-message-size"}
		return id != 0 && c.answerLocal(&pb.PipelineResponse{CallId: id, Error: toPipelineError(err)})
	}
	hot := parseHot(f.Payload, &c.hotCall)
	var req *pb.PipelineRequest
	if !hot {
		if req = c.decode(f.Payload); req == nil {
			return frame.CallID(f.Payload) != 0
		}
	}
	if run, ok := c.admitCall(c.sem); !run {
		return ok
	}
	switch {
	case hot:
		if c.hot(&c.hotCall) {
			return true
		}
		// A lock stands in its way: it waits on its own below.
		if req = c.decode(f.Payload); req == nil {
			c.done1()
			return true
		}
	case inlineable(req):
		c.inline = inlineCall{}
		resp := c.s.runInline(c.inlineCtx, req)
		switch {
		case c.inline.wouldWait:
			// A lock stands in its way: it waits on its own below.
		case c.inline.written && c.inline.backups.Needed():
			w := confirmations.Get().(*confirmation)
			w.c, w.resp = c, resp
			c.inline.backups.Notify(w)
			return true
		default:
			ok := c.answerLocal(resp)
			c.done1()
			return ok
		}
	}
	go func() {
		c.answer(c.s.runCall(c.ctx, req))
		c.done1()
	}()
	return true
}

// admitCall takes a place in sem for a call the reader read and counts it
// among the connection's calls: run says it may start. A draining
// connection runs it not (its go-away tells the client it never ran);
// ok false ends the connection (it broke, or the client went while the
// call waited for a place).
func (c *framedConn) admitCall(sem chan struct{}) (run, ok bool) {
	select {
	case sem <- struct{}{}:
	default:
		// Full: what the reader answered goes out before it waits.
		if !c.flushOwed() {
			return false, false
		}
		select {
		case sem <- struct{}{}:
		case <-c.ctx.Done():
			return false, false
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.accepting {
		<-sem
		return false, true
	}
	c.calls.Add(1)
	return true, true
}

// done1 ends a call that ran: its place is free.
func (c *framedConn) done1() {
	<-c.sem
	c.calls.Done()
}

// inlineable reports whether the reader may run req itself: a plain key
// operation, which waits only for a lock in its way or for its backups.
func inlineable(req *pb.PipelineRequest) bool {
	switch req.Op.(type) {
	case *pb.PipelineRequest_Get, *pb.PipelineRequest_ContainsKey, *pb.PipelineRequest_GetEntryView,
		*pb.PipelineRequest_Put, *pb.PipelineRequest_Set, *pb.PipelineRequest_PutIfAbsent,
		*pb.PipelineRequest_Remove, *pb.PipelineRequest_Delete, *pb.PipelineRequest_RemoveIfSame,
		*pb.PipelineRequest_Replace, *pb.PipelineRequest_ReplaceIfSame, *pb.PipelineRequest_Evict, *pb.PipelineRequest_SetTtl:
		return true
	}
	return false
}

// inlineCall marks the call a framed pipeline's reader runs itself, which
// must not wait: a lock in its way makes it give up before it changed
// anything (wouldWait, with errWouldWait), and a write that changed the
// store leaves what it needs of its backups to the reader (written,
// backups).
type inlineCall struct {
	wouldWait bool
	written   bool
	// unsent: the call ended a write whose change the reader sends
	// (Cluster.SendBackups).
	unsent  bool
	backups cluster.Backups
}

type inlineKey struct{}

// inlineOf returns the mark of a call the reader runs, or nil.
func inlineOf(ctx context.Context) *inlineCall {
	in, _ := ctx.Value(inlineKey{}).(*inlineCall)
	return in
}

// errWouldWait: a call the reader ran met a lock it would have to wait
// for.
var errWouldWait = errors.New("server: the call would wait for a lock")

// answerLocal appends a call's response from the reader (flushed once it
// has run what it read); false when the connection broke.
func (c *framedConn) answerLocal(resp *pb.PipelineResponse) bool {
	return c.appendLocal(frame.KindCall, func(b []byte) ([]byte, error) {
		return marshalResponse(b, resp)
	})
}

// answer sends a call's response from a goroutine of its own; false when
// the connection broke.
func (c *framedConn) answer(resp *pb.PipelineResponse) bool {
	return c.flushed(c.w.Append(context.Background(), frame.KindCall, func(b []byte) ([]byte, error) {
		return marshalResponse(b, resp)
	})) == nil
}

// internalEncodingError is the error of a call whose answer could not be
// encoded.
func internalEncodingError(err error) *pb.Error {
	msg := strings.ToValidUTF8(fmt.Sprintf("internal error: the answer could not be encoded: %v", err), "?")
	return &pb.Error{GrpcCode: int32(codes.Internal), Message: msg}
}

// decode decodes a call the hot path does not take; a call that cannot be
// decoded is answered with the error (and nil returned).
func (c *framedConn) decode(payload []byte) *pb.PipelineRequest {
	req := &pb.PipelineRequest{}
	if err := proto.Unmarshal(payload, req); err != nil {
		if id := frame.CallID(payload); id != 0 {
			c.answerLocal(&pb.PipelineResponse{CallId: id, Error: toPipelineError(invalid("the call could not be decoded: %v", err))})
		}
		return nil
	}
	return req
}

// send writes a frame of kind carrying msg.
func (c *framedConn) send(kind byte, msg proto.Message) error {
	return c.flushed(c.w.Append(context.Background(), kind, func(b []byte) ([]byte, error) {
		return proto.MarshalOptions{}.MarshalAppend(b, msg)
	}))
}

// flushed flushes the writer when Append said so.
func (c *framedConn) flushed(flush bool, err error) error {
	if err != nil {
		return err
	}
	if flush {
		return c.w.Flush()
	}
	return nil
}

// stop lets no call start.
func (c *framedConn) stop() {
	c.mu.Lock()
	c.accepting = false
	c.mu.Unlock()
}

// drain ends the connection as the member drains: no call starts, the
// running ones answer, then a go-away and the connection's end.
func (c *framedConn) drain() {
	c.stop()
	c.calls.Wait()
	_ = c.send(frame.KindGoAway, toPipelineError(ErrShuttingDown))
	_ = c.conn.Close()
}

// framedConns are the framed connections a server serves, so that a
// shutdown can wait for them or cut them (gRPC knows nothing of them).
type framedConns struct {
	mu     sync.Mutex
	conns  map[*framedConn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// add tracks c; false when the server has cut its connections.
func (f *framedConns) add(c *framedConn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	if f.conns == nil {
		f.conns = map[*framedConn]struct{}{}
	}
	f.conns[c] = struct{}{}
	f.wg.Add(1)
	return true
}

func (f *framedConns) remove(c *framedConn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	f.wg.Done()
}

// WaitFramed waits until every framed pipeline connection has ended (after
// Drain they end once their calls are answered), or ctx ends.
func (s *Server) WaitFramed(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.framed.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CloseFramed closes every framed pipeline connection at once, and any
// that arrives later: the calls they run lose their clients.
func (s *Server) CloseFramed() {
	s.framed.mu.Lock()
	s.framed.closed = true
	conns := make([]*framedConn, 0, len(s.framed.conns))
	for c := range s.framed.conns {
		conns = append(conns, c)
	}
	s.framed.mu.Unlock()
	for _, c := range conns {
		_ = c.conn.Close()
	}
}
