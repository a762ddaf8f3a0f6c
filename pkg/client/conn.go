package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/frame"
)

// conn is the client's connection to one member: the map pipeline, on
// which calls are multiplexed by call id (framed.go), and a gRPC channel
// for the other services, among them a stream on which the member pushes
// its partition table. A call whose request cannot be encoded fails
// alone, before anything is sent; a call waits for room to send, and for
// its answer, no longer than its context allows; only a failure of the
// pipeline itself breaks the connection.
type conn struct {
	addr   string
	cc     *grpc.ClientConn
	member []byte  // member UUID from the handshake
	limits *limits // what the member accepts

	maps     pb.MapServiceClient
	cluster  pb.ClusterServiceClient
	metadata pb.MetadataServiceClient

	pipe *pipe
	// queries is the query stream on the pipe, once opened (nil when the
	// member offers none: queries then travel on a gRPC stream).
	queries atomic.Pointer[queryStream]

	nextID   atomic.Uint64
	pending  [pendingShards]pendingShard
	broken   atomic.Pointer[connError] // set once the stream failed
	done     chan struct{}             // closed when the receiver exits
	lastSeen atomic.Int64              // Unix nanoseconds of the member's last answer
}

// seen records that the member answered.
func (c *conn) seen() { c.lastSeen.Store(time.Now().UnixNano()) }

const pendingShards = 16

// failedCall marks the synthetic response of a call failed by its
// connection (not a gRPC code).
const failedCall = -1

type pendingShard struct {
	mu sync.Mutex
	m  map[uint64]*call
}

// call waits for one pipeline response. Calls are pooled.
type call struct {
	ch   chan *pb.PipelineResponse
	sent atomic.Bool // its request was appended to the pipeline
}

var callPool = sync.Pool{New: func() any { return &call{ch: make(chan *pb.PipelineResponse, 1)} }}

// dialBackoff spaces the connection attempts of one dial.
var dialBackoff = backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second}

