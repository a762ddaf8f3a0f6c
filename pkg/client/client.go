package client

import (
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partset"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Version is the SDK version reported to members.
const Version = "0.1.0"

// Config configures a Client. The zero Config connects to a member on
// 127.0.0.1:5701 in the cluster "dev", Atoll's embedded defaults.
type Config struct {
	// Addresses are seed members (host:port); any one reachable member is
	// enough, the others are learned from it. New dials them all at once
	// and keeps the first that answers; an address that refuses the
	// connection fails at once rather than after ConnectTimeout.
	Addresses []string
	// ClusterName must match the members' cluster name.
	ClusterName string
	// ClientName identifies the client in member logs and statistics.
	ClientName string
	// Serialization configures how keys and values are serialized; the
	// client adds zero-config Compact serialization for the Go types of its
	// maps. Register Portable factories and IdentifiedDataSerializable
	// factories here.
	Serialization serialization.Config
	// ConnectTimeout bounds connecting to one member. Default 10s.
	ConnectTimeout time.Duration
	// InvocationTimeout bounds a call whose context has no deadline,
	// retries included. Default 120s, as Hazelcast's.
	InvocationTimeout time.Duration
	// Retry controls retries of calls that fail with a retryable error.
	Retry RetryConfig
	// QueryRetry is how a query (SQL or predicate) that the members'
	// memory circuit breaker refused or terminated is sent again: binary
	// exponential backoff with full jitter, after the member's RetryAfter,
	// 10 attempts by default (Attempts 1 turns it off). Then the query
	// fails with a *QueryMemoryError. A query that has returned rows is
	// never sent again: Rows reports the error.
	QueryRetry Backoff
	// NearCaches configures near caches by map name; a key may be an exact
	// name or a pattern with * (path.Match syntax).
	NearCaches map[string]NearCacheConfig
	// MaxMessageSize bounds a message in either direction. Default 64 MiB.
	MaxMessageSize int
	// Logger receives connection events; default slog.Default().
	Logger *slog.Logger
	// HeartbeatInterval is how long a connection may be idle before the
	// client checks that its member still answers (a ping on its map
	// pipeline and an HTTP/2 ping on its gRPC channel). Default 10s, which
	// is also the least: gRPC raises shorter intervals.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is how long a member may leave a check unanswered
	// before the client closes the connection: calls on it fail (and are
	// retried on the partitions' new owners), and the client follows the
	// partition table through another member. A member that hangs (a long
	// pause, a stalled host) is noticed within HeartbeatInterval +
	// HeartbeatTimeout. Default 60s, as Hazelcast's.
	HeartbeatTimeout time.Duration
	// TxRetry is how RunInTransaction runs a transaction again after a
	// conflict: Attempts attempts in all (default 10), waiting a backoff
	// with full jitter between them (default 10ms doubling to 1s).
	TxRetry Backoff
	// TxLease is how long a transaction's locks hold before anyone who
	// meets them may resolve them (default 10s): a client that dies in a
	// commit leaves nothing locked for longer.
	TxLease time.Duration
	// LockSessionLease is the lease of a Lock taken without one of its
	// own (default 30s): the client renews it while it holds the lock, so
	// a client that dies holds nothing for longer than this (its members
	// release its locks as soon as they see its connections close).
	LockSessionLease time.Duration
	// StatisticsInterval is how often the client reports its statistics
	// (calls, retries, failures, connections, near caches) to a member,
	// which exports them as metrics. Default 5s; negative turns reporting
	// off.
	StatisticsInterval time.Duration
	// TLS, when set, connects to members over TLS with this
	// configuration: RootCAs holding the cluster's CA (nil: the system's
	// roots), and Certificates or GetClientCertificate for a client
	// certificate. ServerName defaults to each member's host. LoadTLS
	// builds one from PEM files. A member that serves TLS refuses a
	// plaintext client, and a plaintext member a TLS client; either way
	// New fails at once, saying so.
	TLS *tls.Config
	// QueryThroughOneMember sends every query to one member, which runs
	// it on the whole cluster (as the Java client does). By default a
	// query whose rows are the union of its partitions' rows (SELECT
	// with a filter and projection, but no aggregate, ORDER BY, LIMIT or
	// join; the Predicate API's entries, keys, values and projections)
	// goes to every partition owner at once, each running it over its own
	// partitions: one network hop less, and no member relays another's
	// rows. The rows come owner by owner.
	QueryThroughOneMember bool
	// Credentials authenticate the client to members that have a
	// security section. Without them such a member refuses every call
	// (ErrUnauthenticated), unless the client certificate names a
	// principal.
	Credentials Credentials
}

// Credentials name a user and its password, or a bearer token. They
// travel with every call, in the authorization header, and so only over
// TLS unless AllowPlaintext is set.
type Credentials struct {
	Username, Password string
	Token              string
	// AllowPlaintext sends the credentials over connections without TLS
	// (a member on loopback, a test). Off, New refuses credentials
	// without Config.TLS.
	AllowPlaintext bool
}

// set reports whether any credential is given.
func (c Credentials) set() bool { return c.Username != "" || c.Password != "" || c.Token != "" }

// header returns the value of the authorization header.
func (c Credentials) header() (string, error) {
	switch {
	case c.Token != "" && (c.Username != "" || c.Password != ""):
		return "", errors.New("atoll: credentials name both a token and a user: give one")
	case c.Token != "":
		return "Bearer " + c.Token, nil
	case c.Username == "":
		return "", errors.New("atoll: credentials give a password without a user name")
	case strings.ContainsRune(c.Username, ':'):
		return "", errors.New("atoll: a user name cannot hold ':'")
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(c.Username+":"+c.Password)), nil
}

// callCredentials send the authorization header with every call.
type callCredentials struct {
	header     string
	requireTLS bool
}

func (c callCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": c.header}, nil
}

func (c callCredentials) RequireTransportSecurity() bool { return c.requireTLS }

// RetryConfig configures the Backoff policy of calls that fail with a
// retryable error: they are retried until their context ends (or
// Config.InvocationTimeout passes), waiting min(MaxBackoff,
// InitialBackoff·Multiplier^i) ±Jitter before retry i. Reconnecting
// listeners, the partition table watch and near caches' subscriptions
// back off on the same policy.
type RetryConfig struct {
	// InitialBackoff is the first wait; default 20ms.
	InitialBackoff time.Duration
	// MaxBackoff caps the wait; default 2s.
	MaxBackoff time.Duration
	// Multiplier grows the wait after each attempt; default 2.
	Multiplier float64
	// Jitter randomizes each wait by ±Jitter (a fraction); default 0.2.
	Jitter float64
	// RedoOperation retries writes whose outcome is unknown because the
	// connection broke after they were sent (they may apply twice). Reads,
	// and writes that were never sent, are always retried.
	RedoOperation bool
}

// backoff is the Backoff policy the fields configure.
func (r RetryConfig) backoff() Backoff {
	return Backoff{Initial: r.InitialBackoff, Max: r.MaxBackoff, Multiplier: r.Multiplier, Jitter: r.Jitter}
}

func (c *Config) withDefaults() Config {
	cfg := *c
	if len(cfg.Addresses) == 0 {
		cfg.Addresses = []string{"127.0.0.1:5701"}
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = "dev"
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.InvocationTimeout <= 0 {
		cfg.InvocationTimeout = 120 * time.Second
	}
	if cfg.Retry.InitialBackoff <= 0 {
		cfg.Retry.InitialBackoff = 20 * time.Millisecond
	}
	if cfg.Retry.MaxBackoff <= 0 {
		cfg.Retry.MaxBackoff = 2 * time.Second
	}
	if cfg.Retry.Multiplier < 1 {
		cfg.Retry.Multiplier = 2
	}
	if cfg.Retry.Jitter <= 0 || cfg.Retry.Jitter >= 1 {
		cfg.Retry.Jitter = 0.2
	}
	cfg.QueryRetry = cfg.QueryRetry.withDefaults()
	if cfg.TxRetry.Initial <= 0 {
		cfg.TxRetry.Initial = 10 * time.Millisecond
	}
	if cfg.TxRetry.Max <= 0 {
		cfg.TxRetry.Max = time.Second
	}
	cfg.TxRetry = cfg.TxRetry.withDefaults()
	if cfg.TxLease <= 0 {
		cfg.TxLease = 10 * time.Second
	}
	if cfg.LockSessionLease <= 0 {
		cfg.LockSessionLease = 30 * time.Second
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = 64 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = 10 * time.Second
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = 60 * time.Second
	}
	if cfg.StatisticsInterval == 0 {
		cfg.StatisticsInterval = 5 * time.Second
	}
	return cfg
}

// Client is a connection to an Atoll cluster. It is safe for concurrent
// use; create one per process and share it.
type Client struct {
	cfg  Config
	uuid []byte
	ser  *serialization.Service
	// typesSeen holds the Go types GetMap has registered (reflect.Type →
	// struct{}), so that GetMap is cheap to call per operation.
	typesSeen sync.Map
	log       *slog.Logger

	mu      sync.Mutex
	conns   map[string]*conn     // by member address
	dialing map[string]*dialCall // the dial under way to each address, shared by its callers
	// followed is the connection whose partition tables the client
	// follows across lineages (setTable); any connection's newer tables
	// are adopted.
	followed atomic.Pointer[conn]
	// limits are what the members accept, as the last one that connected
	// reported them.
	limits atomic.Pointer[limits]
	// changed is closed and replaced when the client adopts a partition
	// table or connects to a member: calls waiting to retry go at once.
	changeMu sync.Mutex
	changed  chan struct{}
	// lost wakes the reconnect loop when a connection breaks.
	lost chan struct{}

	routing  atomic.Pointer[routingTable]
	qstreams queryStreams
	// unpartitionable are the queries that run through one member only.
	unpartitionable unpartitionable
	meta            metadataSync
	near            nearCaches
	stats           counters
	// sessionLocks are the locks held for the client's session.
	sessionLocks sessionLocks

	closed    atomic.Bool
	closeOnce sync.Once
	stop      chan struct{}
	// life ends when the client closes: background work that calls
	// members (finishing transactions, renewing locks, reconnecting,
	// dialing) derives from it.
	life    context.Context
	endLife context.CancelFunc
	bg      sync.WaitGroup // background goroutines
}

// dialCall is a dial under way; its callers wait for done.
type dialCall struct {
	done chan struct{}
	cn   *conn
	err  error
}

// routingTable maps partitions to member addresses.
type routingTable struct {
	version int64
	lineage string // the table's history; see setTable
	count   int32
	owners  []string // by partition; "" when unassigned
	members []string
	// byOwner groups the partitions by owner, when every partition has
	// one (nil otherwise): the parts of a query run by partitions.
	byOwner []ownerPartitions
}

// ownerPartitions are the partitions one member owns, as the set an
// ExecuteRequest names.
type ownerPartitions struct {
	addr string
	set  []byte
}

// groupByOwner returns the partitions grouped by owner, in the order the
// owners first appear, or nil when a partition has no owner.
func groupByOwner(owners []string) []ownerPartitions {
	var out []ownerPartitions
	var parts [][]int32
	at := map[string]int{}
	for p, o := range owners {
		if o == "" {
			return nil
		}
		i, ok := at[o]
		if !ok {
			i = len(out)
			at[o] = i
			out = append(out, ownerPartitions{addr: o})
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], int32(p))
	}
	for i := range out {
		out[i].set = partset.Append(nil, parts[i])
	}
	return out
}

// New connects to the cluster through the first reachable seed address.
// The seeds are dialed at once; an address that refuses the connection
// fails at once, one that does not answer within ConnectTimeout (or ctx's
// deadline, if sooner) fails then, and New fails when every seed did, with
// a short message saying why.
func New(ctx context.Context, cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if err := checkText("cluster name", cfg.ClusterName); err != nil {
		return nil, err
	}
	if err := checkText("client name", cfg.ClientName); err != nil {
		return nil, err
	}
	if cfg.Credentials.set() {
		if _, err := cfg.Credentials.header(); err != nil {
			return nil, err
		}
		if cfg.TLS == nil && !cfg.Credentials.AllowPlaintext {
			return nil, errors.New("atoll: credentials are sent only over TLS: set Config.TLS (or Credentials.AllowPlaintext for a member on loopback)")
		}
	}
	ser, err := serialization.NewService(cfg.Serialization)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, ser: ser, log: cfg.Logger, conns: map[string]*conn{}, dialing: map[string]*dialCall{},
		stop: make(chan struct{}), changed: make(chan struct{}), lost: make(chan struct{}, 1)}
	c.life, c.endLife = context.WithCancel(context.Background())
	c.limits.Store(newLimits(&c.cfg, nil))
	c.uuid = make([]byte, 16)
	_, _ = crand.Read(c.uuid) // crypto/rand.Read never fails
	c.meta.init(c)
	c.near.init(c)
	// The seeds are dialed at once: the first that answers is used, and
	// a hung or absent seed costs nothing when another answers.
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.ConnectTimeout, &connectTimeoutError{after: cfg.ConnectTimeout})
	defer cancel()
	if _, err = firstOf(ctx, cfg.Addresses, c.connTo); err != nil {
		_ = c.Close()
		var nm *noMemberError
		if errors.As(err, &nm) {
			for _, e := range nm.errs {
				if refusedConnection(e) {
					return nil, e
				}
			}
		}
		return nil, err
	}
	c.bg.Add(2)
	go c.renewSessionLocks()
	go c.reconnect()
	if cfg.StatisticsInterval > 0 {
		c.bg.Add(1)
		go c.reportStatistics()
	}
	return c, nil
}

