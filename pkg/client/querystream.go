package client

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/frame"
)

// queryStream multiplexes query calls (Execute, Fetch, Close) to one member:
// each call carries an id and waits for the reply with that id. They
// travel on the connection's framed pipe when the member offers it
// (pipeQueries), else on a QueryService.Pipeline stream (grpcQueries).
type queryStream struct {
	addr    string
	cn      *conn // the connection it runs on (answers count as signs of life)
	tr      queryTransport
	mu      sync.Mutex
	pending map[uint64]chan *pb.QueryReply
	// abandoned are Execute calls whose caller gave up waiting: their
	// reply, when it comes, may name a cursor nobody will fetch from,
	// which is closed at once rather than left to the member's idle
	// timeout (with the memory its query holds). Guarded by mu.
	abandoned map[uint64]bool
	nextID    atomic.Uint64
	failed    error // set once the stream broke; guarded by mu
}

// queryTransport carries a query stream's calls to its member.
type queryTransport interface {
	// send queues call: a call that cannot be encoded or is over the
	// member's limit fails with a *RequestError, one that finds no room
	// before ctx ends with ctx's error; neither was sent.
	send(ctx context.Context, call *pb.QueryCall) error
	// abort ends the transport at once (the stream failed).
	abort()
	// close ends it after what was queued went out.
	close()
}

// queryStreams holds one stream per connection.
type queryStreams struct {
	mu sync.Mutex
	m  map[*conn]*queryStream
}

// queryStreamFor returns the query stream of a connection, opening it.
func (c *Client) queryStreamFor(cn *conn) (*queryStream, error) {
	c.qstreams.mu.Lock()
	defer c.qstreams.mu.Unlock()
	if c.qstreams.m == nil {
		c.qstreams.m = map[*conn]*queryStream{}
	}
	if qs := c.qstreams.m[cn]; qs != nil {
		qs.mu.Lock()
		ok := qs.failed == nil
		qs.mu.Unlock()
		if ok {
			return qs, nil
		}
		delete(c.qstreams.m, cn)
	}
	// Forget streams of connections that were replaced.
	for old := range c.qstreams.m {
		if !old.usable() {
			delete(c.qstreams.m, old)
		}
	}
	qs := &queryStream{addr: cn.addr, cn: cn, pending: map[uint64]chan *pb.QueryReply{}, abandoned: map[uint64]bool{}}
	if cn.pipe.queries {
		qs.tr = &pipeQueries{p: cn.pipe, limits: cn.limits}
		cn.queries.Store(qs)
		if ce := cn.broken.Load(); ce != nil {
			// It broke before it knew of the stream.
			qs.fail(ce)
		}
	} else if err := openGRPCQueries(qs); err != nil {
		return nil, err
	}
	c.qstreams.m[cn] = qs
	return qs, nil
}

// pipeQueries sends query calls on the connection's framed pipe; the
// connection's receiver hands their replies to the stream (deliver).
type pipeQueries struct {
	p      *pipe
	limits *limits
}

func (t *pipeQueries) send(ctx context.Context, call *pb.QueryCall) error {
	flush, err := t.p.w.Append(ctx, frame.KindQuery, func(b []byte) ([]byte, error) {
		start := len(b)
		b, err := proto.MarshalOptions{}.MarshalAppend(b, call)
		if err != nil {
			return b, &RequestError{Reason: err.Error(), kind: ErrInvalidArgument}
		}
		return b, t.limits.checkMessage(len(b) - start)
	})
	if flush {
		t.p.wake()
	}
	return err
}

func (t *pipeQueries) abort() {}
func (t *pipeQueries) close() {}

// grpcQueries sends query calls on a QueryService.Pipeline stream, whose
// receiver hands their replies to the stream.
type grpcQueries struct {
	qs     *queryStream
	stream pb.QueryService_PipelineClient
	sender *streamSender
	cancel context.CancelFunc
	done   chan struct{} // closed when the receiver ends
}

// openGRPCQueries opens qs's gRPC stream and makes it qs's transport.
func openGRPCQueries(qs *queryStream) error {
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := pb.NewQueryServiceClient(qs.cn.cc).Pipeline(ctx)
	if err != nil {
		cancel()
		return errorFromStatus(err, qs.addr)
	}
	t := &grpcQueries{qs: qs, stream: stream, cancel: cancel, done: make(chan struct{})}
	qs.tr = t // before anything can fail it
	t.sender = newStreamSender(stream, func(err error) { qs.fail(&connError{member: qs.addr, sent: true, err: err}) })
	go t.receive()
	return nil
}

func (t *grpcQueries) send(ctx context.Context, call *pb.QueryCall) error {
	msg, err := encodeRequest(call, t.qs.cn.limits)
	if err != nil {
		return err
	}
	if err := t.sender.send(ctx, outgoing{msg: msg}); err != nil {
		msg.data.Free()
		return err
	}
	return nil
}

func (t *grpcQueries) abort() { t.cancel() }

func (t *grpcQueries) close() {
	select {
	case <-t.sender.stop():
	case <-time.After(closeGrace):
	}
	t.cancel()
	<-t.done
}

