package client

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// queryStream multiplexes query calls (Execute, Fetch, Close) to one member
// over QueryService.Pipeline, the way the map calls share the pipeline
// stream: each call carries an id and waits for the reply with that id.
type queryStream struct {
	addr    string
	cn      *conn // the connection it runs on (answers count as signs of life)
	stream  pb.QueryService_PipelineClient
	sender  *streamSender
	cancel  context.CancelFunc
	mu      sync.Mutex
	pending map[uint64]chan *pb.QueryReply
	// abandoned are Execute calls whose caller gave up waiting: their
	// reply, when it comes, may name a cursor nobody will fetch from,
	// which is closed at once rather than left to the member's idle
	// timeout (with the memory its query holds). Guarded by mu.
	abandoned map[uint64]bool
	nextID    atomic.Uint64
	failed    error // set once the stream broke; guarded by mu
	done      chan struct{}
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
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := pb.NewQueryServiceClient(cn.cc).Pipeline(ctx)
	if err != nil {
		cancel()
		return nil, errorFromStatus(err, cn.addr)
	}
	qs := &queryStream{addr: cn.addr, cn: cn, stream: stream, cancel: cancel, pending: map[uint64]chan *pb.QueryReply{},
		abandoned: map[uint64]bool{}, done: make(chan struct{})}
	qs.sender = newStreamSender(stream, func(err error) { qs.fail(&connError{member: qs.addr, sent: true, err: err}) })
	go qs.receive()
	c.qstreams.m[cn] = qs
	return qs, nil
}

func (qs *queryStream) receive() {
	defer close(qs.done)
	for {
		r, err := qs.stream.Recv()
		if err != nil {
			if err == io.EOF {
				err = errStreamEnded
			}
			qs.fail(&connError{member: qs.addr, sent: true, err: err})
			return
		}
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
	qs.cancel()
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
	id := qs.nextID.Add(1)
	call.CallId = id
	msg, err := encodeRequest(call, qs.cn.limits)
	if err != nil {
		return nil, err
	}
	ch := make(chan *pb.QueryReply, 1)
	qs.mu.Lock()
	if qs.failed != nil {
		err := qs.failed
		qs.mu.Unlock()
		msg.data.Free()
		return nil, err
	}
	qs.pending[id] = ch
	qs.mu.Unlock()
	if err := qs.sender.send(ctx, outgoing{msg: msg}); err != nil {
		msg.data.Free()
		qs.mu.Lock()
		delete(qs.pending, id)
		failed := qs.failed
		qs.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case failed != nil:
			return nil, failed
		}
		return nil, &connError{member: qs.addr, err: err}
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			if r.Error.GrpcCode == failedCall {
				return nil, qs.failure()
			}
			return nil, errorFromPipeline(r.Error, qs.addr)
		}
		return r.Result, nil
	case <-ctx.Done():
		qs.mu.Lock()
		if _, waiting := qs.pending[id]; waiting {
			delete(qs.pending, id)
			if _, execute := call.Op.(*pb.QueryCall_Execute); execute {
				qs.abandoned[id] = true
			}
		}
		qs.mu.Unlock()
		select {
		case r := <-ch: // the reply came as the caller gave up
			qs.closeOrphan(r)
		default:
			// The member stops the call (an Execute's planning and query).
			qs.sendOneWay(&pb.QueryCall{CallId: id, Op: &pb.QueryCall_Cancel{Cancel: true}})
		}
		return nil, ctx.Err()
	}
}

// sendOneWay queues a call no caller waits for (a cancel, the close of an
// orphan cursor), as far as the stream takes it at once.
func (qs *queryStream) sendOneWay(call *pb.QueryCall) {
	msg, err := encodeRequest(call, qs.cn.limits)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if qs.sender.send(ctx, outgoing{msg: msg}) != nil {
		msg.data.Free()
	}
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

// close ends the stream and waits for its receiver.
func (qs *queryStream) close() {
	select {
	case <-qs.sender.stop():
	case <-time.After(closeGrace):
	}
	qs.cancel()
	<-qs.done
}
