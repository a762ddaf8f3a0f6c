package compact

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"

	"github.com/atolldb/atoll/internal/serialization/core"
	"github.com/atolldb/atoll/internal/serialization/wire"
)

// Record reads the fields of one Compact object in place, by offset,
// without decoding the rest of the object. It is what ToObject returns for a
// Compact value whose type name has no registered Serializer, and what
// the member's query engine reads values with.
//
// A Record aliases the bytes it was read from: they must not change
// while the record is in use. Records are values; copying one is cheap.
type Record struct {
	schema   *Schema
	data     []byte // fixed section .. end of offset table
	dataLen  int    // fixed + variable sections; the offset table starts here
	width    int    // offset entry width in bytes, 0 without variable fields
	raw      []byte // the whole object from its schema id, for copying
	schemas  *SchemaRegistry
	embedded bool // nested objects carry their schema (type -56)
	// hint follows the fields a Reader reads through the schema's learned
	// read order (nil: names are looked up).
	hint *core.ReadHint
	// arena, when set, holds the strings read (a Decoder's: the strings of
	// one object decoded, or of a page, share an allocation).
	arena *core.Arena
}

// str returns b as a string, from the record's arena when it has one.
func (r *Record) str(b []byte) string { return r.arena.String(b) }

// ReadRecord reads the Compact object of a Data of type -55 or -56.
// Schemas of -55 data are looked up in schemas.
func ReadRecord(d core.Data, schemas *SchemaRegistry) (Record, error) {
	switch d.Type() {
	case core.TypeCompact:
		rec, _, err := Parse(d, core.HeaderSize, len(d), schemas, false)
		return rec, err
	case core.TypeCompactWithSchema:
		rec, _, err := Parse(d, core.HeaderSize, len(d), schemas, true)
		return rec, err
	}
	if err := d.Check(); err != nil {
		return Record{}, err
	}
	return Record{}, &core.DecodeError{Format: "compact", Offset: 4, Reason: "type id " + strconv.Itoa(int(d.Type())) + " is not a compact type"}
}

// Parse reads an object starting at b[p] (its schema id) that must end
// by b[limit]; it returns the record and the end of the object.
func Parse(b []byte, p, limit int, schemas *SchemaRegistry, embedded bool) (Record, int, error) {
	id, ok := wire.Int64At(b[:limit], p)
	if !ok {
		return Record{}, 0, core.Malformed("compact", p, "truncated schema id")
	}
	q := p + 8
	var schema *Schema
	if embedded {
		size, ok := wire.Int32At(b[:limit], q)
		if !ok || size < 0 || int(size) > limit-q-4 {
			return Record{}, 0, core.Malformed("compact", q, "embedded schema length out of range")
		}
		s, n, err := ParseSchema(b[q+4 : q+4+int(size)])
		if err != nil {
			return Record{}, 0, err
		}
		if n != int(size) || s.ID != id {
			return Record{}, 0, core.Malformed("compact", q, "embedded schema does not match its id or length")
		}
		schema = s
		q += 4 + int(size)
	} else if schema, ok = schemas.Get(id); !ok {
		return Record{}, 0, &core.SchemaNotFoundError{SchemaID: id}
	}
	return parseBody(b, p, q, limit, schema, schemas, embedded)
}

// parseKnown is Parse for an object whose schema the caller
// already has (a compiled FieldReader plan): an embedded schema is skipped,
// not parsed again (its id was checked against its fields when the plan
// was made, and an id names one schema).
func parseKnown(b []byte, p, limit int, schema *Schema, schemas *SchemaRegistry, embedded bool) (Record, int, error) {
	q := p + 8
	if embedded {
		size, ok := wire.Int32At(b[:limit], q)
		if !ok || size < 0 || int(size) > limit-q-4 {
			return Record{}, 0, core.Malformed("compact", q, "embedded schema length out of range")
		}
		q += 4 + int(size)
	}
	return parseBody(b, p, q, limit, schema, schemas, embedded)
}

// parseBody reads the data length and offset table of an object whose
// body starts at b[q], after its schema id (at b[p]) and embedded schema.
func parseBody(b []byte, p, q, limit int, schema *Schema, schemas *SchemaRegistry, embedded bool) (Record, int, error) {
	rec := Record{schema: schema, schemas: schemas, embedded: embedded}
	if schema.VarCount == 0 {
		end := q + int(schema.FixedSize)
		if end > limit {
			return Record{}, 0, core.Malformed("compact", q, "fixed-size section exceeds the data")
		}
		rec.data, rec.dataLen, rec.raw = b[q:end:end], int(schema.FixedSize), b[p:end:end]
		return rec, end, nil
	}
	dl, ok := wire.Int32At(b[:limit], q)
	if !ok || dl < schema.FixedSize || int(dl) > limit-q-4 {
		return Record{}, 0, core.Malformed("compact", q, "data length out of range")
	}
	rec.dataLen = int(dl)
	rec.width = offsetWidth(rec.dataLen)
	start := q + 4
	end := start + rec.dataLen + rec.width*int(schema.VarCount)
	if end > limit {
		return Record{}, 0, core.Malformed("compact", start+rec.dataLen, "offset table exceeds the data")
	}
	rec.data, rec.raw = b[start:end:end], b[p:end:end]
	return rec, end, nil
}

