package client

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/frame"
)

// The map pipeline
//
// A connection's map calls travel on a TCP (or TLS) connection of their
// own to the member's address, in the frames of internal/frame: the
// pipeline's PipelineRequest and PipelineResponse messages, multiplexed by
// call id as on the gRPC stream the Java SDK uses, without HTTP/2 between
// them and the socket. A caller encodes its request straight into the
// connection's write buffer (a request that cannot be encoded or is over
// the member's limit fails alone, as before); a writer goroutine writes
// what callers appended, in one system call for every request that
// arrived while the last was written; a receiver goroutine hands each
// response to its caller. A member that stops reading holds up no caller
// beyond its context: past pipeWriteLimit bytes waiting, callers wait for
// room only as long as their contexts allow, and what they did not append
// was not sent. Idle for Config.HeartbeatInterval, the connection pings
// the member, and a member that leaves the ping unanswered for
// Config.HeartbeatTimeout has stopped answering: the connection fails.

// pipeReadBuffer is the pipe's read buffer: a response that fits is
// decoded where it was read.
const pipeReadBuffer = 64 << 10

// pipeWriteLimit is how many bytes of requests may wait for the writer
// before callers wait for room.
const pipeWriteLimit = 1 << 20

// errNoHeartbeat: the member left a ping unanswered.
var errNoHeartbeat = errors.New("keepalive: no answer to the heartbeat")

// pipe is a connection's framed map pipeline.
type pipe struct {
	nc   net.Conn
	rd   *frame.Reader
	w    *frame.Writer
	kick chan struct{} // wakes the writer
	// stopping asks the writer to write what is left and end; stopped is
	// closed when it has.
	stopping chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	lastRead atomic.Int64 // Unix nanoseconds of the last frame read
	// queries: the member takes query calls on the pipe (its welcome).
	queries bool
	// partitionQueries: the member runs a query over the partitions the
	// call names (its welcome).
	partitionQueries bool
}

// dialPipe opens the framed pipeline to the member at addr: TCP, TLS when
// configured, the preamble and the hello, which the member must welcome.
func dialPipe(ctx context.Context, addr string, cfg *Config, clientUUID []byte, maxMessage int) (*pipe, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := nc.(*net.TCPConn); ok {
		_ = tcp.SetNoDelay(true)
	}
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		if tc.ServerName == "" {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				tc.ServerName = host
			}
		}
		conn := tls.Client(nc, tc)
		if err := conn.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &HandshakeError{Member: addr, Err: err}
		}
		nc = conn
	}
	p, err := openPipe(ctx, nc, cfg, clientUUID, maxMessage)
	if err != nil {
		_ = nc.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var e *Error
		if errors.As(err, &e) {
			e.Member = addr
		}
		return nil, err
	}
	return p, nil
}

// openPipe sends the preamble and hello on nc and reads the welcome.
func openPipe(ctx context.Context, nc net.Conn, cfg *Config, clientUUID []byte, maxMessage int) (*pipe, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	hello := &pb.PipelineHello{ClusterName: cfg.ClusterName, ClientUuid: clientUUID}
	if cfg.Credentials.set() {
		header, _ := cfg.Credentials.header() // checked by New
		hello.Authorization = header
	}
	out := append([]byte(nil), frame.Preamble...)
	out, start := frame.Begin(out, frame.KindHello)
	out, err := proto.MarshalOptions{}.MarshalAppend(out, hello)
	if err != nil {
		return nil, &RequestError{Reason: err.Error(), kind: ErrInvalidArgument}
	}
	frame.End(out, start)
	if _, err := nc.Write(out); err != nil {
		return nil, err
	}
	p := &pipe{
		nc: nc, rd: frame.NewReader(nc, pipeReadBuffer, maxMessage, maxMessage), w: frame.NewWriter(nc, pipeWriteLimit),
		kick: make(chan struct{}, 1), stopping: make(chan struct{}), stopped: make(chan struct{}),
	}
	f, err := p.rd.Next()
	if err != nil {
		return nil, err
	}
	welcome := &pb.PipelineWelcome{}
	if f.Kind != frame.KindHello || f.Skipped || proto.Unmarshal(f.Payload, welcome) != nil {
		return nil, fmt.Errorf("the member answered the pipeline's hello with a frame of kind %d", f.Kind)
	}
	if welcome.Error != nil {
		return nil, errorFromPipeline(welcome.Error, "")
	}
	p.queries, p.partitionQueries = welcome.Queries, welcome.PartitionQueries
	_ = nc.SetDeadline(time.Time{})
	p.read()
	return p, nil
}

