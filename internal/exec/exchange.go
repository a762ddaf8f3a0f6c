package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// The exchange moves a join input's rows between the members that run a
// query, on the members' own gRPC connections (ExchangeService.Exchange,
// one stream per exchange, sender and receiver):
//
//	sender (every member)                         receiver (every member)
//	scan workers ─▶ router: per worker and        stream handler per sender
//	  destination a buffer of encoded rows;         ─▶ build: the hash table's rows
//	  at batch-bytes it sends one message,          ─▶ probe: rows gathered into vectors
//	  waiting while the destination holds             of vector-size rows (one lock),
//	  in-flight-bytes unacknowledged                  queued to the join's workers
//	  (write-block)                                  credits back as rows are taken
//
// A member's own rows never leave it: they go to its build table, or are
// probed where they were scanned. Counters (messages, bytes, rows
// shipped, microseconds blocked writing, microseconds waiting for the
// locks and queues that hand rows to the join) are kept per member.

// ExchangeSettings are a member's defaults for its queries' exchanges;
// hints override them per query.
type ExchangeSettings struct {
	// BatchBytes is the most a sender buffers per destination before
	// sending (default 64 KiB).
	BatchBytes int64
	// VectorSize is the rows a receiver gathers before handing them to the
	// join (default 10 000).
	VectorSize int64
	// InFlightBytes is the most a sender has sent to one receiver that the
	// receiver has not taken yet (default 4 MiB, at least BatchBytes).
	InFlightBytes int64
}

func (s ExchangeSettings) withDefaults() ExchangeSettings {
	if s.BatchBytes <= 0 {
		s.BatchBytes = 64 << 10
	}
	if s.VectorSize <= 0 {
		s.VectorSize = 10000
	}
	if s.InFlightBytes <= 0 {
		s.InFlightBytes = 4 << 20
	}
	s.InFlightBytes = max(s.InFlightBytes, s.BatchBytes)
	return s
}

// ExchangeStats are a member's exchange counters.
type ExchangeStats struct {
	MessagesSent, MessagesReceived int64
	BytesSent, BytesReceived       int64
	RowsShipped                    int64
	WriteBlock, SchedulingWait     time.Duration
}

// ExchangeSender is the sending side of one exchange stream to a member.
type ExchangeSender interface {
	Send(*memberpb.ExchangeMessage) error
	Recv() (*memberpb.ExchangeCredit, error)
	CloseSend() error
}

// ExchangeReceiver is the receiving side of one exchange stream.
type ExchangeReceiver interface {
	Recv() (*memberpb.ExchangeMessage, error)
	Send(*memberpb.ExchangeCredit) error
	Context() context.Context
}

type exchangeCounters struct {
	messagesSent, messagesReceived atomic.Int64
	bytesSent, bytesReceived       atomic.Int64
	rowsShipped                    atomic.Int64
	writeBlockNs, schedWaitNs      atomic.Int64
}

// ErrExchange reports a broken exchange stream between members (a member
// that went, a query that ended on the other side).
var ErrExchange = errors.New("exec: exchange failed")

// hub is a member's side of the exchanges: the inboxes of the query
// stages running here, which other members' streams feed.
type hub struct {
	mu      sync.Mutex
	inboxes map[inboxKey]*inbox
	ended   map[string]time.Time // stages that finished, so late streams fail at once
	swept   time.Time            // when ended was last swept
	// stats only grow (Prometheus reads them); base is what they were when
	// they were last cleared through SQL.
	stats  exchangeCounters
	baseMu sync.Mutex
	base   ExchangeStats
}

type inboxKey struct {
	stage    string
	exchange int32
}

// registerTimeout bounds how long a stream waits for its stage to start
// on this member (the stage's fragment request may arrive after the first
// rows other members send).
const registerTimeout = time.Minute

// endedMemory is how long a finished stage is remembered.
const endedMemory = 5 * time.Minute

func newHub() *hub {
	return &hub{inboxes: map[inboxKey]*inbox{}, ended: map[string]time.Time{}}
}

