// Package maps is the member's registry of named maps. It creates a map's
// record store on first use with the configuration that matches its name,
// counts operations, fans store change events out to entry listeners, and
// runs expiry sweeps. It does not know about the network: the server
// validates requests and calls it with a partition id per key.
package maps

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atolldb/atoll/internal/store"
)

// ErrMapExists is returned by Configure for a map that is already in use.
var ErrMapExists = errors.New("maps: map already exists")

// ErrInvalidName reports an empty or oversized map name.
var ErrInvalidName = errors.New("maps: invalid map name")

// ErrTooManyMaps: creating the map would exceed the member's limit on the
// number of maps (Options.MaxMaps).
var ErrTooManyMaps = errors.New("maps: too many maps")

// maxNameLen bounds map names.
const maxNameLen = 1024

// SystemPrefix starts the names of the member's own maps, which clients
// may not name: the lock maps (LockMapName) and the transaction outcomes
// (OutcomeMapName). They are created without the limit on the number of
// maps, take no series of their own and are left out of merges.
const SystemPrefix = "__atoll."

// lockMapPrefix names the lock map of a map: LockMapName(m).
const lockMapPrefix = SystemPrefix + "lock."

// OutcomeMapName is the system map of transaction outcome records
// (locks.OutcomeKey).
const OutcomeMapName = SystemPrefix + "txn"

// LockMapName returns the name of the system map that holds the locks of
// map name: the lock of key k is its entry k, in k's partition.
func LockMapName(name string) string { return lockMapPrefix + name }

// LockedMapName returns the map whose locks the system map name holds, or
// false when name is no lock map.
func LockedMapName(name string) (string, bool) {
	if !strings.HasPrefix(name, lockMapPrefix) {
		return "", false
	}
	return name[len(lockMapPrefix):], true
}

// IsSystem reports whether name is a system map's.
func IsSystem(name string) bool { return strings.HasPrefix(name, SystemPrefix) }

// systemValueSize bounds the values of system maps: a transaction's
// primary lock names every key of the transaction.
const systemValueSize = 256 << 20

// Config is the configuration of one map on this member.
type Config struct {
	TTL      time.Duration // default time to live; 0 = forever
	MaxIdle  time.Duration // default max idle; 0 = forever
	Eviction store.EvictionConfig
	// PerEntryStats keeps each entry's hits and last update and access
	// times (store.MapConfig.PerEntryStats).
	PerEntryStats bool
	// BackupCount and AsyncBackupCount are used once the member is part of
	// a cluster; defaults 1 and 0.
	BackupCount      int
	AsyncBackupCount int
}

// DefaultConfig is the configuration of maps that no pattern matches.
func DefaultConfig() Config { return Config{BackupCount: 1} }

// Options configure a Registry.
type Options struct {
	PartitionCount int
	// Configs by map name pattern: an exact name, or a pattern with * (as
	// path.Match, e.g. "cache-*"). Exact names win over patterns, longer
	// patterns over shorter ones; "default" applies when nothing matches.
	Configs      map[string]Config
	MaxKeySize   int
	MaxValueSize int
	Clock        store.Clock
	// OnEvent, when set, receives every change of every map (including
	// changes to backup partitions), under the same contract as
	// store.Observer: synchronous, under the partition lock, non-blocking.
	// The cluster layer replicates changes through it.
	OnEvent func(mapName string, e store.Event)
	// Directory is shared by every map's store: the role of each partition
	// on this member and the maps that hold it (store.Directory). Nil: a
	// directory of the registry's own.
	Directory *store.Directory
	// MaxMaps bounds the maps Get creates (0: unlimited): the member-wide
	// cap on the number of maps (limits.max-maps).
	MaxMaps int
	// MaxMapSeries is how many maps get observability series of their own
	// (metrics and profile labels by map; metrics.map-series-limit): the
	// first ones created, a slot freed by a destroyed map going to the next
	// one created. The others are summed into one aggregate.
	MaxMapSeries int
}

// Registry holds the member's maps. It is safe for concurrent use.
type Registry struct {
	opts Options

	mu      sync.Mutex // serializes map creation and configuration
	configs map[string]Config
	maps    sync.Map // name → *Map; lock-free reads
	count   int      // maps; guarded by mu
	series  int      // maps with series of their own; guarded by mu
}

// NewRegistry returns an empty registry.
func NewRegistry(opts Options) *Registry {
	if opts.PartitionCount == 0 {
		opts.PartitionCount = store.DefaultPartitionCount
	}
	if opts.Directory == nil {
		opts.Directory = store.NewDirectory(opts.PartitionCount)
	}
	r := &Registry{opts: opts, configs: map[string]Config{}}
	for k, v := range opts.Configs {
		r.configs[k] = v
	}
	return r
}

