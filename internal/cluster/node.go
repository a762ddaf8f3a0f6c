// Package cluster turns members into a cluster: membership and failure
// detection (hashicorp/memberlist, gossiping over the members' own gRPC
// address), the partition table decided by the oldest member and published
// to all, synchronous replication of every change from a partition's owner
// to its backups, migrations that move partitions without losing writes,
// replication of type metadata, and the merge of two sides of a healed
// network partition.
//
// The package knows nothing of maps or stores: it drives them through the
// ReplicaStore interface the member implements.
package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/security"
)

// ReplicaStore is the member's data as the cluster layer sees it: whole
// partitions across every map. What it does for a partition costs what the
// maps holding that partition hold, not what every map of the member
// costs. Implementations must be safe for concurrent use; calls for
// different partitions run in parallel.
type ReplicaStore interface {
	// Export passes partition pid of every map that holds entries there to
	// fn, in chunks of the store's export format of about chunkBytes each
	// (each importable on its own), until fn fails. It holds off no
	// writes: entries written meanwhile may or may not be included.
	Export(pid int32, chunkBytes int, fn func(mapName string, chunk []byte) error) error
	// Check checks an exported chunk as Import would (every entry as a
	// client's write), changing no data.
	Check(mapName string, pid int32, chunk []byte) error
	// Import adds an exported chunk to a map's partition (creating the
	// map), after checking every entry as a client's write.
	Import(mapName string, pid int32, chunk []byte) error
	// Apply applies one replicated change to its map's backup partition
	// (creating the map); c's bytes alias a received batch, which the
	// store copies.
	Apply(pid int32, c *Change) error
	// DropPartition empties a partition in every map that holds it.
	DropPartition(pid int32) error
	// SetRole sets the accounting role of a partition in every map (and
	// in maps created later): owned, or held as a backup.
	SetRole(pid int32, owned bool)
	// MergeEntry stores an entry from the other side of a healed split if
	// its key is absent (Hazelcast's default merge policy, put-if-absent);
	// it reports whether it stored it.
	MergeEntry(mapName string, pid int32, key, value []byte, ttl time.Duration) (bool, error)
	// Entries calls fn for every entry of partition pid in every map (for
	// merges) until fn returns false.
	Entries(pid int32, fn func(mapName string, key, value []byte, ttl time.Duration) bool) error
}

// MetadataStore is the type metadata that must exist on every member.
type MetadataStore interface {
	// List returns everything registered.
	List() *pb.MetadataList
	// Put registers metadata received from another member.
	Put(*pb.MetadataList) error
}

// CatalogStore is the SQL catalog (mappings and index definitions), which
// every member keeps whole. Changes are opaque to the cluster layer.
type CatalogStore interface {
	// Changes returns the catalog as encoded changes that rebuild it.
	Changes() [][]byte
	// Apply applies encoded changes made on another member, in order.
	Apply(changes [][]byte) error
}

// Config configures a Node.
type Config struct {
	ClusterName    string
	Self           partition.Member
	PartitionCount int
	// Replicas is the number of backups the table keeps per partition
	// (the largest backup-count + async-backup-count of the maps).
	Replicas int
	// Join lists seed members to join through; none starts a new cluster.
	Join []string
	// MinClusterSize refuses writes while fewer members are alive (0 or 1:
	// never), so that the minority side of a split does not take writes.
	MinClusterSize int
	Store          ReplicaStore
	Metadata       MetadataStore
	// Catalog is replicated like Metadata; nil when the member runs no
	// query engine.
	Catalog        CatalogStore
	Table          *partition.Holder
	Logger         *slog.Logger
	MaxMessageSize int
	// Gossip tunes failure detection; the zero value uses memberlist's LAN
	// defaults (a dead member is declared within a few seconds).
	Gossip GossipConfig
	// MaxConcurrentMigrations bounds the partitions moving at once
	// (default 10).
	MaxConcurrentMigrations int
	// DialOptions are added to the connections to other members (the
	// member counts their traffic through interceptors).
	DialOptions []grpc.DialOption
	// Traffic returns the counters of the framed streams with the member
	// at an address (framed.go); nil counts nothing.
	Traffic func(addr string) Traffic
	// TLS, when set, encrypts the member's connections, and members prove
	// they belong with certificates of the members' CA (handshake.go).
	TLS *security.TLS
	// Secret, when set, is the cluster secret members prove in their
	// handshake; it also encrypts gossip.
	Secret []byte
	// MaxClientConnsPerAddress bounds the client connections from one IP
	// address (0: none).
	MaxClientConnsPerAddress int
	// Dialer opens connections to other members' addresses, as the
	// DialOptions' dialer does; the node probes whether a member's process
	// is gone with it (peers.go). Nil: TCP.
	Dialer func(ctx context.Context, addr string) (net.Conn, error)
}

