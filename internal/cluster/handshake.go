package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"

	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/security"
)

// Member connections
//
// Members and clients share one address. A member that dials another
// sends a preamble before HTTP/2 starts: a magic, its cluster name, its
// partition count, whether it holds a cluster secret, and a random nonce.
// The listening member answers with one byte, accepted or refused with a
// reason, and closes a refused connection. Clients start with HTTP/2's
// preface, whose first byte is not the magic's, and their bytes pass
// through untouched. So a connection is a member connection exactly when
// it began with an accepted preamble, and every call on it carries that
// fact in its peer's AuthInfo (PeerIsMember): the server's access check
// reads it, and a reconnection repeats the preamble by itself. The answer
// never names the listening member's cluster: a stranger learns only that
// its guess was wrong.
//
// With TLS, every connection of the address is TLS first: the preamble
// travels inside it, and the listening member accepts it only from a peer
// whose certificate the members' CA signed (mutual TLS; the dialing member
// checks the listener's certificate against the same CA). A plaintext
// client that reaches a TLS member gets every call refused with a status
// that says the member serves TLS, rather than a connection that hangs; a
// TLS client that reaches a plaintext member gets a TLS alert at once.
//
// With a cluster secret, an accepted preamble is followed by an exchange
// of HMACs: the listener answers with its own nonce and an HMAC of both
// nonces (and, under TLS, of the TLS session's exported keying material,
// which ties the proof to this connection), the dialer checks it and sends
// its own HMAC, and the listener checks that before it answers a final
// byte. Neither side sends the secret, and neither accepts the other
// without proof. Gossip is encrypted with another key derived from the
// secret (GossipKey), so that a member without it learns nothing from
// gossip either.

// handshakeMagic starts a member's preamble. Its first byte, 0, never
// starts HTTP/2's preface ('P') or a TLS record (0x16).
var handshakeMagic = []byte("\x00atoll-member/2\n")

// tlsRecordHandshake starts every TLS connection (the record type of a
// ClientHello).
const tlsRecordHandshake = 0x16

// maxHandshakeName bounds the cluster name a preamble may carry.
const maxHandshakeName = 1024

// nonceLen is the length of each side's nonce and of each HMAC.
const nonceLen = 32

// Preamble flags.
const flagSecret byte = 1

// Answers to a preamble (and, with a secret, to the dialer's proof).
const (
	handshakeAccepted        byte = 1
	handshakeOtherCluster    byte = 2
	handshakeOtherPartitions byte = 3
	handshakeTLSRequired     byte = 4
	handshakeBadCertificate  byte = 5
	handshakeSecretRequired  byte = 6
	handshakeNoSecretHere    byte = 7
	handshakeWrongSecret     byte = 8
)

// refusalReasons say why a preamble was refused, as the dialing side
// reports it.
var refusalReasons = map[byte]string{
	handshakeOtherCluster:    "it belongs to another cluster (check cluster-name)",
	handshakeOtherPartitions: "it has another partition count (check partition-count)",
	handshakeTLSRequired:     "it serves TLS only, and this member dialed in plaintext (configure tls)",
	handshakeBadCertificate:  "it did not accept this member's certificate as one of the cluster's members' (check tls.ca-file and the certificate)",
	handshakeSecretRequired:  "it requires the cluster secret, which this member lacks (set cluster-secret-file)",
	handshakeNoSecretHere:    "it has no cluster secret, and this member has one (set the same cluster-secret-file on every member)",
	handshakeWrongSecret:     "its cluster secret differs from this member's",
}

// handshakeTimeout bounds a member's preamble exchange when the dialer's
// context has no deadline.
const handshakeTimeout = 10 * time.Second

// refusalLogInterval is how often refusals of one address are logged.
const refusalLogInterval = time.Minute

// tlsExporterLabel labels the keying material that ties a secret proof to
// its TLS connection.
const tlsExporterLabel = "EXPORTER-atoll-member-handshake"

