package compact

import (
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// Zero-config (reflective) Compact serialization: a Serializer built
// from a struct type's fields, and the Types registry that creates them on
// first use.
//
// A serializer holds a plan per struct type, built once: for each field its
// Compact name and kind, its byte offset in the struct
// (reflect.StructField.Offset) and a pair of functions that write and read
// a field of exactly that Go type. Writing and reading then address fields
// as base pointer + offset with unsafe.Add and load or store them through a
// pointer of the field's own type or of a type with the same memory layout
// (int8 for uint8, the underlying type for a named type). This is sound
// because
//
//   - every offset comes from reflect for the struct type the base pointer
//     was obtained for (reflect.Value.UnsafePointer of a *S or reflect.New(S)),
//     so the result always points inside the same allocation;
//   - the plan chooses the access type from the field's reflect.Type, so a
//     load or store never reinterprets memory as a type of another layout;
//   - stores of pointers, slices and strings go through typed pointers (or
//     unsafe.Pointer), so the compiler emits the GC write barriers;
//   - slices of nested structs are created with reflect.MakeSlice and set
//     with reflect.Value.Set, so their element type is known to the GC.
//
// reflect.Value.Field would avoid unsafe but costs an allocation per
// non-pointer field read through Interface (slices, for instance) and cannot
// store a []int8 into a []byte field without copying.

// TypeNamer is implemented by struct types that choose their own
// Compact type name for reflective serialization, for example the name a
// Java application uses for the same data:
//
//	func (Person) CompactTypeName() string { return "com.example.Person" }
//
// The method is called once per type, on a zero value, and must return the
// same non-empty name every time. It may have a value or a pointer receiver.
// A method promoted from an embedded field counts too, so a struct that
// embeds a TypeNamer needs a method of its own (two Go types cannot
// share a type name).
type TypeNamer interface {
	CompactTypeName() string
}

// TypeNameOf returns the Compact type name that reflective
// serialization gives the struct type t (or the struct type t points to):
// what its CompactTypeName method returns when it implements
// TypeNamer, and otherwise its package path, a dot and its name, for
// example "github.com/acme/shop/model.Order" (the Go counterpart of the fully
// qualified class name Hazelcast uses for Java). The name of an instantiated
// generic type includes its type arguments as reflect.Type.Name spells them.
// The name is part of the schema id, so renaming or moving a type without a
// CompactTypeName method starts a new schema. Anonymous struct types have no
// default name.
func TypeNameOf(t reflect.Type) (string, error) {
	st := structType(t)
	if st == nil {
		return "", &core.DefinitionError{What: fmt.Sprintf("compact type %v", t), Reason: "is not a struct or a pointer to a struct"}
	}
	if reflect.PointerTo(st).Implements(typeNamer) {
		name := reflect.New(st).Interface().(TypeNamer).CompactTypeName()
		if name == "" || !utf8.ValidString(name) {
			return "", &core.DefinitionError{What: "compact type " + st.String(), Reason: "CompactTypeName returned " + strconv.Quote(name) + ", which is empty or not valid UTF-8"}
		}
		return name, nil
	}
	if st.Name() == "" {
		return "", &core.DefinitionError{What: "compact type " + st.String(), Reason: "an anonymous struct type has no default type name; declare a named type or pass a name to NewReflectiveSerializer"}
	}
	return st.PkgPath() + "." + st.Name(), nil
}

// NewReflectiveSerializer returns a Serializer that writes and reads
// the struct type t field by field, with no code per type: Hazelcast's
// zero-config Compact serialization. t is *S, the usual form (ToObject then
// returns *S), or S (ToObject returns S); the serializer writes both. An
// empty typeName selects TypeNameOf(t). Registered in
// Config.CompactSerializers, the serializer also registers the struct types
// that S nests and that have no serializer of their own, under their
// TypeNameOf names.
//
// Fields: exported fields only, including those promoted from embedded
// structs (an embedded struct's fields are written as if declared in its
// place; tag an embedded struct with a name to store it as a nested object
// instead). The Compact name is the Go name decapitalized as
// java.beans.Introspector does, which matches Java field names: IntField is
// intField, X is x, but ID and URLPath stay as they are. The struct tag
// `compact:"name"` sets the name and `compact:"-"` skips the field; there
// are no tag options, because pointers and slices express null.
//
// Kinds:
//
//	bool, int8, int16, int32, int64    BOOLEAN, INT8, INT16, INT32, INT64
//	uint8 (byte)                       INT8, the same bits (Java has no unsigned byte)
//	int                                INT64 (reading fails if the value overflows int)
//	float32, float64                   FLOAT32, FLOAT64
//	string                             STRING (null reads as "")
//	*bool, *int8, …, *float64          NULLABLE_BOOLEAN … NULLABLE_FLOAT64 (nil is null)
//	*string                            STRING (nil is null)
//	[]T for the types above            ARRAY_OF_T; []byte is ARRAY_OF_INT8; nil is null
//	[]*T                               ARRAY_OF_NULLABLE_T, ARRAY_OF_STRING for []*string
//	Decimal, LocalTime, LocalDate,     DECIMAL, TIME, DATE, TIMESTAMP,
//	LocalDateTime, OffsetDateTime      TIMESTAMP_WITH_TIMEZONE; as *T, []T, []*T too
//	time.Time                          TIMESTAMP_WITH_TIMEZONE; as *T, []T, []*T too
//	struct S, *S                       COMPACT, written by the serializer registered for *S
//	[]S, []*S                          ARRAY_OF_COMPACT
//
// Named types count as their underlying type (type Status int32 is INT32),
// except that only the exact types Decimal, LocalTime, …, time.Time have
// the temporal kinds. A time.Time is written with nanosecond precision as
// its date and clock in its own location plus that location's UTC offset at
// that instant; the zone's name and rules and the monotonic clock reading
// are not kept. It reads back in a fixed zone with that offset (time.UTC for
// offset 0), so it is Equal to the original and has the same offset. Years
// beyond ±999,999,999 and offsets beyond ±18:00, which Java's OffsetDateTime
// cannot hold, fail to write. Reading a value type (S, []T) that is null in
// the data leaves its zero value, except that a null item cannot go into a
// []T of non-pointers and fails the read.
//
// Recursive types work: a nil pointer or nil slice ends the recursion, and
// writing a cycle fails once it nests deeper than the Service allows.
// Fields of other types (maps, channels, functions, interfaces, complex
// numbers, unsigned integers wider than 8 bits, arrays, pointers to
// pointers or slices, slices of slices), duplicate names, anonymous nested
// struct types and nested Portable or IdentifiedDataSerializable types
// make NewReflectiveSerializer fail with a *DefinitionError that names the
// field and its type.
//
// Fields are written in declaration order, which decides where the
// variable-size fields land, as Java's zero-config serializer writes in
// field order; a struct with the same field names, kinds and order as a
// Java class (and the class's name as type name) has the same bytes. Reads
// go by name, so data written by another version of the type reads: fields
// the data lacks keep their zero value and fields the struct lacks are
// ignored. A field the data has with an incompatible kind fails the read
// with ErrFieldKind.
func NewReflectiveSerializer(t reflect.Type, typeName string) (Serializer, error) {
	st := structType(t)
	if st == nil {
		return nil, &core.DefinitionError{What: fmt.Sprintf("compact serializer for %v", t), Reason: "the type is not a struct or a pointer to a struct"}
	}
	if isValueType(st) {
		return nil, &core.DefinitionError{What: "compact serializer for " + t.String(), Reason: st.String() + " is a Compact field value, not an object"}
	}
	if typeName == "" {
		var err error
		if typeName, err = TypeNameOf(st); err != nil {
			return nil, err
		}
	} else if !utf8.ValidString(typeName) {
		return nil, &core.DefinitionError{What: "compact serializer for " + t.String(), Reason: "type name is not valid UTF-8"}
	}
	rs, err := newReflective(t, typeName, func(reflect.Type) bool { return false })
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// ReflectiveSerializer is NewReflectiveSerializer for the type T, usually a
// pointer to a struct: ReflectiveSerializer[*Person]("com.example.Person").
func ReflectiveSerializer[T any](typeName string) (Serializer, error) {
	return NewReflectiveSerializer(reflect.TypeFor[T](), typeName)
}

// RegisterType prepares s to read Compact data into the Go type t, a struct
// type S or *S: ToObject returns a t (instead of a *Record) for data
// whose type name is TypeNameOf(t), and ToData writes S and *S
// reflectively, also when zero-config is disabled. Nested struct types
// without a serializer are registered with it. It is meant for readers that
// know what they expect, such as a typed map: writers with zero-config
// enabled need no registration.
//
// Registering the same type again does nothing; registering S after *S (or
// the reverse) switches what ToObject returns. A type that already has a
// Serializer other than a reflective one, a name that another Go type
// uses, and types that are not plain structs (Portable and
// IdentifiedDataSerializable implementations, the temporal value types) are
// rejected with a *DefinitionError. RegisterType is safe for concurrent use
// with ToData and ToObject.
func (types *Types) Register(t reflect.Type) error {
	st := structType(t)
	switch {
	case st == nil:
		return &core.DefinitionError{What: fmt.Sprintf("compact type %v", t), Reason: "is not a struct or a pointer to a struct"}
	case isValueType(st):
		return &core.DefinitionError{What: "compact type " + t.String(), Reason: st.String() + " is a Compact field value, not an object"}
	case isObjectFormat(st):
		return &core.DefinitionError{What: "compact type " + t.String(), Reason: "it implements Portable or IdentifiedDataSerializable"}
	}
	types.mu.Lock()
	defer types.mu.Unlock()
	cur := types.cur.Load()
	old := cur.byType[reflect.PointerTo(st)]
	if old == nil {
		old = cur.byType[st]
	}
	if old != nil {
		if old.ser.Type() == t {
			return nil
		}
		rs, ok := old.ser.(*reflectiveSerializer)
		if !ok {
			return &core.DefinitionError{What: "compact type " + t.String(), Reason: "a CompactSerializer for " + old.ser.Type().String() + " is registered"}
		}
		ct := &typeEntry{ser: &reflectiveSerializer{typ: t, name: rs.name, plan: rs.plan, nested: rs.nested}}
		ct.layout.Store(old.layout.Load())
		next := cur.clone()
		for k, v := range next.byType {
			if v == old {
				next.byType[k] = ct
			}
		}
		next.byName[rs.name] = ct
		types.cur.Store(next)
		return nil
	}
	name, err := TypeNameOf(st)
	if err != nil {
		return err
	}
	rs, err := newReflective(t, name, cur.explicit)
	if err != nil {
		return err
	}
	next := cur.clone()
	if err := next.add(rs); err != nil {
		return err
	}
	types.cur.Store(next)
	return nil
}

// zeroConfigType returns the Compact type that zero-config serialization
// gives t, creating it on first use. It returns nil, nil when t does not
// qualify: zero-config is off, or t is not a plain struct or pointer to one.
func (types *Types) zeroConfigType(t reflect.Type) (*typeEntry, error) {
	if !types.zeroConfig {
		return nil, nil
	}
	st := structType(t)
	if st == nil || isValueType(st) || isObjectFormat(st) {
		return nil, nil
	}
	types.mu.Lock()
	defer types.mu.Unlock()
	cur := types.cur.Load()
	if ct, ok := cur.byType[t]; ok {
		return ct, nil // created meanwhile
	}
	other := st
	if t == st {
		other = reflect.PointerTo(st)
	}
	if ct, ok := cur.byType[other]; ok {
		return nil, &core.TypeError{Type: t.String(), Reason: "no CompactSerializer is registered for it, but one is for " + ct.ser.Type().String()}
	}
	if st.Name() == "" && !reflect.PointerTo(st).Implements(typeNamer) {
		return nil, &core.TypeError{Type: t.String(), Reason: "zero-config Compact needs a named struct type (or a serializer from NewReflectiveSerializer with a type name)"}
	}
	name, err := TypeNameOf(st)
	if err != nil {
		return nil, err
	}
	rs, err := newReflective(reflect.PointerTo(st), name, cur.explicit)
	if err != nil {
		return nil, err
	}
	next := cur.clone()
	if err := next.add(rs); err != nil {
		return nil, err
	}
	types.cur.Store(next)
	return next.byType[t], nil
}

// nestedType returns the Compact type that writes nested values of struct
// type st, and whether its serializer takes S values rather than *S.
func (types *Types) nested(st, sp reflect.Type) (ct *typeEntry, byValue bool, err error) {
	index := types.cur.Load()
	if ct, ok := index.byType[sp]; ok {
		return ct, false, nil
	}
	if ct, ok := index.byType[st]; ok {
		return ct, true, nil
	}
	if ct, err = types.zeroConfigType(sp); ct == nil && err == nil {
		err = &core.TypeError{Type: sp.String(), Reason: "no CompactSerializer is registered for it"}
	}
	return ct, false, err
}

// typeIndex indexes a Service's Compact serializers. It is immutable once
// published; writers publish a modified clone.
type typeIndex struct {
	byType map[reflect.Type]*typeEntry
	byName map[string]*typeEntry
}

func newTypeIndex() *typeIndex {
	return &typeIndex{byType: map[reflect.Type]*typeEntry{}, byName: map[string]*typeEntry{}}
}

func (c *typeIndex) clone() *typeIndex {
	return &typeIndex{byType: maps.Clone(c.byType), byName: maps.Clone(c.byName)}
}

// explicit reports whether the struct type st is served by a serializer
// that is not reflective: a reflective plan then treats st as opaque.
func (c *typeIndex) explicit(st reflect.Type) bool {
	ct := c.byType[reflect.PointerTo(st)]
	if ct == nil {
		ct = c.byType[st]
	}
	if ct == nil {
		return false
	}
	_, reflective := ct.ser.(*reflectiveSerializer)
	return !reflective
}

// add registers rs and its companions.
func (c *typeIndex) add(rs *reflectiveSerializer) error {
	if other, taken := c.byName[rs.name]; taken {
		return &core.DefinitionError{What: "compact type " + rs.typ.String(), Reason: "its type name " + strconv.Quote(rs.name) + " is already used by " + other.ser.Type().String()}
	}
	ct := &typeEntry{ser: rs}
	c.byType[rs.typ] = ct
	c.byName[rs.name] = ct
	return c.addCompanions(ct, rs)
}

// addCompanions registers what comes with the reflective serializer of ct:
// the other form of its struct type (S for *S and the reverse) and the
// struct types it nests that have no serializer yet, under their
// TypeNameOf names.
func (c *typeIndex) addCompanions(ct *typeEntry, rs *reflectiveSerializer) error {
	c.alias(rs.plan, ct)
	for _, p := range rs.nested {
		if c.byType[p.ptr] != nil || c.byType[p.typ] != nil {
			continue
		}
		name, err := TypeNameOf(p.typ)
		if err != nil {
			return err
		}
		if other, taken := c.byName[name]; taken {
			return &core.DefinitionError{What: "compact type " + p.ptr.String(), Reason: "its type name " + strconv.Quote(name) + " is already used by " + other.ser.Type().String() + "; give one of them a CompactTypeName method"}
		}
		nct := &typeEntry{ser: &reflectiveSerializer{typ: p.ptr, name: name, plan: p}}
		c.alias(p, nct)
		c.byName[name] = nct
	}
	return nil
}

func (c *typeIndex) alias(p *structPlan, ct *typeEntry) {
	if c.byType[p.ptr] == nil {
		c.byType[p.ptr] = ct
	}
	if c.byType[p.typ] == nil {
		c.byType[p.typ] = ct
	}
}

// reflectiveSerializer is the Serializer of NewReflectiveSerializer.
type reflectiveSerializer struct {
	typ    reflect.Type // *S or S, what Read returns
	name   string
	plan   *structPlan
	nested []*structPlan // the struct types plan nests, transitively
}

var _ Serializer = (*reflectiveSerializer)(nil)

func (s *reflectiveSerializer) Type() reflect.Type { return s.typ }

func (s *reflectiveSerializer) TypeName() string { return s.name }

func (s *reflectiveSerializer) Write(w *Writer, v any) {
	p := s.plan.pointer(v)
	if p == nil {
		w.fail(&core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "the reflective serializer of " + s.plan.typ.String() + " writes non-nil " + s.plan.ptr.String() + " and " + s.plan.typ.String() + " values only"})
		return
	}
	s.plan.write(w, p)
}

func (s *reflectiveSerializer) Read(r *Reader) any {
	v := reflect.New(s.plan.typ)
	s.plan.read(r, v.UnsafePointer())
	if s.typ == s.plan.typ {
		return v.Elem().Interface()
	}
	return v.Interface()
}

// structPlan is how a reflective serializer writes and reads one struct type.
type structPlan struct {
	typ    reflect.Type // S
	ptr    reflect.Type // *S
	fields []fieldPlan  // declaration order, embedded structs inlined
}

type (
	writeFunc func(w *Writer, f *fieldPlan, p unsafe.Pointer)
	readFunc  func(r *Reader, f *fieldPlan, p unsafe.Pointer)
)

// fieldPlan is one field of a structPlan; write and read get a pointer to
// the field.
type fieldPlan struct {
	name   string // Compact name
	kind   core.FieldKind
	offset uintptr // from the start of the plan's struct
	write  writeFunc
	read   readFunc
	typ    reflect.Type // Go type of the field
	// For COMPACT and ARRAY_OF_COMPACT fields: the nested struct type S, *S,
	// and S's plan, which is nil when a non-reflective serializer handles S.
	st, sp reflect.Type
	elem   *structPlan
}

// pointer returns a pointer to the struct v holds: v itself for *S, a copy
// for S, nil for anything else.
func (p *structPlan) pointer(v any) unsafe.Pointer {
	switch reflect.TypeOf(v) {
	case p.ptr:
		return reflect.ValueOf(v).UnsafePointer()
	case p.typ:
		c := reflect.New(p.typ)
		c.Elem().Set(reflect.ValueOf(v))
		return c.UnsafePointer()
	}
	return nil
}

func (p *structPlan) write(w *Writer, base unsafe.Pointer) {
	for i := range p.fields {
		f := &p.fields[i]
		f.write(w, f, unsafe.Add(base, f.offset))
		if w.err != nil {
			return
		}
	}
}

func (p *structPlan) read(r *Reader, base unsafe.Pointer) {
	for i := range p.fields {
		f := &p.fields[i]
		f.read(r, f, unsafe.Add(base, f.offset))
		if r.err != nil {
			return
		}
	}
}

// newReflective builds the serializer of t (S or *S). explicit reports the
// struct types that a non-reflective serializer handles when nested.
func newReflective(t reflect.Type, typeName string, explicit func(reflect.Type) bool) (*reflectiveSerializer, error) {
	b := &planBuilder{root: t, plans: map[reflect.Type]*structPlan{}, explicit: explicit}
	plan, err := b.structPlan(structType(t))
	if err != nil {
		return nil, err
	}
	return &reflectiveSerializer{typ: t, name: typeName, plan: plan, nested: b.order[1:]}, nil
}

type planBuilder struct {
	root     reflect.Type
	plans    map[reflect.Type]*structPlan
	order    []*structPlan
	explicit func(st reflect.Type) bool
}

func (b *planBuilder) fail(format string, args ...any) error {
	return &core.DefinitionError{What: "compact serializer for " + b.root.String(), Reason: fmt.Sprintf(format, args...)}
}

func (b *planBuilder) structPlan(st reflect.Type) (*structPlan, error) {
	if p, ok := b.plans[st]; ok {
		return p, nil // built or being built: recursive types share it
	}
	p := &structPlan{typ: st, ptr: reflect.PointerTo(st)}
	b.plans[st] = p
	b.order = append(b.order, p)
	n, err := b.collect(p, st, 0, map[string]string{})
	if err != nil {
		return nil, err
	}
	if n == 0 && st.NumField() > 0 {
		return nil, b.fail("%s has no exported fields; only exported fields are serialized, so a type such as sync.Mutex or big.Int needs a serializer of its own", st)
	}
	return p, nil
}

// collect appends to p the fields of struct type t, which lies at offset
// base of p's struct (t is not p's struct for embedded structs). It returns
// the number of exported fields seen, including skipped ones.
func (b *planBuilder) collect(p *structPlan, t reflect.Type, base uintptr, names map[string]string) (int, error) {
	seen := 0
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("compact")
		if tag == "-" {
			if sf.IsExported() {
				seen++
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" {
			return 0, b.fail("field %s of %s: the compact tag option %q does not exist (pointers and slices express null)", sf.Name, t, opts)
		}
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Struct && !isValueType(ft) {
				n, err := b.collect(p, ft, base+sf.Offset, names)
				if err != nil {
					return 0, err
				}
				seen += n
				continue
			}
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct && !isValueType(ft.Elem()) {
				if !sf.IsExported() {
					continue
				}
				return 0, b.fail("embedded field %s of %s is a pointer; tag it `compact:\"name\"` to store it as a nested object, or `compact:\"-\"` to skip it", sf.Name, t)
			}
		}
		if !sf.IsExported() {
			if tagged {
				return 0, b.fail("field %s of %s has a compact tag but is unexported; only exported fields are serialized", sf.Name, t)
			}
			continue
		}
		seen++
		if name == "" {
			name = decapitalize(sf.Name)
		}
		if prev, dup := names[name]; dup {
			return 0, b.fail("fields %s and %s of %s both have the compact name %q", prev, sf.Name, p.typ, name)
		}
		names[name] = sf.Name
		f := fieldPlan{name: name, offset: base + sf.Offset, typ: sf.Type}
		if err := b.fieldOps(&f, t, sf); err != nil {
			return 0, err
		}
		p.fields = append(p.fields, f)
	}
	return seen, nil
}