// Serialization returns the client's serialization service.
func (c *Client) Serialization() *serialization.Service { return c.ser }

// Close closes every connection and listener and stops background work.
// Calls in progress fail with ErrClosed.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		close(c.stop)
		c.endLife()
		c.near.close()
		c.mu.Lock()
		conns := c.conns
		c.conns = map[string]*conn{}
		c.mu.Unlock()
		c.qstreams.mu.Lock()
		streams := c.qstreams.m
		c.qstreams.m = nil
		c.qstreams.mu.Unlock()
		for _, qs := range streams {
			qs.close()
		}
		for _, cn := range conns {
			cn.close()
		}
		c.bg.Wait()
	})
	return nil
}

// setTable adopts a partition table if it is newer than the current one.
// Versions grow within a table's history (its lineage); after a network
// partition healed, the members of the smaller side adopt the larger
// side's history, whose versions may be lower. A table of another lineage
// is therefore adopted when it comes from the member whose table stream
// the client follows (follow), whatever its version. The connections to
// members that a newer table no longer names are closed: their calls in
// flight fail (and are retried on the partitions' new owners when safe),
// and calls waiting to retry go at once.
func (c *Client) setTable(count int32, t *pb.PartitionTable, follow bool) {
	if t == nil {
		return
	}
	rt := &routingTable{version: t.Version, lineage: string(t.Lineage), count: count, owners: make([]string, len(t.Owners))}
	for _, m := range t.Members {
		rt.members = append(rt.members, m.Address)
	}
	for p, o := range t.Owners {
		if o >= 0 && int(o) < len(t.Members) {
			rt.owners[p] = t.Members[o].Address
		}
	}
	rt.byOwner = groupByOwner(rt.owners)
	for {
		cur := c.routing.Load()
		if rt.count == 0 && cur != nil {
			rt.count = cur.count
		}
		if rt.count == 0 {
			rt.count = int32(len(t.Owners))
		}
		if cur != nil && len(rt.owners) != int(rt.count) {
			return // not a table of this cluster
		}
		newer := cur == nil || rt.version > cur.version
		if !newer && !(follow && rt.lineage != cur.lineage) {
			return
		}
		if c.routing.CompareAndSwap(cur, rt) {
			if newer && cur != nil {
				// Only a newer table: one that comes from the followed
				// member across lineages may be a cluster still forming.
				c.dropMembers(cur.members, rt.members)
			}
			c.notifyChange()
			return
		}
	}
}