// Schema returns the record's schema.
func (r *Record) Schema() *Schema { return r.schema }

// TypeName returns the Compact type name.
func (r *Record) TypeName() string { return r.schema.TypeName }

// FieldKind returns the kind of the named field, or KindNotAvailable when the
// writer's schema has no such field (schema evolution).
func (r *Record) FieldKind(name string) core.FieldKind { return r.schema.FieldKind(name) }

// HasField reports whether the writer's schema has the named field.
func (r *Record) HasField(name string) bool {
	return r.schema.FieldKind(name) != core.KindNotAvailable
}

// Bytes returns the object's bytes from its schema id to the end of its
// offset table: what a nested field or a Data payload holds.
func (r *Record) Bytes() []byte { return r.raw }

func (r *Record) lookup(name string) (*SchemaField, error) {
	if r.schema == nil {
		return nil, &core.FieldError{Field: name, Reason: "read from an empty record"}
	}
	if i, ok := r.hint.Next(name); ok {
		return &r.schema.Fields[i], nil
	}
	i, ok := r.schema.byName[name]
	if !ok {
		return nil, core.AbsentField(name, "is not in compact schema "+strconv.Quote(r.schema.TypeName))
	}
	r.hint.Learn(name, i)
	return &r.schema.Fields[i], nil
}

func kindError(f *SchemaField, want string) error {
	return &core.FieldError{Field: f.Name, Reason: "has kind " + f.Kind.String() + ", not " + want}
}

func nullError(name string) error {
	return &core.FieldError{Field: name, Reason: "is null; read it with the nullable accessor"}
}

// varField returns a reader positioned at the body of a variable-size field,
// or null=true. The reader is bounded by the variable-size section.
func (r *Record) varField(f *SchemaField) (rd wire.Reader, null bool, err error) {
	off, null, err := r.varOffset(f)
	if err != nil || null {
		return rd, null, err
	}
	return r.body(off), false, nil
}

// varOffset returns the offset in the data of the body of a variable-size
// field, or null=true.
func (r *Record) varOffset(f *SchemaField) (off int, null bool, err error) {
	off, null = offsetAt(r.data, r.dataLen+int(f.Index)*r.width, r.width)
	if null {
		return 0, true, nil
	}
	if off < int(r.schema.FixedSize) || off >= r.dataLen {
		return 0, false, core.Malformed("compact", off, "offset of field "+strconv.Quote(f.Name)+" is outside the variable-size section")
	}
	return off, false, nil
}

// offsetAt reads the offset-table entry of the given width at b[at]; null
// reports the null marker (all ones). The caller checks that it fits.
func offsetAt(b []byte, at, width int) (off int, null bool) {
	switch width {
	case 1:
		return int(b[at]), b[at] == 0xff
	case 2:
		v := int(b[at])<<8 | int(b[at+1])
		return v, v == 0xffff
	}
	v := int32(binary.BigEndian.Uint32(b[at:]))
	return int(v), v == -1
}

func readErr(rd *wire.Reader, f *SchemaField) error {
	if rd.Err() == nil {
		return nil
	}
	return truncated(f, rd.Pos(), rd.Err())
}

// truncated is the error of the body of field f at off that does not fit
// or has an invalid length.
func truncated(f *SchemaField, off int, err error) error {
	return &core.DecodeError{Format: "compact", Offset: off, Reason: "field " + strconv.Quote(f.Name) + " is truncated", Err: err}
}

// fixedOrNullable returns the size bytes of a field of the fixed kind k
// (from its first byte in the fixed section: a BOOLEAN is a bit there) or
// of a non-null value of its nullable twin, without a reader.
func (r *Record) fixedOrNullable(name string, k core.FieldKind, size int) (f *SchemaField, b []byte, err error) {
	f, err = r.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	switch f.Kind {
	case k:
		return f, r.data[f.Offset:], nil
	case k.Nullable():
		off, null, err := r.varOffset(f)
		switch {
		case err != nil:
			return f, nil, err
		case null:
			return f, nil, nullError(name)
		case off > r.dataLen-size:
			return f, nil, truncated(f, off, wire.ErrShort)
		}
		return f, r.data[off : off+size], nil
	}
	return f, nil, kindError(f, k.String())
}

