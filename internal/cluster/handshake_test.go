package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/credentials"

	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/testlog"
)

// bufConn is a connection whose peer sent in (then nothing) and that
// collects what is written to it.
type bufConn struct {
	net.Conn // nil: only the methods below are used
	in       *bytes.Reader
	out      bytes.Buffer
}

func (c *bufConn) Read(p []byte) (int, error)       { return c.in.Read(p) }
func (c *bufConn) Write(p []byte) (int, error)      { return c.out.Write(p) }
func (c *bufConn) Close() error                     { return nil }
func (c *bufConn) SetDeadline(time.Time) error      { return nil }
func (c *bufConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *bufConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *bufConn) SetReadDeadline(time.Time) error  { return nil }
func (c *bufConn) SetWriteDeadline(time.Time) error { return nil }

var testNonce = make([]byte, nonceLen)

// serverSide runs the listening side of a plaintext member "c" with 271
// partitions on a connection whose peer sent in; it returns the connection
// gRPC would get, its AuthInfo and the bytes answered.
func serverSide(in []byte) (net.Conn, PeerInfo, []byte, error) {
	raw := &bufConn{in: bytes.NewReader(in)}
	c, auth, err := Credentials(HandshakeConfig{ClusterName: "c", PartitionCount: 271}).ServerHandshake(raw)
	if err != nil {
		return nil, PeerInfo{}, raw.out.Bytes(), err
	}
	return c, auth.(PeerInfo), raw.out.Bytes(), nil
}

var preface = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")

func TestServerHandshake(t *testing.T) {
	t.Run("client bytes pass through", func(t *testing.T) {
		c, info, _, err := serverSide(preface)
		require.NoError(t, err)
		assert.False(t, info.Member)
		assert.NoError(t, info.Refusal)
		got := make([]byte, len(preface))
		_, err = io.ReadFull(c, got)
		require.NoError(t, err)
		assert.Equal(t, preface, got)
	})
	for _, tc := range []struct {
		name    string
		cluster string
		parts   int
		flags   byte
		answer  byte
	}{
		{"same cluster", "c", 271, 0, handshakeAccepted},
		{"another cluster", "d", 271, 0, handshakeOtherCluster},
		{"another partition count", "c", 7, 0, handshakeOtherPartitions},
		{"a secret this member lacks", "c", 271, flagSecret, handshakeNoSecretHere},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, info, answer, err := serverSide(append(appendPreamble(nil, tc.cluster, tc.parts, tc.flags, testNonce), preface...))
			assert.Equal(t, []byte{tc.answer}, answer)
			if tc.answer != handshakeAccepted {
				assert.Error(t, err, "a refused handshake let the connection through")
				return
			}
			require.NoError(t, err)
			assert.True(t, info.Member)
			got := make([]byte, len(preface))
			_, err = io.ReadFull(c, got)
			require.NoError(t, err)
			assert.Equal(t, preface, got, "the bytes after the preamble come through")
		})
	}
}

// listener accepts connections and runs the listening side of creds on
// each; it returns the address and a channel of the outcomes.
type accepted struct {
	conn net.Conn
	info PeerInfo
	err  error
}

func listen(t *testing.T, creds credentials.TransportCredentials) (string, chan accepted) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	out := make(chan accepted, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				conn, info, err := creds.ServerHandshake(c)
				a := accepted{conn: conn, err: err}
				if err == nil {
					a.info = info.(PeerInfo)
				} else {
					_ = c.Close()
				}
				out <- a
			}()
		}
	}()
	return ln.Addr().String(), out
}

// member is the credentials of a member of cluster "c" with its log.
type member struct {
	creds credentials.TransportCredentials
	log   *testlog.Buffer
}

func newMember(name string, tlsm *security.TLS, secret []byte) member {
	log := &testlog.Buffer{}
	return member{Credentials(HandshakeConfig{
		ClusterName: name, PartitionCount: 271, TLS: tlsm, Secret: secret,
		Logger: testlog.Logger(log),
	}), log}
}

// tlsOf writes a certificate of ca into a directory and loads it.
func tlsOf(t *testing.T, ca *security.CA, name string, opts security.TLSOptions) *security.TLS {
	t.Helper()
	dir := t.TempDir()
	c, k, err := ca.Issue(security.CertOptions{CommonName: name, Hosts: []string{"127.0.0.1"}, Server: true, Client: true})
	require.NoError(t, err)
	require.NoError(t, security.WritePair(dir, "member", c, k))
	require.NoError(t, ca.WriteFiles(dir))
	opts.CertFile, opts.KeyFile, opts.CAFile = filepath.Join(dir, "member.crt"), filepath.Join(dir, "member.key"), filepath.Join(dir, "ca.crt")
	m, err := security.NewTLS(opts)
	require.NoError(t, err)
	return m
}

