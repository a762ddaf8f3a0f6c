package store

import (
	"fmt"
	"math"
	"time"
)

// Defaults applied by NewMap to zero MapConfig fields.
const (
	DefaultPartitionCount = 271
	DefaultMaxKeySize     = 64 << 10 // 64 KiB
	DefaultMaxValueSize   = 16 << 20 // 16 MiB
	DefaultSampleSize     = 15       // Hazelcast's eviction sample size
	maxSizeLimit          = 1 << 30  // upper bound for MaxKeySize and MaxValueSize
)

// Clock tells the store the time. Every time-dependent behaviour (TTL,
// max-idle, LRU, entry and map statistics) reads it, so tests drive expiry by
// injecting their own. Now must be safe for concurrent use; it is called
// while a partition is locked and must not block.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

var _ Clock = systemClock{}

// SystemClock is the wall clock. Under testing/synctest it follows the
// bubble's fake time.
var SystemClock Clock = systemClock{}

// EvictionPolicy chooses which entry leaves when a map is over its size
// limit.
type EvictionPolicy uint8

const (
	// EvictionNone never evicts; the limits are ignored.
	EvictionNone EvictionPolicy = iota
	// EvictionLRU evicts the least recently accessed entry of a sample.
	EvictionLRU
	// EvictionLFU evicts the least frequently accessed (fewest hits) entry
	// of a sample; ties go to the least recently accessed.
	EvictionLFU
)

func (p EvictionPolicy) String() string {
	switch p {
	case EvictionNone:
		return "NONE"
	case EvictionLRU:
		return "LRU"
	case EvictionLFU:
		return "LFU"
	}
	return fmt.Sprintf("EvictionPolicy(%d)", uint8(p))
}

// EvictionConfig bounds a map's owned entries on this member. Like
// Hazelcast's sampling eviction it is approximate: after a write to an owned
// partition that leaves the map over a limit, entries of that same partition
// are evicted (best of SampleSize sampled entries each time, never the entry
// just written) until the map is back under the limit or that partition
// holds only the new entry. Backup partitions are never evicted by their own
// member: the owner's EVICTED events are replicated to them.
type EvictionConfig struct {
	Policy EvictionPolicy
	// MaxEntries is the limit on owned entries per member; 0 is unlimited.
	MaxEntries int64
	// MaxBytes is the limit on the owned entry memory cost (Stats.OwnedEntryMemoryCost)
	// per member; 0 is unlimited.
	MaxBytes int64
	// SampleSize is how many entries are compared to pick one victim;
	// 0 means DefaultSampleSize.
	SampleSize int
}

// MapConfig configures one map on one member. The zero value is usable.
type MapConfig struct {
	// Name appears in errors and nowhere else; the store does not keep a
	// registry of maps.
	Name string
	// PartitionCount is the number of partitions; 0 means 271.
	PartitionCount int
	// MaxKeySize and MaxValueSize bound the serialized key and value; 0
	// means DefaultMaxKeySize / DefaultMaxValueSize. At most 1 GiB.
	MaxKeySize   int
	MaxValueSize int
	// TTL is the map's default time to live, counted from an entry's last
	// write; 0 means forever. MaxIdle is the default maximum idle time,
	// counted from the last read or write; 0 means forever. Both have a
	// one-second granularity (rounded up), like Hazelcast's.
	TTL     time.Duration
	MaxIdle time.Duration
	// Eviction bounds the map's size on this member.
	Eviction EvictionConfig
	// PerEntryStats keeps each entry's last update and access times and
	// hits (Hazelcast's per-entry-stats-enabled, off by default there
	// too): 12 bytes per entry. Without it an EntryView reports them as 0,
	// reads leave records untouched, and only the entries that need them
	// carry them: every entry of a map with a default TTL or max-idle or
	// an eviction policy, and entries with their own TTL or max-idle.
	// Versions and creation times are always kept.
	PerEntryStats bool
	// Clock is the time source; nil means SystemClock.
	Clock Clock
	// Directory, when set, is shared by the maps of one member: partitions
	// take their role from it, and it lists the maps holding each
	// partition. Its partition count must be PartitionCount.
	Directory *Directory
}

func (c MapConfig) withDefaults() (MapConfig, error) {
	if c.PartitionCount == 0 {
		c.PartitionCount = DefaultPartitionCount
	}
	if c.MaxKeySize == 0 {
		c.MaxKeySize = DefaultMaxKeySize
	}
	if c.MaxValueSize == 0 {
		c.MaxValueSize = DefaultMaxValueSize
	}
	if c.Eviction.SampleSize == 0 {
		c.Eviction.SampleSize = DefaultSampleSize
	}
	if c.Clock == nil {
		c.Clock = SystemClock
	}
	bad := func(format string, args ...any) (MapConfig, error) {
		return c, opErr("new map", fmt.Errorf("%w: map %q: "+format, append([]any{ErrInvalidConfig, c.Name}, args...)...))
	}
	switch {
	case c.PartitionCount < 1 || c.PartitionCount > math.MaxInt32:
		return bad("PartitionCount %d", c.PartitionCount)
	case c.MaxKeySize < 1 || c.MaxKeySize > maxSizeLimit:
		return bad("MaxKeySize %d not in 1..%d", c.MaxKeySize, maxSizeLimit)
	case c.MaxValueSize < 1 || c.MaxValueSize > maxSizeLimit:
		return bad("MaxValueSize %d not in 1..%d", c.MaxValueSize, maxSizeLimit)
	case c.TTL < 0 || c.MaxIdle < 0:
		return bad("negative TTL or MaxIdle")
	case c.Eviction.Policy > EvictionLFU:
		return bad("eviction policy %v", c.Eviction.Policy)
	case c.Eviction.MaxEntries < 0 || c.Eviction.MaxBytes < 0:
		return bad("negative eviction limit")
	case c.Eviction.SampleSize < 1 || c.Eviction.SampleSize > 1024:
		return bad("eviction SampleSize %d not in 1..1024", c.Eviction.SampleSize)
	case c.Directory != nil && len(c.Directory.parts) != c.PartitionCount:
		return bad("a directory of %d partitions for %d", len(c.Directory.parts), c.PartitionCount)
	}
	return c, nil
}

// Forever, as an Expiry field, means the entry never expires by that
// criterion, whatever the map default.
const Forever time.Duration = math.MaxInt64

// Expiry is an entry's own TTL and max-idle, overriding the map defaults.
// For each field: 0 follows the map default (MapConfig.TTL / MaxIdle),
// Forever never expires, a positive duration is rounded up to whole seconds
// (durations of 2^32-1 seconds or more mean Forever), a negative one is
// ErrInvalidExpiry. The zero Expiry therefore means "map defaults".
//
// TTL counts from the entry's last write, max-idle from its last read or
// write (Hazelcast's meaning).
type Expiry struct {
	TTL     time.Duration
	MaxIdle time.Duration
}

// Role is what a partition is on this member, for accounting: owned
// partitions count as owned entries and memory, backup partitions as backup
// entries and memory. Only owned partitions evict and are swept for expiry.
type Role uint8

const (
	RoleOwner Role = iota
	RoleBackup
)

func (r Role) String() string {
	switch r {
	case RoleOwner:
		return "owner"
	case RoleBackup:
		return "backup"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}
