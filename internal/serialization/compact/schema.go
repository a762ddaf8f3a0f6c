package compact

import (
	"cmp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// SchemaField is one field of a Compact schema with its computed layout.
type SchemaField struct {
	Name string
	Kind core.FieldKind
	// Offset is the byte offset in the fixed-size section for fixed-size
	// kinds (for booleans, the byte holding the bit) and -1 otherwise.
	Offset int32
	// BitOffset is the bit (0 = least significant) of a BOOLEAN field, -1 otherwise.
	BitOffset int8
	// Index is the offset-table slot of a variable-size field, -1 otherwise.
	Index int32
}

// FieldDef names a field and its kind, the input to NewSchema.
type FieldDef struct {
	Name string
	Kind core.FieldKind
}

// Schema is an immutable Compact schema: a type name and its fields sorted by
// name, with Hazelcast's layout and 64-bit Rabin fingerprint as ID. Schemas
// are safe for concurrent use.
type Schema struct {
	TypeName string
	Fields   []SchemaField // sorted by name
	ID       int64
	// FixedSize is the length of the fixed-size section in bytes.
	FixedSize int32
	// VarCount is the number of variable-size fields (offset-table entries).
	VarCount int32

	byName map[string]int32
	// readOrder is the order in which a serializer first read the fields
	// (readHint): later reads in that order find each field without
	// hashing its name.
	readOrder atomic.Pointer[core.ReadOrder]
}

// NewSchema computes the layout and fingerprint of a schema. Field names must
// be unique and non-empty and kinds must be valid Compact kinds.
func NewSchema(typeName string, defs []FieldDef) (*Schema, error) {
	what := "compact schema " + strconv.Quote(typeName)
	if !utf8.ValidString(typeName) {
		return nil, &core.DefinitionError{What: what, Reason: "type name is not valid UTF-8"}
	}
	s := &Schema{TypeName: typeName, Fields: make([]SchemaField, len(defs)), byName: make(map[string]int32, len(defs))}
	for i, d := range defs {
		if d.Name == "" || !utf8.ValidString(d.Name) {
			return nil, &core.DefinitionError{What: what, Reason: "field name " + strconv.Quote(d.Name) + " is empty or not valid UTF-8"}
		}
		if !validKind(d.Kind) {
			return nil, &core.DefinitionError{What: what, Reason: "field " + strconv.Quote(d.Name) + " has kind " + d.Kind.String() + ", which Compact does not support"}
		}
		s.Fields[i] = SchemaField{Name: d.Name, Kind: d.Kind, Offset: -1, BitOffset: -1, Index: -1}
	}
	// Java's String.compareTo orders by UTF-16 code units; for the names
	// Compact meets this equals byte order except when characters >= U+E000
	// meet supplementary ones, which compareUTF16 handles.
	slices.SortFunc(s.Fields, func(a, b SchemaField) int { return compareUTF16(a.Name, b.Name) })
	for i, f := range s.Fields {
		if i > 0 && s.Fields[i-1].Name == f.Name {
			return nil, &core.DefinitionError{What: what, Reason: "field " + strconv.Quote(f.Name) + " appears twice"}
		}
		s.byName[f.Name] = int32(i)
	}
	// Fixed-size, non-boolean fields: size descending, ties in name order.
	fixed := make([]int, 0, len(s.Fields))
	var bools []int
	for i, f := range s.Fields {
		switch n := fixedSize(f.Kind); {
		case n > 0:
			fixed = append(fixed, i)
		case n == 0:
			bools = append(bools, i)
		default:
			s.Fields[i].Index = s.VarCount
			s.VarCount++
		}
	}
	slices.SortStableFunc(fixed, func(a, b int) int {
		return cmp.Compare(fixedSize(s.Fields[b].Kind), fixedSize(s.Fields[a].Kind))
	})
	var off int32
	for _, i := range fixed {
		s.Fields[i].Offset = off
		off += int32(fixedSize(s.Fields[i].Kind))
	}
	for j, i := range bools {
		s.Fields[i].Offset = off + int32(j/8)
		s.Fields[i].BitOffset = int8(j % 8)
	}
	s.FixedSize = off + int32((len(bools)+7)/8)
	s.ID = fingerprint(s)
	return s, nil
}

// compareUTF16 compares two strings by UTF-16 code units, as Java does.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmp.Compare(utf16Key(ra), utf16Key(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Key orders runes by their first UTF-16 code unit: supplementary
// characters (surrogates 0xD800..) sort before U+E000..U+FFFF.
func utf16Key(r rune) int32 {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// Field returns the field called name.
func (s *Schema) Field(name string) (*SchemaField, bool) {
	i, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return &s.Fields[i], true
}

// FieldKind returns the kind of the field called name, or KindNotAvailable.
func (s *Schema) FieldKind(name string) core.FieldKind {
	if f, ok := s.Field(name); ok {
		return f.Kind
	}
	return core.KindNotAvailable
}

// Rabin fingerprint of a schema, as Hazelcast's RabinFingerprint computes it.
const rabinInit uint64 = 0xc15d213aa4d7a795

var rabinTable = func() (t [256]uint64) {
	for i := range t {
		fp := uint64(i)
		for j := 0; j < 8; j++ {
			fp = (fp >> 1) ^ (rabinInit & -(fp & 1))
		}
		t[i] = fp
	}
	return t
}()

func rabinByte(fp uint64, b byte) uint64 { return (fp >> 8) ^ rabinTable[byte(fp)^b] }

func rabinInt(fp uint64, v int32) uint64 {
	for i := 0; i < 4; i++ {
		fp = rabinByte(fp, byte(v>>(8*i)))
	}
	return fp
}

func rabinString(fp uint64, s string) uint64 {
	fp = rabinInt(fp, int32(len(s)))
	for i := 0; i < len(s); i++ {
		fp = rabinByte(fp, s[i])
	}
	return fp
}

func fingerprint(s *Schema) int64 {
	fp := rabinString(rabinInit, s.TypeName)
	fp = rabinInt(fp, int32(len(s.Fields)))
	for _, f := range s.Fields {
		fp = rabinString(fp, f.Name)
		fp = rabinInt(fp, int32(f.Kind))
	}
	return int64(fp)
}

// Identity of the schema object when written with writeObject (type -56 and
// schema replication): an IdentifiedDataSerializable of factory -42, class 1.
const (
	schemaFactoryID = -42
	schemaClassID   = 1
)

// AppendSchema appends s in the form Hazelcast embeds it in type -56 Data:
// writeObject of the schema (type id -2, identified header, factory -42,
// class 1, type name, field count, then name and kind id per field).
func AppendSchema(dst []byte, s *Schema) []byte {
	dst = wire.AppendInt32(dst, core.TypeIdentified)
	dst = append(dst, core.IdentifiedHeader)
	dst = wire.AppendInt32(dst, schemaFactoryID)
	dst = wire.AppendInt32(dst, schemaClassID)
	dst, _ = wire.AppendString(dst, s.TypeName) // validated by NewSchema
	dst = wire.AppendInt32(dst, int32(len(s.Fields)))
	for _, f := range s.Fields {
		dst, _ = wire.AppendString(dst, f.Name)
		dst = wire.AppendInt32(dst, int32(f.Kind))
	}
	return dst
}

// ParseSchema reads a schema written by AppendSchema and returns it with the
// number of bytes consumed.
func ParseSchema(b []byte) (*Schema, int, error) {
	r := wire.NewReader(b, 0)
	s, err := readSchema(&r)
	return s, r.Pos(), err
}

func readSchema(r *wire.Reader) (*Schema, error) {
	start := r.Pos()
	typ, hdr, fid, cid := r.Int32(), r.Int8(), r.Int32(), r.Int32()
	if r.Err() != nil {
		return nil, &core.DecodeError{Format: "compact", Offset: start, Reason: "truncated schema", Err: r.Err()}
	}
	if typ != core.TypeIdentified || hdr != core.IdentifiedHeader || fid != schemaFactoryID || cid != schemaClassID {
		return nil, core.Malformed("compact", start, "embedded schema does not start with the schema object header")
	}
	name, ok := r.Str()
	n := r.Length(8, false) // each field needs at least a name length and a kind
	if r.Err() != nil || !ok {
		return nil, &core.DecodeError{Format: "compact", Offset: r.Pos(), Reason: "truncated or null schema type name", Err: r.Err()}
	}
	defs := make([]FieldDef, n)
	for i := range defs {
		fname, ok := r.Str()
		kind := r.Int32()
		if r.Err() != nil || !ok {
			return nil, &core.DecodeError{Format: "compact", Offset: r.Pos(), Reason: "truncated schema field", Err: r.Err()}
		}
		defs[i] = FieldDef{Name: fname, Kind: core.FieldKind(kind)}
	}
	s, err := NewSchema(name, defs)
	if err != nil {
		return nil, &core.DecodeError{Format: "compact", Offset: start, Reason: "embedded schema is invalid", Err: err}
	}
	return s, nil
}

// SchemaRegistry holds Compact schemas by id. Reads are lock-free; adding a
// schema copies the index, which is fine because schemas are few and
// immutable. The zero value is not usable; use NewSchemaRegistry.
type SchemaRegistry struct {
	mu    sync.Mutex // serializes writers
	m     atomic.Pointer[map[int64]*Schema]
	onAdd func(*Schema)
}

// NewSchemaRegistry returns an empty registry.
func NewSchemaRegistry() *SchemaRegistry {
	r := &SchemaRegistry{}
	m := map[int64]*Schema{}
	r.m.Store(&m)
	return r
}

// OnAdd registers fn to be called, outside the registry lock, each time a new
// schema is added. Only one callback is kept; a later call replaces it.
func (r *SchemaRegistry) OnAdd(fn func(*Schema)) {
	r.mu.Lock()
	r.onAdd = fn
	r.mu.Unlock()
}

// Get returns the schema with the given id.
func (r *SchemaRegistry) Get(id int64) (*Schema, bool) {
	s, ok := (*r.m.Load())[id]
	return s, ok
}

// Add registers s and returns the registry's schema for its id, which is s
// itself unless an equal schema was already present. Adding a different
// schema under an existing id (a fingerprint collision or a forged schema)
// fails with a *DefinitionError.
func (r *SchemaRegistry) Add(s *Schema) (*Schema, error) {
	if old, ok := r.Get(s.ID); ok {
		return old, sameSchema(old, s)
	}
	r.mu.Lock()
	cur := *r.m.Load()
	if old, ok := cur[s.ID]; ok {
		r.mu.Unlock()
		return old, sameSchema(old, s)
	}
	next := make(map[int64]*Schema, len(cur)+1)
	for k, v := range cur {
		next[k] = v
	}
	next[s.ID] = s
	r.m.Store(&next)
	fn := r.onAdd
	r.mu.Unlock()
	if fn != nil {
		fn(s)
	}
	return s, nil
}

// All returns every registered schema, in no particular order.
func (r *SchemaRegistry) All() []*Schema {
	m := *r.m.Load()
	out := make([]*Schema, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	return out
}

func sameSchema(a, b *Schema) error {
	if a == b {
		return nil
	}
	if a.TypeName == b.TypeName && slices.Equal(a.Fields, b.Fields) {
		return nil
	}
	return &core.DefinitionError{What: "compact schema " + strconv.Quote(b.TypeName), Reason: "schema id " + strconv.FormatInt(b.ID, 10) + " is already registered for a different schema"}
}

// validKind reports whether k may appear in a Compact schema.
func validKind(k core.FieldKind) bool {
	return k > 0 && k < core.KindCount && k != core.KindChar && k != core.KindArrayOfChar && k != core.KindPortable && k != core.KindArrayOfPortable
}

// fixedSize returns the byte size of a fixed-size Compact kind (booleans
// report 0: they are bit-packed), and -1 for variable-size kinds.
func fixedSize(k core.FieldKind) int {
	switch k {
	case core.KindInt8:
		return 1
	case core.KindInt16:
		return 2
	case core.KindInt32, core.KindFloat32:
		return 4
	case core.KindInt64, core.KindFloat64:
		return 8
	case core.KindBoolean:
		return 0
	}
	return -1
}