// decapitalize is java.beans.Introspector.decapitalize: the first letter is
// lower-cased unless the first two are both upper case.
func decapitalize(s string) string {
	r0, n0 := utf8.DecodeRuneInString(s)
	if r1, _ := utf8.DecodeRuneInString(s[n0:]); unicode.IsUpper(r0) && unicode.IsUpper(r1) {
		return s
	}
	return string(unicode.ToLower(r0)) + s[n0:]
}

// shape is how a field holds its values: T, *T, []T or []*T.
type shape uint8

const (
	shapeValue shape = iota
	shapePtr
	shapeSlice
	shapeSlicePtr
)

func shapeOf(t reflect.Type) (shape, reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer:
		return shapePtr, t.Elem()
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Pointer {
			return shapeSlicePtr, e.Elem()
		}
		return shapeSlice, t.Elem()
	}
	return shapeValue, t
}

func (b *planBuilder) fieldOps(f *fieldPlan, owner reflect.Type, sf reflect.StructField) error {
	s, elem := shapeOf(sf.Type)
	bad := func(why string) error {
		return b.fail("field %s of %s has type %s: %s", sf.Name, owner, sf.Type, why)
	}
	if c := leafCodecOf(elem); c != nil {
		f.kind, f.write, f.read = c.ops(s)
		return nil
	}
	switch elem.Kind() {
	case reflect.Struct:
		return b.compactOps(f, s, elem, bad)
	case reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uintptr:
		return bad("Compact has no unsigned integer kinds (only uint8 maps to INT8); use a signed type")
	case reflect.Complex64, reflect.Complex128:
		return bad("Compact has no complex number kind")
	case reflect.Map:
		return bad("Compact has no map kind; use a slice of structs")
	case reflect.Interface:
		return bad("an interface has no fixed Compact kind; use a concrete type")
	case reflect.Array:
		return bad("Compact has no fixed-length arrays; use a slice")
	case reflect.Pointer, reflect.Slice:
		return bad("only T, *T, []T and []*T are supported (a nil slice is already null)")
	}
	return bad("values of this kind cannot be serialized")
}

