package client

import (
	"context"
	"errors"
	"sync"

	"google.golang.org/grpc"
)

// streamSender writes the messages of a shared gRPC stream (a
// connection's query stream) from a goroutine of its own: gRPC's SendMsg
// is not safe for concurrent use, and it blocks while the member takes no
// more data (a member that hangs stops reading). A caller only hands its
// message over, and waits for that no longer than its context allows.
type streamSender struct {
	stream  grpc.ClientStream
	queue   chan outgoing
	closing chan struct{} // close asks the loop to end the stream's sending side
	stopped chan struct{} // closed when the loop has ended
	once    sync.Once
	// failed is told the error of a SendMsg that failed: the stream is
	// broken.
	failed func(error)
}

// outgoing is a message waiting for its turn.
type outgoing struct {
	msg encodedMessage
}

// errSenderStopped: the stream takes no more messages.
var errSenderStopped = errors.New("the stream was closed")

func newStreamSender(stream grpc.ClientStream, failed func(error)) *streamSender {
	s := &streamSender{stream: stream, queue: make(chan outgoing, 256), closing: make(chan struct{}), stopped: make(chan struct{}), failed: failed}
	go s.run()
	return s
}

// send queues out. It fails with ctx's error (the message was not sent)
// or errSenderStopped; the message then belongs to the caller again.
func (s *streamSender) send(ctx context.Context, out outgoing) error {
	select {
	case <-s.stopped:
		return errSenderStopped
	default:
	}
	select {
	case s.queue <- out:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stopped:
		return errSenderStopped
	}
}

func (s *streamSender) run() {
	defer close(s.stopped)
	for {
		select {
		case out := <-s.queue:
			if err := s.stream.SendMsg(out.msg); err != nil {
				s.failed(err)
				s.drain()
				return
			}
		case <-s.closing:
			s.drain()
			_ = s.stream.CloseSend()
			return
		}
	}
}

// drain drops what is queued.
func (s *streamSender) drain() {
	for {
		select {
		case out := <-s.queue:
			out.msg.data.Free()
		default:
			return
		}
	}
}

// stop asks the loop to end the stream's sending side (after the message
// being sent, if any); the channel it returns is closed once it has. A
// send that hangs ends with the stream's context.
func (s *streamSender) stop() <-chan struct{} {
	s.once.Do(func() { close(s.closing) })
	return s.stopped
}