// inbox receives one exchange's rows from the other members.
type inbox struct {
	key        inboxKey
	senders    int           // remote senders
	registered chan struct{} // the stage runs here
	ready      chan struct{} // the consumer is attached
	done       chan struct{} // the stage is finished with it
	consume    func(rows []byte, count int) error
	mu         sync.Mutex
	ends       int
	endsCh     chan struct{} // closed when every sender ended
	err        error
	failed     chan struct{}
	regOnce    sync.Once
	readyOnce  sync.Once
	doneOnce   sync.Once
	failOnce   sync.Once
}

func (h *hub) inbox(key inboxKey) (*inbox, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, gone := h.ended[key.stage]; gone {
		return nil, fmt.Errorf("%w: the query stage %x has ended on this member", ErrExchange, key.stage)
	}
	ib := h.inboxes[key]
	if ib == nil {
		ib = &inbox{key: key, senders: -1, registered: make(chan struct{}), ready: make(chan struct{}), done: make(chan struct{}),
			endsCh: make(chan struct{}), failed: make(chan struct{})}
		h.inboxes[key] = ib
	}
	return ib, nil
}

// register creates (or finds) the stage's inbox for an exchange with
// senders remote senders.
func (h *hub) register(key inboxKey, senders int) (*inbox, error) {
	ib, err := h.inbox(key)
	if err != nil {
		return nil, err
	}
	ib.mu.Lock()
	ib.senders = senders
	if senders == 0 {
		close(ib.endsCh)
	}
	ib.mu.Unlock()
	ib.regOnce.Do(func() { close(ib.registered) })
	return ib, nil
}

// endStage forgets a stage's inboxes and fails the streams still feeding
// them.
func (h *hub) endStage(stage string, ids []int32) {
	now := time.Now()
	h.mu.Lock()
	if now.Sub(h.swept) > time.Second {
		h.swept = now
		for s, at := range h.ended {
			if now.Sub(at) > endedMemory {
				delete(h.ended, s)
			}
		}
	}
	h.ended[stage] = now
	var ibs []*inbox
	for _, id := range ids {
		k := inboxKey{stage: stage, exchange: id}
		if ib := h.inboxes[k]; ib != nil {
			ibs = append(ibs, ib)
			delete(h.inboxes, k)
		}
	}
	h.mu.Unlock()
	for _, ib := range ibs {
		ib.doneOnce.Do(func() { close(ib.done) })
	}
}

// attach sets the inbox's consumer; streams deliver to it from then on.
func (ib *inbox) attach(consume func(rows []byte, count int) error) {
	ib.consume = consume
	ib.readyOnce.Do(func() { close(ib.ready) })
}

func (ib *inbox) fail(err error) {
	ib.failOnce.Do(func() {
		ib.mu.Lock()
		ib.err = err
		ib.mu.Unlock()
		close(ib.failed)
	})
}