func (b *planBuilder) compactOps(f *fieldPlan, s shape, st reflect.Type, bad func(string) error) error {
	f.st, f.sp = st, reflect.PointerTo(st)
	switch {
	case b.explicit(st):
	case st.Name() == "":
		return bad("an anonymous struct type has no Compact type name; declare a named type")
	case isObjectFormat(st):
		return bad(st.String() + " implements Portable or IdentifiedDataSerializable, which a Compact object cannot nest")
	default:
		p, err := b.structPlan(st)
		if err != nil {
			return err
		}
		f.elem = p
	}
	switch s {
	case shapeValue:
		f.kind, f.write, f.read = core.KindCompact, writeNestedValue, readNestedValue
	case shapePtr:
		f.kind, f.write, f.read = core.KindCompact, writeNestedPtr, readNestedPtr
	case shapeSlice:
		f.kind, f.write, f.read = core.KindArrayOfCompact, writeNestedSlice, readNestedSlice
	default:
		f.kind, f.write, f.read = core.KindArrayOfCompact, writeNestedPtrSlice, readNestedPtrSlice
	}
	return nil
}

var (
	typeDecimal        = reflect.TypeFor[core.Decimal]()
	typeLocalTime      = reflect.TypeFor[core.LocalTime]()
	typeLocalDate      = reflect.TypeFor[core.LocalDate]()
	typeLocalDateTime  = reflect.TypeFor[core.LocalDateTime]()
	typeOffsetDateTime = reflect.TypeFor[core.OffsetDateTime]()
	typeTime           = reflect.TypeFor[time.Time]()
	typeNamer          = reflect.TypeFor[TypeNamer]()
)

