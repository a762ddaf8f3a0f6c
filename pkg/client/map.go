package client

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/codes"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Map is a typed view of a distributed map, like Hazelcast's IMap. Keys and
// values are serialized with the client's serialization service; a map is
// created on the cluster on first use. Map is safe for concurrent use and
// cheap to create: GetMap can be called per request.
//
// Methods that return a value report whether there was one with a bool
// (Hazelcast returns null). Every method takes a context: its deadline bounds
// the call including retries (the client's InvocationTimeout applies when it
// has none), and cancelling it abandons the call.
type Map[K, V any] struct {
	c    *Client
	name string
	near *nearCache // nil without a near cache
	// err is set when a member would refuse the name: every call then
	// fails with it, before anything is sent.
	err error
}

// Entry is a key and its value.
type Entry[K, V any] struct {
	Key   K
	Value V
}

// GetMap returns the map called name. K and V are the Go types of its keys
// and values; values that were stored by other clients must decode to V.
// A name a member would refuse (empty, over 1024 bytes or not valid UTF-8)
// makes every call of the map fail with a *RequestError.
func GetMap[K, V any](c *Client, name string) *Map[K, V] {
	c.registerType(reflect.TypeFor[K]())
	c.registerType(reflect.TypeFor[V]())
	if err := checkMapName(name); err != nil {
		return &Map[K, V]{c: c, name: name, err: err}
	}
	return &Map[K, V]{c: c, name: name, near: c.near.forMap(name)}
}

// The map's calls go through the methods below, which fail at once when
// the map's name is one a member would refuse.

func (m *Map[K, V]) invoke(ctx context.Context, pid int32, idempotent bool, req *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	if m.err != nil {
		return nil, m.err
	}
	return m.c.invoke(ctx, pid, idempotent, req)
}

func (m *Map[K, V]) invokeByOwner(ctx context.Context, keys [][]byte, size func(int) int, idempotent bool,
	build func(idx []int) *pb.PipelineRequest, handle func([]int, *pb.PipelineResponse) ([]int, error)) error {
	if m.err != nil {
		return m.err
	}
	return m.c.invokeByOwner(ctx, keys, size, idempotent, build, handle)
}

func (m *Map[K, V]) onEveryMember(ctx context.Context, req *pb.PipelineRequest, fn func([]*pb.PipelineResponse) error) error {
	if m.err != nil {
		return m.err
	}
	return m.c.onEveryMember(ctx, req, fn)
}

func (m *Map[K, V]) execute(ctx context.Context, req *pb.ExecuteRequest) (*Rows, error) {
	if m.err != nil {
		return nil, m.err
	}
	return m.c.execute(ctx, req)
}

func (m *Map[K, V]) subscribe(ctx context.Context, req *pb.ListenRequest, onBatch func(string, *pb.EntryEventBatch), onGap func(string)) (*subscription, error) {
	if m.err != nil {
		return nil, m.err
	}
	return m.c.subscribe(ctx, req, onBatch, onGap)
}

func (m *Map[K, V]) anyConn(ctx context.Context) (*conn, error) {
	if m.err != nil {
		return nil, m.err
	}
	return m.c.anyConn(ctx)
}

// Name returns the map's name.
func (m *Map[K, V]) Name() string { return m.name }

// Client returns the client the map belongs to.
func (m *Map[K, V]) Client() *Client { return m.c }

// WriteOption changes how a value is written.
type WriteOption func(*writeOptions) error

type writeOptions struct {
	ttl, maxIdle *int64
}

// WithTTL sets the entry's time to live, counted from this write; 0 means
// forever. Without it the map's default TTL applies.
func WithTTL(d time.Duration) WriteOption {
	return func(o *writeOptions) error {
		if d < 0 {
			return fmt.Errorf("%w: negative TTL %v", ErrInvalidArgument, d)
		}
		ms := durationToMs(d)
		o.ttl = &ms
		return nil
	}
}

// WithMaxIdle sets the entry's maximum idle time, counted from its last
// read or write; 0 means forever. Without it the map's default applies.
func WithMaxIdle(d time.Duration) WriteOption {
	return func(o *writeOptions) error {
		if d < 0 {
			return fmt.Errorf("%w: negative max idle %v", ErrInvalidArgument, d)
		}
		ms := durationToMs(d)
		o.maxIdle = &ms
		return nil
	}
}

