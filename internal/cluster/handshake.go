package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/peer"
)

// Member connections
//
// Members and clients share one address. A member that dials another
// sends a preamble before HTTP/2 starts: a magic, its cluster name and its
// partition count. The listening member answers with one byte, accepted or
// refused (another cluster name, another partition count), and closes a
// refused connection. Clients start with HTTP/2's preface, whose first byte
// is not the magic's, and their bytes pass through untouched. So a
// connection is a member connection exactly when it began with an accepted
// preamble, and every call on it carries that fact in its peer's AuthInfo
// (PeerIsMember): the server's access check reads it, and a reconnection
// repeats the preamble by itself. The answer never names the listening
// member's cluster: a stranger learns only that its guess was wrong.
//
// The preamble rides on top of inner transport credentials (plain TCP
// today), so that encrypted transports can wrap the same exchange.

// handshakeMagic starts a member's preamble. Its first byte, 0, never
// starts HTTP/2's preface ('P') or a TLS record (0x16).
var handshakeMagic = []byte("\x00atoll-member/1\n")

// maxHandshakeName bounds the cluster name a preamble may carry.
const maxHandshakeName = 1024

// Answers to a preamble.
const (
	handshakeAccepted        byte = 1
	handshakeOtherCluster    byte = 2
	handshakeOtherPartitions byte = 3
)

// handshakeTimeout bounds a member's preamble exchange when the dialer's
// context has no deadline.
const handshakeTimeout = 10 * time.Second

// memberCredentials are the transport credentials of the member address:
// on the listening side they tell member connections from client ones, on
// the dialing side they send the preamble.
type memberCredentials struct {
	inner      credentials.TransportCredentials
	cluster    string
	partitions int
}

// Credentials returns the transport credentials of a member of the named
// cluster. A member serves its address with them (connections that open
// with an accepted member preamble for this cluster name and partition
// count are member connections, all others client connections) and dials
// the other members with them (every new connection opens with the
// preamble).
func Credentials(clusterName string, partitionCount int) credentials.TransportCredentials {
	return &memberCredentials{inner: insecure.NewCredentials(), cluster: clusterName, partitions: partitionCount}
}

// PeerInfo is the AuthInfo of a connection to a member's address.
type PeerInfo struct {
	credentials.AuthInfo // the inner transport's
	// Member is set on connections that opened with an accepted member
	// preamble (on the listening side) or that sent one (dialing side).
	Member bool
	// Conn is the connection on the listening side (nil on the dialing
	// side): what lives as long as it (a client's cursors) hooks its end.
	Conn *Conn
}

// Conn is one connection a member accepted, for as long as it is open.
type Conn struct {
	mu      sync.Mutex
	closed  bool
	onClose []func()
}

// OnClose runs fn once the connection has closed (at once if it has).
// fn must not block for long: it runs on the goroutine that closes it.
func (c *Conn) OnClose(fn func()) {
	c.mu.Lock()
	if !c.closed {
		c.onClose = append(c.onClose, fn)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	fn()
}

func (c *Conn) close() {
	c.mu.Lock()
	fns := c.onClose
	c.closed, c.onClose = true, nil
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// trackedConn is an accepted connection that tells its Conn when it closes.
type trackedConn struct {
	net.Conn
	c    *Conn
	once sync.Once
}

func (t *trackedConn) Close() error {
	err := t.Conn.Close()
	t.once.Do(t.c.close)
	return err
}

// PeerIsMember reports whether the call whose context is ctx arrived on a
// member connection.
func PeerIsMember(ctx context.Context) bool {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return false
	}
	info, ok := p.AuthInfo.(PeerInfo)
	return ok && info.Member
}

// MismatchError is a member's refusal of a preamble: it belongs to another
// cluster, or has another partition count. It matches ErrClusterMismatch.
type MismatchError struct {
	Addr           string
	ClusterName    string // this member's
	PartitionCount int    // this member's
	OtherCluster   bool   // the cluster names differ (else the partition counts)
}

func (e *MismatchError) Error() string {
	if e.OtherCluster {
		return fmt.Sprintf("cluster: the member at %s belongs to another cluster; this member is configured for cluster %q (check cluster-name)", e.Addr, e.ClusterName)
	}
	return fmt.Sprintf("cluster: the member at %s has another partition count; this member is configured for %d partitions (check partition-count)", e.Addr, e.PartitionCount)
}

// Unwrap makes the error match ErrClusterMismatch.
func (e *MismatchError) Unwrap() error { return ErrClusterMismatch }

// appendPreamble appends a member's preamble to dst.
func appendPreamble(dst []byte, clusterName string, partitions int) []byte {
	dst = append(dst, handshakeMagic...)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(clusterName)))
	dst = append(dst, clusterName...)
	return binary.BigEndian.AppendUint32(dst, uint32(partitions))
}

