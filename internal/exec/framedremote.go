package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/pprof"
	"sync"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/profiling"
)

// FramedRemote is a Remote that runs fragments on the members' fragments
// streams (api/proto/atoll/member/v1/fragment.proto): one framed
// connection per member, on which the fragments of every query run as
// calls, instead of a gRPC stream opened per fragment. A call's batches
// are flow-controlled by credits: the member sends FragmentWindow batches
// ahead of what the coordinator took, so one slow query does not hold up
// the others on the connection. Exchanges and their counters stay on the
// embedded GRPCRemote, and so do the fragments of a member that refuses
// the stream (a version without it, during a rolling upgrade).
type FramedRemote struct {
	*GRPCRemote
	// Dial opens a fragments stream to the member at addr (the cluster
	// layer's member connection and hello); ctx bounds the opening. A
	// member that serves no fragments stream fails it with an error
	// matching ErrStreamRefused.
	Dial func(ctx context.Context, addr string) (net.Conn, *frame.Reader, error)
	// Traffic returns the counters of the messages exchanged with the
	// member at addr; nil counts nothing.
	Traffic func(addr string) frame.Traffic

	mu     sync.Mutex
	conns  map[string]*fragmentConn
	closed bool
}

var _ Remote = (*FramedRemote)(nil)

// FragmentWindow is how many batches of a call a member sends before the
// coordinator's first credit, and how many it keeps in flight after.
const FragmentWindow = 8

// fragmentWriteLimit is how many bytes of call frames may wait for a
// write before a caller waits.
const fragmentWriteLimit = 4 << 20

// ErrStreamRefused: a member refused the fragments stream (Dial).
var ErrStreamRefused = errors.New("exec: the member refused the fragments stream")

// RunFragment implements Remote.
func (r *FramedRemote) RunFragment(ctx context.Context, member partition.Member, req *pb.RunFragmentRequest) (RowStream, error) {
	c, err := r.conn(ctx, member)
	if errors.Is(err, ErrStreamRefused) {
		return r.GRPCRemote.RunFragment(ctx, member, req)
	}
	if err != nil {
		return nil, err
	}
	req.Kind, _ = pprof.Label(ctx, profiling.LabelKind)
	if dl, ok := ctx.Deadline(); ok {
		req.TimeoutMs = max(1, time.Until(dl).Milliseconds())
	}
	return c.start(ctx, req)
}

// Close ends the fragments streams; their calls fail as if the members
// were gone.
func (r *FramedRemote) Close() {
	r.mu.Lock()
	r.closed = true
	conns := r.conns
	r.conns = nil
	r.mu.Unlock()
	for _, c := range conns {
		c.fail(errors.New("the query engine stopped"))
	}
}

// conn returns the fragments stream to member, opening it if there is
// none or the last one ended.
func (r *FramedRemote) conn(ctx context.Context, member partition.Member) (*fragmentConn, error) {
	r.mu.Lock()
	c := r.conns[member.Address]
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if c != nil {
		return c, nil
	}
	nc, rd, err := r.Dial(ctx, member.Address)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			// The dial gave up at the query's deadline, just before its
			// context says so.
			return nil, context.DeadlineExceeded
		}
		if errors.Is(err, ErrStreamRefused) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: member %s: %v", ErrUnavailable, member.Address, err)
	}
	var traffic frame.Traffic = frame.NoTraffic{}
	if r.Traffic != nil {
		traffic = r.Traffic(member.Address)
	}
	c = &fragmentConn{r: r, member: member, conn: nc, rd: rd, w: frame.NewWriter(nc, fragmentWriteLimit), traffic: traffic, calls: map[uint64]*fragmentCall{}}
	r.mu.Lock()
	if old := r.conns[member.Address]; old != nil || r.closed {
		// Another caller opened one meanwhile (or the engine stopped).
		r.mu.Unlock()
		_ = nc.Close()
		if old == nil {
			return nil, ErrClosed
		}
		return old, nil
	}
	if r.conns == nil {
		r.conns = map[string]*fragmentConn{}
	}
	r.conns[member.Address] = c
	r.mu.Unlock()
	go c.read()
	return c, nil
}