// dropMembers closes the connections to the members of before that after
// no longer names.
func (c *Client) dropMembers(before, after []string) {
	for _, addr := range before {
		if slices.Contains(after, addr) {
			continue
		}
		c.mu.Lock()
		cn := c.conns[addr]
		c.mu.Unlock()
		if cn != nil && cn.usable() {
			c.log.Debug("closing the connection to a member the partition table no longer names", "member", addr)
			cn.fail(errMemberLeft, true)
			c.qstreams.mu.Lock()
			qs := c.qstreams.m[cn]
			c.qstreams.mu.Unlock()
			if qs != nil {
				qs.fail(&connError{member: addr, sent: true, err: errMemberLeft})
			}
			go cn.close()
		}
	}
}

// notifyChange wakes the calls waiting to retry.
func (c *Client) notifyChange() {
	c.changeMu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.changeMu.Unlock()
}

// changes returns a channel closed at the next change (notifyChange).
func (c *Client) changes() <-chan struct{} {
	c.changeMu.Lock()
	defer c.changeMu.Unlock()
	return c.changed
}

// refreshTable asks some member for its table.
func (c *Client) refreshTable(ctx context.Context) {
	if cn, err := c.anyConn(ctx); err == nil {
		if t, err := cn.cluster.GetPartitionTable(ctx, &pb.GetPartitionTableRequest{}); err == nil {
			c.setTable(0, t, false)
		}
	}
}

