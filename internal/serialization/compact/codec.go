package compact

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// typeEntry is a Go type's serializer, with what its first write taught:
// the schema and the order in which the serializer writes the fields.
type typeEntry struct {
	ser    Serializer
	layout atomic.Pointer[writeLayout]
}

// Types is a Service's registry of the Go types it writes in the Compact
// format, by Go type and by type name: the serializers it was configured
// with, the types registered for reading (Register) and, with zero-config,
// the reflective serializers it creates on first use. The index is
// replaced, never changed, when a type is added (copy-on-write), so
// lookups need no lock; mu serializes the writers.
type Types struct {
	mu         sync.Mutex
	cur        atomic.Pointer[typeIndex]
	zeroConfig bool
}

// NewTypes registers serializers, checking that Go types and type names
// are not registered twice; zeroConfig lets Writes create reflective
// serializers for plain structs.
func NewTypes(serializers []Serializer, zeroConfig bool) (*Types, error) {
	types := newTypeIndex()
	var reflective []*reflectiveSerializer
	for _, ser := range serializers {
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
		ct := &typeEntry{ser: ser}
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
	t := &Types{zeroConfig: zeroConfig}
	t.cur.Store(types)
	return t, nil
}

// Registered reports whether t has a serializer.
func (t *Types) Registered(typ reflect.Type) bool {
	_, ok := t.cur.Load().byType[typ]
	return ok
}

// Writes reports whether values of typ are written in the Compact format:
// typ has a serializer, or zero-config gives it one (created now).
func (t *Types) Writes(typ reflect.Type) (bool, error) {
	if t.Registered(typ) {
		return true, nil
	}
	ct, err := t.zeroConfigType(typ)
	return ct != nil, err
}

// Encoder writes the Compact objects of one serialization. It keeps the
// scratch of nested writers between uses: reset it with Reset.
type Encoder struct {
	*core.Encoding
	// Types serializes Go values; nil in a record builder, which nests
	// records only.
	Types *Types
	// Schemas receives the schemas learned from first writes and those of
	// the records written; nil in a record builder.
	Schemas *SchemaRegistry
	stack   []int32   // offset scratch shared by nested writers
	writers []*Writer // one per nesting depth, reused
}

// Reset clears the encoder for another serialization.
func (e *Encoder) Reset() {
	e.stack = e.stack[:0]
	for _, w := range e.writers {
		*w = Writer{}
	}
}

// writer returns a writer for the current nesting depth.
func (e *Encoder) writer() *Writer {
	for len(e.writers) <= e.Depth {
		e.writers = append(e.writers, &Writer{})
	}
	return e.writers[e.Depth]
}

// AppendData appends a Compact Data's type id (-55, or -56 with schemas)
// and the object.
func (e *Encoder) AppendData(dst []byte, v any) ([]byte, error) {
	typ := core.TypeCompact
	if e.WithSchema {
		typ = core.TypeCompactWithSchema
	}
	return e.Append(wire.AppendInt32(dst, typ), v)
}

// Append appends a Compact object (schema id, optional schema, body)
// without a type id: the payload of a Compact Data or a nested field. v is
// a record or a value of a type with a serializer.
func (e *Encoder) Append(dst []byte, v any) ([]byte, error) {
	switch rec := v.(type) {
	case *Record:
		return e.appendRecord(dst, rec)
	case Record:
		return e.appendRecord(dst, &rec)
	}
	if e.Types == nil {
		return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "only records can be nested in a record builder"}
	}
	ct, ok := e.Types.cur.Load().byType[reflect.TypeOf(v)]
	if !ok {
		var err error
		if ct, err = e.Types.zeroConfigType(reflect.TypeOf(v)); err != nil {
			return dst, err
		}
		if ct == nil {
			return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "no CompactSerializer is registered for it"}
		}
	}
	lay, err := e.layoutOf(ct, v)
	if err != nil {
		return dst, err
	}
	return e.write(dst, lay.schema, lay.order, func(w *Writer) { ct.ser.Write(w, v) })
}

// layoutOf returns the schema and write order of ct, discovering them
// from a first write when needed.
func (e *Encoder) layoutOf(ct *typeEntry, v any) (*writeLayout, error) {
	if lay := ct.layout.Load(); lay != nil {
		return lay, nil
	}
	w := &Writer{enc: e}
	ct.ser.Write(w, v)
	if w.err != nil {
		return nil, w.err
	}
	schema, err := NewSchema(ct.ser.TypeName(), w.defs)
	if err != nil {
		return nil, err
	}
	if schema, err = e.Schemas.Add(schema); err != nil {
		return nil, err
	}
	lay := &writeLayout{schema: schema, order: make([]int32, len(w.defs))}
	for i, d := range w.defs {
		lay.order[i] = schema.byName[d.Name]
	}
	ct.layout.Store(lay)
	return lay, nil
}