// structType returns S for S and *S, and nil for other types.
func structType(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// isValueType reports the struct types that are Compact field values.
func isValueType(t reflect.Type) bool {
	switch t {
	case typeDecimal, typeLocalTime, typeLocalDate, typeLocalDateTime, typeOffsetDateTime, typeTime:
		return true
	}
	return false
}

// isObjectFormat reports whether S or *S is a Portable or an
// IdentifiedDataSerializable: it has their FactoryID and ClassID methods
// and their write and read methods. (Those interfaces belong to the
// formats' own packages, which this one does not import; the methods'
// names are specific enough.)
func isObjectFormat(st reflect.Type) bool {
	pt := reflect.PointerTo(st)
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := pt.MethodByName(n); !ok {
				return false
			}
		}
		return true
	}
	return has("FactoryID", "ClassID") && (has("WritePortable", "ReadPortable") || has("WriteData", "ReadData"))
}

// leafCodec makes the write and read functions of a field whose items have
// one Compact kind, for each shape.
type leafCodec interface {
	ops(s shape) (core.FieldKind, writeFunc, readFunc)
}

func leafCodecOf(t reflect.Type) leafCodec {
	switch t {
	case typeDecimal:
		return decimalCodec
	case typeLocalTime:
		return localTimeCodec
	case typeLocalDate:
		return localDateCodec
	case typeLocalDateTime:
		return localDateTimeCodec
	case typeOffsetDateTime:
		return offsetDateTimeCodec
	case typeTime:
		return timeCodec
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolCodec
	case reflect.Int8, reflect.Uint8:
		return int8Codec // same size: a uint8 is read and written as its int8 bits
	case reflect.Int16:
		return int16Codec
	case reflect.Int32:
		return int32Codec
	case reflect.Int64:
		return int64Codec
	case reflect.Int:
		return intCodec{}
	case reflect.Float32:
		return float32Codec
	case reflect.Float64:
		return float64Codec
	case reflect.String:
		return stringCodec
	}
	return nil
}

