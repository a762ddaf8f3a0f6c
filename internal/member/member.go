// Package member composes an Atoll member: it wires the record stores,
// the serialization registries, the partition table and the gRPC server
// together, serves the admin HTTP endpoints, runs background work, and
// shuts everything down in order. It is the only place that knows all the
// parts; nothing imports it but the command and the public embedding API.
package member

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/query/catalog"
	"github.com/atolldb/atoll/internal/server"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Version is the member's version.
const Version = "0.1.0"

// Member is a running member.
type Member struct {
	cfg  Config
	log  *slog.Logger
	self partition.Member

	ser    *serialization.Service
	maps   *maps.Registry
	table  *partition.Holder
	server *server.Server
	node   *cluster.Node
	query  *queryParts

	grpc     *grpc.Server
	listener net.Listener
	admin    *http.Server
	adminLn  net.Listener

	registry *prometheus.Registry
	metrics  *metrics.Metrics
	sec      *secured
	started  atomic.Bool // the cluster node started
	// memoryLimit is the member's memory limit (Config.ResolveMemoryLimit).
	memoryLimit int64
	stable      stability

	stop     chan struct{}
	bg       sync.WaitGroup
	shutOnce sync.Once
	shutErr  error
}

// Start starts a member and returns once it accepts connections.
func Start(ctx context.Context, cfg Config) (*Member, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = newLogger(cfg.Log)
	}
	configs := map[string]maps.Config{}
	for name, mc := range cfg.Maps {
		c, err := mc.toMaps()
		if err != nil {
			return nil, err
		}
		configs[name] = c
	}
	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		return nil, err
	}
	sec, err := loadSecurity(&cfg, log)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Bind)
	if err != nil {
		return nil, fmt.Errorf("member: listen on %s: %w", cfg.Bind, err)
	}
	advertise, err := advertiseAddr(cfg.Advertise, ln.Addr())
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	m := &Member{cfg: cfg, log: log, ser: ser, listener: ln, stop: make(chan struct{}), table: &partition.Holder{}, sec: sec}
	m.self = partition.Member{UUID: partition.NewUUID(), Address: advertise, JoinOrder: time.Now().UnixNano()}
	if cfg.Admin != "" {
		if m.adminLn, err = net.Listen("tcp", cfg.Admin); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("member: admin listen on %s: %w", cfg.Admin, err)
		}
		m.self.AdminAddress = m.adminLn.Addr().String()
	}
	m.registry = cfg.Registry
	if m.registry == nil {
		m.registry = prometheus.NewRegistry()
	}
	m.metrics = metrics.New(m.registry, metrics.Sources{Maps: m.mapStats, Cluster: m.clusterStats, Ready: m.ready, Cursors: m.QueryCursors, Exchange: m.exchangeStats,
		QueryMemory: m.queryMemory, Locks: m.lockCount},
		metrics.Options{Version: Version, MapOperations: cfg.Metrics.Operations})
	transport := &transportMetrics{m: m.metrics.Transport, self: advertise, known: m.isMember}
	replicas := &replicaStore{ser: ser, partitions: int32(cfg.PartitionCount), clock: cfg.Clock}
	cat := catalog.New()
	node, err := cluster.New(cluster.Config{
		ClusterName: cfg.ClusterName, Self: m.self, PartitionCount: cfg.PartitionCount, Replicas: cfg.replicas(),
		Join: cfg.Join, MinClusterSize: cfg.MinClusterSize, Store: replicas, Metadata: metadataStore{ser}, Catalog: catalogStore{cat},
		Table: m.table, Logger: log, MaxMessageSize: cfg.Limits.MaxMessageSize, MaxConcurrentMigrations: cfg.MaxParallelMigrations,
		DialOptions: append(transport.dialOptions(), dialer(cfg.Dialer)...), Traffic: transport.traffic,
		TLS: sec.tls, Secret: sec.secret, MaxClientConnsPerAddress: cfg.Limits.MaxConnectionsPerAddress,
		Dialer: cfg.Dialer,
		Gossip: cluster.GossipConfig{
			FailureTimeout: time.Duration(cfg.Gossip.FailureTimeout),
			ProbeInterval:  time.Duration(cfg.Gossip.ProbeInterval), ProbeTimeout: time.Duration(cfg.Gossip.ProbeTimeout),
			GossipInterval: time.Duration(cfg.Gossip.GossipInterval), SuspicionMult: cfg.Gossip.SuspicionMult,
			RejoinInterval: time.Duration(cfg.Gossip.RejoinInterval),
		},
	})
	if err != nil {
		_ = ln.Close()
		if m.adminLn != nil {
			_ = m.adminLn.Close()
		}
		return nil, err
	}
	// Every change of a map reaches the cluster layer through the
	// registry's event hook (replicationFeed): the write → backup path of
	// internal/server's handlers, and of expiry, eviction and clears.
	m.maps = maps.NewRegistry(maps.Options{
		PartitionCount: cfg.PartitionCount, Configs: configs,
		MaxKeySize: cfg.Limits.MaxKeySize, MaxValueSize: cfg.Limits.MaxValueSize, Clock: cfg.Clock,
		MaxMaps: cfg.Limits.MaxMaps, MaxMapSeries: cfg.Metrics.MapSeriesLimit,
		OnEvent: replicationFeed{node}.onEvent,
	})
	replicas.maps = m.maps
	m.node = node
	writer := &dmlWriter{}
	memLimit, memSource := cfg.ResolveMemoryLimit()
	m.memoryLimit = memLimit
	log.Info("memory limit", "bytes", memLimit, "size", FormatByteSize(memLimit), "from", memSource)
	if m.query, err = newQuery(cfg.Query, memLimit, cat, m.maps, ser, m.table, m.self.UUID, cfg.PartitionCount, node, writer, m.metrics.Queries, log); err != nil {
		_ = ln.Close()
		if m.adminLn != nil {
			_ = m.adminLn.Close()
		}
		return nil, err
	}
	m.server = server.New(server.Config{
		ClusterName: cfg.ClusterName, Version: Version, Self: m.self,
		Maps: m.maps, Serialization: ser, Table: m.table, Cluster: node, Logger: log, Query: m.query.config,
		Metrics: m.metrics.MapOps, ProfileLabels: cfg.Profiling.Labels, Clients: m.metrics.Clients,
		IsMember: cluster.PeerIsMember, RefusedCalls: m.metrics.RefusedCalls,
		MaxBatchEntries: cfg.Limits.MaxBatchEntries, MaxMessageSize: cfg.Limits.MaxMessageSize,
		Transactions: m.metrics.Transactions, Clock: cfg.Clock, MemberConn: node.Conn,
		Auth: sec.auth, Security: m.metrics.Security, MaxListenersPerConnection: cfg.Limits.MaxListenersPerConnection,
		MaxKeySize: cfg.Limits.MaxKeySize, MaxValueSize: cfg.Limits.MaxValueSize,
	})
	writer.w = m.server.DMLWriter(node.Conn)
	node.HandleFramed(fragmentsStream, m.server.ServeFragments)
	m.grpc = grpc.NewServer(
		// Connections that open with the member handshake are member
		// connections (inside TLS when the member has it); the server's
		// access check serves member-only calls on them alone. A client's
		// framed pipeline leaves gRPC for the server's own loop.
		grpc.Creds(node.ServerCredentials(m.server.ServeFramed)),
		// Clients check idle connections every 10s or more (their
		// heartbeat); gRPC's default policy would close them for pinging
		// more often than every 5 minutes.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		// A pipeline call over limits.max-message-size fails alone instead
		// of ending the stream the client's other calls share.
		grpc.ForceServerCodecV2(server.Codec(cfg.Limits.MaxMessageSize)),
		grpc.MaxRecvMsgSize(server.ReceiveLimit(cfg.Limits.MaxMessageSize)),
		grpc.MaxSendMsgSize(cfg.Limits.MaxMessageSize),
		grpc.ChainUnaryInterceptor(m.server.UnaryInterceptor, transport.serverUnary),
		grpc.ChainStreamInterceptor(m.server.StreamInterceptor, transport.serverStream),
	)
	node.Register(m.grpc)
	m.server.Register(m.grpc)
	m.goRun(func() {
		if err := m.grpc.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			log.Error("grpc server stopped", "err", err)
		}
	})
	if m.adminLn != nil {
		m.admin = &http.Server{Handler: sec.adminGuard(m.adminMux(), log), ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
		adminLn := m.adminLn
		if sec.tls != nil {
			adminLn = tls.NewListener(adminLn, sec.tls.AdminServerConfig())
		}
		m.goRun(func() {
			if err := m.admin.Serve(adminLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("admin server stopped", "err", err)
			}
		})
	}
	m.goRun(m.sweep)
	m.goRun(m.sweepLocks)
	m.stable.changed()
	m.goRun(m.watchTable)
	if err := node.Start(ctx); err != nil {
		m.grpc.Stop()
		if m.admin != nil {
			_ = m.admin.Close()
		}
		close(m.stop)
		m.bg.Wait()
		m.query.close()
		return nil, err
	}
	m.started.Store(true)
	m.server.Started()
	sec.logPosture(log, &cfg, ln.Addr())
	log.Info("member started", "cluster", cfg.ClusterName, "address", m.self.Address, "admin", m.self.AdminAddress,
		"uuid", m.self.UUID.String(), "partitions", cfg.PartitionCount, "version", Version)
	return m, nil
}