// durationToMs rounds positive durations up to a millisecond, so that a
// short TTL never becomes 0 (forever).
func durationToMs(d time.Duration) int64 {
	if d == 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

func applyOptions(opts []WriteOption) (writeOptions, error) {
	var o writeOptions
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// bufPool holds serialization buffers for keys and values: a request keeps
// them only until it is sent.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// encoded is a serialized key or value in a pooled buffer.
type encoded struct{ buf *[]byte }

func (e encoded) bytes() []byte { return *e.buf }
func (e encoded) release() {
	if cap(*e.buf) <= 64<<10 {
		*e.buf = (*e.buf)[:0]
		bufPool.Put(e.buf)
	}
}

// encodeKey and encodeValue serialize a key or a value into a pooled
// buffer; one that cannot be serialized, or is over the member's key or
// value size limit, fails before anything is sent.
func (m *Map[K, V]) encodeKey(k K) (encoded, error) { return m.encode(k, "key", true) }

func (m *Map[K, V]) encodeValue(v V) (encoded, error) { return m.encode(v, "value", false) }

func (m *Map[K, V]) encode(v any, field string, key bool) (encoded, error) {
	bp := bufPool.Get().(*[]byte)
	b, err := m.c.ser.AppendData((*bp)[:0], v)
	if err == nil {
		err = m.c.checkSize(field, key, len(b))
	}
	if err != nil {
		bufPool.Put(bp)
		var re *RequestError
		if errors.As(err, &re) {
			return encoded{}, err
		}
		return encoded{}, fmt.Errorf("%w: map %q %s: %w", ErrInvalidArgument, m.name, field, err)
	}
	*bp = b
	return encoded{bp}, nil
}

// checkSize refuses a serialized key or value over the member's limit.
func (c *Client) checkSize(field string, key bool, size int) error {
	l := c.limits.Load()
	if key {
		return l.checkKey(field, size)
	}
	return l.checkValue(field, size)
}

// toData serializes a key or value of a batch (field "keys[3]",
// "entries[3].value", ...) and checks its size.
func (m *Map[K, V]) toData(v any, field string, key bool) ([]byte, error) {
	d, err := m.c.ser.ToData(v)
	if err == nil {
		err = m.c.checkSize(field, key, len(d))
	}
	var re *RequestError
	if err != nil && !errors.As(err, &re) {
		err = fmt.Errorf("%w: map %q %s: %w", ErrInvalidArgument, m.name, field, err)
	}
	return d, err
}

// decode turns a value's Data into V, with dec when the value is one of a
// page (nil otherwise, see Client.toObject).
func (m *Map[K, V]) decode(ctx context.Context, dec *serialization.Decoder, d []byte) (V, error) {
	if v, ok := decodeInt[V](d); ok {
		return v, nil
	}
	obj, err := m.c.toObject(ctx, dec, d)
	if err != nil {
		var zero V
		return zero, err
	}
	return convert[V](obj, m.name)
}

func (m *Map[K, V]) decodeKey(ctx context.Context, dec *serialization.Decoder, d []byte) (K, error) {
	if k, ok := decodeInt[K](d); ok {
		return k, nil
	}
	obj, err := m.c.toObject(ctx, dec, d)
	if err != nil {
		var zero K
		return zero, err
	}
	return convert[K](obj, m.name)
}

// decodeInt decodes an Integer or Long Data into T of the same Go type
// without boxing it (keys are often ints: a query's entries decode one per
// row); ok is false for any other T or Data.
func decodeInt[T any](d serialization.Data) (v T, ok bool) {
	switch p := any(&v).(type) {
	case *int32:
		*p, ok = d.Int32()
	case *int64:
		*p, ok = d.Int64()
	}
	return v, ok
}

// convert asserts obj to T, dereferencing a *T when T is not a pointer.
func convert[T any](obj any, mapName string) (T, error) {
	switch v := obj.(type) {
	case T:
		return v, nil
	case *T:
		if v != nil {
			return *v, nil
		}
	}
	var zero T
	if obj == nil {
		return zero, nil
	}
	return zero, &TypeError{Map: mapName, Want: reflect.TypeFor[T]().String(), Got: fmt.Sprintf("%T", obj)}
}

// keyOp runs a keyed pipeline call: it serializes the key, routes the call
// to the key's owner and returns the response.
func (m *Map[K, V]) keyOp(ctx context.Context, key K, idempotent bool, build func(kd []byte) *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	kd, err := m.encodeKey(key)
	if err != nil {
		return nil, err
	}
	defer kd.release()
	return m.invoke(ctx, m.c.partitionOf(kd.bytes()), idempotent, build(kd.bytes()))
}

// writeOp is keyOp for writes: it serializes the value (nil for calls that
// carry none), publishes pending metadata first and invalidates the near
// cache afterwards.
func (m *Map[K, V]) writeOp(ctx context.Context, key K, value *V, build func(kd, vd []byte) *pb.PipelineRequest) (*pb.PipelineResponse, error) {
	kd, err := m.encodeKey(key)
	if err != nil {
		return nil, err
	}
	defer kd.release()
	var vd encoded
	if value != nil {
		if vd, err = m.encodeValue(*value); err != nil {
			return nil, err
		}
		defer vd.release()
	}
	if err := m.c.meta.flush(ctx); err != nil {
		return nil, err
	}
	var vb []byte
	if vd.buf != nil {
		vb = vd.bytes()
	}
	resp, err := m.invoke(ctx, m.c.partitionOf(kd.bytes()), false, build(kd.bytes(), vb))
	if m.near != nil {
		m.near.invalidate(kd.bytes()) // also on error: the outcome may be unknown
	}
	return resp, err
}

// valueResult decodes a ValueResponse.
func (m *Map[K, V]) valueResult(ctx context.Context, resp *pb.PipelineResponse) (V, bool, error) {
	var zero V
	r := resp.GetValue()
	if r == nil || !r.Found {
		return zero, false, nil
	}
	v, err := m.decode(ctx, nil, r.Value)
	return v, err == nil, err
}

// Put stores value under key and returns the previous value.
func (m *Map[K, V]) Put(ctx context.Context, key K, value V, opts ...WriteOption) (old V, existed bool, err error) {
	o, err := applyOptions(opts)
	if err != nil {
		return old, false, err
	}
	resp, err := m.writeOp(ctx, key, &value, func(kd, vd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Put{Put: &pb.PutRequest{Map: m.name, Key: kd, Value: vd, TtlMs: o.ttl, MaxIdleMs: o.maxIdle}}}
	})
	if err != nil {
		return old, false, err
	}
	return m.valueResult(ctx, resp)
}

// Set stores value under key without returning the previous value, which
// saves its transfer.
func (m *Map[K, V]) Set(ctx context.Context, key K, value V, opts ...WriteOption) error {
	o, err := applyOptions(opts)
	if err != nil {
		return err
	}
	_, err = m.writeOp(ctx, key, &value, func(kd, vd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Set{Set: &pb.SetRequest{Map: m.name, Key: kd, Value: vd, TtlMs: o.ttl, MaxIdleMs: o.maxIdle}}}
	})
	return err
}