// GetBoolean reads a BOOLEAN (or non-null NULLABLE_BOOLEAN) field.
func (r *Record) GetBoolean(name string) (bool, error) {
	f, b, err := r.fixedOrNullable(name, core.KindBoolean, 1)
	if err != nil {
		return false, err
	}
	if f.Kind == core.KindBoolean {
		return b[0]&(1<<f.BitOffset) != 0, nil
	}
	return b[0] != 0, nil
}

// GetInt8 reads an INT8 (or non-null NULLABLE_INT8) field.
func (r *Record) GetInt8(name string) (int8, error) {
	_, b, err := r.fixedOrNullable(name, core.KindInt8, 1)
	if err != nil {
		return 0, err
	}
	return int8(b[0]), nil
}

// GetInt16 reads an INT16 (or non-null NULLABLE_INT16) field.
func (r *Record) GetInt16(name string) (int16, error) {
	_, b, err := r.fixedOrNullable(name, core.KindInt16, 2)
	if err != nil {
		return 0, err
	}
	return int16(binary.BigEndian.Uint16(b)), nil
}

// GetInt32 reads an INT32 (or non-null NULLABLE_INT32) field.
func (r *Record) GetInt32(name string) (int32, error) {
	_, b, err := r.fixedOrNullable(name, core.KindInt32, 4)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// GetInt64 reads an INT64 (or non-null NULLABLE_INT64) field.
func (r *Record) GetInt64(name string) (int64, error) {
	_, b, err := r.fixedOrNullable(name, core.KindInt64, 8)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// GetFloat32 reads a FLOAT32 (or non-null NULLABLE_FLOAT32) field.
func (r *Record) GetFloat32(name string) (float32, error) {
	_, b, err := r.fixedOrNullable(name, core.KindFloat32, 4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
}

// GetFloat64 reads a FLOAT64 (or non-null NULLABLE_FLOAT64) field.
func (r *Record) GetFloat64(name string) (float64, error) {
	_, b, err := r.fixedOrNullable(name, core.KindFloat64, 8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
}

// nullable resolves a field read through a nullable accessor: fixed data for
// the plain kind, a body reader for the nullable kind, or null.
func (r *Record) nullable(name string, k core.FieldKind) (f *SchemaField, fixed []byte, rd wire.Reader, null bool, err error) {
	f, err = r.lookup(name)
	if err != nil {
		return nil, nil, rd, false, err
	}
	switch f.Kind {
	case k:
		return f, r.data[f.Offset:], rd, false, nil
	case k.Nullable():
		rd, null, err = r.varField(f)
		return f, nil, rd, null, err
	}
	return f, nil, rd, false, kindError(f, k.Nullable().String())
}

// GetNullableBoolean reads a NULLABLE_BOOLEAN (or BOOLEAN) field; null is nil.
func (r *Record) GetNullableBoolean(name string) (*bool, error) {
	f, fixed, rd, null, err := r.nullable(name, core.KindBoolean)
	if err != nil || null {
		return nil, err
	}
	var v bool
	if fixed != nil {
		v = fixed[0]&(1<<f.BitOffset) != 0
	} else if v = rd.Bool(); rd.Err() != nil {
		return nil, readErr(&rd, f)
	}
	return &v, nil
}

// GetNullableInt8 reads a NULLABLE_INT8 (or INT8) field; null is nil.
func (r *Record) GetNullableInt8(name string) (*int8, error) {
	return getNullable(r, name, core.KindInt8, (*wire.Reader).Int8)
}

// GetNullableInt16 reads a NULLABLE_INT16 (or INT16) field; null is nil.
func (r *Record) GetNullableInt16(name string) (*int16, error) {
	return getNullable(r, name, core.KindInt16, (*wire.Reader).Int16)
}

// GetNullableInt32 reads a NULLABLE_INT32 (or INT32) field; null is nil.
func (r *Record) GetNullableInt32(name string) (*int32, error) {
	return getNullable(r, name, core.KindInt32, (*wire.Reader).Int32)
}

// GetNullableInt64 reads a NULLABLE_INT64 (or INT64) field; null is nil.
func (r *Record) GetNullableInt64(name string) (*int64, error) {
	return getNullable(r, name, core.KindInt64, (*wire.Reader).Int64)
}

// GetNullableFloat32 reads a NULLABLE_FLOAT32 (or FLOAT32) field; null is nil.
func (r *Record) GetNullableFloat32(name string) (*float32, error) {
	return getNullable(r, name, core.KindFloat32, (*wire.Reader).Float32)
}

// GetNullableFloat64 reads a NULLABLE_FLOAT64 (or FLOAT64) field; null is nil.
func (r *Record) GetNullableFloat64(name string) (*float64, error) {
	return getNullable(r, name, core.KindFloat64, (*wire.Reader).Float64)
}

// getNullable reads a nullable fixed-size number (or its non-nullable
// kind) with read; null is nil.
func getNullable[T any](r *Record, name string, kind core.FieldKind, read func(*wire.Reader) T) (*T, error) {
	f, fixed, rd, null, err := r.nullable(name, kind)
	if err != nil || null {
		return nil, err
	}
	if fixed != nil {
		rd = wire.NewReader(fixed, 0)
	}
	v := read(&rd)
	if rd.Err() != nil {
		return nil, readErr(&rd, f)
	}
	return &v, nil
}

// variable resolves a variable-size field of kind k.
func (r *Record) variable(name string, k core.FieldKind) (f *SchemaField, rd wire.Reader, null bool, err error) {
	f, err = r.field(name, k)
	if err != nil {
		return f, rd, false, err
	}
	rd, null, err = r.varField(f)
	return f, rd, null, err
}

// field looks up the named field and checks that it has kind k.
func (r *Record) field(name string, k core.FieldKind) (*SchemaField, error) {
	f, err := r.lookup(name)
	if err == nil && f.Kind != k {
		err = kindError(f, k.String())
	}
	return f, err
}

// GetStringBytes returns a view of a STRING field's UTF-8 bytes without
// copying; null reports ok=false. The view aliases the record's bytes.
func (r *Record) GetStringBytes(name string) (b []byte, ok bool, err error) {
	f, err := r.field(name, core.KindString)
	if err != nil {
		return nil, false, err
	}
	off, null, err := r.varOffset(f)
	if err != nil || null {
		return nil, false, err
	}
	b, null, err = wire.StringBytesAt(r.data[:r.dataLen], off)
	if err != nil {
		return nil, false, truncated(f, off, err)
	}
	return b, !null, nil
}

// GetString reads a STRING field; null reads as "".
func (r *Record) GetString(name string) (string, error) {
	b, _, err := r.GetStringBytes(name)
	return r.str(b), err
}

// GetStringPtr reads a STRING field; null is nil.
func (r *Record) GetStringPtr(name string) (*string, error) {
	b, ok, err := r.GetStringBytes(name)
	if err != nil || !ok {
		return nil, err
	}
	s := r.str(b)
	return &s, nil
}

// GetDecimal reads a DECIMAL field; null is nil.
func (r *Record) GetDecimal(name string) (*core.Decimal, error) {
	f, rd, null, err := r.variable(name, core.KindDecimal)
	if err != nil || null {
		return nil, err
	}
	v := core.ReadDecimal(&rd)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	return &v, nil
}

// GetTime reads a TIME field; null is nil.
func (r *Record) GetTime(name string) (*core.LocalTime, error) {
	f, rd, null, err := r.variable(name, core.KindTime)
	if err != nil || null {
		return nil, err
	}
	v := core.ReadTime(&rd)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	return &v, nil
}

// GetDate reads a DATE field; null is nil.
func (r *Record) GetDate(name string) (*core.LocalDate, error) {
	f, rd, null, err := r.variable(name, core.KindDate)
	if err != nil || null {
		return nil, err
	}
	v := core.ReadDate(&rd, false)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	return &v, nil
}

// GetTimestamp reads a TIMESTAMP field; null is nil.
func (r *Record) GetTimestamp(name string) (*core.LocalDateTime, error) {
	f, rd, null, err := r.variable(name, core.KindTimestamp)
	if err != nil || null {
		return nil, err
	}
	v := core.ReadTimestamp(&rd, false)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	return &v, nil
}

// GetTimestampWithTimezone reads a TIMESTAMP_WITH_TIMEZONE field; null is nil.
func (r *Record) GetTimestampWithTimezone(name string) (*core.OffsetDateTime, error) {
	f, rd, null, err := r.variable(name, core.KindTimestampWithTimezone)
	if err != nil || null {
		return nil, err
	}
	v := core.ReadTimestampTZ(&rd, false)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	return &v, nil
}

// GetCompact reads a nested COMPACT field as a record; null is nil.
func (r *Record) GetCompact(name string) (*Record, error) {
	rec, ok, err := r.nested(name)
	if !ok {
		return nil, err
	}
	return &rec, nil
}

// nested reads a nested COMPACT field as a record; ok is false for null
// and after an error.
func (r *Record) nested(name string) (rec Record, ok bool, err error) {
	f, err := r.field(name, core.KindCompact)
	if err != nil {
		return Record{}, false, err
	}
	off, null, err := r.varOffset(f)
	if err != nil || null {
		return Record{}, false, err
	}
	rec, _, err = Parse(r.data, off, r.dataLen, r.schemas, r.embedded)
	return rec, err == nil, err
}

// primitiveArray resolves an array field of the plain kind k or its
// ARRAY_OF_NULLABLE twin. For the twin it returns the item offsets.
func (r *Record) primitiveArray(name string, k core.FieldKind) (f *SchemaField, off int, items *varItems, null bool, err error) {
	f, err = r.lookup(name)
	if err != nil {
		return nil, 0, nil, false, err
	}
	switch f.Kind {
	case k:
		off, null, err = r.varOffset(f)
		return f, off, nil, null, err
	case k.Nullable():
		off, null, err = r.varOffset(f)
		if err != nil || null {
			return f, off, nil, null, err
		}
		rd := r.body(off)
		it, err := readVarItems(&rd, f)
		if err != nil {
			return f, off, nil, false, err
		}
		return f, off, &it, false, nil
	}
	return f, 0, nil, false, kindError(f, k.String())
}

// body returns a reader at off in the variable-size section, bounded by it.
func (r *Record) body(off int) wire.Reader { return wire.NewReader(r.data[:r.dataLen], off) }

// arrayLen reads a primitive array's count, bounded by the bytes left.
func arrayLen(rd *wire.Reader, itemSize int) int {
	return rd.Length(itemSize, false)
}

// GetArrayOfBoolean reads an ARRAY_OF_BOOLEAN (or null-free
// ARRAY_OF_NULLABLE_BOOLEAN) field; null is nil.
func (r *Record) GetArrayOfBoolean(name string) ([]bool, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfBoolean)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Bool)
	}
	rd := r.body(off)
	n := rd.Int32()
	if n < 0 || int64(n) > int64(rd.Len())*8 {
		rd.Fail(wire.ErrLength)
	}
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	packed := rd.Bytes((int(n) + 7) / 8)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	out := core.Bools(r.arena, int(n))
	for i := range out {
		out[i] = packed[i/8]&(1<<(i%8)) != 0
	}
	return out, nil
}

// GetArrayOfInt8 reads an ARRAY_OF_INT8 (or null-free ARRAY_OF_NULLABLE_INT8) field; null is nil.
func (r *Record) GetArrayOfInt8(name string) ([]int8, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfInt8)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Int8)
	}
	rd := r.body(off)
	n := arrayLen(&rd, 1)
	if err := readErr(&rd, f); err != nil {
		return nil, err
	}
	out := core.Int8s(r.arena, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), n), rd.Bytes(n))
	return out, readErr(&rd, f)
}

