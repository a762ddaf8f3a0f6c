package server

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/store"
)

// maxPageSize bounds the entries of one Iterate message.
const maxPageSize = 10000

// iterate streams a map's keys, values or entries in pages, partition by
// partition. Like Hazelcast's iterators it is weakly consistent: entries
// changed during the iteration may or may not be seen, but every entry
// present throughout is seen exactly once.
func (s *Server) iterate(r *pb.IterateRequest, stream pb.MapService_IterateServer) error {
	m, err := s.lookup(r.Map) // nil: a map this member does not have, empty here
	if err != nil {
		return err
	}
	kind := r.Kind
	if kind < pb.IterationKind_ITERATION_KIND_KEYS || kind > pb.IterationKind_ITERATION_KIND_ENTRIES {
		return invalid("iteration kind %v: want KEYS, VALUES or ENTRIES", kind)
	}
	page := int(r.PageSize)
	switch {
	case page < 0:
		return invalid("page size %d is negative", page)
	case page == 0:
		page = s.cfg.IteratePageSize
	case page > maxPageSize:
		page = maxPageSize
	}
	if len(r.Partitions) > s.cfg.Maps.PartitionCount() {
		return invalid("%d partitions named; there are %d", len(r.Partitions), s.cfg.Maps.PartitionCount())
	}
	parts := r.Partitions
	if len(parts) == 0 {
		parts = make([]int32, s.cfg.Maps.PartitionCount())
		for i := range parts {
			parts[i] = int32(i)
		}
	}
	ctx := stream.Context()
	msg := &pb.EntriesResponse{}
	// A message is sent once it holds page entries or a quarter of the
	// largest message (one more entry then still fits).
	msgBytes, maxBytes := 0, s.cfg.MaxMessageSize/4
	flush := func() error {
		if len(msg.Entries) == 0 && len(msg.CompletedPartitions) == 0 {
			return nil
		}
		err := stream.Send(msg)
		msg, msgBytes = &pb.EntriesResponse{}, 0
		return err
	}
	seen := make([]bool, s.cfg.Maps.PartitionCount())
	for _, pid := range parts {
		if pid < 0 || int(pid) >= s.cfg.Maps.PartitionCount() {
			return invalid("partition %d is out of range", pid)
		}
		if seen[pid] {
			return invalid("partition %d is named twice", pid)
		}
		seen[pid] = true
		if len(r.Partitions) == 0 && !s.cfg.Cluster.Owned(pid) {
			continue // all partitions: those this member owns
		}
		if err := s.cfg.Cluster.CheckRead(pid); err != nil {
			return err
		}
		for cursor := store.Cursor(0); m != nil && cursor != store.CursorDone; {
			if err := ctx.Err(); err != nil {
				return err
			}
			cursor, err = m.Store.Iterate(pid, cursor, page-len(msg.Entries), func(v store.EntryView) bool {
				e := &pb.Entry{}
				if kind != pb.IterationKind_ITERATION_KIND_VALUES {
					e.Key = bytes.Clone(v.Key)
				}
				if kind != pb.IterationKind_ITERATION_KIND_KEYS {
					e.Value = bytes.Clone(v.Value)
				}
				msg.Entries = append(msg.Entries, e)
				msgBytes += len(e.Key) + len(e.Value) + entryOverhead
				return msgBytes < maxBytes
			})
			if err != nil {
				return err
			}
			if len(msg.Entries) >= page || msgBytes >= maxBytes {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		msg.CompletedPartitions = append(msg.CompletedPartitions, pid)
	}
	return flush()
}

var eventTypes = map[pb.EntryEventType]store.EventType{
	pb.EntryEventType_ENTRY_EVENT_TYPE_ADDED:   store.EventAdded,
	pb.EntryEventType_ENTRY_EVENT_TYPE_UPDATED: store.EventUpdated,
	pb.EntryEventType_ENTRY_EVENT_TYPE_REMOVED: store.EventRemoved,
	pb.EntryEventType_ENTRY_EVENT_TYPE_EVICTED: store.EventEvicted,
	pb.EntryEventType_ENTRY_EVENT_TYPE_EXPIRED: store.EventExpired,
	pb.EntryEventType_ENTRY_EVENT_TYPE_CLEARED: store.EventCleared,
}

func eventTypeToProto(t store.EventType) pb.EntryEventType {
	for k, v := range eventTypes {
		if v == t {
			return k
		}
	}
	return pb.EntryEventType_ENTRY_EVENT_TYPE_UNSPECIFIED
}

// maxEventsPerBatch bounds the events of one Listen message.
const maxEventsPerBatch = 256

// listen streams a map's entry events until the client cancels. The first
// message, with no events, confirms that the listener is registered: events
// of writes made after the client received it are delivered.
func (s *Server) listen(r *pb.ListenRequest, stream pb.MapService_ListenServer) error {
	release, err := s.listenerSlot(stream.Context())
	if err != nil {
		return err
	}
	defer release()
	m, err := s.cfg.Maps.Get(r.Map)
	if err != nil {
		return err
	}
	opts := maps.ListenerOptions{IncludeValues: r.IncludeValues}
	if len(r.Key) > 0 {
		if err := s.checkData("key", r.Key); err != nil {
			return err
		}
		opts.Key = bytes.Clone(r.Key)
	}
	for _, t := range r.Types {
		st, ok := eventTypes[t]
		if !ok {
			return invalid("unknown event type %v", t)
		}
		opts.Types = append(opts.Types, st)
	}
	l := m.AddListener(opts)
	defer l.Close()
	if err := stream.Send(&pb.EntryEventBatch{}); err != nil {
		return err
	}
	ctx := stream.Context()
	member := s.cfg.Self.UUID[:]
	var events []maps.Event
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			return ErrShuttingDown
		case <-l.Done():
			return invalid("map %q was destroyed", r.Map)
		case <-l.Ready():
		}
		events = l.Drain(events[:0], maxEventsPerBatch)
		batch := &pb.EntryEventBatch{Dropped: l.TakeDropped()}
		if len(events) == 0 && batch.Dropped == 0 {
			continue
		}
		for _, ev := range events {
			batch.Events = append(batch.Events, &pb.EntryEvent{
				Type: eventTypeToProto(ev.Type), Key: ev.Key, Value: ev.Value, OldValue: ev.OldValue,
				PartitionId: ev.Partition, MemberUuid: member,
			})
		}
		if err := stream.Send(batch); err != nil {
			return err
		}
	}
}

// listenerSlot takes one of the listener places of the client connection
// a call arrived on (limits.max-listeners-per-connection); release gives
// it back. Member connections and calls outside a tracked connection are
// not bounded.
func (s *Server) listenerSlot(ctx context.Context) (release func(), err error) {
	info, ok := cluster.Peer(ctx)
	if !ok || info.Conn == nil || info.Member {
		return func() {}, nil
	}
	v, loaded := s.listeners.LoadOrStore(info.Conn, new(atomic.Int32))
	open := v.(*atomic.Int32)
	if !loaded {
		info.Conn.OnClose(func() { s.listeners.Delete(info.Conn) })
	}
	if n := open.Add(1); n > int32(s.cfg.MaxListenersPerConnection) {
		open.Add(-1)
		return nil, fmt.Errorf("%w: %d listeners are open on this connection, at most %d (limits.max-listeners-per-connection)",
			ErrLimitExceeded, n-1, s.cfg.MaxListenersPerConnection)
	}
	return func() { open.Add(-1) }, nil
}
