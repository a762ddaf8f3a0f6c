package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// EventType says what happened to an entry.
type EventType int

// Entry event types. EventCleared covers clear and evict-all of a whole
// partition (Key is the zero value). EventLost reports that the member
// dropped events because the listener fell behind, or that the connection
// to a member broke and was re-established: Lost events are unknown.
const (
	EventAdded EventType = iota + 1
	EventUpdated
	EventRemoved
	EventEvicted
	EventExpired
	EventCleared
	EventLost
)

func (t EventType) String() string {
	switch t {
	case EventAdded:
		return "ADDED"
	case EventUpdated:
		return "UPDATED"
	case EventRemoved:
		return "REMOVED"
	case EventEvicted:
		return "EVICTED"
	case EventExpired:
		return "EXPIRED"
	case EventCleared:
		return "CLEARED"
	case EventLost:
		return "LOST"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// EntryEvent is a change to a map entry.
type EntryEvent[K, V any] struct {
	Type EventType
	Key  K
	// Value and OldValue are set when the listener includes values: the new
	// value of ADDED and UPDATED, the old value of UPDATED, REMOVED,
	// EVICTED and EXPIRED.
	Value, OldValue       V
	HasValue, HasOldValue bool
	Partition             int32
	// Member is the address of the member that reported the event.
	Member string
	// Lost counts the events of an EventLost that are known to be missing
	// (0 when unknown, after a reconnection).
	Lost int64
}

// ListenerConfig selects the events a listener receives.
type ListenerConfig[K any] struct {
	// Key, when set, limits events to that key.
	Key *K
	// IncludeValues delivers values with events (more bytes on the wire).
	IncludeValues bool
	// Types limits events to these types; all when empty. EventLost is
	// always delivered.
	Types []EventType
}

// Subscription is a registered listener. Close it to stop the events.
type Subscription struct {
	sub *subscription
}

// Close removes the listener and waits until no handler call is running.
func (s *Subscription) Close() error {
	s.sub.close()
	return nil
}

// AddEntryListener registers handler for the map's entry events. It returns
// once every member has confirmed the registration: events of writes made
// afterwards are delivered. handler is called on the client's goroutines,
// events of one member in order; it must not block for long.
func (m *Map[K, V]) AddEntryListener(ctx context.Context, cfg ListenerConfig[K], handler func(EntryEvent[K, V])) (*Subscription, error) {
	req := &pb.ListenRequest{Map: m.name, IncludeValues: cfg.IncludeValues}
	if cfg.Key != nil {
		kd, err := m.c.ser.ToData(*cfg.Key)
		if err != nil {
			return nil, fmt.Errorf("%w: listener key: %w", ErrInvalidArgument, err)
		}
		req.Key = kd
	}
	for _, t := range cfg.Types {
		if t < EventAdded || t > EventCleared {
			return nil, fmt.Errorf("%w: listener event type %v", ErrInvalidArgument, t)
		}
		req.Types = append(req.Types, pb.EntryEventType(t))
	}
	var handlerMu sync.Mutex // events reach the handler one at a time
	sub, err := m.subscribe(ctx, req, func(member string, b *pb.EntryEventBatch) {
		if b.Dropped > 0 {
			handlerMu.Lock()
			handler(EntryEvent[K, V]{Type: EventLost, Member: member, Lost: b.Dropped})
			handlerMu.Unlock()
		}
		for _, e := range b.Events {
			ev := EntryEvent[K, V]{Type: EventType(e.Type), Partition: e.PartitionId, Member: member}
			dctx := context.Background()
			var err error
			if len(e.Key) > 0 {
				if ev.Key, err = m.decodeKey(dctx, nil, e.Key); err != nil {
					m.c.log.Warn("dropping an entry event with an undecodable key", "map", m.name, "err", err)
					continue
				}
			}
			if len(e.Value) > 0 {
				if ev.Value, err = m.decode(dctx, nil, e.Value); err == nil {
					ev.HasValue = true
				}
			}
			if len(e.OldValue) > 0 {
				if ev.OldValue, err = m.decode(dctx, nil, e.OldValue); err == nil {
					ev.HasOldValue = true
				}
			}
			handlerMu.Lock()
			handler(ev)
			handlerMu.Unlock()
		}
	}, func(member string) {
		handlerMu.Lock()
		handler(EntryEvent[K, V]{Type: EventLost, Member: member})
		handlerMu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	return &Subscription{sub: sub}, nil
}

// subscription keeps a Listen stream open on every member and re-opens
// streams that break.
type subscription struct {
	c       *Client
	req     *pb.ListenRequest
	onBatch func(member string, b *pb.EntryEventBatch)
	onGap   func(member string) // events from member may have been missed

	ctx       context.Context
	cancel    context.CancelFunc
	mu        sync.Mutex
	active    map[string]bool // members with a stream, confirmed or being opened
	confirmed map[string]bool // members whose stream the member confirmed
	wg        sync.WaitGroup
}

func (c *Client) subscribe(ctx context.Context, req *pb.ListenRequest, onBatch func(string, *pb.EntryEventBatch), onGap func(string)) (*subscription, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &subscription{c: c, req: req, onBatch: onBatch, onGap: onGap, ctx: sctx, cancel: cancel, active: map[string]bool{}, confirmed: map[string]bool{}}
	members := c.memberAddresses(ctx)
	var errs []error
	for _, addr := range members {
		if err := s.start(ctx, addr); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		s.close()
		return nil, errors.Join(errs...)
	}
	s.wg.Add(1)
	go s.follow()
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		select {
		case <-c.stop:
			s.close()
		case <-sctx.Done():
		}
	}()
	return s, nil
}

// memberAddresses returns the members of the partition table, or the
// address of some reachable member.
func (c *Client) memberAddresses(ctx context.Context) []string {
	if rt := c.routing.Load(); rt != nil && len(rt.members) > 0 {
		return rt.members
	}
	if cn, err := c.anyConn(ctx); err == nil {
		return []string{cn.addr}
	}
	return nil
}

// start opens the stream to addr and waits (bounded by ctx) for the
// member's confirmation before handing the stream to a reader goroutine.
func (s *subscription) start(ctx context.Context, addr string) error {
	s.mu.Lock()
	if s.active[addr] {
		s.mu.Unlock()
		return nil
	}
	s.active[addr] = true
	s.mu.Unlock()
	stream, err := s.open(ctx, addr)
	if err != nil {
		s.mu.Lock()
		delete(s.active, addr)
		s.mu.Unlock()
		return err
	}
	s.setConfirmed(addr, true)
	s.wg.Add(1)
	go s.read(addr, stream)
	return nil
}

func (s *subscription) setConfirmed(addr string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok {
		s.confirmed[addr] = true
	} else {
		delete(s.confirmed, addr)
	}
}

// covers reports whether every member in members has a confirmed stream:
// no event of theirs can be missed.
func (s *subscription) covers(members []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range members {
		if !s.confirmed[m] {
			return false
		}
	}
	return true
}

func (s *subscription) open(ctx context.Context, addr string) (pb.MapService_ListenClient, error) {
	cn, err := s.c.connTo(ctx, addr)
	if err != nil {
		return nil, err
	}
	stream, err := cn.maps.Listen(s.ctx, s.req)
	if err != nil {
		return nil, errorFromStatus(err, addr)
	}
	confirmed := make(chan error, 1)
	go func() {
		_, err := stream.Recv()
		confirmed <- err
	}()
	select {
	case err := <-confirmed:
		if err != nil {
			return nil, errorFromStatus(err, addr)
		}
		return stream, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// read delivers batches from one member, re-opening the stream with
// backoff when it breaks, until the subscription closes or the member
// leaves the table.
func (s *subscription) read(addr string, stream pb.MapService_ListenClient) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.active, addr)
		delete(s.confirmed, addr)
		s.mu.Unlock()
	}()
	r := s.c.retrier()
	for {
		for {
			b, err := stream.Recv()
			if err != nil {
				break
			}
			s.onBatch(addr, b)
			r.reset()
		}
		if s.ctx.Err() != nil {
			return
		}
		s.setConfirmed(addr, false)
		s.onGap(addr)
		for {
			if !s.c.isMember(addr) {
				return
			}
			if r.wait(s.ctx, 0) != nil {
				return
			}
			var err error
			if stream, err = s.open(s.ctx, addr); err == nil {
				s.setConfirmed(addr, true)
				s.onGap(addr) // events between the break and the confirmation
				break
			}
		}
	}
}

// follow starts streams on members that join the table.
func (s *subscription) follow() {
	defer s.wg.Done()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var seen int64
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		rt := s.c.routing.Load()
		if rt == nil || rt.version == seen {
			continue
		}
		seen = rt.version
		for _, addr := range rt.members {
			if err := s.start(s.ctx, addr); err != nil && s.ctx.Err() == nil {
				s.onGap(addr)
			}
		}
	}
}

func (s *subscription) close() {
	s.cancel()
	s.wg.Wait()
}

// isMember reports whether addr is in the partition table (or the table
// is unknown).
func (c *Client) isMember(addr string) bool {
	rt := c.routing.Load()
	if rt == nil || len(rt.members) == 0 {
		return true
	}
	for _, m := range rt.members {
		if m == addr {
			return true
		}
	}
	return false
}