// GossipConfig tunes memberlist's failure detection of members that stop
// answering (a member whose process is gone is declared dead at once,
// peers.go).
type GossipConfig struct {
	// FailureTimeout is how long a member may stay silent before it is
	// declared dead (default 5s): ProbeInterval, ProbeTimeout and
	// SuspicionMult follow from it unless set.
	FailureTimeout time.Duration
	ProbeInterval  time.Duration
	ProbeTimeout   time.Duration
	GossipInterval time.Duration
	SuspicionMult  int
	RejoinInterval time.Duration // how often unreachable known members are re-joined (heals splits)
}

// DefaultFailureTimeout is the default of GossipConfig.FailureTimeout.
const DefaultFailureTimeout = 5 * time.Second

// apply sets memberlist's failure detection. A silent member is probed
// within about ProbeInterval (each member probes another every
// ProbeInterval), the probe and the indirect ones through other members
// fail by the end of that interval, and it is then suspected for
// SuspicionMult probe intervals (for clusters under 10 members; memberlist
// scales it with log10 of the size above) before it is declared dead, with
// no longer wait for confirmations from others. FailureTimeout T gives
// ProbeInterval T/5 (between 50ms and 1s), ProbeTimeout half of it and
// SuspicionMult (T - 2 ProbeInterval) / ProbeInterval: 1s, 500ms and 3
// for the default 5s. Probes that short of memberlist's LAN profile took
// live members for dead on a loaded machine (a 250 ms probe timeout under
// the race detector at load 19). An explicit SuspicionMult is memberlist's
// own knob, with its meaning: the suspicion lasts up to
// SuspicionMaxTimeoutMult (6) times longer until other members confirm it.
func (g GossipConfig) apply(c *memberlist.Config) {
	t := g.FailureTimeout
	if t <= 0 {
		t = DefaultFailureTimeout
	}
	probe := min(max(t/5, 50*time.Millisecond), time.Second)
	c.ProbeInterval, c.ProbeTimeout = probe, probe/2
	c.SuspicionMult = max(1, int((t-2*probe)/probe))
	if g.SuspicionMult == 0 {
		c.SuspicionMaxTimeoutMult = 1
	}
	if g.ProbeInterval > 0 {
		c.ProbeInterval = g.ProbeInterval
	}
	if g.ProbeTimeout > 0 {
		c.ProbeTimeout = g.ProbeTimeout
	}
	if g.GossipInterval > 0 {
		c.GossipInterval = g.GossipInterval
	}
	if g.SuspicionMult > 0 {
		c.SuspicionMult = g.SuspicionMult
	}
}

// memberMeta is what a member gossips about itself.
type memberMeta struct {
	UUID       partition.UUID `json:"u"`
	Address    string         `json:"a"`
	Admin      string         `json:"m"`
	JoinOrder  int64          `json:"j"`
	Cluster    string         `json:"c"`
	Partitions int            `json:"p"`
	Lineage    partition.UUID `json:"l"`
	Leaving    bool           `json:"x,omitempty"`
}

// aliveMember is a live member as its gossiped metadata describes it.
type aliveMember struct {
	partition.Member
	lineage partition.UUID
	leaving bool
}

// Node is this member's part of the cluster.
type Node struct {
	cfg   Config
	log   *slog.Logger
	self  partition.Member
	creds credentials.TransportCredentials // the member handshake
	peers *peers
	gt    *gossipTransport
	ml    *memberlist.Memberlist
	table *partition.Holder

	mu       sync.Mutex
	aliveAll map[partition.UUID]aliveMember // every live member gossip knows
	leaving  map[partition.UUID]bool        // asked to leave (graceful shutdown)
	left     map[partition.UUID]bool        // left the gossip gracefully
	// gone holds the members whose process is gone (their address refused
	// connections, peers.go), since when: they are dead although gossip
	// may still count them alive until it declares them dead too.
	gone        map[partition.UUID]time.Time
	known       map[string]time.Time // member addresses and when they were last alive
	selfLeaving atomic.Bool
	merging     atomic.Bool // merging into another cluster: writes wait
	// clustered: a table this member applied named another member (a
	// member that never was in a cluster and holds nothing joins one
	// rather than merging into it).
	clustered atomic.Bool
	// inCluster is closed when clustered is first set.
	inCluster     chan struct{}
	inClusterOnce sync.Once
	metaMu        sync.Mutex // one metadata update at a time

	repl  *replicator
	coord *coordinator

	applyMu sync.Mutex
	applied *partition.Table // the table the member acts on

	// life is the context of every goroutine the node owns; Stop cancels
	// it. stop is its Done channel, for the loops that select on it.
	life     context.Context
	cancel   context.CancelFunc
	stop     <-chan struct{}
	framedMu sync.Mutex
	framed   map[string]FramedHandler // HandleFramed's streams

	goMu sync.Mutex // guards stopped against goRun
	// stopped: Stop began; goRun starts nothing more.
	stopped bool
	wg      sync.WaitGroup // the goroutines goRun started
}

