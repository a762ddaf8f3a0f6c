package client

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// queryStream multiplexes query calls (Execute, Fetch, Close) to one member
// over QueryService.Pipeline, the way the map calls share the pipeline
// stream: each call carries an id and waits for the reply with that id.
type queryStream struct {
	addr    string
	maxMsg  int   // the largest call it sends
	cn      *conn // the connection it runs on (answers count as signs of life)
	stream  pb.QueryService_PipelineClient
	cancel  context.CancelFunc
	sendMu  sync.Mutex
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
	stream, err := pb.NewQueryServiceClient(cn.cc).Pipeline(ctx, withEncodedMessages)
	if err != nil {
		cancel()
		return nil, errorFromStatus(err, cn.addr)
	}
	qs := &queryStream{addr: cn.addr, maxMsg: cn.maxMsg, cn: cn, stream: stream, cancel: cancel, pending: map[uint64]chan *pb.QueryReply{},
		abandoned: map[uint64]bool{}, done: make(chan struct{})}
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
				err = errors.New("the member closed the query stream")
			}
			qs.fail(errorFromStatus(err, qs.addr))
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
		ch <- &pb.QueryReply{CallId: id, Error: &pb.Error{GrpcCode: failedCall, Message: err.Error(), Detail: &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_UNAVAILABLE, Retryable: false}}}
	}
	qs.cancel()
}

// call sends one call and waits for its reply (or ctx's end). A call that
// cannot be encoded fails with a *RequestError; the stream carries on.
func (qs *queryStream) call(ctx context.Context, call *pb.QueryCall) (*pb.ExecuteResponse, error) {
	id := qs.nextID.Add(1)
	call.CallId = id
	msg, err := encodeRequest(call, qs.maxMsg)
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
	qs.sendMu.Lock()
	err = qs.stream.SendMsg(msg)
	qs.sendMu.Unlock()
	if err != nil {
		qs.fail(errorFromStatus(err, qs.addr))
		qs.mu.Lock()
		delete(qs.pending, id)
		qs.mu.Unlock()
		return nil, errorFromStatus(err, qs.addr)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			if r.Error.GrpcCode == failedCall {
				return nil, &connError{member: qs.addr, sent: true, err: errors.New(r.Error.Message)}
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
			qs.sendMu.Lock()
			_ = qs.stream.Send(&pb.QueryCall{CallId: id, Op: &pb.QueryCall_Cancel{Cancel: true}})
			qs.sendMu.Unlock()
		}
		return nil, ctx.Err()
	}
}

// closeOrphan closes the cursor of an Execute reply nobody waits for (in
// the background: the caller has gone, and the receiver must not block).
func (qs *queryStream) closeOrphan(r *pb.QueryReply) {
	if r.Error != nil || r.Result == nil || r.Result.CursorId == 0 {
		return
	}
	closing := &pb.QueryCall{CallId: qs.nextID.Add(1), Op: &pb.QueryCall_Close{Close: &pb.CloseRequest{CursorId: r.Result.CursorId}}}
	go func() {
		qs.sendMu.Lock()
		defer qs.sendMu.Unlock()
		_ = qs.stream.Send(closing) // its reply is dropped: no call waits for it
	}()
}

// close ends the stream and waits for its receiver.
func (qs *queryStream) close() {
	qs.sendMu.Lock()
	_ = qs.stream.CloseSend()
	qs.sendMu.Unlock()
	qs.cancel()
	<-qs.done
}
