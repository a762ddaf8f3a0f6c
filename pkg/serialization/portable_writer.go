package serialization

import (
	"fmt"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// PortableWriter writes the fields of one Portable object. Writers are
// created by the Service and valid only during a WritePortable call. Errors
// are sticky: the first one is reported by the Service.
type PortableWriter struct {
	enc     *encoder
	cd      *ClassDefinition // nil while the class definition is being discovered
	defs    []PortableField
	buf     []byte
	table   int // index in buf of the field position table
	seq     int
	written int
	err     error
}

// Err returns the first error recorded by the writer.
func (w *PortableWriter) Err() error { return w.err }

func (w *PortableWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// field resolves a field write and appends its entry header (name and
// type). It returns false in discovery mode and after errors.
func (w *PortableWriter) field(name string, kind FieldKind, nested PortableField) bool {
	if w.err != nil {
		return false
	}
	if w.cd == nil {
		nested.Name, nested.Kind = name, kind
		w.defs = append(w.defs, nested)
		return false
	}
	var i int32 = -1
	if w.seq < len(w.cd.Fields) && w.cd.Fields[w.seq].Name == name {
		i = int32(w.seq)
	} else if j, ok := w.cd.byName[name]; ok {
		i = j
	} else {
		w.fail(&FieldError{Field: name, Reason: fmt.Sprintf("is not in portable class definition %d/%d/%d", w.cd.FactoryID, w.cd.ClassID, w.cd.Version)})
		return false
	}
	w.seq++
	if f := &w.cd.Fields[i]; f.Kind != kind {
		w.fail(&FieldError{Field: name, Reason: "written as " + kind.String() + " but the class definition has " + f.Kind.String()})
		return false
	}
	wire.PutInt32(w.buf[w.table+4*int(i):], int32(len(w.buf)-w.enc.base))
	w.written++
	w.buf = wire.AppendInt16(w.buf, int16(len(name)))
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, byte(PortableTypeID(kind)))
	return true
}

func (w *PortableWriter) plain(name string, kind FieldKind) bool {
	return w.field(name, kind, PortableField{})
}

// WriteBoolean writes a BOOLEAN field.
func (w *PortableWriter) WriteBoolean(name string, v bool) {
	if w.plain(name, KindBoolean) {
		w.buf = wire.AppendBool(w.buf, v)
	}
}

// WriteInt8 writes a BYTE field.
func (w *PortableWriter) WriteInt8(name string, v int8) {
	if w.plain(name, KindInt8) {
		w.buf = append(w.buf, byte(v))
	}
}

// WriteChar writes a CHAR field.
func (w *PortableWriter) WriteChar(name string, v Char) {
	if w.plain(name, KindChar) {
		w.buf = wire.AppendInt16(w.buf, int16(v))
	}
}

// WriteInt16 writes a SHORT field.
func (w *PortableWriter) WriteInt16(name string, v int16) {
	if w.plain(name, KindInt16) {
		w.buf = wire.AppendInt16(w.buf, v)
	}
}

// WriteInt32 writes an INT field.
func (w *PortableWriter) WriteInt32(name string, v int32) {
	if w.plain(name, KindInt32) {
		w.buf = wire.AppendInt32(w.buf, v)
	}
}

// WriteInt64 writes a LONG field.
func (w *PortableWriter) WriteInt64(name string, v int64) {
	if w.plain(name, KindInt64) {
		w.buf = wire.AppendInt64(w.buf, v)
	}
}

// WriteFloat32 writes a FLOAT field.
func (w *PortableWriter) WriteFloat32(name string, v float32) {
	if w.plain(name, KindFloat32) {
		w.buf = wire.AppendFloat32(w.buf, v)
	}
}

// WriteFloat64 writes a DOUBLE field.
func (w *PortableWriter) WriteFloat64(name string, v float64) {
	if w.plain(name, KindFloat64) {
		w.buf = wire.AppendFloat64(w.buf, v)
	}
}

// WriteString writes a UTF field.
func (w *PortableWriter) WriteString(name string, v string) {
	if w.plain(name, KindString) {
		w.appendString(v)
	}
}

// WriteStringPtr writes a UTF field; nil writes null.
func (w *PortableWriter) WriteStringPtr(name string, v *string) {
	if w.plain(name, KindString) {
		if v == nil {
			w.buf = wire.AppendNullString(w.buf)
		} else {
			w.appendString(*v)
		}
	}
}

func (w *PortableWriter) appendString(s string) {
	var err error
	if w.buf, err = wire.AppendString(w.buf, s); err != nil {
		w.fail(stringErr(err, s))
	}
}

// nullable writes the isNull flag of DECIMAL, TIME, DATE, TIMESTAMP and
// TIMESTAMP_WITH_TIMEZONE fields and reports whether a value follows.
func (w *PortableWriter) nullable(name string, kind FieldKind, null bool) bool {
	if !w.plain(name, kind) {
		return false
	}
	w.buf = wire.AppendBool(w.buf, null)
	return !null
}

// WriteDecimal writes a DECIMAL field; nil writes null.
func (w *PortableWriter) WriteDecimal(name string, v *Decimal) {
	if w.nullable(name, KindDecimal, v == nil) {
		w.buf = appendDecimal(w.buf, *v)
	}
}

// WriteTime writes a TIME field; nil writes null.
func (w *PortableWriter) WriteTime(name string, v *LocalTime) {
	if w.nullable(name, KindTime, v == nil) {
		w.buf = appendTime(w.buf, *v)
	}
}

// WriteDate writes a DATE field (the year is written as a short); nil writes null.
func (w *PortableWriter) WriteDate(name string, v *LocalDate) {
	if w.nullable(name, KindDate, v == nil) {
		w.buf = appendDate(w.buf, *v, true)
	}
}

// WriteTimestamp writes a TIMESTAMP field; nil writes null.
func (w *PortableWriter) WriteTimestamp(name string, v *LocalDateTime) {
	if w.nullable(name, KindTimestamp, v == nil) {
		w.buf = appendTimestamp(w.buf, *v, true)
	}
}

// WriteTimestampWithTimezone writes a TIMESTAMP_WITH_TIMEZONE field; nil writes null.
func (w *PortableWriter) WriteTimestampWithTimezone(name string, v *OffsetDateTime) {
	if w.nullable(name, KindTimestampWithTimezone, v == nil) {
		w.buf = appendTimestampTZ(w.buf, *v, true)
	}
}

// WritePortable writes a nested PORTABLE field (a Portable or a
// *PortableRecord). For null use WriteNullPortable, which names the class.
func (w *PortableWriter) WritePortable(name string, v any) {
	if isNil(v) {
		w.fail(&FieldError{Field: name, Reason: "WritePortable needs a value; use WriteNullPortable for null"})
		return
	}
	id, err := w.enc.portableIdentity(v)
	if err != nil {
		w.fail(err)
		return
	}
	if !w.field(name, KindPortable, id) {
		return
	}
	w.buf = wire.AppendBool(w.buf, false)
	w.buf = wire.AppendInt32(w.buf, id.FactoryID)
	w.buf = wire.AppendInt32(w.buf, id.ClassID)
	w.appendVersionAndBody(v)
}

// WriteNullPortable writes a null PORTABLE field of the given class.
func (w *PortableWriter) WriteNullPortable(name string, factoryID, classID int32) {
	id := PortableField{FactoryID: factoryID, ClassID: classID, Version: w.enc.svcPortableVersion()}
	if !w.field(name, KindPortable, id) {
		return
	}
	w.buf = wire.AppendBool(w.buf, true)
	w.buf = wire.AppendInt32(w.buf, factoryID)
	w.buf = wire.AppendInt32(w.buf, classID)
}

func (w *PortableWriter) appendVersionAndBody(v any) {
	var err error
	if w.buf, err = w.enc.appendPortableVersionAndBody(w.buf, v); err != nil {
		w.fail(err)
	}
}

// WritePortableArray writes a PORTABLE_ARRAY field; items are Portable
// values or *PortableRecords of one class and may not be nil. A nil slice
// writes null. An empty array needs a registered class definition of the
// enclosing class, since it carries no item to learn the class from.
func (w *PortableWriter) WritePortableArray(name string, v []any) {
	writePortableArray(w, name, v)
}

// WritePortableSlice writes a PORTABLE_ARRAY field from a typed slice.
func WritePortableSlice[T any](w *PortableWriter, name string, v []T) {
	writePortableArray(w, name, v)
}

func writePortableArray[T any](w *PortableWriter, name string, v []T) {
	var id PortableField
	if len(v) > 0 {
		var err error
		if id, err = w.enc.portableIdentity(v[0]); err != nil {
			w.fail(err)
			return
		}
	} else if w.cd == nil {
		w.fail(&FieldError{Field: name, Reason: "cannot learn the item class of an empty or null portable array; register the class definition of the enclosing class"})
		return
	} else if f, _, ok := w.cd.Field(name); ok {
		id = f
	}
	if !w.field(name, KindArrayOfPortable, id) {
		return
	}
	if v == nil {
		w.buf = wire.AppendInt32(w.buf, -1)
	} else {
		w.buf = wire.AppendInt32(w.buf, int32(len(v)))
	}
	w.buf = wire.AppendInt32(w.buf, id.FactoryID)
	w.buf = wire.AppendInt32(w.buf, id.ClassID)
	table := len(w.buf)
	for range v {
		w.buf = wire.AppendInt32(w.buf, 0)
	}
	for i, item := range v {
		if isNil(item) {
			w.fail(&FieldError{Field: name, Reason: "portable arrays cannot hold null items"})
			return
		}
		if iid, err := w.enc.portableIdentity(item); err != nil || iid.FactoryID != id.FactoryID || iid.ClassID != id.ClassID {
			w.fail(&FieldError{Field: name, Reason: "item " + strconv.Itoa(i) + " is of a different class than item 0"})
			return
		}
		wire.PutInt32(w.buf[table+4*i:], int32(len(w.buf)-w.enc.base))
		w.appendVersionAndBody(item)
	}
}

// WriteBooleanArray writes a BOOLEAN_ARRAY field (one byte per item); nil writes null.
func (w *PortableWriter) WriteBooleanArray(name string, v []bool) {
	if w.plain(name, KindArrayOfBoolean) {
		w.buf = appendNullableArray(w.buf, v, appendBools)
	}
}

// WriteByteArray writes a BYTE_ARRAY field; nil writes null.
func (w *PortableWriter) WriteByteArray(name string, v []byte) {
	if w.plain(name, KindArrayOfInt8) {
		w.buf = appendNullableArray(w.buf, v, appendBytes)
	}
}

// WriteCharArray writes a CHAR_ARRAY field; nil writes null.
func (w *PortableWriter) WriteCharArray(name string, v []Char) {
	if w.plain(name, KindArrayOfChar) {
		w.buf = appendNullableArray(w.buf, v, appendChars)
	}
}

// WriteInt16Array writes a SHORT_ARRAY field; nil writes null.
func (w *PortableWriter) WriteInt16Array(name string, v []int16) {
	if w.plain(name, KindArrayOfInt16) {
		w.buf = appendNullableArray(w.buf, v, appendInt16s)
	}
}

// WriteInt32Array writes an INT_ARRAY field; nil writes null.
func (w *PortableWriter) WriteInt32Array(name string, v []int32) {
	if w.plain(name, KindArrayOfInt32) {
		w.buf = appendNullableArray(w.buf, v, appendInt32s)
	}
}

// WriteInt64Array writes a LONG_ARRAY field; nil writes null.
func (w *PortableWriter) WriteInt64Array(name string, v []int64) {
	if w.plain(name, KindArrayOfInt64) {
		w.buf = appendNullableArray(w.buf, v, appendInt64s)
	}
}

// WriteFloat32Array writes a FLOAT_ARRAY field; nil writes null.
func (w *PortableWriter) WriteFloat32Array(name string, v []float32) {
	if w.plain(name, KindArrayOfFloat32) {
		w.buf = appendNullableArray(w.buf, v, appendFloat32s)
	}
}

// WriteFloat64Array writes a DOUBLE_ARRAY field; nil writes null.
func (w *PortableWriter) WriteFloat64Array(name string, v []float64) {
	if w.plain(name, KindArrayOfFloat64) {
		w.buf = appendNullableArray(w.buf, v, appendFloat64s)
	}
}

// WriteStringArray writes a UTF_ARRAY field; nil writes null.
func (w *PortableWriter) WriteStringArray(name string, v []string) {
	if w.plain(name, KindArrayOfString) {
		if v == nil {
			w.buf = wire.AppendInt32(w.buf, -1)
			return
		}
		var err error
		if w.buf, err = appendStrings(w.buf, v); err != nil {
			w.fail(&FieldError{Field: name, Reason: err.Error()})
		}
	}
}

// WriteStringPtrArray writes a UTF_ARRAY field whose nil items are null; a nil slice writes null.
func (w *PortableWriter) WriteStringPtrArray(name string, v []*string) {
	if w.plain(name, KindArrayOfString) {
		if v == nil {
			w.buf = wire.AppendInt32(w.buf, -1)
			return
		}
		var err error
		if w.buf, err = appendStringPtrs(w.buf, v); err != nil {
			w.fail(&FieldError{Field: name, Reason: err.Error()})
		}
	}
}

// positionedArray writes int length, one absolute position per item, then
// the items (the layout of Portable's DECIMAL/TIME/DATE/TIMESTAMP arrays).
func positionedArray[T any](w *PortableWriter, v []T, item func([]byte, T) []byte) {
	if v == nil {
		w.buf = wire.AppendInt32(w.buf, -1)
		return
	}
	w.buf = wire.AppendInt32(w.buf, int32(len(v)))
	table := len(w.buf)
	for range v {
		w.buf = wire.AppendInt32(w.buf, 0)
	}
	for i, x := range v {
		wire.PutInt32(w.buf[table+4*i:], int32(len(w.buf)-w.enc.base))
		w.buf = item(w.buf, x)
	}
}

// WriteDecimalArray writes a DECIMAL_ARRAY field; nil writes null.
func (w *PortableWriter) WriteDecimalArray(name string, v []Decimal) {
	if w.plain(name, KindArrayOfDecimal) {
		positionedArray(w, v, appendDecimal)
	}
}

// WriteTimeArray writes a TIME_ARRAY field; nil writes null.
func (w *PortableWriter) WriteTimeArray(name string, v []LocalTime) {
	if w.plain(name, KindArrayOfTime) {
		positionedArray(w, v, appendTime)
	}
}

// WriteDateArray writes a DATE_ARRAY field; nil writes null.
func (w *PortableWriter) WriteDateArray(name string, v []LocalDate) {
	if w.plain(name, KindArrayOfDate) {
		positionedArray(w, v, func(b []byte, d LocalDate) []byte { return appendDate(b, d, true) })
	}
}

// WriteTimestampArray writes a TIMESTAMP_ARRAY field; nil writes null.
func (w *PortableWriter) WriteTimestampArray(name string, v []LocalDateTime) {
	if w.plain(name, KindArrayOfTimestamp) {
		positionedArray(w, v, func(b []byte, t LocalDateTime) []byte { return appendTimestamp(b, t, true) })
	}
}

// WriteTimestampWithTimezoneArray writes a TIMESTAMP_WITH_TIMEZONE_ARRAY field; nil writes null.
func (w *PortableWriter) WriteTimestampWithTimezoneArray(name string, v []OffsetDateTime) {
	if w.plain(name, KindArrayOfTimestampWithTimezone) {
		positionedArray(w, v, func(b []byte, t OffsetDateTime) []byte { return appendTimestampTZ(b, t, true) })
	}
}

// appendNullableArray writes -1 for a nil slice and uses enc otherwise.
func appendNullableArray[T any](dst []byte, v []T, enc func([]byte, []T) []byte) []byte {
	if v == nil {
		return wire.AppendInt32(dst, -1)
	}
	return enc(dst, v)
}

// Encoder side of Portable.

func (e *encoder) svcPortableVersion() int32 {
	if e.svc == nil {
		return 0
	}
	return e.svc.portableVersion
}

// portableIdentity returns factory, class and version of a Portable or record.
func (e *encoder) portableIdentity(v any) (PortableField, error) {
	switch x := v.(type) {
	case *PortableRecord:
		return PortableField{FactoryID: x.factoryID, ClassID: x.classID, Version: x.version}, nil
	case Portable:
		if e.svc == nil {
			return PortableField{}, &TypeError{Type: fmt.Sprintf("%T", v), Reason: "only records can be nested in a record builder"}
		}
		return PortableField{FactoryID: x.FactoryID(), ClassID: x.ClassID(), Version: e.svc.portableVersionOf(x)}, nil
	}
	return PortableField{}, &TypeError{Type: fmt.Sprintf("%T", v), Reason: "is not a Portable"}
}

// appendPortableData appends type id, factory, class and version and the body.
func (e *encoder) appendPortableData(dst []byte, v any) ([]byte, error) {
	id, err := e.portableIdentity(v)
	if err != nil {
		return dst, err
	}
	dst = wire.AppendInt32(dst, TypePortable)
	dst = wire.AppendInt32(dst, id.FactoryID)
	dst = wire.AppendInt32(dst, id.ClassID)
	return e.appendPortableVersionAndBody(dst, v)
}

// appendPortableVersionAndBody appends int version + the object body.
func (e *encoder) appendPortableVersionAndBody(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case *PortableRecord:
		cd, err := x.ClassDefinition()
		if err != nil {
			return dst, err
		}
		return e.writePortable(wire.AppendInt32(dst, x.version), cd, func(w *PortableWriter) { x.writeFields(w) })
	case Portable:
		cd, err := e.classDefinition(x)
		if err != nil {
			return dst, err
		}
		return e.writePortable(wire.AppendInt32(dst, cd.Version), cd, func(w *PortableWriter) { x.WritePortable(w) })
	}
	return dst, &TypeError{Type: fmt.Sprintf("%T", v), Reason: "is not a Portable"}
}

