package client

import (
	"context"
	"io"
	"iter"
	"slices"
	"sort"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// iterate streams the map's entries from every member, each member sending
// the partitions it owns, in pages. Like Hazelcast's iterators it is weakly
// consistent: entries changed during the iteration may or may not appear.
// When a member fails or a partition moves during the iteration, the
// partitions not completed are asked again from their current owners;
// keys already yielded from a partition are not yielded again.
func (m *Map[K, V]) iterate(ctx context.Context, kind pb.IterationKind, yield func(key, value []byte) bool) error {
	if m.err != nil {
		return m.err
	}
	wire := kind
	if kind == pb.IterationKind_ITERATION_KIND_VALUES {
		wire = pb.IterationKind_ITERATION_KIND_ENTRIES // keys tell partitions apart on a retry
	}
	remaining := map[int32]bool{}
	for pid := range m.c.routing.Load().owners {
		remaining[int32(pid)] = true
	}
	seen := map[int32]map[string]bool{} // keys yielded of partitions not completed
	r := m.c.retrier()
	for len(remaining) > 0 {
		byMember := map[string][]int32{}
		var order []string
		for pid := range remaining {
			owner := m.c.ownerOf(pid)
			if _, ok := byMember[owner]; !ok {
				order = append(order, owner)
			}
			byMember[owner] = append(byMember[owner], pid)
		}
		sort.Strings(order)
		var retryErr error
		for _, addr := range order {
			parts := byMember[addr]
			slices.Sort(parts)
			stop, err := m.iterateMember(ctx, addr, wire, parts, remaining, seen, func(k, v []byte) bool {
				if kind == pb.IterationKind_ITERATION_KIND_VALUES {
					k = nil
				}
				return yield(k, v)
			})
			if stop {
				return nil
			}
			if err != nil {
				if !m.c.shouldRetry(ctx, err, true) {
					return m.c.finalError(ctx, err)
				}
				retryErr = err
				break
			}
		}
		if retryErr == nil {
			continue
		}
		if err := m.c.prepareRetry(ctx, retryErr); err != nil {
			return err
		}
		if r.wait(ctx, 0) != nil {
			return m.c.finalError(ctx, retryErr)
		}
	}
	return nil
}

// iterateMember streams the given partitions from one member, marking the
// completed ones; stop reports that yield ended the iteration.
func (m *Map[K, V]) iterateMember(ctx context.Context, addr string, kind pb.IterationKind, parts []int32, remaining map[int32]bool, seen map[int32]map[string]bool, yield func(key, value []byte) bool) (stop bool, err error) {
	var cn *conn
	if addr == "" {
		cn, err = m.anyConn(ctx)
	} else {
		cn, err = m.c.connTo(ctx, addr)
	}
	if err != nil {
		return false, err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := cn.maps.Iterate(sctx, &pb.IterateRequest{Map: m.name, Kind: kind, Partitions: parts})
	if err != nil {
		return false, errorFromStatus(err, cn.addr)
	}
	for {
		page, err := stream.Recv()
		if err == io.EOF {
			for _, pid := range parts { // a member sends every partition asked before it ends
				delete(remaining, pid)
				delete(seen, pid)
			}
			return false, nil
		}
		if err != nil {
			return false, errorFromStatus(err, cn.addr)
		}
		for _, e := range page.Entries {
			pid := m.c.partitionOf(e.Key)
			keys := seen[pid]
			if keys == nil {
				keys = map[string]bool{}
				seen[pid] = keys
			}
			if keys[string(e.Key)] {
				continue // yielded before the partition's owner changed
			}
			keys[string(e.Key)] = true
			if !yield(e.Key, e.Value) {
				return true, nil
			}
		}
		for _, pid := range page.CompletedPartitions {
			delete(remaining, pid)
			delete(seen, pid)
		}
	}
}

// All iterates over the map's entries. Stop early by breaking the loop; an
// error ends the iteration as the last element.
func (m *Map[K, V]) All(ctx context.Context) iter.Seq2[Entry[K, V], error] {
	return func(yield func(Entry[K, V], error) bool) {
		var decodeErr error
		dec := m.c.ser.NewDecoder()
		err := m.iterate(ctx, pb.IterationKind_ITERATION_KIND_ENTRIES, func(kd, vd []byte) bool {
			var e Entry[K, V]
			if e.Key, decodeErr = m.decodeKey(ctx, dec, kd); decodeErr != nil {
				return false
			}
			if e.Value, decodeErr = m.decode(ctx, dec, vd); decodeErr != nil {
				return false
			}
			return yield(e, nil)
		})
		if err = firstErr(decodeErr, err); err != nil {
			yield(Entry[K, V]{}, err)
		}
	}
}

// AllKeys iterates over the map's keys.
func (m *Map[K, V]) AllKeys(ctx context.Context) iter.Seq2[K, error] {
	return func(yield func(K, error) bool) {
		var decodeErr error
		dec := m.c.ser.NewDecoder()
		err := m.iterate(ctx, pb.IterationKind_ITERATION_KIND_KEYS, func(kd, _ []byte) bool {
			k, err := m.decodeKey(ctx, dec, kd)
			if decodeErr = err; err != nil {
				return false
			}
			return yield(k, nil)
		})
		if err = firstErr(decodeErr, err); err != nil {
			var zero K
			yield(zero, err)
		}
	}
}

// AllValues iterates over the map's values.
func (m *Map[K, V]) AllValues(ctx context.Context) iter.Seq2[V, error] {
	return func(yield func(V, error) bool) {
		var decodeErr error
		dec := m.c.ser.NewDecoder()
		err := m.iterate(ctx, pb.IterationKind_ITERATION_KIND_VALUES, func(_, vd []byte) bool {
			v, err := m.decode(ctx, dec, vd)
			if decodeErr = err; err != nil {
				return false
			}
			return yield(v, nil)
		})
		if err = firstErr(decodeErr, err); err != nil {
			var zero V
			yield(zero, err)
		}
	}
}

// EntrySet returns every entry of the map.
func (m *Map[K, V]) EntrySet(ctx context.Context) ([]Entry[K, V], error) {
	return collect(m.All(ctx))
}

// KeySet returns every key of the map.
func (m *Map[K, V]) KeySet(ctx context.Context) ([]K, error) {
	return collect(m.AllKeys(ctx))
}

// Values returns every value of the map.
func (m *Map[K, V]) Values(ctx context.Context) ([]V, error) {
	return collect(m.AllValues(ctx))
}

func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