// HandshakeConfig configures the credentials of a member's address.
type HandshakeConfig struct {
	ClusterName    string
	PartitionCount int
	// TLS, when set, makes every connection of the address TLS and
	// members prove themselves with certificates of the members' CA.
	TLS *security.TLS
	// Secret, when set, is the cluster secret members prove.
	Secret []byte
	// MaxClientConnsPerAddress bounds the client connections open from one
	// remote IP address (0: no bound). One more is served only with
	// refusals; past twice the bound a new one is closed at once.
	MaxClientConnsPerAddress int
	// Logger receives refusals, at most once a minute per address.
	Logger *slog.Logger
	// Framed, when set, takes the client connections that open with
	// frame.Preamble (the framed pipeline, inside TLS when the member has
	// it) away from gRPC: it is called in the connection's handshake, with
	// the preamble's first byte still unread and what the connection
	// established (a refusal included), owns the connection from then on,
	// and returns once the connection is set up (its work then goes on in
	// goroutines of its own).
	Framed func(conn net.Conn, info PeerInfo)
	// MemberFramed, likewise, takes the member connections on which the
	// dialer sends frame.Preamble after the member handshake (a framed
	// member stream) instead of HTTP/2.
	MemberFramed func(conn net.Conn, info PeerInfo)
}

// memberCredentials are the transport credentials of the member address:
// on the listening side they tell member connections from client ones, on
// the dialing side they send the preamble.
type memberCredentials struct {
	cfg   HandshakeConfig
	key   []byte // HMAC key derived from the secret; nil without one
	state *handshakeState
}

// handshakeState is shared by clones of the credentials.
type handshakeState struct {
	refusals security.RefusalLog
	mu       sync.Mutex
	clients  map[string]int // open client connections by remote IP
}

// Credentials returns the transport credentials of a member. A member
// serves its address with them (connections that open with an accepted
// member preamble are member connections, all others client connections)
// and dials the other members with them (every new connection opens with
// the preamble).
func Credentials(cfg HandshakeConfig) credentials.TransportCredentials {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c := &memberCredentials{cfg: cfg, state: &handshakeState{refusals: security.RefusalLog{Interval: refusalLogInterval}, clients: map[string]int{}}}
	if len(cfg.Secret) > 0 {
		m := hmac.New(sha256.New, cfg.Secret)
		m.Write([]byte("atoll member handshake v2"))
		c.key = m.Sum(nil)
	}
	return c
}

// GossipKey derives the key that encrypts gossip from a cluster secret
// (AES-256: 32 bytes).
func GossipKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("atoll gossip key v1"))
	return m.Sum(nil)
}

// PeerInfo is the AuthInfo of a connection to a member's address.
type PeerInfo struct {
	credentials.AuthInfo // the transport's: TLS or plain
	// Member is set on connections that opened with an accepted member
	// preamble (on the listening side) or that sent one (dialing side).
	Member bool
	// Conn is the connection on the listening side (nil on the dialing
	// side): what lives as long as it (a client's cursors) hooks its end.
	Conn *Conn
	// ClientCert is a client's certificate, verified against the clients'
	// CA (nil: none, or no TLS).
	ClientCert *x509.Certificate
	// Refusal, when set, refuses every call of this client connection:
	// it is plaintext on a TLS member, lacks a required certificate, or
	// is one too many from its address. Its calls fail with it.
	Refusal error
}

// Refusals of client connections (PeerInfo.Refusal).
var (
	// ErrTLSRequired: a plaintext client reached a member that serves TLS.
	ErrTLSRequired = errors.New("cluster: this member serves TLS only: configure the client's TLS (the cluster's CA certificate)")
	// ErrClientCertificate: the client's certificate is missing or not
	// accepted where one is required.
	ErrClientCertificate = errors.New("cluster: client certificate refused")
	// ErrTooManyConnections: one connection too many from an address.
	ErrTooManyConnections = errors.New("cluster: too many connections")
)

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
	info, ok := Peer(ctx)
	return ok && info.Member
}

// Peer returns the AuthInfo of the connection a call arrived on.
func Peer(ctx context.Context) (PeerInfo, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return PeerInfo{}, false
	}
	info, ok := p.AuthInfo.(PeerInfo)
	return info, ok
}

// MismatchError is a member's refusal of a preamble: it belongs to another
// cluster, has another partition count, or did not accept this member's
// proof of membership (TLS, certificate, secret) or this member not its.
// It matches ErrClusterMismatch.
type MismatchError struct {
	Addr           string
	ClusterName    string // this member's
	PartitionCount int    // this member's
	Answer         byte
	// Reason says why, in the dialing member's terms.
	Reason string
}

