package cluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
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

// serverSide runs the listening side of a member "c" with 271 partitions
// on a connection whose peer sent in; it returns the connection gRPC would
// get, its AuthInfo and the bytes answered.
func serverSide(in []byte) (net.Conn, PeerInfo, []byte, error) {
	raw := &bufConn{in: bytes.NewReader(in)}
	c, auth, err := Credentials("c", 271).ServerHandshake(raw)
	if err != nil {
		return nil, PeerInfo{}, raw.out.Bytes(), err
	}
	return c, auth.(PeerInfo), raw.out.Bytes(), nil
}

func TestServerHandshake(t *testing.T) {
	preface := []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	t.Run("client bytes pass through", func(t *testing.T) {
		c, info, _, err := serverSide(preface)
		if err != nil || info.Member {
			t.Fatalf("a client connection: member %v, %v", info.Member, err)
		}
		got := make([]byte, len(preface))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, preface) {
			t.Fatalf("the client's bytes came through as %q (%v)", got, err)
		}
	})
	for _, tc := range []struct {
		name    string
		cluster string
		parts   int
		answer  byte
	}{
		{"same cluster", "c", 271, handshakeAccepted},
		{"another cluster", "d", 271, handshakeOtherCluster},
		{"another partition count", "c", 7, handshakeOtherPartitions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, info, answer, err := serverSide(append(appendPreamble(nil, tc.cluster, tc.parts), preface...))
			if !bytes.Equal(answer, []byte{tc.answer}) {
				t.Fatalf("answer %v, want %d", answer, tc.answer)
			}
			if tc.answer != handshakeAccepted {
				if err == nil {
					t.Fatal("a refused handshake let the connection through")
				}
				return
			}
			if err != nil || !info.Member {
				t.Fatalf("member %v, %v", info.Member, err)
			}
			got := make([]byte, len(preface))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, preface) {
				t.Fatalf("the bytes after the preamble came through as %q (%v)", got, err)
			}
		})
	}
}

func TestClientHandshakeMismatch(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _, _ = Credentials("theirs", 271).ServerHandshake(c)
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = probe(ctx, ln.Addr().String(), "ours", 271)
	var mm *MismatchError
	if !errors.As(err, &mm) || !errors.Is(err, ErrClusterMismatch) || !mm.OtherCluster {
		t.Fatalf("probing a member of another cluster: %v", err)
	}
	if bytes.Contains([]byte(err.Error()), []byte("theirs")) {
		t.Fatalf("the refusal names the other cluster: %v", err)
	}
	if err := probe(ctx, ln.Addr().String(), "theirs", 271); err != nil {
		t.Fatalf("probing a member of the same cluster: %v", err)
	}
}

// FuzzServerHandshake feeds arbitrary first bytes to the listening side:
// it never panics, and a connection it lets through as a client's yields
// exactly the bytes that were sent.
func FuzzServerHandshake(f *testing.F) {
	f.Add([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
	f.Add(appendPreamble(nil, "c", 271))
	f.Add(appendPreamble(nil, "other", 271))
	f.Add([]byte("\x00atoll-member/1\n\xff\xff"))
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
