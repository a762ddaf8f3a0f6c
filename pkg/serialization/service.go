package serialization

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// Config configures a Service. The zero Config handles built-in types,
// generic records, JSON and, through zero-config Compact, plain structs.
type Config struct {
	// CompactSerializers handle Go types in the Compact format.
	CompactSerializers []CompactSerializer
	// PortableFactories create Portable values by factory and class id.
	PortableFactories []PortableFactory
	// ClassDefinitions registers Portable class definitions up front. They
	// are needed to write a null nested Portable before its class was seen,
	// and otherwise learned from the first write.
	ClassDefinitions []*ClassDefinition
	// PortableVersion is the class version of Portable types that do not
	// implement VersionedPortable (Hazelcast's portable-version, default 0).
	PortableVersion int32
	// IdentifiedFactories create IdentifiedDataSerializable values.
	IdentifiedFactories []IdentifiedFactory
	// Layouts describe IdentifiedDataSerializable classes for readers that
	// have no Go type for them.
	Layouts []*Layout
	// Schemas, ClassRegistry and LayoutRegistry let several services share
	// metadata (a member and its clients' views of the cluster registries).
	// New empty registries are used when nil.
	Schemas        *SchemaRegistry
	ClassRegistry  *ClassRegistry
	LayoutRegistry *LayoutRegistry
	// ZeroConfigCompact decides whether a struct (or pointer to struct)
	// with no registered serializer and no Portable or
	// IdentifiedDataSerializable implementation is written in the Compact
	// format through a reflective serializer that the Service creates on
	// first use (see NewReflectiveSerializer and CompactTypeNameOf). The
	// zero value, ZeroConfigEnabled, turns it on, as Hazelcast does for
	// Java classes; ZeroConfigDisabled makes such values an error.
	ZeroConfigCompact ZeroConfigMode
}

// Service turns Go values into Data and back. It is safe for concurrent use.
type Service struct {
	// compact indexes the Compact serializers by Go type and type name. It
	// is replaced, never changed, when a type is added (copy-on-write), so
	// lookups need no lock; compactMu serializes the writers.
	compact    atomic.Pointer[compactTypes]
	compactMu  sync.Mutex
	zeroConfig bool
	schemas    *SchemaRegistry

	portableFactories map[int32]PortableFactory
	classes           *ClassRegistry
	portableVersion   int32

	identifiedFactories map[int32]IdentifiedFactory
	layouts             *LayoutRegistry

	encoders sync.Pool // *encoder

	readerCache // FieldReaders by path
}

type compactType struct {
	ser    CompactSerializer
	layout atomic.Pointer[compactLayout]
}

// NewService validates cfg and returns a Service.
func NewService(cfg Config) (*Service, error) {
	s := &Service{
		zeroConfig:          cfg.ZeroConfigCompact != ZeroConfigDisabled,
		schemas:             cfg.Schemas,
		portableFactories:   map[int32]PortableFactory{},
		classes:             cfg.ClassRegistry,
		portableVersion:     cfg.PortableVersion,
		identifiedFactories: map[int32]IdentifiedFactory{},
		layouts:             cfg.LayoutRegistry,
	}
	if s.schemas == nil {
		s.schemas = NewSchemaRegistry()
	}
	if s.classes == nil {
		s.classes = NewClassRegistry()
	}
	if s.layouts == nil {
		s.layouts = NewLayoutRegistry()
	}
	types := newCompactTypes()
	var reflective []*reflectiveSerializer
	for _, ser := range cfg.CompactSerializers {
		t := ser.Type()
		if t == nil || ser.TypeName() == "" {
			return nil, &core.DefinitionError{What: "compact serializer", Reason: "Type and TypeName must be set"}
		}
		if _, dup := types.byType[t]; dup {
			return nil, &core.DefinitionError{What: "compact serializer for " + t.String(), Reason: "registered twice"}
		}
		if _, dup := types.byName[ser.TypeName()]; dup {
			return nil, &core.DefinitionError{What: "compact serializer " + strconv.Quote(ser.TypeName()), Reason: "type name registered twice"}
		}
		ct := &compactType{ser: ser}
		types.byType[t] = ct
		types.byName[ser.TypeName()] = ct
		if rs, ok := ser.(*reflectiveSerializer); ok {
			reflective = append(reflective, rs)
		}
	}
	// Explicit registrations come first, so that they win over the types
	// that reflective serializers nest.
	for _, rs := range reflective {
		if err := types.addCompanions(types.byType[rs.typ], rs); err != nil {
			return nil, err
		}
	}
	s.compact.Store(types)
	for _, f := range cfg.PortableFactories {
		if _, dup := s.portableFactories[f.FactoryID()]; dup {
			return nil, &core.DefinitionError{What: fmt.Sprintf("portable factory %d", f.FactoryID()), Reason: "registered twice"}
		}
		s.portableFactories[f.FactoryID()] = f
	}
	for _, cd := range cfg.ClassDefinitions {
		if err := s.classes.Add(cd); err != nil {
			return nil, err
		}
	}
	for _, f := range cfg.IdentifiedFactories {
		if _, dup := s.identifiedFactories[f.FactoryID()]; dup {
			return nil, &core.DefinitionError{What: fmt.Sprintf("identified factory %d", f.FactoryID()), Reason: "registered twice"}
		}
		s.identifiedFactories[f.FactoryID()] = f
	}
	for _, l := range cfg.Layouts {
		if err := s.layouts.Add(l); err != nil {
			return nil, err
		}
	}
	s.encoders.New = func() any { return &encoder{svc: s} }
	return s, nil
}