func (e *MismatchError) Error() string {
	switch e.Answer {
	case handshakeOtherCluster:
		return fmt.Sprintf("cluster: the member at %s belongs to another cluster; this member is configured for cluster %q (check cluster-name)", e.Addr, e.ClusterName)
	case handshakeOtherPartitions:
		return fmt.Sprintf("cluster: the member at %s has another partition count; this member is configured for %d partitions (check partition-count)", e.Addr, e.PartitionCount)
	}
	return fmt.Sprintf("cluster: the member at %s refused this member or was refused by it: %s", e.Addr, e.Reason)
}

// Unwrap makes the error match ErrClusterMismatch.
func (e *MismatchError) Unwrap() error { return ErrClusterMismatch }

// appendPreamble appends a member's preamble to dst.
func appendPreamble(dst []byte, clusterName string, partitions int, flags byte, nonce []byte) []byte {
	dst = append(dst, handshakeMagic...)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(clusterName)))
	dst = append(dst, clusterName...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(partitions))
	dst = append(dst, flags)
	return append(dst, nonce...)
}

// proof is one side's HMAC over the handshake: its role, the cluster, both
// nonces and the TLS binding (empty without TLS).
func (c *memberCredentials) proof(role string, dialerNonce, listenerNonce, binding []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(role))
	m.Write([]byte{0})
	m.Write([]byte(c.cfg.ClusterName))
	m.Write(binary.BigEndian.AppendUint32(nil, uint32(c.cfg.PartitionCount)))
	m.Write(dialerNonce)
	m.Write(listenerNonce)
	m.Write(binding)
	return m.Sum(nil)
}

// tlsBinding returns the keying material both ends of a TLS connection
// export, or nil for a plain connection.
func tlsBinding(conn net.Conn) ([]byte, error) {
	tc, ok := conn.(*tls.Conn)
	if !ok {
		return nil, nil
	}
	st := tc.ConnectionState()
	return st.ExportKeyingMaterial(tlsExporterLabel, nil, 32)
}

// logRefusal logs a refusal of addr at most once a minute.
func (c *memberCredentials) logRefusal(addr net.Addr, msg string, args ...any) {
	host := "unknown"
	if addr != nil {
		host = addr.String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	if log, n := c.state.refusals.Note(host+" "+msg, time.Now()); log {
		c.cfg.Logger.Warn(msg, append(args, "address", host, "refused since last logged", n)...)
	}
}

func (c *memberCredentials) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(handshakeTimeout)
	}
	_ = raw.SetDeadline(deadline)
	conn, inner := raw, credentials.AuthInfo(plainInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}})
	if c.cfg.TLS != nil {
		tc := tls.Client(raw, c.cfg.TLS.DialConfig())
		if err := tc.HandshakeContext(ctx); err != nil {
			c.logRefusal(raw.RemoteAddr(), "a member connection was refused or failed in its TLS handshake", "err", err)
			var cert *security.CertificateError
			if errors.As(err, &cert) {
				// The peer is not a member of this cluster's CA: as final
				// as another cluster name.
				return nil, nil, c.mismatch(authority, handshakeBadCertificate, "its certificate is not accepted: "+cert.Error())
			}
			return nil, nil, fmt.Errorf("cluster: the TLS handshake with the member at %s failed: %w", authority, err)
		}
		conn, inner = tc, credentials.TLSInfo{State: tc.ConnectionState(), CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}}
	}
	err := c.dialerExchange(conn, authority)
	if err != nil {
		var mm *MismatchError
		if errors.As(err, &mm) {
			c.logRefusal(raw.RemoteAddr(), "a member refused this member's handshake", "reason", mm.Reason)
		}
		return nil, nil, err
	}
	_ = raw.SetDeadline(time.Time{})
	return conn, PeerInfo{AuthInfo: inner, Member: true}, nil
}