// PutIfAbsent stores value only if key has no value; otherwise it returns
// the current value and existed=true.
func (m *Map[K, V]) PutIfAbsent(ctx context.Context, key K, value V, opts ...WriteOption) (current V, existed bool, err error) {
	o, err := applyOptions(opts)
	if err != nil {
		return current, false, err
	}
	resp, err := m.writeOp(ctx, key, &value, func(kd, vd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_PutIfAbsent{PutIfAbsent: &pb.PutRequest{Map: m.name, Key: kd, Value: vd, TtlMs: o.ttl, MaxIdleMs: o.maxIdle}}}
	})
	if err != nil {
		return current, false, err
	}
	return m.valueResult(ctx, resp)
}

// Get returns the value of key, from the near cache when the map has one.
func (m *Map[K, V]) Get(ctx context.Context, key K) (V, bool, error) {
	var zero V
	kd, err := m.encodeKey(key)
	if err != nil {
		return zero, false, err
	}
	defer kd.release()
	var res reservation
	if m.near != nil {
		if e, ok := m.near.get(kd.bytes()); ok {
			if e.obj != nil {
				v, err := convert[V](e.obj, m.name)
				return v, err == nil, err
			}
			v, err := m.decode(ctx, nil, e.data)
			return v, err == nil, err
		}
		res = m.near.reserve(kd.bytes())
	}
	resp, err := m.invoke(ctx, m.c.partitionOf(kd.bytes()), true, &pb.PipelineRequest{Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: m.name, Key: kd.bytes()}}})
	if err != nil {
		return zero, false, err
	}
	r := resp.GetValue()
	if r == nil || !r.Found {
		return zero, false, nil
	}
	v, err := m.decode(ctx, nil, r.Value)
	if err != nil {
		return zero, false, err
	}
	if m.near != nil {
		m.near.put(kd.bytes(), r.Value, v, res)
	}
	return v, true, nil
}