// adoptFrom is what a connection's table stream does with a table: the
// followed connection's tables are followed across lineages (the first
// connection to push one becomes the followed one).
func (c *Client) adoptFrom(cn *conn, t *pb.PartitionTable) {
	c.followed.CompareAndSwap(nil, cn)
	c.setTable(0, t, c.followed.Load() == cn)
}

// watchConn follows the tables cn's member pushes while cn lives, then
// notes its loss: another connection's tables are followed, and the
// reconnect loop looks for a member when none is left.
func (c *Client) watchConn(cn *conn) {
	defer c.bg.Done()
	cn.watchTable(c.cfg.Retry.backoff(), c.adoptFrom)
	c.followed.CompareAndSwap(cn, nil)
	select {
	case c.lost <- struct{}{}:
	default:
	}
}

// Reconnecting: while the client has no usable connection, it dials every
// member it knows and its seeds at once, again and again, waiting
// reconnectBackoff between rounds (50 ms doubling to at most 1 s), so that
// a member back on its address serves within about a second. Calls that
// found no member wait for the connection (notifyChange) rather than for
// their own backoff.
var reconnectBackoff = Backoff{Initial: 50 * time.Millisecond, Max: time.Second, Jitter: 0.2}

func (c *Client) reconnect() {
	defer c.bg.Done()
	r := retrier{policy: reconnectBackoff}
	for {
		select {
		case <-c.stop:
			return
		case <-c.lost:
		}
		r.reset()
		for !c.connected() {
			ctx, cancel := context.WithTimeout(c.life, c.cfg.ConnectTimeout)
			_, err := c.anyConn(ctx)
			cancel()
			if err == nil {
				break
			}
			c.log.Debug("no member reachable; trying again", "err", err)
			if r.wait(c.life, 0) != nil {
				return
			}
		}
	}
}