// New creates a node; Start joins the cluster.
func New(cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxMessageSize == 0 {
		cfg.MaxMessageSize = 64 << 20
	}
	if cfg.MaxConcurrentMigrations <= 0 {
		cfg.MaxConcurrentMigrations = 10
	}
	if cfg.Gossip.RejoinInterval <= 0 {
		cfg.Gossip.RejoinInterval = 5 * time.Second
	}
	creds := Credentials(HandshakeConfig{
		ClusterName: cfg.ClusterName, PartitionCount: cfg.PartitionCount, TLS: cfg.TLS, Secret: cfg.Secret,
		MaxClientConnsPerAddress: cfg.MaxClientConnsPerAddress, Logger: cfg.Logger.With("component", "handshake"),
	})
	n := &Node{
		cfg: cfg, log: cfg.Logger.With("component", "cluster"), self: cfg.Self, creds: creds,
		peers: newPeers(creds, cfg.MaxMessageSize, cfg.DialOptions), table: cfg.Table,
		aliveAll:  map[partition.UUID]aliveMember{cfg.Self.UUID: {Member: cfg.Self, lineage: cfg.Self.UUID}},
		leaving:   map[partition.UUID]bool{},
		left:      map[partition.UUID]bool{},
		gone:      map[partition.UUID]time.Time{},
		known:     map[string]time.Time{},
		inCluster: make(chan struct{}),
	}
	n.life, n.cancel = context.WithCancel(context.Background())
	creds.(*memberCredentials).cfg.MemberFramed = n.serveFramed
	n.stop = n.life.Done()
	n.peers.probe, n.peers.watched, n.peers.onGone = cfg.Dialer, n.memberAt, n.processGone
	if n.peers.probe == nil {
		n.peers.probe = func(ctx context.Context, addr string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		}
	}
	n.gt = newGossipTransport(cfg.Self.Address, n.peers)
	n.repl = newReplicator(n)
	n.coord = newCoordinator(n)
	return n, nil
}

// ServerCredentials are the transport credentials the member's address is
// served with: they tell member connections from client ones (and refuse
// members that cannot prove they belong), and hand the connections of the
// framed pipeline to framed (HandshakeConfig.Framed; nil: none are
// taken).
func (n *Node) ServerCredentials(framed func(conn net.Conn, info PeerInfo)) credentials.TransportCredentials {
	c := n.creds.Clone().(*memberCredentials)
	c.cfg.Framed = framed
	return c
}

// Register registers the member-to-member service on g.
func (n *Node) Register(g *grpc.Server) {
	memberv1.RegisterMemberServiceServer(g, &service{n: n})
}

// Start publishes this member's first table, starts gossip and joins the
// seeds. A seed of another cluster fails Start; unreachable seeds are
// retried in the background while the member runs alone.
func (n *Node) Start(ctx context.Context) error {
	if n.table.Load() == nil {
		// A cluster of one, with a history of its own until it joins others.
		t := tableOf(1, []partition.Member{n.self}, assign(nil, []partition.Member{n.self}, n.cfg.PartitionCount, n.cfg.Replicas))
		t.Lineage = partition.NewUUID()
		n.table.Store(t)
	}
	n.applyTable()
	mlc := memberlist.DefaultLANConfig()
	mlc.Name = n.self.UUID.String()
	mlc.Transport = n.gt
	mlc.Label = n.cfg.ClusterName
	if len(n.cfg.Secret) > 0 {
		// Gossip is encrypted (AES-GCM) with a key of the cluster secret.
		mlc.SecretKey = GossipKey(n.cfg.Secret)
	}
	host, port := hostPort(n.self.Address)
	mlc.BindAddr, mlc.BindPort = host, port
	mlc.AdvertiseAddr, mlc.AdvertisePort = host, port
	mlc.Delegate = delegate{n}
	mlc.Events = events{n}
	mlc.Alive = aliveCheck{n}
	mlc.Merge = mergeCheck{n}
	mlc.LogOutput = slogWriter{n.log}
	n.cfg.Gossip.apply(mlc)
	ml, err := memberlist.Create(mlc)
	if err != nil {
		return fmt.Errorf("cluster: start gossip: %w", err)
	}
	n.ml = ml
	n.goRun(n.coord.run)
	n.goRun(n.rejoin)
	n.goRun(n.repl.run)
	if len(n.cfg.Join) > 0 {
		err := n.join(ctx, n.cfg.Join)
		switch {
		case errors.Is(err, ErrClusterMismatch):
			_ = n.Stop(ctx)
			return err
		case err != nil:
			n.log.Warn("could not join the seeds yet; running alone and retrying", "seeds", n.cfg.Join, "err", err)
		default:
			// The seeds answered: this member is one of their cluster
			// once it has taken their partition table. Until then its
			// own table names it alone, and what it would answer (its
			// empty maps) is not the cluster's.
			if err := n.awaitCluster(ctx); err != nil {
				_ = n.Stop(ctx)
				return err
			}
		}
	}
	return nil
}

// joinTimeout bounds how long Start waits for the partition table of the
// cluster whose seeds it reached.
const joinTimeout = 30 * time.Second