// primCodec handles the kinds that have writer and reader methods for all
// four shapes: the fixed-size primitives and STRING.
type primCodec[T any] struct {
	kind       core.FieldKind
	write      func(*Writer, string, T)
	read       func(*Reader, string) T
	writePtr   func(*Writer, string, *T)
	readPtr    func(*Reader, string) *T
	writeSlice func(*Writer, string, []T)
	readSlice  func(*Reader, string) []T
	writePtrs  func(*Writer, string, []*T)
	readPtrs   func(*Reader, string) []*T
}

func (c *primCodec[T]) ops(s shape) (core.FieldKind, writeFunc, readFunc) {
	switch s {
	case shapeValue:
		if w, r := valueOps(c.kind); w != nil {
			return c.kind, w, r
		}
		return c.kind,
			func(w *Writer, f *fieldPlan, p unsafe.Pointer) { c.write(w, f.name, *(*T)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*T)(p) = c.read(r, f.name) }
	case shapePtr:
		return c.kind.Nullable(),
			func(w *Writer, f *fieldPlan, p unsafe.Pointer) { c.writePtr(w, f.name, *(**T)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(**T)(p) = c.readPtr(r, f.name) }
	case shapeSlice:
		return c.kind + 1,
			func(w *Writer, f *fieldPlan, p unsafe.Pointer) { c.writeSlice(w, f.name, *(*[]T)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*[]T)(p) = c.readSlice(r, f.name) }
	}
	return (c.kind + 1).Nullable(),
		func(w *Writer, f *fieldPlan, p unsafe.Pointer) { c.writePtrs(w, f.name, *(*[]*T)(p)) },
		func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*[]*T)(p) = c.readPtrs(r, f.name) }
}

var (
	boolCodec = &primCodec[bool]{core.KindBoolean,
		(*Writer).WriteBoolean, (*Reader).ReadBoolean,
		(*Writer).WriteNullableBoolean, (*Reader).ReadNullableBoolean,
		(*Writer).WriteArrayOfBoolean, (*Reader).ReadArrayOfBoolean,
		(*Writer).WriteArrayOfNullableBoolean, (*Reader).ReadArrayOfNullableBoolean}
	int8Codec = &primCodec[int8]{core.KindInt8,
		(*Writer).WriteInt8, (*Reader).ReadInt8,
		(*Writer).WriteNullableInt8, (*Reader).ReadNullableInt8,
		(*Writer).WriteArrayOfInt8, (*Reader).ReadArrayOfInt8,
		(*Writer).WriteArrayOfNullableInt8, (*Reader).ReadArrayOfNullableInt8}
	int16Codec = &primCodec[int16]{core.KindInt16,
		(*Writer).WriteInt16, (*Reader).ReadInt16,
		(*Writer).WriteNullableInt16, (*Reader).ReadNullableInt16,
		(*Writer).WriteArrayOfInt16, (*Reader).ReadArrayOfInt16,
		(*Writer).WriteArrayOfNullableInt16, (*Reader).ReadArrayOfNullableInt16}
	int32Codec = &primCodec[int32]{core.KindInt32,
		(*Writer).WriteInt32, (*Reader).ReadInt32,
		(*Writer).WriteNullableInt32, (*Reader).ReadNullableInt32,
		(*Writer).WriteArrayOfInt32, (*Reader).ReadArrayOfInt32,
		(*Writer).WriteArrayOfNullableInt32, (*Reader).ReadArrayOfNullableInt32}
	int64Codec = &primCodec[int64]{core.KindInt64,
		(*Writer).WriteInt64, (*Reader).ReadInt64,
		(*Writer).WriteNullableInt64, (*Reader).ReadNullableInt64,
		(*Writer).WriteArrayOfInt64, (*Reader).ReadArrayOfInt64,
		(*Writer).WriteArrayOfNullableInt64, (*Reader).ReadArrayOfNullableInt64}
	float32Codec = &primCodec[float32]{core.KindFloat32,
		(*Writer).WriteFloat32, (*Reader).ReadFloat32,
		(*Writer).WriteNullableFloat32, (*Reader).ReadNullableFloat32,
		(*Writer).WriteArrayOfFloat32, (*Reader).ReadArrayOfFloat32,
		(*Writer).WriteArrayOfNullableFloat32, (*Reader).ReadArrayOfNullableFloat32}
	float64Codec = &primCodec[float64]{core.KindFloat64,
		(*Writer).WriteFloat64, (*Reader).ReadFloat64,
		(*Writer).WriteNullableFloat64, (*Reader).ReadNullableFloat64,
		(*Writer).WriteArrayOfFloat64, (*Reader).ReadArrayOfFloat64,
		(*Writer).WriteArrayOfNullableFloat64, (*Reader).ReadArrayOfNullableFloat64}
	stringCodec = &primCodec[string]{core.KindString,
		(*Writer).WriteString, (*Reader).ReadString,
		(*Writer).WriteStringPtr, (*Reader).ReadStringPtr,
		(*Writer).WriteArrayOfString, (*Reader).ReadArrayOfString,
		(*Writer).WriteArrayOfStringPtr, (*Reader).ReadArrayOfStringPtr}
)

