package serialization

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/atolldb/atoll/internal/serialization/compact"
	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/identified"
	"github.com/atolldb/atoll/internal/serialization/portable"
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
	compact *compact.Types // the Go types written in the Compact format
	schemas *SchemaRegistry

	portableFactories map[int32]PortableFactory
	classes           *ClassRegistry
	portableVersion   int32

	identifiedFactories map[int32]IdentifiedFactory
	layouts             *LayoutRegistry

	encoders sync.Pool // *encoder

	readerCache // FieldReaders by path
}

// NewService validates cfg and returns a Service.
func NewService(cfg Config) (*Service, error) {
	s := &Service{
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
	var err error
	if s.compact, err = compact.NewTypes(cfg.CompactSerializers, cfg.ZeroConfigCompact != ZeroConfigDisabled); err != nil {
		return nil, err
	}
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
	s.encoders.New = func() any { return s.newEncoder() }
	return s, nil
}

// Schemas returns the Compact schema registry.
func (s *Service) Schemas() *compact.SchemaRegistry { return s.schemas }

// ClassRegistry returns the Portable class definition registry.
func (s *Service) ClassRegistry() *portable.ClassRegistry { return s.classes }

// LayoutRegistry returns the IdentifiedDataSerializable layout registry.
func (s *Service) LayoutRegistry() *identified.LayoutRegistry { return s.layouts }

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
	e.Base, e.WithSchema = len(dst), withSchema
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
	dec := decoders.Get().(*Decoder)
	dec.svc = s
	v, err := dec.ToObject(d)
	dec.svc = nil
	decoders.Put(dec)
	return v, err
}

// decoders pools the Decoders of ToObject calls, whose objects share no
// blocks with those of other calls.
var decoders = sync.Pool{New: func() any { return &Decoder{} }}

// pageBlock is the size of the blocks of a Decoder made by NewDecoder.
const pageBlock = 16 << 10

// A Decoder deserializes one Data after another, as ToObject does, and
// keeps its state between them: the formats' readers, and the blocks
// from which the strings and the arrays of numbers of the objects it
// returns are cut. The objects of a page of query results decoded by one
// Decoder share a few blocks, growing from the first value's size to
// 16 KiB, instead of an allocation each; an object kept alive keeps its
// blocks alive. A Decoder is not safe for concurrent use; the objects it
// returned stay valid after it decodes the next Data.
type Decoder struct {
	svc *Service
	// rd and state are the current Data's reader and budget.
	rd         wire.Reader
	state      core.Budget
	compact    compact.Decoder
	portable   portable.Decoder
	identified identified.Decoder
}

// NewDecoder returns a Decoder whose objects share blocks (see Decoder).
func (s *Service) NewDecoder() *Decoder {
	d := &Decoder{svc: s}
	d.compact.Page, d.portable.Page, d.identified.Page = pageBlock, pageBlock, pageBlock
	return d
}

// ToObject deserializes d as Service.ToObject does.
func (dec *Decoder) ToObject(d core.Data) (any, error) {
	if len(d) == 0 {
		return nil, nil
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	dec.rd, dec.state = wire.NewReader(d, core.HeaderSize), core.Budget{Size: len(d)}
	top := decoder{svc: dec.svc, buf: d, budget: &dec.state, formats: dec}
	v, err := top.readObjectOfType(&dec.rd, d.Type())
	dec.rd = wire.Reader{}
	return v, err
}

// encoder carries the state of one ToData call, shared between the
// formats it writes. It is pooled.
type encoder struct {
	core.Encoding
	svc        *Service
	compact    compact.Encoder
	portable   portable.Encoder
	identified identified.Encoder
}

// newEncoder returns an encoder for a Data that starts at the beginning of
// its buffer.
func (s *Service) newEncoder() *encoder {
	e := &encoder{svc: s}
	e.compact = compact.Encoder{Encoding: &e.Encoding, Types: s.compact, Schemas: s.schemas}
	e.portable = portable.Encoder{Encoding: &e.Encoding, Classes: s.classes, Version: s.portableVersion}
	e.identified = identified.Encoder{Encoding: &e.Encoding, Objects: e}
	return e
}

// AppendObject appends v as writeObject does (type id and payload, type 0
// for nil): an IdentifiedDataSerializable's nested values, of any format.
func (e *encoder) AppendObject(dst []byte, v any) ([]byte, error) {
	return e.appendObject(dst, v, false)
}

func (e *encoder) reset() {
	e.Depth = 0
	e.compact.Reset()
}

// appendObject appends type id + payload, as writeObject does; top says
// whether this is a top-level value (nil is not allowed there).
func (e *encoder) appendObject(dst []byte, v any, top bool) ([]byte, error) {
	if e.Depth >= core.MaxDepth {
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
		return e.compact.AppendData(dst, v)
	case *PortableRecord:
		return e.portable.AppendData(dst, x)
	case *IdentifiedRecord:
		return e.identified.AppendRecord(dst, x)
	}
	if !top && core.IsNil(v) {
		// A nil pointer of a serializable type is a null nested object; its
		// serializer must not see it.
		return wire.AppendInt32(dst, core.TypeNull), nil
	}
	if e.svc.compact.Registered(reflect.TypeOf(v)) {
		return e.compact.AppendData(dst, v)
	}
	switch x := v.(type) {
	case IdentifiedDataSerializable:
		return e.identified.AppendData(dst, x)
	case Portable:
		return e.portable.AppendData(dst, x)
	}
	if ok, err := e.svc.compact.Writes(reflect.TypeOf(v)); err != nil {
		return dst, err
	} else if ok {
		return e.compact.AppendData(dst, v)
	}
	return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "not a built-in type, and no CompactSerializer, Portable or IdentifiedDataSerializable implementation is registered for it"}
}