// GetArrayOfInt16 reads an ARRAY_OF_INT16 (or null-free ARRAY_OF_NULLABLE_INT16) field; null is nil.
func (r *Record) GetArrayOfInt16(name string) ([]int16, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfInt16)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Int16)
	}
	rd := r.body(off)
	return readNumbers[int16](&rd, f, r.arena)
}

// GetArrayOfInt32 reads an ARRAY_OF_INT32 (or null-free ARRAY_OF_NULLABLE_INT32) field; null is nil.
func (r *Record) GetArrayOfInt32(name string) ([]int32, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfInt32)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Int32)
	}
	rd := r.body(off)
	return readNumbers[int32](&rd, f, r.arena)
}

// GetArrayOfInt64 reads an ARRAY_OF_INT64 (or null-free ARRAY_OF_NULLABLE_INT64) field; null is nil.
func (r *Record) GetArrayOfInt64(name string) ([]int64, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfInt64)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Int64)
	}
	rd := r.body(off)
	return readNumbers[int64](&rd, f, r.arena)
}

// GetArrayOfFloat32 reads an ARRAY_OF_FLOAT32 (or null-free ARRAY_OF_NULLABLE_FLOAT32) field; null is nil.
func (r *Record) GetArrayOfFloat32(name string) ([]float32, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfFloat32)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Float32)
	}
	rd := r.body(off)
	return readNumbers[float32](&rd, f, r.arena)
}

