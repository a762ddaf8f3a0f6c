package predicate

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// FuzzDecode feeds arbitrary bytes to the predicate decoder (protobuf, then
// the tree checks): it must return a predicate or an error, never panic,
// and what it accepts must encode again.
func FuzzDecode(f *testing.F) {
	for _, p := range []Predicate{
		Equal("value", int64(5)), And(GreaterThan("age", 30), Like("name", "J%")),
		Or(In("x", 1, 2, "3"), Not(Between("y", 1.5, 2.5))), SQL("a = 1 AND b LIKE 'x%'"),
		Paging(Equal("a", true), 10, SortKey{Attribute: "b", Descending: true}), True(),
	} {
		q, err := ToProto(p, nil)
		if err != nil {
			f.Fatal(err)
		}
		b, _ := proto.Marshal(q)
		f.Add(b)
	}
	f.Add([]byte{0x3a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		var q pb.Predicate
		if proto.Unmarshal(b, &q) != nil {
			return
		}
		p, err := FromProto(&q)
		if err != nil {
			return
		}
		_ = p.String()
		_, err = ToProto(p, func(v any) ([]byte, error) { return v.(ObjectData), nil })
		require.NoError(t, err, "decoded predicate encodes")
	})
}

// FuzzParseSQL feeds arbitrary text to the predicate SQL parser.
func FuzzParseSQL(f *testing.F) {
	for _, s := range []string{"active AND age > 30", "name LIKE 'J%' OR name ILIKE 'j%'", "a BETWEEN 1 AND 5",
		"x IN (1, 2, 'three')", "NOT (a = 1)", "a IS NOT NULL", "arr[any].x = 5", "__key = 3", "((a))", "'open"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseSQL(s)
		if err != nil {
			return
		}
		_, err = ToProto(p, nil)
		require.NoError(t, err, "parsed predicate %q encodes", s)
	})
}
