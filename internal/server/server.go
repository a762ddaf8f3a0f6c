// Package server implements the member's gRPC API (api/proto/atoll/v1):
// the map, metadata and cluster services, and the pipeline that runs the
// same operations multiplexed over one stream. Every operation is written
// once, as a handler taking and returning protobuf messages; the unary
// methods and the pipeline dispatcher both call it. Errors become gRPC
// statuses in one place (errors.go).
package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Cluster is what the server needs from the cluster layer.
type Cluster interface {
	// BeginWrite admits a write to partition pid on this member; its End
	// must be called after the store changed: it ends the admission and
	// returns what the write needs of its backups (the first syncBackups
	// to confirm the change). A member that does not own pid fails with an
	// error matching cluster.ErrWrongOwner.
	BeginWrite(pid int32, syncBackups int) (cluster.Write, error)
	// SendBackups sends, from the calling goroutine, the changes of the
	// writes it ended with Write.EndSending.
	SendBackups()
	// CheckRead fails like BeginWrite when this member does not own pid.
	CheckRead(pid int32) error
	// Owned reports whether this member owns pid.
	Owned(pid int32) bool
	// BroadcastMetadata replicates type metadata to every other member.
	BroadcastMetadata(ctx context.Context, list *pb.MetadataList) error
	// State describes members, coordinator and migrations.
	State() *pb.ClusterState
	// Replicas is the number of backups the cluster keeps of each
	// partition: a map may ask for at most that many.
	Replicas() int
}

// Config holds the server's dependencies and limits.
type Config struct {
	ClusterName   string
	Version       string // member version reported to clients
	Self          partition.Member
	Maps          *maps.Registry
	Serialization *serialization.Service // the member's metadata registries
	Table         *partition.Holder
	Cluster       Cluster
	Logger        *slog.Logger
	// PipelineInFlight bounds the calls one pipeline stream runs at once;
	// when full, the stream stops reading until calls finish. Default 4096.
	PipelineInFlight int
	// IteratePageSize is the default number of entries per Iterate message.
	IteratePageSize int
	// DefaultTimeout bounds pipeline calls that carry no timeout; 0 = none.
	DefaultTimeout time.Duration
	// MaxBatchEntries bounds the keys of a GetAll and the entries of a
	// PutAll (limits.max-batch-entries); larger requests are refused
	// before any work. Default 100 000.
	MaxBatchEntries int
	// MaxMessageSize is the largest message the member sends
	// (limits.max-message-size): an answer that would grow past it is
	// refused while it is built. Default 64 MiB.
	MaxMessageSize int
	// MaxKeySize and MaxValueSize are the largest serialized key and value
	// the member's maps take (limits.max-key-size, limits.max-value-size):
	// Connect tells clients, which refuse larger ones before sending.
	MaxKeySize, MaxValueSize int
	// Query runs SQL and predicate queries; nil disables the query service.
	Query *QueryConfig
	// Metrics records the latency and failures of map operations by map
	// and kind; nil records nothing.
	Metrics *metrics.MapOps
	// ProfileLabels runs map operations under the pprof labels map and op.
	ProfileLabels bool
	// Clients receives the statistics clients push; nil drops them.
	Clients *metrics.Clients
	// IsMember reports whether a call arrived on a member connection (one
	// that opened with the member handshake); member-only calls are
	// refused on any other. Nil: no caller is a member.
	IsMember func(ctx context.Context) bool
	// RefusedCalls counts the calls refused by the access check; nil
	// counts nothing.
	RefusedCalls prometheus.Counter
	// Transactions records commits, conflicts, lock waits and resolved
	// locks; nil records nothing.
	Transactions *metrics.Transactions
	// Clock is what lock leases are read against (the wall clock when
	// nil): the maps' clock.
	Clock store.Clock
	// MemberConn returns a connection to another member's address, for
	// the calls that resolve a transaction's locks on the owners of its
	// other keys. Nil: no calls to other members.
	MemberConn func(addr string) (grpc.ClientConnInterface, error)
	// Auth authenticates clients and holds their roles (access.go); nil
	// serves every client, as a member without a security section does.
	Auth *security.Authenticator
	// Security counts denied calls, failed authentications and recovered
	// panics; nil counts nothing.
	Security *metrics.Security
	// MaxListenersPerConnection bounds the listener streams one client
	// connection holds open (limits.max-listeners-per-connection);
	// default 1024.
	MaxListenersPerConnection int
}

// DefaultMaxListenersPerConnection is the default of
// Config.MaxListenersPerConnection.
const DefaultMaxListenersPerConnection = 1024

// DefaultMaxBatchEntries is the default of Config.MaxBatchEntries.
const DefaultMaxBatchEntries = 100_000

// Server serves the member's API. It is safe for concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	closing atomic.Bool
	started atomic.Bool // clients are served (Started)
	// streams counts open streaming calls (pipelines, iterations,
	// listeners) so that shutdown can wait for them.
	active atomic.Int64
	done   chan struct{}
	// life ends when the server drains: the work it starts on its own
	// (finishing transactions, ending client sessions) derives from it.
	life    context.Context
	endLife context.CancelFunc
	// obs instruments map operations; nil when metrics and labels are off.
	obs *observer
	// access decides who may call what.
	access access
	// latches serialize the operations on one key; waiters wake calls
	// that wait for a key's lock; sessions tie connections to clients.
	latches  *locks.Latches
	waiters  *locks.Waiters
	sessions sessions
	// listeners counts the listener streams open per client connection
	// (*cluster.Conn → *atomic.Int32).
	listeners sync.Map
	// framed are the framed pipeline connections (framed.go).
	framed framedConns
	// queries serves QueryService, on gRPC and on framed connections.
	queries *queryService
}