// awaitCluster waits until this member has applied a table that names
// other members, at most joinTimeout (then it goes on alone, and joins
// when the table comes) or until ctx ends (an error).
func (n *Node) awaitCluster(ctx context.Context) error {
	t := time.NewTimer(joinTimeout)
	defer t.Stop()
	select {
	case <-n.inCluster:
		return nil
	case <-t.C:
		n.log.Warn("the seeds answered, but their partition table did not arrive; running alone until it does",
			"seeds", n.cfg.Join, "waited", joinTimeout)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cluster: joining the seeds %v: %w", n.cfg.Join, ctx.Err())
	}
}

// goRun runs fn in a goroutine the node owns: Stop cancels ctx (the
// node's life) and waits for fn to return. Once Stop began it starts
// nothing and reports false.
func (n *Node) goRun(fn func(ctx context.Context)) bool {
	n.goMu.Lock()
	defer n.goMu.Unlock()
	if n.stopped {
		return false
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		fn(n.life)
	}()
	return true
}

// join checks the seeds with the member handshake (concurrently; join
// waits for every check), then joins the ones of this cluster through
// memberlist.
func (n *Node) join(ctx context.Context, seeds []string) error {
	type result struct {
		addr string
		err  error
	}
	results := make(chan result, len(seeds))
	asked := 0
	for _, addr := range seeds {
		if addr == n.self.Address {
			continue
		}
		asked++
		go func() { results <- result{addr, n.hello(ctx, addr)} }()
	}
	var reachable []string
	var errs []error
	for range asked {
		r := <-results
		switch {
		case errors.Is(r.err, ErrClusterMismatch):
			return r.err
		case r.err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", r.addr, r.err))
		default:
			reachable = append(reachable, r.addr)
			n.remember(r.addr)
		}
	}
	if len(reachable) == 0 {
		return fmt.Errorf("no seed reachable: %w", errors.Join(errs...))
	}
	if _, err := n.ml.Join(reachable); err != nil {
		return err
	}
	n.pullMetadata(ctx, reachable[0])
	n.pullCatalog(ctx, reachable[0])
	return nil
}

// hello checks that the member at addr belongs to this cluster: it runs
// the member handshake on a connection of its own.
func (n *Node) hello(ctx context.Context, addr string) error {
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return probe(hctx, n.creds, addr)
}

func (n *Node) remember(addr string) {
	if addr == "" || addr == n.self.Address {
		return
	}
	n.mu.Lock()
	n.known[addr] = time.Now()
	n.mu.Unlock()
}

// forgetAfter is how long a member that is not alive is still looked for.
const forgetAfter = 30 * time.Minute

// rejoin periodically joins members seen alive in the last forgetAfter
// that are not alive now, and the configured seeds, so that the two sides
// of a healed network partition find each other again.
func (n *Node) rejoin(life context.Context) {
	t := time.NewTicker(n.cfg.Gossip.RejoinInterval)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		n.mu.Lock()
		alive := map[string]bool{}
		for _, m := range n.aliveAll {
			alive[m.Address] = true
			n.known[m.Address] = time.Now()
		}
		for u, since := range n.gone {
			if time.Since(since) > forgetAfter {
				delete(n.gone, u) // gossip never reported it: it was never in it
			}
		}
		var missing []string
		for addr, seen := range n.known {
			switch {
			case time.Since(seen) > forgetAfter:
				delete(n.known, addr)
			case !alive[addr]:
				missing = append(missing, addr)
			}
		}
		for _, s := range n.cfg.Join {
			if !alive[s] && s != n.self.Address {
				missing = append(missing, s)
			}
		}
		n.mu.Unlock()
		if len(missing) > 0 {
			ctx, cancel := context.WithTimeout(life, 5*time.Second)
			_ = n.join(ctx, missing)
			cancel()
		}
	}
}

// Stop leaves the gossip and stops the node's work: it cancels the
// context of every goroutine the node owns and waits for them to return,
// then stops the replication senders and closes the connections to other
// members. If ctx ends first, the connections are closed at once, which
// ends the calls the goroutines wait on; Stop then waits for them to
// return and reports ctx.Err(). Call Leave first for a graceful departure;
// a member that stops like a crash passes a context that has ended.
// Calling Stop again returns nil at once.
func (n *Node) Stop(ctx context.Context) error {
	n.goMu.Lock()
	if n.stopped {
		n.goMu.Unlock()
		return nil
	}
	n.stopped = true
	n.goMu.Unlock()
	n.cancel()
	n.repl.stopWaiters()
	if n.ml != nil {
		_ = n.ml.Leave(time.Second)
		_ = n.ml.Shutdown()
	}
	_ = n.gt.Shutdown()
	done := make(chan struct{})
	go func() {
		n.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	n.repl.stopSenders()
	n.peers.close()
	<-done
	return err
}

// kick wakes the coordinator and the replication senders.
func (n *Node) kick() {
	n.coord.kick()
	n.repl.kick()
}

// Members returns the live members of this member's cluster: those of its
// partition table, in table order, then members of the same lineage that
// the table does not name yet (members that joined), oldest first. The
// first is the coordinator.
func (n *Node) Members() []partition.Member {
	t := n.table.Load()
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]partition.Member, 0, len(n.aliveAll))
	if t == nil { // before Start: no table yet
		t = &partition.Table{}
	}
	named := make(map[partition.UUID]bool, len(t.Members))
	for _, m := range t.Members {
		named[m.UUID] = true
		if a, ok := n.aliveAll[m.UUID]; ok {
			out = append(out, a.Member)
		}
	}
	var joined []partition.Member
	for u, a := range n.aliveAll {
		if !named[u] && (u == n.self.UUID || a.lineage == t.Lineage) {
			joined = append(joined, a.Member)
		}
	}
	sortMembers(joined)
	return append(out, joined...)
}