// connected reports whether the client has a usable connection.
func (c *Client) connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cn := range c.conns {
		if cn.usable() {
			return true
		}
	}
	return false
}

// retrier starts a retry loop on the Config.Retry policy.
func (c *Client) retrier() retrier { return retrier{policy: c.cfg.Retry.backoff()} }

// partitionOf returns the partition of a serialized key.
func (c *Client) partitionOf(key []byte) int32 {
	rt := c.routing.Load()
	return serialization.Data(key).PartitionID(rt.count)
}

// connFor returns a connection to the owner of partition pid (or to any
// member when pid < 0 or the owner cannot be reached).
func (c *Client) connFor(ctx context.Context, pid int32) (*conn, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if pid >= 0 {
		if rt := c.routing.Load(); rt != nil && int(pid) < len(rt.owners) && rt.owners[pid] != "" {
			if cn, err := c.connTo(ctx, rt.owners[pid]); err == nil {
				return cn, nil
			}
		}
	}
	return c.anyConn(ctx)
}

// ownerConn returns the usable connection to pid's owner, if the client
// has one (no dial, no wait).
func (c *Client) ownerConn(pid int32) *conn {
	if pid < 0 || c.closed.Load() {
		return nil
	}
	rt := c.routing.Load()
	if rt == nil || int(pid) >= len(rt.owners) || rt.owners[pid] == "" {
		return nil
	}
	c.mu.Lock()
	cn := c.conns[rt.owners[pid]]
	c.mu.Unlock()
	if cn == nil || !cn.usable() {
		return nil
	}
	return cn
}

