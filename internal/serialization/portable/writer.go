package portable

import (
	"fmt"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// Writer writes the fields of one Portable object. Writers are
// created by the Service and valid only during a WritePortable call. Errors
// are sticky: the first one is reported by the Service.
type Writer struct {
	enc     *Encoder
	cd      *ClassDefinition // nil while the class definition is being discovered
	defs    []Field
	buf     []byte
	table   int // index in buf of the field position table
	seq     int
	written int
	err     error
}

// Err returns the first error recorded by the writer.
func (w *Writer) Err() error { return w.err }

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// field resolves a field write and appends its entry header (name and
// type). It returns false in discovery mode and after errors.
func (w *Writer) field(name string, kind core.FieldKind, nested Field) bool {
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
		w.fail(&core.FieldError{Field: name, Reason: fmt.Sprintf("is not in portable class definition %d/%d/%d", w.cd.FactoryID, w.cd.ClassID, w.cd.Version)})
		return false
	}
	w.seq++
	if f := &w.cd.Fields[i]; f.Kind != kind {
		w.fail(&core.FieldError{Field: name, Reason: "written as " + kind.String() + " but the class definition has " + f.Kind.String()})
		return false
	}
	wire.PutInt32(w.buf[w.table+4*int(i):], int32(len(w.buf)-w.enc.Base))
	w.written++
	w.buf = wire.AppendInt16(w.buf, int16(len(name)))
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, byte(TypeID(kind)))
	return true
}

func (w *Writer) plain(name string, kind core.FieldKind) bool {
	return w.field(name, kind, Field{})
}

// WriteBoolean writes a BOOLEAN field.
func (w *Writer) WriteBoolean(name string, v bool) {
	if w.plain(name, core.KindBoolean) {
		w.buf = wire.AppendBool(w.buf, v)
	}
}

// WriteInt8 writes a BYTE field.
func (w *Writer) WriteInt8(name string, v int8) {
	if w.plain(name, core.KindInt8) {
		w.buf = append(w.buf, byte(v))
	}
}

// WriteChar writes a CHAR field.
func (w *Writer) WriteChar(name string, v core.Char) {
	if w.plain(name, core.KindChar) {
		w.buf = wire.AppendInt16(w.buf, int16(v))
	}
}

// WriteInt16 writes a SHORT field.
func (w *Writer) WriteInt16(name string, v int16) {
	if w.plain(name, core.KindInt16) {
		w.buf = wire.AppendInt16(w.buf, v)
	}
}

// WriteInt32 writes an INT field.
func (w *Writer) WriteInt32(name string, v int32) {
	if w.plain(name, core.KindInt32) {
		w.buf = wire.AppendInt32(w.buf, v)
	}
}

// WriteInt64 writes a LONG field.
func (w *Writer) WriteInt64(name string, v int64) {
	if w.plain(name, core.KindInt64) {
		w.buf = wire.AppendInt64(w.buf, v)
	}
}

// WriteFloat32 writes a FLOAT field.
func (w *Writer) WriteFloat32(name string, v float32) {
	if w.plain(name, core.KindFloat32) {
		w.buf = wire.AppendFloat32(w.buf, v)
	}
}

// WriteFloat64 writes a DOUBLE field.
func (w *Writer) WriteFloat64(name string, v float64) {
	if w.plain(name, core.KindFloat64) {
		w.buf = wire.AppendFloat64(w.buf, v)
	}
}

// WriteString writes a UTF field.
func (w *Writer) WriteString(name string, v string) {
	if w.plain(name, core.KindString) {
		w.appendString(v)
	}
}

// WriteStringPtr writes a UTF field; nil writes null.
func (w *Writer) WriteStringPtr(name string, v *string) {
	if w.plain(name, core.KindString) {
		if v == nil {
			w.buf = wire.AppendNullString(w.buf)
		} else {
			w.appendString(*v)
		}
	}
}

func (w *Writer) appendString(s string) {
	var err error
	if w.buf, err = wire.AppendString(w.buf, s); err != nil {
		w.fail(core.StringErr(err, s))
	}
}

// nullable writes the isNull flag of DECIMAL, TIME, DATE, TIMESTAMP and
// TIMESTAMP_WITH_TIMEZONE fields and reports whether a value follows.
func (w *Writer) nullable(name string, kind core.FieldKind, null bool) bool {
	if !w.plain(name, kind) {
		return false
	}
	w.buf = wire.AppendBool(w.buf, null)
	return !null
}

// WriteDecimal writes a DECIMAL field; nil writes null.
func (w *Writer) WriteDecimal(name string, v *core.Decimal) {
	if w.nullable(name, core.KindDecimal, v == nil) {
		w.buf = core.AppendDecimal(w.buf, *v)
	}
}