// dial connects to a member, checks the cluster name (Connect) and opens
// the pipeline. An address that refuses the connection (nothing listens there)
// fails at once rather than after ConnectTimeout; ctx bounds the rest.
func dial(ctx context.Context, addr string, cfg *Config, clientUUID []byte) (*conn, *pb.ConnectResponse, error) {
	hctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	// A refused TCP connection or a failed TLS handshake will not heal by
	// waiting: the first one ends the dial at once, and is its error.
	var refused atomic.Pointer[error]
	fail := func(err error) {
		if refused.CompareAndSwap(nil, &err) {
			cancel()
		}
	}
	transport := insecure.NewCredentials()
	if cfg.TLS != nil {
		transport = &handshakeReporter{TransportCredentials: credentials.NewTLS(cfg.TLS), addr: addr, failed: fail}
	}
	opts := []grpc.DialOption{
		grpc.WithContextDialer(func(dctx context.Context, a string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(dctx, "tcp", a)
			if errors.Is(err, syscall.ECONNREFUSED) {
				fail(err)
			}
			return nc, err
		}),
		grpc.WithTransportCredentials(transport),
		// A connection attempt that fails otherwise than by a refusal
		// (the member's process ending as the client connects resets
		// the connection) is tried again soon, not after gRPC's default
		// second: a broken connection is replaced by a new dial, so this
		// backoff only spaces a dial's own attempts.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: dialBackoff, MinConnectTimeout: cfg.ConnectTimeout}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxMessageSize), grpc.MaxCallSendMsgSize(cfg.MaxMessageSize), grpc.ForceCodecV2(passthroughCodec{})),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: cfg.HeartbeatInterval, Timeout: cfg.HeartbeatTimeout, PermitWithoutStream: true}),
	}
	if cfg.Credentials.set() {
		header, _ := cfg.Credentials.header() // checked by New
		opts = append(opts, grpc.WithPerRPCCredentials(callCredentials{header: header, requireTLS: !cfg.Credentials.AllowPlaintext}))
	}
	cc, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, nil, &connError{member: addr, err: err}
	}
	c := &conn{
		addr: addr, cc: cc,
		maps:     pb.NewMapServiceClient(cc),
		cluster:  pb.NewClusterServiceClient(cc),
		metadata: pb.NewMetadataServiceClient(cc),
		done:     make(chan struct{}),
	}
	for i := range c.pending {
		c.pending[i].m = map[uint64]*call{}
	}
	hello, err := c.cluster.Connect(hctx, &pb.ConnectRequest{
		ClusterName: cfg.ClusterName, ClientName: cfg.ClientName, ClientUuid: clientUUID, ClientVersion: "go/" + Version,
	}, grpc.WaitForReady(true))
	if err != nil {
		_ = cc.Close()
		if e := errorFromStatus(err, addr); refusedConnection(e) {
			return nil, nil, e
		}
		switch r := refused.Load(); {
		case r != nil && ctx.Err() == nil:
			var hs *HandshakeError
			if errors.As(*r, &hs) {
				return nil, nil, hs
			}
			err = *r
		case hctx.Err() != nil && ctx.Err() == nil:
			err = &connectTimeoutError{after: cfg.ConnectTimeout}
		case ctx.Err() != nil:
			err = ctx.Err()
		}
		return nil, nil, &connError{member: addr, err: err}
	}
	c.member = hello.MemberUuid
	c.limits = newLimits(cfg, hello.Limits)
	c.seen()
	p, err := dialPipe(hctx, addr, cfg, clientUUID, cfg.MaxMessageSize)
	if err != nil {
		_ = cc.Close()
		if refusedConnection(err) {
			return nil, nil, err
		}
		if hctx.Err() != nil && ctx.Err() == nil {
			err = &connectTimeoutError{after: cfg.ConnectTimeout}
		}
		return nil, nil, &connError{member: addr, err: err}
	}
	c.pipe = p
	c.seen()
	go c.receive()
	go p.write(func(err error) { c.fail(err, true) })
	go p.heartbeat(cfg.HeartbeatInterval, cfg.HeartbeatTimeout, c.done, func(err error) {
		c.fail(err, true)
		_ = p.nc.Close()
	})
	return c, hello, nil
}

// refusedConnection reports whether a member refused the client itself
// (another cluster, no or wrong credentials, TLS on one side only, a
// limit): trying again or elsewhere will not help.
func refusedConnection(err error) bool {
	var hs *HandshakeError
	return errors.Is(err, ErrClusterName) || errors.Is(err, ErrUnauthenticated) || errors.Is(err, ErrPermissionDenied) ||
		errors.Is(err, ErrLimitExceeded) || errors.As(err, &hs)
}

// handshakeReporter reports a failed TLS handshake, which ends a dial at
// once (waiting would only repeat it).
type handshakeReporter struct {
	credentials.TransportCredentials
	addr   string
	failed func(error)
}

func (h *handshakeReporter) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c, info, err := h.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil && ctx.Err() == nil {
		h.failed(&HandshakeError{Member: h.addr, Err: err})
	}
	return c, info, err
}

func (h *handshakeReporter) Clone() credentials.TransportCredentials {
	return &handshakeReporter{TransportCredentials: h.TransportCredentials.Clone(), addr: h.addr, failed: h.failed}
}