func sortMembers(ms []partition.Member) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].JoinOrder != ms[j].JoinOrder {
			return ms[i].JoinOrder < ms[j].JoinOrder
		}
		return bytes.Compare(ms[i].UUID[:], ms[j].UUID[:]) < 0
	})
}

// Coordinator returns the member that decides the table: the first live
// member of the table (members are named in the order they joined).
func (n *Node) Coordinator() partition.Member {
	return n.Members()[0]
}

// IsCoordinator reports whether this member coordinates.
func (n *Node) IsCoordinator() bool { return n.Coordinator().UUID == n.self.UUID }

// memberAt reports whether a live member other than this one is known at
// addr.
func (n *Node) memberAt(addr string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for u, a := range n.aliveAll {
		if u != n.self.UUID && a.Address == addr {
			return true
		}
	}
	return false
}

// processGone declares the members at addr dead: nothing listens there any
// more (peers.go), so their process is gone. They leave the live members
// at once, so that the coordinator promotes their partitions' backups
// (and a new coordinator takes over if one of them coordinated) without
// waiting for gossip; gossip declares them dead in its own time.
func (n *Node) processGone(addr string) {
	n.mu.Lock()
	var gone []partition.UUID
	for u, a := range n.aliveAll {
		if u == n.self.UUID || a.Address != addr {
			continue
		}
		if a.leaving || n.leaving[u] {
			n.left[u] = true
		}
		delete(n.aliveAll, u)
		n.gone[u] = time.Now()
		gone = append(gone, u)
	}
	n.mu.Unlock()
	for _, u := range gone {
		n.log.Warn("member failed: its address refuses connections, its process is gone", "member", addr, "uuid", u.String())
	}
	if len(gone) > 0 {
		n.kick()
	}
}

func (n *Node) memberAddr(u partition.UUID) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	m, ok := n.aliveAll[u]
	return m.Address, ok
}

// applyTable makes this member act on the current table: store roles,
// replication state, and data of partitions it no longer holds. Tables are
// applied one at a time and never out of order: a call that finds the
// current table applied already does nothing.
func (n *Node) applyTable() {
	n.applyMu.Lock()
	defer n.applyMu.Unlock()
	t := n.table.Load()
	if t == n.applied {
		return
	}
	n.repl.onTable(n.applied, t)
	n.applied = t
	for _, m := range t.Members {
		n.remember(m.Address)
	}
	if len(t.Members) > 1 {
		n.clustered.Store(true)
		n.inClusterOnce.Do(func() { close(n.inCluster) })
	}
	n.kick()
}