// Remove removes key and returns its value.
func (m *Map[K, V]) Remove(ctx context.Context, key K) (V, bool, error) {
	resp, err := m.writeOp(ctx, key, nil, func(kd, _ []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Remove{Remove: &pb.KeyRequest{Map: m.name, Key: kd}}}
	})
	if err != nil {
		var zero V
		return zero, false, err
	}
	return m.valueResult(ctx, resp)
}

// Delete removes key and reports whether it was present.
func (m *Map[K, V]) Delete(ctx context.Context, key K) (bool, error) {
	resp, err := m.writeOp(ctx, key, nil, func(kd, _ []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Delete{Delete: &pb.KeyRequest{Map: m.name, Key: kd}}}
	})
	return resp.GetBool().GetValue(), err
}

// RemoveIfSame removes key only if its value is expected (compared as
// serialized bytes).
func (m *Map[K, V]) RemoveIfSame(ctx context.Context, key K, expected V) (bool, error) {
	resp, err := m.writeOp(ctx, key, &expected, func(kd, vd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_RemoveIfSame{RemoveIfSame: &pb.ReplaceIfSameRequest{Map: m.name, Key: kd, Expected: vd}}}
	})
	return resp.GetBool().GetValue(), err
}

// Replace stores value only if key has a value, and returns the old one.
// The entry keeps its TTL.
func (m *Map[K, V]) Replace(ctx context.Context, key K, value V) (old V, existed bool, err error) {
	resp, err := m.writeOp(ctx, key, &value, func(kd, vd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Replace{Replace: &pb.PutRequest{Map: m.name, Key: kd, Value: vd}}}
	})
	if err != nil {
		return old, false, err
	}
	return m.valueResult(ctx, resp)
}

// ReplaceIfSame stores value only if key's current value is expected
// (compared as serialized bytes).
func (m *Map[K, V]) ReplaceIfSame(ctx context.Context, key K, expected, value V) (bool, error) {
	ed, err := m.encodeValue(expected)
	if err != nil {
		return false, err
	}
	defer ed.release()
	resp, err := m.writeOp(ctx, key, &value, func(kd, vd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_ReplaceIfSame{ReplaceIfSame: &pb.ReplaceIfSameRequest{Map: m.name, Key: kd, Expected: ed.bytes(), Value: vd}}}
	})
	return resp.GetBool().GetValue(), err
}

// ContainsKey reports whether key has a value.
func (m *Map[K, V]) ContainsKey(ctx context.Context, key K) (bool, error) {
	resp, err := m.keyOp(ctx, key, true, func(kd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_ContainsKey{ContainsKey: &pb.KeyRequest{Map: m.name, Key: kd}}}
	})
	return resp.GetBool().GetValue(), err
}

// Evict removes key from memory as eviction would (listeners see EVICTED,
// not REMOVED) and reports whether it was present.
func (m *Map[K, V]) Evict(ctx context.Context, key K) (bool, error) {
	resp, err := m.writeOp(ctx, key, nil, func(kd, _ []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Evict{Evict: &pb.KeyRequest{Map: m.name, Key: kd}}}
	})
	return resp.GetBool().GetValue(), err
}

// SetTTL changes the TTL of an existing entry (0 = forever), counted from
// now, and reports whether the entry exists.
func (m *Map[K, V]) SetTTL(ctx context.Context, key K, ttl time.Duration) (bool, error) {
	if ttl < 0 {
		return false, fmt.Errorf("%w: negative TTL %v", ErrInvalidArgument, ttl)
	}
	resp, err := m.writeOp(ctx, key, nil, func(kd, _ []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_SetTtl{SetTtl: &pb.SetTtlRequest{Map: m.name, Key: kd, TtlMs: durationToMs(ttl)}}}
	})
	return resp.GetBool().GetValue(), err
}

