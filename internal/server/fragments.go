package server

import (
	"context"
	"net"
	"runtime/pprof"
	"sync"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/frame"
)

// fragmentWriteLimit is how many bytes of replies may wait for a write
// before a fragment waits.
const fragmentWriteLimit = 4 << 20

// replyOverhead bounds what a FragmentReply adds to its rows (its call
// id, count and field tags).
const replyOverhead = 32

// servedFragment is a fragment call running for the coordinator.
type servedFragment struct {
	cancel  context.CancelFunc
	credits int32         // batches it may still send (under fragmentStream.mu)
	ready   chan struct{} // signalled when credits arrive
}

// fragmentStream serves one fragments stream.
type fragmentStream struct {
	s       *Server
	conn    net.Conn
	w       *frame.Writer
	traffic frame.Traffic

	mu    sync.Mutex
	calls map[uint64]*servedFragment
}

// ServeFragments serves a fragments stream a coordinating member opened
// (cluster.FramedHandler for "fragments"; the member handshake admitted
// it, so it is a member's): each FragmentCall run starts the fragment on
// its own goroutine, whose batches go out as the coordinator's credits
// allow, then its end with the error the gRPC call would have ended with.
// While the server drains, new fragments are refused and those running
// finish. It returns when the connection ends (the coordinator closed it,
// or the cluster layer did as the member stopped); the fragments still
// running are cancelled and waited for.
func (s *Server) ServeFragments(conn net.Conn, rd *frame.Reader, traffic frame.Traffic) {
	fs := &fragmentStream{s: s, conn: conn, w: frame.NewWriter(conn, fragmentWriteLimit), traffic: traffic, calls: map[uint64]*servedFragment{}}
	life, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	defer func() {
		cancel()
		running.Wait()
		_ = conn.Close()
	}()
	for {
		rd.Release()
		f, err := rd.Next()
		if err != nil {
			return
		}
		if f.Kind != frame.KindCall || f.Skipped {
			return
		}
		traffic.Received(f.Size)
		call := &memberpb.FragmentCall{}
		if err := proto.Unmarshal(f.Payload, call); err != nil {
			return
		}
		switch op := call.Op.(type) {
		case *memberpb.FragmentCall_Run:
			if err := s.admitFragment(); err != nil {
				fs.end(&memberpb.FragmentReply{CallId: call.CallId, End: true}, err)
				continue
			}
			ctx, stop, err := s.fragmentContext(life, op.Run)
			if err != nil {
				fs.end(&memberpb.FragmentReply{CallId: call.CallId, End: true}, err)
				continue
			}
			sf := &servedFragment{cancel: stop, credits: max(call.Window, 1), ready: make(chan struct{}, 1)}
			fs.mu.Lock()
			fs.calls[call.CallId] = sf
			fs.mu.Unlock()
			running.Add(1)
			s.active.Add(1)
			s.goQuery(func() {
				defer running.Done()
				defer s.active.Add(-1)
				defer stop()
				fs.run(ctx, call.CallId, sf, op.Run)
			})
		case *memberpb.FragmentCall_Credit:
			fs.mu.Lock()
			if sf := fs.calls[call.CallId]; sf != nil {
				sf.credits += op.Credit
				select {
				case sf.ready <- struct{}{}:
				default:
				}
			}
			fs.mu.Unlock()
		case *memberpb.FragmentCall_Cancel:
			fs.mu.Lock()
			if sf := fs.calls[call.CallId]; sf != nil {
				sf.cancel()
			}
			fs.mu.Unlock()
		}
	}
}

// admitFragment refuses fragments while the server drains.
func (s *Server) admitFragment() error {
	if s.closing.Load() {
		return ErrShuttingDown
	}
	return nil
}

// run runs one fragment and sends its batches and end. Each batch waits
// for the next one before it goes out, so the last one travels with the
// end, in one message and one write. ctx is the fragment's
// (fragmentContext): its timeout bounds the wait for credit too.
func (fs *fragmentStream) run(ctx context.Context, id uint64, sf *servedFragment, r *pb.RunFragmentRequest) {
	var err error
	var held *exec.Batch
	defer func() {
		end := &memberpb.FragmentReply{CallId: id, End: true}
		if held != nil && err == nil {
			// The call stays known until then: the credit may be on its way.
			if err = fs.credit(ctx, sf); err == nil {
				end.Rows, end.Count = held.Rows, int32(held.Count)
			}
		}
		fs.mu.Lock()
		delete(fs.calls, id)
		fs.mu.Unlock()
		fs.end(end, err)
		if held != nil {
			held.Recycle()
		}
	}()
	defer fs.s.recoverCall("fragments", &err)
	pprof.SetGoroutineLabels(ctx) // the fragment's labels, if it has any
	err = fs.s.cfg.Query.Engine.RunFragment(ctx, r, func(b *exec.Batch) error {
		// A batch over the message limit fails its fragment alone, as
		// gRPC's send limit did; the coordinator's reader would end the
		// stream on it.
		if limit := fs.s.cfg.MaxMessageSize; limit > 0 && len(b.Rows)+replyOverhead > limit {
			return &TooLargeError{Op: "fragment", What: "answer", Size: len(b.Rows) + replyOverhead, Limit: limit, Unit: "bytes", Setting: "limits.max-message-size"}
		}
		if held != nil {
			if err := fs.credit(ctx, sf); err != nil {
				return err
			}
			err := fs.send(ctx, &memberpb.FragmentReply{CallId: id, Rows: held.Rows, Count: int32(held.Count)})
			held.Recycle() // its rows are in the frame, or the stream failed
			if err != nil {
				return err
			}
		}
		held = b
		return nil
	})
}

// credit takes one of the call's credits, waiting for the coordinator to
// grant one.
func (fs *fragmentStream) credit(ctx context.Context, sf *servedFragment) error {
	for {
		fs.mu.Lock()
		if sf.credits > 0 {
			sf.credits--
			fs.mu.Unlock()
			return nil
		}
		fs.mu.Unlock()
		select {
		case <-sf.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// end sends a call's last reply, with its error.
func (fs *fragmentStream) end(reply *memberpb.FragmentReply, err error) {
	if err != nil {
		b, merr := proto.Marshal(status.Convert(toStatus(err)).Proto())
		if merr == nil {
			reply.Status = b
		}
	}
	_ = fs.send(context.Background(), reply)
}

// send writes one reply frame; a failed write ends the stream. The
// message's time to send counts its wait for room in the writer and, for
// the caller that writes, the write.
func (fs *fragmentStream) send(ctx context.Context, m *memberpb.FragmentReply) error {
	start := time.Now()
	size, err := fs.w.Send(ctx, frame.KindCall, func(b []byte) ([]byte, error) { return proto.MarshalOptions{}.MarshalAppend(b, m) })
	if err != nil {
		if fs.w.Err() != nil {
			_ = fs.conn.Close() // the write failed: the stream is over
		}
		return err
	}
	fs.traffic.Sent(size, time.Since(start))
	return nil
}
