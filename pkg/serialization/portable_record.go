package serialization

import (
	"fmt"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// PortableRecord reads the fields of one Portable object in place, through
// the field position table, without decoding the rest. Fields are found by
// name, so data written with another version of the class reads correctly;
// the binary is self-describing and no class definition is required.
//
// A PortableRecord aliases the Data it was read from (positions in Portable
// are absolute in the Data): the bytes must not change while it is in use.
type PortableRecord struct {
	buf       []byte // the Data, cut at the end of this object
	body      int    // index of the object's end-position word
	count     int    // field count
	factoryID int32
	classID   int32
	version   int32
	cd        *ClassDefinition // the writer's class definition, when known
	classes   *ClassRegistry
}

// ReadPortableRecord reads the Portable object of a Data of type -1. Class
// definitions in classes speed up field lookups but are not required.
func ReadPortableRecord(d Data, classes *ClassRegistry) (PortableRecord, error) {
	if err := d.Check(); err != nil {
		return PortableRecord{}, err
	}
	if d.Type() != TypePortable {
		return PortableRecord{}, &DecodeError{Format: "portable", Offset: 4, Reason: "type id " + strconv.Itoa(int(d.Type())) + " is not the portable type"}
	}
	rd := wire.NewReader(d, HeaderSize)
	fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
	if rd.Err() != nil {
		return PortableRecord{}, malformed("portable", HeaderSize, "truncated class identity")
	}
	rec, _, err := parsePortable(d, rd.Pos(), len(d), fid, cid, ver, classes)
	return rec, err
}

// parsePortable reads an object body at b[p] that must end by b[limit].
func parsePortable(b []byte, p, limit int, fid, cid, ver int32, classes *ClassRegistry) (PortableRecord, int, error) {
	end, ok1 := wire.Int32At(b[:limit], p)
	count, ok2 := wire.Int32At(b[:limit], p+4)
	if !ok1 || !ok2 {
		return PortableRecord{}, 0, malformed("portable", p, "truncated object header")
	}
	tableEnd := int64(p) + 8 + 4*(int64(count)+1)
	if count < 0 || tableEnd > int64(end) || int(end) > limit {
		return PortableRecord{}, 0, malformed("portable", p, "field count or end position out of range")
	}
	rec := PortableRecord{buf: b[:end:end], body: p, count: int(count), factoryID: fid, classID: cid, version: ver, classes: classes}
	if classes != nil {
		if cd, ok := classes.Get(fid, cid, ver); ok && len(cd.Fields) == rec.count {
			rec.cd = cd
		}
	}
	return rec, int(end), nil
}

// FactoryID returns the factory id of the object's class.
func (r *PortableRecord) FactoryID() int32 { return r.factoryID }

// ClassID returns the class id of the object's class.
func (r *PortableRecord) ClassID() int32 { return r.classID }

// Version returns the class version the object was written with.
func (r *PortableRecord) Version() int32 { return r.version }

// fieldAt returns the position of the entry of field i.
func (r *PortableRecord) fieldAt(i int) int {
	v, _ := wire.Int32At(r.buf, r.body+8+4*i)
	return int(v)
}

// entry reads the entry header at pos: the name and the kind; value is the
// position of the value.
func (r *PortableRecord) entry(pos int) (name []byte, kind FieldKind, value int, err error) {
	if pos < r.body+8+4*(r.count+1) || pos >= len(r.buf) {
		return nil, 0, 0, malformed("portable", pos, "field position outside the object")
	}
	rd := wire.NewReader(r.buf, pos)
	n := int(rd.Uint16())
	name = rd.Bytes(n)
	t := rd.Int8()
	if rd.Err() != nil {
		return nil, 0, 0, malformed("portable", pos, "truncated field entry")
	}
	kind, ok := PortableKind(int32(t))
	if !ok {
		return nil, 0, 0, malformed("portable", pos, "unknown field type "+strconv.Itoa(int(t)))
	}
	return name, kind, rd.Pos(), nil
}

// locate finds a field by name and returns its kind and value position.
func (r *PortableRecord) locate(name string) (FieldKind, int, error) {
	if r.buf == nil {
		return 0, 0, &FieldError{Field: name, Reason: "read from an empty record"}
	}
	hint := -1
	if r.cd != nil {
		if i, ok := r.cd.byName[name]; ok {
			hint = int(i)
		}
	}
	k, v, i, err := r.find(name, hint)
	if err == nil && i < 0 {
		err = &FieldError{Field: name, Reason: fmt.Sprintf("is not in portable %d/%d version %d", r.factoryID, r.classID, r.version), absent: true}
	}
	return k, v, err
}

// find returns the kind, value position and index in the field table of
// the named field, looking at index hint first (the index of the class
// definition, or the one a compiled reader found before); index -1 means
// the object has no such field.
func (r *PortableRecord) find(name string, hint int) (kind FieldKind, pos, index int, err error) {
	if hint >= 0 && hint < r.count {
		if n, k, v, err := r.entry(r.fieldAt(hint)); err == nil && string(n) == name {
			return k, v, hint, nil
		}
	}
	for i := 0; i < r.count; i++ {
		n, k, v, err := r.entry(r.fieldAt(i))
		if err != nil {
			return 0, 0, -1, err
		}
		if string(n) == name {
			return k, v, i, nil
		}
	}
	return 0, 0, -1, nil
}

// FieldKind returns the kind of the named field, or KindNotAvailable.
func (r *PortableRecord) FieldKind(name string) FieldKind {
	k, _, err := r.locate(name)
	if err != nil {
		return KindNotAvailable
	}
	return k
}

// HasField reports whether the object has the named field.
func (r *PortableRecord) HasField(name string) bool { return r.FieldKind(name) != KindNotAvailable }

// ClassDefinition returns the writer's class definition: the registered one,
// or one rebuilt from the self-describing binary.
func (r *PortableRecord) ClassDefinition() (*ClassDefinition, error) {
	if r.cd != nil {
		return r.cd, nil
	}
	fields := make([]PortableField, r.count)
	for i := range fields {
		n, k, v, err := r.entry(r.fieldAt(i))
		if err != nil {
			return nil, err
		}
		fields[i] = PortableField{Name: string(n), Kind: k}
		if k == KindPortable || k == KindArrayOfPortable {
			rd := wire.NewReader(r.buf, v)
			if k == KindPortable {
				rd.Bool()
			} else {
				rd.Int32()
			}
			fields[i].FactoryID, fields[i].ClassID = rd.Int32(), rd.Int32()
			if rd.Err() != nil {
				return nil, malformed("portable", v, "truncated nested class identity")
			}
			fields[i].Version = r.version
		}
	}
	cd, err := NewClassDefinition(r.factoryID, r.classID, r.version, fields)
	if err != nil {
		return nil, &DecodeError{Format: "portable", Offset: r.body, Reason: "fields do not form a valid class definition", Err: err}
	}
	r.cd = cd
	return cd, nil
}

// value resolves a field that must have kind k and returns a reader at its value.
func (r *PortableRecord) value(name string, k FieldKind) (wire.Reader, error) {
	kind, pos, err := r.locate(name)
	if err != nil {
		return wire.Reader{}, err
	}
	if kind != k {
		return wire.Reader{}, &FieldError{Field: name, Reason: "has kind " + kind.String() + ", not " + k.String()}
	}
	return wire.NewReader(r.buf, pos), nil
}

func portableErr(rd *wire.Reader, name string) error {
	if rd.Err() == nil {
		return nil
	}
	return &DecodeError{Format: "portable", Offset: rd.Pos(), Reason: "field " + strconv.Quote(name) + " is truncated or has an invalid length", Err: rd.Err()}
}

// GetBoolean reads a BOOLEAN field.
func (r *PortableRecord) GetBoolean(name string) (bool, error) {
	rd, err := r.value(name, KindBoolean)
	if err != nil {
		return false, err
	}
	v := rd.Bool()
	return v, portableErr(&rd, name)
}

// GetInt8 reads a BYTE field.
func (r *PortableRecord) GetInt8(name string) (int8, error) {
	rd, err := r.value(name, KindInt8)
	if err != nil {
		return 0, err
	}
	v := rd.Int8()
	return v, portableErr(&rd, name)
}

// GetChar reads a CHAR field.
func (r *PortableRecord) GetChar(name string) (Char, error) {
	rd, err := r.value(name, KindChar)
	if err != nil {
		return 0, err
	}
	v := Char(rd.Uint16())
	return v, portableErr(&rd, name)
}

// GetInt16 reads a SHORT field.
func (r *PortableRecord) GetInt16(name string) (int16, error) {
	rd, err := r.value(name, KindInt16)
	if err != nil {
		return 0, err
	}
	v := rd.Int16()
	return v, portableErr(&rd, name)
}

// GetInt32 reads a INT field.
func (r *PortableRecord) GetInt32(name string) (int32, error) {
	rd, err := r.value(name, KindInt32)
	if err != nil {
		return 0, err
	}
	v := rd.Int32()
	return v, portableErr(&rd, name)
}

// GetInt64 reads a LONG field.
func (r *PortableRecord) GetInt64(name string) (int64, error) {
	rd, err := r.value(name, KindInt64)
	if err != nil {
		return 0, err
	}
	v := rd.Int64()
	return v, portableErr(&rd, name)
}

// GetFloat32 reads a FLOAT field.
func (r *PortableRecord) GetFloat32(name string) (float32, error) {
	rd, err := r.value(name, KindFloat32)
	if err != nil {
		return 0, err
	}
	v := rd.Float32()
	return v, portableErr(&rd, name)
}

// GetFloat64 reads a DOUBLE field.
func (r *PortableRecord) GetFloat64(name string) (float64, error) {
	rd, err := r.value(name, KindFloat64)
	if err != nil {
		return 0, err
	}
	v := rd.Float64()
	return v, portableErr(&rd, name)
}

// GetStringBytes returns a view of a UTF field's bytes; null reports ok=false.
func (r *PortableRecord) GetStringBytes(name string) (b []byte, ok bool, err error) {
	rd, err := r.value(name, KindString)
	if err != nil {
		return nil, false, err
	}
	b, ok = rd.StringBytes()
	return b, ok, portableErr(&rd, name)
}

// GetString reads a UTF field; null reads as "".
func (r *PortableRecord) GetString(name string) (string, error) {
	b, _, err := r.GetStringBytes(name)
	return string(b), err
}

// GetStringPtr reads a UTF field; null is nil.
func (r *PortableRecord) GetStringPtr(name string) (*string, error) {
	b, ok, err := r.GetStringBytes(name)
	if err != nil || !ok {
		return nil, err
	}
	s := string(b)
	return &s, nil
}

// nullableValue reads the isNull flag of DECIMAL/TIME/DATE/TIMESTAMP fields.
func nullableValue[T any](r *PortableRecord, name string, k FieldKind, read func(*wire.Reader) T) (*T, error) {
	rd, err := r.value(name, k)
	if err != nil {
		return nil, err
	}
	if rd.Bool() {
		return nil, portableErr(&rd, name)
	}
	v := read(&rd)
	if err := portableErr(&rd, name); err != nil {
		return nil, err
	}
	return &v, nil
}

func readPortableDate(rd *wire.Reader) LocalDate { return readDate(rd, true) }
func readPortableTimestamp(rd *wire.Reader) LocalDateTime {
	return readTimestamp(rd, true)
}
func readPortableTimestampTZ(rd *wire.Reader) OffsetDateTime {
	return readTimestampTZ(rd, true)
}

// GetDecimal reads a DECIMAL field; null is nil.
func (r *PortableRecord) GetDecimal(name string) (*Decimal, error) {
	return nullableValue(r, name, KindDecimal, readDecimal)
}

// GetTime reads a TIME field; null is nil.
func (r *PortableRecord) GetTime(name string) (*LocalTime, error) {
	return nullableValue(r, name, KindTime, readTime)
}

// GetDate reads a DATE field; null is nil.
func (r *PortableRecord) GetDate(name string) (*LocalDate, error) {
	return nullableValue(r, name, KindDate, readPortableDate)
}

// GetTimestamp reads a TIMESTAMP field; null is nil.
func (r *PortableRecord) GetTimestamp(name string) (*LocalDateTime, error) {
	return nullableValue(r, name, KindTimestamp, readPortableTimestamp)
}

// GetTimestampWithTimezone reads a TIMESTAMP_WITH_TIMEZONE field; null is nil.
func (r *PortableRecord) GetTimestampWithTimezone(name string) (*OffsetDateTime, error) {
	return nullableValue(r, name, KindTimestampWithTimezone, readPortableTimestampTZ)
}

// GetPortable reads a nested PORTABLE field as a record; null is nil.
func (r *PortableRecord) GetPortable(name string) (*PortableRecord, error) {
	rd, err := r.value(name, KindPortable)
	if err != nil {
		return nil, err
	}
	null := rd.Bool()
	fid, cid := rd.Int32(), rd.Int32()
	if err := portableErr(&rd, name); err != nil || null {
		return nil, err
	}
	ver := rd.Int32()
	if err := portableErr(&rd, name); err != nil {
		return nil, err
	}
	rec, _, err := parsePortable(r.buf, rd.Pos(), len(r.buf), fid, cid, ver, r.classes)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// GetArrayOfPortable reads a PORTABLE_ARRAY field as records; null is nil.
func (r *PortableRecord) GetArrayOfPortable(name string) ([]*PortableRecord, error) {
	rd, err := r.value(name, KindArrayOfPortable)
	if err != nil {
		return nil, err
	}
	n := rd.Length(4, true)
	fid, cid := rd.Int32(), rd.Int32()
	if err := portableErr(&rd, name); err != nil || n < 0 {
		return nil, err
	}
	if int64(n)*4 > int64(rd.Len()) {
		return nil, malformed("portable", rd.Pos(), "portable array "+strconv.Quote(name)+" is longer than the data")
	}
	out := make([]*PortableRecord, n)
	for i := range out {
		pos := int(rd.Int32())
		item := wire.NewReader(r.buf, pos)
		ver := item.Int32()
		if pos <= r.body || item.Err() != nil {
			return nil, malformed("portable", pos, "portable array item position out of range")
		}
		rec, _, err := parsePortable(r.buf, item.Pos(), len(r.buf), fid, cid, ver, r.classes)
		if err != nil {
			return nil, err
		}
		out[i] = &rec
	}
	return out, nil
}

// arrayValue reads a nullable primitive array of kind k: int length (-1 =
// null) + items.
func arrayValue[T any](r *PortableRecord, name string, k FieldKind, size int, read func(*wire.Reader) T) ([]T, error) {
	rd, err := r.value(name, k)
	if err != nil {
		return nil, err
	}
	v := readSlice(&rd, size, read)
	return v, portableErr(&rd, name)
}

// GetArrayOfBoolean reads a BOOLEAN_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfBoolean(name string) ([]bool, error) {
	return arrayValue(r, name, KindArrayOfBoolean, 1, (*wire.Reader).Bool)
}

// GetArrayOfInt8 reads a BYTE_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfInt8(name string) ([]int8, error) {
	return arrayValue(r, name, KindArrayOfInt8, 1, (*wire.Reader).Int8)
}