// connTo returns a usable connection to addr, dialing when needed. The
// callers that need a connection to the same member share one dial, and
// each waits for it no longer than its own context allows; the dial
// itself is bounded by ConnectTimeout.
func (c *Client) connTo(ctx context.Context, addr string) (*conn, error) {
	c.mu.Lock()
	if cn := c.conns[addr]; cn != nil && cn.usable() {
		c.mu.Unlock()
		return cn, nil
	}
	if c.closed.Load() {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	d := c.dialing[addr]
	if d == nil {
		d = &dialCall{done: make(chan struct{})}
		c.dialing[addr] = d
		c.bg.Add(1)
		go c.dialShared(addr, d)
	}
	c.mu.Unlock()
	select {
	case <-d.done:
		return d.cn, d.err
	case <-ctx.Done():
		return nil, &connError{member: addr, err: context.Cause(ctx)}
	}
}

// dialShared runs the dial d stands for and installs its connection.
func (c *Client) dialShared(addr string, d *dialCall) {
	defer c.bg.Done()
	defer close(d.done)
	fresh, hello, err := dial(c.life, addr, &c.cfg, c.uuid)
	c.mu.Lock()
	delete(c.dialing, addr)
	if err != nil {
		c.mu.Unlock()
		d.err = err
		return
	}
	if c.closed.Load() {
		c.mu.Unlock()
		fresh.close()
		d.err = ErrClosed
		return
	}
	old := c.conns[addr]
	c.conns[addr] = fresh
	c.bg.Add(1)
	c.mu.Unlock()
	go c.watchConn(fresh)
	if old != nil {
		go old.close()
	}
	d.cn = fresh
	c.limits.Store(fresh.limits)
	c.setTable(hello.PartitionCount, hello.PartitionTable, false)
	c.near.reset() // events may have been missed while disconnected
	c.notifyChange()
}

// queryConn returns the connection a statement goes to: any member that
// answered within the heartbeat interval, drawn at random so that the
// members share the coordination of a client's queries (as Hazelcast's
// client spreads its SQL), else anyConn's.
func (c *Client) queryConn(ctx context.Context) (*conn, error) {
	var fresh []*conn
	c.mu.Lock()
	for _, cn := range c.conns {
		if cn.usable() && time.Since(time.Unix(0, cn.lastSeen.Load())) < c.cfg.HeartbeatInterval {
			fresh = append(fresh, cn)
		}
	}
	c.mu.Unlock()
	if len(fresh) > 0 {
		return fresh[rand.IntN(len(fresh))], nil
	}
	return c.anyConn(ctx)
}

// anyConn returns some usable connection: an open one, or a new one to a
// known member or a seed address. Of the open connections it takes the one
// that answered last; when none answered within a heartbeat interval (a
// member may have hung since), it probes them all at once and takes the
// first that answers. Without an open connection it dials every candidate
// at once and takes the first that connects: hung members cost one
// heartbeat or connect timeout in all, not one each.
func (c *Client) anyConn(ctx context.Context) (*conn, error) {
	var usable []*conn
	var best *conn
	c.mu.Lock()
	for _, cn := range c.conns {
		if cn.usable() {
			usable = append(usable, cn)
			if best == nil || cn.lastSeen.Load() > best.lastSeen.Load() {
				best = cn
			}
		}
	}
	c.mu.Unlock()
	if best != nil && (len(usable) == 1 || time.Since(time.Unix(0, best.lastSeen.Load())) < c.cfg.HeartbeatInterval) {
		return best, nil
	}
	if len(usable) > 1 {
		if cn, err := firstOf(ctx, usable, c.probe); err == nil {
			return cn, nil
		}
	}
	seen := map[string]bool{}
	for _, cn := range usable {
		seen[cn.addr] = true
	}
	var all, candidates []string
	if rt := c.routing.Load(); rt != nil {
		all = append(all, rt.members...)
	}
	for _, addr := range append(all, c.cfg.Addresses...) {
		if !seen[addr] {
			seen[addr] = true
			candidates = append(candidates, addr)
		}
	}
	if len(candidates) == 0 {
		return nil, ErrNoMember
	}
	return firstOf(ctx, candidates, c.connTo)
}

// probe asks a member for its partition table (adopting it): a member
// that answers within the connect timeout is alive enough to use.
func (c *Client) probe(ctx context.Context, cn *conn) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout)
	defer cancel()
	t, err := cn.cluster.GetPartitionTable(ctx, &pb.GetPartitionTableRequest{})
	if err != nil {
		return nil, &connError{member: cn.addr, err: err}
	}
	cn.seen()
	c.setTable(0, t, false)
	return cn, nil
}

// firstOf runs try on every item at once and returns the first connection
// one of them yields; the others are cancelled. It fails with ErrNoMember
// and every error when none does.
func firstOf[T any](ctx context.Context, items []T, try func(context.Context, T) (*conn, error)) (*conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		cn  *conn
		err error
	}
	results := make(chan result, len(items))
	for _, it := range items {
		go func() {
			cn, err := try(ctx, it)
			results <- result{cn, err}
		}()
	}
	var errs []error
	for range items {
		r := <-results
		if r.err == nil {
			return r.cn, nil
		}
		errs = append(errs, r.err)
	}
	return nil, noMember(errs)
}