// Directory returns the directory the maps' stores share.
func (r *Registry) Directory() *store.Directory { return r.opts.Directory }

// PartitionCount returns the number of partitions of every map.
func (r *Registry) PartitionCount() int { return r.opts.PartitionCount }

// Get returns the named map, creating it on first use. A map it would
// create past Options.MaxMaps fails with ErrTooManyMaps.
func (r *Registry) Get(name string) (*Map, error) { return r.get(name, true) }

// Replica returns the named map, creating it without the limit on the
// number of maps: for data another member already holds (a backup's copy,
// a migration, a merge), which must not be refused where the owner
// accepted it.
func (r *Registry) Replica(name string) (*Map, error) { return r.get(name, false) }

// CheckName fails with ErrInvalidName for a name no map of a client may
// have: empty, over 1024 bytes, or a system map's.
func CheckName(name string) error {
	if name == "" || len(name) > maxNameLen {
		return fmt.Errorf("%w: %q (names are 1 to %d bytes)", ErrInvalidName, truncate(name), maxNameLen)
	}
	if IsSystem(name) {
		return fmt.Errorf("%w: %q (names starting with %q are the member's own)", ErrInvalidName, truncate(name), SystemPrefix)
	}
	return nil
}

// checkAnyName is CheckName for the maps members create themselves too:
// a system map's name is its prefix and a map name.
func checkAnyName(name string) error {
	if rest, ok := LockedMapName(name); ok {
		return CheckName(rest)
	}
	if name == OutcomeMapName {
		return nil
	}
	return CheckName(name)
}

// System returns the named system map, creating it on first use (like
// Replica, without the limit on the number of maps).
func (r *Registry) System(name string) (*Map, error) {
	if !IsSystem(name) {
		return nil, fmt.Errorf("%w: %q is no system map", ErrInvalidName, truncate(name))
	}
	return r.get(name, false)
}

// LocksOf returns the lock map of m, creating it on first use.
func (r *Registry) LocksOf(m *Map) (*Map, error) {
	if l := m.locks.Load(); l != nil {
		return l, nil
	}
	return r.System(LockMapName(m.name))
}

func (r *Registry) get(name string, limited bool) (*Map, error) {
	if m, ok := r.maps.Load(name); ok {
		return m.(*Map), nil
	}
	check := CheckName
	if !limited {
		check = checkAnyName // a member's own maps, or data of other members
	}
	if err := check(name); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.maps.Load(name); ok {
		return m.(*Map), nil
	}
	if limited && r.opts.MaxMaps > 0 && r.count >= r.opts.MaxMaps {
		return nil, fmt.Errorf("%w: this member holds %d maps, its limit (limits.max-maps); %q was not created: destroy maps or raise the limit",
			ErrTooManyMaps, r.count, truncate(name))
	}
	cfg, maxValue := r.configFor(name), r.opts.MaxValueSize
	system := IsSystem(name)
	if system {
		cfg, maxValue = DefaultConfig(), systemValueSize
	}
	st, err := store.NewMap(store.MapConfig{
		Name:           name,
		PartitionCount: r.opts.PartitionCount,
		MaxKeySize:     r.opts.MaxKeySize,
		MaxValueSize:   maxValue,
		TTL:            cfg.TTL,
		MaxIdle:        cfg.MaxIdle,
		Eviction:       cfg.Eviction,
		PerEntryStats:  cfg.PerEntryStats,
		Clock:          r.opts.Clock,
		Directory:      r.opts.Directory,
	})
	if err != nil {
		return nil, err
	}
	m := &Map{name: name, cfg: cfg, Store: st, created: r.now(), onEvent: r.opts.OnEvent, system: system}
	if !system && r.series < r.opts.MaxMapSeries {
		m.ownSeries = true
		r.series++
	}
	st.SetObserver(m)
	// A map and its lock map find each other whichever comes first.
	if locked, ok := LockedMapName(name); ok {
		if data, ok := r.maps.Load(locked); ok {
			data.(*Map).locks.Store(m)
		}
	} else if l, ok := r.maps.Load(LockMapName(name)); ok && !system {
		m.locks.Store(l.(*Map))
	}
	r.maps.Store(name, m)
	if !system {
		r.count++
	}
	return m, nil
}

// Lookup returns the named map if it exists, without creating it.
func (r *Registry) Lookup(name string) (*Map, bool) {
	m, ok := r.maps.Load(name)
	if !ok {
		return nil, false
	}
	return m.(*Map), true
}

// All returns every map, in no particular order.
func (r *Registry) All() []*Map {
	var out []*Map
	r.maps.Range(func(_, m any) bool {
		out = append(out, m.(*Map))
		return true
	})
	return out
}