// Schemas returns the Compact schema registry.
func (s *Service) Schemas() *SchemaRegistry { return s.schemas }

// ClassRegistry returns the Portable class definition registry.
func (s *Service) ClassRegistry() *ClassRegistry { return s.classes }

// LayoutRegistry returns the IdentifiedDataSerializable layout registry.
func (s *Service) LayoutRegistry() *LayoutRegistry { return s.layouts }

// PartitionAware is implemented by keys that choose their partition through
// another value: the key's partition hash is the partition hash of
// PartitionKey's Data, so related keys can share a partition.
type PartitionAware interface {
	PartitionKey() any
}

// ToData serializes v into a new Data.
func (s *Service) ToData(v any) (core.Data, error) {
	b, err := s.AppendData(nil, v)
	return core.Data(b), err
}

// AppendData appends the Data of v to dst and returns the extended slice; the
// Data is the appended part. Appending to a reused buffer is the
// allocation-free way to serialize.
func (s *Service) AppendData(dst []byte, v any) ([]byte, error) {
	return s.appendData(dst, v, false)
}

// AppendDataWithSchema is AppendData for Compact values, except that the
// Data has type -56 and carries its schemas, so a reader needs no registry.
func (s *Service) AppendDataWithSchema(dst []byte, v any) ([]byte, error) {
	return s.appendData(dst, v, true)
}

func (s *Service) appendData(dst []byte, v any, withSchema bool) ([]byte, error) {
	if core.IsNil(v) {
		return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "a nil value has no Data"}
	}
	var hash int32
	if pa, ok := v.(PartitionAware); ok {
		key, err := s.ToData(pa.PartitionKey())
		if err != nil {
			return dst, fmt.Errorf("serialization: partition key of %T: %w", v, err)
		}
		hash = key.PartitionHash()
	}
	e := s.encoders.Get().(*encoder)
	e.base, e.withSchema = len(dst), withSchema
	out := wire.AppendInt32(dst, hash)
	out, err := e.appendObject(out, v, true)
	e.reset()
	s.encoders.Put(e)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// ToObject deserializes d. Values whose Go type is registered come back as
