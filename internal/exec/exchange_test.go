package exec

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/pkg/serialization"
)

// glogDaemon is the flush goroutine of glog, which vitess (imported by
// this package's tests) starts for the life of the process.
var glogDaemon = goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon")

// memPipe is an exchange stream in memory: the sender's messages queue up
// to a transport buffer (as a network connection's would), credits come
// back the other way.
type memPipe struct {
	ctx    context.Context
	cancel context.CancelFunc
	msgs   chan *memberpb.ExchangeMessage
	creds  chan *memberpb.ExchangeCredit
	done   chan struct{} // the receiver's handler returned
	broken atomic.Bool
}

func newMemPipe(buffer int) *memPipe {
	ctx, cancel := context.WithCancel(context.Background())
	return &memPipe{ctx: ctx, cancel: cancel, msgs: make(chan *memberpb.ExchangeMessage, buffer),
		creds: make(chan *memberpb.ExchangeCredit, 1024), done: make(chan struct{})}
}

type memSender struct{ p *memPipe }

func (s memSender) Send(m *memberpb.ExchangeMessage) error {
	if s.p.broken.Load() {
		return errors.New("connection reset")
	}
	select {
	case s.p.msgs <- m:
		return nil
	case <-s.p.ctx.Done():
		return s.p.ctx.Err()
	}
}

func (s memSender) Recv() (*memberpb.ExchangeCredit, error) {
	select {
	case c := <-s.p.creds:
		return c, nil
	case <-s.p.done:
		select {
		case c := <-s.p.creds:
			return c, nil
		default:
		}
		return nil, io.EOF
	case <-s.p.ctx.Done():
		return nil, s.p.ctx.Err()
	}
}

func (s memSender) CloseSend() error { close(s.p.msgs); return nil }

type memReceiver struct{ p *memPipe }

func (r memReceiver) Recv() (*memberpb.ExchangeMessage, error) {
	select {
	case m, ok := <-r.p.msgs:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-r.p.ctx.Done():
		return nil, r.p.ctx.Err()
	}
}

func (r memReceiver) Send(c *memberpb.ExchangeCredit) error {
	select {
	case r.p.creds <- c:
		return nil
	case <-r.p.ctx.Done():
		return r.p.ctx.Err()
	}
}

func (r memReceiver) Context() context.Context { return r.p.ctx }

// serveAsync runs the hub's handler for the pipe's receiving side.
func serveAsync(h *hub, p *memPipe) chan error {
	errc := make(chan error, 1)
	go func() {
		errc <- h.serve(memReceiver{p})
		close(p.done)
	}()
	return errc
}

func rowsOf(n int) ([]byte, int) {
	var b []byte
	for i := 0; i < n; i++ {
		b = EncodeRow(b, []expr.Value{expr.BigIntValue(int64(i))})
	}
	return b, n
}