// New returns a Server.
func New(cfg Config) *Server {
	if cfg.PipelineInFlight <= 0 {
		cfg.PipelineInFlight = 4096
	}
	if cfg.IteratePageSize <= 0 {
		cfg.IteratePageSize = 1000
	}
	if cfg.MaxBatchEntries <= 0 {
		cfg.MaxBatchEntries = DefaultMaxBatchEntries
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = 64 << 20
	}
	if cfg.MaxListenersPerConnection <= 0 {
		cfg.MaxListenersPerConnection = DefaultMaxListenersPerConnection
	}
	if cfg.MaxKeySize <= 0 {
		cfg.MaxKeySize = store.DefaultMaxKeySize
	}
	if cfg.MaxValueSize <= 0 {
		cfg.MaxValueSize = store.DefaultMaxValueSize
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger, done: make(chan struct{}), latches: locks.NewLatches(), waiters: locks.NewWaiters()}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.queries = &queryService{s: s}
	s.access.s = s
	s.access.refusals.Interval = refusalLogInterval
	if cfg.Metrics != nil || cfg.ProfileLabels {
		s.obs = &observer{s: s, others: &instruments{name: ""}}
		s.obs.byName.Store(&map[string]*instruments{})
	}
	return s
}

// Register registers the services on g.
func (s *Server) Register(g *grpc.Server) {
	pb.RegisterMapServiceServer(g, &mapService{s: s})
	pb.RegisterMetadataServiceServer(g, &metadataService{s: s})
	pb.RegisterClusterServiceServer(g, &clusterService{s: s})
	pb.RegisterPipelineServiceServer(g, &pipelineService{s: s})
	pb.RegisterQueryServiceServer(g, s.queries)
	pb.RegisterTransactionServiceServer(g, &transactionService{s: s})
	memberpb.RegisterExchangeServiceServer(g, &exchangeService{s: s})
	memberpb.RegisterTransactionResolverServiceServer(g, &resolverService{s: s})
}

// Drain makes the server refuse new calls with a retryable "shutting down"
// error and ends its streams (pipelines finish the calls they already
// read). It is the first step of a graceful shutdown.
func (s *Server) Drain() {
	if !s.closing.Swap(true) {
		close(s.done)
		s.endLife()
	}
}

// Started lets clients in: until then the member is joining its cluster,
// and only the other members' calls are served.
func (s *Server) Started() { s.started.Store(true) }

// admit fails when the server is draining, and for clients while the
// member is starting.
func (s *Server) admit(ctx context.Context) error {
	if s.closing.Load() {
		return ErrShuttingDown
	}
	if !s.started.Load() && (s.cfg.IsMember == nil || !s.cfg.IsMember(ctx)) {
		return ErrStarting
	}
	return nil
}

// UnaryInterceptor refuses calls the caller may not make (access.go) and
// calls while draining, maps handler errors to statuses, and turns a panic
// into an internal error. It intercepts every service of the member's
// address, the member-to-member one included.
func (s *Server) UnaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	ctx, check, err := s.access.admit(ctx, info.FullMethod)
	if err == nil && check != nil {
		err = check(req)
	}
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.admit(ctx); err != nil {
		return nil, toStatus(err)
	}
	if err := checkReceived(req, s.cfg.MaxMessageSize); err != nil {
		return nil, toStatus(err)
	}
	defer s.recoverCall(info.FullMethod, &err)
	resp, err = handler(ctx, req)
	return resp, toStatus(err)
}

// StreamInterceptor is UnaryInterceptor for streaming calls. A stream
// whose method's rule names the map of its request is checked when the
// handler reads that request.
func (s *Server) StreamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	ctx, check, err := s.access.admit(ss.Context(), info.FullMethod)
	if err != nil {
		return toStatus(err)
	}
	if err := s.admit(ss.Context()); err != nil {
		return toStatus(err)
	}
	s.active.Add(1)
	defer s.active.Add(-1)
	defer s.recoverCall(info.FullMethod, &err)
	if s.cfg.IsMember == nil || !s.cfg.IsMember(ss.Context()) {
		ss = &sizeCheckedStream{ServerStream: ss, max: s.cfg.MaxMessageSize}
	}
	return toStatus(handler(srv, &admittedStream{ServerStream: ss, ctx: ctx, check: check}))
}

// admittedStream is a stream with the access decision in its context,
// and the check of its first request still to run.
type admittedStream struct {
	grpc.ServerStream
	ctx   context.Context
	check func(msg any) error
}

func (a *admittedStream) Context() context.Context { return a.ctx }

func (a *admittedStream) RecvMsg(m any) error {
	if err := a.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if check := a.check; check != nil {
		a.check = nil
		return check(m)
	}
	return nil
}

// recovered handles a panic of a handler: it is logged with its stack,
// counted, and becomes an internal error; the member keeps serving.
func (s *Server) recovered(what string, p any) error {
	s.log.Error("call panicked", "call", what, "panic", p, "stack", string(debug.Stack()))
	if sm := s.cfg.Security; sm != nil {
		sm.Panics.Inc()
	}
	return fmt.Errorf("internal error: %v", p)
}

// sizeCheckedStream ends a client's stream at a message over the limit
// (receive.go).
type sizeCheckedStream struct {
	grpc.ServerStream
	max int
}

func (s *sizeCheckedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return checkReceived(m, s.max)
}

func (s *Server) recoverCall(method string, err *error) {
	if p := recover(); p != nil {
		*err = toStatus(s.recovered(method, p))
	}
}

// ActiveStreams returns the number of streaming calls in progress.
func (s *Server) ActiveStreams() int64 { return s.active.Load() }
