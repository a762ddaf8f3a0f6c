package identified

import (
	"encoding/binary"
	"testing"

	"github.com/atolldb/atoll/internal/serialization/wire"
)

// FuzzLocate checks locate's fast walk against the general one (walk from
// the last field at a constant offset) on any input: for every field both
// stop at the same position with the same error, or fail with the same
// error.
func FuzzLocate(f *testing.F) {
	l, err := NewLayout(1, 1, []LayoutField{{Name: "b", Op: OpBoolean}, {Name: "s", Op: OpString}, {Name: "i", Op: OpInt},
		{Name: "ia", Op: OpIntArray}, {Name: "ba", Op: OpBooleanArray}, {Name: "l", Op: OpLong}, {Name: "sa", Op: OpStringArray},
		{Name: "da", Op: OpDoubleArray}, {Name: "x", Op: OpString}, {Name: "c", Op: OpChar}})
	if err != nil {
		f.Fatal(err)
	}
	p := l.program(NewLayoutRegistry())
	be := binary.BigEndian
	valid := []byte{1}
	valid = append(be.AppendUint32(valid, 3), "abc"...)
	valid = be.AppendUint32(valid, 7)
	valid = be.AppendUint32(be.AppendUint32(be.AppendUint32(valid, 2), 10), 11)
	valid = be.AppendUint32(valid, 0xffffffff) // a null boolean array
	valid = be.AppendUint64(valid, 9)
	valid = append(be.AppendUint32(be.AppendUint32(valid, 1), 2), "xy"...)
	valid = be.AppendUint32(valid, 0)
	valid = append(be.AppendUint32(valid, 1), "z"...)
	valid = be.AppendUint16(valid, 'c')
	f.Add(valid, uint8(0))
	f.Add(valid[:len(valid)-1], uint8(0))
	f.Add(valid[:9], uint8(0))
	f.Add(append([]byte{9}, valid...), uint8(1))
	negative := append([]byte(nil), valid...)
	be.PutUint32(negative[1:], 0xfffffffe)
	f.Add(negative, uint8(0))
	huge := append([]byte(nil), valid...)
	be.PutUint32(huge[12:], 0x7fffffff)
	f.Add(huge, uint8(0))
	f.Fuzz(func(t *testing.T, buf []byte, start uint8) {
		st := int(start) % (len(buf) + 1)
		for i := range l.Fields {
			got, gerr := p.locate(nil, buf, st, i)
			want := wire.NewReader(buf, st+l.offsets[p.from[i]])
			werr := p.walk(nil, &want, p.from[i], i)
			if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Fatalf("field %d: locate's error %v, the general walk's %v", i, gerr, werr)
			}
			if got.Pos() != want.Pos() || got.Err() != want.Err() {
				t.Fatalf("field %d: locate stops at %d (%v), the general walk at %d (%v)", i, got.Pos(), got.Err(), want.Pos(), want.Err())
			}
		}
	})
}
