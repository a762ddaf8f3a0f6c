package serialization

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/serialization/compact"
	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/identified"
	"github.com/atolldb/atoll/internal/serialization/json"
	"github.com/atolldb/atoll/internal/serialization/portable"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// FieldOptions say how a FieldReader reads its path.
type FieldOptions struct {
	// JSONPath: the path is an SQL/JSON path ("$.a.b[0]", as JSON_VALUE
	// takes) rather than an attribute path, and only JSON documents are
	// read (as with JSONOnly).
	JSONPath bool
	// JSONOnly: only JSON documents are read, and strings are read as
	// documents (a json-flat mapping); other values read as null.
	JSONOnly bool
	// Strict: a field that no version of the value's type has is an
	// *UnknownFieldError instead of a null (Hazelcast's predicates fail
	// on such attributes).
	Strict bool
}

// FieldReader reads one attribute path out of serialized values in place:
// a Compact field by its schema's offsets, a Portable field through the
// object's field table, an IdentifiedDataSerializable field through its
// registered Layout, a JSON member by scanning the document, through
// nested objects ("a.b"), array items ("arr[0]") and every item of an
// array ("arr[any].x"). An empty path reads the whole value.
//
// The path is compiled once per schema, class or layout met, on first use,
// and the compiled plans are kept for the reader's life, so reading a
// field costs a type check and the reads at the field's offset: scalars
// and strings (as views of the bytes) allocate nothing. A FieldReader is
// safe for concurrent use; the plans are published copy-on-write, so reads
// take no lock. Get readers from Service.FieldReader, which caches them by
// path.
type FieldReader struct {
	svc      *Service
	path     string
	opts     FieldOptions
	multi    bool
	json     *json.Path // the path in JSON documents
	whole    bool       // empty path: the whole value
	plain    bool       // one step without index: the fast path of Read
	pathOpts core.PathOptions
	root     fieldNode
}

// FieldReader returns the reader of an attribute path (or, with
// opts.JSONPath, an SQL/JSON path). Readers are cached per path and
// options, so that every query on a path shares its compiled plans.
func (s *Service) FieldReader(path string, opts FieldOptions) (*FieldReader, error) {
	key := readerKey{path, opts}
	if r, ok := s.readers.Load(key); ok {
		return r.(*FieldReader), nil
	}
	r, err := s.newFieldReader(path, opts)
	if err != nil {
		return nil, err
	}
	if s.readerCount.Load() < maxCachedReaders {
		if old, loaded := s.readers.LoadOrStore(key, r); loaded {
			return old.(*FieldReader), nil
		}
		s.readerCount.Add(1)
	}
	return r, nil
}

// maxCachedReaders bounds the readers a Service keeps: paths come from
// queries, and a client that sends endless distinct paths must not grow
// the member's memory. Readers past the bound work, uncached.
const maxCachedReaders = 4096

type readerKey struct {
	path string
	opts FieldOptions
}

// readerCache holds a Service's readers.
type readerCache struct {
	readers     sync.Map // readerKey -> *FieldReader
	readerCount atomic.Int32
}

func (s *Service) newFieldReader(path string, opts FieldOptions) (*FieldReader, error) {
	r := &FieldReader{svc: s, path: path, opts: opts}
	r.pathOpts = core.PathOptions{Strict: opts.Strict, ToData: s.ToData}
	if opts.JSONPath {
		r.opts.JSONOnly = true
		jp, err := json.ParsePath(path)
		if err != nil {
			return nil, err
		}
		r.json = jp
		r.multi = jp.HasWildcard()
		return r, nil
	}
	steps, err := core.ParseAttributePath(path)
	if err != nil {
		return nil, err
	}
	r.whole = len(steps) == 0
	r.plain = len(steps) == 1 && steps[0].Index < 0 && !steps[0].Any && !opts.JSONOnly
	r.root.init(r, steps)
	for _, st := range steps {
		r.multi = r.multi || st.Any
	}
	r.json = json.AttributePath(steps)
	return r, nil
}

// Path returns the path as written.
func (r *FieldReader) Path() string { return r.path }

// Multi reports whether the path can select several values (it has an
// [any] step): read it with Each.
func (r *FieldReader) Multi() bool { return r.multi }

// Read returns the value the path selects in d, or a null value. For a
// path with [any] it returns the first value; Each returns them all.
// Malformed bytes on the way are a *DecodeError, a Compact schema that is
// not registered a *SchemaNotFoundError and an IdentifiedDataSerializable
// class without a layout a *ClassNotFoundError. A malformed JSON document
// reads as null.
func (r *FieldReader) Read(d core.Data) (core.FieldValue, error) {
	var v core.FieldValue
	err := r.ReadTo(d, &v)
	return v, err
}