// advertiseAddr returns the address to publish: the configured one, the
// bound one when it names a host, or for a wildcard bind the first
// non-loopback IPv4 address of an interface that is up (as Hazelcast picks
// its public address), else loopback.
func advertiseAddr(configured string, bound net.Addr) (string, error) {
	if configured != "" {
		return configured, nil
	}
	tcp, ok := bound.(*net.TCPAddr)
	if !ok {
		return "", fmt.Errorf("member: bound to %v, not a TCP address", bound)
	}
	if !tcp.IP.IsUnspecified() {
		return tcp.String(), nil
	}
	ip := net.IPv4(127, 0, 0, 1)
	if ifaces, err := net.Interfaces(); err == nil {
	search:
		for _, ifc := range ifaces {
			if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
				continue
			}
			addrs, _ := ifc.Addrs()
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
					ip = n.IP
					break search
				}
			}
		}
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port)), nil
}

// goRun runs fn on a tracked goroutine.
func (m *Member) goRun(fn func()) {
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		fn()
	}()
}

// Addr returns the address clients connect to.
func (m *Member) Addr() string { return m.self.Address }

// AdminAddr returns the admin HTTP address ("" when disabled).
func (m *Member) AdminAddr() string { return m.self.AdminAddress }

// ServiceMethods returns the full names of the gRPC methods the member's
// address serves, sorted: what the access table must cover.
func (m *Member) ServiceMethods() []string {
	var out []string
	for name, info := range m.grpc.GetServiceInfo() {
		for _, md := range info.Methods {
			out = append(out, "/"+name+"/"+md.Name)
		}
	}
	sort.Strings(out)
	return out
}