// classDefinition returns the registered class definition of p, learning it
// from a first write when there is none.
func (e *encoder) classDefinition(p Portable) (*ClassDefinition, error) {
	version := e.svc.portableVersionOf(p)
	if cd, ok := e.svc.classes.Get(p.FactoryID(), p.ClassID(), version); ok {
		return cd, nil
	}
	w := &PortableWriter{enc: e}
	p.WritePortable(w)
	if w.err != nil {
		return nil, w.err
	}
	cd, err := NewClassDefinition(p.FactoryID(), p.ClassID(), version, w.defs)
	if err != nil {
		return nil, err
	}
	return e.svc.classes.add(cd)
}

// writePortable lays out an object body for cd and runs write to fill it.
func (e *encoder) writePortable(dst []byte, cd *ClassDefinition, write func(*PortableWriter)) ([]byte, error) {
	if e.depth >= maxDepth {
		return dst, &TypeError{Type: "Portable", Reason: "objects nest deeper than " + strconv.Itoa(maxDepth) + " levels (a cycle?)"}
	}
	bodyAt := len(dst)
	dst = wire.AppendInt32(dst, 0) // end position, patched below
	dst = wire.AppendInt32(dst, int32(len(cd.Fields)))
	table := len(dst)
	for i := 0; i <= len(cd.Fields); i++ {
		dst = wire.AppendInt32(dst, 0)
	}
	w := e.portableWriter()
	*w = PortableWriter{enc: e, cd: cd, buf: dst, table: table}
	e.depth++
	write(w)
	e.depth--
	dst, err, written := w.buf, w.err, w.written
	*w = PortableWriter{}
	if err == nil && written != len(cd.Fields) {
		err = &FieldError{Field: "", Reason: fmt.Sprintf("portable %d/%d/%d wrote %d of its %d fields", cd.FactoryID, cd.ClassID, cd.Version, written, len(cd.Fields))}
	}
	wire.PutInt32(dst[bodyAt:], int32(len(dst)-e.base))
	return dst, err
}

// portableWriter returns a writer for the current nesting depth.
func (e *encoder) portableWriter() *PortableWriter {
	for len(e.pwriters) <= e.depth {
		e.pwriters = append(e.pwriters, &PortableWriter{})
	}
	return e.pwriters[e.depth]
}