func (c *memberCredentials) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, inner, err := c.inner.ClientHandshake(ctx, authority, raw)
	if err != nil {
		return nil, nil, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(handshakeTimeout)
	}
	_ = conn.SetDeadline(deadline)
	if len(c.cluster) > maxHandshakeName {
		return nil, nil, fmt.Errorf("cluster: the cluster name has %d bytes, at most %d", len(c.cluster), maxHandshakeName)
	}
	if _, err := conn.Write(appendPreamble(nil, c.cluster, c.partitions)); err != nil {
		return nil, nil, err
	}
	var answer [1]byte
	if _, err := io.ReadFull(conn, answer[:]); err != nil {
		return nil, nil, fmt.Errorf("cluster: the member at %s did not answer the member handshake: %w", authority, err)
	}
	_ = conn.SetDeadline(time.Time{})
	switch answer[0] {
	case handshakeAccepted:
		return conn, PeerInfo{AuthInfo: inner, Member: true}, nil
	case handshakeOtherCluster, handshakeOtherPartitions:
		return nil, nil, &MismatchError{Addr: authority, ClusterName: c.cluster, PartitionCount: c.partitions, OtherCluster: answer[0] == handshakeOtherCluster}
	}
	return nil, nil, fmt.Errorf("cluster: the member at %s answered the member handshake with %d", authority, answer[0])
}

func (c *memberCredentials) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, inner, err := c.inner.ServerHandshake(raw)
	if err != nil {
		return nil, nil, err
	}
	var first [1]byte
	if _, err := io.ReadFull(conn, first[:]); err != nil {
		return nil, nil, err // io.EOF: a prober that closed at once
	}
	track := &Conn{}
	if first[0] != handshakeMagic[0] {
		return &trackedConn{Conn: &replayConn{Conn: conn, first: first[0], pending: true}, c: track}, PeerInfo{AuthInfo: inner, Conn: track}, nil
	}
	answer, err := c.readPreamble(conn)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.Write([]byte{answer}); err != nil {
		return nil, nil, err
	}
	if answer != handshakeAccepted {
		return nil, nil, errors.New("cluster: refused a member handshake of another cluster")
	}
	return &trackedConn{Conn: conn, c: track}, PeerInfo{AuthInfo: inner, Member: true, Conn: track}, nil
}

// readPreamble reads the rest of a member preamble (its first byte was
// read) and returns the answer.
func (c *memberCredentials) readPreamble(conn net.Conn) (byte, error) {
	head := make([]byte, len(handshakeMagic)-1+2)
	if _, err := io.ReadFull(conn, head); err != nil {
		return 0, err
	}
	if string(head[:len(handshakeMagic)-1]) != string(handshakeMagic[1:]) {
		return 0, errors.New("cluster: a connection opened with neither HTTP/2 nor a member handshake")
	}
	n := int(binary.BigEndian.Uint16(head[len(head)-2:]))
	if n > maxHandshakeName {
		return 0, fmt.Errorf("cluster: a member handshake with a cluster name of %d bytes (at most %d)", n, maxHandshakeName)
	}
	rest := make([]byte, n+4)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return 0, err
	}
	switch {
	case string(rest[:n]) != c.cluster:
		return handshakeOtherCluster, nil
	case int(binary.BigEndian.Uint32(rest[n:])) != c.partitions:
		return handshakeOtherPartitions, nil
	}
	return handshakeAccepted, nil
}

func (c *memberCredentials) Info() credentials.ProtocolInfo { return c.inner.Info() }

func (c *memberCredentials) Clone() credentials.TransportCredentials {
	return &memberCredentials{inner: c.inner.Clone(), cluster: c.cluster, partitions: c.partitions}
}

func (c *memberCredentials) OverrideServerName(string) error { return nil }

// replayConn is a client connection whose first byte the handshake read:
// it returns that byte first.
type replayConn struct {
	net.Conn
	first   byte
	pending bool
}

func (r *replayConn) Read(p []byte) (int, error) {
	if r.pending && len(p) > 0 {
		p[0] = r.first
		r.pending = false
		return 1, nil
	}
	return r.Conn.Read(p)
}

// probe dials addr and runs the member handshake alone: it reports whether
// the member there belongs to this cluster (a *MismatchError if not).
func probe(ctx context.Context, addr, clusterName string, partitions int) error {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer raw.Close()
	_, _, err = Credentials(clusterName, partitions).ClientHandshake(ctx, addr, raw)
	return err
}
