package portable

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// Portable is a type that writes itself in Hazelcast's Portable format, like
// Hazelcast's Portable interface. Register a Factory with the same
// factory id so that values can be read back.
type Portable interface {
	FactoryID() int32
	ClassID() int32
	// WritePortable writes the fields; the first call for a class (and
	// version) defines its ClassDefinition unless one is registered.
	WritePortable(w *Writer)
	// ReadPortable reads the fields. Errors are recorded in the reader.
	ReadPortable(r *Reader)
}

// Versioned is a Portable with a class version other than the
// Service's default PortableVersion.
type Versioned interface {
	Portable
	ClassVersion() int32
}

// Factory creates empty Portable values to read into.
type Factory interface {
	FactoryID() int32
	// Create returns a new value of the class, or nil for an unknown class id.
	Create(classID int32) Portable
}

// Portable field type ids (Hazelcast's FieldType), as they appear in the
// field entries of the binary form.
const (
	portablePortable      = 0
	portablePortableArray = 10
)

// fieldTypes maps a portable FieldType id to the FieldKind records report.
var fieldTypes = [...]core.FieldKind{
	core.KindPortable, core.KindInt8, core.KindBoolean, core.KindChar, core.KindInt16, core.KindInt32, core.KindInt64, core.KindFloat32, core.KindFloat64, core.KindString,
	core.KindArrayOfPortable, core.KindArrayOfInt8, core.KindArrayOfBoolean, core.KindArrayOfChar, core.KindArrayOfInt16, core.KindArrayOfInt32,
	core.KindArrayOfInt64, core.KindArrayOfFloat32, core.KindArrayOfFloat64, core.KindArrayOfString,
	core.KindDecimal, core.KindArrayOfDecimal, core.KindTime, core.KindArrayOfTime, core.KindDate, core.KindArrayOfDate,
	core.KindTimestamp, core.KindArrayOfTimestamp, core.KindTimestampWithTimezone, core.KindArrayOfTimestampWithTimezone,
}

var fieldTypeNames = [...]string{
	"PORTABLE", "BYTE", "BOOLEAN", "CHAR", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "UTF",
	"PORTABLE_ARRAY", "BYTE_ARRAY", "BOOLEAN_ARRAY", "CHAR_ARRAY", "SHORT_ARRAY", "INT_ARRAY",
	"LONG_ARRAY", "FLOAT_ARRAY", "DOUBLE_ARRAY", "UTF_ARRAY",
	"DECIMAL", "DECIMAL_ARRAY", "TIME", "TIME_ARRAY", "DATE", "DATE_ARRAY",
	"TIMESTAMP", "TIMESTAMP_ARRAY", "TIMESTAMP_WITH_TIMEZONE", "TIMESTAMP_WITH_TIMEZONE_ARRAY",
}

// TypeID returns the portable FieldType id of kind, or -1 when
// Portable has no such field type.
func TypeID(kind core.FieldKind) int32 {
	for i, k := range fieldTypes {
		if k == kind {
			return int32(i)
		}
	}
	return -1
}

// KindOf returns the kind of a portable FieldType id.
func KindOf(typeID int32) (core.FieldKind, bool) {
	if typeID < 0 || int(typeID) >= len(fieldTypes) {
		return core.KindNotAvailable, false
	}
	return fieldTypes[typeID], true
}

// ParseType returns the kind of a portable FieldType name such as
// "UTF" or "INT_ARRAY".
func ParseType(name string) (core.FieldKind, bool) {
	for i, n := range fieldTypeNames {
		if n == name {
			return fieldTypes[i], true
		}
	}
	return core.KindNotAvailable, false
}

// Field is one field of a ClassDefinition. FactoryID, ClassID and
// Version identify the nested class of PORTABLE and ARRAY_OF_PORTABLE fields.
type Field struct {
	Name      string
	Kind      core.FieldKind
	FactoryID int32
	ClassID   int32
	Version   int32
}

// ClassDefinition describes the fields of one version of a Portable class.
// The field index is the position in Fields. Class definitions are immutable.
type ClassDefinition struct {
	FactoryID int32
	ClassID   int32
	Version   int32
	Fields    []Field
	byName    map[string]int32
	// readOrder is the order in which a Portable's ReadPortable first read
	// the fields (core.ReadHint).
	readOrder atomic.Pointer[core.ReadOrder]
}