// valueOps returns direct functions for plain fixed-size and string fields,
// the most common fields: the writer and reader methods inline into them,
// which saves an indirect call per field over the generic closures.
func valueOps(k core.FieldKind) (writeFunc, readFunc) {
	switch k {
	case core.KindBoolean:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteBoolean(f.name, *(*bool)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*bool)(p) = r.ReadBoolean(f.name) }
	case core.KindInt8:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteInt8(f.name, *(*int8)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*int8)(p) = r.ReadInt8(f.name) }
	case core.KindInt16:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteInt16(f.name, *(*int16)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*int16)(p) = r.ReadInt16(f.name) }
	case core.KindInt32:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteInt32(f.name, *(*int32)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*int32)(p) = r.ReadInt32(f.name) }
	case core.KindInt64:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteInt64(f.name, *(*int64)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*int64)(p) = r.ReadInt64(f.name) }
	case core.KindFloat32:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteFloat32(f.name, *(*float32)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*float32)(p) = r.ReadFloat32(f.name) }
	case core.KindFloat64:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteFloat64(f.name, *(*float64)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*float64)(p) = r.ReadFloat64(f.name) }
	case core.KindString:
		return func(w *Writer, f *fieldPlan, p unsafe.Pointer) { w.WriteString(f.name, *(*string)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*string)(p) = r.ReadString(f.name) }
	}
	return nil, nil
}

// intCodec maps int to the INT64 kinds, converting because int may be
// narrower than int64.
type intCodec struct{}

func (intCodec) ops(s shape) (core.FieldKind, writeFunc, readFunc) {
	switch s {
	case shapeValue:
		return core.KindInt64, writeInt, readInt
	case shapePtr:
		return core.KindNullableInt64, writeIntPtr, readIntPtr
	case shapeSlice:
		return core.KindArrayOfInt64, writeInts, readInts
	}
	return core.KindArrayOfNullableInt64, writeIntPtrs, readIntPtrs
}

func writeInt(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	w.WriteInt64(f.name, int64(*(*int)(p)))
}

func readInt(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	*(*int)(p) = r.toInt(f, r.ReadInt64(f.name))
}

func writeIntPtr(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	q := *(**int)(p)
	if q == nil {
		w.WriteNullableInt64(f.name, nil)
		return
	}
	v := int64(*q)
	w.WriteNullableInt64(f.name, &v)
}

func readIntPtr(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	if v := r.ReadNullableInt64(f.name); v != nil {
		x := r.toInt(f, *v)
		*(**int)(p) = &x
	}
}

func writeInts(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	s := *(*[]int)(p)
	if w.varStart(f.name, core.KindArrayOfInt64, s == nil) {
		w.buf = wire.AppendInt32(w.buf, int32(len(s)))
		for _, x := range s {
			w.buf = wire.AppendInt64(w.buf, int64(x))
		}
	}
}

func readInts(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	v := r.ReadArrayOfInt64(f.name)
	if v == nil {
		return
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = r.toInt(f, x)
	}
	*(*[]int)(p) = out
}

func writeIntPtrs(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	s := *(*[]*int)(p)
	if w.varStart(f.name, core.KindArrayOfNullableInt64, s == nil) {
		w.varArray(len(s), func(i int) bool { return s[i] == nil }, func(i int) { w.buf = wire.AppendInt64(w.buf, int64(*s[i])) })
	}
}

func readIntPtrs(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	v := r.ReadArrayOfNullableInt64(f.name)
	if v == nil {
		return
	}
	out := make([]*int, len(v))
	for i, x := range v {
		if x != nil {
			y := r.toInt(f, *x)
			out[i] = &y
		}
	}
	*(*[]*int)(p) = out
}

func (r *Reader) toInt(f *fieldPlan, v int64) int {
	if int64(int(v)) != v {
		r.note(&core.FieldError{Field: f.name, Reason: "value " + strconv.FormatInt(v, 10) + " overflows the int of " + f.typ.String()})
	}
	return int(v)
}

// objCodec handles the variable-size value kinds (DECIMAL and the temporal
// kinds), whose writer and reader methods take pointers.
type objCodec[T any] struct {
	kind      core.FieldKind
	write     func(w *Writer, name string, v *T) // nil writes null
	read      func(r *Reader, name string) *T    // null reads nil
	item      func(w *Writer, name string, v *T) // appends an array item
	readItems func(r *Reader, name string) []*T  // the array kind; null items are nil
}

func (c *objCodec[T]) ops(s shape) (core.FieldKind, writeFunc, readFunc) {
	switch s {
	case shapeValue:
		return c.kind,
			func(w *Writer, f *fieldPlan, p unsafe.Pointer) { c.write(w, f.name, (*T)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) {
				if v := c.read(r, f.name); v != nil {
					*(*T)(p) = *v
				}
			}
	case shapePtr:
		return c.kind,
			func(w *Writer, f *fieldPlan, p unsafe.Pointer) { c.write(w, f.name, *(**T)(p)) },
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(**T)(p) = c.read(r, f.name) }
	case shapeSlice:
		return c.kind + 1,
			func(w *Writer, f *fieldPlan, p unsafe.Pointer) {
				s := *(*[]T)(p)
				if w.varStart(f.name, c.kind+1, s == nil) {
					w.varArray(len(s), noNulls, func(i int) { c.item(w, f.name, &s[i]) })
				}
			},
			func(r *Reader, f *fieldPlan, p unsafe.Pointer) {
				items := c.readItems(r, f.name)
				if items == nil {
					return
				}
				out := make([]T, len(items))
				for i, it := range items {
					if it == nil {
						r.note(nullItemError(f))
						return
					}
					out[i] = *it
				}
				*(*[]T)(p) = out
			}
	}
	return c.kind + 1,
		func(w *Writer, f *fieldPlan, p unsafe.Pointer) {
			s := *(*[]*T)(p)
			if w.varStart(f.name, c.kind+1, s == nil) {
				w.varArray(len(s), func(i int) bool { return s[i] == nil }, func(i int) { c.item(w, f.name, s[i]) })
			}
		},
		func(r *Reader, f *fieldPlan, p unsafe.Pointer) { *(*[]*T)(p) = c.readItems(r, f.name) }
}

func noNulls(int) bool { return false }

func nullItemError(f *fieldPlan) error {
	return &core.FieldError{Field: f.name, Reason: "has a null item, which " + f.typ.String() + " cannot hold; use a slice of pointers"}
}