// GetArrayOfFloat64 reads an ARRAY_OF_FLOAT64 (or null-free ARRAY_OF_NULLABLE_FLOAT64) field; null is nil.
func (r *Record) GetArrayOfFloat64(name string) ([]float64, error) {
	f, off, items, null, err := r.primitiveArray(name, core.KindArrayOfFloat64)
	if err != nil || null {
		return nil, err
	}
	if items != nil {
		return nonNullItems(items, f, (*wire.Reader).Float64)
	}
	rd := r.body(off)
	return readNumbers[float64](&rd, f, r.arena)
}

// readNumbers reads the n numbers of a fixed-size array in one pass, into
// a slice from arena (a new one when arena is nil).
func readNumbers[T wire.Number](rd *wire.Reader, f *SchemaField, arena *core.Arena) ([]T, error) {
	n := arrayLen(rd, int(unsafe.Sizeof(T(0))))
	if err := readErr(rd, f); err != nil {
		return nil, err
	}
	out := core.Numbers[T](arena, n)
	wire.Numbers(rd, out)
	return out, readErr(rd, f)
}

// varItems locates the items of a Compact array of variable-size items.
type varItems struct {
	rd    wire.Reader // bounded by the item data
	first int         // index of the first item body
	count int
	table []byte // offset table
	width int
}