// WriteTime writes a TIME field; nil writes null.
func (w *Writer) WriteTime(name string, v *core.LocalTime) {
	if w.nullable(name, core.KindTime, v == nil) {
		w.buf = core.AppendTime(w.buf, *v)
	}
}

// WriteDate writes a DATE field (the year is written as a short); nil writes null.
func (w *Writer) WriteDate(name string, v *core.LocalDate) {
	if w.nullable(name, core.KindDate, v == nil) {
		w.buf = core.AppendDate(w.buf, *v, true)
	}
}

// WriteTimestamp writes a TIMESTAMP field; nil writes null.
func (w *Writer) WriteTimestamp(name string, v *core.LocalDateTime) {
	if w.nullable(name, core.KindTimestamp, v == nil) {
		w.buf = core.AppendTimestamp(w.buf, *v, true)
	}
}

// WriteTimestampWithTimezone writes a TIMESTAMP_WITH_TIMEZONE field; nil writes null.
func (w *Writer) WriteTimestampWithTimezone(name string, v *core.OffsetDateTime) {
	if w.nullable(name, core.KindTimestampWithTimezone, v == nil) {
		w.buf = core.AppendTimestampTZ(w.buf, *v, true)
	}
}

// WritePortable writes a nested PORTABLE field (a Portable or a
// *Record). For null use WriteNullPortable, which names the class.
func (w *Writer) WritePortable(name string, v any) {
	if core.IsNil(v) {
		w.fail(&core.FieldError{Field: name, Reason: "WritePortable needs a value; use WriteNullPortable for null"})
		return
	}
	id, err := w.enc.identity(v)
	if err != nil {
		w.fail(err)
		return
	}
	if !w.field(name, core.KindPortable, id) {
		return
	}
	w.buf = wire.AppendBool(w.buf, false)
	w.buf = wire.AppendInt32(w.buf, id.FactoryID)
	w.buf = wire.AppendInt32(w.buf, id.ClassID)
	w.appendVersionAndBody(v)
}

// WriteNullPortable writes a null PORTABLE field of the given class.
func (w *Writer) WriteNullPortable(name string, factoryID, classID int32) {
	id := Field{FactoryID: factoryID, ClassID: classID, Version: w.enc.Version}
	if !w.field(name, core.KindPortable, id) {
		return
	}
	w.buf = wire.AppendBool(w.buf, true)
	w.buf = wire.AppendInt32(w.buf, factoryID)
	w.buf = wire.AppendInt32(w.buf, classID)
}

func (w *Writer) appendVersionAndBody(v any) {
	var err error
	if w.buf, err = w.enc.appendVersionAndBody(w.buf, v); err != nil {
		w.fail(err)
	}
}

// WritePortableArray writes a PORTABLE_ARRAY field; items are Portable
// values or *PortableRecords of one class and may not be nil. A nil slice
// writes null. An empty array needs a registered class definition of the
// enclosing class, since it carries no item to learn the class from.
func (w *Writer) WritePortableArray(name string, v []any) {
	writeArray(w, name, v)
}

// WriteSlice writes a PORTABLE_ARRAY field from a typed slice.
func WriteSlice[T any](w *Writer, name string, v []T) {
	writeArray(w, name, v)
}

func writeArray[T any](w *Writer, name string, v []T) {
	var id Field
	if len(v) > 0 {
		var err error
		if id, err = w.enc.identity(v[0]); err != nil {
			w.fail(err)
			return
		}
	} else if w.cd == nil {
		w.fail(&core.FieldError{Field: name, Reason: "cannot learn the item class of an empty or null portable array; register the class definition of the enclosing class"})
		return
	} else if f, _, ok := w.cd.Field(name); ok {
		id = f
	}
	if !w.field(name, core.KindArrayOfPortable, id) {
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
		if core.IsNil(item) {
			w.fail(&core.FieldError{Field: name, Reason: "portable arrays cannot hold null items"})
			return
		}
		if iid, err := w.enc.identity(item); err != nil || iid.FactoryID != id.FactoryID || iid.ClassID != id.ClassID {
			w.fail(&core.FieldError{Field: name, Reason: "item " + strconv.Itoa(i) + " is of a different class than item 0"})
			return
		}
		wire.PutInt32(w.buf[table+4*i:], int32(len(w.buf)-w.enc.Base))
		w.appendVersionAndBody(item)
	}
}

// WriteBooleanArray writes a BOOLEAN_ARRAY field (one byte per item); nil writes null.
func (w *Writer) WriteBooleanArray(name string, v []bool) {
	if w.plain(name, core.KindArrayOfBoolean) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendBools)
	}
}