var (
	decimalCodec = &objCodec[core.Decimal]{core.KindDecimal,
		(*Writer).WriteDecimal, (*Reader).ReadDecimal,
		func(w *Writer, _ string, v *core.Decimal) { w.buf = core.AppendDecimal(w.buf, *v) },
		(*Reader).ReadArrayOfDecimal}
	localTimeCodec = &objCodec[core.LocalTime]{core.KindTime,
		(*Writer).WriteTime, (*Reader).ReadTime,
		func(w *Writer, _ string, v *core.LocalTime) { w.buf = core.AppendTime(w.buf, *v) },
		(*Reader).ReadArrayOfTime}
	localDateCodec = &objCodec[core.LocalDate]{core.KindDate,
		(*Writer).WriteDate, (*Reader).ReadDate,
		func(w *Writer, _ string, v *core.LocalDate) { w.buf = core.AppendDate(w.buf, *v, false) },
		(*Reader).ReadArrayOfDate}
	localDateTimeCodec = &objCodec[core.LocalDateTime]{core.KindTimestamp,
		(*Writer).WriteTimestamp, (*Reader).ReadTimestamp,
		func(w *Writer, _ string, v *core.LocalDateTime) {
			w.buf = core.AppendTimestamp(w.buf, *v, false)
		},
		(*Reader).ReadArrayOfTimestamp}
	offsetDateTimeCodec = &objCodec[core.OffsetDateTime]{core.KindTimestampWithTimezone,
		(*Writer).WriteTimestampWithTimezone, (*Reader).ReadTimestampWithTimezone,
		func(w *Writer, _ string, v *core.OffsetDateTime) {
			w.buf = core.AppendTimestampTZ(w.buf, *v, false)
		},
		(*Reader).ReadArrayOfTimestampWithTimezone}
	timeCodec = &objCodec[time.Time]{core.KindTimestampWithTimezone, writeGoTime, readGoTime, appendGoTime, readGoTimes}
)

func writeGoTime(w *Writer, name string, v *time.Time) {
	if v == nil {
		w.WriteTimestampWithTimezone(name, nil)
		return
	}
	o, err := offsetDateTimeOf(name, *v)
	if err != nil {
		w.fail(err)
		return
	}
	w.WriteTimestampWithTimezone(name, &o)
}

func appendGoTime(w *Writer, name string, v *time.Time) {
	o, err := offsetDateTimeOf(name, *v)
	if err != nil {
		w.fail(err)
		return
	}
	w.buf = core.AppendTimestampTZ(w.buf, o, false)
}

func readGoTime(r *Reader, name string) *time.Time {
	o := r.ReadTimestampWithTimezone(name)
	if o == nil {
		return nil
	}
	t, err := timeOf(name, o)
	if err != nil {
		r.note(err)
		return nil
	}
	return &t
}

func readGoTimes(r *Reader, name string) []*time.Time {
	items := r.ReadArrayOfTimestampWithTimezone(name)
	if items == nil {
		return nil
	}
	out := make([]*time.Time, len(items))
	for i, o := range items {
		if o == nil {
			continue
		}
		t, err := timeOf(name, o)
		if err != nil {
			r.note(err)
			return nil
		}
		out[i] = &t
	}
	return out
}

// Java's OffsetDateTime holds years within ±999,999,999 and offsets within ±18:00.
const (
	maxJavaYear      = 999_999_999
	maxOffsetSeconds = 18 * 3600
)

func offsetDateTimeOf(name string, t time.Time) (core.OffsetDateTime, error) {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	_, off := t.Zone()
	if y < -maxJavaYear || y > maxJavaYear {
		return core.OffsetDateTime{}, &core.TypeError{Type: "time.Time", Reason: "field " + strconv.Quote(name) + ": year " + strconv.Itoa(y) + " is outside Java's range of ±999999999"}
	}
	if off < -maxOffsetSeconds || off > maxOffsetSeconds {
		return core.OffsetDateTime{}, &core.TypeError{Type: "time.Time", Reason: "field " + strconv.Quote(name) + ": zone offset " + strconv.Itoa(off) + "s is outside Java's range of ±18:00"}
	}
	return core.OffsetDateTime{
		LocalDateTime: core.LocalDateTime{
			Date: core.LocalDate{Year: int32(y), Month: int8(mo), Day: int8(d)},
			Time: core.LocalTime{Hour: int8(h), Minute: int8(mi), Second: int8(s), Nanosecond: int32(t.Nanosecond())},
		},
		OffsetSeconds: int32(off),
	}, nil
}

// timeOf converts a decoded TIMESTAMP_WITH_TIMEZONE, rejecting values that
// Java's OffsetDateTime would reject instead of letting time.Date normalize
// them.
func timeOf(name string, o *core.OffsetDateTime) (time.Time, error) {
	d, c, off := o.Date, o.Time, o.OffsetSeconds
	if d.Year >= -maxJavaYear && d.Year <= maxJavaYear && d.Month >= 1 && d.Month <= 12 && d.Day >= 1 && d.Day <= 31 &&
		c.Hour >= 0 && c.Hour < 24 && c.Minute >= 0 && c.Minute < 60 && c.Second >= 0 && c.Second < 60 &&
		c.Nanosecond >= 0 && c.Nanosecond < 1e9 && off >= -maxOffsetSeconds && off <= maxOffsetSeconds {
		loc := time.UTC
		if off != 0 {
			loc = time.FixedZone("", int(off))
		}
		t := time.Date(int(d.Year), time.Month(d.Month), int(d.Day), int(c.Hour), int(c.Minute), int(c.Second), int(c.Nanosecond), loc)
		if t.Day() == int(d.Day) {
			return t, nil
		}
	}
	return time.Time{}, core.Malformed("compact", 0, "field "+strconv.Quote(name)+" holds the invalid date-time "+o.String())
}

func writeNestedValue(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	if w.varStart(f.name, core.KindCompact, false) {
		w.appendStruct(f, p)
	}
}

func writeNestedPtr(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	q := *(*unsafe.Pointer)(p)
	if w.varStart(f.name, core.KindCompact, q == nil) {
		w.appendStruct(f, q)
	}
}

func writeNestedSlice(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	s := reflect.NewAt(f.typ, p).Elem()
	if !w.varStart(f.name, core.KindArrayOfCompact, s.IsNil()) {
		return
	}
	base, size := s.UnsafePointer(), f.st.Size()
	w.varArray(s.Len(), noNulls, func(i int) { w.appendStruct(f, unsafe.Add(base, uintptr(i)*size)) })
}

func writeNestedPtrSlice(w *Writer, f *fieldPlan, p unsafe.Pointer) {
	s := reflect.NewAt(f.typ, p).Elem()
	if !w.varStart(f.name, core.KindArrayOfCompact, s.IsNil()) {
		return
	}
	items := unsafe.Slice((*unsafe.Pointer)(s.UnsafePointer()), s.Len())
	w.varArray(len(items), func(i int) bool { return items[i] == nil }, func(i int) { w.appendStruct(f, items[i]) })
}