// that type; Compact, Portable and IdentifiedDataSerializable values without
// a Go type come back as *CompactRecord, *PortableRecord or
// *IdentifiedRecord (IDS only when a Layout is registered). An empty Data is
// nil. Records alias d's bytes, so d must not change while they are in use;
// all other values are copies.
func (s *Service) ToObject(d core.Data) (any, error) {
	if len(d) == 0 {
		return nil, nil
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	dec := decoder{svc: s, buf: d}
	rd := wire.NewReader(d, core.HeaderSize)
	return dec.readObjectOfType(&rd, d.Type(), true)
}

// encoder carries the state of one ToData call. It is pooled.
type encoder struct {
	svc        *Service
	base       int               // index of the Data start in the output, for Portable positions
	withSchema bool              // Compact objects embed their schemas (type -56)
	stack      []int32           // Compact offset scratch shared by nested writers
	writers    []*CompactWriter  // one per nesting depth, reused
	pwriters   []*PortableWriter // one per nesting depth, reused
	outputs    []*DataOutput     // one per nesting depth, reused
	depth      int
}

func (e *encoder) reset() {
	e.stack = e.stack[:0]
	e.depth = 0
	for _, w := range e.writers {
		*w = CompactWriter{}
	}
}

// compactWriter returns a writer for the current nesting depth.
func (e *encoder) compactWriter() *CompactWriter {
	for len(e.writers) <= e.depth {
		e.writers = append(e.writers, &CompactWriter{})
	}
	return e.writers[e.depth]
}

// appendObject appends type id + payload, as writeObject does; top says
// whether this is a top-level value (nil is not allowed there).
func (e *encoder) appendObject(dst []byte, v any, top bool) ([]byte, error) {
	if e.depth >= core.MaxDepth {
		return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "objects nest deeper than " + strconv.Itoa(core.MaxDepth) + " levels (a cycle?)"}
	}
	if out, ok, err := core.AppendBuiltin(dst, v); ok || err != nil {
		return out, err
	}
	switch x := v.(type) {
	case nil:
		if top {
			return dst, &core.TypeError{Type: "nil", Reason: "a nil value has no Data"}
		}
		return wire.AppendInt32(dst, core.TypeNull), nil
	case *CompactRecord, CompactRecord:
		return e.appendCompactData(dst, v)
	case *PortableRecord:
		return e.appendPortableData(dst, x)
	case *IdentifiedRecord:
		return e.appendIdentifiedRecordData(dst, x)
	}
	if !top && core.IsNil(v) {
		// A nil pointer of a serializable type is a null nested object; its
		// serializer must not see it.
		return wire.AppendInt32(dst, core.TypeNull), nil
	}
	if e.svc != nil {
		if _, ok := e.svc.compact.Load().byType[reflect.TypeOf(v)]; ok {
			return e.appendCompactData(dst, v)
		}
	}
	switch x := v.(type) {
	case IdentifiedDataSerializable:
		return e.appendIdentifiedData(dst, x)
	case Portable:
		return e.appendPortableData(dst, x)
	}
	if e.svc != nil {
		if ct, err := e.svc.zeroConfigType(reflect.TypeOf(v)); err != nil {
			return dst, err
		} else if ct != nil {
			return e.appendCompactData(dst, v)
		}
	}
	return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "not a built-in type, and no CompactSerializer, Portable or IdentifiedDataSerializable implementation is registered for it"}
}

func (e *encoder) appendCompactData(dst []byte, v any) ([]byte, error) {
	typ := core.TypeCompact
	if e.withSchema {
		typ = core.TypeCompactWithSchema
	}
	return e.appendCompact(wire.AppendInt32(dst, typ), v)
}

// appendCompact appends a Compact object (schema id, optional schema, body)
// without a type id: the payload of a Compact Data or a nested field.
func (e *encoder) appendCompact(dst []byte, v any) ([]byte, error) {
	switch rec := v.(type) {
	case *CompactRecord:
		return e.appendCompactRecord(dst, rec)
	case CompactRecord:
		return e.appendCompactRecord(dst, &rec)
	}
	if e.svc == nil {
		return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "only records can be nested in a record builder"}
	}
	ct, ok := e.svc.compact.Load().byType[reflect.TypeOf(v)]
	if !ok {
		var err error
		if ct, err = e.svc.zeroConfigType(reflect.TypeOf(v)); err != nil {
			return dst, err
		}
		if ct == nil {
			return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "no CompactSerializer is registered for it"}
		}
	}
	lay, err := e.compactLayout(ct, v)
	if err != nil {
		return dst, err
	}
	return e.writeCompact(dst, lay.schema, lay.order, func(w *CompactWriter) { ct.ser.Write(w, v) })
}

// compactLayout returns the schema and write order of ct, discovering them
// from a first write when needed.
func (e *encoder) compactLayout(ct *compactType, v any) (*compactLayout, error) {
	if lay := ct.layout.Load(); lay != nil {
		return lay, nil
	}
	w := &CompactWriter{enc: e}
	ct.ser.Write(w, v)
	if w.err != nil {
		return nil, w.err
	}
	schema, err := NewSchema(ct.ser.TypeName(), w.defs)
	if err != nil {
		return nil, err
	}
	if schema, err = e.svc.schemas.Add(schema); err != nil {
		return nil, err
	}
	lay := &compactLayout{schema: schema, order: make([]int32, len(w.defs))}
	for i, d := range w.defs {
		lay.order[i] = schema.byName[d.Name]
	}
	ct.layout.Store(lay)
	return lay, nil
}