// fragmentConn is one fragments stream to a member: calls written by
// their callers through a shared frame.Writer, replies read by one
// goroutine and queued on their calls.
type fragmentConn struct {
	r       *FramedRemote
	member  partition.Member
	conn    net.Conn
	rd      *frame.Reader
	w       *frame.Writer
	traffic frame.Traffic

	mu     sync.Mutex
	calls  map[uint64]*fragmentCall
	nextID uint64
	err    error // why the stream ended; nil while it runs
}

// fragmentCall is a fragment running on the member: its batches not taken
// yet, and its end.
type fragmentCall struct {
	c    *fragmentConn
	id   uint64
	ctx  context.Context
	stop func() bool // stops the cancel on ctx

	// Under c.mu.
	queue []*Batch
	ended bool
	err   error // the member's error (or the stream's), once ended
	taken int32 // batches taken since the last credit

	ready chan struct{} // signalled when a batch or the end arrives
}

// start sends the fragment as a new call.
func (c *fragmentConn) start(ctx context.Context, req *pb.RunFragmentRequest) (*fragmentCall, error) {
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, c.unavailable(err)
	}
	c.nextID++
	call := &fragmentCall{c: c, id: c.nextID, ctx: ctx, ready: make(chan struct{}, 1)}
	c.calls[call.id] = call
	c.mu.Unlock()
	if err := c.send(ctx, &memberpb.FragmentCall{CallId: call.id, Op: &memberpb.FragmentCall_Run{Run: req}, Window: FragmentWindow}); err != nil {
		c.drop(call.id)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.fail(err)
		return nil, c.unavailable(err)
	}
	call.stop = context.AfterFunc(ctx, func() {
		call.signal()
		_ = c.send(context.Background(), &memberpb.FragmentCall{CallId: call.id, Op: &memberpb.FragmentCall_Cancel{Cancel: true}})
	})
	return call, nil
}

// send writes one call frame. The message's time to send counts its
// wait for room in the writer and, for the caller that writes, the write.
func (c *fragmentConn) send(ctx context.Context, m *memberpb.FragmentCall) error {
	start := time.Now()
	size, err := c.w.Send(ctx, frame.KindCall, func(b []byte) ([]byte, error) { return proto.MarshalOptions{}.MarshalAppend(b, m) })
	if err == nil {
		c.traffic.Sent(size, time.Since(start))
	}
	return err
}

// read queues the replies on their calls until the stream fails.
func (c *fragmentConn) read() {
	for {
		c.rd.Release()
		f, err := c.rd.Next()
		if err != nil {
			c.fail(err)
			return
		}
		if f.Kind != frame.KindCall || f.Skipped {
			c.fail(fmt.Errorf("a reply frame of kind %d and %d bytes", f.Kind, f.Size))
			return
		}
		c.traffic.Received(f.Size)
		m, err := decodeFragmentReply(f.Payload)
		if err != nil {
			c.fail(fmt.Errorf("a malformed reply: %w", err))
			return
		}
		c.mu.Lock()
		call := c.calls[m.callID]
		switch {
		case call == nil: // closed by its caller: the rest is dropped
		case len(call.queue) >= FragmentWindow && (!m.end || m.count > 0 || len(m.rows) > 0):
			c.mu.Unlock()
			c.fail(fmt.Errorf("call %d: more than %d batches without credit", m.callID, FragmentWindow))
			return
		case m.end:
			// The last batch travels with the end.
			if m.count > 0 || len(m.rows) > 0 {
				call.queue = append(call.queue, m.batch())
			}
			call.ended = true
			call.err = replyError(m.status)
			delete(c.calls, m.callID)
		default:
			call.queue = append(call.queue, m.batch())
		}
		c.mu.Unlock()
		if call != nil {
			call.signal()
		}
	}
}

// fragmentReply is a memberpb.FragmentReply whose bytes alias the frame
// it was read from.
type fragmentReply struct {
	callID uint64
	rows   []byte
	count  int32
	end    bool
	status []byte
}