// TestExchangeBackpressure: a receiver that stops taking rows stops its
// sender once the sender has its in-flight limit unacknowledged; the
// sender's wait counts as write-block, and every row arrives once the
// receiver takes them again.
func TestExchangeBackpressure(t *testing.T) {
	defer goleak.VerifyNone(t, glogDaemon)
	h := newHub()
	key := inboxKey{stage: "q1", exchange: 1}
	ib, err := h.register(key, 1)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var got atomic.Int64
	ib.attach(func(rows []byte, count int) error {
		<-release // a slow join: it takes nothing until released
		got.Add(int64(count))
		return nil
	})
	p := newMemPipe(64)
	defer p.cancel()
	errc := serveAsync(h, p)
	const window = 4096
	d := newDestination(h, memSender{p}, window, nil)
	go d.readCredits()
	ctx := context.Background()
	if err := d.send(ctx, &memberpb.ExchangeMessage{QueryId: []byte("q1"), ExchangeId: 1}); err != nil {
		t.Fatal(err)
	}
	rows, count := rowsOf(250) // under 1 024 bytes: one message
	if len(rows) > window/4 {
		t.Fatalf("a message of %d bytes", len(rows))
	}
	var sent atomic.Int64
	sendDone := make(chan error, 1)
	go func() {
		for i := 0; i < 20; i++ {
			if err := d.send(ctx, &memberpb.ExchangeMessage{Rows: rows, Count: int32(count)}); err != nil {
				sendDone <- err
				return
			}
			sent.Add(1)
		}
		sendDone <- d.send(ctx, &memberpb.ExchangeMessage{End: true, TotalRows: d.rows})
	}()
	// The sender stops at its window: four messages of about 1 000 bytes (and
	// the handler holds the first of them).
	deadline := time.Now().Add(10 * time.Second)
	for sent.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // it would go on now if it could
	if n := sent.Load(); n != 4 {
		t.Fatalf("%d messages sent to a receiver that takes nothing, want 4 (the in-flight limit)", n)
	}
	close(release)
	if err := <-sendDone; err != nil {
		t.Fatal(err)
	}
	_ = memSender{p}.CloseSend()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := ib.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got.Load() != 20*int64(count) {
		t.Fatalf("the receiver took %d rows, want %d", got.Load(), 20*count)
	}
	st := h.Stats(true)
	if st.WriteBlock <= 0 || st.MessagesSent != 22 || st.MessagesReceived != 22 || st.RowsShipped != 20*int64(count) ||
		st.BytesSent != 20*int64(len(rows)) || st.BytesReceived != st.BytesSent {
		t.Fatalf("counters %+v", st)
	}
	if st := h.Stats(false); st != (ExchangeStats{}) {
		t.Fatalf("counters after clearing: %+v", st)
	}
	<-d.recvDone
}

// TestExchangeBrokenStream: a stream that breaks before its end fails the
// receiving stage with a retryable error, and a late stream for a stage
// that ended fails at once; nothing is left running.
func TestExchangeBrokenStream(t *testing.T) {
	defer goleak.VerifyNone(t, glogDaemon)
	h := newHub()
	key := inboxKey{stage: "q2", exchange: 3}
	ib, err := h.register(key, 2)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var took int
	ib.attach(func(_ []byte, count int) error {
		mu.Lock()
		took += count
		mu.Unlock()
		return nil
	})
	p := newMemPipe(8)
	errc := serveAsync(h, p)
	s := memSender{p}
	rows, count := rowsOf(10)
	for _, m := range []*memberpb.ExchangeMessage{{QueryId: []byte("q2"), ExchangeId: 3}, {Rows: rows, Count: int32(count)}} {
		if err := s.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := took
		mu.Unlock()
		if n == count {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver took %d rows", n)
		}
	}
	p.cancel() // the sending member went away
	if err := <-errc; err == nil {
		t.Fatal("the handler of a broken stream returned no error")
	}
	if err := ib.wait(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("stage error %v, want ErrUnavailable (retryable)", err)
	}
	h.endStage("q2", []int32{3})
	late := newMemPipe(8)
	defer late.cancel()
	lerrc := serveAsync(h, late)
	if err := (memSender{late}).Send(&memberpb.ExchangeMessage{QueryId: []byte("q2"), ExchangeId: 3}); err != nil {
		t.Fatal(err)
	}
	if err := <-lerrc; !errors.Is(err, ErrExchange) {
		t.Fatalf("a stream for an ended stage: %v, want ErrExchange", err)
	}
}