// wait returns once every sender ended, or the first error.
func (ib *inbox) wait(ctx context.Context) error {
	select {
	case <-ib.endsCh:
		select {
		case <-ib.failed:
			return ib.err
		default:
			return nil
		}
	case <-ib.failed:
		return ib.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// serve receives one stream of an exchange from another member.
func (h *hub) serve(stream ExchangeReceiver) error {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	if len(first.QueryId) == 0 {
		return plan.Errorf("exchange stream without a query")
	}
	ib, err := h.inbox(inboxKey{stage: string(first.QueryId), exchange: first.ExchangeId})
	if err != nil {
		return err
	}
	timer := time.NewTimer(registerTimeout)
	defer timer.Stop()
	select {
	case <-ib.registered:
	case <-timer.C:
		err := fmt.Errorf("%w: no query stage %x started here within %s", ErrExchange, first.QueryId, registerTimeout)
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-ib.done:
		return fmt.Errorf("%w: the query stage has ended on this member", ErrExchange)
	}
	select {
	case <-ib.ready:
	case <-ctx.Done():
		return ctx.Err()
	case <-ib.done:
		return fmt.Errorf("%w: the query stage has ended on this member", ErrExchange)
	case <-ib.failed:
		return ib.err
	}
	var rows int64
	msg := first
	for {
		h.stats.messagesReceived.Add(1)
		h.stats.bytesReceived.Add(int64(len(msg.Rows)))
		if msg.Count > 0 {
			if err := ib.consume(msg.Rows, int(msg.Count)); err != nil {
				ib.fail(err)
				return err
			}
			rows += int64(msg.Count)
			if err := stream.Send(&memberpb.ExchangeCredit{Bytes: int64(len(msg.Rows))}); err != nil {
				ib.fail(fmt.Errorf("%w: %v", ErrUnavailable, err))
				return err
			}
		}
		if msg.End {
			if msg.TotalRows != rows {
				err := fmt.Errorf("%w: a sender declared %d rows and sent %d", ErrExchange, msg.TotalRows, rows)
				ib.fail(err)
				return err
			}
			ib.mu.Lock()
			ib.ends++
			if ib.ends == ib.senders {
				close(ib.endsCh)
			}
			ib.mu.Unlock()
			return nil
		}
		if msg, err = stream.Recv(); err != nil {
			select {
			case <-ib.done: // the stage ended first: nothing is lost
			default:
				ib.fail(fmt.Errorf("%w: an exchange stream from another member broke: %v", ErrUnavailable, err))
			}
			return err
		}
	}
}

// Totals returns the member's exchange counters since it started.
func (h *hub) Totals() ExchangeStats {
	c := &h.stats
	return ExchangeStats{
		MessagesSent: c.messagesSent.Load(), MessagesReceived: c.messagesReceived.Load(),
		BytesSent: c.bytesSent.Load(), BytesReceived: c.bytesReceived.Load(), RowsShipped: c.rowsShipped.Load(),
		WriteBlock: time.Duration(c.writeBlockNs.Load()), SchedulingWait: time.Duration(c.schedWaitNs.Load()),
	}
}

// Stats returns the member's exchange counters since they were last
// cleared; with clear they restart from zero (for this view only: the
// totals Prometheus reads keep growing).
func (h *hub) Stats(clear bool) ExchangeStats {
	h.baseMu.Lock()
	defer h.baseMu.Unlock()
	now := h.Totals()
	b := h.base
	if clear {
		h.base = now
	}
	return ExchangeStats{
		MessagesSent: now.MessagesSent - b.MessagesSent, MessagesReceived: now.MessagesReceived - b.MessagesReceived,
		BytesSent: now.BytesSent - b.BytesSent, BytesReceived: now.BytesReceived - b.BytesReceived,
		RowsShipped: now.RowsShipped - b.RowsShipped, WriteBlock: now.WriteBlock - b.WriteBlock,
		SchedulingWait: now.SchedulingWait - b.SchedulingWait,
	}
}

// lockTimed takes mu, adding the time it waited to the scheduling wait.
func (h *hub) lockTimed(mu *sync.Mutex) {
	if mu.TryLock() {
		return
	}
	start := time.Now()
	mu.Lock()
	h.stats.schedWaitNs.Add(int64(time.Since(start)))
}

// ---- Sending ---------------------------------------------------------------------------

// destination is one member a router sends to.
type destination struct {
	h      *hub
	stream ExchangeSender
	window int64
	// mem is the query's account, which holds the bytes sent and not yet
	// taken by the receiver (held): the messages in gRPC's buffers on both
	// sides. nil: not accounted.
	mem  *MemoryAccount
	held atomic.Int64

	mu          sync.Mutex // one send at a time
	credit      sync.Mutex // guards outstanding, err
	cond        *sync.Cond
	outstanding int64
	err         error
	rows        int64
	recvDone    chan struct{}
}

func newDestination(h *hub, stream ExchangeSender, window int64, mem *MemoryAccount) *destination {
	d := &destination{h: h, stream: stream, window: window, mem: mem, recvDone: make(chan struct{})}
	d.cond = sync.NewCond(&d.credit)
	return d
}

// readCredits runs while the stream lives: each credit lets more rows go.
func (d *destination) readCredits() {
	defer close(d.recvDone)
	for {
		c, err := d.stream.Recv()
		d.credit.Lock()
		if err != nil {
			if err != io.EOF && d.err == nil {
				d.err = fmt.Errorf("%w: %v", ErrUnavailable, err)
			}
			if d.err == nil {
				d.err = io.EOF
			}
			d.cond.Broadcast()
			d.credit.Unlock()
			return
		}
		d.outstanding -= c.Bytes
		d.cond.Broadcast()
		d.credit.Unlock()
		d.release(c.Bytes)
	}
}

// release gives back up to n of the bytes held for messages in flight.
func (d *destination) release(n int64) {
	for {
		h := d.held.Load()
		r := min(h, n)
		if r <= 0 {
			return
		}
		if d.held.CompareAndSwap(h, h-r) {
			d.mem.Release(r)
			return
		}
	}
}

// send sends one message of rows, waiting for credit first.
func (d *destination) send(ctx context.Context, msg *memberpb.ExchangeMessage) error {
	d.h.lockTimed(&d.mu)
	defer d.mu.Unlock()
	n := int64(len(msg.Rows))
	start := time.Time{}
	d.credit.Lock()
	for d.err == nil && d.outstanding > 0 && d.outstanding+n > d.window {
		if start.IsZero() {
			start = time.Now()
		}
		if ctx.Err() != nil {
			break
		}
		d.cond.Wait()
	}
	err := d.err
	if err == nil && d.mem != nil && n > 0 {
		if err = d.mem.Reserve("exchange messages in flight", n); err == nil {
			d.held.Add(n)
		}
	}
	if err == nil {
		d.outstanding += n
	}
	d.credit.Unlock()
	if err == io.EOF {
		err = fmt.Errorf("%w: the receiver closed its exchange stream", ErrExchange)
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if start.IsZero() {
		start = time.Now()
	}
	err = d.stream.Send(msg)
	d.h.stats.writeBlockNs.Add(int64(time.Since(start)))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	d.h.stats.messagesSent.Add(1)
	d.h.stats.bytesSent.Add(n)
	d.h.stats.rowsShipped.Add(int64(msg.Count))
	d.rows += int64(msg.Count)
	return nil
}

// wakeOnCancel wakes the senders waiting for credit when ctx ends.
func (d *destination) wakeOnCancel(ctx context.Context) func() bool {
	return context.AfterFunc(ctx, func() {
		d.credit.Lock()
		d.cond.Broadcast()
		d.credit.Unlock()
	})
}

// router sends an input's rows through one exchange: rows whose partition
// this member owns (and every row, for a broadcast) go to local, the
// others to their owners' streams. Rows come one at a time from a scan
// (row, under the store's lock: buffered only) or in batches (add); the
// buffers go out between partitions (flush), in messages of at most
// batch-bytes.
type router struct {
	s      *stage
	x      *plan.Exchange
	width  int
	keyFns []expr.Fn
	keyCol []int
	local  consumer
	dests  []*destination // by member index; nil for this member
	ws     []*routeWorker // by worker
	stops  []func() bool
	batch  int64
	parts  partitionDivisor
}

// routeWorker is one worker's buffers and scratch space.
type routeWorker struct {
	bufs []routeBuf // by member index
	row  []expr.Value
	keys []expr.Value
	hbuf []byte
	env  expr.Env
}

type routeBuf struct {
	rows  []byte
	count int
	res   int64 // bytes reserved
	// cuts are the ends of the messages to send: a cut after the row that
	// took a message past batch-bytes, with the rows before it.
	cuts []routeCut
}

type routeCut struct{ end, count int }

func (s *stage) newRouter(x *plan.Exchange, width int, local consumer) (*router, error) {
	r := &router{s: s, x: x, width: width, local: local, batch: s.settings.BatchBytes, parts: newPartitionDivisor(int32(len(s.owners)))}
	var err error
	if r.keyFns, r.keyCol, err = compileKeys(x.Keys); err != nil {
		return nil, err
	}
	r.dests = make([]*destination, len(s.members))
	r.ws = make([]*routeWorker, s.workers)
	for i, m := range s.members {
		if i == s.self {
			continue
		}
		stream, err := s.e.cfg.Remote.OpenExchange(s.ctx, m)
		if err != nil {
			r.abort()
			return nil, remoteError(s.ctx, m, err)
		}
		d := newDestination(s.e.hub, stream, s.settings.InFlightBytes, s.mem)
		r.dests[i] = d
		r.stops = append(r.stops, d.wakeOnCancel(s.ctx))
		s.e.goRun(d.readCredits)
		if err := d.send(s.ctx, &memberpb.ExchangeMessage{QueryId: s.id, ExchangeId: x.ID, Sender: int32(s.self)}); err != nil {
			r.abort()
			return nil, err
		}
	}
	return r, nil
}

func (r *router) worker(w int) *routeWorker {
	rw := r.ws[w]
	if rw == nil {
		rw = &routeWorker{bufs: make([]routeBuf, len(r.dests)), row: make([]expr.Value, r.width), keys: make([]expr.Value, len(r.keyFns))}
		rw.env.Params = r.s.params
		r.ws[w] = rw
	}
	return rw
}

// add routes a batch of rows (worker is the caller's index).
func (r *router) add(worker int, b *Batch) error {
	rw := r.worker(worker)
	rows := b.Rows
	for n := 0; n < b.Count; n++ {
		rest := rows
		for c := range rw.row {
			var err error
			if rest, err = decodeInto(rest, &rw.row[c]); err != nil {
				return err
			}
		}
		enc := rows[:len(rows)-len(rest)]
		rows = rest
		if err := r.route(worker, rw, rw.row, enc); err != nil {
			return err
		}
	}
	return r.flush(worker)
}

// row routes one row of a scan (rowSink).
func (r *router) row(worker int, row []expr.Value) error {
	return r.route(worker, r.worker(worker), row, nil)
}

// route buffers a row for its destination (enc: its encoding, when known).
func (r *router) route(worker int, rw *routeWorker, row []expr.Value, enc []byte) error {
	if r.x.Broadcast {
		for d := range r.dests {
			if err := r.append(worker, rw, d, row, enc); err != nil {
				return err
			}
		}
		return nil
	}
	keys := rw.keys
	if len(keys) == 1 && r.keyCol[0] >= 0 {
		keys = row[r.keyCol[0] : r.keyCol[0]+1] // one key column, the commonest: no copy
	} else {
		for k := range keys {
			if c := r.keyCol[k]; c >= 0 {
				keys[k] = row[c]
			} else {
				keys[k] = r.keyFns[k](&expr.Row{Cols: row, Env: &rw.env})
			}
		}
		if rw.env.Err != nil {
			return rw.env.Err
		}
	}
	dest := r.s.self // a NULL key matches nothing: its row stays
	if h, ok := partitionHash(keys, r.x.HashType, &rw.hbuf); ok {
		dest = int(r.s.owners[r.parts.of(h)])
	}
	if dest == r.s.self && r.local.rows != nil {
		return r.local.rows.row(worker, row)
	}
	return r.append(worker, rw, dest, row, enc)
}

func (r *router) append(worker int, rw *routeWorker, d int, row []expr.Value, enc []byte) error {
	if d == r.s.self && r.local.rows != nil {
		return r.local.rows.row(worker, row)
	}
	rb := &rw.bufs[d]
	before := len(rb.rows)
	if enc != nil {
		rb.rows = append(rb.rows, enc...)
	} else {
		rb.rows = EncodeRow(rb.rows, row)
	}
	if grow := int64(cap(rb.rows)) - rb.res; grow > 0 {
		if err := r.s.mem.Reserve("exchange buffer", grow); err != nil {
			rb.rows = rb.rows[:before]
			return err
		}
		rb.res += grow
	}
	rb.count++
	limit := r.batch
	if d == r.s.self {
		limit = flushBytes
	}
	last := 0
	if n := len(rb.cuts); n > 0 {
		last = rb.cuts[n-1].end
	}
	if int64(len(rb.rows)-last) >= limit {
		rb.cuts = append(rb.cuts, routeCut{end: len(rb.rows), count: rb.count})
	}
	return nil
}

// flush sends a worker's full messages and hands its full local batches
// on (between partitions: it may block).
func (r *router) flush(worker int) error {
	rw := r.ws[worker]
	if rw != nil {
		for d := range rw.bufs {
			if err := r.send(worker, &rw.bufs[d], d, false); err != nil {
				return err
			}
		}
	}
	if r.local.rows != nil {
		return r.local.rows.flush(worker)
	}
	return nil
}

// send sends a buffer's complete messages (all its rows with last).
func (r *router) send(worker int, rb *routeBuf, d int, last bool) error {
	if last && rb.count > 0 {
		rb.cuts = append(rb.cuts, routeCut{end: len(rb.rows), count: rb.count})
	}
	if len(rb.cuts) == 0 {
		return nil
	}
	start, sent := 0, 0
	for _, c := range rb.cuts {
		rows, count := rb.rows[start:c.end], c.count-sent
		var err error
		if d == r.s.self {
			// The local consumer may keep the rows (a build table).
			err = r.local.batch(worker, &Batch{Rows: bytes.Clone(rows), Count: count})
		} else {
			err = r.dests[d].send(r.s.ctx, &memberpb.ExchangeMessage{Rows: rows, Count: int32(count)})
		}
		if err != nil {
			return err
		}
		start, sent = c.end, c.count
	}
	// gRPC has copied the messages: the rest moves to the front.
	n := copy(rb.rows, rb.rows[start:])
	rb.rows, rb.count, rb.cuts = rb.rows[:n], rb.count-sent, rb.cuts[:0]
	return nil
}

// finish flushes every buffer and ends every stream.
func (r *router) finish() error {
	for w, rw := range r.ws {
		if rw == nil {
			continue
		}
		for d := range rw.bufs {
			if err := r.send(w, &rw.bufs[d], d, true); err != nil {
				r.abort()
				return err
			}
		}
		if r.local.rows != nil {
			if err := r.local.rows.flush(w); err != nil {
				r.abort()
				return err
			}
		}
	}
	for _, d := range r.dests {
		if d == nil {
			continue
		}
		if err := d.send(r.s.ctx, &memberpb.ExchangeMessage{End: true, TotalRows: d.rows}); err != nil {
			r.abort()
			return err
		}
		if err := d.stream.CloseSend(); err != nil {
			r.abort()
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	for _, d := range r.dests {
		if d == nil {
			continue
		}
		select {
		case <-d.recvDone:
		case <-r.s.ctx.Done():
			r.abort()
			return r.s.ctx.Err()
		}
		d.credit.Lock()
		err := d.err
		d.credit.Unlock()
		if err != nil && err != io.EOF {
			r.abort()
			return err
		}
	}
	r.release()
	return nil
}

// abort gives the router's buffers back; the stage's context, cancelled
// when the stage ends, closes the streams.
func (r *router) abort() { r.release() }

func (r *router) release() {
	for _, stop := range r.stops {
		stop()
	}
	r.stops = nil
	for _, d := range r.dests {
		if d != nil {
			d.release(math.MaxInt64)
		}
	}
	for _, rw := range r.ws {
		if rw == nil {
			continue
		}
		for d := range rw.bufs {
			r.s.mem.Release(rw.bufs[d].res)
			rw.bufs[d] = routeBuf{}
		}
	}
}

// partitionHash returns the partition hash of a row's key values: that of
// the first key serialized as hashType (a map key's type), or of a hash of
// the values (hashType Unknown). ok is false for a NULL key, or a value
// that no key of hashType can equal.
func partitionHash(keys []expr.Value, hashType expr.Type, buf *[]byte) (int32, bool) {
	if hashType == expr.Unknown {
		var ok bool
		if *buf, ok = hashKeys((*buf)[:0], keys); !ok {
			return 0, false
		}
		return serialization.PayloadHash(*buf), true
	}
	v := &keys[0]
	if v.IsNull() {
		return 0, false
	}
	b := (*buf)[:0]
	switch hashType {
	case expr.BigInt, expr.Integer, expr.SmallInt, expr.TinyInt:
		i, ok := integral(v)
		if !ok {
			return 0, false
		}
		switch hashType {
		case expr.BigInt:
			return serialization.LongPayloadHash(i), true
		case expr.Integer:
			if int64(int32(i)) != i {
				return 0, false
			}
			return serialization.IntPayloadHash(int32(i)), true
		case expr.SmallInt:
			if int64(int16(i)) != i {
				return 0, false
			}
			b = append(b, byte(i>>8), byte(i))
		default:
			if int64(int8(i)) != i {
				return 0, false
			}
			b = append(b, byte(i))
		}
	case expr.Varchar:
		if v.T != expr.Varchar {
			return 0, false
		}
		// Hazelcast's String payload: length, then UTF-8.
		n := len(v.B)
		b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		b = append(b, v.B...)
	default:
		// Other key types place their rows by a hash of the value: the
		// planner moves both inputs for them.
		var ok bool
		if b, ok = hashKeys(b, keys[:1]); !ok {
			return 0, false
		}
	}
	*buf = b
	return serialization.PayloadHash(b), true
}

// partitionDivisor maps partition hashes to partitions as
// serialization.PartitionID does, with a multiplication in place of the
// division (Lemire's "faster remainder by direct computation"): routing
// does it once per row.
type partitionDivisor struct {
	count uint64
	m     uint64 // 2^64 / count, rounded up
}

func newPartitionDivisor(count int32) partitionDivisor {
	return partitionDivisor{count: uint64(count), m: ^uint64(0)/uint64(count) + 1}
}

// of returns the partition of a partition hash.
func (d partitionDivisor) of(hash int32) int32 {
	if hash == math.MinInt32 {
		return 0 // Java's abs leaves it negative; Hazelcast maps it to 0
	}
	if hash < 0 {
		hash = -hash
	}
	rem, _ := bits.Mul64(d.m*uint64(hash), d.count)
	return int32(rem)
}

// integral returns an integer or whole floating value as an int64.
func integral(v *expr.Value) (int64, bool) {
	switch {
	case v.T.IsInteger():
		return v.I, true
	case v.T.IsFloat() && v.F == float64(int64(v.F)):
		return int64(v.F), true
	}
	return 0, false
}

// exchangeStats reads every member's exchange counters, one row per
// member (plan.ExchangeStatsColumns), this member's directly.
func (e *Engine) exchangeStats(ctx context.Context, clear bool) ([][]expr.Value, error) {
	t := e.cfg.Table.Load()
	if t == nil {
		return nil, fmt.Errorf("%w: no partition table", ErrUnavailable)
	}
	var rows [][]expr.Value
	for _, m := range t.Members {
		var st ExchangeStats
		if m.UUID == e.cfg.Self || e.cfg.Remote == nil {
			st = e.hub.Stats(clear)
		} else {
			var err error
			if st, err = e.cfg.Remote.ExchangeStats(ctx, m, clear); err != nil {
				return nil, err
			}
		}
		addr := m.Address
		if addr == "" {
			addr = "local"
		}
		rows = append(rows, []expr.Value{expr.StringValue(addr),
			expr.BigIntValue(st.MessagesSent), expr.BigIntValue(st.MessagesReceived),
			expr.BigIntValue(st.BytesSent), expr.BigIntValue(st.BytesReceived), expr.BigIntValue(st.RowsShipped),
			expr.BigIntValue(st.WriteBlock.Microseconds()), expr.BigIntValue(st.SchedulingWait.Microseconds())})
	}
	return rows, nil
}
