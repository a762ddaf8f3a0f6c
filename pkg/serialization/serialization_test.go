package serialization_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/vectors"
	s "github.com/atolldb/atoll/pkg/serialization"
)

// committedVectors loads the repository's vectors (testdata/vectors), which
// Hazelcast's own serialization service wrote, by name.
func committedVectors(t testing.TB) map[string]vectors.Vector {
	t.Helper()
	vs, errs := vectors.Load("../../testdata/vectors")
	if len(errs) > 0 || len(vs) == 0 {
		t.Fatalf("loading vectors: %v", errs)
	}
	m := make(map[string]vectors.Vector, len(vs))
	for _, v := range vs {
		m[v.Name] = v
	}
	return m
}

func vectorBytes(t testing.TB, vs map[string]vectors.Vector, name string) []byte {
	t.Helper()
	v, ok := vs[name]
	if !ok {
		t.Fatalf("vector %s not found", name)
	}
	b, err := hex.DecodeString(v.DataHex)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newService(t testing.TB) *s.Service {
	t.Helper()
	svc, err := s.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// The Go model types, written through the public API as a user would, must
// produce exactly the bytes the Java benchmark stores.
func TestModelTypesMatchBenchmarkVectors(t *testing.T) {
	vs := committedVectors(t)
	svc := newService(t)
	large1 := benchmodel.LargeForKey(1)
	small1 := benchmodel.SmallForKey(1)
	small1000 := benchmodel.SmallForKey(1000)
	cases := []struct {
		vector string
		value  any
	}{
		{"compact_small_bench_key1", &small1},
		{"compact_small_bench_key1000", &small1000},
		{"compact_large_bench_key1", &large1},
		{"portable_large_bench_key1", benchmodel.NewPortableLarge(large1)},
		{"identified_large_bench_key1", benchmodel.NewIdentifiedLarge(large1)},
		{"identified_adoc_key1", &benchmodel.IdentifiedADoc{Value: 1, Payload: benchmodel.APayload(1)}},
		{"portable_adoc_key1", &benchmodel.PortableADoc{Value: 1, Payload: benchmodel.APayload(1)}},
		{"json_adoc_key1", s.JSON(benchmodel.AJSON(1))},
	}
	for _, c := range cases {
		t.Run(c.vector, func(t *testing.T) {
			want := vectorBytes(t, vs, c.vector)
			got, err := svc.ToData(c.value)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("bytes differ:\n got  %x\n want %x", []byte(got), want)
			}
			back, err := svc.ToObject(got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, c.value) {
				t.Fatalf("round trip:\n got  %#v\n want %#v", back, c.value)
			}
		})
	}
}

func TestByteArrayKindSizesMatchIdentifiedPayload(t *testing.T) {
	svc := newService(t)
	small := benchmodel.IdentifiedSmall(benchmodel.FixedSmall())
	d, err := svc.ToData(&small)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Payload()); n != benchmodel.SmallBytesLen {
		t.Errorf("IDENTIFIED SMALL payload = %d bytes, want %d", n, benchmodel.SmallBytesLen)
	}
	d, err = svc.ToData(benchmodel.NewIdentifiedLarge(benchmodel.FixedLarge()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Payload()); n != benchmodel.LargeBytesLen {
		t.Errorf("IDENTIFIED LARGE payload = %d bytes, want %d", n, benchmodel.LargeBytesLen)
	}
}

func TestBuiltinRoundTrips(t *testing.T) {
	svc := newService(t)
	str := "x"
	values := []any{
		true, int8(-5), uint8(200), s.Char('é'), int16(-300), int32(7), int64(-1 << 40), 3, float32(1.5), 2.25,
		"héllo 😀", "", s.JSON(`{"a":1}`), s.UUIDFromBits(1, -2),
		[]byte{1, 2}, []bool{true, false}, []s.Char{'a'}, []int16{1}, []int32{1, -1}, []int64{5},
		[]float32{0.5}, []float64{-0.25}, []string{"a", "b"}, []*string{&str, nil},
	}
	for _, v := range values {
		d, err := svc.ToData(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		got, err := svc.ToObject(d)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		want := v
		switch x := v.(type) {
		case uint8:
			want = int8(x)
		case int:
			want = int64(x)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: got %#v, want %#v", v, got, want)
		}
	}
}

func TestNaNIsCanonicalized(t *testing.T) {
	svc := newService(t)
	d, err := svc.ToData(math.Float64frombits(0x7ff8000000000123))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(d.Payload()); got != "7ff8000000000000" {
		t.Fatalf("NaN payload %s, want Java's canonical 7ff8000000000000", got)
	}
}

func TestPartitionID(t *testing.T) {
	cases := []struct {
		hash, count, want int32
	}{
		{math.MinInt32, 271, 0}, // Java abs(MinInt32) is negative; Hazelcast maps it to 0
		{-1, 271, 1},
		{271, 271, 0},
		{2132451398, 271, 94},
		{5, 0, 0},
	}
	for _, c := range cases {
		if got := s.PartitionID(c.hash, c.count); got != c.want {
			t.Errorf("PartitionID(%d, %d) = %d, want %d", c.hash, c.count, got, c.want)
		}
	}
	d, err := newService(t).ToData("key-1")
	if err != nil {
		t.Fatal(err)
	}
	if h, p := d.PartitionHash(), d.PartitionID(271); h != 2132451398 || p != 94 {
		t.Fatalf(`"key-1" hashes to %d / partition %d, want 2132451398 / 94`, h, p)
	}
}

// TestIntegerPayloadHash: LongPayloadHash and IntPayloadHash hash as
// PartitionHash does the Data of an int64 and an int32 with the same value.
func TestIntegerPayloadHash(t *testing.T) {
	svc := newService(t)
	r := rand.New(rand.NewPCG(1, 2))
	longs := []int64{0, 1, -1, 150000, math.MaxInt64, math.MinInt64, 1 << 32, -1 << 31}
	for range 2000 {
		longs = append(longs, int64(r.Uint64()), r.Int64N(1<<20))
	}
	for _, v := range longs {
		d, err := svc.ToData(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.LongPayloadHash(v), d.PartitionHash(); got != want {
			t.Fatalf("LongPayloadHash(%d) = %d, want %d", v, got, want)
		}
		i := int32(v)
		if d, err = svc.ToData(i); err != nil {
			t.Fatal(err)
		}
		if got, want := s.IntPayloadHash(i), d.PartitionHash(); got != want {
			t.Fatalf("IntPayloadHash(%d) = %d, want %d", i, got, want)
		}
	}
}

// TestDataInts: Data.Int32 and Data.Int64 read what ToData wrote for
// int32 and int64, and refuse every other Data.
func TestDataInts(t *testing.T) {
	svc := newService(t)
	data := func(v any) s.Data {
		d, err := svc.ToData(v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, v := range []int32{0, -1, 300, math.MinInt32, math.MaxInt32} {
		if got, ok := data(v).Int32(); !ok || got != v {
			t.Errorf("Int32 of %d: %d, %v", v, got, ok)
		}
		if _, ok := data(v).Int64(); ok {
			t.Errorf("Int64 accepted an Integer (%d)", v)
		}
	}
	for _, v := range []int64{0, -1, 1 << 40, math.MinInt64} {
		if got, ok := data(v).Int64(); !ok || got != v {
			t.Errorf("Int64 of %d: %d, %v", v, got, ok)
		}
		if _, ok := data(v).Int32(); ok {
			t.Errorf("Int32 accepted a Long (%d)", v)
		}
	}
	for _, d := range []s.Data{nil, data("seven"), data(int16(7)), data(int32(7))[:10], append(data(int32(7)), 0)} {
		if _, ok := d.Int32(); ok {
			t.Errorf("Int32 accepted %x", []byte(d))
		}
	}
}

type colocated struct{ id, customer string }

func (c colocated) PartitionKey() any { return c.customer }

type colocatedSerializer struct{}

func (colocatedSerializer) Type() reflect.Type { return reflect.TypeFor[colocated]() }
func (colocatedSerializer) TypeName() string   { return "order" }
func (colocatedSerializer) Write(w *s.CompactWriter, v any) {
	c := v.(colocated)
	w.WriteString("id", c.id)
	w.WriteString("customer", c.customer)
}
func (colocatedSerializer) Read(r *s.CompactReader) any {
	return colocated{id: r.ReadString("id"), customer: r.ReadString("customer")}
}

func TestPartitionAwareKeysShareThePartitionOfTheirPartitionKey(t *testing.T) {
	svc, err := s.NewService(s.Config{CompactSerializers: []s.CompactSerializer{colocatedSerializer{}}})
	if err != nil {
		t.Fatal(err)
	}
	order, err := svc.ToData(colocated{id: "o-1", customer: "c-42"})
	if err != nil {
		t.Fatal(err)
	}
	customer, err := svc.ToData("c-42")
	if err != nil {
		t.Fatal(err)
	}
	if order.PartitionHash() != customer.PartitionHash() {
		t.Fatalf("order hash %d, customer hash %d: not colocated", order.PartitionHash(), customer.PartitionHash())
	}
}

// Schema evolution: data written by an older serializer (without "c") reads
// with a newer one, which sees the field as absent and gets a default.
type evolving struct {
	A int32
	B string
	C int64
}

type evolvingSerializer struct{ withC bool }

func (evolvingSerializer) Type() reflect.Type { return reflect.TypeFor[*evolving]() }
func (evolvingSerializer) TypeName() string   { return "evolving" }
func (e evolvingSerializer) Write(w *s.CompactWriter, v any) {
	x := v.(*evolving)
	w.WriteInt32("a", x.A)
	w.WriteString("b", x.B)
	if e.withC {
		w.WriteInt64("c", x.C)
	}
}
func (evolvingSerializer) Read(r *s.CompactReader) any {
	x := &evolving{A: r.ReadInt32("a"), B: r.ReadString("b"), C: -1}
	if r.FieldKind("c") == s.KindInt64 {
		x.C = r.ReadInt64("c")
	}
	return x
}

func TestCompactSchemaEvolution(t *testing.T) {
	schemas := s.NewSchemaRegistry()
	v1, err := s.NewService(s.Config{Schemas: schemas, CompactSerializers: []s.CompactSerializer{evolvingSerializer{withC: false}}})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := s.NewService(s.Config{Schemas: schemas, CompactSerializers: []s.CompactSerializer{evolvingSerializer{withC: true}}})
	if err != nil {
		t.Fatal(err)
	}
	old, err := v1.ToData(&evolving{A: 1, B: "one"})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := v2.ToData(&evolving{A: 2, B: "two", C: 22})
	if err != nil {
		t.Fatal(err)
	}
	got, err := v2.ToObject(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&evolving{A: 1, B: "one", C: -1}); !reflect.DeepEqual(got, want) {
		t.Fatalf("old data with new reader: %#v, want %#v", got, want)
	}
	got, err = v1.ToObject(newer)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&evolving{A: 2, B: "two", C: 22}); !reflect.DeepEqual(got, want) {
		t.Fatalf("new data with reader that checks for c: %#v, want %#v", got, want)
	}
	rec, err := s.ReadCompactRecord(old, schemas)
	if err != nil {
		t.Fatal(err)
	}
	if rec.HasField("c") {
		t.Fatal("old record claims field c")
	}
	if _, err := rec.GetInt64("c"); !errors.Is(err, s.ErrFieldKind) {
		t.Fatalf("GetInt64 of an absent field: %v, want ErrFieldKind", err)
	}
}

func TestCompactReadsNullableKindsThroughPlainAccessors(t *testing.T) {
	rec, err := s.NewCompactRecordBuilder("n").
		Set("present", s.KindNullableInt32, int32(5)).
		Set("missing", s.KindNullableInt32, nil).
		Set("plain", s.KindInt32, int32(9)).
		Build()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := rec.GetInt32("present"); err != nil || v != 5 {
		t.Fatalf("GetInt32(present) = %d, %v", v, err)
	}
	if _, err := rec.GetInt32("missing"); !errors.Is(err, s.ErrFieldKind) {
		t.Fatalf("GetInt32(null) = %v, want ErrFieldKind", err)
	}
	if v, err := rec.GetNullableInt32("plain"); err != nil || v == nil || *v != 9 {
		t.Fatalf("GetNullableInt32(plain) = %v, %v", v, err)
	}
	if _, err := rec.GetString("plain"); !errors.Is(err, s.ErrFieldKind) {
		t.Fatalf("GetString(int field) = %v, want ErrFieldKind", err)
	}
}

// Portable data written with class version 1 reads with a version 2 class:
// fields are found by name, the added one reads as zero.
type personV1 struct{ Name string }

func (*personV1) FactoryID() int32                    { return 9 }
func (*personV1) ClassID() int32                      { return 1 }
func (*personV1) ClassVersion() int32                 { return 1 }
func (p *personV1) WritePortable(w *s.PortableWriter) { w.WriteString("name", p.Name) }
func (p *personV1) ReadPortable(r *s.PortableReader)  { p.Name = r.ReadString("name") }
func (*personV2) FactoryID() int32                    { return 9 }
func (*personV2) ClassID() int32                      { return 1 }
func (*personV2) ClassVersion() int32                 { return 2 }
func (p *personV2) WritePortable(w *s.PortableWriter) {
	w.WriteString("name", p.Name)
	w.WriteInt32("age", p.Age)
}
func (p *personV2) ReadPortable(r *s.PortableReader) {
	p.Name, p.Age = r.ReadString("name"), r.ReadInt32("age")
}
func (personFactory) FactoryID() int32                { return 9 }
func (personFactory) Create(classID int32) s.Portable { return &personV2{} }

type personV2 struct {
	Name string
	Age  int32
}
type personFactory struct{}

func TestPortableVersions(t *testing.T) {
	writer, err := s.NewService(s.Config{})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := s.NewService(s.Config{PortableFactories: []s.PortableFactory{personFactory{}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := writer.ToData(&personV1{Name: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reader.ToObject(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&personV2{Name: "ada"}); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	rec, err := s.ReadPortableRecord(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version() != 1 || rec.FieldKind("age") != s.KindNotAvailable || rec.FieldKind("name") != s.KindString {
		t.Fatalf("record version %d, age %v, name %v", rec.Version(), rec.FieldKind("age"), rec.FieldKind("name"))
	}
}

func TestIdentifiedLayoutReadsWithoutGoType(t *testing.T) {
	writer := newService(t)
	large := benchmodel.LargeForKey(3)
	d, err := writer.ToData(benchmodel.NewIdentifiedLarge(large))
	if err != nil {
		t.Fatal(err)
	}
	// A member knows only the layouts.
	member, err := s.NewService(s.Config{Layouts: benchmodel.Layouts()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := member.ToObject(d)
	if err != nil {
		t.Fatal(err)
	}
	rec := v.(*s.IdentifiedRecord)
	if got, _ := rec.GetString("stringField"); got != large.StringField {
		t.Fatalf("stringField %q, want %q", got, large.StringField)
	}
	if got, _ := rec.GetInt64("longField"); got != large.LongField {
		t.Fatalf("longField %d, want %d", got, large.LongField)
	}
	arr, err := rec.GetArrayOfInline("smallArray")
	if err != nil || len(arr) != 3 {
		t.Fatalf("smallArray: %v, %v", arr, err)
	}
	if got, _ := arr[2].GetString("stringField"); got != large.SmallArray[2].StringField {
		t.Fatalf("smallArray[2].stringField %q, want %q", got, large.SmallArray[2].StringField)
	}
	// Rewriting the record from its fields gives the same bytes.
	again, err := member.ToData(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, d) {
		t.Fatal("rewritten IDS record differs from the original")
	}
}

// namedString is a struct serialized with zero-config Compact.
type namedString struct{ Name string }

func TestTypedErrors(t *testing.T) {
	svc := newService(t)
	if _, err := svc.ToData(nil); !errors.Is(err, s.ErrUnsupportedType) {
		t.Errorf("nil: %v", err)
	}
	if _, err := svc.ToData(struct{ X int }{}); !errors.Is(err, s.ErrUnsupportedType) {
		t.Errorf("unregistered struct: %v", err)
	}
	bad := string([]byte{'a', 0xff, 0xfe})
	large := benchmodel.LargeForKey(3)
	large.StringArray = []string{"ok", bad}
	badField := benchmodel.SmallForKey(3)
	badField.StringField = bad
	portableSmall, identifiedSmall := benchmodel.PortableSmall(badField), benchmodel.IdentifiedSmall(badField)
	for name, v := range map[string]any{
		"string":                  bad,
		"string array":            []string{"ok", bad},
		"string pointer array":    []*string{nil, &bad},
		"JSON":                    s.JSON(bad),
		"compact string field":    &namedString{Name: bad},
		"compact string array":    &large,
		"portable string field":   &portableSmall,
		"portable string array":   benchmodel.NewPortableLarge(large),
		"identified string field": &identifiedSmall,
		"identified string array": benchmodel.NewIdentifiedLarge(large),
	} {
		var se *s.StringError
		if _, err := svc.ToData(v); !errors.Is(err, s.ErrInvalidString) || !errors.As(err, &se) || se.Value != bad {
			t.Errorf("invalid UTF-8 in a %s: %v", name, err)
		}
	}
	small := benchmodel.SmallForKey(2)
	d, err := svc.ToData(&small)
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := s.NewService(s.Config{})
	_, err = stranger.ToObject(d)
	var notFound *s.SchemaNotFoundError
	if !errors.Is(err, s.ErrUnknownSchema) || !errors.As(err, &notFound) {
		t.Errorf("unknown schema: %v", err)
	}
	ids, err := svc.ToData(benchmodel.NewIdentifiedLarge(benchmodel.LargeForKey(2)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stranger.ToObject(ids); !errors.Is(err, s.ErrUnknownClass) {
		t.Errorf("unknown IDS class: %v", err)
	}
	if _, err := svc.ToObject(s.Data{0, 0, 0}); !errors.Is(err, s.ErrMalformed) {
		t.Errorf("short data: %v", err)
	}
	if _, err := svc.ToObject(s.Data{0, 0, 0, 0, 0xff, 0xff, 0xff, 0x9c}); !errors.Is(err, s.ErrMalformed) {
		t.Errorf("Java serializable type id: %v", err)
	}
	if _, err := s.NewSchema("t", []s.FieldDef{{Name: "a", Kind: s.KindInt32}, {Name: "a", Kind: s.KindInt8}}); !errors.Is(err, s.ErrInvalidDefinition) {
		t.Errorf("duplicate field: %v", err)
	}
	if _, err := s.NewSchema("t", []s.FieldDef{{Name: "p", Kind: s.KindPortable}}); !errors.Is(err, s.ErrInvalidDefinition) {
		t.Errorf("portable kind in compact: %v", err)
	}
}

// serviceForVectors knows every schema, class definition and layout the
// committed vectors use, so that hostile variants of them get past lookups.
func serviceForVectors(t testing.TB) *s.Service {
	svc, err := s.NewService(vectors.Config(committedVectorsList(t)))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func committedVectorsList(t testing.TB) []vectors.Vector {
	m := committedVectors(t)
	out := make([]vectors.Vector, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// readAll touches every field of a decoded value, so lazily validated
// records are exercised too.
// recordFieldNames lists the fields of a Compact, Portable or IDS record;
// ok is false for other values.
func recordFieldNames(v any) (names []string, ok bool) {
	switch r := v.(type) {
	case *s.CompactRecord:
		for _, f := range r.Schema().Fields {
			names = append(names, f.Name)
		}
	case *s.PortableRecord:
		if cd, err := r.ClassDefinition(); err == nil {
			for _, f := range cd.Fields {
				names = append(names, f.Name)
			}
		}
	case *s.IdentifiedRecord:
		for _, f := range r.Layout().Fields {
			names = append(names, f.Name)
		}
	default:
		return nil, false
	}
	return names, true
}

func readAll(v any) {
	type fields interface{ Get(string) (any, error) }
	if rv := reflect.ValueOf(v); !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return
	}
	names, ok := recordFieldNames(v)
	if !ok {
		return
	}
	for _, n := range names {
		if x, err := v.(fields).Get(n); err == nil {
			readAll(x)
			if items := reflect.ValueOf(x); items.Kind() == reflect.Slice {
				for i := 0; i < items.Len(); i++ {
					readAll(items.Index(i).Interface())
				}
			}
		}
	}
}

// Every proper prefix of every vector must decode to an error (or, where the
// cut falls on a record boundary that is read lazily, to a record whose
// field reads fail cleanly), and never panic.
func TestTruncatedInputNeverPanics(t *testing.T) {
	svc := serviceForVectors(t)
	for name, v := range committedVectors(t) {
		data, _ := hex.DecodeString(v.DataHex)
		for n := 0; n < len(data); n++ {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s cut at %d: panic %v", name, n, p)
					}
				}()
				out, err := svc.ToObject(data[:n])
				if err == nil {
					readAll(out)
				}
			}()
		}
	}
}

func TestCorruptedInputNeverPanics(t *testing.T) {
	svc := serviceForVectors(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for name, v := range committedVectors(t) {
		data, _ := hex.DecodeString(v.DataHex)
		for i := 0; i < 300; i++ {
			b := bytes.Clone(data)
			for j := 0; j < 1+rng.IntN(3); j++ {
				pos := HeaderSize + rng.IntN(max(1, len(b)-HeaderSize))
				if pos < len(b) {
					b[pos] ^= byte(1 + rng.IntN(255))
				}
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s corrupted %x: panic %v", name, b, p)
					}
				}()
				if out, err := svc.ToObject(b); err == nil {
					readAll(out)
				}
			}()
		}
	}
}

const HeaderSize = s.HeaderSize

// linkNode is a recursive Compact type for the nesting tests.
type linkNode struct {
	Name string
	Next *linkNode
}

type linkNodeSerializer struct{}

func (linkNodeSerializer) Type() reflect.Type { return reflect.TypeFor[*linkNode]() }
func (linkNodeSerializer) TypeName() string   { return "node" }
func (linkNodeSerializer) Write(w *s.CompactWriter, v any) {
	n := v.(*linkNode)
	w.WriteString("name", n.Name)
	w.WriteCompact("next", n.Next)
}
func (linkNodeSerializer) Read(r *s.CompactReader) any {
	n := &linkNode{Name: r.ReadString("name")}
	n.Next, _ = r.ReadCompact("next").(*linkNode)
	return n
}

func TestCyclicValuesFailInsteadOfOverflowing(t *testing.T) {
	svc, err := s.NewService(s.Config{CompactSerializers: []s.CompactSerializer{linkNodeSerializer{}}})
	if err != nil {
		t.Fatal(err)
	}
	list := &linkNode{Name: "a", Next: &linkNode{Name: "b"}}
	d, err := svc.ToData(list)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := svc.ToObject(d); err != nil || back.(*linkNode).Next.Name != "b" || back.(*linkNode).Next.Next != nil {
		t.Fatalf("round trip: %#v, %v", back, err)
	}
	cycle := &linkNode{Name: "loop"}
	cycle.Next = cycle
	if _, err := svc.ToData(cycle); !errors.Is(err, s.ErrUnsupportedType) {
		t.Fatalf("cyclic value: %v, want an error", err)
	}
}

// An IDS value holding a nil pointer of a registered Compact type writes a
// null object instead of calling the Compact serializer with nil.
type holder struct{ item *linkNode }

func (*holder) FactoryID() int32                                { return 77 }
func (*holder) ClassID() int32                                  { return 1 }
func (h *holder) WriteData(out *s.DataOutput)                   { out.WriteObject(h.item) }
func (h *holder) ReadData(in *s.DataInput)                      { h.item, _ = in.ReadObject().(*linkNode) }
func (holderFactory) FactoryID() int32                          { return 77 }
func (holderFactory) Create(int32) s.IdentifiedDataSerializable { return &holder{} }

type holderFactory struct{}

func TestNilNestedPointerIsNull(t *testing.T) {
	svc, err := s.NewService(s.Config{
		CompactSerializers:  []s.CompactSerializer{linkNodeSerializer{}},
		IdentifiedFactories: []s.IdentifiedFactory{holderFactory{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.ToData(&holder{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := svc.ToObject(d)
	if err != nil || back.(*holder).item != nil {
		t.Fatalf("got %#v, %v", back, err)
	}
}

// Offsets that point every field at the same nested object must not make a
// full decode exponential.
func TestOverlappingOffsetsAreBounded(t *testing.T) {
	svc, err := s.NewService(s.Config{CompactSerializers: []s.CompactSerializer{twinSerializer{}}})
	if err != nil {
		t.Fatal(err)
	}
	// Build a chain of 18 pairs (small enough for one-byte offsets) and
	// point every right field at the left one: 2^18 nested objects when
	// decoded naively, from a few hundred bytes.
	const levels = 18
	var p *twin
	for i := 0; i < levels; i++ {
		p = &twin{L: p, R: nil}
	}
	d, err := svc.ToData(p)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.ReadCompactRecord(d, svc.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	hostile, aliased := aliasRight(t, d, rec.Schema())
	if aliased != levels {
		t.Fatalf("aliased %d levels, want %d", aliased, levels)
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.ToObject(hostile)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a 2^18-object decode from overlapping offsets succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("decoding overlapping offsets did not stop")
	}
}

type twin struct{ L, R *twin }

type twinSerializer struct{}

func (twinSerializer) Type() reflect.Type { return reflect.TypeFor[*twin]() }
func (twinSerializer) TypeName() string   { return "pair" }
func (twinSerializer) Write(w *s.CompactWriter, v any) {
	p := v.(*twin)
	w.WriteCompact("l", p.L)
	w.WriteCompact("r", p.R)
}
func (twinSerializer) Read(r *s.CompactReader) any {
	p := &twin{}
	p.L, _ = r.ReadCompact("l").(*twin)
	p.R, _ = r.ReadCompact("r").(*twin)
	return p
}

// aliasRight rewrites every twin's offset table so that "r" points where
// "l" does (the same nested bytes, so the structure stays well-formed).
func aliasRight(t *testing.T, d s.Data, schema *s.Schema) (s.Data, int) {
	t.Helper()
	out := bytes.Clone(d)
	n := 0
	l, _ := schema.Field("l")
	r, _ := schema.Field("r")
	// Every twin is schema id (8) + data length (4) + body + 2 one-byte
	// offsets (the data is small), nested inside its parent's body.
	for i := 0; i+8 <= len(out); i++ {
		if int64(binary.BigEndian.Uint64(out[i:])) != schema.ID || i+12 > len(out) {
			continue
		}
		dataLen := int(binary.BigEndian.Uint32(out[i+8:]))
		table := i + 12 + dataLen
		if table+2 > len(out) || dataLen >= 255 {
			continue
		}
		out[table+int(r.Index)] = out[table+int(l.Index)]
		n++
	}
	return out, n
}
