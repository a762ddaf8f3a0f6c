package member

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/server"
	"github.com/atolldb/atoll/internal/store"
)

// Config configures a member. DefaultConfig gives Atoll's embedded
// defaults; LoadConfig reads a YAML file over them.
type Config struct {
	// ClusterName: clients and members must name the same cluster.
	ClusterName string `yaml:"cluster-name"`
	// Bind is the address clients and members connect to (host:port).
	Bind string `yaml:"bind"`
	// Admin is the address of the admin HTTP server (health, metrics,
	// profiles); empty disables it.
	Admin string `yaml:"admin"`
	// Advertise is the address other members and clients use to reach this
	// member, when it differs from Bind (NAT, containers). Default: the
	// bound address, or for a wildcard bind (0.0.0.0:5701) the first
	// non-loopback IPv4 address of an interface that is up.
	Advertise string `yaml:"advertise"`
	// Join lists members (host:port) to join through; empty starts a new
	// cluster. Members gossip over their member address: no other port.
	Join []string `yaml:"join"`
	// MinClusterSize refuses writes while fewer members are alive, so that
	// the minority side of a network partition takes none (0: never).
	MinClusterSize int `yaml:"min-cluster-size"`
	// Gossip tunes failure detection (defaults: memberlist's LAN profile).
	Gossip GossipConfig `yaml:"gossip"`
	// MaxParallelMigrations bounds the partitions moving at once (default
	// 10, as Hazelcast's hazelcast.partition.max.parallel.migrations).
	MaxParallelMigrations int `yaml:"max-parallel-migrations"`
	// PartitionCount is the number of partitions; every member of a
	// cluster must use the same.
	PartitionCount int `yaml:"partition-count"`
	// Maps configures maps by name or pattern (see maps.Options.Configs).
	Maps map[string]MapConfig `yaml:"maps"`
	// Limits protect the member from oversized input.
	Limits Limits `yaml:"limits"`
	// SweepInterval is how often expired entries are removed in the
	// background (reads never return expired entries anyway).
	SweepInterval Duration `yaml:"sweep-interval"`
	// Locks configures the lock table of per-key locks and transactions.
	Locks LocksConfig `yaml:"locks"`
	// Log configures logging.
	Log LogConfig `yaml:"log"`
	// Metrics configures what /metrics records.
	Metrics MetricsConfig `yaml:"metrics"`
	// Profiling configures the profiling hooks.
	Profiling ProfilingConfig `yaml:"profiling"`
	// Query configures the query engine and bounds what clients' queries
	// hold on the member.
	Query QueryConfig `yaml:"query"`
	// MemoryLimit is the member's memory limit: `atoll member start` makes
	// it the process's Go soft limit (debug.SetMemoryLimit), and the query
	// memory breaker's thresholds are fractions of it. 0 derives it (see
	// ResolveMemoryLimit): GOMEMLIMIT, else 90% of the cgroup's limit,
	// else 75% of the machine's memory.
	MemoryLimit ByteSize `yaml:"memory-limit"`
	// TLS encrypts every connection of the member's address (clients' and
	// members') and its admin address; members then prove they belong
	// with certificates of the members' CA. Absent: plaintext.
	TLS *TLSConfig `yaml:"tls"`
	// ClusterSecretFile holds the cluster secret: members prove they know
	// it in their handshake (HMACs, so the secret never travels), and
	// gossip is encrypted with a key derived from it. Every member needs
	// the same. `atoll member start` also reads it from the environment
	// variable ATOLL_CLUSTER_SECRET.
	ClusterSecretFile string `yaml:"cluster-secret-file"`
	// Security makes every client authenticate (users with password
	// hashes, bearer tokens, client certificate subjects) and grants
	// roles' actions on maps; the admin address's /debug endpoints then
	// need the admin action. Absent: any client that reaches the member
	// may do anything, as a member on loopback by default.
	Security *security.Config `yaml:"security"`

	// ClusterSecret is the cluster secret itself (embedding; it wins over
	// ClusterSecretFile). Logger overrides Log (embedding); Clock drives TTL and statistics
	// (tests); Registry receives the member's metrics (default: a registry
	// of its own; never the global one, so that members in one process do
	// not collide). None comes from YAML.
	ClusterSecret []byte               `yaml:"-"`
	Logger        *slog.Logger         `yaml:"-"`
	Clock         store.Clock          `yaml:"-"`
	Registry      *prometheus.Registry `yaml:"-"`
	// Dialer, when set, opens this member's connections to other members
	// (gossip, replication, coordination) instead of TCP: tests route them
	// through a network they can cut.
	Dialer func(ctx context.Context, addr string) (net.Conn, error) `yaml:"-"`
}