// writeCompact lays out one object with schema and runs write to fill it.
func (e *encoder) writeCompact(dst []byte, schema *Schema, order []int32, write func(*CompactWriter)) ([]byte, error) {
	if e.depth >= core.MaxDepth {
		return dst, &core.TypeError{Type: schema.TypeName, Reason: "objects nest deeper than " + strconv.Itoa(core.MaxDepth) + " levels (a cycle?)"}
	}
	dst = wire.AppendInt64(dst, schema.ID)
	if e.withSchema {
		at := len(dst)
		dst = AppendSchema(wire.AppendInt32(dst, 0), schema)
		wire.PutInt32(dst[at:], int32(len(dst)-at-4))
	}
	lenAt := len(dst)
	if schema.VarCount > 0 {
		dst = wire.AppendInt32(dst, 0)
	}
	start := len(dst)
	for i := int32(0); i < schema.FixedSize; i++ {
		dst = append(dst, 0)
	}
	base := len(e.stack)
	for i := int32(0); i < schema.VarCount; i++ {
		e.stack = append(e.stack, -1)
	}
	w := e.compactWriter()
	*w = CompactWriter{enc: e, schema: schema, order: order, buf: dst, start: start, base: base}
	e.depth++
	write(w)
	e.depth--
	dst, err := w.buf, w.err
	*w = CompactWriter{}
	if err == nil && schema.VarCount > 0 {
		dataLen := len(dst) - start
		wire.PutInt32(dst[lenAt:], int32(dataLen))
		dst = appendOffsets(dst, e.stack[base:base+int(schema.VarCount)], dataLen)
	}
	e.stack = e.stack[:base]
	return dst, err
}

// appendCompactRecord copies a record's bytes when they already have the
// right form, and rewrites it field by field otherwise.
func (e *encoder) appendCompactRecord(dst []byte, rec *CompactRecord) ([]byte, error) {
	if rec.schema == nil {
		return dst, &core.TypeError{Type: "CompactRecord", Reason: "the record is empty"}
	}
	if e.svc != nil {
		if err := e.svc.adoptSchemas(rec); err != nil {
			return dst, err
		}
	}
	if rec.embedded == e.withSchema {
		return append(dst, rec.raw...), nil
	}
	order := recordWriteOrder(rec)
	return e.writeCompact(dst, rec.schema, nil, func(w *CompactWriter) {
		for _, i := range order {
			f := &rec.schema.Fields[i]
			v, err := rec.Get(f.Name)
			if err != nil {
				w.fail(err)
				return
			}
			w.writeValue(f.Name, f.Kind, v)
		}
	})
}

// adoptSchemas registers the schemas a record was built or read with.
func (s *Service) adoptSchemas(rec *CompactRecord) error {
	if rec.schemas == s.schemas || rec.embedded {
		_, err := s.schemas.Add(rec.schema)
		return err
	}
	for _, sc := range rec.schemas.All() {
		if _, err := s.schemas.Add(sc); err != nil {
			return err
		}
	}
	return nil
}

// decoder carries the state of one ToObject call.
type decoder struct {
	svc   *Service
	buf   core.Data // the whole Data: Portable positions are relative to its start
	depth int
	// nested counts the bytes of the nested Compact objects that reflective
	// serializers decoded, to bound the work that overlapping offsets in
	// hostile input could cause (see CompactReader.enterNested).
	nested int
}

// readObject reads a nested object (type id + payload); type 0 is nil.
func (d *decoder) readObject(rd *wire.Reader) (any, error) {
	at := rd.Pos()
	typ := rd.Int32()
	if rd.Err() != nil {
		return nil, &core.DecodeError{Format: "data", Offset: at, Reason: "truncated object type id", Err: rd.Err()}
	}
	if typ == core.TypeNull {
		return nil, nil
	}
	return d.readObjectOfType(rd, typ, false)
}

func (d *decoder) readObjectOfType(rd *wire.Reader, typ int32, top bool) (any, error) {
	if d.depth >= core.MaxDepth {
		return nil, core.Malformed("data", rd.Pos(), "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels")
	}
	d.depth++
	defer func() { d.depth-- }()
	switch typ {
	case core.TypeCompact, core.TypeCompactWithSchema:
		rec, end, err := parseCompact(d.buf, rd.Pos(), len(d.buf), d.svc.schemas, typ == core.TypeCompactWithSchema)
		if err != nil {
			return nil, err
		}
		rd.Seek(end)
		return d.compactObject(rec)
	case core.TypePortable:
		return d.readPortable(rd)
	case core.TypeIdentified:
		return d.readIdentified(rd)
	}
	v, ok, err := core.ReadBuiltin(rd, typ)
	if ok {
		return v, err
	}
	return nil, &core.DecodeError{Format: "data", Offset: rd.Pos() - 4, Reason: "type id " + strconv.Itoa(int(typ)) + " is not supported (Java-only or unknown serializer)"}
}

// compactObject turns a record into its registered Go type, if any.
func (d *decoder) compactObject(rec CompactRecord) (any, error) {
	ct, ok := d.svc.compact.Load().byName[rec.schema.TypeName]
	if !ok {
		return &rec, nil
	}
	r := CompactReader{rec: rec, dec: d}
	v := ct.ser.Read(&r)
	if r.err != nil {
		return nil, r.err
	}
	return v, nil
}