func readVarItems(rd *wire.Reader, f *SchemaField) (varItems, error) {
	dataLen := rd.Int32()
	count := rd.Int32()
	if err := readErr(rd, f); err != nil {
		return varItems{}, err
	}
	first := rd.Pos()
	if dataLen < 0 || count < 0 || int64(dataLen) > int64(rd.Len()) {
		return varItems{}, core.Malformed("compact", first, "array "+strconv.Quote(f.Name)+" has an invalid length or count")
	}
	width := offsetWidth(int(dataLen))
	tableAt := first + int(dataLen)
	if int64(count)*int64(width) > int64(len(rd.Buf())-tableAt) {
		return varItems{}, core.Malformed("compact", tableAt, "offset table of array "+strconv.Quote(f.Name)+" exceeds the data")
	}
	buf := rd.Buf()
	return varItems{
		rd:    wire.NewReader(buf[:tableAt], first),
		first: first, count: int(count),
		table: buf[tableAt : tableAt+int(count)*width],
		width: width,
	}, nil
}

// item returns a reader at item i, or null=true.
func (it *varItems) item(i int) (rd wire.Reader, null bool, err error) {
	at, null, err := it.at(i)
	if err != nil || null {
		return rd, null, err
	}
	return wire.NewReader(it.rd.Buf(), at), false, nil
}

// at returns the index of item i in the items' buffer (it.rd.Buf()), or
// null=true.
func (it *varItems) at(i int) (at int, null bool, err error) {
	off, null := offsetAt(it.table, i*it.width, it.width)
	if null {
		return 0, true, nil
	}
	if off < 0 || it.first+off >= len(it.rd.Buf()) {
		return 0, false, core.Malformed("compact", it.first+off, "array item offset out of range")
	}
	return it.first + off, false, nil
}

// itemsOf decodes every item with read; null items become the zero T.
func itemsOf[T any](it *varItems, f *SchemaField, read func(*wire.Reader) (T, bool)) ([]T, error) {
	out := make([]T, it.count)
	for i := range out {
		rd, null, err := it.item(i)
		if err != nil {
			return nil, err
		}
		if null {
			continue
		}
		v, ok := read(&rd)
		if err := readErr(&rd, f); err != nil {
			return nil, err
		}
		if !ok {
			return nil, core.Malformed("compact", rd.Pos(), "array "+strconv.Quote(f.Name)+" holds an invalid item")
		}
		out[i] = v
	}
	return out, nil
}

// ptrItems decodes an array of nullable items into pointers.
func ptrItems[T any](it *varItems, f *SchemaField, read func(*wire.Reader) T) ([]*T, error) {
	return itemsOf(it, f, func(rd *wire.Reader) (*T, bool) {
		v := read(rd)
		return &v, true
	})
}

// nonNullItems decodes an ARRAY_OF_NULLABLE_* field read through a plain accessor.
func nonNullItems[T any](it *varItems, f *SchemaField, read func(*wire.Reader) T) ([]T, error) {
	out := make([]T, it.count)
	for i := range out {
		rd, null, err := it.item(i)
		if err != nil {
			return nil, err
		}
		if null {
			return nil, nullAccessorError(f)
		}
		out[i] = read(&rd)
		if err := readErr(&rd, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func nullAccessorError(f *SchemaField) error {
	return &core.FieldError{Field: f.Name, Reason: "has a null item; read it with the nullable accessor"}
}

func nullableFromPlain[T any](plain []T, err error) ([]*T, error) {
	if err != nil || plain == nil {
		return nil, err
	}
	out := make([]*T, len(plain))
	for i := range plain {
		out[i] = &plain[i]
	}
	return out, nil
}

// GetArrayOfNullableBoolean reads an ARRAY_OF_NULLABLE_BOOLEAN (or ARRAY_OF_BOOLEAN) field.
func (r *Record) GetArrayOfNullableBoolean(name string) ([]*bool, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfBoolean)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfBoolean(name))
	}
	return ptrItems(items, f, (*wire.Reader).Bool)
}