// receive delivers responses to their calls until the pipeline fails,
// then fails every pending call.
func (c *conn) receive() {
	defer close(c.done)
	defer c.pipe.w.Fail(errStreamEnded)
	for {
		f, err := c.pipe.rd.Next()
		if err != nil {
			if err == io.EOF {
				err = errStreamEnded
			}
			c.fail(err, true)
			return
		}
		c.pipe.read()
		c.seen()
		switch f.Kind {
		case frame.KindCall:
		case frame.KindPong:
			continue
		case frame.KindQuery:
			if !c.receiveQuery(f) {
				return
			}
			c.pipe.rd.Release()
			continue
		case frame.KindGoAway:
			// A draining member answers every call it took before it
			// goes: calls still pending then were never run.
			pe := &pb.Error{}
			if f.Skipped || proto.Unmarshal(f.Payload, pe) != nil {
				pe = &pb.Error{Message: "the member ended the pipeline"}
			}
			c.fail(errorFromPipeline(pe, c.addr), false)
			return
		default:
			c.fail(fmt.Errorf("the member sent a pipeline frame of kind %d", f.Kind), true)
			return
		}
		resp := &pb.PipelineResponse{}
		if f.Skipped || proto.Unmarshal(f.Payload, resp) != nil {
			c.fail(fmt.Errorf("a pipeline response of %d bytes could not be decoded (Config.MaxMessageSize is the largest taken)", f.Size), true)
			return
		}
		c.pipe.rd.Release()
		sh := &c.pending[resp.CallId%pendingShards]
		sh.mu.Lock()
		cl, ok := sh.m[resp.CallId]
		delete(sh.m, resp.CallId)
		sh.mu.Unlock()
		if ok {
			cl.ch <- resp // buffered: never blocks
		}
	}
}

// receiveQuery hands a query reply to its call; false when the connection
// failed (the member broke the protocol).
func (c *conn) receiveQuery(f frame.Frame) bool {
	qs := c.queries.Load()
	if qs == nil {
		c.fail(errors.New("the member sent a query reply on a pipe that carries no queries"), true)
		return false
	}
	r := &pb.QueryReply{}
	if f.Skipped {
		// Over Config.MaxMessageSize: its call fails alone.
		id := frame.CallID(f.Payload)
		if id == 0 {
			c.fail(fmt.Errorf("a query reply of %d bytes is over Config.MaxMessageSize and names no call", f.Size), true)
			return false
		}
		r.CallId = id
		r.Error = &pb.Error{GrpcCode: int32(codes.ResourceExhausted),
			Message: fmt.Sprintf("the reply of %d bytes is over the client's Config.MaxMessageSize", f.Size)}
	} else if proto.Unmarshal(f.Payload, r) != nil {
		c.fail(fmt.Errorf("a query reply of %d bytes could not be decoded", f.Size), true)
		return false
	}
	qs.deliver(r)
	return true
}

// fail marks the connection broken and fails the calls in flight; sent
// says whether those appended to the pipeline may have run on the member
// (a call still waiting for room to send was not sent).
func (c *conn) fail(err error, sent bool) {
	ce := &connError{member: c.addr, sent: sent, err: err}
	if !c.broken.CompareAndSwap(nil, ce) {
		return
	}
	if qs := c.queries.Load(); qs != nil {
		// Its calls may have run whatever sent says: a statement is not
		// sent again by the client itself.
		qs.fail(&connError{member: c.addr, sent: true, err: err})
	}
	for i := range c.pending {
		sh := &c.pending[i]
		sh.mu.Lock()
		for id, cl := range sh.m {
			delete(sh.m, id)
			mayHaveRun := sent && cl.sent.Load()
			cl.ch <- &pb.PipelineResponse{CallId: id, Error: &pb.Error{GrpcCode: failedCall, Detail: &pb.ErrorDetail{Retryable: !mayHaveRun}}}
		}
		sh.mu.Unlock()
	}
}

// usable reports whether new calls may use the connection.
func (c *conn) usable() bool { return c.broken.Load() == nil }

// failure is the error of a call the broken connection failed; sent says
// whether its request may have run.
func (c *conn) failure(sent bool) *connError {
	ce := c.broken.Load()
	return &connError{member: c.addr, sent: sent, err: ce.err}
}

// invoke sends req and waits for its response, ctx's end, or the
// connection's failure. It sets req.CallId and req.TimeoutMs. A request
// that cannot be encoded fails with a *RequestError: nothing was sent and
// the connection is unaffected.
func (c *conn) invoke(ctx context.Context, req *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	deadline, _ := ctx.Deadline()
	return c.invokeUntil(ctx, deadline, req)
}