// LocksConfig configures the lock table.
type LocksConfig struct {
	// SweepInterval is how often the member resolves the locks of its
	// partitions whose lease is over and that nobody met (default 1s): a
	// lock outlives its lease by at most this much. Transactions are
	// rolled forward or back from their primaries' states.
	SweepInterval Duration `yaml:"sweep-interval"`
}

// TLSConfig names a member's TLS files (PEM). The files are read again
// when they change (renewed certificates take effect without a restart).
type TLSConfig struct {
	// CertFile and KeyFile are the member's certificate and key: served
	// to clients and members, and presented to the members it dials (so
	// the certificate needs both server and client authentication
	// usages).
	CertFile string `yaml:"cert-file"`
	KeyFile  string `yaml:"key-file"`
	// CAFile is the CA of the cluster's members: a member that dials
	// another must present a certificate it signed, and checks the other's
	// against it. It also verifies clients' certificates unless
	// ClientCAFile names another CA.
	CAFile       string `yaml:"ca-file"`
	ClientCAFile string `yaml:"client-ca-file"`
	// ClientAuth: none (clients' certificates are ignored), optional
	// (default: a client may present one, which identifies it to the
	// security section's certificates) or required.
	ClientAuth string `yaml:"client-auth"`
	// MemberNames, when set, are patterns ("*" for any run of characters)
	// one of which a member certificate's common name or DNS names must
	// match, so that clients holding certificates of the same CA cannot
	// open member connections.
	MemberNames []string `yaml:"member-names"`
	// ReloadInterval is how often the files are looked at for changes
	// (default 10s).
	ReloadInterval Duration `yaml:"reload-interval"`
}

// MetricsConfig configures the member's metrics.
type MetricsConfig struct {
	// Operations records the latency and failures of every map operation
	// by map and kind (default true). Everything else on /metrics is read
	// at scrape time and costs the operations nothing.
	Operations bool `yaml:"operations"`
	// MapSeriesLimit is how many maps have series (and profile labels) of
	// their own (default 100): the first ones created on the member, a
	// slot freed by a destroyed map going to the next one created. The
	// series of all the others are summed under an empty map label, so
	// that /metrics stays small with any number of maps.
	MapSeriesLimit int `yaml:"map-series-limit"`
}

// ProfilingConfig configures the profiling hooks.
type ProfilingConfig struct {
	// Labels runs map operations under the pprof labels map and op
	// (default true), so that `atoll profile --label op=set` can cut a CPU
	// profile to one kind of operation.
	Labels bool `yaml:"labels"`
}

// QueryConfig configures the query engine and bounds the cursors of
// queries: results a client reads page by page, which the member keeps (and
// the rows a sorted result materialised) until the client reads them to the
// end or closes them. Cursors belong to the client's query stream (or its
// connection, outside a stream) and close when it goes away.
type QueryConfig struct {
	// MemoryLimitPerQuery bounds the memory one query may hold on this
	// member (join tables, exchange buffers, aggregation and DISTINCT
	// tables, sort buffers, result pages), in bytes; 0: no limit. The
	// MEMORY_LIMIT hint overrides it per query.
	MemoryLimitPerQuery ByteSize `yaml:"memory-limit-per-query"`
	// MemoryLimitPerMember bounds what all queries together may hold on
	// this member; 0: half of the member's memory limit. A query whose
	// reservation would pass it is terminated (retryable).
	MemoryLimitPerMember ByteSize `yaml:"memory-limit-per-member"`
	// Breaker configures the query memory circuit breaker.
	Breaker BreakerConfig `yaml:"breaker"`
	// Join configures joins.
	Join JoinConfig `yaml:"join"`
	// CursorIdleTimeout closes a cursor nobody fetched from for this long
	// (default 2m).
	CursorIdleTimeout Duration `yaml:"cursor-idle-timeout"`
	// MaxCursors bounds the queries running or holding a cursor on the
	// member (default 1024), MaxCursorsPerClient those of one client's
	// stream or connection (default 64); a query over either is refused
	// with LIMIT_EXCEEDED before it runs.
	MaxCursors          int `yaml:"max-cursors"`
	MaxCursorsPerClient int `yaml:"max-cursors-per-client"`
}

