// Package catalog keeps a member's SQL metadata: mappings and index
// definitions. Local holds them in memory; every change is reported to
// OnChange subscribers as a Change, and Apply replays a Change, which is
// all a cluster layer needs to replicate the catalog to other members
// (broadcast the Changes made on one member, Apply them on the others, and
// use Snapshot to bring a joining member up to date). Marshal and
// UnmarshalChange carry a Change between members.
package catalog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/query/plan"
)

// ChangeKind says what a Change does.
type ChangeKind string

// Change kinds.
const (
	PutMapping  ChangeKind = "put-mapping"
	DropMapping ChangeKind = "drop-mapping"
	AddIndex    ChangeKind = "add-index"
)

// Change is one change to the catalog.
type Change struct {
	Kind    ChangeKind
	Mapping *plan.Mapping  // PutMapping
	Name    string         // DropMapping
	Index   plan.IndexInfo // AddIndex
	// Replayed is set on the Changes that Apply made (they happened on
	// another member first): a replicator does not send them on.
	Replayed bool `json:"-"`
}

// Marshal encodes a change for another member.
func (ch Change) Marshal() ([]byte, error) { return json.Marshal(ch) }

// maxChange bounds an encoded change (a mapping's DDL and columns).
const maxChange = 1 << 20

// UnmarshalChange decodes a change sent by another member and checks it.
func UnmarshalChange(b []byte) (Change, error) {
	var ch Change
	if len(b) > maxChange {
		return ch, fmt.Errorf("catalog: a change of %d bytes (at most %d)", len(b), maxChange)
	}
	if err := json.Unmarshal(b, &ch); err != nil {
		return ch, fmt.Errorf("catalog: unreadable change: %w", err)
	}
	switch ch.Kind {
	case PutMapping:
		if ch.Mapping == nil || ch.Mapping.Name == "" || ch.Mapping.MapName == "" {
			return ch, fmt.Errorf("catalog: a mapping change without a mapping name")
		}
	case DropMapping:
		if ch.Name == "" {
			return ch, fmt.Errorf("catalog: a drop without a mapping name")
		}
	case AddIndex:
		if ch.Index.Name == "" || ch.Index.Map == "" || ch.Index.Attribute == "" {
			return ch, fmt.Errorf("catalog: an index change without name, map or attribute")
		}
	default:
		return ch, fmt.Errorf("catalog: unknown change kind %q", ch.Kind)
	}
	return ch, nil
}

// Local is an in-memory catalog. It is safe for concurrent use; readers
// never block writers for long (copy-on-write snapshots).
type Local struct {
	mu      sync.Mutex
	state   atomic.Pointer[state]
	version atomic.Uint64
	subs    []func(Change)
}

type state struct {
	mappings map[string]*plan.Mapping
	indexes  map[string][]plan.IndexInfo // by map name
}

// New returns an empty catalog.
func New() *Local {
	c := &Local{}
	c.state.Store(&state{mappings: map[string]*plan.Mapping{}, indexes: map[string][]plan.IndexInfo{}})
	c.version.Store(1)
	return c
}

// OnChange subscribes fn to every change (called after the change, outside
// the catalog's lock, in change order per catalog).
func (c *Local) OnChange(fn func(Change)) {
	c.mu.Lock()
	c.subs = append(c.subs, fn)
	c.mu.Unlock()
}

func (c *Local) Mapping(name string) (*plan.Mapping, bool) {
	m, ok := c.state.Load().mappings[name]
	return m, ok
}

