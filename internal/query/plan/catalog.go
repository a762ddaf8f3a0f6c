package plan

import (
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
)

// Catalog is what the planner knows about tables: SQL mappings and the
// indexes of maps. The member implements it over its cluster-wide catalog;
// tests use MemCatalog.
//
// Contract: methods are safe for concurrent use and return immutable
// values. Version changes whenever a mapping or an index is added, replaced
// or removed, so plans cached under an older version are not reused.
type Catalog interface {
	Mapping(name string) (*Mapping, bool)
	Mappings() []*Mapping
	Indexes(mapName string) []IndexInfo
	Version() uint64
}

// Stats gives the planner sizes to choose between plans. Optional: nil
// means no statistics.
type Stats interface {
	// EntryCount estimates a map's entries on the whole cluster (-1 unknown).
	EntryCount(mapName string) int64
}

// Mapping is a SQL mapping of an IMap (CREATE MAPPING).
type Mapping struct {
	Name string
	// MapName is the IMap it reads (EXTERNAL NAME; the mapping name by default).
	MapName     string
	KeyFormat   string
	ValueFormat string
	Options     map[string]string
	// Columns in declaration order. __key and this always exist: declared
	// or hidden.
	Columns []MappingColumn
	// DDL is the normalized CREATE statement (SHOW MAPPINGS, replication).
	DDL string
}

// MappingColumn is one column of a mapping.
type MappingColumn struct {
	Name string
	Type expr.Type
	// Path is the attribute it reads: __key, this, __key.f or a value field f.
	Path   string
	Hidden bool // __key/this when not declared: not part of SELECT *
}

// Column returns the named column (case-sensitive, as Hazelcast).
func (m *Mapping) Column(name string) (MappingColumn, bool) {
	for _, c := range m.Columns {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range m.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return MappingColumn{}, false
}

// IndexType is the kind of an index.
type IndexType uint8

// Index types.
const (
	IndexSorted IndexType = iota + 1
	IndexHash
)

func (t IndexType) String() string {
	if t == IndexHash {
		return "HASH"
	}
	return "SORTED"
}

// IndexInfo describes an index of a map.
type IndexInfo struct {
	Name      string
	Map       string
	Type      IndexType
	Attribute string // normalized path
}

// NormalizePath turns an attribute as users write it into the form plans
// use: "this.f" becomes "f", "this" and "__key" stay, spaces are trimmed.
func NormalizePath(p string) string {
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "this.") {
		p = p[len("this."):]
	}
	return p
}

// MemCatalog is an in-memory Catalog for tests and single members.
type MemCatalog struct {
	M       map[string]*Mapping
	I       map[string][]IndexInfo
	Ver     uint64
	Counter Stats
}

func (c *MemCatalog) Mapping(name string) (*Mapping, bool) {
	m, ok := c.M[name]
	return m, ok
}

func (c *MemCatalog) Mappings() []*Mapping {
	out := make([]*Mapping, 0, len(c.M))
	for _, m := range c.M {
		out = append(out, m)
	}
	return out
}

func (c *MemCatalog) Indexes(mapName string) []IndexInfo { return c.I[mapName] }
func (c *MemCatalog) Version() uint64                    { return c.Ver }
