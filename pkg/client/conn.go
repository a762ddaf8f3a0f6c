package client

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// conn is the client's connection to one member: a gRPC channel with one
// pipeline stream on which calls are multiplexed by call id. A call whose
// request cannot be encoded fails alone, before anything is sent
// (encode.go); only a failure of the stream itself breaks the connection.
type conn struct {
	addr   string
	cc     *grpc.ClientConn
	member []byte // member UUID from the handshake
	maxMsg int    // the largest request it sends

	maps     pb.MapServiceClient
	cluster  pb.ClusterServiceClient
	metadata pb.MetadataServiceClient

	pipe   pb.PipelineService_PipelineClient
	cancel context.CancelFunc
	sendMu sync.Mutex // the stream's Send is not safe for concurrent use

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
	ch chan *pb.PipelineResponse
}

var callPool = sync.Pool{New: func() any { return &call{ch: make(chan *pb.PipelineResponse, 1)} }}

// dial connects to a member, checks the cluster name and opens the
// pipeline. An address that refuses the connection (nothing listens there)
// fails at once rather than after ConnectTimeout.
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
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxMessageSize), grpc.MaxCallSendMsgSize(cfg.MaxMessageSize)),
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
		addr: addr, cc: cc, maxMsg: cfg.MaxMessageSize,
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
		if r := refused.Load(); r != nil && ctx.Err() == nil {
			var hs *HandshakeError
			if errors.As(*r, &hs) {
				return nil, nil, hs
			}
			err = *r
		}
		return nil, nil, &connError{member: addr, err: err}
	}
	c.member = hello.MemberUuid
	c.seen()
	pctx, pcancel := context.WithCancel(context.Background())
	pipe, err := pb.NewPipelineServiceClient(cc).Pipeline(pctx, withEncodedMessages)
	if err != nil {
		pcancel()
		_ = cc.Close()
		return nil, nil, &connError{member: addr, err: err}
	}
	c.pipe, c.cancel = pipe, pcancel
	go c.receive()
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

// receive delivers responses to their calls until the stream fails, then
// fails every pending call.
func (c *conn) receive() {
	defer close(c.done)
	for {
		resp, err := c.pipe.Recv()
		if err != nil {
			if err == io.EOF {
				err = errors.New("the member closed the stream")
			}
			// A draining member answers every call it took before it ends
			// the stream: calls still pending then were never run.
			c.fail(err, !errors.Is(errorFromStatus(err, c.addr), ErrShuttingDown))
			return
		}
		c.seen()
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

// fail marks the connection broken and fails the calls in flight; sent
// says whether they may have run on the member.
func (c *conn) fail(err error, sent bool) {
	ce := &connError{member: c.addr, sent: sent, err: err}
	if !c.broken.CompareAndSwap(nil, ce) {
		return
	}
	for i := range c.pending {
		sh := &c.pending[i]
		sh.mu.Lock()
		for id, cl := range sh.m {
			delete(sh.m, id)
			cl.ch <- &pb.PipelineResponse{CallId: id, Error: &pb.Error{GrpcCode: failedCall, Message: err.Error(), Detail: &pb.ErrorDetail{Retryable: !sent}}}
		}
		sh.mu.Unlock()
	}
}

// usable reports whether new calls may use the connection.
func (c *conn) usable() bool { return c.broken.Load() == nil }

// invoke sends req and waits for its response, ctx's end, or the
// connection's failure. It sets req.CallId and req.TimeoutMs. A request
// that cannot be encoded fails with a *RequestError: nothing was sent and
// the connection is unaffected.
func (c *conn) invoke(ctx context.Context, req *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	if ce := c.broken.Load(); ce != nil {
		return nil, &connError{member: c.addr, err: ce.err}
	}
	id := c.nextID.Add(1)
	req.CallId = id
	if dl, ok := ctx.Deadline(); ok {
		req.TimeoutMs = max(1, time.Until(dl).Milliseconds())
	}
	msg, err := encodeRequest(req, c.maxMsg)
	if err != nil {
		return nil, err
	}
	cl := callPool.Get().(*call)
	sh := &c.pending[id%pendingShards]
	sh.mu.Lock()
	sh.m[id] = cl
	sh.mu.Unlock()
	// Registered after a failure's sweep? Then nobody will answer: give up.
	if ce := c.broken.Load(); ce != nil {
		c.abandon(sh, id, cl)
		msg.data.Free()
		return nil, &connError{member: c.addr, err: ce.err}
	}
	// The message is encoded: a failure to send it is the stream's.
	c.sendMu.Lock()
	err = c.pipe.SendMsg(msg)
	c.sendMu.Unlock()
	if err != nil {
		c.fail(err, true)
		c.abandon(sh, id, cl)
		return nil, &connError{member: c.addr, err: err}
	}
	select {
	case resp := <-cl.ch:
		callPool.Put(cl)
		if resp.Error != nil && resp.Error.GrpcCode == failedCall {
			return nil, &connError{member: c.addr, sent: !resp.Error.Detail.GetRetryable(), err: errors.New(resp.Error.Message)}
		}
		return resp, nil
	case <-ctx.Done():
		c.abandon(sh, id, cl)
		return nil, ctx.Err()
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

// close ends the pipeline and the channel and waits for the receiver.
func (c *conn) close() {
	c.sendMu.Lock()
	_ = c.pipe.CloseSend()
	c.sendMu.Unlock()
	c.cancel()
	<-c.done
	_ = c.cc.Close()
}