// UUID returns the member's identity.
func (m *Member) UUID() partition.UUID { return m.self.UUID }

// ClusterName returns the member's cluster name.
func (m *Member) ClusterName() string { return m.cfg.ClusterName }

// sweep removes expired entries every sweep-interval.
func (m *Member) sweep() {
	m.every(time.Duration(m.cfg.SweepInterval), func() { m.maps.Sweep(10000) })
}

// sweepLocks resolves, every locks.sweep-interval, the locks of this
// member's partitions whose lease is over (the server's work ends when it
// drains, which stopping does first).
func (m *Member) sweepLocks() {
	interval := time.Duration(m.cfg.Locks.SweepInterval)
	m.every(interval, func() { m.server.ResolveExpired(context.Background(), 10*interval) })
}

// every runs fn every interval until the member stops (never when
// interval is not positive).
func (m *Member) every(interval time.Duration, fn func()) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			fn()
		}
	}
}

func (m *Member) adminMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /debug/memory", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(HeapAfterGC())
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if why := m.unready(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(m.log.Handler(), slog.LevelWarn)}))
	profiling.Register(mux)
	return mux
}

// Shutdown stops the member gracefully: it refuses new calls with a
// retryable error, lets the calls in progress finish, ends streams, stops
// background work and closes its listeners. If ctx ends first, the
// remaining calls are cut off and Shutdown returns ctx.Err(). Calling it
// again returns the first call's result.
func (m *Member) Shutdown(ctx context.Context) error {
	m.shutOnce.Do(func() {
		m.log.Info("member shutting down", "address", m.self.Address)
		// Hand the partitions over first, while still serving, so that no
		// acknowledged write depends on this member any more.
		if err := m.node.Leave(ctx); err != nil {
			m.log.Warn("leaving the cluster gracefully did not finish", "err", err)
		}
		close(m.stop)
		m.server.Drain()
		stopped := make(chan struct{})
		go func() {
			m.grpc.GracefulStop()
			close(stopped)
		}()
		framedErr := m.server.WaitFramed(ctx)
		select {
		case <-stopped:
		case <-ctx.Done():
			m.grpc.Stop()
			<-stopped
		}
		if framedErr != nil || ctx.Err() != nil {
			m.server.CloseFramed()
			m.shutErr = ctx.Err()
		}
		if m.admin != nil {
			if err := m.admin.Shutdown(ctx); err != nil && m.shutErr == nil {
				m.shutErr = err
			}
		}
		m.bg.Wait()
		if err := m.node.Stop(ctx); err != nil && m.shutErr == nil {
			m.shutErr = err
		}
		m.query.close()
		m.log.Info("member stopped", "address", m.self.Address)
	})
	return m.shutErr
}

