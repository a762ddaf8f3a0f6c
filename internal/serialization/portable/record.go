package portable

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// Record reads the fields of one Portable object in place, through
// the field position table, without decoding the rest. Fields are found by
// name, so data written with another version of the class reads correctly;
// the binary is self-describing and no class definition is required.
//
// A Record aliases the Data it was read from (positions in Portable
// are absolute in the Data): the bytes must not change while it is in use.
type Record struct {
	buf       []byte // the Data, cut at the end of this object
	body      int    // index of the object's end-position word
	count     int    // field count
	factoryID int32
	classID   int32
	version   int32
	cd        *ClassDefinition // the writer's class definition, when known
	classes   *ClassRegistry
	// hint follows the fields a Reader reads through the class's learned
	// read order (nil: names are looked up); arena, when set, holds the
	// strings and arrays of numbers read (a Decoder's: those of one object,
	// or of a page, share an allocation).
	hint  *core.ReadHint
	arena *core.Arena
}

// ReadRecord reads the Portable object of a Data of type -1. Class
// definitions in classes speed up field lookups but are not required.
func ReadRecord(d core.Data, classes *ClassRegistry) (Record, error) {
	if err := d.Check(); err != nil {
		return Record{}, err
	}
	if d.Type() != core.TypePortable {
		return Record{}, &core.DecodeError{Format: "portable", Offset: 4, Reason: "type id " + strconv.Itoa(int(d.Type())) + " is not the portable type"}
	}
	rd := wire.NewReader(d, core.HeaderSize)
	fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
	if rd.Err() != nil {
		return Record{}, core.Malformed("portable", core.HeaderSize, "truncated class identity")
	}
	rec, _, err := Parse(d, rd.Pos(), len(d), fid, cid, ver, classes)
	return rec, err
}

// Parse reads an object body at b[p] that must end by b[limit].
func Parse(b []byte, p, limit int, fid, cid, ver int32, classes *ClassRegistry) (Record, int, error) {
	end, ok1 := wire.Int32At(b[:limit], p)
	count, ok2 := wire.Int32At(b[:limit], p+4)
	if !ok1 || !ok2 {
		return Record{}, 0, core.Malformed("portable", p, "truncated object header")
	}
	tableEnd := int64(p) + 8 + 4*(int64(count)+1)
	if count < 0 || tableEnd > int64(end) || int(end) > limit {
		return Record{}, 0, core.Malformed("portable", p, "field count or end position out of range")
	}
	rec := Record{buf: b[:end:end], body: p, count: int(count), factoryID: fid, classID: cid, version: ver, classes: classes}
	if classes != nil {
		if cd, ok := classes.Get(fid, cid, ver); ok && len(cd.Fields) == rec.count {
			rec.cd = cd
		}
	}
	return rec, int(end), nil
}

// FactoryID returns the factory id of the object's class.
func (r *Record) FactoryID() int32 { return r.factoryID }

// ClassID returns the class id of the object's class.
func (r *Record) ClassID() int32 { return r.classID }

// Version returns the class version the object was written with.
func (r *Record) Version() int32 { return r.version }

// fieldAt returns the position of the entry of field i.
func (r *Record) fieldAt(i int) int {
	v, _ := wire.Int32At(r.buf, r.body+8+4*i)
	return int(v)
}

// entry reads the entry header at pos: the name and the kind; value is the
// position of the value.
func (r *Record) entry(pos int) (name []byte, kind core.FieldKind, value int, err error) {
	if pos < r.body+8+4*(r.count+1) || pos >= len(r.buf) {
		return nil, 0, 0, core.Malformed("portable", pos, "field position outside the object")
	}
	rd := wire.NewReader(r.buf, pos)
	n := int(rd.Uint16())
	name = rd.Bytes(n)
	t := rd.Int8()
	if rd.Err() != nil {
		return nil, 0, 0, core.Malformed("portable", pos, "truncated field entry")
	}
	kind, ok := KindOf(int32(t))
	if !ok {
		return nil, 0, 0, core.Malformed("portable", pos, "unknown field type "+strconv.Itoa(int(t)))
	}
	return name, kind, rd.Pos(), nil
}

// entryNamed reads the entry at pos when it is the named field's, as entry
// does, without a reader: the hinted field of a lookup usually is.
func (r *Record) entryNamed(pos int, name string) (kind core.FieldKind, value int, ok bool) {
	value = pos + 3 + len(name)
	if pos < r.body+8+4*(r.count+1) || value > len(r.buf) ||
		int(binary.BigEndian.Uint16(r.buf[pos:])) != len(name) || string(r.buf[pos+2:value-1]) != name {
		return 0, 0, false
	}
	kind, ok = KindOf(int32(int8(r.buf[value-1])))
	return kind, value, ok
}

// locate finds a field by name and returns its kind and value position.
func (r *Record) locate(name string) (core.FieldKind, int, error) {
	if r.buf == nil {
		return 0, 0, &core.FieldError{Field: name, Reason: "read from an empty record"}
	}
	hint := -1
	if r.cd != nil {
		if i, ok := r.hint.Next(name); ok {
			hint = int(i)
		} else if i, ok := r.cd.byName[name]; ok {
			hint = int(i)
			r.hint.Learn(name, i)
		}
	}
	k, v, i, err := r.find(name, hint)
	if err == nil && i < 0 {
		err = core.AbsentField(name, fmt.Sprintf("is not in portable %d/%d version %d", r.factoryID, r.classID, r.version))
	}
	return k, v, err
}

