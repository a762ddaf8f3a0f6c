package server

import (
	"context"
	"sync"

	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/frame"
)

// Query calls on the framed pipeline
//
// A framed connection carries the calls of QueryService's Pipeline stream
// too, in frames of kind frame.KindQuery (its welcome says so): the same
// QueryCall and QueryReply, run by the same runCall with the same access
// check, so that a client's queries travel beside its map calls without
// gRPC between them and the socket. Each call runs on a goroutine of its
// own, as on the stream: an Execute waits for the fragments it sent to
// other members and must not hold up the reader. The exception is the
// part of a query a client sent to each owner that is a lookup in an
// index (exec.Engine.RunsInline) whose plan is cached: bounded by a page of
// rows, it runs on the reader, like a map call, and its reply leaves with
// the other frames the reader owes, in one write, without a goroutine to
// wake. At most
// PipelineInFlight query calls run at once; a cancel stops the call it
// names; a call over limits.max-message-size fails alone with TOO_LARGE.
// The cursors the calls open belong to the connection and close when it
// ends. A draining member answers the query calls it runs, like its map
// calls, before its go-away.

// framedQueries is the query side of a framed connection.
type framedQueries struct {
	ctx     context.Context // the calls': the connection's, with its cursor session
	session *exec.Session
	sem     chan struct{} // bounds the calls running at once

	mu      sync.Mutex
	running map[uint64]context.CancelFunc // by call id
}

func newFramedQueries(ctx context.Context, inFlight int) *framedQueries {
	session := exec.NewSession()
	return &framedQueries{ctx: context.WithValue(ctx, sessionKey{}, session), session: session,
		sem: make(chan struct{}, inFlight), running: map[uint64]context.CancelFunc{}}
}

// cancel stops the running call id, if any.
func (q *framedQueries) cancel(id uint64) {
	q.mu.Lock()
	stop := q.running[id]
	q.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// query starts the query call f carries; false ends the connection (a call
// that names no id cannot be answered).
func (c *framedConn) query(f frame.Frame) bool {
	if f.Skipped {
		id := frame.CallID(f.Payload)
		err := &TooLargeError{Op: "query", What: "request", Size: f.Size, Limit: c.s.cfg.MaxMessageSize, Unit: "bytes", Setting: "limits.max-message-size"}
		return id != 0 && c.replyLocal(queryReply{msg: &pb.QueryReply{CallId: id, Error: toPipelineError(err)}})
	}
	call := &pb.QueryCall{}
	if err := proto.Unmarshal(f.Payload, call); err != nil {
		id := frame.CallID(f.Payload)
		return id != 0 && c.replyLocal(queryReply{msg: &pb.QueryReply{CallId: id, Error: toPipelineError(invalid("the query call could not be decoded: %v", err))}})
	}
	q := c.queries
	if _, ok := call.Op.(*pb.QueryCall_Cancel); ok {
		q.cancel(call.CallId)
		return true
	}
	if run, ok := c.admitCall(q.sem); !run {
		return ok
	}
	pre := c.s.queries.planByPartitions(call)
	if pre != nil && pre.inline {
		reply := c.s.queries.runCall(q.ctx, call, pre, true)
		<-q.sem
		c.calls.Done()
		return c.replyLocal(reply)
	}
	ctx, stop := context.WithCancel(q.ctx)
	q.mu.Lock()
	q.running[call.CallId] = stop
	q.mu.Unlock()
	c.s.goQuery(func() {
		reply := c.s.queries.runCall(ctx, call, pre, true)
		q.mu.Lock()
		delete(q.running, call.CallId)
		q.mu.Unlock()
		stop()
		c.reply(reply)
		<-q.sem
		c.calls.Done()
	})
	return true
}

// replyLocal appends a query call's reply from the reader (flushed once
// it has run what it read); false when the connection broke.
func (c *framedConn) replyLocal(r queryReply) bool {
	defer r.release()
	return c.appendLocal(frame.KindQuery, r.appendTo)
}

// reply sends a query call's reply from the goroutine that ran it.
func (c *framedConn) reply(r queryReply) {
	defer r.release()
	_ = c.flushed(c.w.Append(context.Background(), frame.KindQuery, r.appendTo))
}
