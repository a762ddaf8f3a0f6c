package cluster

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

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
	// The write must start before its deadline (one that starts after it
	// fails at once and closes nothing): 20 ms was too short for the
	// writing goroutine to be scheduled on a loaded machine.
	_ = a.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
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

// stalledGossip is a MemberService whose gossip streams read the greeting
// and nothing more, as a member that stopped reading would.
type stalledGossip struct {
	memberv1.UnimplementedMemberServiceServer
}

func (stalledGossip) GossipStream(stream memberv1.MemberService_GossipStreamServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	<-stream.Context().Done()
	return nil
}

// TestDialedStreamWriteDeadline writes past a write deadline to a real gRPC
// gossip stream whose peer stopped reading: the deadline closes the
// connection while its send is blocked, which must end the write and must
// not touch the gRPC stream from two goroutines at once (run with -race).
func TestDialedStreamWriteDeadline(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	memberv1.RegisterMemberServiceServer(srv, stalledGossip{})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	p := newPeers(insecure.NewCredentials(), 4<<20, nil)
	defer p.close()
	gt := newGossipTransport("127.0.0.1:1", p)
	defer func() { _ = gt.Shutdown() }()

	conn, err := gt.DialTimeout(lis.Addr().String(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		n, err := conn.Write(make([]byte, 1024*maxChunk)) // far more than gRPC's flow-control windows
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		if r.err == nil || r.n == 0 {
			t.Fatalf("wrote %d bytes (%v) to a peer that does not read, want some and then an error", r.n, r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a write with a deadline never returned")
	}
	if _, err := conn.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after the deadline closed the conn: %v", err)
	}
}