// find returns the kind, value position and index in the field table of
// the named field, looking at index hint first (the index of the class
// definition, or the one a compiled reader found before); index -1 means
// the object has no such field.
func (r *Record) find(name string, hint int) (kind core.FieldKind, pos, index int, err error) {
	if hint >= 0 && hint < r.count {
		if k, v, ok := r.entryNamed(r.fieldAt(hint), name); ok {
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
func (r *Record) FieldKind(name string) core.FieldKind {
	k, _, err := r.locate(name)
	if err != nil {
		return core.KindNotAvailable
	}
	return k
}

// HasField reports whether the object has the named field.
func (r *Record) HasField(name string) bool {
	return r.FieldKind(name) != core.KindNotAvailable
}

// ClassDefinition returns the writer's class definition: the registered one,
// or one rebuilt from the self-describing binary.
func (r *Record) ClassDefinition() (*ClassDefinition, error) {
	if r.cd != nil {
		return r.cd, nil
	}
	fields := make([]Field, r.count)
	for i := range fields {
		n, k, v, err := r.entry(r.fieldAt(i))
		if err != nil {
			return nil, err
		}
		fields[i] = Field{Name: string(n), Kind: k}
		if k == core.KindPortable || k == core.KindArrayOfPortable {
			rd := wire.NewReader(r.buf, v)
			if k == core.KindPortable {
				rd.Bool()
			} else {
				rd.Int32()
			}
			fields[i].FactoryID, fields[i].ClassID = rd.Int32(), rd.Int32()
			if rd.Err() != nil {
				return nil, core.Malformed("portable", v, "truncated nested class identity")
			}
			fields[i].Version = r.version
		}
	}
	cd, err := NewClassDefinition(r.factoryID, r.classID, r.version, fields)
	if err != nil {
		return nil, &core.DecodeError{Format: "portable", Offset: r.body, Reason: "fields do not form a valid class definition", Err: err}
	}
	r.cd = cd
	return cd, nil
}

// at returns the position of the value of the named field, of kind k.
func (r *Record) at(name string, k core.FieldKind) (int, error) {
	kind, pos, err := r.locate(name)
	if err != nil {
		return 0, err
	}
	if kind != k {
		return 0, &core.FieldError{Field: name, Reason: "has kind " + kind.String() + ", not " + k.String()}
	}
	return pos, nil
}

// fixed returns the n bytes of the value of the named field, of the
// fixed-size kind k, without a reader.
func (r *Record) fixed(name string, k core.FieldKind, n int) ([]byte, error) {
	pos, err := r.at(name, k)
	if err != nil {
		return nil, err
	}
	if pos > len(r.buf)-n {
		return nil, truncated(name, pos, wire.ErrShort)
	}
	return r.buf[pos : pos+n], nil
}

// truncated is the error of a value at pos that does not fit or has an
// invalid length.
func truncated(name string, pos int, err error) error {
	return &core.DecodeError{Format: "portable", Offset: pos, Reason: "field " + strconv.Quote(name) + " is truncated or has an invalid length", Err: err}
}

func fieldErr(rd *wire.Reader, name string) error {
	if rd.Err() == nil {
		return nil
	}
	return truncated(name, rd.Pos(), rd.Err())
}

// GetBoolean reads a BOOLEAN field.
func (r *Record) GetBoolean(name string) (bool, error) {
	b, err := r.fixed(name, core.KindBoolean, 1)
	if err != nil {
		return false, err
	}
	return b[0] != 0, nil
}

// GetInt8 reads a BYTE field.
func (r *Record) GetInt8(name string) (int8, error) {
	b, err := r.fixed(name, core.KindInt8, 1)
	if err != nil {
		return 0, err
	}
	return int8(b[0]), nil
}

// GetChar reads a CHAR field.
func (r *Record) GetChar(name string) (core.Char, error) {
	b, err := r.fixed(name, core.KindChar, 2)
	if err != nil {
		return 0, err
	}
	return core.Char(binary.BigEndian.Uint16(b)), nil
}

// GetInt16 reads a SHORT field.
func (r *Record) GetInt16(name string) (int16, error) {
	b, err := r.fixed(name, core.KindInt16, 2)
	if err != nil {
		return 0, err
	}
	return int16(binary.BigEndian.Uint16(b)), nil
}

// GetInt32 reads a INT field.
func (r *Record) GetInt32(name string) (int32, error) {
	b, err := r.fixed(name, core.KindInt32, 4)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// GetInt64 reads a LONG field.
func (r *Record) GetInt64(name string) (int64, error) {
	b, err := r.fixed(name, core.KindInt64, 8)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// GetFloat32 reads a FLOAT field.
func (r *Record) GetFloat32(name string) (float32, error) {
	b, err := r.fixed(name, core.KindFloat32, 4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
}

// GetFloat64 reads a DOUBLE field.
func (r *Record) GetFloat64(name string) (float64, error) {
	b, err := r.fixed(name, core.KindFloat64, 8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
}

// GetStringBytes returns a view of a UTF field's bytes; null reports ok=false.
func (r *Record) GetStringBytes(name string) (b []byte, ok bool, err error) {
	pos, err := r.at(name, core.KindString)
	if err != nil {
		return nil, false, err
	}
	b, null, err := wire.StringBytesAt(r.buf, pos)
	if err != nil {
		return nil, false, truncated(name, pos, err)
	}
	return b, !null, nil
}

// GetString reads a UTF field; null reads as "".
func (r *Record) GetString(name string) (string, error) {
	b, _, err := r.GetStringBytes(name)
	return r.arena.String(b), err
}

// GetStringPtr reads a UTF field; null is nil.
func (r *Record) GetStringPtr(name string) (*string, error) {
	b, ok, err := r.GetStringBytes(name)
	if err != nil || !ok {
		return nil, err
	}
	s := r.arena.String(b)
	return &s, nil
}

// nullableValue reads the isNull flag of DECIMAL/TIME/DATE/TIMESTAMP fields.
func nullableValue[T any](r *Record, name string, k core.FieldKind, read func(*wire.Reader) T) (*T, error) {
	pos, err := r.at(name, k)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	if rd.Bool() {
		return nil, fieldErr(&rd, name)
	}
	v := read(&rd)
	if err := fieldErr(&rd, name); err != nil {
		return nil, err
	}
	return &v, nil
}

func readPortableDate(rd *wire.Reader) core.LocalDate { return core.ReadDate(rd, true) }

func readPortableTimestamp(rd *wire.Reader) core.LocalDateTime {
	return core.ReadTimestamp(rd, true)
}

func readPortableTimestampTZ(rd *wire.Reader) core.OffsetDateTime {
	return core.ReadTimestampTZ(rd, true)
}

// GetDecimal reads a DECIMAL field; null is nil.
func (r *Record) GetDecimal(name string) (*core.Decimal, error) {
	return nullableValue(r, name, core.KindDecimal, core.ReadDecimal)
}

// GetTime reads a TIME field; null is nil.
func (r *Record) GetTime(name string) (*core.LocalTime, error) {
	return nullableValue(r, name, core.KindTime, core.ReadTime)
}

// GetDate reads a DATE field; null is nil.
func (r *Record) GetDate(name string) (*core.LocalDate, error) {
	return nullableValue(r, name, core.KindDate, readPortableDate)
}

// GetTimestamp reads a TIMESTAMP field; null is nil.
func (r *Record) GetTimestamp(name string) (*core.LocalDateTime, error) {
	return nullableValue(r, name, core.KindTimestamp, readPortableTimestamp)
}

// GetTimestampWithTimezone reads a TIMESTAMP_WITH_TIMEZONE field; null is nil.
func (r *Record) GetTimestampWithTimezone(name string) (*core.OffsetDateTime, error) {
	return nullableValue(r, name, core.KindTimestampWithTimezone, readPortableTimestampTZ)
}

// GetPortable reads a nested PORTABLE field as a record; null is nil.
func (r *Record) GetPortable(name string) (*Record, error) {
	rec, ok, err := r.nested(name)
	if !ok {
		return nil, err
	}
	return &rec, nil
}

// nested reads a nested PORTABLE field as a record; ok is false for null
// and after an error.
func (r *Record) nested(name string) (rec Record, ok bool, err error) {
	pos, err := r.at(name, core.KindPortable)
	if err != nil {
		return Record{}, false, err
	}
	rd := wire.NewReader(r.buf, pos)
	null := rd.Bool()
	fid, cid := rd.Int32(), rd.Int32()
	if err := fieldErr(&rd, name); err != nil || null {
		return Record{}, false, err
	}
	ver := rd.Int32()
	if err := fieldErr(&rd, name); err != nil {
		return Record{}, false, err
	}
	rec, _, err = Parse(r.buf, rd.Pos(), len(r.buf), fid, cid, ver, r.classes)
	return rec, err == nil, err
}

// arrayHeader reads a PORTABLE_ARRAY's count (-1: null) and its items'
// factory and class.
func (r *Record) arrayHeader(rd *wire.Reader, name string) (n int, fid, cid int32, err error) {
	n = rd.Length(4, true)
	fid, cid = rd.Int32(), rd.Int32()
	if err := fieldErr(rd, name); err != nil || n < 0 {
		return -1, 0, 0, err
	}
	if int64(n)*4 > int64(rd.Len()) {
		return -1, 0, 0, core.Malformed("portable", rd.Pos(), "portable array "+strconv.Quote(name)+" is longer than the data")
	}
	return n, fid, cid, nil
}

// arrayItem reads the next item position of a PORTABLE_ARRAY at rd and
// the record there.
func (r *Record) arrayItem(rd *wire.Reader, fid, cid int32) (Record, error) {
	pos := int(rd.Int32())
	item := wire.NewReader(r.buf, pos)
	ver := item.Int32()
	if pos <= r.body || item.Err() != nil {
		return Record{}, core.Malformed("portable", pos, "portable array item position out of range")
	}
	rec, _, err := Parse(r.buf, item.Pos(), len(r.buf), fid, cid, ver, r.classes)
	return rec, err
}

// GetArrayOfPortable reads a PORTABLE_ARRAY field as records; null is nil.
func (r *Record) GetArrayOfPortable(name string) ([]*Record, error) {
	pos, err := r.at(name, core.KindArrayOfPortable)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	n, fid, cid, err := r.arrayHeader(&rd, name)
	if err != nil || n < 0 {
		return nil, err
	}
	out := make([]*Record, n)
	for i := range out {
		rec, err := r.arrayItem(&rd, fid, cid)
		if err != nil {
			return nil, err
		}
		out[i] = &rec
	}
	return out, nil
}

// arrayValue reads a nullable primitive array of kind k: int length (-1 =
// null) + items.
func arrayValue[T any](r *Record, name string, k core.FieldKind, size int, read func(*wire.Reader) T) ([]T, error) {
	pos, err := r.at(name, k)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	v := core.ReadSlice(&rd, size, read)
	return v, fieldErr(&rd, name)
}

// numberArray reads a nullable array of numbers of kind k in one pass.
func numberArray[T wire.Number](r *Record, name string, k core.FieldKind) ([]T, error) {
	pos, err := r.at(name, k)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	v := core.ReadNumbers[T](&rd, r.arena)
	return v, fieldErr(&rd, name)
}

// byteItems reads a nullable array of one-byte items of kind k: its
// length (-1 = null) and a view of its bytes; ok is false for null and
// after an error.
func (r *Record) byteItems(name string, k core.FieldKind) (b []byte, ok bool, err error) {
	pos, err := r.at(name, k)
	if err != nil {
		return nil, false, err
	}
	rd := wire.NewReader(r.buf, pos)
	n := rd.Length(1, true)
	if n >= 0 {
		b = rd.Bytes(n)
	}
	if err := fieldErr(&rd, name); err != nil {
		return nil, false, err
	}
	return b, n >= 0, nil
}

// GetArrayOfBoolean reads a BOOLEAN_ARRAY field; null is nil.
func (r *Record) GetArrayOfBoolean(name string) ([]bool, error) {
	b, ok, err := r.byteItems(name, core.KindArrayOfBoolean)
	if !ok {
		return nil, err
	}
	out := core.Bools(r.arena, len(b))
	for i, v := range b {
		out[i] = v != 0
	}
	return out, nil
}

// GetArrayOfInt8 reads a BYTE_ARRAY field; null is nil.
func (r *Record) GetArrayOfInt8(name string) ([]int8, error) {
	b, ok, err := r.byteItems(name, core.KindArrayOfInt8)
	if !ok {
		return nil, err
	}
	out := core.Int8s(r.arena, len(b))
	for i, v := range b {
		out[i] = int8(v)
	}
	return out, nil
}

// GetByteArray reads a BYTE_ARRAY field as bytes; null is nil.
func (r *Record) GetByteArray(name string) ([]byte, error) {
	b, ok, err := r.byteItems(name, core.KindArrayOfInt8)
	if !ok {
		return nil, err
	}
	return append(core.Bytes(r.arena, len(b))[:0], b...), nil
}

// GetArrayOfChar reads a CHAR_ARRAY field; null is nil.
func (r *Record) GetArrayOfChar(name string) ([]core.Char, error) {
	return arrayValue(r, name, core.KindArrayOfChar, 2, func(rd *wire.Reader) core.Char { return core.Char(rd.Uint16()) })
}

// GetArrayOfInt16 reads a SHORT_ARRAY field; null is nil.
func (r *Record) GetArrayOfInt16(name string) ([]int16, error) {
	return numberArray[int16](r, name, core.KindArrayOfInt16)
}

// GetArrayOfInt32 reads an INT_ARRAY field; null is nil.
func (r *Record) GetArrayOfInt32(name string) ([]int32, error) {
	return numberArray[int32](r, name, core.KindArrayOfInt32)
}

// GetArrayOfInt64 reads a LONG_ARRAY field; null is nil.
func (r *Record) GetArrayOfInt64(name string) ([]int64, error) {
	return numberArray[int64](r, name, core.KindArrayOfInt64)
}

// GetArrayOfFloat32 reads a FLOAT_ARRAY field; null is nil.
func (r *Record) GetArrayOfFloat32(name string) ([]float32, error) {
	return numberArray[float32](r, name, core.KindArrayOfFloat32)
}

// GetArrayOfFloat64 reads a DOUBLE_ARRAY field; null is nil.
func (r *Record) GetArrayOfFloat64(name string) ([]float64, error) {
	return numberArray[float64](r, name, core.KindArrayOfFloat64)
}

// GetArrayOfStringPtr reads a UTF_ARRAY field; null items are nil.
func (r *Record) GetArrayOfStringPtr(name string) ([]*string, error) {
	pos, err := r.at(name, core.KindArrayOfString)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	v := core.ReadStringPtrs(&rd)
	return v, fieldErr(&rd, name)
}

// GetArrayOfString reads a UTF_ARRAY field; null items read as "".
func (r *Record) GetArrayOfString(name string) ([]string, error) {
	pos, err := r.at(name, core.KindArrayOfString)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	n := rd.Length(4, true)
	if n < 0 || rd.Err() != nil {
		return nil, fieldErr(&rd, name)
	}
	out := make([]string, n)
	for i := range out {
		b, _ := rd.StringBytes()
		out[i] = r.arena.String(b)
	}
	if err := fieldErr(&rd, name); err != nil {
		return nil, err
	}
	return out, nil
}

// positionedValues reads int length (-1 = null), item positions, and items.
func positionedValues[T any](r *Record, name string, k core.FieldKind, read func(*wire.Reader) T) ([]*T, error) {
	pos, err := r.at(name, k)
	if err != nil {
		return nil, err
	}
	rd := wire.NewReader(r.buf, pos)
	n := rd.Length(4, true)
	if err := fieldErr(&rd, name); err != nil || n < 0 {
		return nil, err
	}
	out := make([]*T, n)
	for i := range out {
		item := wire.NewReader(r.buf, int(rd.Int32()))
		if item.Pos() <= r.body {
			item.Fail(wire.ErrLength)
		}
		v := read(&item)
		if err := fieldErr(&item, name); err != nil {
			return nil, err
		}
		out[i] = &v
	}
	return out, fieldErr(&rd, name)
}

// GetArrayOfDecimal reads a DECIMAL_ARRAY field; null is nil.
func (r *Record) GetArrayOfDecimal(name string) ([]*core.Decimal, error) {
	return positionedValues(r, name, core.KindArrayOfDecimal, core.ReadDecimal)
}

// GetArrayOfTime reads a TIME_ARRAY field; null is nil.
func (r *Record) GetArrayOfTime(name string) ([]*core.LocalTime, error) {
	return positionedValues(r, name, core.KindArrayOfTime, core.ReadTime)
}

// GetArrayOfDate reads a DATE_ARRAY field; null is nil.
func (r *Record) GetArrayOfDate(name string) ([]*core.LocalDate, error) {
	return positionedValues(r, name, core.KindArrayOfDate, readPortableDate)
}

// GetArrayOfTimestamp reads a TIMESTAMP_ARRAY field; null is nil.
func (r *Record) GetArrayOfTimestamp(name string) ([]*core.LocalDateTime, error) {
	return positionedValues(r, name, core.KindArrayOfTimestamp, readPortableTimestamp)
}

// GetArrayOfTimestampWithTimezone reads a TIMESTAMP_WITH_TIMEZONE_ARRAY field; null is nil.
func (r *Record) GetArrayOfTimestampWithTimezone(name string) ([]*core.OffsetDateTime, error) {
	return positionedValues(r, name, core.KindArrayOfTimestampWithTimezone, readPortableTimestampTZ)
}

// Get reads any field as a Go value: the types of the typed getters, nil for
// null, *Record for nested objects.
func (r *Record) Get(name string) (any, error) {
	kind, _, err := r.locate(name)
	if err != nil {
		return nil, err
	}
	switch kind {
	case core.KindBoolean:
		return r.GetBoolean(name)
	case core.KindInt8:
		return r.GetInt8(name)
	case core.KindChar:
		return r.GetChar(name)
	case core.KindInt16:
		return r.GetInt16(name)
	case core.KindInt32:
		return r.GetInt32(name)
	case core.KindInt64:
		return r.GetInt64(name)
	case core.KindFloat32:
		return r.GetFloat32(name)
	case core.KindFloat64:
		return r.GetFloat64(name)
	case core.KindString:
		return core.DerefOrNil(r.GetStringPtr(name))
	case core.KindDecimal:
		return core.DerefOrNil(r.GetDecimal(name))
	case core.KindTime:
		return core.DerefOrNil(r.GetTime(name))
	case core.KindDate:
		return core.DerefOrNil(r.GetDate(name))
	case core.KindTimestamp:
		return core.DerefOrNil(r.GetTimestamp(name))
	case core.KindTimestampWithTimezone:
		return core.DerefOrNil(r.GetTimestampWithTimezone(name))
	case core.KindPortable:
		rec, err := r.GetPortable(name)
		if rec == nil {
			return nil, err
		}
		return rec, err
	case core.KindArrayOfPortable:
		return core.NilSlice(r.GetArrayOfPortable(name))
	case core.KindArrayOfBoolean:
		return core.NilSlice(r.GetArrayOfBoolean(name))
	case core.KindArrayOfInt8:
		return core.NilSlice(r.GetArrayOfInt8(name))
	case core.KindArrayOfChar:
		return core.NilSlice(r.GetArrayOfChar(name))
	case core.KindArrayOfInt16:
		return core.NilSlice(r.GetArrayOfInt16(name))
	case core.KindArrayOfInt32:
		return core.NilSlice(r.GetArrayOfInt32(name))
	case core.KindArrayOfInt64:
		return core.NilSlice(r.GetArrayOfInt64(name))
	case core.KindArrayOfFloat32:
		return core.NilSlice(r.GetArrayOfFloat32(name))
	case core.KindArrayOfFloat64:
		return core.NilSlice(r.GetArrayOfFloat64(name))
	case core.KindArrayOfString:
		return core.NilSlice(r.GetArrayOfStringPtr(name))
	case core.KindArrayOfDecimal:
		return core.NilSlice(r.GetArrayOfDecimal(name))
	case core.KindArrayOfTime:
		return core.NilSlice(r.GetArrayOfTime(name))
	case core.KindArrayOfDate:
		return core.NilSlice(r.GetArrayOfDate(name))
	case core.KindArrayOfTimestamp:
		return core.NilSlice(r.GetArrayOfTimestamp(name))
	case core.KindArrayOfTimestampWithTimezone:
		return core.NilSlice(r.GetArrayOfTimestampWithTimezone(name))
	}
	return nil, &core.FieldError{Field: name, Reason: "has unsupported kind " + kind.String()}
}

// writeFields rewrites the record's fields through w (used to nest a record
// at another position, since Portable positions are absolute).
func (r *Record) writeFields(w *Writer) {
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

// RecordBuilder builds a Portable object for a class definition
// without a Go type: Hazelcast's GenericRecordBuilder.portable.
type RecordBuilder struct {
	cd     *ClassDefinition
	values map[string]any
}

// NewRecordBuilder starts a record of class cd.
func NewRecordBuilder(cd *ClassDefinition) *RecordBuilder {
	return &RecordBuilder{cd: cd, values: map[string]any{}}
}

// Set sets a field. Values take the types Record.Get returns (or
// pointers to them, or nil for null); nested objects are *Record.
func (b *RecordBuilder) Set(name string, value any) *RecordBuilder {
	b.values[name] = value
	return b
}

// Build encodes the record as a complete Data and reads it back.
func (b *RecordBuilder) Build() (*Record, error) {
	for name := range b.values {
		if _, _, ok := b.cd.Field(name); !ok {
			return nil, &core.FieldError{Field: name, Reason: fmt.Sprintf("is not in portable class definition %d/%d/%d", b.cd.FactoryID, b.cd.ClassID, b.cd.Version)}
		}
	}
	e := &Encoder{Encoding: &core.Encoding{}}
	buf := wire.AppendInt32(nil, 0)
	buf = wire.AppendInt32(buf, core.TypePortable)
	buf = wire.AppendInt32(buf, b.cd.FactoryID)
	buf = wire.AppendInt32(buf, b.cd.ClassID)
	buf = wire.AppendInt32(buf, b.cd.Version)
	buf, err := e.write(buf, b.cd, func(w *Writer) {
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
	rec, err := ReadRecord(buf, classes)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// writeValue writes field f from a generic value (see RecordBuilder.Set).
func (w *Writer) writeValue(f Field, v any) {
	if !core.WriteValue(valueField{w, f}, f.Kind, v) {
		w.fail(&core.FieldError{Field: f.Name, Reason: fmt.Sprintf("a %T value cannot be written as %s", v, f.Kind)})
	}
}

// valueField is a field of a Writer as the value switch writes
// it.
type valueField struct {
	w *Writer
	f Field
}

var _ core.ValueWriter = valueField{}

func (f valueField) refuse(k core.FieldKind) {
	f.w.fail(&core.FieldError{Field: f.f.Name, Reason: "kind " + k.String() + " is not a Portable kind"})
}

// deref writes the items of a Portable array of decimal or temporal values,
// which cannot hold nulls.
func deref[T any](f valueField, v []*T, write func(string, []T)) {
	if v == nil {
		write(f.f.Name, nil)
		return
	}
	items, ok := core.DerefSlice[T](v)
	if !ok {
		f.w.fail(&core.FieldError{Field: f.f.Name, Reason: "a " + f.f.Kind.String() + " field cannot hold null items"})
		return
	}
	write(f.f.Name, items)
}

func (f valueField) Boolean(v bool) { f.w.WriteBoolean(f.f.Name, v) }

func (f valueField) Int8(v int8) { f.w.WriteInt8(f.f.Name, v) }

func (f valueField) Char(v core.Char) { f.w.WriteChar(f.f.Name, v) }

func (f valueField) Int16(v int16) { f.w.WriteInt16(f.f.Name, v) }

func (f valueField) Int32(v int32) { f.w.WriteInt32(f.f.Name, v) }

func (f valueField) Int64(v int64) { f.w.WriteInt64(f.f.Name, v) }

func (f valueField) Float32(v float32) { f.w.WriteFloat32(f.f.Name, v) }

func (f valueField) Float64(v float64) { f.w.WriteFloat64(f.f.Name, v) }

func (f valueField) String(v *string) { f.w.WriteStringPtr(f.f.Name, v) }

func (f valueField) Decimal(v *core.Decimal) { f.w.WriteDecimal(f.f.Name, v) }

func (f valueField) Time(v *core.LocalTime) { f.w.WriteTime(f.f.Name, v) }

func (f valueField) Date(v *core.LocalDate) { f.w.WriteDate(f.f.Name, v) }

func (f valueField) Timestamp(v *core.LocalDateTime) { f.w.WriteTimestamp(f.f.Name, v) }

func (f valueField) TimestampTZ(v *core.OffsetDateTime) {
	f.w.WriteTimestampWithTimezone(f.f.Name, v)
}

func (f valueField) NullableBoolean(*bool) { f.refuse(core.KindNullableBoolean) }

func (f valueField) NullableInt8(*int8) { f.refuse(core.KindNullableInt8) }

func (f valueField) NullableInt16(*int16) { f.refuse(core.KindNullableInt16) }

func (f valueField) NullableInt32(*int32) { f.refuse(core.KindNullableInt32) }

func (f valueField) NullableInt64(*int64) { f.refuse(core.KindNullableInt64) }

func (f valueField) NullableFloat32(*float32) { f.refuse(core.KindNullableFloat32) }

func (f valueField) NullableFloat64(*float64) { f.refuse(core.KindNullableFloat64) }

func (f valueField) Booleans(v []bool) { f.w.WriteBooleanArray(f.f.Name, v) }

func (f valueField) Int8s(v []int8) { f.w.WriteByteArray(f.f.Name, core.Int8sToBytes(v)) }

func (f valueField) Bytes(v []byte) { f.w.WriteByteArray(f.f.Name, v) }

func (f valueField) Chars(v []core.Char) { f.w.WriteCharArray(f.f.Name, v) }

func (f valueField) Int16s(v []int16) { f.w.WriteInt16Array(f.f.Name, v) }

func (f valueField) Int32s(v []int32) { f.w.WriteInt32Array(f.f.Name, v) }

func (f valueField) Int64s(v []int64) { f.w.WriteInt64Array(f.f.Name, v) }

func (f valueField) Float32s(v []float32) { f.w.WriteFloat32Array(f.f.Name, v) }

func (f valueField) Float64s(v []float64) { f.w.WriteFloat64Array(f.f.Name, v) }

func (f valueField) Strings(v []*string) { f.w.WriteStringPtrArray(f.f.Name, v) }

func (f valueField) Decimals(v []*core.Decimal) { deref(f, v, f.w.WriteDecimalArray) }

func (f valueField) Times(v []*core.LocalTime) { deref(f, v, f.w.WriteTimeArray) }

func (f valueField) Dates(v []*core.LocalDate) { deref(f, v, f.w.WriteDateArray) }

func (f valueField) Timestamps(v []*core.LocalDateTime) { deref(f, v, f.w.WriteTimestampArray) }

func (f valueField) TimestampTZs(v []*core.OffsetDateTime) {
	deref(f, v, f.w.WriteTimestampWithTimezoneArray)
}

func (f valueField) NullableBooleans([]*bool) { f.refuse(core.KindArrayOfNullableBoolean) }

func (f valueField) NullableInt8s([]*int8) { f.refuse(core.KindArrayOfNullableInt8) }

func (f valueField) NullableInt16s([]*int16) { f.refuse(core.KindArrayOfNullableInt16) }

func (f valueField) NullableInt32s([]*int32) { f.refuse(core.KindArrayOfNullableInt32) }

func (f valueField) NullableInt64s([]*int64) { f.refuse(core.KindArrayOfNullableInt64) }

func (f valueField) NullableFloat32s([]*float32) { f.refuse(core.KindArrayOfNullableFloat32) }

func (f valueField) NullableFloat64s([]*float64) { f.refuse(core.KindArrayOfNullableFloat64) }

func (f valueField) Object(v any) bool {
	if core.IsNil(v) {
		f.w.WriteNullPortable(f.f.Name, f.f.FactoryID, f.f.ClassID)
	} else {
		f.w.WritePortable(f.f.Name, v)
	}
	return true
}

func (f valueField) Objects(v any) bool {
	switch x := v.(type) {
	case nil:
		WriteSlice[any](f.w, f.f.Name, nil)
	case []*Record:
		WriteSlice(f.w, f.f.Name, x)
	case []any:
		f.w.WritePortableArray(f.f.Name, x)
	default:
		return false
	}
	return true
}

// Reader reads the fields of one Portable object for ReadPortable.
// A field the writer's class version lacks reads as the zero value; use
// FieldKind to tell. Other errors are sticky.
type Reader struct {
	rec  Record
	dec  *Decoder
	err  error
	hint core.ReadHint
}

// Err returns the first error the reader met.
func (r *Reader) Err() error { return r.err }

// Version returns the class version the object was written with.
func (r *Reader) Version() int32 { return r.rec.version }

// FieldKind returns the kind of the named field, or KindNotAvailable.
func (r *Reader) FieldKind(name string) core.FieldKind { return r.rec.FieldKind(name) }

// Record returns the in-place view of the object being read.
func (r *Reader) Record() *Record { return &r.rec }

func (r *Reader) note(err error) {
	if err == nil || r.err != nil {
		return
	}
	if core.IsAbsentField(err) {
		return
	}
	r.err = err
}

// ReadPortable reads a nested PORTABLE field: a value made by the registered
// factory, or a *Record; null is nil.
func (r *Reader) ReadPortable(name string) any {
	rec, ok, err := r.rec.nested(name)
	r.note(err)
	if !ok || r.err != nil {
		return nil
	}
	v, err := r.dec.Object(rec)
	r.note(err)
	return v
}

// ReadPortableArray reads a PORTABLE_ARRAY field; null is nil.
func (r *Reader) ReadPortableArray(name string) []any {
	a, ok := r.portableArray(name)
	if !ok {
		return nil
	}
	out := make([]any, a.n)
	for i := range out {
		if out[i], ok = r.portableItem(&a); !ok {
			return nil
		}
	}
	return out
}

// portableItems is a PORTABLE_ARRAY being decoded: the reader at its next
// item position, its count and its items' factory and class.
type portableItems struct {
	rd       wire.Reader
	n        int
	fid, cid int32
}

// portableArray starts decoding the items of a PORTABLE_ARRAY field; false
// for a null array and after an error, which it notes.
func (r *Reader) portableArray(name string) (a portableItems, ok bool) {
	pos, err := r.rec.at(name, core.KindArrayOfPortable)
	if err == nil {
		a.rd = wire.NewReader(r.rec.buf, pos)
		if a.n, a.fid, a.cid, err = r.rec.arrayHeader(&a.rd, name); err == nil {
			return a, a.n >= 0 && r.err == nil
		}
	}
	r.note(err)
	return a, false
}

// portableItem decodes the next item of a; false after an error, which
// it notes.
func (r *Reader) portableItem(a *portableItems) (any, bool) {
	rec, err := r.rec.arrayItem(&a.rd, a.fid, a.cid)
	if err == nil {
		var v any
		if v, err = r.dec.Object(rec); err == nil {
			return v, true
		}
	}
	r.note(err)
	return nil, false
}

// ReadSlice reads a PORTABLE_ARRAY field into a typed slice.
func ReadSlice[T any](r *Reader, name string) []T {
	a, ok := r.portableArray(name)
	if !ok {
		return nil
	}
	out := make([]T, a.n)
	for i := range out {
		it, ok := r.portableItem(&a)
		if !ok {
			return nil
		}
		v, ok := it.(T)
		if !ok {
			r.note(&core.FieldError{Field: name, Reason: fmt.Sprintf("item %d is %T, not %T", i, it, v)})
			return nil
		}
		out[i] = v
	}
	return out
}

// Decoder turns the Portable objects of one deserialization into values
// of their factories' types, within the deserialization's budget.
type Decoder struct {
	Factories map[int32]Factory
	// Classes speed up field lookups of the records made (optional).
	Classes *ClassRegistry
	Buf     []byte // the whole Data: positions count from its start
	Budget  *core.Budget
	// readers are the readers of the objects being read, one per level
	// of nesting, reused by the objects that follow (array items); depth
	// is how many are in use.
	readers []*Reader
	depth   int
	// Page, when set, is the size up to which the blocks grow from which
	// the strings and arrays of numbers of every Data the decoder reads are
	// cut (a page of query results); otherwise those of one Data share a
	// block of its size.
	Page int
	// arena holds the strings and arrays of numbers the objects read.
	arena core.Arena
}

// Read reads factory, class and version and the object at rd, and turns
// it into a value (see Object).
func (d *Decoder) Read(rd *wire.Reader) (any, error) {
	at := rd.Pos()
	fid, cid, ver := rd.Int32(), rd.Int32(), rd.Int32()
	if rd.Err() != nil {
		return nil, core.Malformed("portable", at, "truncated class identity")
	}
	rec, end, err := Parse(d.Buf, rd.Pos(), len(d.Buf), fid, cid, ver, d.Classes)
	if err != nil {
		return nil, err
	}
	rd.Seek(end)
	return d.Object(rec)
}

// Object turns a record into a value of its factory's type, or returns the
// record when no factory is registered for it.
func (d *Decoder) Object(rec Record) (any, error) {
	f, ok := d.Factories[rec.factoryID]
	if !ok {
		out := rec // only a record returned goes to the heap
		return &out, nil
	}
	p := f.Create(rec.classID)
	if p == nil {
		return nil, &core.ClassNotFoundError{Format: "portable", FactoryID: rec.factoryID, ClassID: rec.classID, Version: rec.version, Reason: "the factory does not know the class id"}
	}
	if d.Budget.Depth >= core.MaxDepth {
		return nil, core.Malformed("portable", rec.body, "objects nest deeper than "+strconv.Itoa(core.MaxDepth)+" levels")
	}
	// Positions can point several fields at the same nested object; bound
	// the total decoded as the Compact reader does.
	if d.Budget.Nested += len(rec.buf) - rec.body; d.Budget.Nested > core.MaxDepth*d.Budget.Size {
		return nil, core.Malformed("portable", rec.body, "nested objects overlap: decoding them would read more than "+strconv.Itoa(core.MaxDepth)+" times the data")
	}
	d.Budget.Depth++
	if d.arena.Size == 0 {
		d.arena.Size = len(d.Buf) // the Data's strings and arrays fit
	}
	if d.depth == len(d.readers) {
		d.readers = append(d.readers, &Reader{dec: d})
	}
	r := d.readers[d.depth]
	d.depth++
	r.rec, r.err = rec, nil
	if rec.cd != nil {
		r.hint.Start(&rec.cd.readOrder)
		r.rec.hint = &r.hint
	}
	r.rec.arena = &d.arena
	p.ReadPortable(r)
	err := r.err
	if err == nil && rec.cd != nil {
		r.hint.Finish(&rec.cd.readOrder)
	}
	r.rec = Record{}
	d.depth--
	d.Budget.Depth--
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Reset readies a decoder for the next Data, keeping its readers (and, with
// Page set, its arena); the strings and arrays it handed out stay with
// their objects.
func (d *Decoder) Reset(factories map[int32]Factory, classes *ClassRegistry, buf []byte, budget *core.Budget) {
	d.Factories, d.Classes, d.Buf, d.Budget, d.depth = factories, classes, buf, budget, 0
	if d.Page == 0 || d.arena.Max == 0 {
		d.arena = core.Arena{Max: d.Page}
	}
}
