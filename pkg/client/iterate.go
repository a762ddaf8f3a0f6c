package client

import (
	"context"
	"io"
	"iter"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// iterate streams the map's entries from every member, each member sending
// the partitions it owns, in pages. Like Hazelcast's iterators it is weakly
// consistent: entries changed during the iteration may or may not appear.
func (m *Map[K, V]) iterate(ctx context.Context, kind pb.IterationKind, yield func(key, value []byte) bool) error {
	rt := m.c.routing.Load()
	byMember := map[string][]int32{}
	var order []string
	for pid, owner := range rt.owners {
		if _, ok := byMember[owner]; !ok {
			order = append(order, owner)
		}
		byMember[owner] = append(byMember[owner], int32(pid))
	}
	for _, addr := range order {
		var cn *conn
		var err error
		if addr == "" {
			cn, err = m.c.anyConn(ctx)
		} else {
			cn, err = m.c.connTo(ctx, addr)
		}
		if err != nil {
			return err
		}
		sctx, cancel := context.WithCancel(ctx)
		stream, err := cn.maps.Iterate(sctx, &pb.IterateRequest{Map: m.name, Kind: kind, Partitions: byMember[addr]})
		if err != nil {
			cancel()
			return errorFromStatus(err, cn.addr)
		}
		for {
			page, err := stream.Recv()
			if err == io.EOF {
				cancel()
				break
			}
			if err != nil {
				cancel()
				return errorFromStatus(err, cn.addr)
			}
			for _, e := range page.Entries {
				if !yield(e.Key, e.Value) {
					cancel()
					return nil
				}
			}
		}
	}
	return nil
}

// All iterates over the map's entries. Stop early by breaking the loop; an
// error ends the iteration as the last element.
func (m *Map[K, V]) All(ctx context.Context) iter.Seq2[Entry[K, V], error] {
	return func(yield func(Entry[K, V], error) bool) {
		var decodeErr error
		err := m.iterate(ctx, pb.IterationKind_ITERATION_KIND_ENTRIES, func(kd, vd []byte) bool {
			var e Entry[K, V]
			if e.Key, decodeErr = m.decodeKey(ctx, kd); decodeErr != nil {
				return false
			}
			if e.Value, decodeErr = m.decode(ctx, vd); decodeErr != nil {
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
		err := m.iterate(ctx, pb.IterationKind_ITERATION_KIND_KEYS, func(kd, _ []byte) bool {
			k, err := m.decodeKey(ctx, kd)
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
		err := m.iterate(ctx, pb.IterationKind_ITERATION_KIND_VALUES, func(_, vd []byte) bool {
			v, err := m.decode(ctx, vd)
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