// dialerExchange runs the dialing side of the preamble on conn.
func (c *memberCredentials) dialerExchange(conn net.Conn, authority string) error {
	if len(c.cfg.ClusterName) > maxHandshakeName {
		return fmt.Errorf("cluster: the cluster name has %d bytes, at most %d", len(c.cfg.ClusterName), maxHandshakeName)
	}
	nonce := make([]byte, nonceLen)
	_, _ = rand.Read(nonce)
	var flags byte
	if c.key != nil {
		flags |= flagSecret
	}
	if _, err := conn.Write(appendPreamble(nil, c.cfg.ClusterName, c.cfg.PartitionCount, flags, nonce)); err != nil {
		return err
	}
	answer, err := readAnswer(conn, authority)
	if err != nil || answer != handshakeAccepted || c.key == nil {
		return c.answerError(answer, authority, err)
	}
	// Secret: check the listener's proof, then send ours.
	reply := make([]byte, 2*nonceLen)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return fmt.Errorf("cluster: the member at %s did not finish the member handshake: %w", authority, err)
	}
	binding, err := tlsBinding(conn)
	if err != nil {
		return err
	}
	theirs, proof := reply[:nonceLen], reply[nonceLen:]
	if !hmac.Equal(proof, c.proof("listener", nonce, theirs, binding)) {
		return c.mismatch(authority, handshakeWrongSecret, refusalReasons[handshakeWrongSecret])
	}
	if _, err := conn.Write(c.proof("dialer", nonce, theirs, binding)); err != nil {
		return err
	}
	answer, err = readAnswer(conn, authority)
	return c.answerError(answer, authority, err)
}

func readAnswer(conn net.Conn, authority string) (byte, error) {
	var answer [1]byte
	if _, err := io.ReadFull(conn, answer[:]); err != nil {
		return 0, fmt.Errorf("cluster: the member at %s did not answer the member handshake: %w", authority, err)
	}
	return answer[0], nil
}

func (c *memberCredentials) answerError(answer byte, authority string, err error) error {
	if err != nil || answer == handshakeAccepted {
		return err
	}
	if reason, ok := refusalReasons[answer]; ok {
		return c.mismatch(authority, answer, reason)
	}
	return fmt.Errorf("cluster: the member at %s answered the member handshake with %d", authority, answer)
}

func (c *memberCredentials) mismatch(authority string, answer byte, reason string) *MismatchError {
	return &MismatchError{Addr: authority, ClusterName: c.cfg.ClusterName, PartitionCount: c.cfg.PartitionCount, Answer: answer, Reason: reason}
}

// plainInfo is the AuthInfo of a connection without TLS.
type plainInfo struct{ credentials.CommonAuthInfo }

func (plainInfo) AuthType() string { return "insecure" }

func (c *memberCredentials) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	var first [1]byte
	if _, err := io.ReadFull(raw, first[:]); err != nil {
		return nil, nil, err // io.EOF: a prober that closed at once
	}
	conn := net.Conn(&replayConn{Conn: raw, first: first[0], pending: true})
	inner := credentials.AuthInfo(plainInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}})
	switch {
	case c.cfg.TLS != nil && first[0] == tlsRecordHandshake:
		tc := tls.Server(conn, c.cfg.TLS.ServerConfig())
		if err := tc.Handshake(); err != nil {
			c.logRefusal(raw.RemoteAddr(), "a TLS handshake failed", "err", err)
			return nil, nil, err
		}
		st := tc.ConnectionState()
		conn, inner = tc, credentials.TLSInfo{State: st, CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}}
		if _, err := io.ReadFull(tc, first[:]); err != nil {
			return nil, nil, err
		}
		conn = &replayConn{Conn: tc, first: first[0], pending: true}
	case c.cfg.TLS != nil && first[0] == handshakeMagic[0]:
		// A member dialing in plaintext: tell it why, then close.
		if _, err := c.readPreamble(conn); err == nil {
			_, _ = conn.Write([]byte{handshakeTLSRequired})
		}
		c.logRefusal(raw.RemoteAddr(), "refused a member handshake", "reason", "the member dialed in plaintext; this member serves TLS only")
		return nil, nil, errors.New("cluster: refused a plaintext member handshake")
	case c.cfg.TLS == nil && first[0] == tlsRecordHandshake:
		// A TLS client of a plaintext member: a fatal handshake_failure
		// alert ends its handshake at once.
		_, _ = raw.Write([]byte{21, 3, 3, 0, 2, 2, 40})
		c.logRefusal(raw.RemoteAddr(), "a client tried TLS; this member serves plaintext (configure tls on the members, or connect without TLS)")
		return nil, nil, errors.New("cluster: a TLS handshake reached a plaintext member")
	}
	if first[0] == handshakeMagic[0] {
		return c.serverMember(conn, raw.RemoteAddr(), inner)
	}
	if first[0] == frame.Preamble[0] && c.cfg.Framed != nil {
		conn, info, err := c.serverClient(conn, raw.RemoteAddr(), inner)
		if err != nil {
			return nil, nil, err
		}
		c.cfg.Framed(conn, info.(PeerInfo))
		return nil, nil, credentials.ErrConnDispatched
	}
	return c.serverClient(conn, raw.RemoteAddr(), inner)
}