// WriteByteArray writes a BYTE_ARRAY field; nil writes null.
func (w *Writer) WriteByteArray(name string, v []byte) {
	if w.plain(name, core.KindArrayOfInt8) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendBytes)
	}
}

// WriteCharArray writes a CHAR_ARRAY field; nil writes null.
func (w *Writer) WriteCharArray(name string, v []core.Char) {
	if w.plain(name, core.KindArrayOfChar) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendChars)
	}
}

// WriteInt16Array writes a SHORT_ARRAY field; nil writes null.
func (w *Writer) WriteInt16Array(name string, v []int16) {
	if w.plain(name, core.KindArrayOfInt16) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendInt16s)
	}
}

// WriteInt32Array writes an INT_ARRAY field; nil writes null.
func (w *Writer) WriteInt32Array(name string, v []int32) {
	if w.plain(name, core.KindArrayOfInt32) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendInt32s)
	}
}

// WriteInt64Array writes a LONG_ARRAY field; nil writes null.
func (w *Writer) WriteInt64Array(name string, v []int64) {
	if w.plain(name, core.KindArrayOfInt64) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendInt64s)
	}
}

// WriteFloat32Array writes a FLOAT_ARRAY field; nil writes null.
func (w *Writer) WriteFloat32Array(name string, v []float32) {
	if w.plain(name, core.KindArrayOfFloat32) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendFloat32s)
	}
}

// WriteFloat64Array writes a DOUBLE_ARRAY field; nil writes null.
func (w *Writer) WriteFloat64Array(name string, v []float64) {
	if w.plain(name, core.KindArrayOfFloat64) {
		w.buf = core.AppendNullableArray(w.buf, v, core.AppendFloat64s)
	}
}

// WriteStringArray writes a UTF_ARRAY field; nil writes null.
func (w *Writer) WriteStringArray(name string, v []string) {
	if w.plain(name, core.KindArrayOfString) {
		if v == nil {
			w.buf = wire.AppendInt32(w.buf, -1)
			return
		}
		var err error
		if w.buf, err = core.AppendStrings(w.buf, v); err != nil {
			w.fail(core.StringErr(err, v...))
		}
	}
}

// WriteStringPtrArray writes a UTF_ARRAY field whose nil items are null; a nil slice writes null.
func (w *Writer) WriteStringPtrArray(name string, v []*string) {
	if w.plain(name, core.KindArrayOfString) {
		if v == nil {
			w.buf = wire.AppendInt32(w.buf, -1)
			return
		}
		var err error
		if w.buf, err = core.AppendStringPtrs(w.buf, v); err != nil {
			w.fail(core.StringPtrsErr(err, v))
		}
	}
}

// positionedArray writes int length, one absolute position per item, then
// the items (the layout of Portable's DECIMAL/TIME/DATE/TIMESTAMP arrays).
func positionedArray[T any](w *Writer, v []T, item func([]byte, T) []byte) {
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
		wire.PutInt32(w.buf[table+4*i:], int32(len(w.buf)-w.enc.Base))
		w.buf = item(w.buf, x)
	}
}

// WriteDecimalArray writes a DECIMAL_ARRAY field; nil writes null.
func (w *Writer) WriteDecimalArray(name string, v []core.Decimal) {
	if w.plain(name, core.KindArrayOfDecimal) {
		positionedArray(w, v, core.AppendDecimal)
	}
}

// WriteTimeArray writes a TIME_ARRAY field; nil writes null.
func (w *Writer) WriteTimeArray(name string, v []core.LocalTime) {
	if w.plain(name, core.KindArrayOfTime) {
		positionedArray(w, v, core.AppendTime)
	}
}

// WriteDateArray writes a DATE_ARRAY field; nil writes null.
func (w *Writer) WriteDateArray(name string, v []core.LocalDate) {
	if w.plain(name, core.KindArrayOfDate) {
		positionedArray(w, v, func(b []byte, d core.LocalDate) []byte { return core.AppendDate(b, d, true) })
	}
}

// WriteTimestampArray writes a TIMESTAMP_ARRAY field; nil writes null.
func (w *Writer) WriteTimestampArray(name string, v []core.LocalDateTime) {
	if w.plain(name, core.KindArrayOfTimestamp) {
		positionedArray(w, v, func(b []byte, t core.LocalDateTime) []byte { return core.AppendTimestamp(b, t, true) })
	}
}