// ReadTo is Read into v, which a caller on a hot path keeps on its stack.
func (r *FieldReader) ReadTo(d core.Data, v *core.FieldValue) error {
	if r.plain && len(d) >= core.HeaderSize {
		// One plain field of a top-level object whose plan is compiled:
		// read at the plan's offsets, or give way to the general walk,
		// which also reports what is wrong with odd data.
		switch d.Type() {
		case core.TypeCompact:
			if r.root.compact.Top(d, v) {
				return nil
			}
		case core.TypePortable:
			if r.root.portable.Top(d, v) {
				return nil
			}
		case core.TypeIdentified:
			if r.root.ids.Top(d, v) {
				return nil
			}
		}
	}
	if !r.multi && !r.whole && len(d) >= core.HeaderSize {
		if typ := d.Type(); typ == core.TypeJSON || (typ == core.TypeString && r.opts.JSONOnly) {
			doc, ok, err := d.Text()
			if err != nil || !ok {
				*v = core.FieldValue{}
				return nil
			}
			json.ReadOne(doc, r.json, v)
			return nil
		}
	}
	out := core.Sink{}
	err := r.walk(d, &out)
	*v = out.V
	return err
}

// Each calls fn for every value the path selects in d, in order, and stops
// at fn's first error, which it returns.
func (r *FieldReader) Each(d core.Data, fn func(core.FieldValue) error) error {
	out := core.Sink{Each: fn}
	return r.walk(d, &out)
}

func (r *FieldReader) walk(d core.Data, out *core.Sink) error {
	if len(d) < core.HeaderSize {
		return nil
	}
	if r.whole {
		v, err := wholeValue(d)
		if err != nil {
			return err
		}
		return out.Emit(v)
	}
	typ := d.Type()
	if r.opts.JSONOnly {
		if typ == core.TypeJSON || typ == core.TypeString {
			return r.readJSON(d, out)
		}
		return nil
	}
	switch typ {
	case core.TypeJSON:
		return r.readJSON(d, out)
	case core.TypeCompact, core.TypeCompactWithSchema, core.TypePortable, core.TypeIdentified:
		return r.root.Object(d, core.HeaderSize, len(d), typ, 0, out)
	case core.TypeNull:
		return nil
	}
	if r.opts.Strict {
		return &core.UnknownFieldError{Field: r.root.steps[0].Name, Reason: "the values are of type id " + strconv.Itoa(int(typ)) + ", which has no fields"}
	}
	return nil
}

// fieldNode reads the steps of a path that are left at an object, with
// plans compiled per schema (Compact), class and version (Portable) or
// layout (IDS). A plan that reaches a nested object hands the steps after
// it to a node of its own, so every level caches its plans.
type fieldNode struct {
	r        *FieldReader
	steps    []core.PathStep
	compact  compact.Node
	portable portable.Node
	ids      identified.Node
}

// init sets the node up for steps.
func (n *fieldNode) init(r *FieldReader, steps []core.PathStep) {
	n.r, n.steps = r, steps
	n.compact = compact.Node{Steps: steps, Opts: &r.pathOpts, Schemas: r.svc.schemas}
	n.portable = portable.Node{Steps: steps, Opts: &r.pathOpts, Classes: r.svc.classes}
	n.ids = identified.Node{Steps: steps, Opts: &r.pathOpts, Objects: objects{r.svc}, Any: r.anyNode}
}

// anyNode returns the node of steps in an object of any format (what an
// IDS writeObject field holds).
func (r *FieldReader) anyNode(steps []core.PathStep) core.ObjectReader {
	n := &fieldNode{}
	n.init(r, steps)
	return n
}

// object reads the steps from an object of type typ whose payload starts
// at buf[p] and ends by buf[limit].
func (n *fieldNode) Object(buf []byte, p, limit int, typ int32, depth int, out *core.Sink) error {
	if depth >= core.MaxDepth {
		return core.Malformed("data", p, "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels")
	}
	switch typ {
	case core.TypeCompact, core.TypeCompactWithSchema:
		return n.compact.Object(buf, p, limit, typ == core.TypeCompactWithSchema, depth, out)
	case core.TypePortable:
		rd := newReaderAt(buf, limit, p)
		fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
		if rd.Err() != nil {
			return core.Malformed("portable", p, "truncated class identity")
		}
		return n.portable.Object(buf, rd.Pos(), limit, fid, cid, ver, depth, out)
	case core.TypeIdentified:
		rd := newReaderAt(buf, limit, p)
		hdr, fid, cid := rd.Int8(), rd.Int32(), rd.Int32()
		if rd.Err() != nil || hdr != core.IdentifiedHeader {
			return core.Malformed("identified", p, "truncated or unsupported header")
		}
		return n.ids.Object(buf, rd.Pos(), limit, fid, cid, depth, out)
	case core.TypeNull:
		return nil
	}
	if n.r.opts.Strict {
		return &core.UnknownFieldError{Field: n.steps[0].Name, Reason: "a value of type id " + strconv.Itoa(int(typ)) + " has no field " + strconv.Quote(n.steps[0].Name)}
	}
	return nil
}

// wholeValue reads a whole key or value: the scalar a built-in type
// holds, and the Data itself for any other type.
func wholeValue(d core.Data) (core.FieldValue, error) {
	v, ok, err := core.BuiltinValue(d.Type(), d[core.HeaderSize:], core.HeaderSize)
	if !ok {
		return core.FieldValue{Kind: core.ValueObject, B: d}, nil
	}
	return v, err
}

// newReaderAt returns a reader at buf[p] that reads no further than limit.
func newReaderAt(buf []byte, limit, p int) wire.Reader { return wire.NewReader(buf[:limit], p) }