// GetByteArray reads a BYTE_ARRAY field as bytes; null is nil.
func (r *PortableRecord) GetByteArray(name string) ([]byte, error) {
	return arrayValue(r, name, KindArrayOfInt8, 1, func(rd *wire.Reader) byte { return byte(rd.Int8()) })
}

// GetArrayOfChar reads a CHAR_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfChar(name string) ([]Char, error) {
	return arrayValue(r, name, KindArrayOfChar, 2, func(rd *wire.Reader) Char { return Char(rd.Uint16()) })
}

// GetArrayOfInt16 reads a SHORT_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfInt16(name string) ([]int16, error) {
	return arrayValue(r, name, KindArrayOfInt16, 2, (*wire.Reader).Int16)
}

// GetArrayOfInt32 reads an INT_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfInt32(name string) ([]int32, error) {
	return arrayValue(r, name, KindArrayOfInt32, 4, (*wire.Reader).Int32)
}

// GetArrayOfInt64 reads a LONG_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfInt64(name string) ([]int64, error) {
	return arrayValue(r, name, KindArrayOfInt64, 8, (*wire.Reader).Int64)
}

// GetArrayOfFloat32 reads a FLOAT_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfFloat32(name string) ([]float32, error) {
	return arrayValue(r, name, KindArrayOfFloat32, 4, (*wire.Reader).Float32)
}