// Heap reports the Go heap of the member's process, and its goroutines.
type Heap struct {
	HeapAllocBytes uint64 `json:"heapAllocBytes"` // live objects after a GC
	HeapInuseBytes uint64 `json:"heapInuseBytes"`
	SysBytes       uint64 `json:"sysBytes"`
	NumGC          uint32 `json:"numGC"`
	Goroutines     int    `json:"goroutines"`
}

// HeapAfterGC runs garbage collections and reads the heap statistics: the
// member's real memory use, for comparison with the entry memory cost its
// maps report. It collects twice: objects in sync.Pool caches (gRPC's
// buffers among them) survive the first collection.
func HeapAfterGC() Heap {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Heap{HeapAllocBytes: ms.HeapAlloc, HeapInuseBytes: ms.HeapInuse, SysBytes: ms.Sys, NumGC: ms.NumGC, Goroutines: runtime.NumGoroutine()}
}

func newLogger(c LogConfig) *slog.Logger {
	level, _ := parseLevel(c.Level) // validated
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// Close stops the member at once, like a crash: no partition is handed
// over and calls in progress are cut off. Tests use it to simulate a
// member that dies; a graceful stop is Shutdown.
func (m *Member) Close() error {
	m.shutOnce.Do(func() {
		close(m.stop)
		m.server.Drain()
		m.server.CloseFramed()
		m.grpc.Stop()
		if m.admin != nil {
			_ = m.admin.Close()
		}
		m.bg.Wait()
		now, stop := context.WithCancel(context.Background())
		stop() // a crash waits for nothing: the node cuts its connections at once
		_ = m.node.Stop(now)
		m.query.close()
	})
	return nil
}

// dialer routes connections to other members through d, when set.
func dialer(d func(context.Context, string) (net.Conn, error)) []grpc.DialOption {
	if d == nil {
		return nil
	}
	return []grpc.DialOption{grpc.WithContextDialer(d)}
}
