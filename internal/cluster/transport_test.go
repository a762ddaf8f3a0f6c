package cluster

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
)

// pipeConns connects two streamConns through channels, as a gRPC stream
// would: closing one side ends the other's reads (EOF once the chunks sent
// before were read).
func pipeConns() (*streamConn, *streamConn) {
	ab, ba := make(chan *memberv1.GossipChunk, 4), make(chan *memberv1.GossipChunk, 4)
	aDone, bDone := make(chan struct{}), make(chan struct{})
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	mk := func(out, in chan *memberv1.GossipChunk, done, peerDone chan struct{}) *streamConn {
		return newStreamConn(addr, addr,
			func(c *memberv1.GossipChunk) error {
				select {
				case out <- c:
					return nil
				case <-done:
					return net.ErrClosed
				}
			},
			func() (*memberv1.GossipChunk, error) {
				select {
				case c := <-in:
					return c, nil
				case <-peerDone:
					select {
					case c := <-in:
						return c, nil
					default:
						return nil, io.EOF
					}
				}
			},
			func() { close(done) })
	}
	return mk(ab, ba, aDone, bDone), mk(ba, ab, bDone, aDone)
}

func TestStreamConnCarriesLargeWrites(t *testing.T) {
	a, b := pipeConns()
	want := bytes.Repeat([]byte("gossip"), maxChunk) // several chunks
	go func() {
		_, _ = a.Write(want)
		_ = a.Close()
	}()
	got, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(want))
	}
}

func TestStreamConnReadDeadline(t *testing.T) {
	_, b := pipeConns()
	_ = b.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	done := make(chan error, 1)
	go func() {
		_, err := b.Read(make([]byte, 8))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read past the deadline: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a read with a deadline never returned")
	}
}

func TestStreamConnWriteDeadline(t *testing.T) {
	a, _ := pipeConns() // nobody reads b: a's sends block once the channel is full
	_ = a.SetWriteDeadline(time.Now().Add(20 * time.Millisecond))
	done := make(chan error, 1)
	go func() {
		_, err := a.Write(make([]byte, 64*maxChunk)) // more than the buffers on the way hold
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a write to a peer that does not read succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a write with a deadline never returned")
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after the deadline closed the conn: %v", err)
	}
}