// EntryView is an entry with its metadata. Hits, LastAccessTime and
// LastUpdateTime are zero unless the map keeps per-entry statistics (the
// member's per-entry-stats-enabled, off by default as in Hazelcast) or
// needs them: a map with a default TTL, max-idle or an eviction policy,
// or an entry with a TTL or max-idle of its own.
type EntryView[K, V any] struct {
	Key            K
	Value          V
	Version        int64
	CreationTime   time.Time
	LastAccessTime time.Time
	LastUpdateTime time.Time
	ExpirationTime time.Time // zero when the entry never expires
	Hits           int64
	TTL            time.Duration // 0 = forever
	MaxIdle        time.Duration // 0 = forever
	Cost           int64         // serialized key + value bytes
}

func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// GetEntryView returns key's entry with its metadata.
func (m *Map[K, V]) GetEntryView(ctx context.Context, key K) (EntryView[K, V], bool, error) {
	var ev EntryView[K, V]
	resp, err := m.keyOp(ctx, key, true, func(kd []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_GetEntryView{GetEntryView: &pb.KeyRequest{Map: m.name, Key: kd}}}
	})
	if err != nil || !resp.GetEntryView().GetFound() {
		return ev, false, err
	}
	v := resp.GetEntryView().View
	if ev.Value, err = m.decode(ctx, nil, v.Value); err != nil {
		return ev, false, err
	}
	ev.Key = key
	ev.Version, ev.Hits, ev.Cost = v.Version, v.Hits, v.Cost
	ev.CreationTime, ev.LastAccessTime, ev.LastUpdateTime = msTime(v.CreationTimeMs), msTime(v.LastAccessTimeMs), msTime(v.LastUpdateTimeMs)
	ev.ExpirationTime = msTime(v.ExpirationTimeMs)
	ev.TTL, ev.MaxIdle = time.Duration(v.TtlMs)*time.Millisecond, time.Duration(v.MaxIdleMs)*time.Millisecond
	return ev, true, nil
}

// PutAll stores every entry, in one call per owning member.
func (m *Map[K, V]) PutAll(ctx context.Context, entries []Entry[K, V], opts ...WriteOption) error {
	o, err := applyOptions(opts)
	if err != nil {
		return err
	}
	keys := make([][]byte, len(entries))
	values := make([][]byte, len(entries))
	for i, e := range entries {
		if keys[i], err = m.toData(e.Key, fmt.Sprintf("entries[%d].key", i), true); err != nil {
			return err
		}
		if values[i], err = m.toData(e.Value, fmt.Sprintf("entries[%d].value", i), false); err != nil {
			return err
		}
	}
	if err := m.c.meta.flush(ctx); err != nil {
		return err
	}
	err = m.invokeByOwner(ctx, keys, func(i int) int { return len(keys[i]) + len(values[i]) + entryOverhead }, false, func(idx []int) *pb.PipelineRequest {
		req := &pb.PutAllRequest{Map: m.name, TtlMs: o.ttl, Entries: make([]*pb.Entry, len(idx))}
		for j, i := range idx {
			req.Entries[j] = &pb.Entry{Key: keys[i], Value: values[i]}
		}
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_PutAll{PutAll: req}}
	}, nil)
	if m.near != nil {
		for _, k := range keys {
			m.near.invalidate(k)
		}
	}
	return err
}

// GetAll returns the entries of the keys that have values, in one call per
// owning member.
func (m *Map[K, V]) GetAll(ctx context.Context, keys []K) ([]Entry[K, V], error) {
	kds := make([][]byte, len(keys))
	for i, k := range keys {
		var err error
		if kds[i], err = m.toData(k, fmt.Sprintf("keys[%d]", i), true); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	var out []Entry[K, V]
	err := m.invokeByOwner(ctx, kds, func(i int) int { return len(kds[i]) + entryOverhead }, true, func(idx []int) *pb.PipelineRequest {
		// The member answers what fits in one message and names the keys
		// left, which the next round asks for.
		req := &pb.GetAllRequest{Map: m.name, Keys: make([][]byte, len(idx)), Partial: true}
		for j, i := range idx {
			req.Keys[j] = kds[i]
		}
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_GetAll{GetAll: req}}
	}, func(idx []int, resp *pb.PipelineResponse) ([]int, error) {
		for _, e := range resp.GetEntries().GetEntries() {
			k, err := m.decodeKey(ctx, nil, e.Key)
			if err != nil {
				return nil, err
			}
			v, err := m.decode(ctx, nil, e.Value)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			out = append(out, Entry[K, V]{k, v})
			mu.Unlock()
		}
		var again []int
		for _, j := range resp.GetEntries().GetUnanswered() {
			if j < 0 || int(j) >= len(idx) {
				return nil, fmt.Errorf("%w: the member left key %d of a request of %d unanswered", ErrInternal, j, len(idx))
			}
			again = append(again, idx[j])
		}
		return again, nil
	})
	return out, err
}