// GetArrayOfFloat64 reads a DOUBLE_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfFloat64(name string) ([]float64, error) {
	return arrayValue(r, name, KindArrayOfFloat64, 8, (*wire.Reader).Float64)
}

// GetArrayOfStringPtr reads a UTF_ARRAY field; null items are nil.
func (r *PortableRecord) GetArrayOfStringPtr(name string) ([]*string, error) {
	rd, err := r.value(name, KindArrayOfString)
	if err != nil {
		return nil, err
	}
	v := readStringPtrs(&rd)
	return v, portableErr(&rd, name)
}

// GetArrayOfString reads a UTF_ARRAY field; null items read as "".
func (r *PortableRecord) GetArrayOfString(name string) ([]string, error) {
	ptrs, err := r.GetArrayOfStringPtr(name)
	if ptrs == nil {
		return nil, err
	}
	out := make([]string, len(ptrs))
	for i, p := range ptrs {
		if p != nil {
			out[i] = *p
		}
	}
	return out, nil
}

// positionedValues reads int length (-1 = null), item positions, and items.
func positionedValues[T any](r *PortableRecord, name string, k FieldKind, read func(*wire.Reader) T) ([]*T, error) {
	rd, err := r.value(name, k)
	if err != nil {
		return nil, err
	}
	n := rd.Length(4, true)
	if err := portableErr(&rd, name); err != nil || n < 0 {
		return nil, err
	}
	out := make([]*T, n)
	for i := range out {
		item := wire.NewReader(r.buf, int(rd.Int32()))
		if item.Pos() <= r.body {
			item.Fail(wire.ErrLength)
		}
		v := read(&item)
		if err := portableErr(&item, name); err != nil {
			return nil, err
		}
		out[i] = &v
	}
	return out, portableErr(&rd, name)
}

