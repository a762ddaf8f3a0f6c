package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

type pipelineService struct {
	pb.UnimplementedPipelineServiceServer
	s *Server
}

// Pipeline runs the calls of one client stream. A receiver goroutine reads
// requests; this goroutine starts one goroutine per call, at most
// PipelineInFlight at a time: when that many are running it stops taking
// requests, which pushes back on the client through HTTP/2 flow control. A
// sender goroutine writes responses in completion order. A call over
// limits.max-message-size fails alone (receive.go). The stream ends
// when the client closes its side or when the member drains; either way the
// calls in flight finish and their responses are sent first.
func (p *pipelineService) Pipeline(stream pb.PipelineService_PipelineServer) error {
	s := p.s
	ctx := stream.Context()
	out := make(chan *pb.PipelineResponse, 256)
	sent := make(chan error, 1)
	go func() {
		var err error
		for resp := range out {
			if err == nil {
				err = stream.Send(resp)
			}
			// After a send error keep draining so that no call blocks.
		}
		sent <- err
	}()
	in := make(chan *receivedCall)
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		for {
			r := &receivedCall{msg: &pb.PipelineRequest{}}
			if err := stream.RecvMsg(r); err != nil {
				return
			}
			select {
			case in <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	sem := make(chan struct{}, s.cfg.PipelineInFlight)
	var calls sync.WaitGroup
loop:
	for {
		select {
		case <-recvDone:
			break loop // the client closed its side, or the stream broke
		case <-s.done:
			break loop // draining: finish what runs, then end the stream
		case r := <-in:
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				break loop
			}
			calls.Add(1)
			go func() {
				defer calls.Done()
				if err := r.tooLarge("pipeline", s.cfg.MaxMessageSize); err != nil {
					out <- &pb.PipelineResponse{CallId: r.callID, Error: toPipelineError(err)}
				} else {
					out <- s.runCall(ctx, r.msg.(*pb.PipelineRequest))
				}
				<-sem
			}()
		}
	}
	calls.Wait()
	close(out)
	if err := <-sent; err != nil {
		return err
	}
	if s.closing.Load() {
		return ErrShuttingDown
	}
	return ctx.Err()
}

// runCall runs one pipeline call with its timeout, turning a panic in a
// handler into an internal error instead of a crashed member.
func (s *Server) runCall(ctx context.Context, req *pb.PipelineRequest) (resp *pb.PipelineResponse) {
	defer s.recoverPipelineCall(req, &resp)
	if err := s.authorizeOp(ctx, req); err != nil {
		return &pb.PipelineResponse{CallId: req.CallId, Error: toPipelineError(err)}
	}
	if timeout := s.callTimeout(req); timeout > 0 {
		call := &callContext{Context: ctx, deadline: time.Now().Add(timeout)}
		defer call.end()
		ctx = call
	}
	return s.dispatch(ctx, req)
}

// runInline is runCall for a call that will not wait (a framed
// pipeline's reader runs it, framed.go): no timeout to start.
func (s *Server) runInline(ctx context.Context, req *pb.PipelineRequest) (resp *pb.PipelineResponse) {
	defer s.recoverPipelineCall(req, &resp)
	if err := s.authorizeOp(ctx, req); err != nil {
		return &pb.PipelineResponse{CallId: req.CallId, Error: toPipelineError(err)}
	}
	return s.dispatch(ctx, req)
}

// recoverPipelineCall turns a panic of req's handler into its internal
// error (deferred).
func (s *Server) recoverPipelineCall(req *pb.PipelineRequest, resp **pb.PipelineResponse) {
	if p := recover(); p != nil {
		*resp = &pb.PipelineResponse{CallId: req.CallId, Error: toPipelineError(s.recovered(fmt.Sprintf("pipeline call %d", req.CallId), p))}
	}
}

// callTimeout is how long req may take: its own timeout, else the
// member's default (0: none).
func (s *Server) callTimeout(req *pb.PipelineRequest) time.Duration {
	if timeout := time.Duration(req.TimeoutMs) * time.Millisecond; timeout > 0 {
		return timeout
	}
	return s.cfg.DefaultTimeout
}

// callContext is a pipeline call's context: the stream's, with the call's
// deadline. It starts a timer (context.WithDeadline) only when something
// waits on it: Done (a lock wait, a backup's round trip, a context
// derived from it) or AfterFunc. A call that waits for nothing, as a get
// or a set without backups, starts none: a timer and its context were a
// sixth of a member's allocations under gets. Deadline and Err say what
// the timed context would; values are the stream's; once the call ended
// (end), Done is closed and Err is context.Canceled, as after a timed
// context's cancel.
type callContext struct {
	context.Context // the stream's
	deadline        time.Time
	once            sync.Once
	armed           atomic.Bool
	timed           context.Context // once armed
	cancel          context.CancelFunc
}

// endedContext stands for the timed context of a call that ended before
// anything waited on it.
var endedContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

func (c *callContext) arm() {
	c.once.Do(func() {
		c.timed, c.cancel = context.WithDeadline(c.Context, c.deadline)
		c.armed.Store(true)
	})
}

// end ends the call: its timer, if it started one, stops.
func (c *callContext) end() {
	c.once.Do(func() {
		c.timed = endedContext
		c.armed.Store(true)
	})
	if c.cancel != nil {
		c.cancel()
	}
}

func (c *callContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *callContext) Done() <-chan struct{} {
	c.arm()
	return c.timed.Done()
}

func (c *callContext) Err() error {
	if c.armed.Load() {
		return c.timed.Err()
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// AfterFunc lets context.AfterFunc and contexts derived from this one
// follow it without a goroutine of their own.
func (c *callContext) AfterFunc(f func()) (stop func() bool) {
	c.arm()
	return context.AfterFunc(c.timed, f)
}

// pipelineOp is the oneof of a pipeline request's operation.
var pipelineOp = (&pb.PipelineRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("op")

// authorizeOp checks a pipeline call by the rule of the unary method it
// stands for.
func (s *Server) authorizeOp(ctx context.Context, req *pb.PipelineRequest) error {
	m := req.ProtoReflect()
	f := m.WhichOneof(pipelineOp)
	if f == nil {
		return invalid("pipeline call %d carries no operation", req.CallId)
	}
	return s.access.authorize(ctx, pipelineMethods[f.Number()], m.Get(f).Message().Interface())
}