// publish stores a table as current and sends it to every member.
func (n *Node) publish(t *partition.Table) {
	forked := t.Lineage != n.table.Load().Lineage
	if !n.table.Store(t) {
		return
	}
	n.applyTable()
	if forked {
		n.updateMeta()
	}
	msg := n.tableMessage(t)
	var wg sync.WaitGroup
	for _, m := range n.Members() {
		if m.UUID == n.self.UUID {
			continue
		}
		wg.Add(1)
		go func(addr string) {
			defer wg.Done()
			c, err := n.peers.client(addr)
			if err != nil {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := c.PublishTable(ctx, msg); err != nil {
				// The member gets the table when it next syncs with us.
				n.log.Debug("publishing the partition table failed", "member", addr, "version", t.Version, "err", err)
			}
		}(m.Address)
	}
	wg.Wait()
}

func (n *Node) tableMessage(t *partition.Table) *memberv1.TableMessage {
	return &memberv1.TableMessage{Table: t.Proto(), SenderUuid: n.self.UUID[:]}
}

func (n *Node) tableFromMessage(msg *memberv1.TableMessage) (t *partition.Table, sender partition.UUID, err error) {
	if sender, err = uuidOf(msg.SenderUuid); err != nil {
		return nil, sender, err
	}
	if t, err = partition.FromProto(msg.Table); err != nil {
		return nil, sender, err
	}
	if len(t.Owners) != n.cfg.PartitionCount {
		return nil, sender, fmt.Errorf("cluster: a table of %d partitions, this cluster has %d", len(t.Owners), n.cfg.PartitionCount)
	}
	return t, sender, nil
}

// receiveTable considers a table sent by another member. A table of this
// member's lineage is adopted if it is newer. A table of another lineage is
// adopted only from this member's coordinator (it chose a new lineage after
// removing members that did not leave gracefully); if that table no longer
// names this member, the coordinator declared it dead while it was alive,
// and it merges into the coordinator's cluster like the smaller side of a
// split. Any other table comes from the other side of a split: merges
// handle it.
func (n *Node) receiveTable(t *partition.Table, sender partition.UUID) {
	cur := n.table.Load()
	if t.Lineage == cur.Lineage {
		if n.table.Store(t) {
			n.applyTable()
		}
		return
	}
	if sender != n.Coordinator().UUID || sender == n.self.UUID {
		return
	}
	if t.IndexOf(n.self.UUID) < 0 {
		if !n.selfLeaving.Load() {
			n.goRun(func(context.Context) {
				n.coord.mergeInto(t, "the coordinator removed this member from the cluster while it was alive")
			})
		}
		return
	}
	if n.table.Store(t) {
		n.applyTable()
		n.updateMeta()
	}
}

// syncTable answers a member's SyncTable: a newer table of the same
// lineage is adopted, then the current table is returned.
func (n *Node) syncTable(msg *memberv1.TableMessage) (*memberv1.TableMessage, error) {
	t, _, err := n.tableFromMessage(msg)
	if err != nil {
		return nil, err
	}
	if t.Lineage == n.table.Load().Lineage && n.table.Store(t) {
		n.applyTable()
	}
	return n.tableMessage(n.table.Load()), nil
}

// syncWithCoordinator exchanges tables with the coordinator, so that a
// member whose copy of a publication was lost catches up within a second.
func (n *Node) syncWithCoordinator() {
	coord := n.Coordinator()
	if coord.UUID == n.self.UUID {
		return
	}
	t, sender, err := n.callSyncTable(coord.Address)
	if err != nil {
		n.log.Debug("syncing the partition table with the coordinator failed", "coordinator", coord.Address, "err", err)
		return
	}
	if sender == coord.UUID {
		n.receiveTable(t, sender)
	}
}

func (n *Node) callSyncTable(addr string) (*partition.Table, partition.UUID, error) {
	c, err := n.peers.client(addr)
	if err != nil {
		return nil, partition.UUID{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp, err := c.SyncTable(ctx, n.tableMessage(n.table.Load()))
	if err != nil {
		return nil, partition.UUID{}, err
	}
	return n.tableFromMessage(resp)
}

// updateMeta gossips this member's metadata again (its lineage changed).
func (n *Node) updateMeta() {
	if n.ml == nil {
		return
	}
	n.goRun(func(context.Context) {
		if err := n.gossipMeta(5 * time.Second); err != nil {
			n.log.Debug("gossiping this member's new lineage failed", "err", err)
		}
	})
}

// gossipMeta gossips this member's metadata, one update at a time:
// memberlist's UpdateNode is not safe for concurrent calls.
func (n *Node) gossipMeta(timeout time.Duration) error {
	n.metaMu.Lock()
	defer n.metaMu.Unlock()
	return n.ml.UpdateNode(timeout)
}

// MinClusterSizeMet reports whether enough members are alive for writes.
func (n *Node) MinClusterSizeMet() bool {
	if n.merging.Load() {
		return false
	}
	if n.cfg.MinClusterSize <= 1 {
		return true
	}
	return len(n.Members()) >= n.cfg.MinClusterSize
}

// Leave asks the coordinator to move this member's partitions away and
// waits until it owns and backs up nothing (or ctx ends). It returns at
// once when every member is leaving: there is nowhere to move data to.
func (n *Node) Leave(ctx context.Context) error {
	n.selfLeaving.Store(true)
	if n.ml != nil {
		_ = n.gossipMeta(2 * time.Second) // every member learns this is no failure
	}
	for {
		staying := -1
		if n.IsCoordinator() {
			staying = n.coord.markLeaving(n.self.UUID)
		} else if c, err := n.peers.client(n.Coordinator().Address); err == nil {
			lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if resp, err := c.Leave(lctx, &memberv1.LeaveRequest{Uuid: n.self.UUID[:]}); err == nil {
				staying = int(resp.Staying)
			}
			cancel()
		}
		if staying == 0 || n.holdsNothing() || len(n.Members()) == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (n *Node) holdsNothing() bool {
	t := n.table.Load()
	idx := t.IndexOf(n.self.UUID)
	if idx < 0 {
		return true
	}
	for p := range t.Owners {
		if t.Owners[p] == idx || slices.Contains(t.Backups[p], idx) {
			return false
		}
	}
	return true
}

// memberlist delegates.

type delegate struct{ n *Node }

func (d delegate) NodeMeta(limit int) []byte {
	b, _ := json.Marshal(memberMeta{
		UUID: d.n.self.UUID, Address: d.n.self.Address, Admin: d.n.self.AdminAddress,
		JoinOrder: d.n.self.JoinOrder, Cluster: d.n.cfg.ClusterName, Partitions: d.n.cfg.PartitionCount,
		Lineage: d.n.table.Load().Lineage, Leaving: d.n.selfLeaving.Load(),
	})
	if len(b) > limit {
		return nil
	}
	return b
}
func (d delegate) NotifyMsg([]byte)                           {}
func (d delegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (d delegate) LocalState(join bool) []byte                { return nil }
func (d delegate) MergeRemoteState(buf []byte, join bool)     {}

func decodeMeta(node *memberlist.Node) (memberMeta, error) {
	var m memberMeta
	if err := json.Unmarshal(node.Meta, &m); err != nil {
		return m, fmt.Errorf("member %s gossips unreadable metadata: %w", node.Name, err)
	}
	return m, nil
}

func (n *Node) checkMeta(node *memberlist.Node) error {
	if node.Name == n.self.UUID.String() {
		return nil
	}
	m, err := decodeMeta(node)
	if err != nil {
		return err
	}
	if m.Cluster != n.cfg.ClusterName || m.Partitions != n.cfg.PartitionCount {
		return fmt.Errorf("%w: member %s is in cluster %q with %d partitions, not %q with %d",
			ErrClusterMismatch, m.Address, m.Cluster, m.Partitions, n.cfg.ClusterName, n.cfg.PartitionCount)
	}
	return nil
}

type aliveCheck struct{ n *Node }

func (a aliveCheck) NotifyAlive(node *memberlist.Node) error { return a.n.checkMeta(node) }

type mergeCheck struct{ n *Node }

func (m mergeCheck) NotifyMerge(nodes []*memberlist.Node) error {
	for _, node := range nodes {
		if err := m.n.checkMeta(node); err != nil {
			return err
		}
	}
	return nil
}

type events struct{ n *Node }

func (e events) NotifyJoin(node *memberlist.Node) { e.update(node, true) }

// NotifyUpdate follows a member's metadata: its lineage changes when it
// merges into another cluster.
func (e events) NotifyUpdate(node *memberlist.Node) { e.update(node, false) }

func (e events) update(node *memberlist.Node, joined bool) {
	m, err := decodeMeta(node)
	if err != nil || node.Name == e.n.self.UUID.String() {
		return
	}
	member := partition.Member{UUID: m.UUID, Address: m.Address, AdminAddress: m.Admin, JoinOrder: m.JoinOrder}
	e.n.mu.Lock()
	if _, gone := e.n.gone[m.UUID]; gone {
		e.n.mu.Unlock()
		return // its process is gone; gossip has not noticed yet
	}
	e.n.aliveAll[m.UUID] = aliveMember{Member: member, lineage: m.Lineage, leaving: m.Leaving}
	e.n.known[m.Address] = time.Now()
	e.n.mu.Unlock()
	if joined {
		e.n.log.Info("member joined", "member", m.Address, "uuid", m.UUID.String())
		e.n.greet(m.Address)
	}
	e.n.kick()
}

func (e events) NotifyLeave(node *memberlist.Node) {
	m, err := decodeMeta(node)
	if err != nil || node.Name == e.n.self.UUID.String() {
		return
	}
	e.n.mu.Lock()
	graceful := e.n.aliveAll[m.UUID].leaving || e.n.leaving[m.UUID] || m.Leaving
	delete(e.n.aliveAll, m.UUID)
	if graceful {
		e.n.left[m.UUID] = true
	}
	delete(e.n.leaving, m.UUID)
	_, gone := e.n.gone[m.UUID]
	delete(e.n.gone, m.UUID)
	e.n.mu.Unlock()
	switch {
	case gone:
		e.n.log.Debug("gossip declared a member dead whose process was gone", "member", m.Address, "uuid", m.UUID.String())
	case graceful:
		e.n.log.Info("member left", "member", m.Address, "uuid", m.UUID.String())
	default:
		e.n.log.Warn("member failed", "member", m.Address, "uuid", m.UUID.String())
	}
	e.n.peers.forget(m.Address)
	e.n.kick()
}

// slogWriter routes memberlist's log lines to slog at debug level.
type slogWriter struct{ log *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Debug(strings.TrimSpace(string(p)), "source", "memberlist")
	return len(p), nil
}

var _ io.Writer = slogWriter{}

// BroadcastMetadata sends type metadata to every other member of the
// cluster, so that any member can validate and read data that needs it.
func (n *Node) BroadcastMetadata(ctx context.Context, list *pb.MetadataList) error {
	return n.toEveryPeer(ctx, "metadata", func(ctx context.Context, c memberv1.MemberServiceClient) error {
		_, err := c.PutMetadata(ctx, list)
		return err
	})
}

// BroadcastCatalog sends SQL catalog changes made on this member to every
// other member.
func (n *Node) BroadcastCatalog(ctx context.Context, changes [][]byte) error {
	return n.toEveryPeer(ctx, "the SQL catalog", func(ctx context.Context, c memberv1.MemberServiceClient) error {
		_, err := c.PutCatalog(ctx, &memberv1.CatalogChanges{Changes: changes})
		return err
	})
}

// toEveryPeer calls fn for every other live member, concurrently, and joins
// their errors.
func (n *Node) toEveryPeer(ctx context.Context, what string, fn func(context.Context, memberv1.MemberServiceClient) error) error {
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Every live member, of this cluster's lineage or not yet: a member
	// that just joined (or is merging in) may not be counted as one of
	// ours yet, and metadata it misses now it would miss for good.
	n.mu.Lock()
	var addrs []string
	for u, a := range n.aliveAll {
		if u != n.self.UUID {
			addrs = append(addrs, a.Address)
		}
	}
	n.mu.Unlock()
	for _, addr := range addrs {
		wg.Add(1)
		go func(addr string) {
			defer wg.Done()
			c, err := n.peers.client(addr)
			if err == nil {
				err = fn(ctx, c)
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", addr, err))
				mu.Unlock()
			}
		}(addr)
	}
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("cluster: replicating %s: %v", what, errs)
	}
	return nil
}

// greet brings a member that just joined (or a cluster this one merged
// with) up to date with this member's type metadata and SQL catalog. The
// joiner pulls both from its seed, but a change made elsewhere while gossip
// spread the news of the join would miss it; pushing from every member
// closes that gap. It retries for a while in the background.
func (n *Node) greet(addr string) {
	n.goRun(func(life context.Context) {
		ctx, cancel := context.WithTimeout(life, 30*time.Second)
		defer cancel()
		backoff := 100 * time.Millisecond
		for {
			err := n.push(ctx, addr)
			if err == nil {
				return
			}
			select {
			case <-ctx.Done():
				n.log.Warn("bringing a new member up to date failed", "member", addr, "err", err)
				return
			case <-time.After(backoff):
				backoff = min(2*backoff, 2*time.Second)
			}
		}
	})
}

// push sends this member's type metadata and SQL catalog to addr.
func (n *Node) push(ctx context.Context, addr string) error {
	c, err := n.peers.client(addr)
	if err != nil {
		return err
	}
	if n.cfg.Metadata != nil {
		if _, err := c.PutMetadata(ctx, n.cfg.Metadata.List()); err != nil {
			return err
		}
	}
	if n.cfg.Catalog == nil {
		return nil
	}
	_, err = c.PutCatalog(ctx, &memberv1.CatalogChanges{Changes: n.cfg.Catalog.Changes()})
	return err
}

// pullMetadata copies the type metadata of the member at addr.
func (n *Node) pullMetadata(ctx context.Context, addr string) {
	c, err := n.peers.client(addr)
	if err != nil {
		return
	}
	list, err := c.GetMetadata(ctx, &memberv1.Ack{})
	if err == nil {
		err = n.cfg.Metadata.Put(list)
	}
	if err != nil {
		n.log.Warn("copying type metadata from the cluster failed", "member", addr, "err", err)
	}
}

// Conn returns this member's channel to the member at addr. A member's
// port serves the client API too: queries run their fragments and DML
// sends its writes over these channels.
func (n *Node) Conn(addr string) (grpc.ClientConnInterface, error) { return n.peers.conn(addr) }

// pullCatalog copies the SQL catalog of the member at addr.
func (n *Node) pullCatalog(ctx context.Context, addr string) {
	if n.cfg.Catalog == nil {
		return
	}
	c, err := n.peers.client(addr)
	if err != nil {
		return
	}
	cat, err := c.GetCatalog(ctx, &memberv1.Ack{})
	if err == nil {
		err = n.cfg.Catalog.Apply(cat.Changes)
	}
	if err != nil {
		n.log.Warn("copying the SQL catalog from the cluster failed", "member", addr, "err", err)
	}
}

// Replicas returns the number of backups kept of each partition.
func (n *Node) Replicas() int { return n.cfg.Replicas }

// Self returns this member.
func (n *Node) Self() partition.Member { return n.self }

// State describes the cluster as this member sees it.
func (n *Node) State() *pb.ClusterState {
	st := &pb.ClusterState{PartitionTable: n.table.Load().Proto()}
	coord := n.Coordinator()
	st.CoordinatorUuid = coord.UUID[:]
	for _, m := range n.Members() {
		st.Members = append(st.Members, &pb.Member{Uuid: m.UUID[:], Address: m.Address, AdminAddress: m.AdminAddress, JoinOrder: m.JoinOrder})
	}
	inFlight, completed, failed := n.Migrations()
	for _, op := range inFlight {
		m := &pb.Migration{Partition: op.pid, FromUuid: op.from[:], State: op.kind}
		if op.kind == "handing-off" {
			m.ToUuid = op.to[:]
		}
		for _, u := range op.want {
			m.BackupUuids = append(m.BackupUuids, u[:])
		}
		st.Migrations = append(st.Migrations, m)
	}
	st.MigrationsCompleted, st.MigrationsFailed = completed, failed
	st.UnsyncedPartitions = n.UnsyncedPartitions()
	return st
}