// invoke runs a pipeline call against the owner of pid (any member when
// pid < 0), retrying retryable failures with backoff until ctx ends or the
// invocation timeout passes. idempotent calls are also retried when the
// connection broke after they were sent.
func (c *Client) invoke(ctx context.Context, pid int32, idempotent bool, req *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	// A call whose context has no deadline runs under the invocation
	// timeout. Most calls are answered at once on the connection they
	// find: their wait is bounded by a timer (conn.invokeUntil), and only
	// a call that must dial or retry takes a context with the deadline.
	deadline, bounded := ctx.Deadline()
	if !bounded {
		deadline = time.Now().Add(c.cfg.InvocationTimeout)
	}
	var cancel context.CancelFunc
	defer func() {
		if cancel != nil {
			cancel()
		}
	}()
	bound := func() {
		if !bounded {
			ctx, cancel = context.WithDeadline(ctx, deadline)
			bounded = true
		}
	}
	c.stats.calls.Add(1)
	r := c.retrier()
	for attempt := 0; ; attempt++ {
		view := c.changes()
		cn := c.ownerConn(pid)
		var err error
		if cn == nil {
			bound()
			cn, err = c.connFor(ctx, pid)
		}
		var resp *pb.PipelineResponse
		if err == nil {
			resp, err = cn.invokeUntil(ctx, deadline, req)
			if err == nil && resp.Error != nil {
				err = errorFromPipeline(resp.Error, cn.addr)
			}
			if err == nil {
				return resp, nil
			}
		}
		bound()
		if !c.shouldRetry(ctx, err, idempotent) {
			c.stats.failures.Add(1)
			return nil, c.finalError(ctx, err)
		}
		c.stats.retries.Add(1)
		if err := c.prepareRetry(ctx, err); err != nil {
			c.stats.failures.Add(1)
			return nil, err
		}
		if attempt > 0 || !errors.Is(err, ErrUnknownSchema) {
			if c.backoff(ctx, &r, view) != nil {
				c.stats.failures.Add(1)
				return nil, c.finalError(ctx, err)
			}
		}
	}
}

// backoff waits before a call's next attempt: not at all when the client
// adopted a partition table or connected to a member since the attempt
// began (view is closed), else the retry policy's delay or until the next
// such change.
func (c *Client) backoff(ctx context.Context, r *retrier, view <-chan struct{}) error {
	select {
	case <-view:
		return ctx.Err()
	default:
	}
	return r.waitOr(ctx, view)
}

func (c *Client) shouldRetry(ctx context.Context, err error, idempotent bool) bool {
	if ctx.Err() != nil || c.closed.Load() {
		return false
	}
	var ce *connError
	if errors.As(err, &ce) {
		return !ce.sent || idempotent || c.cfg.Retry.RedoOperation
	}
	if errors.Is(err, ErrNoMember) {
		return true
	}
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// prepareRetry does what a retryable error asks for before the next
// attempt: publish a schema the member lacks, or refresh the partition
// table when the member no longer owns the partition, could not be
// reached (it may have left the cluster) or could not serve while
// partitions moved.
func (c *Client) prepareRetry(ctx context.Context, err error) error {
	var e *Error
	var ce *connError
	switch {
	case errors.As(err, &e) && errors.Is(e, ErrUnknownSchema):
		return c.meta.publishSchema(ctx, e.SchemaID)
	case errors.As(err, &e) && (errors.Is(e, ErrWrongOwner) || errors.Is(e, ErrUnavailable)), errors.As(err, &ce), errors.Is(err, ErrNoMember):
		c.refreshTable(ctx)
	}
	return nil
}

// finalError is the error returned when no more retries happen: a call
// whose context ended fails with a *deadlineError naming the last failure
// it met.
func (c *Client) finalError(ctx context.Context, err error) error {
	if c.closed.Load() {
		return ErrClosed
	}
	if ctx.Err() != nil {
		var re *RequestError
		var e *Error
		if errors.As(err, &re) || errors.As(err, &e) && !e.Retryable {
			return err // the call's own fault, whatever the time
		}
		if errors.Is(err, ctx.Err()) {
			err = nil
		}
		return &deadlineError{ctxErr: ctx.Err(), last: err}
	}
	return err
}
