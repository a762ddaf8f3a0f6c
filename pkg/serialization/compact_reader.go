package serialization

import (
	"fmt"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// CompactReader reads the fields of one Compact object for a
// CompactSerializer. A field that the writer's schema does not have (data
// written by an older or newer version of the type) reads as the zero value;
// use FieldKind to tell. Other errors are sticky: the first one is reported
// by the Service and later reads return zero values.
type CompactReader struct {
	rec CompactRecord
	dec *decoder
	err error
}

// Err returns the first error the reader met.
func (r *CompactReader) Err() error { return r.err }

// FieldKind returns the kind of the named field in the writer's schema, or
// KindNotAvailable when the writer did not write it.
func (r *CompactReader) FieldKind(name string) core.FieldKind { return r.rec.FieldKind(name) }

// Record returns the in-place view of the object being read.
func (r *CompactReader) Record() *CompactRecord { return &r.rec }

func (r *CompactReader) note(err error) {
	if err == nil || r.err != nil {
		return
	}
	if core.IsAbsentField(err) {
		return
	}
	r.err = err
}

// ReadCompact reads a nested COMPACT field: a value of the Go type registered
// for its type name, or a *CompactRecord; null is nil.
func (r *CompactReader) ReadCompact(name string) any {
	rec, err := r.rec.GetCompact(name)
	r.note(err)
	if rec == nil || r.err != nil {
		return nil
	}
	v, err := r.nested(*rec)
	r.note(err)
	return v
}

// nested decodes a nested object within the decoder's depth and size
// budget (see enterNested).
func (r *CompactReader) nested(rec CompactRecord) (any, error) {
	if !r.enterNested(&rec) {
		return nil, r.err
	}
	defer func() { r.dec.depth-- }()
	return r.dec.compactObject(rec)
}

// ReadArrayOfCompact reads an ARRAY_OF_COMPACT field; items are values of
// the registered Go type or *CompactRecord, null items are nil.
func (r *CompactReader) ReadArrayOfCompact(name string) []any {
	recs, err := r.rec.GetArrayOfCompact(name)
	r.note(err)
	if recs == nil || r.err != nil {
		return nil
	}
	out := make([]any, len(recs))
	for i, rec := range recs {
		if rec == nil {
			continue
		}
		v, err := r.nested(*rec)
		if err != nil {
			r.note(err)
			return nil
		}
		out[i] = v
	}
	return out
}

// ReadCompactArray reads an ARRAY_OF_COMPACT field into a typed slice. Items
// decode to the Go type registered for their type name; when that is *T and
// the slice holds T, items are copied out of their pointers. Null items are
// the zero T.
func ReadCompactArray[T any](r *CompactReader, name string) []T {
	items := r.ReadArrayOfCompact(name)
	if items == nil {
		return nil
	}
	out := make([]T, len(items))
	for i, it := range items {
		switch v := it.(type) {
		case nil:
		case T:
			out[i] = v
		case *T:
			out[i] = *v
		default:
			r.note(&core.FieldError{Field: name, Reason: fmt.Sprintf("item %d is %T, not %T", i, it, out[i])})
			return nil
		}
	}
	return out
}