// decoder carries the state of the reading of one object.
type decoder struct {
	svc    *Service
	buf    core.Data // the whole Data: Portable positions are relative to its start
	budget *core.Budget
	// formats are the top-level object's format decoders (nil for nested
	// objects, which take them from the pools).
	formats *Decoder
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
	return d.readObjectOfType(rd, typ)
}

// compactDecoders, portableDecoders and identifiedDecoders pool the
// formats' decoders, which keep their readers.
var (
	compactDecoders    = sync.Pool{New: func() any { return &compact.Decoder{} }}
	portableDecoders   = sync.Pool{New: func() any { return &portable.Decoder{} }}
	identifiedDecoders = sync.Pool{New: func() any { return &identified.Decoder{} }}
)

func (d *decoder) readObjectOfType(rd *wire.Reader, typ int32) (any, error) {
	if d.budget.Depth >= core.MaxDepth {
		return nil, core.Malformed("data", rd.Pos(), "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels")
	}
	d.budget.Depth++
	v, err := d.readFormat(rd, typ)
	d.budget.Depth--
	return v, err
}

// readFormat reads an object of type typ with its format's decoder.
func (d *decoder) readFormat(rd *wire.Reader, typ int32) (any, error) {
	switch typ {
	case core.TypeCompact, core.TypeCompactWithSchema:
		rec, end, err := compact.Parse(d.buf, rd.Pos(), len(d.buf), d.svc.schemas, typ == core.TypeCompactWithSchema)
		if err != nil {
			return nil, err
		}
		rd.Seek(end)
		var dec *compact.Decoder
		if d.formats != nil {
			dec = &d.formats.compact
		} else {
			dec = compactDecoders.Get().(*compact.Decoder)
		}
		dec.Reset(d.svc.compact, d.budget)
		v, err := dec.Object(rec)
		dec.Reset(nil, nil)
		if d.formats == nil {
			compactDecoders.Put(dec)
		}
		return v, err
	case core.TypePortable:
		var dec *portable.Decoder
		if d.formats != nil {
			dec = &d.formats.portable
		} else {
			dec = portableDecoders.Get().(*portable.Decoder)
		}
		dec.Reset(d.svc.portableFactories, d.svc.classes, d.buf, d.budget)
		v, err := dec.Read(rd)
		dec.Reset(nil, nil, nil, nil)
		if d.formats == nil {
			portableDecoders.Put(dec)
		}
		return v, err
	case core.TypeIdentified:
		var dec *identified.Decoder
		if d.formats != nil {
			dec = &d.formats.identified
		} else {
			dec = identifiedDecoders.Get().(*identified.Decoder)
		}
		dec.Reset(d.svc.identifiedFactories, objects{d.svc}, d.buf, d.budget)
		v, err := dec.Read(rd)
		dec.Reset(nil, nil, nil, nil)
		if d.formats == nil {
			identifiedDecoders.Put(dec)
		}
		return v, err
	}
	v, ok, err := core.ReadBuiltin(rd, typ)
	if ok {
		return v, err
	}
	return nil, &core.DecodeError{Format: "data", Offset: rd.Pos() - 4, Reason: "type id " + strconv.Itoa(int(typ)) + " is not supported (Java-only or unknown serializer)"}
}