// write lays out one object with schema and runs fill to fill it.
func (e *Encoder) write(dst []byte, schema *Schema, order []int32, fill func(*Writer)) ([]byte, error) {
	if e.Depth >= core.MaxDepth {
		return dst, &core.TypeError{Type: schema.TypeName, Reason: "objects nest deeper than " + strconv.Itoa(core.MaxDepth) + " levels (a cycle?)"}
	}
	dst = wire.AppendInt64(dst, schema.ID)
	if e.WithSchema {
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
	w := e.writer()
	*w = Writer{enc: e, schema: schema, order: order, buf: dst, start: start, base: base}
	e.Depth++
	fill(w)
	e.Depth--
	dst, err := w.buf, w.err
	*w = Writer{}
	if err == nil && schema.VarCount > 0 {
		dataLen := len(dst) - start
		wire.PutInt32(dst[lenAt:], int32(dataLen))
		dst = appendOffsets(dst, e.stack[base:base+int(schema.VarCount)], dataLen)
	}
	e.stack = e.stack[:base]
	return dst, err
}

// appendRecord copies a record's bytes when they already have the right
// form, and rewrites it field by field otherwise.
func (e *Encoder) appendRecord(dst []byte, rec *Record) ([]byte, error) {
	if rec.schema == nil {
		return dst, &core.TypeError{Type: "CompactRecord", Reason: "the record is empty"}
	}
	if e.Schemas != nil {
		if err := e.adoptSchemas(rec); err != nil {
			return dst, err
		}
	}
	if rec.embedded == e.WithSchema {
		return append(dst, rec.raw...), nil
	}
	order := recordWriteOrder(rec)
	return e.write(dst, rec.schema, nil, func(w *Writer) {
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
func (e *Encoder) adoptSchemas(rec *Record) error {
	if rec.schemas == e.Schemas || rec.embedded {
		_, err := e.Schemas.Add(rec.schema)
		return err
	}
	for _, sc := range rec.schemas.All() {
		if _, err := e.Schemas.Add(sc); err != nil {
			return err
		}
	}
	return nil
}

// Decoder turns the Compact objects of one deserialization into the Go
// values registered for their type names, within the deserialization's
// budget.
type Decoder struct {
	Types  *Types
	Budget *core.Budget
	// readers are the readers of the objects being read, one per level
	// of nesting, reused by the objects that follow (array items); depth
	// is how many are in use.
	readers []*Reader
	depth   int
	// Page, when set, is the size up to which the blocks grow from which
	// the strings of every top-level object the decoder reads are cut (a
	// page of query results); otherwise those of one top-level object
	// share a block of its size.
	Page int
	// arena holds the strings the objects read.
	arena core.Arena
}

// Reset readies a decoder for the next top-level object, with types and
// a budget (nil to let go of the last ones), keeping its readers (and,
// with Page set, its arena); the strings it handed out stay with their
// objects.
func (d *Decoder) Reset(types *Types, budget *core.Budget) {
	d.Types, d.Budget, d.depth = types, budget, 0
	if d.Page == 0 || d.arena.Max == 0 {
		d.arena = core.Arena{Max: d.Page}
	}
}

// Object turns a record into a value of the Go type registered for its
// type name, or returns the record when there is none. The Reader the
// serializer gets is valid during its Read only.
func (d *Decoder) Object(rec Record) (any, error) {
	ct, ok := d.Types.cur.Load().byName[rec.schema.TypeName]
	if !ok {
		out := rec // only a record returned goes to the heap
		return &out, nil
	}
	if d.arena.Size == 0 {
		d.arena.Size = len(rec.raw) // the top-level object: its strings fit
	}
	if d.depth == len(d.readers) {
		d.readers = append(d.readers, &Reader{dec: d})
	}
	r := d.readers[d.depth]
	d.depth++
	r.rec, r.err = rec, nil
	r.hint.Start(&rec.schema.readOrder)
	r.rec.hint, r.rec.arena = &r.hint, &d.arena
	v := ct.ser.Read(r)
	err := r.err
	if err == nil {
		r.hint.Finish(&rec.schema.readOrder)
	}
	r.rec = Record{}
	d.depth--
	if err != nil {
		return nil, err
	}
	return v, nil
}
