package exec

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/atolldb/atoll/internal/query/expr"
)

// Row encoding (RowBatch.rows): per value a tag byte and its payload.
//
//	0 NULL
//	1 FALSE, 2 TRUE
//	3 integer:  type byte, zigzag varint (the integer types, DATE, TIME, timestamps)
//	4 floating: type byte, 8 bytes little-endian IEEE 754 (REAL, DOUBLE, DECIMAL)
//	5 string:   type byte, uvarint length, UTF-8 (VARCHAR, JSON)
//	6 object:   uvarint length, serialized Data
//
// A row is its values back to back; a batch is rows back to back.
const (
	tagNull   = 0
	tagFalse  = 1
	tagTrue   = 2
	tagInt    = 3
	tagFloat  = 4
	tagString = 5
	tagObject = 6
)

// ErrCorruptRows reports undecodable row bytes.
var ErrCorruptRows = errors.New("exec: corrupt row batch")

// appendValue appends one encoded value.
func appendValue(dst []byte, v expr.Value) []byte {
	switch {
	case v.IsNull() || v.T == expr.List:
		return append(dst, tagNull)
	case v.T == expr.Boolean:
		if v.I != 0 {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case v.T.IsFloat():
		dst = append(dst, tagFloat, byte(v.T))
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
	case v.T == expr.Varchar || v.T == expr.JSON:
		dst = append(dst, tagString, byte(v.T))
		dst = binary.AppendUvarint(dst, uint64(len(v.B)))
		return append(dst, v.B...)
	case v.T == expr.Object:
		dst = append(dst, tagObject)
		dst = binary.AppendUvarint(dst, uint64(len(v.B)))
		return append(dst, v.B...)
	}
	dst = append(dst, tagInt, byte(v.T))
	return binary.AppendVarint(dst, v.I)
}

// decodeInto reads one value into v (strings and objects alias b): an
// integer, the commonest value (keys), without a copy of the value.
func decodeInto(b []byte, v *expr.Value) ([]byte, error) {
	if len(b) > 2 && b[0] == tagInt {
		if t := expr.Type(b[1]); t.IsInteger() {
			u, n := binary.Uvarint(b[2:])
			if n > 0 {
				v.T, v.I, v.F, v.B, v.L = t, int64(u>>1)^-int64(u&1), 0, nil, nil
				return b[2+n:], nil
			}
		}
	}
	var err error
	*v, b, err = decodeValue(b)
	return b, err
}

// decodeValue reads one value; strings and objects alias b.
func decodeValue(b []byte) (expr.Value, []byte, error) {
	if len(b) == 0 {
		return expr.NullValue, nil, ErrCorruptRows
	}
	tag := b[0]
	b = b[1:]
	switch tag {
	case tagNull:
		return expr.NullValue, b, nil
	case tagFalse, tagTrue:
		return expr.BoolValue(tag == tagTrue), b, nil
	case tagInt:
		if len(b) < 1 {
			return expr.NullValue, nil, ErrCorruptRows
		}
		t := expr.Type(b[0])
		i, n := binary.Varint(b[1:])
		if n <= 0 || !(t.IsInteger() || t.IsTemporal() || t == expr.Boolean) {
			return expr.NullValue, nil, ErrCorruptRows
		}
		return expr.Value{T: t, I: i}, b[1+n:], nil
	case tagFloat:
		if len(b) < 9 || !expr.Type(b[0]).IsFloat() {
			return expr.NullValue, nil, ErrCorruptRows
		}
		return expr.Value{T: expr.Type(b[0]), F: math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))}, b[9:], nil
	case tagString:
		if len(b) < 1 {
			return expr.NullValue, nil, ErrCorruptRows
		}
		t := expr.Type(b[0])
		l, n := binary.Uvarint(b[1:])
		if n <= 0 || l > uint64(len(b)-1-n) || (t != expr.Varchar && t != expr.JSON) {
			return expr.NullValue, nil, ErrCorruptRows
		}
		s := b[1+n : 1+n+int(l)]
		return expr.Value{T: t, B: s[:len(s):len(s)]}, b[1+n+int(l):], nil
	case tagObject:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return expr.NullValue, nil, ErrCorruptRows
		}
		s := b[n : n+int(l)]
		return expr.Value{T: expr.Object, B: s[:len(s):len(s)]}, b[n+int(l):], nil
	}
	return expr.NullValue, nil, ErrCorruptRows
}

// Batch is a run of encoded rows.
type Batch struct {
	Rows  []byte
	Count int
	// pooled: Rows is a buffer of batchBuffers (a worker's, or a
	// fragment reply's copy) that only this batch holds.
	pooled bool
}

// Recycle gives the batch's buffer back for later batches once its rows
// were copied out (written to a connection, joined into a page); b.Rows
// must not be read afterwards. A batch whose buffer did not come from
// batchBuffers, or was handed on, keeps it; Recycle twice is Recycle once.
func (b *Batch) Recycle() {
	if b.pooled && cap(b.Rows) == batchCap {
		buf := b.Rows[:0]
		batchBuffers.Put(&buf)
	}
	b.Rows, b.pooled = nil, false
}

// DecodeRows decodes a batch of rows of width columns into values (strings
// and objects alias the batch).
func DecodeRows(b []byte, count, width int) ([][]expr.Value, error) {
	out := make([][]expr.Value, 0, count)
	flat := make([]expr.Value, count*width)
	for r := 0; r < count; r++ {
		row := flat[r*width : (r+1)*width : (r+1)*width]
		for c := range row {
			var err error
			if b, err = decodeInto(b, &row[c]); err != nil {
				return nil, err
			}
		}
		out = append(out, row)
	}
	if len(b) != 0 {
		return nil, ErrCorruptRows
	}
	return out, nil
}

// EncodeRow appends a row; an integer, the commonest value (keys), is
// written without a copy of the value.
func EncodeRow(dst []byte, row []expr.Value) []byte {
	for i := range row {
		if v := &row[i]; v.T.IsInteger() {
			dst = binary.AppendVarint(append(dst, tagInt, byte(v.T)), v.I)
		} else {
			dst = appendValue(dst, *v)
		}
	}
	return dst
}

// splitRows splits encoded rows after the first n rows of width columns.
func splitRows(b []byte, n, width int) (head, tail []byte, err error) {
	rest := b
	for i := 0; i < n*width; i++ {
		if _, rest, err = decodeValue(rest); err != nil {
			return nil, nil, err
		}
	}
	cut := len(b) - len(rest)
	return b[:cut:cut], rest, nil
}