// GetArrayOfDecimal reads a DECIMAL_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfDecimal(name string) ([]*Decimal, error) {
	return positionedValues(r, name, KindArrayOfDecimal, readDecimal)
}

// GetArrayOfTime reads a TIME_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfTime(name string) ([]*LocalTime, error) {
	return positionedValues(r, name, KindArrayOfTime, readTime)
}

// GetArrayOfDate reads a DATE_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfDate(name string) ([]*LocalDate, error) {
	return positionedValues(r, name, KindArrayOfDate, readPortableDate)
}

// GetArrayOfTimestamp reads a TIMESTAMP_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfTimestamp(name string) ([]*LocalDateTime, error) {
	return positionedValues(r, name, KindArrayOfTimestamp, readPortableTimestamp)
}

// GetArrayOfTimestampWithTimezone reads a TIMESTAMP_WITH_TIMEZONE_ARRAY field; null is nil.
func (r *PortableRecord) GetArrayOfTimestampWithTimezone(name string) ([]*OffsetDateTime, error) {
	return positionedValues(r, name, KindArrayOfTimestampWithTimezone, readPortableTimestampTZ)
}

// Get reads any field as a Go value: the types of the typed getters, nil for
// null, *PortableRecord for nested objects.
func (r *PortableRecord) Get(name string) (any, error) {
	kind, _, err := r.locate(name)
	if err != nil {
		return nil, err
	}
	switch kind {
	case KindBoolean:
		return r.GetBoolean(name)
	case KindInt8:
		return r.GetInt8(name)
	case KindChar:
		return r.GetChar(name)
	case KindInt16:
		return r.GetInt16(name)
	case KindInt32:
		return r.GetInt32(name)
	case KindInt64:
		return r.GetInt64(name)
	case KindFloat32:
		return r.GetFloat32(name)
	case KindFloat64:
		return r.GetFloat64(name)
	case KindString:
		return derefOrNil(r.GetStringPtr(name))
	case KindDecimal:
		return derefOrNil(r.GetDecimal(name))
	case KindTime:
		return derefOrNil(r.GetTime(name))
	case KindDate:
		return derefOrNil(r.GetDate(name))
	case KindTimestamp:
		return derefOrNil(r.GetTimestamp(name))
	case KindTimestampWithTimezone:
		return derefOrNil(r.GetTimestampWithTimezone(name))
	case KindPortable:
		rec, err := r.GetPortable(name)
		if rec == nil {
			return nil, err
		}
		return rec, err
	case KindArrayOfPortable:
		return nilSlice(r.GetArrayOfPortable(name))
	case KindArrayOfBoolean:
		return nilSlice(r.GetArrayOfBoolean(name))
	case KindArrayOfInt8:
		return nilSlice(r.GetArrayOfInt8(name))
	case KindArrayOfChar:
		return nilSlice(r.GetArrayOfChar(name))
	case KindArrayOfInt16:
		return nilSlice(r.GetArrayOfInt16(name))
	case KindArrayOfInt32:
		return nilSlice(r.GetArrayOfInt32(name))
	case KindArrayOfInt64:
		return nilSlice(r.GetArrayOfInt64(name))
	case KindArrayOfFloat32:
		return nilSlice(r.GetArrayOfFloat32(name))
	case KindArrayOfFloat64:
		return nilSlice(r.GetArrayOfFloat64(name))
	case KindArrayOfString:
		return nilSlice(r.GetArrayOfStringPtr(name))
	case KindArrayOfDecimal:
		return nilSlice(r.GetArrayOfDecimal(name))
	case KindArrayOfTime:
		return nilSlice(r.GetArrayOfTime(name))
	case KindArrayOfDate:
		return nilSlice(r.GetArrayOfDate(name))
	case KindArrayOfTimestamp:
		return nilSlice(r.GetArrayOfTimestamp(name))
	case KindArrayOfTimestampWithTimezone:
		return nilSlice(r.GetArrayOfTimestampWithTimezone(name))
	}
	return nil, &FieldError{Field: name, Reason: "has unsupported kind " + kind.String()}
}