// GetArrayOfNullableInt8 reads an ARRAY_OF_NULLABLE_INT8 (or ARRAY_OF_INT8) field.
func (r *Record) GetArrayOfNullableInt8(name string) ([]*int8, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfInt8)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfInt8(name))
	}
	return ptrItems(items, f, (*wire.Reader).Int8)
}

// GetArrayOfNullableInt16 reads an ARRAY_OF_NULLABLE_INT16 (or ARRAY_OF_INT16) field.
func (r *Record) GetArrayOfNullableInt16(name string) ([]*int16, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfInt16)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfInt16(name))
	}
	return ptrItems(items, f, (*wire.Reader).Int16)
}

// GetArrayOfNullableInt32 reads an ARRAY_OF_NULLABLE_INT32 (or ARRAY_OF_INT32) field.
func (r *Record) GetArrayOfNullableInt32(name string) ([]*int32, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfInt32)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfInt32(name))
	}
	return ptrItems(items, f, (*wire.Reader).Int32)
}

// GetArrayOfNullableInt64 reads an ARRAY_OF_NULLABLE_INT64 (or ARRAY_OF_INT64) field.
func (r *Record) GetArrayOfNullableInt64(name string) ([]*int64, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfInt64)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfInt64(name))
	}
	return ptrItems(items, f, (*wire.Reader).Int64)
}

// GetArrayOfNullableFloat32 reads an ARRAY_OF_NULLABLE_FLOAT32 (or ARRAY_OF_FLOAT32) field.
func (r *Record) GetArrayOfNullableFloat32(name string) ([]*float32, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfFloat32)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfFloat32(name))
	}
	return ptrItems(items, f, (*wire.Reader).Float32)
}

// GetArrayOfNullableFloat64 reads an ARRAY_OF_NULLABLE_FLOAT64 (or ARRAY_OF_FLOAT64) field.
func (r *Record) GetArrayOfNullableFloat64(name string) ([]*float64, error) {
	f, _, items, null, err := r.primitiveArray(name, core.KindArrayOfFloat64)
	if err != nil || null {
		return nil, err
	}
	if items == nil {
		return nullableFromPlain(r.GetArrayOfFloat64(name))
	}
	return ptrItems(items, f, (*wire.Reader).Float64)
}

// varArrayField resolves an array of variable-size items of kind k; ok
// is false for a null array and after an error.
func (r *Record) varArrayField(name string, k core.FieldKind) (f *SchemaField, it varItems, ok bool, err error) {
	f, err = r.field(name, k)
	if err != nil {
		return f, it, false, err
	}
	off, null, err := r.varOffset(f)
	if err != nil || null {
		return f, it, false, err
	}
	rd := r.body(off)
	it, err = readVarItems(&rd, f)
	return f, it, err == nil, err
}

// GetArrayOfStringPtr reads an ARRAY_OF_STRING field; null items are nil.
func (r *Record) GetArrayOfStringPtr(name string) ([]*string, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfString)
	if !ok {
		return nil, err
	}
	return itemsOf(&it, f, func(rd *wire.Reader) (*string, bool) {
		b, ok := rd.StringBytes()
		s := r.str(b)
		return &s, ok
	})
}

// GetArrayOfString reads an ARRAY_OF_STRING field that has no null items.
func (r *Record) GetArrayOfString(name string) ([]string, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfString)
	if !ok {
		return nil, err
	}
	out := make([]string, it.count)
	for i := range out {
		at, null, err := it.at(i)
		if err != nil {
			return nil, err
		}
		if null {
			return nil, nullAccessorError(f)
		}
		b, null, err := wire.StringBytesAt(it.rd.Buf(), at)
		if null {
			err = wire.ErrLength
		}
		if err != nil {
			return nil, truncated(f, at, err)
		}
		out[i] = r.str(b)
	}
	return out, nil
}

// GetArrayOfDecimal reads an ARRAY_OF_DECIMAL field; null items are nil.
func (r *Record) GetArrayOfDecimal(name string) ([]*core.Decimal, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfDecimal)
	if !ok {
		return nil, err
	}
	return ptrItems(&it, f, core.ReadDecimal)
}

// GetArrayOfTime reads an ARRAY_OF_TIME field; null items are nil.
func (r *Record) GetArrayOfTime(name string) ([]*core.LocalTime, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfTime)
	if !ok {
		return nil, err
	}
	return ptrItems(&it, f, core.ReadTime)
}