// serverMember runs the listening side of a member preamble.
func (c *memberCredentials) serverMember(conn net.Conn, addr net.Addr, inner credentials.AuthInfo) (net.Conn, credentials.AuthInfo, error) {
	p, err := c.readPreamble(conn)
	if err != nil {
		return nil, nil, err
	}
	answer, reason := p.answer, ""
	if answer == handshakeAccepted && c.cfg.TLS != nil {
		if err := c.cfg.TLS.VerifyMember(inner.(credentials.TLSInfo).State); err != nil {
			answer, reason = handshakeBadCertificate, err.Error()
		}
	}
	if answer == handshakeAccepted {
		switch {
		case c.key != nil && p.flags&flagSecret == 0:
			answer = handshakeSecretRequired
		case c.key == nil && p.flags&flagSecret != 0:
			answer = handshakeNoSecretHere
		}
	}
	if answer != handshakeAccepted {
		_, _ = conn.Write([]byte{answer})
		if reason == "" {
			reason = refusalReasons[answer]
		}
		c.logRefusal(addr, "refused a member handshake", "reason", peerReason(answer, reason))
		return nil, nil, errors.New("cluster: refused a member handshake")
	}
	if c.key != nil {
		binding, err := tlsBinding(conn.(*replayConn).Conn)
		if err != nil {
			return nil, nil, err
		}
		nonce := make([]byte, nonceLen)
		_, _ = rand.Read(nonce)
		msg := append([]byte{handshakeAccepted}, nonce...)
		if _, err := conn.Write(append(msg, c.proof("listener", p.nonce, nonce, binding)...)); err != nil {
			return nil, nil, err
		}
		proof := make([]byte, nonceLen)
		if _, err := io.ReadFull(conn, proof); err != nil {
			// The dialer closes when our proof does not convince it.
			c.logRefusal(addr, "a member handshake ended before its proof", "reason", "the dialing member did not accept this member's proof: their cluster secrets differ", "err", err)
			return nil, nil, err
		}
		if !hmac.Equal(proof, c.proof("dialer", p.nonce, nonce, binding)) {
			_, _ = conn.Write([]byte{handshakeWrongSecret})
			c.logRefusal(addr, "refused a member handshake", "reason", "its cluster secret differs from this member's")
			return nil, nil, errors.New("cluster: refused a member handshake")
		}
	}
	if _, err := conn.Write([]byte{handshakeAccepted}); err != nil {
		return nil, nil, err
	}
	track := &Conn{}
	info := PeerInfo{AuthInfo: inner, Member: true, Conn: track}
	if c.cfg.MemberFramed != nil {
		// HTTP/2's preface, or a framed stream's preamble?
		var next [1]byte
		if _, err := io.ReadFull(conn, next[:]); err != nil {
			return nil, nil, err
		}
		conn = &replayConn{Conn: conn, first: next[0], pending: true}
		if next[0] == frame.Preamble[0] {
			c.cfg.MemberFramed(&trackedConn{Conn: conn, c: track}, info)
			return nil, nil, credentials.ErrConnDispatched
		}
	}
	return &trackedConn{Conn: conn, c: track}, info, nil
}

// peerReason says why a preamble was refused, in the listening member's
// terms.
func peerReason(answer byte, reason string) string {
	switch answer {
	case handshakeOtherCluster:
		return "the dialing member belongs to another cluster"
	case handshakeOtherPartitions:
		return "the dialing member has another partition count"
	case handshakeBadCertificate:
		return "the dialing member's certificate: " + reason
	case handshakeSecretRequired:
		return "the dialing member sent no cluster secret proof, and this member requires one"
	case handshakeNoSecretHere:
		return "the dialing member has a cluster secret, and this member has none"
	}
	return reason
}

