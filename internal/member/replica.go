package member

import (
	"fmt"
	"slices"
	"strings"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/serialization/metaproto"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// replicaStore shows the member's maps to the cluster layer as whole
// partitions (cluster.ReplicaStore). Every entry another member sends
// (snapshots, replicated changes, merged entries) is checked as a client's
// write is before it is stored: see checkEntry.
type replicaStore struct {
	maps       *maps.Registry
	ser        *serialization.Service
	partitions int32
	clock      store.Clock
}

// checkEntry validates an entry of partition pid that another member sent,
// as the server validates a client's write: the key and the value are
// well-formed Data of types this member knows, and the key's hash maps to
// pid. Sizes are checked by the store.
func (r *replicaStore) checkEntry(pid int32, key, value []byte) error {
	if err := r.checkKey(pid, key); err != nil {
		return err
	}
	if len(value) == 0 {
		return fmt.Errorf("value: %w", store.ErrInvalidValue)
	}
	if err := r.ser.Validate(value); err != nil {
		return fmt.Errorf("value: %w", err)
	}
	return nil
}

func (r *replicaStore) checkKey(pid int32, key []byte) error {
	if len(key) == 0 {
		return fmt.Errorf("key: %w", store.ErrInvalidKey)
	}
	if err := r.ser.Validate(key); err != nil {
		return fmt.Errorf("key: %w", err)
	}
	if got := serialization.Data(key).PartitionID(r.partitions); got != pid {
		return fmt.Errorf("key: %w: its hash maps to partition %d, not %d", store.ErrInvalidKey, got, pid)
	}
	return nil
}

// holding returns the maps that hold partition pid, sorted by name.
func (r *replicaStore) holding(pid int32) []*store.Map {
	ms := r.maps.Directory().Maps(pid)
	slices.SortFunc(ms, func(a, b *store.Map) int { return strings.Compare(a.Config().Name, b.Config().Name) })
	return ms
}

func (r *replicaStore) Export(pid int32, chunkBytes int, fn func(mapName string, chunk []byte) error) error {
	var buf []byte
	for _, m := range r.holding(pid) {
		for cursor := store.Cursor(0); cursor != store.CursorDone; {
			var err error
			buf, cursor, err = m.ExportAppend(buf[:0], pid, cursor, chunkBytes)
			if err != nil {
				return err
			}
			if len(buf) <= 1 {
				continue // the format byte alone: no entries
			}
			if err := fn(m.Config().Name, buf); err != nil {
				return err
			}
			buf = nil // fn may keep it (a message in flight)
		}
	}
	return nil
}

func (r *replicaStore) Check(name string, pid int32, chunk []byte) error {
	m, err := r.maps.Replica(name)
	if err != nil {
		return err
	}
	return m.Store.CheckImport(chunk, func(key, value []byte) error { return r.checkEntry(pid, key, value) })
}

func (r *replicaStore) Import(name string, pid int32, chunk []byte) error {
	m, err := r.maps.Replica(name)
	if err != nil {
		return err
	}
	if err := m.Store.CheckImport(chunk, func(key, value []byte) error { return r.checkEntry(pid, key, value) }); err != nil {
		return err
	}
	_, err = m.Store.Import(pid, chunk)
	return err
}

// expiryToProto and expiryFromProto carry an entry's own TTL and max-idle:
// 0 follows the map default, -1 is forever.
func durationToProto(d time.Duration) int64 {
	if d == store.Forever {
		return -1
	}
	return d.Milliseconds()
}

func durationFromProto(ms int64) time.Duration {
	if ms < 0 {
		return store.Forever
	}
	return time.Duration(ms) * time.Millisecond
}

func (r *replicaStore) Apply(pid int32, c *cluster.Change) error {
	m, err := r.maps.Replica(c.Map)
	if err != nil {
		return err
	}
	switch c.Kind {
	case cluster.ChangeRecord:
		if err := r.checkEntry(pid, c.Key, c.Value); err != nil {
			return err
		}
		return m.Store.ApplyRecord(pid, store.EntryView{Key: c.Key, Value: c.Value, EntryMeta: store.EntryMeta{
			Version: c.Version, Hits: c.Hits,
			CreationTime: c.CreationTime, LastUpdateTime: c.UpdateTime, LastAccessTime: c.AccessTime,
			Expiry: store.Expiry{TTL: durationFromProto(c.TTLMs), MaxIdle: durationFromProto(c.MaxIdleMs)},
		}})
	case cluster.ChangeRemoved:
		if err := r.checkKey(pid, c.Key); err != nil {
			return err
		}
		_, err := m.Store.ApplyRemove(pid, c.Key)
		return err
	case cluster.ChangeCleared:
		_, err := m.Store.Clear(pid)
		return err
	}
	return nil
}

func (r *replicaStore) DropPartition(pid int32) error {
	for _, m := range r.maps.Directory().Maps(pid) {
		if err := m.DropPartition(pid); err != nil {
			return err
		}
	}
	return nil
}

func (r *replicaStore) SetRole(pid int32, owned bool) {
	role := store.RoleOwner
	if !owned {
		role = store.RoleBackup
	}
	_ = r.maps.Directory().SetRole(pid, role) // pid is in range
}

func (r *replicaStore) MergeEntry(name string, pid int32, key, value []byte, ttl time.Duration) (bool, error) {
	if err := r.checkEntry(pid, key, value); err != nil {
		return false, err
	}
	m, err := r.maps.Replica(name)
	if err != nil {
		return false, err
	}
	exp := store.Expiry{TTL: store.Forever}
	if ttl > 0 {
		exp.TTL = ttl
	}
	_, stored, err := m.Store.PutIfAbsent(pid, key, value, exp)
	return stored, err
}

func (r *replicaStore) Entries(pid int32, fn func(mapName string, key, value []byte, ttl time.Duration) bool) error {
	now := r.now().UnixMilli()
	for _, m := range r.holding(pid) {
		name, more := m.Config().Name, true
		if maps.IsSystem(name) {
			continue // locks and transaction outcomes are not merged: see ARCHITECTURE.md
		}
		err := m.Scan(pid, func(v store.EntryView) bool {
			var ttl time.Duration
			if v.ExpirationTime > 0 {
				ttl = time.Duration(max(v.ExpirationTime-now, 1)) * time.Millisecond
			}
			more = fn(name, v.Key, v.Value, ttl)
			return more
		})
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func (r *replicaStore) now() time.Time {
	if r.clock != nil {
		return r.clock.Now()
	}
	return time.Now()
}

// replicationFeed hands the cluster layer every change the maps' stores
// make, in the order they make them, under the partition's lock: the maps
// registry's event hook (maps.Options.OnEvent). The node numbers each
// change of a partition this member owns within the partition's epoch and
// wakes the senders of its backups (cluster.Node.Record); a write's
// handler then waits for the synchronous backups' acknowledgements
// (cluster.Node.BeginWrite, in internal/server's write). Changes a backup
// applies are not replicated again.
type replicationFeed struct{ node *cluster.Node }

func (f replicationFeed) onEvent(mapName string, e store.Event) {
	var c cluster.Change
	if changeOf(&c, mapName, e) {
		f.node.Record(e.Partition, &c)
	}
}

// changeOf fills c with a store change of an owned partition as the
// cluster layer replicates it (its bytes alias the event's, which
// Node.Record copies); false for changes not replicated.
func changeOf(c *cluster.Change, mapName string, e store.Event) bool {
	if e.Backup {
		return false // applying a replicated change: not replicated again
	}
	*c = cluster.Change{Map: mapName}
	switch e.Type {
	case store.EventAdded, store.EventUpdated, store.EventExpiryChanged:
		c.Kind, c.Key, c.Value = cluster.ChangeRecord, e.Key, e.NewValue
		c.Version, c.Hits = e.Meta.Version, e.Meta.Hits
		c.CreationTime, c.UpdateTime, c.AccessTime = e.Meta.CreationTime, e.Meta.LastUpdateTime, e.Meta.LastAccessTime
		c.TTLMs, c.MaxIdleMs = durationToProto(e.Meta.Expiry.TTL), durationToProto(e.Meta.Expiry.MaxIdle)
	case store.EventRemoved, store.EventEvicted, store.EventExpired:
		c.Kind, c.Key = cluster.ChangeRemoved, e.Key
	case store.EventCleared:
		c.Kind = cluster.ChangeCleared
	default:
		return false
	}
	return true
}

// metadataStore shows the serialization registries to the cluster layer
// (cluster.MetadataStore).
type metadataStore struct{ ser *serialization.Service }

func (m metadataStore) List() *pb.MetadataList          { return metaproto.List(m.ser) }
func (m metadataStore) Put(list *pb.MetadataList) error { return metaproto.Register(m.ser, list) }