// writeFields rewrites the record's fields through w (used to nest a record
// at another position, since Portable positions are absolute).
func (r *PortableRecord) writeFields(w *PortableWriter) {
	cd := w.cd
	for _, f := range cd.Fields {
		v, err := r.Get(f.Name)
		if err != nil {
			w.fail(err)
			return
		}
		w.writeValue(f, v)
	}
}

// PortableRecordBuilder builds a Portable object for a class definition
// without a Go type: Hazelcast's GenericRecordBuilder.portable.
type PortableRecordBuilder struct {
	cd     *ClassDefinition
	values map[string]any
}

// NewPortableRecordBuilder starts a record of class cd.
func NewPortableRecordBuilder(cd *ClassDefinition) *PortableRecordBuilder {
	return &PortableRecordBuilder{cd: cd, values: map[string]any{}}
}

// Set sets a field. Values take the types PortableRecord.Get returns (or
// pointers to them, or nil for null); nested objects are *PortableRecord.
func (b *PortableRecordBuilder) Set(name string, value any) *PortableRecordBuilder {
	b.values[name] = value
	return b
}

// Build encodes the record as a complete Data and reads it back.
func (b *PortableRecordBuilder) Build() (*PortableRecord, error) {
	for name := range b.values {
		if _, _, ok := b.cd.Field(name); !ok {
			return nil, &FieldError{Field: name, Reason: fmt.Sprintf("is not in portable class definition %d/%d/%d", b.cd.FactoryID, b.cd.ClassID, b.cd.Version)}
		}
	}
	e := &encoder{}
	buf := wire.AppendInt32(nil, 0)
	buf = wire.AppendInt32(buf, TypePortable)
	buf = wire.AppendInt32(buf, b.cd.FactoryID)
	buf = wire.AppendInt32(buf, b.cd.ClassID)
	buf = wire.AppendInt32(buf, b.cd.Version)
	buf, err := e.writePortable(buf, b.cd, func(w *PortableWriter) {
		for _, f := range b.cd.Fields {
			w.writeValue(f, b.values[f.Name])
		}
	})
	if err != nil {
		return nil, err
	}
	classes := NewClassRegistry()
	if err := classes.Add(b.cd); err != nil {
		return nil, err
	}
	rec, err := ReadPortableRecord(buf, classes)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// writeValue writes field f from a generic value.
func (w *PortableWriter) writeValue(f PortableField, v any) {
	ok := true
	name := f.Name
	switch f.Kind {
	case KindBoolean:
		var x bool
		if x, ok = v.(bool); ok {
			w.WriteBoolean(name, x)
		}
	case KindInt8:
		var x int8
		if x, ok = v.(int8); ok {
			w.WriteInt8(name, x)
		}
	case KindChar:
		var x Char
		if x, ok = v.(Char); ok {
			w.WriteChar(name, x)
		}
	case KindInt16:
		var x int16
		if x, ok = v.(int16); ok {
			w.WriteInt16(name, x)
		}
	case KindInt32:
		var x int32
		if x, ok = v.(int32); ok {
			w.WriteInt32(name, x)
		}
	case KindInt64:
		var x int64
		if x, ok = v.(int64); ok {
			w.WriteInt64(name, x)
		}
	case KindFloat32:
		var x float32
		if x, ok = v.(float32); ok {
			w.WriteFloat32(name, x)
		}
	case KindFloat64:
		var x float64
		if x, ok = v.(float64); ok {
			w.WriteFloat64(name, x)
		}
	case KindString:
		var x *string
		if x, ok = asPtr[string](v); ok {
			w.WriteStringPtr(name, x)
		}
	case KindDecimal:
		var x *Decimal
		if x, ok = asPtr[Decimal](v); ok {
			w.WriteDecimal(name, x)
		}
	case KindTime:
		var x *LocalTime
		if x, ok = asPtr[LocalTime](v); ok {
			w.WriteTime(name, x)
		}
	case KindDate:
		var x *LocalDate
		if x, ok = asPtr[LocalDate](v); ok {
			w.WriteDate(name, x)
		}
	case KindTimestamp:
		var x *LocalDateTime
		if x, ok = asPtr[LocalDateTime](v); ok {
			w.WriteTimestamp(name, x)
		}
	case KindTimestampWithTimezone:
		var x *OffsetDateTime
		if x, ok = asPtr[OffsetDateTime](v); ok {
			w.WriteTimestampWithTimezone(name, x)
		}
	case KindPortable:
		if isNil(v) {
			w.WriteNullPortable(name, f.FactoryID, f.ClassID)
		} else {
			w.WritePortable(name, v)
		}
	case KindArrayOfPortable:
		switch x := v.(type) {
		case nil:
			WritePortableSlice[any](w, name, nil)
		case []*PortableRecord:
			WritePortableSlice(w, name, x)
		case []any:
			w.WritePortableArray(name, x)
		default:
			ok = false
		}
	case KindArrayOfBoolean:
		var x []bool
		if x, ok = asSlice[bool](v); ok {
			w.WriteBooleanArray(name, x)
		}
	case KindArrayOfInt8:
		switch x := v.(type) {
		case nil:
			w.WriteByteArray(name, nil)
		case []byte:
			w.WriteByteArray(name, x)
		case []int8:
			w.WriteByteArray(name, int8sToBytes(x))
		default:
			ok = false
		}
	case KindArrayOfChar:
		var x []Char
		if x, ok = asSlice[Char](v); ok {
			w.WriteCharArray(name, x)
		}
	case KindArrayOfInt16:
		var x []int16
		if x, ok = asSlice[int16](v); ok {
			w.WriteInt16Array(name, x)
		}
	case KindArrayOfInt32:
		var x []int32
		if x, ok = asSlice[int32](v); ok {
			w.WriteInt32Array(name, x)
		}
	case KindArrayOfInt64:
		var x []int64
		if x, ok = asSlice[int64](v); ok {
			w.WriteInt64Array(name, x)
		}
	case KindArrayOfFloat32:
		var x []float32
		if x, ok = asSlice[float32](v); ok {
			w.WriteFloat32Array(name, x)
		}
	case KindArrayOfFloat64:
		var x []float64
		if x, ok = asSlice[float64](v); ok {
			w.WriteFloat64Array(name, x)
		}
	case KindArrayOfString:
		var x []*string
		if x, ok = asPtrSlice[string](v); ok {
			w.WriteStringPtrArray(name, x)
		}
	case KindArrayOfDecimal:
		var x []Decimal
		if x, ok = derefSlice[Decimal](v); ok {
			w.WriteDecimalArray(name, x)
		}
	case KindArrayOfTime:
		var x []LocalTime
		if x, ok = derefSlice[LocalTime](v); ok {
			w.WriteTimeArray(name, x)
		}
	case KindArrayOfDate:
		var x []LocalDate
		if x, ok = derefSlice[LocalDate](v); ok {
			w.WriteDateArray(name, x)
		}
	case KindArrayOfTimestamp:
		var x []LocalDateTime
		if x, ok = derefSlice[LocalDateTime](v); ok {
			w.WriteTimestampArray(name, x)
		}
	case KindArrayOfTimestampWithTimezone:
		var x []OffsetDateTime
		if x, ok = derefSlice[OffsetDateTime](v); ok {
			w.WriteTimestampWithTimezoneArray(name, x)
		}
	default:
		ok = false
	}
	if !ok {
		w.fail(&FieldError{Field: name, Reason: fmt.Sprintf("a %T value cannot be written as %s", v, f.Kind)})
	}
}

// derefSlice accepts nil, []T or []*T without nil items.
func derefSlice[T any](v any) ([]T, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []T:
		return x, true
	case []*T:
		out := make([]T, len(x))
		for i, p := range x {
			if p == nil {
				return nil, false
			}
			out[i] = *p
		}
		return out, true
	}
	return nil, false
}