// Size returns the number of entries in the map across the cluster.
func (m *Map[K, V]) Size(ctx context.Context) (int64, error) {
	var total int64
	err := m.onEveryMember(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_Size{Size: &pb.MapRequest{Map: m.name}}}, func(resps []*pb.PipelineResponse) error {
		var err error
		total, err = m.c.everyPartition(resps, true, "counted")
		return err
	})
	return total, err
}

// everyPartition checks that the members' answers of a whole-map call
// (Size, Clear) cover every partition, exactly once when exact, and sums
// their sizes. Partitions that move while the call runs may be covered
// twice or not at all: the error then asks for another round.
func (c *Client) everyPartition(resps []*pb.PipelineResponse, exact bool, what string) (int64, error) {
	count := c.routing.Load().count
	seen := make([]bool, count)
	var total int64
	for _, r := range resps {
		sr := r.GetSize()
		for _, p := range sr.GetPartitions() {
			if p < 0 || p >= count || (seen[p] && exact) {
				return 0, partitionsMoved(what+" twice", p)
			}
			seen[p] = true
		}
		total += sr.GetSize()
	}
	if i := slices.Index(seen, false); i >= 0 {
		return 0, partitionsMoved("not "+what, int32(i))
	}
	return total, nil
}

// Clear removes every entry (listeners see one CLEARED event per
// partition). Every partition is cleared by its owner at the time; a
// partition that moves meanwhile is cleared again by its new owner.
func (m *Map[K, V]) Clear(ctx context.Context) error {
	err := m.onEveryMember(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_Clear{Clear: &pb.MapRequest{Map: m.name}}}, func(resps []*pb.PipelineResponse) error {
		_, err := m.c.everyPartition(resps, false, "cleared")
		return err
	})
	if m.near != nil {
		m.near.clear()
	}
	return err
}

// EvictAll evicts every entry from memory.
func (m *Map[K, V]) EvictAll(ctx context.Context) error {
	err := m.onEveryMember(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_EvictAll{EvictAll: &pb.MapRequest{Map: m.name}}}, nil)
	if m.near != nil {
		m.near.clear()
	}
	return err
}

// Destroy removes the map and its data from the cluster.
func (m *Map[K, V]) Destroy(ctx context.Context) error {
	err := m.onEveryMember(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_Destroy{Destroy: &pb.MapRequest{Map: m.name}}}, nil)
	if m.near != nil {
		m.near.clear()
	}
	return err
}

// MapConfig configures a map before its first use. Nil fields keep the
// member's configuration.
type MapConfig struct {
	TTL              *time.Duration // default TTL; 0 = forever
	MaxIdle          *time.Duration // default max idle; 0 = forever
	EvictionPolicy   EvictionPolicy
	MaxEntries       *int64 // per member; 0 = unlimited
	MaxBytes         *int64 // per member; 0 = unlimited
	BackupCount      *int32
	AsyncBackupCount *int32
}

// EvictionPolicy chooses which entries leave a full map.
type EvictionPolicy int32

// Eviction policies; EvictionUnset keeps the configured policy.
const (
	EvictionUnset EvictionPolicy = iota
	EvictionNone
	EvictionLRU
	EvictionLFU
)

// Configure sets the map's configuration on every member. It fails for a
// map that is already in use.
func (m *Map[K, V]) Configure(ctx context.Context, cfg MapConfig) error {
	req := &pb.MapConfig{Map: m.name, MaxEntries: cfg.MaxEntries, MaxBytes: cfg.MaxBytes, BackupCount: cfg.BackupCount, AsyncBackupCount: cfg.AsyncBackupCount}
	if cfg.TTL != nil {
		ms := durationToMs(*cfg.TTL)
		req.TtlMs = &ms
	}
	if cfg.MaxIdle != nil {
		ms := durationToMs(*cfg.MaxIdle)
		req.MaxIdleMs = &ms
	}
	if cfg.EvictionPolicy != EvictionUnset {
		p := pb.EvictionPolicy(cfg.EvictionPolicy)
		req.EvictionPolicy = &p
	}
	return m.onEveryMember(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_ConfigureMap{ConfigureMap: req}}, nil)
}

