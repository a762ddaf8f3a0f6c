package server

import (
	"context"
	"fmt"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// checkData validates a key or value: present and a well-formed Data whose
// metadata (Compact schema) the member knows.
func (s *Server) checkData(field string, b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%s: %w", field, store.ErrInvalidValue)
	}
	if err := s.cfg.Serialization.Validate(b); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

// target resolves the map and the partition of key.
func (s *Server) target(name string, key []byte) (*maps.Map, int32, error) {
	if len(key) == 0 {
		return nil, 0, fmt.Errorf("key: %w", store.ErrInvalidKey)
	}
	if err := s.checkData("key", key); err != nil {
		return nil, 0, err
	}
	m, err := s.cfg.Maps.Get(name)
	if err != nil {
		return nil, 0, err
	}
	return m, s.partitionOf(key), nil
}

// existing resolves a call that reads or removes: the map, or nil when it
// does not exist on this member (the call then finds and changes nothing,
// and creates no map), and the key's partition, which this member must
// own.
func (s *Server) existing(name string, key []byte) (*maps.Map, int32, error) {
	if len(key) == 0 {
		return nil, 0, fmt.Errorf("key: %w", store.ErrInvalidKey)
	}
	if err := s.checkData("key", key); err != nil {
		return nil, 0, err
	}
	m, err := s.lookup(name)
	if err != nil {
		return nil, 0, err
	}
	pid := s.partitionOf(key)
	if err := s.cfg.Cluster.CheckRead(pid); err != nil {
		return nil, 0, err
	}
	return m, pid, nil
}

// lookup returns the named map if it exists on this member (nil if not),
// without creating it.
func (s *Server) lookup(name string) (*maps.Map, error) {
	if err := maps.CheckName(name); err != nil {
		return nil, err
	}
	m, _ := s.cfg.Maps.Lookup(name)
	return m, nil
}

// write runs fn, a change of partition pid, as the owner: it fails when
// this member does not own pid, and returns once the map's synchronous
// backups confirmed the change. The path of the change: BeginWrite admits
// the write (this member owns pid and is not handing it over); fn changes
// the store, which reports the change to the maps registry's event hook,
// synchronously and under the partition's lock; the member's hook
// (replicationFeed in internal/member) hands it to cluster.Node.Record,
// which numbers it in the partition's log and wakes the senders to the
// backups; end waits until the first syncBackups backups acknowledged
// that number.
func (s *Server) write(ctx context.Context, m *maps.Map, pid int32, fn func() error) error {
	return s.writeBackups(ctx, m.Config().BackupCount, pid, fn)
}

// writeKey is write for a plain operation's change of key: the change
// waits while another holds a lock on the key (a transaction, or another
// client's lock), resolving what can be resolved, and runs under the
// key's latch after a last look at the lock table, so that no lock can be
// taken between that look and the change.
func (s *Server) writeKey(ctx context.Context, m *maps.Map, pid int32, key []byte, fn func() error) error {
	return s.writeGuarded(ctx, m, pid, key, nil, fn)
}

// writeKeys is writeKey for a change of several keys of one partition.
func (s *Server) writeKeys(ctx context.Context, m *maps.Map, pid int32, entries []store.Entry, fn func() error) error {
	return s.writeGuarded(ctx, m, pid, nil, entries, fn)
}

// writeGuarded is writeKey of key, or writeKeys of entries when key is
// nil (one key takes its latch alone, with no allocation: the path of
// every plain write).
func (s *Server) writeGuarded(ctx context.Context, m *maps.Map, pid int32, key []byte, entries []store.Entry, fn func() error) error {
	var caller locks.UUID
	known := false
	who := func() locks.UUID {
		if !known {
			caller, known = s.clientOf(ctx), true
		}
		return caller
	}
	n := len(entries)
	if key != nil {
		n = 1
	}
	keyAt := func(i int) []byte {
		if key != nil {
			return key
		}
		return entries[i].Key
	}
	var stripes []int
	for {
		if m.Locks() != nil {
			for i := 0; i < n; i++ {
				if err := s.awaitKey(ctx, m, pid, keyAt(i), accessWrite, who(), locks.UUID{}); err != nil {
					return err
				}
			}
		}
		w, err := s.cfg.Cluster.BeginWrite(pid, m.Config().BackupCount)
		if err != nil {
			return err
		}
		var one int
		if key != nil {
			one = s.latches.Stripe(pid, m.Name(), key)
			s.latches.Lock(one)
		} else {
			stripes = stripes[:0]
			for _, e := range entries {
				stripes = append(stripes, s.latches.Stripe(pid, m.Name(), e.Key))
			}
			stripes = s.latches.LockAll(stripes)
		}
		blocked, werr := false, error(nil)
		if m.Locks() != nil {
			for i := 0; i < n && !blocked && werr == nil; i++ {
				blocked, werr = s.lockedFor(m, pid, keyAt(i), who())
			}
		}
		if !blocked && werr == nil {
			werr = fn()
		}
		if key != nil {
			s.latches.Unlock(one)
		} else {
			s.latches.UnlockAll(stripes)
		}
		in := inlineOf(ctx)
		var backups cluster.Backups
		if in != nil {
			// The reader sends the changes of the calls it ran together.
			backups, in.unsent = w.EndSending(), true
		} else {
			backups = w.End()
		}
		if in != nil && werr == nil && !blocked {
			// Run by the framed pipeline's reader: the wait for the
			// backups is its caller's.
			in.backups, in.written = backups, true
			return nil
		}
		if eerr := backups.Wait(ctx); werr == nil {
			werr = eerr
		}
		if werr != nil || !blocked {
			return werr
		}
	}
}

// lockedFor reports whether a lock of another stands in caller's way to
// write key; the key's latch is held.
func (s *Server) lockedFor(m *maps.Map, pid int32, key []byte, caller locks.UUID) (bool, error) {
	rec, found, err := s.lockOf(m, pid, key)
	if err != nil || !found {
		return false, err
	}
	return blocks(rec, accessWrite, caller, locks.UUID{}, s.nowMs(), false) != free, nil
}

// targetWrite resolves a write that stores value under key with an
// expiry: the map, the key's partition, the checked value and the expiry.
func (s *Server) targetWrite(name string, key, value []byte, ttlMs, maxIdleMs *int64) (*maps.Map, int32, store.Expiry, error) {
	m, pid, err := s.target(name, key)
	if err != nil {
		return nil, 0, store.Expiry{}, err
	}
	if err := s.checkData("value", value); err != nil {
		return nil, 0, store.Expiry{}, err
	}
	exp, err := expiry(ttlMs, maxIdleMs)
	if err != nil {
		return nil, 0, store.Expiry{}, err
	}
	return m, pid, exp, nil
}

func (s *Server) partitionOf(key []byte) int32 {
	return serialization.Data(key).PartitionID(int32(s.cfg.Maps.PartitionCount()))
}

// expiry converts the optional ttl/max-idle fields: unset follows the map
// default, 0 is forever, positive is milliseconds.
func expiry(ttl, maxIdle *int64) (store.Expiry, error) {
	var e store.Expiry
	conv := func(v *int64, name string) (time.Duration, error) {
		switch {
		case v == nil:
			return 0, nil
		case *v < 0:
			return 0, invalid("%s %d ms is negative", name, *v)
		case *v == 0:
			return store.Forever, nil
		}
		return time.Duration(*v) * time.Millisecond, nil
	}
	var err error
	if e.TTL, err = conv(ttl, "ttl"); err != nil {
		return e, err
	}
	e.MaxIdle, err = conv(maxIdle, "max-idle")
	return e, err
}

func valueResponse(v []byte, found bool) *pb.ValueResponse {
	if !found {
		return &pb.ValueResponse{}
	}
	return &pb.ValueResponse{Found: true, Value: v}
}

func (s *Server) put(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	old, found, err := s.putEntry(ctx, nil, r.Map, r.Key, r.Value, r.TtlMs, r.MaxIdleMs)
	if err != nil {
		return nil, err
	}
	return valueResponse(old, found), nil
}

// putEntry is put: the previous value, if any, is appended to dst.
func (s *Server) putEntry(ctx context.Context, dst []byte, name string, key, value []byte, ttl, maxIdle *int64) ([]byte, bool, error) {
	m, pid, exp, err := s.targetWrite(name, key, value, ttl, maxIdle)
	if err != nil {
		return dst, false, err
	}
	m.CountPut()
	var found bool
	err = s.writeKey(ctx, m, pid, key, func() (err error) {
		dst, found, err = m.Store.PutAppend(dst, pid, key, value, exp)
		return err
	})
	return dst, found, err
}

func (s *Server) set(ctx context.Context, r *pb.SetRequest) (*pb.Empty, error) {
	if err := s.setEntry(ctx, r.Map, r.Key, r.Value, r.TtlMs, r.MaxIdleMs); err != nil {
		return nil, err
	}
	return &pb.Empty{}, nil
}

// setEntry is set.
func (s *Server) setEntry(ctx context.Context, name string, key, value []byte, ttl, maxIdle *int64) error {
	m, pid, exp, err := s.targetWrite(name, key, value, ttl, maxIdle)
	if err != nil {
		return err
	}
	m.CountSet()
	return s.writeKey(ctx, m, pid, key, func() error { return m.Store.Set(pid, key, value, exp) })
}

func (s *Server) putIfAbsent(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	m, pid, exp, err := s.targetWrite(r.Map, r.Key, r.Value, r.TtlMs, r.MaxIdleMs)
	if err != nil {
		return nil, err
	}
	m.CountPut()
	var cur []byte
	var stored bool
	err = s.writeKey(ctx, m, pid, r.Key, func() (err error) {
		cur, stored, err = m.Store.PutIfAbsent(pid, r.Key, r.Value, exp)
		return err
	})
	if err != nil {
		return nil, err
	}
	return valueResponse(cur, !stored), nil
}

func (s *Server) get(ctx context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
	v, found, err := s.getEntry(ctx, nil, r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	return valueResponse(v, found), nil
}

// getEntry is get: the value, if any, is appended to dst.
func (s *Server) getEntry(ctx context.Context, dst []byte, name string, key []byte) ([]byte, bool, error) {
	m, pid, err := s.existing(name, key)
	if err != nil || m == nil {
		return dst, false, err
	}
	if err := s.awaitKey(ctx, m, pid, key, accessRead, locks.UUID{}, locks.UUID{}); err != nil {
		return dst, false, err
	}
	m.CountGet()
	return m.Store.GetAppend(dst, pid, key)
}

func (s *Server) remove(ctx context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
	old, found, err := s.removeEntry(ctx, nil, r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	return valueResponse(old, found), nil
}

// removeEntry is remove: the value removed, if any, is appended to dst.
func (s *Server) removeEntry(ctx context.Context, dst []byte, name string, key []byte) ([]byte, bool, error) {
	m, pid, err := s.existing(name, key)
	if err != nil || m == nil {
		return dst, false, err
	}
	m.CountRemove()
	var found bool
	err = s.writeKey(ctx, m, pid, key, func() (err error) {
		dst, found, err = m.Store.RemoveAppend(dst, pid, key)
		return err
	})
	return dst, found, err
}

func (s *Server) delete(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	ok, err := s.deleteEntry(ctx, r.Map, r.Key)
	return &pb.BoolResponse{Value: ok}, err
}

// deleteEntry is delete.
func (s *Server) deleteEntry(ctx context.Context, name string, key []byte) (bool, error) {
	m, pid, err := s.existing(name, key)
	if err != nil || m == nil {
		return false, err
	}
	m.CountRemove()
	var ok bool
	err = s.writeKey(ctx, m, pid, key, func() (err error) {
		ok, err = m.Store.Delete(pid, key)
		return err
	})
	return ok, err
}

func (s *Server) removeIfSame(ctx context.Context, r *pb.ReplaceIfSameRequest) (*pb.BoolResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	if err := s.checkData("expected", r.Expected); err != nil || m == nil {
		return &pb.BoolResponse{}, err
	}
	m.CountRemove()
	var ok bool
	err = s.writeKey(ctx, m, pid, r.Key, func() (err error) {
		ok, err = m.Store.RemoveIfSame(pid, r.Key, r.Expected)
		return err
	})
	return &pb.BoolResponse{Value: ok}, err
}

func (s *Server) replace(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	if err := s.checkData("value", r.Value); err != nil {
		return nil, err
	}
	if r.TtlMs != nil || r.MaxIdleMs != nil {
		return nil, invalid("replace keeps the entry's expiry; ttl and max-idle are not accepted")
	}
	if m == nil {
		return &pb.ValueResponse{}, nil
	}
	m.CountPut()
	var old []byte
	var found bool
	err = s.writeKey(ctx, m, pid, r.Key, func() (err error) {
		old, found, err = m.Store.Replace(pid, r.Key, r.Value)
		return err
	})
	if err != nil {
		return nil, err
	}
	return valueResponse(old, found), nil
}

func (s *Server) replaceIfSame(ctx context.Context, r *pb.ReplaceIfSameRequest) (*pb.BoolResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	if err := s.checkData("expected", r.Expected); err != nil {
		return nil, err
	}
	if err := s.checkData("value", r.Value); err != nil || m == nil {
		return &pb.BoolResponse{}, err
	}
	m.CountPut()
	var ok bool
	err = s.writeKey(ctx, m, pid, r.Key, func() (err error) {
		ok, err = m.Store.ReplaceIfSame(pid, r.Key, r.Expected, r.Value)
		return err
	})
	return &pb.BoolResponse{Value: ok}, err
}

func (s *Server) containsKey(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	ok, err := s.containsEntry(ctx, r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	return &pb.BoolResponse{Value: ok}, nil
}

// containsEntry is containsKey.
func (s *Server) containsEntry(ctx context.Context, name string, key []byte) (bool, error) {
	m, pid, err := s.existing(name, key)
	if err != nil || m == nil {
		return false, err
	}
	if err := s.awaitKey(ctx, m, pid, key, accessRead, locks.UUID{}, locks.UUID{}); err != nil {
		return false, err
	}
	return m.Store.ContainsKey(pid, key)
}

func (s *Server) evict(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil || m == nil {
		return &pb.BoolResponse{}, err
	}
	var ok bool
	err = s.writeKey(ctx, m, pid, r.Key, func() (err error) {
		ok, err = m.Store.Evict(pid, r.Key)
		return err
	})
	return &pb.BoolResponse{Value: ok}, err
}

func (s *Server) setTTL(ctx context.Context, r *pb.SetTtlRequest) (*pb.BoolResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	exp, err := expiry(&r.TtlMs, nil)
	if err != nil || m == nil {
		return &pb.BoolResponse{}, err
	}
	var ok bool
	err = s.writeKey(ctx, m, pid, r.Key, func() (err error) {
		ok, err = m.Store.SetTTL(pid, r.Key, exp.TTL)
		return err
	})
	return &pb.BoolResponse{Value: ok}, err
}

func (s *Server) getEntryView(ctx context.Context, r *pb.KeyRequest) (*pb.EntryViewResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil || m == nil {
		return &pb.EntryViewResponse{}, err
	}
	if err := s.awaitKey(ctx, m, pid, r.Key, accessRead, locks.UUID{}, locks.UUID{}); err != nil {
		return nil, err
	}
	v, found, err := m.Store.GetEntryView(pid, r.Key)
	if err != nil || !found {
		return &pb.EntryViewResponse{}, err
	}
	return &pb.EntryViewResponse{Found: true, View: entryView(v, m.Config())}, nil
}

func durationMs(d time.Duration) int64 {
	if d == store.Forever {
		return 0
	}
	return d.Milliseconds()
}

func entryView(v store.EntryView, cfg maps.Config) *pb.EntryView {
	ttl, idle := v.Expiry.TTL, v.Expiry.MaxIdle
	if ttl == 0 {
		ttl = cfg.TTL
	}
	if idle == 0 {
		idle = cfg.MaxIdle
	}
	return &pb.EntryView{
		Key: v.Key, Value: v.Value, Version: int64(v.Version),
		CreationTimeMs: v.CreationTime, LastAccessTimeMs: v.LastAccessTime, LastUpdateTimeMs: v.LastUpdateTime,
		ExpirationTimeMs: v.ExpirationTime, Hits: int64(v.Hits),
		TtlMs: durationMs(ttl), MaxIdleMs: durationMs(idle), Cost: int64(len(v.Key) + len(v.Value)),
	}
}

// checkBatch refuses a request of n keys or entries over the batch limit,
// before any work.
func (s *Server) checkBatch(what string, n int) error {
	if n > s.cfg.MaxBatchEntries {
		return &TooLargeError{Op: what, What: "request", Size: n, Limit: s.cfg.MaxBatchEntries, Unit: "entries", Setting: "limits.max-batch-entries"}
	}
	return nil
}

func (s *Server) putAll(ctx context.Context, r *pb.PutAllRequest) (*pb.Empty, error) {
	if err := s.checkBatch("putAll", len(r.Entries)); err != nil {
		return nil, err
	}
	m, err := s.cfg.Maps.Get(r.Map)
	if err != nil {
		return nil, err
	}
	exp, err := expiry(r.TtlMs, nil)
	if err != nil {
		return nil, err
	}
	// Validate everything first so that a bad entry changes nothing.
	byPartition := map[int32][]store.Entry{}
	for i, e := range r.Entries {
		if err := s.checkData(fmt.Sprintf("entries[%d].key", i), e.Key); err != nil {
			return nil, err
		}
		if err := s.checkData(fmt.Sprintf("entries[%d].value", i), e.Value); err != nil {
			return nil, err
		}
		pid := s.partitionOf(e.Key)
		byPartition[pid] = append(byPartition[pid], store.Entry{Key: e.Key, Value: e.Value})
	}
	// Refuse the whole batch up front if a partition is not owned here.
	for pid := range byPartition {
		if err := s.cfg.Cluster.CheckRead(pid); err != nil {
			return nil, err
		}
	}
	for pid, entries := range byPartition {
		m.CountSet()
		if err := s.writeKeys(ctx, m, pid, entries, func() error { return m.Store.PutAll(pid, entries, exp) }); err != nil {
			return nil, err
		}
	}
	return &pb.Empty{}, nil
}

// entryOverhead approximates what an Entry adds to an answer beyond its
// key and value (tags and lengths).
const entryOverhead = 16

func (s *Server) getAll(ctx context.Context, r *pb.GetAllRequest) (*pb.EntriesResponse, error) {
	if err := s.checkBatch("getAll", len(r.Keys)); err != nil {
		return nil, err
	}
	m, err := s.lookup(r.Map)
	if err != nil {
		return nil, err
	}
	byPartition := map[int32][]int{} // indexes of r.Keys
	for i, k := range r.Keys {
		if err := s.checkData(fmt.Sprintf("keys[%d]", i), k); err != nil {
			return nil, err
		}
		pid := s.partitionOf(k)
		byPartition[pid] = append(byPartition[pid], i)
	}
	for pid := range byPartition {
		if err := s.cfg.Cluster.CheckRead(pid); err != nil {
			return nil, err
		}
	}
	// The answer stops growing at the largest message the member sends: a
	// partial request gets what fits and the keys left, another fails.
	resp := &pb.EntriesResponse{}
	if m == nil {
		return resp, nil
	}
	if m.Locks() != nil {
		for pid, idx := range byPartition {
			for _, i := range idx {
				if err := s.awaitKey(ctx, m, pid, r.Keys[i], accessRead, locks.UUID{}, locks.UUID{}); err != nil {
					return nil, err
				}
			}
		}
	}
	size, full := 0, false
	for pid, idx := range byPartition {
		if full {
			for _, i := range idx {
				resp.Unanswered = append(resp.Unanswered, int32(i))
			}
			continue
		}
		keys := make([][]byte, len(idx))
		for j, i := range idx {
			keys[j] = r.Keys[i]
		}
		m.CountGet()
		err := m.Store.GetAll(pid, keys, func(j int, v []byte) {
			if full {
				return
			}
			if size += len(keys[j]) + len(v) + entryOverhead; size > s.cfg.MaxMessageSize {
				full = true
				for _, i := range idx[j:] {
					resp.Unanswered = append(resp.Unanswered, int32(i))
				}
				return
			}
			resp.Entries = append(resp.Entries, &pb.Entry{Key: keys[j], Value: append([]byte(nil), v...)})
		})
		if err != nil {
			return nil, err
		}
		if full && (!r.Partial || len(resp.Entries) == 0) {
			return nil, &TooLargeError{Op: "getAll", What: "answer", Size: size, Limit: s.cfg.MaxMessageSize, Unit: "bytes", Setting: "limits.max-message-size"}
		}
	}
	return resp, nil
}

func (s *Server) size(ctx context.Context, r *pb.MapRequest) (*pb.SizeResponse, error) {
	m, err := s.lookup(r.Map)
	if err != nil {
		return nil, err
	}
	resp := &pb.SizeResponse{}
	for pid := int32(0); pid < int32(s.cfg.Maps.PartitionCount()); pid++ {
		if !s.cfg.Cluster.Owned(pid) {
			continue
		}
		if m != nil { // a map this member does not have is empty here
			n, err := m.Store.PartitionSize(pid)
			if err != nil {
				return nil, err
			}
			resp.Size += int64(n)
		}
		resp.Partitions = append(resp.Partitions, pid)
	}
	return resp, nil
}

// clear empties the partitions this member owns and names them, so that a
// client can tell when every partition was cleared while partitions move.
func (s *Server) clear(ctx context.Context, r *pb.MapRequest) (*pb.SizeResponse, error) {
	m, err := s.cfg.Maps.Get(r.Map)
	if err != nil {
		return nil, err
	}
	resp := &pb.SizeResponse{}
	for pid := int32(0); pid < int32(s.cfg.Maps.PartitionCount()); pid++ {
		if !s.cfg.Cluster.Owned(pid) {
			continue
		}
		err := s.write(ctx, m, pid, func() error {
			n, err := m.Store.Clear(pid)
			resp.Size += int64(n)
			return err
		})
		if err != nil {
			return nil, err
		}
		resp.Partitions = append(resp.Partitions, pid)
	}
	return resp, nil
}

func (s *Server) evictAll(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	m, err := s.cfg.Maps.Get(r.Map)
	if err != nil {
		return nil, err
	}
	for pid := int32(0); pid < int32(s.cfg.Maps.PartitionCount()); pid++ {
		if !s.cfg.Cluster.Owned(pid) {
			continue
		}
		if err := s.write(ctx, m, pid, func() error { _, err := m.Store.EvictAll(pid); return err }); err != nil {
			return nil, err
		}
	}
	return &pb.Empty{}, nil
}

func (s *Server) destroy(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	if r.Map == "" {
		return nil, invalid("map name is empty")
	}
	s.cfg.Maps.Destroy(r.Map)
	return &pb.Empty{}, nil
}

func (s *Server) mapStats(ctx context.Context, r *pb.MapRequest) (*pb.MapStats, error) {
	m, err := s.lookup(r.Map)
	if err != nil || m == nil {
		return &pb.MapStats{Map: r.Map}, err
	}
	st := m.Stats()
	return &pb.MapStats{
		Map:                   r.Map,
		OwnedEntryCount:       st.OwnedEntryCount,
		OwnedEntryMemoryCost:  st.OwnedEntryMemoryCost,
		BackupEntryCount:      st.BackupEntryCount,
		BackupEntryMemoryCost: st.BackupEntryMemoryCost,
		Hits:                  st.Hits,
		GetCount:              st.Gets,
		PutCount:              st.Puts,
		SetCount:              st.Sets,
		RemoveCount:           st.Removes,
		Evictions:             st.Evictions,
		Expirations:           st.Expirations,
		LastAccessTimeMs:      st.LastAccessTime,
		LastUpdateTimeMs:      st.LastUpdateTime,
		CreationTimeMs:        st.CreationTime.UnixMilli(),
	}, nil
}

func (s *Server) configureMap(ctx context.Context, r *pb.MapConfig) (*pb.Empty, error) {
	cfg := s.cfg.Maps.ConfigOf(r.Map)
	if r.TtlMs != nil || r.MaxIdleMs != nil {
		exp, err := expiry(r.TtlMs, r.MaxIdleMs)
		if err != nil {
			return nil, err
		}
		if r.TtlMs != nil {
			cfg.TTL = exp.TTL
		}
		if r.MaxIdleMs != nil {
			cfg.MaxIdle = exp.MaxIdle
		}
		for _, d := range []*time.Duration{&cfg.TTL, &cfg.MaxIdle} {
			if *d == store.Forever {
				*d = 0 // a map default of 0 means forever
			}
		}
	}
	if r.EvictionPolicy != nil {
		switch *r.EvictionPolicy {
		case pb.EvictionPolicy_EVICTION_POLICY_NONE:
			cfg.Eviction.Policy = store.EvictionNone
		case pb.EvictionPolicy_EVICTION_POLICY_LRU:
			cfg.Eviction.Policy = store.EvictionLRU
		case pb.EvictionPolicy_EVICTION_POLICY_LFU:
			cfg.Eviction.Policy = store.EvictionLFU
		default:
			return nil, invalid("unknown eviction policy %v", *r.EvictionPolicy)
		}
	}
	if r.MaxEntries != nil {
		if *r.MaxEntries < 0 {
			return nil, invalid("max entries %d is negative", *r.MaxEntries)
		}
		cfg.Eviction.MaxEntries = *r.MaxEntries
	}
	if r.MaxBytes != nil {
		if *r.MaxBytes < 0 {
			return nil, invalid("max bytes %d is negative", *r.MaxBytes)
		}
		cfg.Eviction.MaxBytes = *r.MaxBytes
	}
	if r.BackupCount != nil {
		if *r.BackupCount < 0 || *r.BackupCount > 6 {
			return nil, invalid("backup count %d is not in 0..6", *r.BackupCount)
		}
		cfg.BackupCount = int(*r.BackupCount)
	}
	if r.AsyncBackupCount != nil {
		if *r.AsyncBackupCount < 0 || *r.AsyncBackupCount > 6 {
			return nil, invalid("async backup count %d is not in 0..6", *r.AsyncBackupCount)
		}
		cfg.AsyncBackupCount = int(*r.AsyncBackupCount)
	}
	if n, max := cfg.BackupCount+cfg.AsyncBackupCount, s.cfg.Cluster.Replicas(); n > max {
		return nil, invalid("backup count %d + async backup count %d exceeds the %d backups the cluster keeps of each partition (the largest backup-count + async-backup-count of the members' map configuration)",
			cfg.BackupCount, cfg.AsyncBackupCount, max)
	}
	return &pb.Empty{}, s.cfg.Maps.Configure(r.Map, cfg)
}
