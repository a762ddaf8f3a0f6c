package serialization

import (
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/compact"
	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/identified"
	"github.com/atolldb/atoll/internal/serialization/portable"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// objects is the Service as the formats reach values of other formats
// through it: IdentifiedDataSerializable's writeObject fields, which hold
// any value (identified.Objects and identified.Codec). Compact and Portable
// objects nest their own format only.
type objects struct{ s *Service }

var _ identified.Codec = objects{}

func (o objects) Layouts() *LayoutRegistry { return o.s.layouts }

func (o objects) ReadObject(buf []byte, rd *wire.Reader, budget *core.Budget) (any, error) {
	d := decoder{svc: o.s, buf: buf, budget: budget}
	return d.readObject(rd)
}

func (o objects) SkipObject(rd *wire.Reader, depth int) error { return o.s.skipObject(rd, depth) }

func (o objects) NewObjectWriter() identified.ObjectWriter { return o.s.newEncoder() }

// skipObject advances rd over a writeObject value (type id + payload).
// Built-in values, Compact objects of known schemas, Portable objects and
// IdentifiedDataSerializable objects with a layout are skipped by their
// lengths, without decoding; anything else is decoded (on a copy of rd,
// so that only object fields, and not every field read, put a reader on
// the heap).
func (s *Service) skipObject(rd *wire.Reader, depth int) error {
	if depth >= core.MaxDepth {
		return core.Malformed("identified", rd.Pos(), "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels")
	}
	at := rd.Pos()
	typ := rd.Int32()
	if rd.Err() != nil {
		return &core.DecodeError{Format: "data", Offset: at, Reason: "truncated object type id", Err: rd.Err()}
	}
	if size, ok := builtinSizes[typ]; ok {
		rd.Skip(size)
		return objectErr(rd, at)
	}
	buf := rd.Buf()
	switch typ {
	case core.TypeNull:
		return nil
	case core.TypeString, core.TypeJSON:
		if n := rd.Length(1, false); n > 0 {
			rd.Skip(n)
		}
		return objectErr(rd, at)
	case core.TypeCompact:
		if _, end, err := compact.Parse(buf, rd.Pos(), len(buf), s.schemas, false); err == nil {
			rd.Seek(end)
			return nil
		}
	case core.TypePortable:
		fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
		if rd.Err() == nil {
			if _, end, err := portable.Parse(buf, rd.Pos(), len(buf), fid, cid, ver, nil); err == nil {
				rd.Seek(end)
				return nil
			}
		}
	case core.TypeIdentified:
		hdr, fid, cid := rd.Int8(), rd.Int32(), rd.Int32()
		if rd.Err() == nil && hdr == core.IdentifiedHeader {
			if _, ok := s.identifiedFactories[fid]; !ok {
				if l, ok := s.layouts.Get(fid, cid); ok {
					return l.Skip(objects{s}, rd, depth)
				}
			}
		}
	}
	// Anything else, and objects the checks above refused, are decoded:
	// the decoder reports what is wrong with them.
	rd.Seek(at)
	sub := *rd
	dec := decoder{svc: s, buf: buf, budget: &core.Budget{Depth: depth, Size: len(buf)}}
	_, err := dec.readObject(&sub)
	*rd = sub
	return err
}

func objectErr(rd *wire.Reader, at int) error {
	if rd.Err() == nil {
		return nil
	}
	return &core.DecodeError{Format: "data", Offset: at, Reason: "object is truncated or has an invalid length", Err: rd.Err()}
}