func int8sToBytes(v []int8) []byte {
	if v == nil {
		return nil
	}
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

// PortableReader reads the fields of one Portable object for ReadPortable.
// A field the writer's class version lacks reads as the zero value; use
// FieldKind to tell. Other errors are sticky.
type PortableReader struct {
	rec PortableRecord
	dec *decoder
	err error
}

// Err returns the first error the reader met.
func (r *PortableReader) Err() error { return r.err }

// Version returns the class version the object was written with.
func (r *PortableReader) Version() int32 { return r.rec.version }

// FieldKind returns the kind of the named field, or KindNotAvailable.
func (r *PortableReader) FieldKind(name string) FieldKind { return r.rec.FieldKind(name) }

// Record returns the in-place view of the object being read.
func (r *PortableReader) Record() *PortableRecord { return &r.rec }

func (r *PortableReader) note(err error) {
	if err == nil || r.err != nil {
		return
	}
	if fe, ok := err.(*FieldError); ok && fe.absent {
		return
	}
	r.err = err
}

// ReadPortable reads a nested PORTABLE field: a value made by the registered
// factory, or a *PortableRecord; null is nil.
func (r *PortableReader) ReadPortable(name string) any {
	rec, err := r.rec.GetPortable(name)
	r.note(err)
	if rec == nil || r.err != nil {
		return nil
	}
	v, err := r.dec.portableObject(*rec)
	r.note(err)
	return v
}

// ReadPortableArray reads a PORTABLE_ARRAY field; null is nil.
func (r *PortableReader) ReadPortableArray(name string) []any {
	recs, err := r.rec.GetArrayOfPortable(name)
	r.note(err)
	if recs == nil || r.err != nil {
		return nil
	}
	out := make([]any, len(recs))
	for i, rec := range recs {
		v, err := r.dec.portableObject(*rec)
		if err != nil {
			r.note(err)
			return nil
		}
		out[i] = v
	}
	return out
}

// ReadPortableSlice reads a PORTABLE_ARRAY field into a typed slice.
func ReadPortableSlice[T any](r *PortableReader, name string) []T {
	items := r.ReadPortableArray(name)
	if items == nil {
		return nil
	}
	out := make([]T, len(items))
	for i, it := range items {
		v, ok := it.(T)
		if !ok {
			r.note(&FieldError{Field: name, Reason: fmt.Sprintf("item %d is %T, not %T", i, it, v)})
			return nil
		}
		out[i] = v
	}
	return out
}

// Decoder side of Portable.

// readPortable reads factory, class and version and the object at rd.
func (d *decoder) readPortable(rd *wire.Reader) (any, error) {
	at := rd.Pos()
	fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
	if rd.Err() != nil {
		return nil, malformed("portable", at, "truncated class identity")
	}
	rec, end, err := parsePortable(d.buf, rd.Pos(), len(d.buf), fid, cid, ver, d.svc.classes)
	if err != nil {
		return nil, err
	}
	rd.Seek(end)
	return d.portableObject(rec)
}

// portableObject turns a record into a value of its factory's type, if any.
func (d *decoder) portableObject(rec PortableRecord) (any, error) {
	f, ok := d.svc.portableFactories[rec.factoryID]
	if !ok {
		return &rec, nil
	}
	p := f.Create(rec.classID)
	if p == nil {
		return nil, &ClassNotFoundError{Format: "portable", FactoryID: rec.factoryID, ClassID: rec.classID, Version: rec.version, Reason: "the factory does not know the class id"}
	}
	if d.depth >= maxDepth {
		return nil, malformed("portable", rec.body, "objects nest deeper than "+strconv.Itoa(maxDepth)+" levels")
	}
	// Positions can point several fields at the same nested object; bound
	// the total decoded as CompactReader.enterNested does.
	if d.nested += len(rec.buf) - rec.body; d.nested > maxDepth*len(d.buf) {
		return nil, malformed("portable", rec.body, "nested objects overlap: decoding them would read more than "+strconv.Itoa(maxDepth)+" times the data")
	}
	d.depth++
	r := PortableReader{rec: rec, dec: d}
	p.ReadPortable(&r)
	d.depth--
	if r.err != nil {
		return nil, r.err
	}
	return p, nil
}
