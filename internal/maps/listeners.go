package maps

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/store"
)

// ListenerOptions selects the events a listener receives.
type ListenerOptions struct {
	// Key, when set, limits events to that key (compared as bytes).
	Key []byte
	// IncludeValues copies old and new values into events.
	IncludeValues bool
	// Types limits events to these types; all user-visible types when empty.
	Types []store.EventType
	// Buffer is how many events may wait for delivery before further
	// events are dropped (and counted); default 100 000. Memory grows only
	// as events actually wait.
	Buffer int
}

// Event is a copy of a store event for a listener.
type Event struct {
	Type      store.EventType
	Partition int32
	Key       []byte
	Value     []byte // new value, when IncludeValues
	OldValue  []byte // old value, when IncludeValues
}

// Listener receives a map's entry events through a bounded queue. When the
// queue is full, events are dropped and counted instead of blocking the
// writer; the consumer learns the count from TakeDropped and treats state
// it derives from events (a near cache) as stale.
type Listener struct {
	map_    *Map
	opts    ListenerOptions
	mask    uint16
	queue   eventQueue
	dropped atomic.Int64
	closed  atomic.Bool
	done    chan struct{}
}

// Ready receives a value when events may be waiting; it is never closed
// (see Done).
func (l *Listener) Ready() <-chan struct{} { return l.queue.ready }

// Drain appends up to max waiting events to dst, oldest first.
func (l *Listener) Drain(dst []Event, max int) []Event { return l.queue.drain(dst, max) }

// Done is closed when the listener is removed (or its map destroyed).
func (l *Listener) Done() <-chan struct{} { return l.done }

// TakeDropped returns the number of events dropped since the last call.
func (l *Listener) TakeDropped() int64 { return l.dropped.Swap(0) }

// Close removes the listener from its map.
func (l *Listener) Close() { l.map_.removeListener(l) }

func (l *Listener) wants(e *store.Event) bool {
	if l.mask&(1<<e.Type) == 0 {
		return false
	}
	if l.opts.Key != nil && e.Type != store.EventCleared && !bytes.Equal(l.opts.Key, e.Key) {
		return false
	}
	return true
}

// userEvents are the event types entry listeners see by default.
var userEvents = []store.EventType{store.EventAdded, store.EventUpdated, store.EventRemoved, store.EventEvicted, store.EventExpired, store.EventCleared}

// AddListener registers a listener for the map's events.
func (m *Map) AddListener(opts ListenerOptions) *Listener {
	if opts.Buffer <= 0 {
		opts.Buffer = 100_000
	}
	types := opts.Types
	if len(types) == 0 {
		types = userEvents
	}
	l := &Listener{map_: m, opts: opts, queue: eventQueue{max: opts.Buffer, ready: make(chan struct{}, 1)}, done: make(chan struct{})}
	for _, t := range types {
		l.mask |= 1 << t
	}
	m.listenersMu.Lock()
	defer m.listenersMu.Unlock()
	var cur []*Listener
	if p := m.listeners.Load(); p != nil {
		cur = *p
	}
	next := append(append(make([]*Listener, 0, len(cur)+1), cur...), l)
	m.listeners.Store(&next)
	return l
}

func (m *Map) removeListener(l *Listener) {
	m.listenersMu.Lock()
	defer m.listenersMu.Unlock()
	if l.closed.Swap(true) {
		return
	}
	cur := *m.listeners.Load()
	next := make([]*Listener, 0, len(cur))
	for _, x := range cur {
		if x != l {
			next = append(next, x)
		}
	}
	m.listeners.Store(&next)
	close(l.done)
}

func (m *Map) closeListeners() {
	p := m.listeners.Load()
	if p == nil {
		return
	}
	for _, l := range *p {
		m.removeListener(l)
	}
}

// OnEvent implements store.Observer: it copies the event for each listener
// that wants it, without blocking. It runs under the partition lock.
func (m *Map) OnEvent(e store.Event) {
	if m.onEvent != nil {
		m.onEvent(m.name, e)
	}
	if o := m.indexObserver.Load(); o != nil {
		o.o.OnEvent(e) // indexes follow owned and backup partitions alike
	}
	p := m.listeners.Load()
	if p == nil || len(*p) == 0 || e.Backup {
		return // listeners hear owners only: every event once per cluster
	}
	for _, l := range *p {
		if !l.wants(&e) {
			continue
		}
		ev := Event{Type: e.Type, Partition: e.Partition, Key: bytes.Clone(e.Key)}
		if l.opts.IncludeValues {
			ev.Value, ev.OldValue = bytes.Clone(e.NewValue), bytes.Clone(e.OldValue)
		}
		if !l.queue.push(ev) {
			l.dropped.Add(1)
		}
	}
}

// eventQueue is a ring of events that grows as events wait, up to max.
type eventQueue struct {
	mu      sync.Mutex
	buf     []Event
	head, n int
	max     int
	ready   chan struct{} // capacity 1: signalled after a push
}

// push adds an event unless the queue is full.
func (q *eventQueue) push(ev Event) bool {
	q.mu.Lock()
	if q.n == q.max {
		q.mu.Unlock()
		return false
	}
	if q.n == len(q.buf) {
		grown := make([]Event, min(max(2*len(q.buf), 64), q.max))
		for i := 0; i < q.n; i++ {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = ev
	q.n++
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// shrinkAbove is the ring size above which an emptied queue lets its
// memory go, so that a burst does not keep its buffer for good.
const shrinkAbove = 4096

func (q *eventQueue) drain(dst []Event, max int) []Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ; q.n > 0 && max > 0; max-- {
		dst = append(dst, q.buf[q.head])
		q.buf[q.head] = Event{}
		q.head = (q.head + 1) % len(q.buf)
		q.n--
	}
	if q.n == 0 && len(q.buf) > shrinkAbove {
		q.buf, q.head = nil, 0
	}
	if q.n > 0 { // more than max waited: the consumer comes back at once
		select {
		case q.ready <- struct{}{}:
		default:
		}
	}
	return dst
}