func probeOf(t *testing.T, m member, addr string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return probe(ctx, m.creds, addr)
}

// TestMemberHandshakes runs the member handshake between real
// connections: plaintext, with a cluster secret, with TLS, and with both,
// between members that agree and members that do not. Every refusal is
// final on the dialing side (ErrClusterMismatch, saying why, never the
// listener's cluster name) and logged on the listening side with its
// reason.
func TestMemberHandshakes(t *testing.T) {
	ca, err := security.NewCA("cluster CA", time.Hour)
	require.NoError(t, err)
	otherCA, err := security.NewCA("other CA", time.Hour)
	require.NoError(t, err)
	secret, wrong := []byte("the cluster secret"), []byte("another secret")
	tlsA := tlsOf(t, ca, "member-a", security.TLSOptions{})
	tlsB := tlsOf(t, ca, "member-b", security.TLSOptions{})
	tlsX := tlsOf(t, otherCA, "intruder", security.TLSOptions{})

	for _, tc := range []struct {
		name               string
		listener, dialer   member
		dialerErr          string // "" = accepted
		listenerLog        string
		listenerSawNoProof bool
	}{
		{name: "plaintext", listener: newMember("c", nil, nil), dialer: newMember("c", nil, nil)},
		{name: "another cluster", listener: newMember("theirs", nil, nil), dialer: newMember("c", nil, nil),
			dialerErr: "belongs to another cluster", listenerLog: "another cluster"},
		{name: "secret", listener: newMember("c", nil, secret), dialer: newMember("c", nil, secret)},
		{name: "wrong secret", listener: newMember("c", nil, secret), dialer: newMember("c", nil, wrong),
			dialerErr: "cluster secret differs", listenerLog: "did not accept this member's proof"},
		{name: "no secret", listener: newMember("c", nil, secret), dialer: newMember("c", nil, nil),
			dialerErr: "requires the cluster secret", listenerLog: "sent no cluster secret proof"},
		{name: "secret on the dialer only", listener: newMember("c", nil, nil), dialer: newMember("c", nil, secret),
			dialerErr: "it has no cluster secret", listenerLog: "this member has none"},
		{name: "TLS", listener: newMember("c", tlsA, nil), dialer: newMember("c", tlsB, nil)},
		{name: "TLS and secret", listener: newMember("c", tlsA, secret), dialer: newMember("c", tlsB, secret)},
		{name: "TLS and wrong secret", listener: newMember("c", tlsA, secret), dialer: newMember("c", tlsB, wrong),
			dialerErr: "cluster secret differs", listenerLog: "did not accept this member's proof"},
		{name: "certificate of another CA", listener: newMember("c", tlsA, nil), dialer: newMember("c", tlsX, nil),
			dialerErr: "not one of the cluster's members'", listenerLog: "a TLS handshake failed"},
		{name: "plaintext dialer, TLS listener", listener: newMember("c", tlsA, nil), dialer: newMember("c", nil, nil),
			dialerErr: "serves TLS only", listenerLog: "dialed in plaintext"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, out := listen(t, tc.listener.creds)
			err := probeOf(t, tc.dialer, addr)
			got := <-out
			if tc.dialerErr == "" {
				require.NoError(t, err)
				require.NoError(t, got.err)
				assert.True(t, got.info.Member)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrClusterMismatch, "a refusal is final: %v", err)
			assert.Contains(t, err.Error(), tc.dialerErr)
			assert.NotContains(t, err.Error(), "theirs", "the refusal names the listener's cluster")
			require.Error(t, got.err, "the listener let a refused member through")
			require.Eventually(t, func() bool { return strings.Contains(tc.listener.log.String(), tc.listenerLog) }, 5*time.Second, 10*time.Millisecond,
				"the listener's log: %s", tc.listener.log.String())
			assert.Contains(t, tc.dialer.log.String(), "refused", "the dialer logs it too")
		})
	}
}