func (c *Local) Mappings() []*plan.Mapping {
	s := c.state.Load()
	out := make([]*plan.Mapping, 0, len(s.mappings))
	for _, m := range s.mappings {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c *Local) Indexes(mapName string) []plan.IndexInfo { return c.state.Load().indexes[mapName] }

func (c *Local) AllIndexes() []plan.IndexInfo {
	var out []plan.IndexInfo
	for _, l := range c.state.Load().indexes {
		out = append(out, l...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c *Local) Version() uint64 { return c.version.Load() }

func (c *Local) clone() *state {
	s := c.state.Load()
	n := &state{mappings: make(map[string]*plan.Mapping, len(s.mappings)), indexes: make(map[string][]plan.IndexInfo, len(s.indexes))}
	for k, v := range s.mappings {
		n.mappings[k] = v
	}
	for k, v := range s.indexes {
		n.indexes[k] = v
	}
	return n
}

// commit publishes a new state and tells the subscribers; c.mu is held
// and released here.
func (c *Local) commit(n *state, ch Change) {
	c.state.Store(n)
	c.version.Add(1)
	subs := c.subs
	c.mu.Unlock()
	for _, fn := range subs {
		fn(ch)
	}
}

// PutMapping adds or replaces a mapping.
func (c *Local) PutMapping(m *plan.Mapping, orReplace, ifNotExists bool) error {
	return c.putMapping(m, orReplace, ifNotExists, false)
}

func (c *Local) putMapping(m *plan.Mapping, orReplace, ifNotExists, replayed bool) error {
	c.mu.Lock()
	if _, ok := c.state.Load().mappings[m.Name]; ok && !orReplace {
		c.mu.Unlock()
		if ifNotExists {
			return nil
		}
		return plan.Errorf("mapping %s already exists (use CREATE OR REPLACE MAPPING)", m.Name)
	}
	n := c.clone()
	n.mappings[m.Name] = m
	c.commit(n, Change{Kind: PutMapping, Mapping: m, Replayed: replayed})
	return nil
}

// DropMapping removes a mapping.
func (c *Local) DropMapping(name string, ifExists bool) error {
	return c.dropMapping(name, ifExists, false)
}

func (c *Local) dropMapping(name string, ifExists, replayed bool) error {
	c.mu.Lock()
	if _, ok := c.state.Load().mappings[name]; !ok {
		c.mu.Unlock()
		if ifExists {
			return nil
		}
		return plan.Errorf("mapping %s does not exist", name)
	}
	n := c.clone()
	delete(n.mappings, name)
	c.commit(n, Change{Kind: DropMapping, Name: name, Replayed: replayed})
	return nil
}

// AddIndex records an index definition. An index of the same name on the
// same map and attribute is not an error; another definition under the
// name is (unless ifNotExists).
func (c *Local) AddIndex(ix plan.IndexInfo, ifNotExists bool) (bool, error) {
	return c.addIndex(ix, ifNotExists, false)
}

func (c *Local) addIndex(ix plan.IndexInfo, ifNotExists, replayed bool) (bool, error) {
	c.mu.Lock()
	for _, have := range c.state.Load().indexes[ix.Map] {
		if have.Name == ix.Name {
			c.mu.Unlock()
			if have == ix || ifNotExists {
				return false, nil
			}
			return false, plan.Errorf("index %s already exists on %s", ix.Name, ix.Map)
		}
		if have.Attribute == ix.Attribute && have.Type == ix.Type {
			c.mu.Unlock()
			return false, nil // the same index under another name
		}
	}
	n := c.clone()
	n.indexes[ix.Map] = append(append([]plan.IndexInfo(nil), n.indexes[ix.Map]...), ix)
	c.commit(n, Change{Kind: AddIndex, Index: ix, Replayed: replayed})
	return true, nil
}

// Apply replays a change made on another member; the Change its
// subscribers see is marked Replayed.
func (c *Local) Apply(ch Change) error {
	switch ch.Kind {
	case PutMapping:
		if have, ok := c.Mapping(ch.Mapping.Name); ok && reflect.DeepEqual(have, ch.Mapping) {
			return nil // already here: keep the version (and cached plans)
		}
		return c.putMapping(ch.Mapping, true, false, true)
	case DropMapping:
		return c.dropMapping(ch.Name, true, true)
	case AddIndex:
		_, err := c.addIndex(ch.Index, true, true)
		return err
	}
	return plan.Errorf("unknown catalog change %q", ch.Kind)
}

// Snapshot returns the catalog as changes that rebuild it.
func (c *Local) Snapshot() []Change {
	var out []Change
	for _, m := range c.Mappings() {
		out = append(out, Change{Kind: PutMapping, Mapping: m})
	}
	for _, ix := range c.AllIndexes() {
		out = append(out, Change{Kind: AddIndex, Index: ix})
	}
	return out
}
