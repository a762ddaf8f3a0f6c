package portable

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// topObject is a Portable object of class 1/2 version 3 with the fields
// "value" (LONG), "name" (UTF) and "when" (DATE), in the binary form Top
// reads: header, identity, end and field count, field table, entries.
func topObject(value int64, name string) []byte {
	be := binary.BigEndian
	typ := core.TypePortable
	d := be.AppendUint32(make([]byte, 4), uint32(typ))
	d = be.AppendUint32(d, 1)
	d = be.AppendUint32(d, 2)
	d = be.AppendUint32(d, 3)
	body := len(d)
	const count = 3
	d = append(d, make([]byte, 8+4*(count+1))...)
	entry := func(i int, field string, typeID byte, v []byte) {
		be.PutUint32(d[body+8+4*i:], uint32(len(d)))
		d = be.AppendUint16(d, uint16(len(field)))
		d = append(d, field...)
		d = append(d, typeID)
		d = append(d, v...)
	}
	entry(0, "value", 6, be.AppendUint64(nil, uint64(value)))
	entry(1, "name", 9, append(be.AppendUint32(nil, uint32(len(name))), name...))
	entry(2, "when", 24, []byte{0, 0x07, 0xea, 11, 29}) // not null, 2026-11-29
	be.PutUint32(d[body:], uint32(len(d)))
	be.PutUint32(d[body+4:], count)
	return d
}

// topNode is a node for field with a plan for class 1/2 version 3 that
// looks at index hint of the field table first, as Object leaves it.
func topNode(field string, hint int32) *Node {
	n := &Node{Steps: []core.PathStep{{Name: field, Index: -1}}, Opts: &core.PathOptions{}}
	c := &pathPlan{factoryID: 1, classID: 2, version: 3}
	c.hint.Store(hint)
	n.plans.Add(c)
	return n
}

// TestTopComparesTheFieldItFoundLast: once Top has read a field, it
// compares the next object's entry with the one it found (name, type and
// place in the table, in one go). What it returns for any object must be
// what a node that never read returns, which checks the entry part by
// part: objects whose bytes differ anywhere, objects cut short.
func TestTopComparesTheFieldItFoundLast(t *testing.T) {
	type result struct {
		ok bool
		v  core.FieldValue
	}
	top := func(n *Node, d []byte) result {
		var v core.FieldValue
		ok := n.Top(d, &v)
		v.B = append([]byte(nil), v.B...) // d changes after
		return result{ok, v}
	}
	checked, read := 0, 0
	for _, field := range []string{"value", "name", "when"} {
		for _, hint := range []int32{0, 1, 2} {
			warm := topNode(field, hint)
			base := topObject(42, "metin")
			top(warm, base)
			check := func(d []byte, what string) {
				t.Helper()
				want := top(topNode(field, hint), d)
				got := top(warm, d)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s (table index %d), %s: got %+v, want %+v", field, hint, what, got, want)
				}
				checked++
				if got.ok {
					read++
				}
			}
			for i := range base {
				for _, x := range []byte{0x01, 0x02, 0x08, 0x10, 0x80, 0xff} {
					d := append([]byte(nil), base...)
					d[i] ^= x
					check(d, fmt.Sprintf("byte %d ^ %#x", i, x))
					check(base, "as written, after it")
				}
			}
			for n := range len(base) {
				check(base[:n], fmt.Sprintf("cut to %d bytes", n))
			}
			check(topObject(-7, "a longer name than before"), "other values")
		}
	}
	if read < checked/5 { // a third of the nodes look at the field's own index
		t.Fatalf("only %d of %d reads found the field", read, checked)
	}
}