// TestClientConnections: a TLS member serves clients over TLS (with their
// verified certificate, if any), marks a plaintext client's connection
// refused so that its calls say TLS is required, and refuses the
// connections of an address past the limit; a plaintext member answers a
// TLS client with an alert at once.
func TestClientConnections(t *testing.T) {
	ca, err := security.NewCA("cluster CA", time.Hour)
	require.NoError(t, err)
	clientCert, clientKey, err := ca.Issue(security.CertOptions{CommonName: "app", Client: true})
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(clientCert, clientKey)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)

	dialTLS := func(addr string, cfg *tls.Config) error {
		c, err := tls.Dial("tcp", addr, cfg)
		if err == nil {
			_, err = c.Write(preface)
			_ = c.Close()
		}
		return err
	}
	t.Run("optional certificates", func(t *testing.T) {
		addr, out := listen(t, newMember("c", tlsOf(t, ca, "m", security.TLSOptions{}), nil).creds)
		require.NoError(t, dialTLS(addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", NextProtos: []string{"h2"}, Certificates: []tls.Certificate{pair}}))
		got := <-out
		require.NoError(t, got.err)
		assert.False(t, got.info.Member)
		assert.NoError(t, got.info.Refusal)
		require.NotNil(t, got.info.ClientCert)
		assert.Equal(t, "app", got.info.ClientCert.Subject.CommonName)
		_, isTLS := got.info.AuthInfo.(credentials.TLSInfo)
		assert.True(t, isTLS)

		require.NoError(t, dialTLS(addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", NextProtos: []string{"h2"}}))
		got = <-out
		require.NoError(t, got.err)
		assert.NoError(t, got.info.Refusal)
		assert.Nil(t, got.info.ClientCert)

		plain, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, _ = plain.Write(preface)
		got = <-out
		_ = plain.Close()
		require.NoError(t, got.err)
		assert.ErrorIs(t, got.info.Refusal, ErrTLSRequired)
	})
	t.Run("required certificates", func(t *testing.T) {
		addr, out := listen(t, newMember("c", tlsOf(t, ca, "m", security.TLSOptions{ClientAuth: security.ClientCertRequired}), nil).creds)
		require.NoError(t, dialTLS(addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", NextProtos: []string{"h2"}}))
		got := <-out
		require.NoError(t, got.err)
		assert.ErrorIs(t, got.info.Refusal, ErrClientCertificate)
	})
	t.Run("TLS client, plaintext member", func(t *testing.T) {
		m := newMember("c", nil, nil)
		addr, _ := listen(t, m.creds)
		start := time.Now()
		err := dialTLS(addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "handshake failure")
		assert.Less(t, time.Since(start), 5*time.Second)
		require.Eventually(t, func() bool { return strings.Contains(m.log.String(), "serves plaintext") }, 5*time.Second, 10*time.Millisecond)
	})
	t.Run("connections per address", func(t *testing.T) {
		log := &testlog.Buffer{}
		creds := Credentials(HandshakeConfig{ClusterName: "c", PartitionCount: 271, MaxClientConnsPerAddress: 2, Logger: testlog.Logger(log)})
		addr, out := listen(t, creds)
		var served []net.Conn
		open := func() accepted {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			_, _ = c.Write(preface)
			a := <-out
			if a.conn != nil {
				served = append(served, a.conn)
			}
			return a
		}
		for i := 0; i < 2; i++ {
			a := open()
			require.NoError(t, a.err)
			require.NoError(t, a.info.Refusal)
		}
		a := open()
		require.NoError(t, a.err)
		assert.ErrorIs(t, a.info.Refusal, ErrTooManyConnections)
		assert.Contains(t, a.info.Refusal.Error(), "limits.max-connections-per-address")
		_ = open()
		a = open()
		assert.ErrorIs(t, a.err, ErrTooManyConnections, "past twice the limit a connection is closed")
		// Closing connections frees their places.
		require.Len(t, served, 4)
		for _, c := range served {
			_ = c.Close()
		}
		require.Eventually(t, func() bool {
			st := creds.(*memberCredentials).state
			st.mu.Lock()
			defer st.mu.Unlock()
			return len(st.clients) == 0
		}, 5*time.Second, 10*time.Millisecond)
	})
}

func TestGossipKey(t *testing.T) {
	k := GossipKey([]byte("s"))
	assert.Len(t, k, 32)
	assert.NotEqual(t, k, GossipKey([]byte("t")))
}

// FuzzServerHandshake feeds arbitrary first bytes to the listening side:
// it never panics, and a connection it lets through as a client's yields
// exactly the bytes that were sent.
func FuzzServerHandshake(f *testing.F) {
	nonce := make([]byte, nonceLen)
	_, _ = rand.Read(nonce)
	f.Add(preface)
	f.Add(appendPreamble(nil, "c", 271, 0, nonce))
	f.Add(appendPreamble(nil, "c", 271, flagSecret, nonce))
	f.Add(appendPreamble(nil, "other", 271, 0, nonce))
	f.Add([]byte("\x00atoll-member/2\n\xff\xff"))
	f.Add([]byte{0x16, 3, 1, 0, 5})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		c, info, _, err := serverSide(in)
		if err != nil || info.Member {
			return
		}
		got := make([]byte, len(in))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, in) {
			t.Fatalf("a client connection yielded %q (%v), want %q", got, err, in)
		}
	})
}