// waitTimers pools the timers that bound the waits of calls whose context
// has no deadline. (A stopped or reset timer's channel holds no stale
// value.)
var waitTimers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// invokeUntil is invoke with a deadline (zero: none) besides ctx's: the
// call's timeout on the member, and the end of its wait here when ctx has
// no deadline of its own (it then fails with context.DeadlineExceeded). A
// timer costs a call less than a context with a deadline.
func (c *conn) invokeUntil(ctx context.Context, deadline time.Time, req *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	if !c.usable() {
		return nil, c.failure(false)
	}
	id := c.nextID.Add(1)
	req.CallId = id
	if !deadline.IsZero() {
		req.TimeoutMs = max(1, time.Until(deadline).Milliseconds())
	}
	cl := callPool.Get().(*call)
	cl.sent.Store(false)
	sh := &c.pending[id%pendingShards]
	sh.mu.Lock()
	sh.m[id] = cl
	sh.mu.Unlock()
	// Registered after a failure's sweep? Then nobody will answer: give up.
	if !c.usable() {
		c.abandon(sh, id, cl)
		return nil, c.failure(false)
	}
	if err := c.pipe.send(ctx, req, c.limits, &cl.sent); err != nil {
		c.abandon(sh, id, cl)
		var re *RequestError
		switch {
		case errors.As(err, &re):
			return nil, err
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !c.usable():
			return nil, c.failure(false)
		}
		return nil, &connError{member: c.addr, err: err}
	}
	var expire <-chan time.Time
	if _, ok := ctx.Deadline(); !ok && !deadline.IsZero() {
		t := waitTimers.Get().(*time.Timer)
		t.Reset(time.Until(deadline))
		defer waitTimers.Put(t)
		defer t.Stop()
		expire = t.C
	}
	select {
	case resp := <-cl.ch:
		callPool.Put(cl)
		if resp.Error != nil && resp.Error.GrpcCode == failedCall {
			return nil, c.failure(!resp.Error.Detail.GetRetryable())
		}
		return resp, nil
	case <-ctx.Done():
		c.abandon(sh, id, cl)
		return nil, ctx.Err()
	case <-expire:
		c.abandon(sh, id, cl)
		return nil, context.DeadlineExceeded
	}
}

// abandon withdraws a call that will not be waited for. If a response (or
// a failure) was already delivered to it, it is drained so that the pooled
// call starts empty.
func (c *conn) abandon(sh *pendingShard, id uint64, cl *call) {
	sh.mu.Lock()
	_, waiting := sh.m[id]
	delete(sh.m, id)
	sh.mu.Unlock()
	if !waiting {
		<-cl.ch
	}
	callPool.Put(cl)
}

// closeGrace is how long close lets the requests appended be written
// before it ends the pipeline.
const closeGrace = time.Second

// close ends the pipeline and the channel and waits for the receiver.
func (c *conn) close() {
	select {
	case <-c.pipe.stop():
	case <-time.After(closeGrace):
	}
	_ = c.pipe.nc.Close()
	<-c.done
	_ = c.cc.Close()
}

// watchTable follows the partition tables the member pushes until the
// connection closes, handing each to adopt; a stream that ends while the
// connection lives is opened again after retry's backoff.
func (c *conn) watchTable(retry Backoff, adopt func(*conn, *pb.PartitionTable)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-c.done
		cancel()
	}()
	r := retrier{policy: retry}
	for ctx.Err() == nil {
		stream, err := c.cluster.WatchPartitionTable(ctx, &pb.GetPartitionTableRequest{})
		for err == nil {
			var t *pb.PartitionTable
			if t, err = stream.Recv(); err == nil {
				c.seen()
				adopt(c, t)
				r.reset()
			}
		}
		if r.wait(ctx, 0) != nil {
			return
		}
	}
}