// GetArrayOfDate reads an ARRAY_OF_DATE field; null items are nil.
func (r *Record) GetArrayOfDate(name string) ([]*core.LocalDate, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfDate)
	if !ok {
		return nil, err
	}
	return ptrItems(&it, f, func(rd *wire.Reader) core.LocalDate { return core.ReadDate(rd, false) })
}

// GetArrayOfTimestamp reads an ARRAY_OF_TIMESTAMP field; null items are nil.
func (r *Record) GetArrayOfTimestamp(name string) ([]*core.LocalDateTime, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfTimestamp)
	if !ok {
		return nil, err
	}
	return ptrItems(&it, f, func(rd *wire.Reader) core.LocalDateTime { return core.ReadTimestamp(rd, false) })
}

// GetArrayOfTimestampWithTimezone reads an ARRAY_OF_TIMESTAMP_WITH_TIMEZONE field; null items are nil.
func (r *Record) GetArrayOfTimestampWithTimezone(name string) ([]*core.OffsetDateTime, error) {
	f, it, ok, err := r.varArrayField(name, core.KindArrayOfTimestampWithTimezone)
	if !ok {
		return nil, err
	}
	return ptrItems(&it, f, func(rd *wire.Reader) core.OffsetDateTime { return core.ReadTimestampTZ(rd, false) })
}

// GetArrayOfCompact reads an ARRAY_OF_COMPACT field as records; null items are nil.
func (r *Record) GetArrayOfCompact(name string) ([]*Record, error) {
	_, it, ok, err := r.varArrayField(name, core.KindArrayOfCompact)
	if !ok {
		return nil, err
	}
	out := make([]*Record, it.count)
	for i := range out {
		rd, null, err := it.item(i)
		if err != nil {
			return nil, err
		}
		if null {
			continue
		}
		rec, _, err := Parse(rd.Buf(), rd.Pos(), len(rd.Buf()), r.schemas, r.embedded)
		if err != nil {
			return nil, err
		}
		out[i] = &rec
	}
	return out, nil
}

// Get reads any field as a Go value: the scalar types of the typed getters,
// nil for null, *Record for nested objects, and for arrays the slice
// types of the typed getters (pointer items for kinds whose items may be null).
func (r *Record) Get(name string) (any, error) {
	f, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	switch f.Kind {
	case core.KindBoolean:
		return r.GetBoolean(name)
	case core.KindInt8:
		return r.GetInt8(name)
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
	case core.KindCompact:
		rec, err := r.GetCompact(name)
		if rec == nil {
			return nil, err
		}
		return rec, err
	case core.KindNullableBoolean:
		return core.DerefOrNil(r.GetNullableBoolean(name))
	case core.KindNullableInt8:
		return core.DerefOrNil(r.GetNullableInt8(name))
	case core.KindNullableInt16:
		return core.DerefOrNil(r.GetNullableInt16(name))
	case core.KindNullableInt32:
		return core.DerefOrNil(r.GetNullableInt32(name))
	case core.KindNullableInt64:
		return core.DerefOrNil(r.GetNullableInt64(name))
	case core.KindNullableFloat32:
		return core.DerefOrNil(r.GetNullableFloat32(name))
	case core.KindNullableFloat64:
		return core.DerefOrNil(r.GetNullableFloat64(name))
	case core.KindArrayOfBoolean:
		return core.NilSlice(r.GetArrayOfBoolean(name))
	case core.KindArrayOfInt8:
		return core.NilSlice(r.GetArrayOfInt8(name))
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
	case core.KindArrayOfCompact:
		return core.NilSlice(r.GetArrayOfCompact(name))
	case core.KindArrayOfNullableBoolean:
		return core.NilSlice(r.GetArrayOfNullableBoolean(name))
	case core.KindArrayOfNullableInt8:
		return core.NilSlice(r.GetArrayOfNullableInt8(name))
	case core.KindArrayOfNullableInt16:
		return core.NilSlice(r.GetArrayOfNullableInt16(name))
	case core.KindArrayOfNullableInt32:
		return core.NilSlice(r.GetArrayOfNullableInt32(name))
	case core.KindArrayOfNullableInt64:
		return core.NilSlice(r.GetArrayOfNullableInt64(name))
	case core.KindArrayOfNullableFloat32:
		return core.NilSlice(r.GetArrayOfNullableFloat32(name))
	case core.KindArrayOfNullableFloat64:
		return core.NilSlice(r.GetArrayOfNullableFloat64(name))
	}
	return nil, kindError(f, "a readable kind")
}