// serverClient lets a client connection through, noting what refuses its
// calls (plaintext on a TLS member, a refused certificate, one connection
// too many from its address).
func (c *memberCredentials) serverClient(conn net.Conn, addr net.Addr, inner credentials.AuthInfo) (net.Conn, credentials.AuthInfo, error) {
	track := &Conn{}
	info := PeerInfo{AuthInfo: inner, Conn: track}
	if c.cfg.TLS != nil {
		tlsInfo, ok := inner.(credentials.TLSInfo)
		switch {
		case !ok:
			info.Refusal = ErrTLSRequired
			c.logRefusal(addr, "refused a plaintext client: this member serves TLS only")
		case c.cfg.TLS.ClientAuth() != security.ClientCertNone:
			cert, err := c.cfg.TLS.VerifyClient(tlsInfo.State)
			switch {
			case err != nil && c.cfg.TLS.ClientAuth() == security.ClientCertRequired:
				info.Refusal = fmt.Errorf("%w: %v", ErrClientCertificate, err)
				c.logRefusal(addr, "refused a client certificate", "err", err)
			case err != nil:
				c.logRefusal(addr, "ignored a client certificate", "err", err)
			case cert == nil && c.cfg.TLS.ClientAuth() == security.ClientCertRequired:
				info.Refusal = fmt.Errorf("%w: this member requires a client certificate of the clients' CA", ErrClientCertificate)
			default:
				info.ClientCert = cert
			}
		}
	}
	if max := c.cfg.MaxClientConnsPerAddress; max > 0 {
		host := "unknown"
		if addr != nil {
			if h, _, err := net.SplitHostPort(addr.String()); err == nil {
				host = h
			}
		}
		c.state.mu.Lock()
		n := c.state.clients[host] + 1
		if n > 2*max {
			c.state.mu.Unlock()
			c.logRefusal(addr, "closed a client connection: too many from its address", "limit", max)
			return nil, nil, fmt.Errorf("%w from %s", ErrTooManyConnections, host)
		}
		c.state.clients[host] = n
		c.state.mu.Unlock()
		if n > max && info.Refusal == nil {
			info.Refusal = fmt.Errorf("%w: %d client connections are open from %s, at most %d (limits.max-connections-per-address)",
				ErrTooManyConnections, n, host, max)
			c.logRefusal(addr, "refused a client connection: too many from its address", "limit", max)
		}
		track.OnClose(func() {
			c.state.mu.Lock()
			if c.state.clients[host]--; c.state.clients[host] <= 0 {
				delete(c.state.clients, host)
			}
			c.state.mu.Unlock()
		})
	}
	return &trackedConn{Conn: conn, c: track}, info, nil
}

// preamble is what a dialing member sent.
type preamble struct {
	answer byte // accepted, or why not (name, partitions)
	flags  byte
	nonce  []byte
}

// readPreamble reads a member preamble (its first byte is pending in
// conn) and checks its cluster name and partition count.
func (c *memberCredentials) readPreamble(conn net.Conn) (preamble, error) {
	head := make([]byte, len(handshakeMagic)+2)
	if _, err := io.ReadFull(conn, head); err != nil {
		return preamble{}, err
	}
	if string(head[:len(handshakeMagic)]) != string(handshakeMagic) {
		return preamble{}, errors.New("cluster: a connection opened with neither HTTP/2 nor a member handshake of this version")
	}
	n := int(binary.BigEndian.Uint16(head[len(head)-2:]))
	if n > maxHandshakeName {
		return preamble{}, fmt.Errorf("cluster: a member handshake with a cluster name of %d bytes (at most %d)", n, maxHandshakeName)
	}
	rest := make([]byte, n+4+1+nonceLen)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return preamble{}, err
	}
	p := preamble{answer: handshakeAccepted, flags: rest[n+4], nonce: rest[n+5:]}
	switch {
	case string(rest[:n]) != c.cfg.ClusterName:
		p.answer = handshakeOtherCluster
	case int(binary.BigEndian.Uint32(rest[n:])) != c.cfg.PartitionCount:
		p.answer = handshakeOtherPartitions
	}
	return p, nil
}

func (c *memberCredentials) Info() credentials.ProtocolInfo {
	if c.cfg.TLS != nil {
		return credentials.ProtocolInfo{SecurityProtocol: "tls"}
	}
	return credentials.ProtocolInfo{SecurityProtocol: "insecure"}
}

func (c *memberCredentials) Clone() credentials.TransportCredentials {
	cc := *c
	return &cc
}

func (c *memberCredentials) OverrideServerName(string) error { return nil }

// replayConn is a connection whose first byte the handshake read: it
// returns that byte first.
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
// the member there accepts this one (a *MismatchError if not).
func probe(ctx context.Context, creds credentials.TransportCredentials, addr string) error {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer raw.Close()
	conn, _, err := creds.ClientHandshake(ctx, addr, raw)
	if err == nil && conn != raw {
		_ = conn.Close()
	}
	return err
}