// Configure sets the configuration of a map that does not exist yet.
func (r *Registry) Configure(name string, cfg Config) error {
	if err := CheckName(name); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.maps.Load(name); ok {
		return fmt.Errorf("%w: %q; configure a map before its first use", ErrMapExists, name)
	}
	r.configs[name] = cfg
	return nil
}

// ConfigOf returns the configuration the named map has or would get.
func (r *Registry) ConfigOf(name string) Config {
	if m, ok := r.Lookup(name); ok {
		return m.cfg
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.configFor(name)
}

// configFor resolves the configuration for name; r.mu must be held.
func (r *Registry) configFor(name string) Config {
	if c, ok := r.configs[name]; ok {
		return c
	}
	best, bestLen := Config{}, -1
	for pattern, c := range r.configs {
		if !strings.Contains(pattern, "*") {
			continue
		}
		if ok, _ := path.Match(pattern, name); ok && len(pattern) > bestLen {
			best, bestLen = c, len(pattern)
		}
	}
	if bestLen >= 0 {
		return best
	}
	if c, ok := r.configs["default"]; ok {
		return c
	}
	return DefaultConfig()
}

// Destroy removes a map and its data.
func (r *Registry) Destroy(name string) bool {
	r.mu.Lock()
	v, ok := r.maps.LoadAndDelete(name)
	if !ok {
		r.mu.Unlock()
		return false
	}
	m := v.(*Map)
	if !m.system {
		r.count--
	}
	if m.ownSeries {
		r.series--
	}
	r.mu.Unlock()
	r.opts.Directory.Forget(m.Store)
	for pid := 0; pid < r.opts.PartitionCount; pid++ {
		_, _ = m.Store.Clear(int32(pid)) // pid is in range
	}
	m.closeListeners()
	return true
}

// Sweep expires entries in every map, examining at most budget entries per
// map, and returns how many entries expired.
func (r *Registry) Sweep(budget int) int {
	n := 0
	for _, m := range r.All() {
		n += m.Store.Sweep(budget).Expired
	}
	return n
}

func (r *Registry) now() time.Time {
	if r.opts.Clock != nil {
		return r.opts.Clock.Now()
	}
	return time.Now()
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Map is one named map on this member: its record store, its operation
// counters and its listeners.
type Map struct {
	name    string
	cfg     Config
	created time.Time
	// ownSeries: the map has observability series of its own (see
	// Options.MaxMapSeries).
	ownSeries bool
	// system: one of the member's own maps (SystemPrefix).
	system bool
	// locks is the map's lock map once it exists (LockMapName).
	locks atomic.Pointer[Map]
	// Store holds the entries. Callers use it directly for data operations;
	// they count them with the Count* methods.
	Store *store.Map

	gets, puts, sets, removes atomic.Int64
	onEvent                   func(string, store.Event)

	listenersMu sync.Mutex
	listeners   atomic.Pointer[[]*Listener] // copy-on-write

	indexObserver atomic.Pointer[observerBox]
}

type observerBox struct{ o store.Observer }

// SetIndexObserver installs the observer that maintains the map's query
// indexes (nil removes it). It sees every store event, backups included,
// synchronously under the partition lock, before listeners do.
func (m *Map) SetIndexObserver(o store.Observer) {
	if o == nil {
		m.indexObserver.Store(nil)
		return
	}
	m.indexObserver.Store(&observerBox{o})
}

// Name returns the map's name.
func (m *Map) Name() string { return m.name }

// System reports whether the map is one of the member's own (its lock
// maps and transaction outcomes).
func (m *Map) System() bool { return m.system }

// Locks returns the map's lock map, or nil when no key of the map was
// ever locked on this member.
func (m *Map) Locks() *Map { return m.locks.Load() }

// OwnSeries reports whether the map has metric series and profile labels
// of its own; the others share one aggregate (Options.MaxMapSeries).
func (m *Map) OwnSeries() bool { return m.ownSeries }

// Config returns the map's configuration.
func (m *Map) Config() Config { return m.cfg }

// CountGet, CountPut, CountSet and CountRemove count operations for Stats.
func (m *Map) CountGet()    { m.gets.Add(1) }
func (m *Map) CountPut()    { m.puts.Add(1) }
func (m *Map) CountSet()    { m.sets.Add(1) }
func (m *Map) CountRemove() { m.removes.Add(1) }

// Stats combines the store's statistics with the operation counters.
type Stats struct {
	store.Stats
	Gets, Puts, Sets, Removes int64
	CreationTime              time.Time
}

// Stats returns the map's statistics on this member.
func (m *Map) Stats() Stats {
	return Stats{
		Stats: m.Store.Stats(),
		Gets:  m.gets.Load(), Puts: m.puts.Load(), Sets: m.sets.Load(), Removes: m.removes.Load(),
		CreationTime: m.created,
	}
}