// decodeFragmentReply decodes a FragmentReply in place (protobuf's
// decoder would copy rows into a new buffer of their size each time, to
// be copied again into the batch's own).
func decodeFragmentReply(b []byte) (m fragmentReply, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return m, protowire.ParseError(n)
		}
		if !num.IsValid() {
			return m, fmt.Errorf("field number %d out of range", num)
		}
		b = b[n:]
		switch {
		case typ == protowire.VarintType && (num == 1 || num == 3 || num == 4):
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return m, protowire.ParseError(n)
			}
			switch num {
			case 1:
				m.callID = v
			case 3:
				m.count = int32(v)
			default:
				m.end = v != 0
			}
			b = b[n:]
		case typ == protowire.BytesType && (num == 2 || num == 5):
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return m, protowire.ParseError(n)
			}
			if num == 2 {
				m.rows = v
			} else {
				m.status = v
			}
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return m, protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return m, nil
}

// batch returns the reply's rows as a batch of their own: a full batch's
// in a buffer of batchBuffers, which the page it is joined into gives
// back, and a smaller one's in a buffer of its size.
func (m *fragmentReply) batch() *Batch {
	if len(m.rows) >= flushBytes && len(m.rows) <= batchCap {
		return &Batch{Rows: append(batchBuffer(), m.rows...), Count: int(m.count), pooled: true}
	}
	return &Batch{Rows: bytes.Clone(m.rows), Count: int(m.count)}
}

// replyError is the error of a call's end: nil, or the member's status.
func replyError(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	st := &spb.Status{}
	if err := proto.Unmarshal(b, st); err != nil {
		return fmt.Errorf("a malformed error status: %w", err)
	}
	return status.ErrorProto(st)
}

// fail ends the stream: every call fails as on a member that is gone.
func (c *fragmentConn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	calls := c.calls
	c.calls = map[uint64]*fragmentCall{}
	for _, call := range calls {
		call.ended = true
		call.err = c.unavailable(err)
	}
	c.mu.Unlock()
	c.w.Fail(err)
	_ = c.conn.Close()
	c.r.mu.Lock()
	if c.r.conns[c.member.Address] == c {
		delete(c.r.conns, c.member.Address)
	}
	c.r.mu.Unlock()
	for _, call := range calls {
		call.signal()
	}
}

// unavailable is the error of a call the stream's failure ended: the
// coordinator starts the query again on a new placement.
func (c *fragmentConn) unavailable(err error) error {
	if errors.Is(err, io.EOF) {
		err = errors.New("the member closed the connection")
	}
	return fmt.Errorf("%w: member %s: %v", ErrUnavailable, c.member.Address, err)
}

// drop forgets a call.
func (c *fragmentConn) drop(id uint64) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

func (call *fragmentCall) signal() {
	select {
	case call.ready <- struct{}{}:
	default:
	}
}

// Next implements RowStream.
func (call *fragmentCall) Next() (*Batch, error) {
	c := call.c
	for {
		c.mu.Lock()
		if len(call.queue) > 0 {
			b := call.queue[0]
			call.queue[0] = nil
			call.queue = call.queue[1:]
			credit := int32(0)
			if call.taken++; call.taken >= FragmentWindow/2 && !call.ended {
				credit, call.taken = call.taken, 0
			}
			c.mu.Unlock()
			if credit > 0 {
				if err := c.send(call.ctx, &memberpb.FragmentCall{CallId: call.id, Op: &memberpb.FragmentCall_Credit{Credit: credit}}); err != nil {
					if call.ctx.Err() != nil {
						return nil, call.ctx.Err()
					}
					c.fail(err)
					return nil, c.unavailable(err)
				}
			}
			return b, nil
		}
		if call.ended {
			err := call.err
			c.mu.Unlock()
			if err == nil {
				return nil, io.EOF
			}
			return nil, remoteError(call.ctx, c.member, err)
		}
		c.mu.Unlock()
		if err := call.ctx.Err(); err != nil {
			return nil, err
		}
		<-call.ready
	}
}

// Close implements RowStream: a call still running is cancelled on the
// member.
func (call *fragmentCall) Close() {
	c := call.c
	stopped := call.stop()
	c.mu.Lock()
	running := !call.ended && c.calls[call.id] == call
	delete(c.calls, call.id)
	c.mu.Unlock()
	if running && stopped {
		_ = c.send(context.Background(), &memberpb.FragmentCall{CallId: call.id, Op: &memberpb.FragmentCall_Cancel{Cancel: true}})
	}
}