func (t *grpcQueries) receive() {
	defer close(t.done)
	for {
		r, err := t.stream.Recv()
		if err != nil {
			if err == io.EOF {
				err = errStreamEnded
			}
			t.qs.fail(&connError{member: t.qs.addr, sent: true, err: err})
			return
		}
		t.qs.deliver(r)
	}
}

// deliver hands a reply to the call waiting for it.
func (qs *queryStream) deliver(r *pb.QueryReply) {
	qs.cn.seen()
	qs.mu.Lock()
	ch := qs.pending[r.CallId]
	delete(qs.pending, r.CallId)
	orphan := qs.abandoned[r.CallId]
	delete(qs.abandoned, r.CallId)
	qs.mu.Unlock()
	if ch != nil {
		ch <- r // buffered
	}
	if orphan {
		qs.closeOrphan(r)
	}
}

// fail ends the stream and every call waiting on it.
func (qs *queryStream) fail(err error) {
	qs.mu.Lock()
	if qs.failed == nil {
		qs.failed = err
	}
	pending := qs.pending
	qs.pending = map[uint64]chan *pb.QueryReply{}
	qs.mu.Unlock()
	for id, ch := range pending {
		ch <- &pb.QueryReply{CallId: id, Error: &pb.Error{GrpcCode: failedCall}}
	}
	qs.tr.abort()
}

// failure is the error of the calls a broken stream failed.
func (qs *queryStream) failure() error {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.failed
}

// call sends one call and waits for its reply (or ctx's end). A call that
// cannot be encoded fails with a *RequestError; the stream carries on.
func (qs *queryStream) call(ctx context.Context, call *pb.QueryCall) (*pb.ExecuteResponse, error) {
	pc, err := qs.start(ctx, call)
	if err != nil {
		return nil, err
	}
	return pc.wait(ctx)
}

// pendingCall is a call sent on a query stream, its reply still to come.
type pendingCall struct {
	qs      *queryStream
	id      uint64
	execute bool
	ch      chan *pb.QueryReply
}

// start sends one call; wait takes its reply.
func (qs *queryStream) start(ctx context.Context, call *pb.QueryCall) (*pendingCall, error) {
	id := qs.nextID.Add(1)
	call.CallId = id
	_, execute := call.Op.(*pb.QueryCall_Execute)
	pc := &pendingCall{qs: qs, id: id, execute: execute, ch: make(chan *pb.QueryReply, 1)}
	qs.mu.Lock()
	if qs.failed != nil {
		err := qs.failed
		qs.mu.Unlock()
		return nil, err
	}
	qs.pending[id] = pc.ch
	qs.mu.Unlock()
	if err := qs.tr.send(ctx, call); err != nil {
		qs.mu.Lock()
		delete(qs.pending, id)
		failed := qs.failed
		qs.mu.Unlock()
		var re *RequestError
		switch {
		case errors.As(err, &re):
			return nil, err
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case failed != nil:
			return nil, failed
		}
		return nil, &connError{member: qs.addr, err: err}
	}
	return pc, nil
}

// wait returns the call's reply, or ctx's error when ctx ends first (the
// call is then abandoned).
func (pc *pendingCall) wait(ctx context.Context) (*pb.ExecuteResponse, error) {
	select {
	case r := <-pc.ch:
		if r.Error != nil {
			if r.Error.GrpcCode == failedCall {
				return nil, pc.qs.failure()
			}
			return nil, errorFromPipeline(r.Error, pc.qs.addr)
		}
		return r.Result, nil
	case <-ctx.Done():
		pc.abandon()
		return nil, ctx.Err()
	}
}

// abandon gives up on the call's reply: the member stops the call, and a
// cursor its reply names is closed.
func (pc *pendingCall) abandon() {
	qs := pc.qs
	qs.mu.Lock()
	if _, waiting := qs.pending[pc.id]; waiting {
		delete(qs.pending, pc.id)
		if pc.execute {
			qs.abandoned[pc.id] = true
		}
	}
	qs.mu.Unlock()
	select {
	case r := <-pc.ch: // the reply came as the caller gave up
		qs.closeOrphan(r)
	default:
		// The member stops the call (an Execute's planning and query).
		qs.sendOneWay(&pb.QueryCall{CallId: pc.id, Op: &pb.QueryCall_Cancel{Cancel: true}})
	}
}

// sendOneWay queues a call no caller waits for (a cancel, the close of an
// orphan cursor), as far as the stream takes it at once.
func (qs *queryStream) sendOneWay(call *pb.QueryCall) {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	_ = qs.tr.send(ctx, call)
}

// closeOrphan closes the cursor of an Execute reply nobody waits for (in
// the background: the caller has gone, and the receiver must not block).
func (qs *queryStream) closeOrphan(r *pb.QueryReply) {
	if r.Error != nil || r.Result == nil || r.Result.CursorId == 0 {
		return
	}
	// Its reply is dropped: no call waits for it.
	go qs.sendOneWay(&pb.QueryCall{CallId: qs.nextID.Add(1), Op: &pb.QueryCall_Close{Close: &pb.CloseRequest{CursorId: r.Result.CursorId}}})
}

// close ends the stream once what it queued went out.
func (qs *queryStream) close() { qs.tr.close() }