// appendStruct appends the nested object of struct type f.st at p, written
// by the serializer the Service has for it: straight from p when that is
// reflective, through the serializer's Write otherwise.
func (w *Writer) appendStruct(f *fieldPlan, p unsafe.Pointer) {
	e := w.enc
	if e.Depth >= core.MaxDepth {
		w.fail(&core.TypeError{Type: f.sp.String(), Reason: "objects nest deeper than " + strconv.Itoa(core.MaxDepth) + " levels (a cycle?)"})
		return
	}
	if e.Types == nil {
		w.fail(&core.TypeError{Type: f.sp.String(), Reason: "only records can be nested in a record builder"})
		return
	}
	ct, byValue, err := e.Types.nested(f.st, f.sp)
	if err != nil {
		w.fail(err)
		return
	}
	var v any
	if byValue {
		v = reflect.NewAt(f.st, p).Elem().Interface()
	} else {
		v = reflect.NewAt(f.st, p).Interface()
	}
	lay, err := e.layoutOf(ct, v)
	if err != nil {
		w.fail(err)
		return
	}
	if rs, ok := ct.ser.(*reflectiveSerializer); ok {
		w.buf, err = e.write(w.buf, lay.schema, lay.order, func(nw *Writer) { rs.plan.write(nw, p) })
	} else {
		w.buf, err = e.write(w.buf, lay.schema, lay.order, func(nw *Writer) { ct.ser.Write(nw, v) })
	}
	if err != nil {
		w.fail(err)
	}
}

func readNestedValue(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	rec, err := r.rec.GetCompact(f.name)
	r.note(err)
	if rec != nil && r.err == nil {
		r.readStruct(f, rec, p)
	}
}

func readNestedPtr(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	rec, err := r.rec.GetCompact(f.name)
	r.note(err)
	if rec != nil && r.err == nil {
		if q := r.readStruct(f, rec, nil); q != nil {
			*(*unsafe.Pointer)(p) = q
		}
	}
}

func readNestedSlice(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	recs, err := r.rec.GetArrayOfCompact(f.name)
	r.note(err)
	if recs == nil || r.err != nil {
		return
	}
	for _, rec := range recs {
		if rec == nil {
			r.note(nullItemError(f))
			return
		}
	}
	s := reflect.MakeSlice(f.typ, len(recs), len(recs))
	base, size := s.UnsafePointer(), f.st.Size()
	for i, rec := range recs {
		if r.readStruct(f, rec, unsafe.Add(base, uintptr(i)*size)) == nil {
			return
		}
	}
	reflect.NewAt(f.typ, p).Elem().Set(s)
}

func readNestedPtrSlice(r *Reader, f *fieldPlan, p unsafe.Pointer) {
	recs, err := r.rec.GetArrayOfCompact(f.name)
	r.note(err)
	if recs == nil || r.err != nil {
		return
	}
	s := reflect.MakeSlice(f.typ, len(recs), len(recs))
	items := unsafe.Slice((*unsafe.Pointer)(s.UnsafePointer()), len(recs))
	for i, rec := range recs {
		if rec == nil {
			continue
		}
		if items[i] = r.readStruct(f, rec, nil); items[i] == nil {
			return
		}
	}
	reflect.NewAt(f.typ, p).Elem().Set(s)
}

// readStruct decodes a nested object into the struct at into, or into a new
// struct when into is nil, through the serializer the Service has for
// f.st. It returns where the struct is, or nil after an error.
func (r *Reader) readStruct(f *fieldPlan, rec *Record, into unsafe.Pointer) unsafe.Pointer {
	if !r.enterNested(rec) {
		return nil
	}
	sub := Reader{rec: *rec, dec: r.dec}
	types := r.dec.Types.cur.Load()
	ct := types.byType[f.sp]
	if ct == nil {
		ct = types.byType[f.st]
	}
	plan := f.elem
	if ct != nil {
		plan = nil
		if rs, ok := ct.ser.(*reflectiveSerializer); ok {
			plan = rs.plan
		}
	}
	switch {
	case plan != nil:
		if into == nil {
			into = reflect.New(f.st).UnsafePointer()
		}
		plan.read(&sub, into)
	case ct != nil:
		if v := ct.ser.Read(&sub); sub.err == nil {
			into = sub.adopt(f, v, into)
		}
	default:
		sub.err = &core.TypeError{Type: f.sp.String(), Reason: "no CompactSerializer is registered for it"}
	}
	r.dec.Budget.Depth--
	r.note(sub.err)
	if r.err != nil {
		return nil
	}
	return into
}

// adopt stores v, what a non-reflective serializer read for f.st, at into
// (or returns it when into is nil).
func (r *Reader) adopt(f *fieldPlan, v any, into unsafe.Pointer) unsafe.Pointer {
	rv := reflect.ValueOf(v)
	switch {
	case v == nil || (rv.Type() == f.sp && rv.IsNil()):
		if into == nil {
			into = reflect.New(f.st).UnsafePointer()
		}
	case rv.Type() == f.sp && into == nil:
		into = rv.UnsafePointer()
	case rv.Type() == f.sp:
		reflect.NewAt(f.st, into).Elem().Set(rv.Elem())
	case rv.Type() == f.st:
		if into == nil {
			into = reflect.New(f.st).UnsafePointer()
		}
		reflect.NewAt(f.st, into).Elem().Set(rv)
	default:
		r.note(&core.FieldError{Field: f.name, Reason: fmt.Sprintf("the serializer of %s returned a %T", f.sp, v)})
	}
	return into
}

// enterNested accounts for a nested object about to be decoded: it bounds
// the nesting depth, and the total size of the nested objects decoded to
// maxDepth times the size of the Data. Well-formed data stays far below
// that, since every byte belongs to at most maxDepth nested objects; offset
// tables that point many fields or items at the same bytes do not, and
// would otherwise make the decoded value exponentially larger than the input.
func (r *Reader) enterNested(rec *Record) bool {
	d := r.dec
	if d == nil {
		r.note(&core.TypeError{Type: "CompactReader", Reason: "the reader was not created by a Service"})
		return false
	}
	if d.Budget.Depth >= core.MaxDepth {
		r.note(core.Malformed("compact", 0, "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels"))
		return false
	}
	d.Budget.Nested += len(rec.raw)
	if d.Budget.Nested > core.MaxDepth*d.Budget.Size {
		r.note(core.Malformed("compact", 0, "nested objects overlap: decoding them would read more than "+strconv.Itoa(core.MaxDepth)+" times the data"))
		return false
	}
	d.Budget.Depth++
	return true
}