// BreakerConfig configures the query memory circuit breaker. It opens
// when the queries' memory reaches pool-open of memory-limit-per-member,
// or the live heap heap-open of the member's memory-limit: then it
// terminates each running query that holds memory with probability 1/2
// and refuses new queries that need memory (joins, grouping, DISTINCT,
// sorts) until both are below pool-close and heap-close. While it is
// closed, the member a query starts on (its coordinator) admits a query
// that needs memory only while the running queries' memory there, held or
// expected (the peak of recent queries), stays below pool-close; the
// query's fragments on other members are refused only while their
// breaker is open, so that no work done for an admitted query is thrown
// away. A query the coordinator cannot admit yet waits up to
// admission-wait for room, in the order queries came, before it is
// refused; an opening breaker refuses the waiting ones too. Clients retry
// what it refused after retry-after at least. Map operations never meet
// it.
type BreakerConfig struct {
	// Enabled turns the breaker and memory-limit-per-member on (default
	// true); off, query memory is only counted.
	Enabled bool `yaml:"enabled"`
	// PoolOpen and PoolClose are fractions of memory-limit-per-member
	// (defaults 0.9 and 0.7), HeapOpen and HeapClose of memory-limit
	// (0.85 and 0.75).
	PoolOpen  float64 `yaml:"pool-open"`
	PoolClose float64 `yaml:"pool-close"`
	HeapOpen  float64 `yaml:"heap-open"`
	HeapClose float64 `yaml:"heap-close"`
	// CheckInterval is how often the live heap is read (default 100ms).
	CheckInterval Duration `yaml:"check-interval"`
	// RetryAfter is the least wait the breaker asks of clients (default
	// 200ms).
	RetryAfter Duration `yaml:"retry-after"`
	// AdmissionWait is how long a query that needs memory waits for room
	// on its coordinator before it is refused (default 10s; 0: refused at
	// once). The wait counts against the query's timeout.
	AdmissionWait Duration `yaml:"admission-wait"`
}

// JoinConfig configures how joins run between members. The BATCH_BYTES and
// VECTOR_SIZE hints override the exchange settings per query.
type JoinConfig struct {
	// BroadcastThresholdRows: a join's smaller input estimated at no more
	// rows than this is sent whole to every member (default 10 000).
	BroadcastThresholdRows int64 `yaml:"broadcast-threshold-rows"`
	// BatchBytes is the most a member buffers for one other member before
	// sending (default 64 KiB).
	BatchBytes int64 `yaml:"batch-bytes"`
	// VectorSize is the rows a member gathers from the others before
	// handing them to the join (default 10 000).
	VectorSize int64 `yaml:"vector-size"`
	// InFlightBytes is the most a member has sent to another that it has
	// not taken yet (default 4 MiB): a slow receiver blocks its senders.
	InFlightBytes int64 `yaml:"in-flight-bytes"`
}

// GossipConfig tunes the detection of members that stop answering (a
// member whose process is gone is declared dead at once: its address
// refuses connections); zero values keep the defaults.
type GossipConfig struct {
	// FailureTimeout is how long a member may stay silent (a paused
	// process, a host that stalls, a cut network) before it is declared
	// dead and its partitions are promoted (default 5s). The probe
	// interval (a fifth of it, at most 1s), probe timeout (half the
	// interval) and suspicion multiplier follow from it unless set below;
	// an explicit suspicion-mult is memberlist's, whose suspicion lasts up
	// to 6 times longer until other members confirm it.
	FailureTimeout Duration `yaml:"failure-timeout"`
	ProbeInterval  Duration `yaml:"probe-interval"`
	ProbeTimeout   Duration `yaml:"probe-timeout"`
	GossipInterval Duration `yaml:"gossip-interval"`
	SuspicionMult  int      `yaml:"suspicion-mult"`
	RejoinInterval Duration `yaml:"rejoin-interval"`
}