// read notes that a frame arrived.
func (p *pipe) read() { p.lastRead.Store(time.Now().UnixNano()) }

// send appends a call's request (whose id it sets) to the pipe: a request
// that cannot be encoded or is over maxMessage fails alone with a
// *RequestError; one that finds no room before ctx ends fails with ctx's
// error; neither was sent. sent is set once the request is appended.
func (p *pipe) send(ctx context.Context, req *pb.PipelineRequest, l *limits, sent *atomic.Bool) error {
	flush, err := p.w.Append(ctx, frame.KindCall, func(b []byte) ([]byte, error) {
		start := len(b)
		b, err := proto.MarshalOptions{}.MarshalAppend(b, req)
		if err != nil {
			return b, &RequestError{Reason: err.Error(), kind: ErrInvalidArgument}
		}
		if err := l.checkMessage(len(b) - start); err != nil {
			return b, err
		}
		sent.Store(true)
		return b, nil
	})
	if flush {
		p.wake()
	}
	return err
}

// wake wakes the writer.
func (p *pipe) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// write is the writer goroutine: it writes what callers append until the
// pipe stops or a write fails (failed is told).
func (p *pipe) write(failed func(error)) {
	defer close(p.stopped)
	for {
		select {
		case <-p.kick:
			// Let the callers that are ready append their requests
			// first: under load one write carries many, and alone the
			// writer runs again at once.
			runtime.Gosched()
			if err := p.w.Flush(); err != nil {
				failed(err)
				return
			}
		case <-p.stopping:
			_ = p.w.Flush()
			return
		}
	}
}

// heartbeat pings the member when nothing arrived for interval, and fails
// the pipe (failed) when a ping stays unanswered for timeout; it ends
// when done closes.
func (p *pipe) heartbeat(interval, timeout time.Duration, done <-chan struct{}, failed func(error)) {
	t := time.NewTicker(min(interval, timeout) / 2)
	defer t.Stop()
	var pinged time.Time // when the unanswered ping went; zero: none
	var seq uint64
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			last := time.Unix(0, p.lastRead.Load())
			switch {
			case !pinged.IsZero() && last.After(pinged):
				pinged = time.Time{} // answered, or something else arrived
			case !pinged.IsZero() && now.Sub(pinged) > timeout:
				failed(errNoHeartbeat)
				return
			}
			if pinged.IsZero() && now.Sub(last) >= interval {
				seq++
				// A member that reads nothing leaves no room for the
				// ping either: that too is a ping unanswered.
				actx, cancel := context.WithTimeout(context.Background(), timeout)
				flush, err := p.w.Append(actx, frame.KindPing, func(b []byte) ([]byte, error) {
					return binary.BigEndian.AppendUint64(b, seq), nil
				})
				cancel()
				if errors.Is(err, context.DeadlineExceeded) {
					failed(errNoHeartbeat)
					return
				}
				if err != nil {
					return // the pipe failed: its writer said so
				}
				if flush {
					p.wake()
				}
				pinged = now
			}
		}
	}
}

// stop asks the writer to write what is left and end; the channel it
// returns is closed once it has.
func (p *pipe) stop() <-chan struct{} {
	p.stopOnce.Do(func() { close(p.stopping) })
	return p.stopped
}