// WriteTimestampWithTimezoneArray writes a TIMESTAMP_WITH_TIMEZONE_ARRAY field; nil writes null.
func (w *Writer) WriteTimestampWithTimezoneArray(name string, v []core.OffsetDateTime) {
	if w.plain(name, core.KindArrayOfTimestampWithTimezone) {
		positionedArray(w, v, func(b []byte, t core.OffsetDateTime) []byte { return core.AppendTimestampTZ(b, t, true) })
	}
}

// Encoder writes the Portable objects of one serialization.
type Encoder struct {
	*core.Encoding
	// Classes holds the class definitions, and learns those of classes
	// written for the first time; nil in a record builder, which nests
	// records only.
	Classes *ClassRegistry
	// Version is the class version of Portables that are not Versioned.
	Version int32
	writers []*Writer // one per nesting depth, reused
}

// identity returns factory, class and version of a Portable or record.
func (e *Encoder) identity(v any) (Field, error) {
	switch x := v.(type) {
	case *Record:
		return Field{FactoryID: x.factoryID, ClassID: x.classID, Version: x.version}, nil
	case Portable:
		if e.Classes == nil {
			return Field{}, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "only records can be nested in a record builder"}
		}
		return Field{FactoryID: x.FactoryID(), ClassID: x.ClassID(), Version: e.versionOf(x)}, nil
	}
	return Field{}, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "is not a Portable"}
}

// AppendData appends type id, factory, class and version and the body.
func (e *Encoder) AppendData(dst []byte, v any) ([]byte, error) {
	id, err := e.identity(v)
	if err != nil {
		return dst, err
	}
	dst = wire.AppendInt32(dst, core.TypePortable)
	dst = wire.AppendInt32(dst, id.FactoryID)
	dst = wire.AppendInt32(dst, id.ClassID)
	return e.appendVersionAndBody(dst, v)
}

// appendVersionAndBody appends int version + the object body.
func (e *Encoder) appendVersionAndBody(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case *Record:
		cd, err := x.ClassDefinition()
		if err != nil {
			return dst, err
		}
		return e.write(wire.AppendInt32(dst, x.version), cd, func(w *Writer) { x.writeFields(w) })
	case Portable:
		cd, err := e.classDefinition(x)
		if err != nil {
			return dst, err
		}
		return e.write(wire.AppendInt32(dst, cd.Version), cd, func(w *Writer) { x.WritePortable(w) })
	}
	return dst, &core.TypeError{Type: fmt.Sprintf("%T", v), Reason: "is not a Portable"}
}

// classDefinition returns the registered class definition of p, learning it
// from a first write when there is none.
func (e *Encoder) classDefinition(p Portable) (*ClassDefinition, error) {
	version := e.versionOf(p)
	if cd, ok := e.Classes.Get(p.FactoryID(), p.ClassID(), version); ok {
		return cd, nil
	}
	w := &Writer{enc: e}
	p.WritePortable(w)
	if w.err != nil {
		return nil, w.err
	}
	cd, err := NewClassDefinition(p.FactoryID(), p.ClassID(), version, w.defs)
	if err != nil {
		return nil, err
	}
	return e.Classes.add(cd)
}

// write lays out an object body for cd and runs write to fill it.
func (e *Encoder) write(dst []byte, cd *ClassDefinition, write func(*Writer)) ([]byte, error) {
	if e.Depth >= core.MaxDepth {
		return dst, &core.TypeError{Type: "Portable", Reason: "objects nest deeper than " + strconv.Itoa(core.MaxDepth) + " levels (a cycle?)"}
	}
	bodyAt := len(dst)
	dst = wire.AppendInt32(dst, 0) // end position, patched below
	dst = wire.AppendInt32(dst, int32(len(cd.Fields)))
	table := len(dst)
	for i := 0; i <= len(cd.Fields); i++ {
		dst = wire.AppendInt32(dst, 0)
	}
	w := e.writer()
	*w = Writer{enc: e, cd: cd, buf: dst, table: table}
	e.Depth++
	write(w)
	e.Depth--
	dst, err, written := w.buf, w.err, w.written
	*w = Writer{}
	if err == nil && written != len(cd.Fields) {
		err = &core.FieldError{Field: "", Reason: fmt.Sprintf("portable %d/%d/%d wrote %d of its %d fields", cd.FactoryID, cd.ClassID, cd.Version, written, len(cd.Fields))}
	}
	wire.PutInt32(dst[bodyAt:], int32(len(dst)-e.Base))
	return dst, err
}

// writer returns a writer for the current nesting depth.
func (e *Encoder) writer() *Writer {
	for len(e.writers) <= e.Depth {
		e.writers = append(e.writers, &Writer{})
	}
	return e.writers[e.Depth]
}