// NewClassDefinition validates the fields and returns a class definition.
func NewClassDefinition(factoryID, classID, version int32, fields []Field) (*ClassDefinition, error) {
	cd := &ClassDefinition{FactoryID: factoryID, ClassID: classID, Version: version, Fields: fields, byName: make(map[string]int32, len(fields))}
	what := fmt.Sprintf("portable class definition %d/%d/%d", factoryID, classID, version)
	for i, f := range fields {
		if f.Name == "" || len(f.Name) > 1<<15-1 || !isASCII(f.Name) {
			return nil, &core.DefinitionError{What: what, Reason: "field name " + strconv.Quote(f.Name) + " must be non-empty ASCII"}
		}
		if TypeID(f.Kind) < 0 {
			return nil, &core.DefinitionError{What: what, Reason: "field " + strconv.Quote(f.Name) + " has kind " + f.Kind.String() + ", which Portable does not support"}
		}
		if _, dup := cd.byName[f.Name]; dup {
			return nil, &core.DefinitionError{What: what, Reason: "field " + strconv.Quote(f.Name) + " appears twice"}
		}
		cd.byName[f.Name] = int32(i)
	}
	return cd, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Field returns the named field and its index.
func (cd *ClassDefinition) Field(name string) (Field, int, bool) {
	i, ok := cd.byName[name]
	if !ok {
		return Field{}, -1, false
	}
	return cd.Fields[i], int(i), true
}

// classOf is the key of a class in a ClassRegistry: its factory and class
// ids in one word, which a map hashes faster than three.
func classOf(factoryID, classID int32) uint64 {
	return uint64(uint32(factoryID))<<32 | uint64(uint32(classID))
}

// ClassRegistry holds Portable class definitions by factory id, class id and
// version. Reads are lock-free. The zero value is not usable; use
// NewClassRegistry.
type ClassRegistry struct {
	mu sync.Mutex
	// m holds the versions of each class (classOf), in the order added.
	m     atomic.Pointer[map[uint64][]*ClassDefinition]
	onAdd func(*ClassDefinition)
}

// NewClassRegistry returns an empty registry.
func NewClassRegistry() *ClassRegistry {
	r := &ClassRegistry{}
	m := map[uint64][]*ClassDefinition{}
	r.m.Store(&m)
	return r
}

// OnAdd registers fn to be called, outside the registry lock, each time a
// new class definition is added. Only one callback is kept.
func (r *ClassRegistry) OnAdd(fn func(*ClassDefinition)) {
	r.mu.Lock()
	r.onAdd = fn
	r.mu.Unlock()
}

// Get returns the class definition for the given ids.
func (r *ClassRegistry) Get(factoryID, classID, version int32) (*ClassDefinition, bool) {
	return versionOf((*r.m.Load())[classOf(factoryID, classID)], version)
}

// versionOf returns the definition of the given version among a class's.
func versionOf(versions []*ClassDefinition, version int32) (*ClassDefinition, bool) {
	for _, cd := range versions {
		if cd.Version == version {
			return cd, true
		}
	}
	return nil, false
}

// Add registers cd. Registering a different definition for the same ids fails.
func (r *ClassRegistry) Add(cd *ClassDefinition) error {
	_, err := r.add(cd)
	return err
}

func (r *ClassRegistry) add(cd *ClassDefinition) (*ClassDefinition, error) {
	if old, ok := r.Get(cd.FactoryID, cd.ClassID, cd.Version); ok {
		return old, sameClass(old, cd)
	}
	r.mu.Lock()
	cur := *r.m.Load()
	key := classOf(cd.FactoryID, cd.ClassID)
	if old, ok := versionOf(cur[key], cd.Version); ok {
		r.mu.Unlock()
		return old, sameClass(old, cd)
	}
	next := maps.Clone(cur)
	next[key] = append(slices.Clip(cur[key]), cd)
	r.m.Store(&next)
	fn := r.onAdd
	r.mu.Unlock()
	if fn != nil {
		fn(cd)
	}
	return cd, nil
}

// All returns every registered class definition, in no particular order.
func (r *ClassRegistry) All() []*ClassDefinition {
	m := *r.m.Load()
	out := make([]*ClassDefinition, 0, len(m))
	for _, versions := range m {
		out = append(out, versions...)
	}
	return out
}

func sameClass(a, b *ClassDefinition) error {
	if a == b {
		return nil
	}
	if len(a.Fields) == len(b.Fields) {
		same := true
		for i := range a.Fields {
			if a.Fields[i] != b.Fields[i] {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	return &core.DefinitionError{
		What:   fmt.Sprintf("portable class definition %d/%d/%d", b.FactoryID, b.ClassID, b.Version),
		Reason: "a different definition is already registered for these ids",
	}
}

// versionOf returns the class version p is written with.
func (e *Encoder) versionOf(p Portable) int32 {
	if vp, ok := p.(Versioned); ok {
		return vp.ClassVersion()
	}
	return e.Version
}