// TestExchangeSenderDeclaredRows: a receiver checks the rows a sender
// declares at its end against those it received.
func TestExchangeSenderDeclaredRows(t *testing.T) {
	defer goleak.VerifyNone(t, glogDaemon)
	h := newHub()
	ib, err := h.register(inboxKey{stage: "q3", exchange: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ib.attach(func([]byte, int) error { return nil })
	p := newMemPipe(8)
	defer p.cancel()
	errc := serveAsync(h, p)
	s := memSender{p}
	rows, count := rowsOf(3)
	for _, m := range []*memberpb.ExchangeMessage{{QueryId: []byte("q3"), ExchangeId: 1}, {Rows: rows, Count: int32(count)}, {End: true, TotalRows: 4}} {
		if err := s.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-errc; !errors.Is(err, ErrExchange) {
		t.Fatalf("handler: %v, want ErrExchange", err)
	}
	if err := ib.wait(context.Background()); !errors.Is(err, ErrExchange) {
		t.Fatalf("stage: %v, want ErrExchange", err)
	}
}

// TestMemoryAccount: reservations past the limit fail with a typed error
// and reserve nothing.
func TestMemoryAccount(t *testing.T) {
	a := NewMemoryAccount(1000)
	if err := a.Reserve("join hash table", 600); err != nil {
		t.Fatal(err)
	}
	err := a.Reserve("exchange buffer", 500)
	var me *MemoryLimitError
	if !errors.As(err, &me) || !errors.Is(err, ErrMemoryLimit) || me.What != "exchange buffer" || me.Used != 600 || me.Limit != 1000 {
		t.Fatalf("over the limit: %v", err)
	}
	if a.Used() != 600 {
		t.Fatalf("a failed reservation kept %d bytes", a.Used()-600)
	}
	a.Release(600)
	if err := a.Reserve("join hash table", 1000); err != nil || a.Peak() != 1000 {
		t.Fatalf("after release: %v, peak %d", err, a.Peak())
	}
}

// TestPartitionHashOfMapKeys: a join key routes by the partition hash its
// value has as a map key of hashType (as the store placed the entries),
// and a key no map key of that type can equal stays.
func TestPartitionHashOfMapKeys(t *testing.T) {
	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		hashType expr.Type
		key      expr.Value
		data     any // the map key with the same value; nil: no partition
	}{
		{expr.BigInt, expr.BigIntValue(150000), int64(150000)},
		{expr.BigInt, expr.BigIntValue(-7), int64(-7)},
		{expr.BigInt, expr.Value{T: expr.Integer, I: 42}, int64(42)},
		{expr.BigInt, expr.DoubleValue(3), int64(3)},
		{expr.BigInt, expr.DoubleValue(3.5), nil},
		{expr.Integer, expr.BigIntValue(1 << 20), int32(1 << 20)},
		{expr.Integer, expr.BigIntValue(1 << 40), nil},
		{expr.SmallInt, expr.BigIntValue(-300), int16(-300)},
		{expr.TinyInt, expr.BigIntValue(9), int8(9)},
		{expr.Varchar, expr.StringValue("Customer#000000001"), "Customer#000000001"},
		{expr.BigInt, expr.NullValue, nil},
	}
	var buf []byte
	for _, c := range cases {
		h, ok := partitionHash([]expr.Value{c.key}, c.hashType, &buf)
		if c.data == nil {
			if ok {
				t.Errorf("%v as %v: hash %d, want none", c.key, c.hashType, h)
			}
			continue
		}
		d, err := ser.ToData(c.data)
		if err != nil {
			t.Fatal(err)
		}
		if want := d.PartitionHash(); !ok || h != want {
			t.Errorf("%v as %v: hash %d (%v), want %d", c.key, c.hashType, h, ok, want)
		}
	}
}

// TestPartitionDivisor: the router's division-free mapping of hashes to
// partitions agrees with serialization.PartitionID.
func TestPartitionDivisor(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 271))
	hashes := []int32{0, 1, -1, 270, 271, -271, math.MaxInt32, math.MinInt32, math.MinInt32 + 1}
	for range 5000 {
		hashes = append(hashes, int32(r.Uint32()))
	}
	for _, count := range []int32{1, 2, 7, 271, 1000, 65537, math.MaxInt32} {
		d := newPartitionDivisor(count)
		for _, h := range hashes {
			if got, want := d.of(h), serialization.PartitionID(h, count); got != want {
				t.Fatalf("hash %d of %d partitions: %d, want %d", h, count, got, want)
			}
		}
	}
}