// MapStats are a map's statistics summed over the members, like
// Hazelcast's LocalMapStats.
type MapStats struct {
	OwnedEntryCount       int64
	OwnedEntryMemoryCost  int64
	BackupEntryCount      int64
	BackupEntryMemoryCost int64
	Hits                  int64
	Gets, Puts, Sets      int64
	Removes               int64
	Evictions             int64
	Expirations           int64
	LastAccessTime        time.Time
	LastUpdateTime        time.Time
	// Members is how many members contributed.
	Members int
}

// Stats returns the map's statistics from every member.
func (m *Map[K, V]) Stats(ctx context.Context) (MapStats, error) {
	var st MapStats
	err := m.onEveryMember(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_GetMapStats{GetMapStats: &pb.MapRequest{Map: m.name}}}, func(resps []*pb.PipelineResponse) error {
		for _, resp := range resps {
			st.add(resp.GetMapStats())
		}
		return nil
	})
	return st, err
}

// add adds one member's statistics.
func (st *MapStats) add(s *pb.MapStats) {
	st.Members++
	st.OwnedEntryCount += s.OwnedEntryCount
	st.OwnedEntryMemoryCost += s.OwnedEntryMemoryCost
	st.BackupEntryCount += s.BackupEntryCount
	st.BackupEntryMemoryCost += s.BackupEntryMemoryCost
	st.Hits += s.Hits
	st.Gets += s.GetCount
	st.Puts += s.PutCount
	st.Sets += s.SetCount
	st.Removes += s.RemoveCount
	st.Evictions += s.Evictions
	st.Expirations += s.Expirations
	if t := msTime(s.LastAccessTimeMs); t.After(st.LastAccessTime) {
		st.LastAccessTime = t
	}
	if t := msTime(s.LastUpdateTimeMs); t.After(st.LastUpdateTime) {
		st.LastUpdateTime = t
	}
}

// partitionsMoved is the retryable error of a count over every member that
// missed or repeated a partition: partitions moved while the members
// counted.
func partitionsMoved(what string, pid int32) error {
	return &Error{Code: codes.Unavailable, Message: fmt.Sprintf("partition %d was %s while partitions moved", pid, what), Retryable: true, kind: ErrUnavailable}
}

// ownerOf returns the address of partition pid's owner ("" when unknown).
func (c *Client) ownerOf(pid int32) string {
	if rt := c.routing.Load(); rt != nil && int(pid) < len(rt.owners) {
		return rt.owners[pid]
	}
	return ""
}

// invokeByOwner runs a multi-key call: requests to each owning member for
// the keys it owns (build makes one from the keys' indexes), each
// response passed to handle, which returns the keys the member left
// unanswered (a GetAll answer that filled a message) to ask for in the
// next round. A member's keys are split into requests that fit in one
// message (size(i) is the bytes key i and its value add to a request) and
// hold at most the member's limit of batch entries, sent one after the
// other; members run in parallel. Keys whose request failed with a
// retryable error (their partition moved, their member left) are grouped
// again by the refreshed table and retried with backoff until ctx ends or
// the invocation timeout passes.
func (c *Client) invokeByOwner(ctx context.Context, keys [][]byte, size func(i int) int, idempotent bool,
	build func(idx []int) *pb.PipelineRequest, handle func(idx []int, resp *pb.PipelineResponse) ([]int, error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.InvocationTimeout)
		defer cancel()
	}
	c.stats.calls.Add(1)
	pending := make([]int, len(keys))
	for i := range pending {
		pending[i] = i
	}
	r := c.retrier()
	for len(pending) > 0 {
		view := c.changes()
		groups := map[string][]int{}
		pids := map[string]int32{}
		for _, i := range pending {
			pid := c.partitionOf(keys[i])
			owner := c.ownerOf(pid)
			groups[owner] = append(groups[owner], i)
			pids[owner] = pid
		}
		var mu sync.Mutex
		var retry, again []int
		var retryErr error
		err := forEachMember(groups, func(owner string, idx []int) error {
			cn, err := c.connFor(ctx, pids[owner])
			if err != nil {
				if !c.shouldRetry(ctx, err, idempotent) {
					return err
				}
				mu.Lock()
				retry, retryErr = append(retry, idx...), err
				mu.Unlock()
				return nil
			}
			for _, batch := range cn.limits.batches(idx, size) {
				resp, err := cn.invoke(ctx, build(batch))
				if err == nil && resp.Error != nil {
					err = errorFromPipeline(resp.Error, cn.addr)
				}
				var left []int
				switch {
				case err == nil && handle != nil:
					if left, err = handle(batch, resp); err != nil {
						return err
					}
				case err == nil:
				case c.shouldRetry(ctx, err, idempotent):
					mu.Lock()
					retry, retryErr = append(retry, batch...), err
					mu.Unlock()
					continue
				default:
					return err
				}
				mu.Lock()
				again = append(again, left...)
				mu.Unlock()
			}
			return nil
		})
		if err != nil {
			c.stats.failures.Add(1)
			return c.finalError(ctx, err)
		}
		pending = again
		if len(retry) == 0 {
			continue
		}
		c.stats.retries.Add(1)
		if err := c.prepareRetry(ctx, retryErr); err != nil {
			c.stats.failures.Add(1)
			return err
		}
		if c.backoff(ctx, &r, view) != nil {
			c.stats.failures.Add(1)
			return c.finalError(ctx, retryErr)
		}
		pending = append(pending, retry...)
	}
	return nil
}

