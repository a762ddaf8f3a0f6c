package store

import "fmt"

// EntryMeta is an entry's metadata. Times are Unix milliseconds with a
// one-second granularity (the store keeps whole seconds).
type EntryMeta struct {
	// Version is 1 when the entry is created and grows by one on every
	// update, wrapping modulo 2^32 and skipping 0, so 0 never names a live
	// entry (transactions can use it for "absent").
	Version        uint32
	Hits           uint32 // reads since creation, saturating
	CreationTime   int64
	LastUpdateTime int64
	LastAccessTime int64 // last read or write
	// Expiry is the entry's own TTL and max-idle; zero fields follow the map
	// defaults.
	Expiry Expiry
}

// EntryView is an entry with its metadata. Views passed to callbacks
// (Scan, Iterate, GetAll) hold Key and Value slices into the store's memory:
// valid only during the callback, never to be modified. Views returned by
// methods (GetEntryView) hold copies.
type EntryView struct {
	Key   []byte
	Value []byte
	EntryMeta
	// ExpirationTime is when the entry expires given its current times and
	// effective TTL/max-idle (Unix ms); 0 means never. Ignored on import.
	ExpirationTime int64
}

// Entry is a key and a value, for PutAll.
type Entry struct {
	Key, Value []byte
}

// EventType says what happened to an entry.
type EventType uint8

const (
	EventAdded   EventType = iota + 1 // a new entry
	EventUpdated                      // an entry's value was replaced
	EventRemoved                      // removed by remove/delete (or a replicated remove)
	EventEvicted                      // removed by Evict or by the eviction policy
	EventExpired                      // removed because its TTL or max-idle passed
	// EventExpiryChanged: SetTTL changed an entry's TTL; value and version
	// are unchanged. Listeners ignore it; replication forwards the entry.
	EventExpiryChanged
	// EventCleared: Clear emptied the partition (one event; Key is nil).
	EventCleared
	// EventDropped: DropPartition emptied the partition, e.g. after it
	// migrated away (one event; Key is nil). Not a user operation: entry
	// listeners ignore it; derived per-partition state (indexes) is dropped.
	EventDropped
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
	case EventExpiryChanged:
		return "EXPIRY_CHANGED"
	case EventCleared:
		return "CLEARED"
	case EventDropped:
		return "DROPPED"
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Event is one change to a partition.
//
// Key, OldValue and NewValue are views into the store's memory, valid only
// during the OnEvent call. OldValue is nil for ADDED; NewValue is nil for
// REMOVED, EVICTED and EXPIRED; both are nil for CLEARED and DROPPED.
// Meta is the entry's metadata after the change (ADDED, UPDATED,
// EXPIRY_CHANGED) or at removal; with it a replication layer can rebuild the
// exact record (EntryView{Key, NewValue, Meta}) for ApplyRecord.
type Event struct {
	Type      EventType
	Partition int32
	Backup    bool // a backup's change: the partition is in the backup role, or Import applied a copy
	Key       []byte
	OldValue  []byte
	NewValue  []byte
	Meta      EntryMeta
}

// Observer receives every change to a map's entries: entry listeners,
// index maintenance and replication are built on it.
//
// Contract: OnEvent is called synchronously, on the goroutine making the
// change, while the partition is locked, in the order the changes happen in
// that partition (events of different partitions may interleave). It must
// not block and must not call back into the Map (that would deadlock on the
// partition lock). The byte slices in the Event are valid only during the
// call: copy what you keep. It must be safe for concurrent use (different
// partitions call it in parallel).
type Observer interface {
	OnEvent(Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

func (f ObserverFunc) OnEvent(e Event) { f(e) }

var _ Observer = ObserverFunc(nil)

// Stats are a map's statistics on this member, like Hazelcast's
// LocalMapStats.
type Stats struct {
	OwnedEntryCount       int64
	OwnedEntryMemoryCost  int64 // bytes held for owned partitions: slabs (with garbage not yet compacted), indexes, structs
	BackupEntryCount      int64
	BackupEntryMemoryCost int64
	// Cumulative over all partitions on this member (they never decrease,
	// so they can back Prometheus counters; backups rarely count any):
	Hits        int64 // reads that found an entry
	Evictions   int64
	Expirations int64
	// CompactedChunks counts slab chunks emptied by compaction (their live
	// records copied elsewhere).
	CompactedChunks int64
	// Latest over all partitions:
	LastAccessTime int64 // Unix ms of the latest read or write; 0 = never
	LastUpdateTime int64 // Unix ms of the latest write or removal; 0 = never
	// GarbageBytes is the owned partitions' dead record bytes awaiting
	// compaction (part of OwnedEntryMemoryCost).
	GarbageBytes int64
}

// Cursor is a position in a partition's iteration order (by key hash).
// The zero Cursor starts at the beginning; CursorDone means finished.
// A cursor is only meaningful for the Map that produced it.
type Cursor uint64

// CursorDone is returned by Iterate and ExportAppend when no entries are left.
const CursorDone Cursor = 1 << 32

// SweepResult reports one Sweep call.
type SweepResult struct {
	Examined int // entries looked at
	Expired  int // entries removed
}