// MapConfig configures maps that match a name or pattern.
type MapConfig struct {
	TTL              Duration       `yaml:"ttl"`
	MaxIdle          Duration       `yaml:"max-idle"`
	Eviction         EvictionConfig `yaml:"eviction"`
	PerEntryStats    bool           `yaml:"per-entry-stats-enabled"`
	BackupCount      *int           `yaml:"backup-count"`
	AsyncBackupCount int            `yaml:"async-backup-count"`
}

// EvictionConfig bounds a map's size on each member.
type EvictionConfig struct {
	Policy     string `yaml:"policy"` // NONE, LRU or LFU
	MaxEntries int64  `yaml:"max-entries"`
	MaxBytes   int64  `yaml:"max-bytes"`
}

// Limits bound what the member accepts.
type Limits struct {
	MaxMessageSize int `yaml:"max-message-size"` // bytes of one gRPC message, received or sent
	MaxKeySize     int `yaml:"max-key-size"`
	MaxValueSize   int `yaml:"max-value-size"`
	// MaxBatchEntries bounds the keys of one GetAll and the entries of one
	// PutAll; larger requests are refused before any work (default
	// 100 000). An answer is also refused as soon as it would grow past
	// MaxMessageSize.
	MaxBatchEntries int `yaml:"max-batch-entries"`
	// MaxMaps bounds the maps clients create on this member (default
	// 50 000): a write that would create one more fails with
	// LIMIT_EXCEEDED. Copies from other members are never refused.
	MaxMaps int `yaml:"max-maps"`
	// MaxConnectionsPerAddress bounds the client connections open from
	// one IP address (default 1024): the calls of one more fail with
	// LIMIT_EXCEEDED, and past twice the limit a new one is closed at
	// once. Member connections are not counted.
	MaxConnectionsPerAddress int `yaml:"max-connections-per-address"`
	// MaxListenersPerConnection bounds the entry listener streams one
	// client connection holds open (default 1024); one more fails with
	// LIMIT_EXCEEDED.
	MaxListenersPerConnection int `yaml:"max-listeners-per-connection"`
}

// LogConfig configures the member's logger.
type LogConfig struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // text or json
}

// Duration is a time.Duration written as "30s", "5m" or "1h30m" in YAML.
type Duration time.Duration