// forEachMember runs fn for each member's request concurrently and joins
// the errors.
func forEachMember[R any](reqs map[string]R, fn func(string, R) error) error {
	if len(reqs) == 1 { // one member: no goroutine
		for owner, req := range reqs {
			return fn(owner, req)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for owner, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(owner, req); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// onEveryMember runs req on every member of the partition table (each
// answers for the partitions it owns) and passes each response to fn. If a
// member fails with a retryable error (it left, or the table changed), the
// whole call is repeated on the refreshed table's members with backoff, so
// fn sees the responses of one complete round only.
func (c *Client) onEveryMember(ctx context.Context, req *pb.PipelineRequest, fn func([]*pb.PipelineResponse) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.InvocationTimeout)
		defer cancel()
	}
	c.stats.calls.Add(1)
	r := c.retrier()
	for {
		view := c.changes()
		resps, err := c.everyMemberOnce(ctx, req)
		if err == nil && fn != nil {
			err = fn(resps)
		}
		if err == nil {
			return nil
		}
		if !c.shouldRetry(ctx, err, true) {
			c.stats.failures.Add(1)
			return c.finalError(ctx, err)
		}
		c.stats.retries.Add(1)
		if err := c.prepareRetry(ctx, err); err != nil {
			c.stats.failures.Add(1)
			return err
		}
		if c.backoff(ctx, &r, view) != nil {
			c.stats.failures.Add(1)
			return c.finalError(ctx, err)
		}
	}
}

// everyMemberOnce sends req to every member of the current table once. Of
// several failures it returns a non-retryable one if there is one.
func (c *Client) everyMemberOnce(ctx context.Context, req *pb.PipelineRequest) ([]*pb.PipelineResponse, error) {
	members := c.routing.Load().members
	if len(members) == 0 {
		cn, err := c.anyConn(ctx)
		if err != nil {
			return nil, err
		}
		members = []string{cn.addr}
	}
	var mu sync.Mutex
	var resps []*pb.PipelineResponse
	var retryable, fatal error
	var wg sync.WaitGroup
	for _, addr := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cn, err := c.connTo(ctx, addr)
			var resp *pb.PipelineResponse
			if err == nil {
				// Each member gets its own copy: the call id is per connection.
				resp, err = cn.invoke(ctx, &pb.PipelineRequest{Op: req.Op})
				if err == nil && resp.Error != nil {
					err = errorFromPipeline(resp.Error, addr)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				resps = append(resps, resp)
			case c.shouldRetry(ctx, err, true):
				retryable = err
			default:
				fatal = err
			}
		}()
	}
	wg.Wait()
	return resps, firstErr(fatal, retryable)
}

// registerType makes values of a map's Go type decode to that type: struct
// types get a zero-config Compact serializer, so data written by other
// clients under the same type name reads back as the struct.
func (c *Client) registerType(t reflect.Type) {
	if _, seen := c.typesSeen.LoadOrStore(t, struct{}{}); seen {
		return
	}
	if err := c.ser.RegisterType(t); err != nil {
		c.log.Debug("map type is not registered for zero-config Compact", "type", t, "err", err)
	}
}