// MarshalYAML writes the duration as a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	if v < 0 {
		return fmt.Errorf("line %d: negative duration %s", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// DefaultConfig returns the embedded defaults: cluster "dev", clients on
// 127.0.0.1:5701, admin HTTP on 127.0.0.1:8080, 271 partitions.
func DefaultConfig() Config {
	return Config{
		ClusterName:    "dev",
		Bind:           "127.0.0.1:5701",
		Admin:          "127.0.0.1:8080",
		PartitionCount: store.DefaultPartitionCount,
		Limits: Limits{
			MaxMessageSize:  64 << 20,
			MaxKeySize:      store.DefaultMaxKeySize,
			MaxValueSize:    store.DefaultMaxValueSize,
			MaxBatchEntries: server.DefaultMaxBatchEntries,
			MaxMaps:         50_000,

			MaxConnectionsPerAddress:  1024,
			MaxListenersPerConnection: server.DefaultMaxListenersPerConnection,
		},
		SweepInterval: Duration(time.Second),
		Locks:         LocksConfig{SweepInterval: Duration(time.Second)},
		Log:           LogConfig{Level: "info", Format: "text"},
		Metrics:       MetricsConfig{Operations: true, MapSeriesLimit: 100},
		Profiling:     ProfilingConfig{Labels: true},
		Query: QueryConfig{
			CursorIdleTimeout: Duration(2 * time.Minute),
			MaxCursors:        exec.DefaultMaxCursors, MaxCursorsPerClient: exec.DefaultMaxCursorsPerSession,
			Breaker: BreakerConfig{Enabled: true, PoolOpen: 0.9, PoolClose: 0.7, HeapOpen: 0.85, HeapClose: 0.75,
				CheckInterval: Duration(100 * time.Millisecond), RetryAfter: Duration(200 * time.Millisecond),
				AdmissionWait: Duration(10 * time.Second)},
			Join: JoinConfig{BroadcastThresholdRows: 10000, BatchBytes: 64 << 10, VectorSize: 10000, InFlightBytes: 4 << 20},
		},
	}
}

// LoadConfig reads a YAML file over the defaults. Unknown keys are errors,
// so that a typo does not silently change nothing.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && err.Error() != "EOF" {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, cfg.Validate()
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []string
	if c.ClusterName == "" {
		errs = append(errs, "cluster-name is empty")
	}
	if _, _, err := net.SplitHostPort(c.Bind); err != nil {
		errs = append(errs, fmt.Sprintf("bind %q: %v", c.Bind, err))
	}
	if c.Admin != "" {
		if _, _, err := net.SplitHostPort(c.Admin); err != nil {
			errs = append(errs, fmt.Sprintf("admin %q: %v", c.Admin, err))
		}
	}
	if c.Advertise != "" {
		if _, _, err := net.SplitHostPort(c.Advertise); err != nil {
			errs = append(errs, fmt.Sprintf("advertise %q: %v", c.Advertise, err))
		}
	}
	for _, j := range c.Join {
		if _, _, err := net.SplitHostPort(j); err != nil {
			errs = append(errs, fmt.Sprintf("join %q: %v", j, err))
		}
	}
	if c.MinClusterSize < 0 {
		errs = append(errs, "min-cluster-size is negative")
	}
	if ft := time.Duration(c.Gossip.FailureTimeout); ft != 0 && ft < 500*time.Millisecond {
		errs = append(errs, fmt.Sprintf("gossip.failure-timeout %v is below 500ms", ft))
	}
	if c.MaxParallelMigrations < 0 {
		errs = append(errs, "max-parallel-migrations is negative")
	}
	if c.PartitionCount < 1 || c.PartitionCount > 1<<16 {
		errs = append(errs, fmt.Sprintf("partition-count %d is not in 1..65536", c.PartitionCount))
	}
	if c.Limits.MaxMessageSize < 1<<10 {
		errs = append(errs, fmt.Sprintf("limits.max-message-size %d is below 1 KiB", c.Limits.MaxMessageSize))
	}
	if c.Query.CursorIdleTimeout <= 0 || c.Query.MaxCursors < 1 || c.Query.MaxCursorsPerClient < 1 {
		errs = append(errs, "query.cursor-idle-timeout, query.max-cursors and query.max-cursors-per-client must be positive")
	}
	if c.Locks.SweepInterval <= 0 {
		errs = append(errs, "locks.sweep-interval must be positive")
	}
	if c.Limits.MaxMaps < 1 {
		errs = append(errs, fmt.Sprintf("limits.max-maps %d is below 1", c.Limits.MaxMaps))
	}
	if c.Metrics.MapSeriesLimit < 0 {
		errs = append(errs, "metrics.map-series-limit is negative")
	}
	if c.Limits.MaxConnectionsPerAddress < 1 || c.Limits.MaxListenersPerConnection < 1 {
		errs = append(errs, "limits.max-connections-per-address and limits.max-listeners-per-connection must be positive")
	}
	if c.Security != nil {
		if _, err := security.NewAuthenticator(c.Security); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if t := c.TLS; t != nil {
		if t.CertFile == "" || t.KeyFile == "" || t.CAFile == "" {
			errs = append(errs, "tls: cert-file, key-file and ca-file are all needed")
		}
		if _, err := security.ParseClientAuth(t.ClientAuth); err != nil {
			errs = append(errs, "tls."+err.Error())
		}
	}
	if c.Limits.MaxBatchEntries < 1 {
		errs = append(errs, fmt.Sprintf("limits.max-batch-entries %d is below 1", c.Limits.MaxBatchEntries))
	}
	for name, m := range c.Maps {
		if _, err := m.toMaps(); err != nil {
			errs = append(errs, fmt.Sprintf("maps.%s: %v", name, err))
		}
	}
	if c.MemoryLimit < 0 {
		errs = append(errs, "memory-limit is negative")
	}
	if c.Query.MemoryLimitPerQuery < 0 {
		errs = append(errs, "query.memory-limit-per-query is negative")
	}
	if c.Query.MemoryLimitPerMember < 0 {
		errs = append(errs, "query.memory-limit-per-member is negative")
	}
	if c.MemoryLimit > 0 && c.Query.MemoryLimitPerMember > c.MemoryLimit {
		errs = append(errs, fmt.Sprintf("query.memory-limit-per-member %s is above memory-limit %s",
			FormatByteSize(int64(c.Query.MemoryLimitPerMember)), FormatByteSize(int64(c.MemoryLimit))))
	}
	b := c.Query.Breaker
	for _, f := range []struct {
		name string
		v    float64
	}{{"pool-open", b.PoolOpen}, {"pool-close", b.PoolClose}, {"heap-open", b.HeapOpen}, {"heap-close", b.HeapClose}} {
		if f.v <= 0 || f.v > 1 {
			errs = append(errs, fmt.Sprintf("query.breaker.%s %g: want a fraction in (0, 1]", f.name, f.v))
		}
	}
	if b.PoolClose >= b.PoolOpen || b.HeapClose >= b.HeapOpen {
		errs = append(errs, "query.breaker: pool-close and heap-close must be below pool-open and heap-open")
	}
	if b.AdmissionWait < 0 {
		errs = append(errs, fmt.Sprintf("query.breaker.admission-wait %v must not be negative", time.Duration(b.AdmissionWait)))
	}
	j := c.Query.Join
	if j.BroadcastThresholdRows < 0 || j.BatchBytes < 0 || j.VectorSize < 0 || j.InFlightBytes < 0 {
		errs = append(errs, "query.join settings must not be negative")
	}
	if j.BatchBytes > int64(c.Limits.MaxMessageSize)/2 {
		errs = append(errs, fmt.Sprintf("query.join.batch-bytes %d must be at most half of limits.max-message-size", j.BatchBytes))
	}
	if _, err := parseLevel(c.Log.Level); err != nil {
		errs = append(errs, err.Error())
	}
	if f := c.Log.Format; f != "" && f != "text" && f != "json" {
		errs = append(errs, fmt.Sprintf("log.format %q: want text or json", f))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid member config: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (m MapConfig) toMaps() (maps.Config, error) {
	cfg := maps.DefaultConfig()
	cfg.TTL, cfg.MaxIdle = time.Duration(m.TTL), time.Duration(m.MaxIdle)
	switch strings.ToUpper(m.Eviction.Policy) {
	case "", "NONE":
		cfg.Eviction.Policy = store.EvictionNone
	case "LRU":
		cfg.Eviction.Policy = store.EvictionLRU
	case "LFU":
		cfg.Eviction.Policy = store.EvictionLFU
	default:
		return cfg, fmt.Errorf("eviction.policy %q: want NONE, LRU or LFU", m.Eviction.Policy)
	}
	if m.Eviction.MaxEntries < 0 || m.Eviction.MaxBytes < 0 {
		return cfg, fmt.Errorf("negative eviction limit")
	}
	cfg.Eviction.MaxEntries, cfg.Eviction.MaxBytes = m.Eviction.MaxEntries, m.Eviction.MaxBytes
	cfg.PerEntryStats = m.PerEntryStats
	if m.BackupCount != nil {
		cfg.BackupCount = *m.BackupCount
	}
	cfg.AsyncBackupCount = m.AsyncBackupCount
	if cfg.BackupCount < 0 || cfg.BackupCount > 6 || cfg.AsyncBackupCount < 0 || cfg.BackupCount+cfg.AsyncBackupCount > 6 {
		return cfg, fmt.Errorf("backup-count %d + async-backup-count %d: each 0..6, at most 6 together", cfg.BackupCount, cfg.AsyncBackupCount)
	}
	return cfg, nil
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log.level %q: want debug, info, warn or error", s)
}

// replicas is the number of backups the partition table keeps: the most
// any map needs (default one).
func (c *Config) replicas() int {
	r := maps.DefaultConfig().BackupCount
	for _, m := range c.Maps {
		if mc, err := m.toMaps(); err == nil {
			r = max(r, mc.BackupCount+mc.AsyncBackupCount)
		}
	}
	return min(r, 6)
}
