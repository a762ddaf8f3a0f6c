package serialization_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, on machines without a zone database

	"github.com/atolldb/atoll/bench/model"
	s "github.com/atolldb/atoll/pkg/serialization"
)

// rSmall and rLarge mirror model.Small and model.Large field for field and
// take the type names of the benchmark's Java classes, so zero-config must
// write the Java serializer's bytes.
type rSmall struct {
	IntField    int32
	LongField   int64
	DoubleField float64
	StringField string
}

func (rSmall) CompactTypeName() string { return "small" }

type rLarge struct {
	BooleanField bool
	BooleanArray []bool
	ByteField    int8
	ByteArray    []int8
	ShortField   int16
	ShortArray   []int16
	IntField     int32
	IntArray     []int32
	LongField    int64
	LongArray    []int64
	FloatField   float32
	FloatArray   []float32
	DoubleField  float64
	DoubleArray  []float64
	StringField  string
	StringArray  []string
	Small        rSmall
	SmallArray   []rSmall
}

func (*rLarge) CompactTypeName() string { return "large" } // pointer receiver on purpose

func mirrorSmall(m model.Small) rSmall { return rSmall(m) }

func mirrorLarge(m model.Large) rLarge {
	r := rLarge{
		BooleanField: m.BooleanField, BooleanArray: m.BooleanArray,
		ByteField: m.ByteField, ByteArray: m.ByteArray,
		ShortField: m.ShortField, ShortArray: m.ShortArray,
		IntField: m.IntField, IntArray: m.IntArray,
		LongField: m.LongField, LongArray: m.LongArray,
		FloatField: m.FloatField, FloatArray: m.FloatArray,
		DoubleField: m.DoubleField, DoubleArray: m.DoubleArray,
		StringField: m.StringField, StringArray: m.StringArray,
		Small: rSmall(m.Small),
	}
	for _, x := range m.SmallArray {
		r.SmallArray = append(r.SmallArray, rSmall(x))
	}
	return r
}

func mustService(t testing.TB, cfg s.Config) *s.Service {
	t.Helper()
	svc, err := s.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func mustReflective[T any](t testing.TB, name string) s.CompactSerializer {
	t.Helper()
	ser, err := s.ReflectiveSerializer[T](name)
	if err != nil {
		t.Fatal(err)
	}
	return ser
}

// Reflective serializers of structs with the Java classes' field names,
// kinds and declaration order write the bytes of the hand-written
// serializers, which are the bytes the Java benchmark stores.
func TestReflectiveMatchesHandWrittenBytes(t *testing.T) {
	vs := committedVectors(t)
	small1, small1000, large1 := model.SmallForKey(1), model.SmallForKey(1000), model.LargeForKey(1)
	rsmall1, rsmall1000, rlarge1 := mirrorSmall(small1), mirrorSmall(small1000), mirrorLarge(large1)

	modelTypes := mustService(t, s.Config{CompactSerializers: []s.CompactSerializer{
		mustReflective[*model.Large](t, "large"), mustReflective[*model.Small](t, "small"),
	}})
	// Large is reflective, the Small it nests has its hand-written serializer.
	mixed := mustService(t, s.Config{CompactSerializers: []s.CompactSerializer{
		mustReflective[*model.Large](t, "large"), model.SmallCompact{},
	}})
	zeroConfig := mustService(t, s.Config{})
	handWritten := newService(t)

	cases := []struct {
		name   string
		svc    *s.Service
		value  any
		vector string
	}{
		{"model types/small key 1", modelTypes, &small1, "compact_small_bench_key1"},
		{"model types/small key 1000", modelTypes, &small1000, "compact_small_bench_key1000"},
		{"model types/large key 1", modelTypes, &large1, "compact_large_bench_key1"},
		{"mixed/large key 1", mixed, &large1, "compact_large_bench_key1"},
		{"zero-config/small key 1", zeroConfig, &rsmall1, "compact_small_bench_key1"},
		{"zero-config/small key 1000", zeroConfig, &rsmall1000, "compact_small_bench_key1000"},
		{"zero-config/large key 1", zeroConfig, &rlarge1, "compact_large_bench_key1"},
		{"zero-config/large value key 1", zeroConfig, rlarge1, "compact_large_bench_key1"},
		{"hand-written/large key 1", handWritten, &large1, "compact_large_bench_key1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.svc.ToData(c.value)
			if err != nil {
				t.Fatal(err)
			}
			if want := vectorBytes(t, vs, c.vector); !bytes.Equal(d, want) {
				t.Fatalf("bytes differ from vector %s\n got %x\nwant %x", c.vector, []byte(d), want)
			}
			// The Java bytes decode back to the value.
			back, err := c.svc.ToObject(d)
			if err != nil {
				t.Fatal(err)
			}
			want := reflect.ValueOf(c.value)
			if want.Kind() != reflect.Pointer {
				p := reflect.New(want.Type())
				p.Elem().Set(want)
				want = p
			}
			if !sameValue(reflect.ValueOf(back), want) {
				t.Fatalf("decoded %+v, want %+v", back, want.Interface())
			}
		})
	}
}

type status int32

type point struct {
	X, Y  int32
	Label *string
}

// kinds has a field of every supported Go type.
type kinds struct {
	Bool    bool
	Int8    int8
	Uint8   uint8
	Int16   int16
	Int32   int32
	Int64   int64
	Int     int
	Float32 float32
	Float64 float64
	String  string
	Status  status

	BoolPtr    *bool
	Int8Ptr    *int8
	Uint8Ptr   *uint8
	Int16Ptr   *int16
	Int32Ptr   *int32
	Int64Ptr   *int64
	IntPtr     *int
	Float32Ptr *float32
	Float64Ptr *float64
	StringPtr  *string

	Bools    []bool
	Int8s    []int8
	Bytes    []byte
	Int16s   []int16
	Int32s   []int32
	Int64s   []int64
	Ints     []int
	Float32s []float32
	Float64s []float64
	Strings  []string

	BoolPtrs    []*bool
	Int8Ptrs    []*int8
	Uint8Ptrs   []*uint8
	Int16Ptrs   []*int16
	Int32Ptrs   []*int32
	Int64Ptrs   []*int64
	IntPtrs     []*int
	Float32Ptrs []*float32
	Float64Ptrs []*float64
	StringPtrs  []*string

	Decimal     s.Decimal
	DecimalPtr  *s.Decimal
	Decimals    []s.Decimal
	DecimalPtrs []*s.Decimal

	Time     s.LocalTime
	TimePtr  *s.LocalTime
	Times    []s.LocalTime
	TimePtrs []*s.LocalTime

	Date     s.LocalDate
	DatePtr  *s.LocalDate
	Dates    []s.LocalDate
	DatePtrs []*s.LocalDate

	Timestamp     s.LocalDateTime
	TimestampPtr  *s.LocalDateTime
	Timestamps    []s.LocalDateTime
	TimestampPtrs []*s.LocalDateTime

	OffsetTime     s.OffsetDateTime
	OffsetTimePtr  *s.OffsetDateTime
	OffsetTimes    []s.OffsetDateTime
	OffsetTimePtrs []*s.OffsetDateTime

	GoTime     time.Time
	GoTimePtr  *time.Time
	GoTimes    []time.Time
	GoTimePtrs []*time.Time

	Point     point
	PointPtr  *point
	Points    []point
	PointPtrs []*point
}

// kindsSchema is the Compact kind of every field of kinds.
var kindsSchema = map[string]s.FieldKind{
	"bool": s.KindBoolean, "int8": s.KindInt8, "uint8": s.KindInt8, "int16": s.KindInt16,
	"int32": s.KindInt32, "int64": s.KindInt64, "int": s.KindInt64, "float32": s.KindFloat32,
	"float64": s.KindFloat64, "string": s.KindString, "status": s.KindInt32,

	"boolPtr": s.KindNullableBoolean, "int8Ptr": s.KindNullableInt8, "uint8Ptr": s.KindNullableInt8,
	"int16Ptr": s.KindNullableInt16, "int32Ptr": s.KindNullableInt32, "int64Ptr": s.KindNullableInt64,
	"intPtr": s.KindNullableInt64, "float32Ptr": s.KindNullableFloat32, "float64Ptr": s.KindNullableFloat64,
	"stringPtr": s.KindString,

	"bools": s.KindArrayOfBoolean, "int8s": s.KindArrayOfInt8, "bytes": s.KindArrayOfInt8,
	"int16s": s.KindArrayOfInt16, "int32s": s.KindArrayOfInt32, "int64s": s.KindArrayOfInt64,
	"ints": s.KindArrayOfInt64, "float32s": s.KindArrayOfFloat32, "float64s": s.KindArrayOfFloat64,
	"strings": s.KindArrayOfString,

	"boolPtrs": s.KindArrayOfNullableBoolean, "int8Ptrs": s.KindArrayOfNullableInt8,
	"uint8Ptrs": s.KindArrayOfNullableInt8, "int16Ptrs": s.KindArrayOfNullableInt16,
	"int32Ptrs": s.KindArrayOfNullableInt32, "int64Ptrs": s.KindArrayOfNullableInt64,
	"intPtrs": s.KindArrayOfNullableInt64, "float32Ptrs": s.KindArrayOfNullableFloat32,
	"float64Ptrs": s.KindArrayOfNullableFloat64, "stringPtrs": s.KindArrayOfString,

	"decimal": s.KindDecimal, "decimalPtr": s.KindDecimal, "decimals": s.KindArrayOfDecimal, "decimalPtrs": s.KindArrayOfDecimal,
	"time": s.KindTime, "timePtr": s.KindTime, "times": s.KindArrayOfTime, "timePtrs": s.KindArrayOfTime,
	"date": s.KindDate, "datePtr": s.KindDate, "dates": s.KindArrayOfDate, "datePtrs": s.KindArrayOfDate,
	"timestamp": s.KindTimestamp, "timestampPtr": s.KindTimestamp, "timestamps": s.KindArrayOfTimestamp, "timestampPtrs": s.KindArrayOfTimestamp,
	"offsetTime": s.KindTimestampWithTimezone, "offsetTimePtr": s.KindTimestampWithTimezone,
	"offsetTimes": s.KindArrayOfTimestampWithTimezone, "offsetTimePtrs": s.KindArrayOfTimestampWithTimezone,
	"goTime": s.KindTimestampWithTimezone, "goTimePtr": s.KindTimestampWithTimezone,
	"goTimes": s.KindArrayOfTimestampWithTimezone, "goTimePtrs": s.KindArrayOfTimestampWithTimezone,

	"point": s.KindCompact, "pointPtr": s.KindCompact, "points": s.KindArrayOfCompact, "pointPtrs": s.KindArrayOfCompact,
}

func ptr[T any](v T) *T { return &v }

func fullKinds() kinds {
	dec := s.Decimal{Unscaled: big.NewInt(-12345678901234), Scale: 4}
	lt := s.LocalTime{Hour: 23, Minute: 59, Second: 58, Nanosecond: 999_999_999}
	ld := s.LocalDate{Year: -2024, Month: 2, Day: 29}
	ldt := s.LocalDateTime{Date: ld, Time: lt}
	odt := s.OffsetDateTime{LocalDateTime: ldt, OffsetSeconds: -5 * 3600}
	gt := time.Date(2024, 3, 31, 1, 2, 3, 456_789_012, time.UTC)
	return kinds{
		Bool: true, Int8: math.MinInt8, Uint8: 0xff, Int16: math.MinInt16, Int32: math.MaxInt32,
		Int64: math.MinInt64, Int: math.MaxInt, Float32: -1.5, Float64: math.Inf(1), String: "héllo, 世界",
		Status: 7,

		BoolPtr: ptr(false), Int8Ptr: ptr[int8](-1), Uint8Ptr: ptr[uint8](200), Int16Ptr: ptr[int16](300),
		Int32Ptr: ptr[int32](-70000), Int64Ptr: ptr[int64](1 << 40), IntPtr: ptr(-5), Float32Ptr: ptr[float32](0.25),
		Float64Ptr: ptr(math.Pi), StringPtr: ptr(""),

		Bools: []bool{true, false, true, true, false, false, true, false, true}, Int8s: []int8{-1, 0, 1},
		Bytes: []byte{0, 0x7f, 0x80, 0xff}, Int16s: []int16{1, -2}, Int32s: []int32{3}, Int64s: []int64{4, 5},
		Ints: []int{-6, 7}, Float32s: []float32{0.5}, Float64s: []float64{-0.25, 1e300}, Strings: []string{"a", "", "c"},

		BoolPtrs: []*bool{ptr(true), nil}, Int8Ptrs: []*int8{nil, ptr[int8](8)}, Uint8Ptrs: []*uint8{ptr[uint8](0xfe), nil},
		Int16Ptrs: []*int16{ptr[int16](9)}, Int32Ptrs: []*int32{ptr[int32](1), nil, ptr[int32](3)},
		Int64Ptrs: []*int64{nil}, IntPtrs: []*int{ptr(10), nil}, Float32Ptrs: []*float32{ptr[float32](1.5), nil},
		Float64Ptrs: []*float64{nil, ptr(2.5)}, StringPtrs: []*string{ptr("x"), nil, ptr("")},

		Decimal: dec, DecimalPtr: &s.Decimal{Unscaled: big.NewInt(128), Scale: -2},
		Decimals: []s.Decimal{dec, {Unscaled: big.NewInt(0)}}, DecimalPtrs: []*s.Decimal{nil, &dec},

		Time: lt, TimePtr: &lt, Times: []s.LocalTime{lt, {}}, TimePtrs: []*s.LocalTime{&lt, nil},
		Date: ld, DatePtr: &ld, Dates: []s.LocalDate{ld}, DatePtrs: []*s.LocalDate{nil, &ld},
		Timestamp: ldt, TimestampPtr: &ldt, Timestamps: []s.LocalDateTime{ldt}, TimestampPtrs: []*s.LocalDateTime{&ldt, nil},
		OffsetTime: odt, OffsetTimePtr: &odt, OffsetTimes: []s.OffsetDateTime{odt}, OffsetTimePtrs: []*s.OffsetDateTime{nil, &odt},

		GoTime: gt, GoTimePtr: &gt, GoTimes: []time.Time{gt, {}}, GoTimePtrs: []*time.Time{nil, &gt},

		Point: point{X: 1, Y: 2, Label: ptr("p")}, PointPtr: &point{X: -1},
		Points: []point{{X: 3}, {Y: 4, Label: ptr("q")}}, PointPtrs: []*point{{X: 5}, nil, {}},
	}
}

// emptyKinds has every slice non-nil and empty.
func emptyKinds() kinds {
	var k kinds
	v := reflect.ValueOf(&k).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
	}
	return k
}

func TestReflectiveRoundTrip(t *testing.T) {
	cases := []struct {
		name  string
		value kinds
	}{
		{"zero value", kinds{}},
		{"every field set, nil items", fullKinds()},
		{"empty slices", emptyKinds()},
	}
	writer := mustService(t, s.Config{})
	reader := mustService(t, s.Config{Schemas: writer.Schemas()})
	if err := reader.RegisterType(reflect.TypeFor[*kinds]()); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := writer.ToData(&c.value)
			if err != nil {
				t.Fatal(err)
			}
			back, err := reader.ToObject(d)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := back.(*kinds)
			if !ok {
				t.Fatalf("ToObject returned %T", back)
			}
			if !sameValue(reflect.ValueOf(got).Elem(), reflect.ValueOf(c.value)) {
				t.Fatalf("round trip changed the value\n got %+v\nwant %+v", *got, c.value)
			}
			again, err := reader.ToData(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, d) {
				t.Fatal("rewriting the decoded value gives other bytes")
			}
			// With the schema embedded, a reader with an empty registry reads it too.
			embedded, err := writer.AppendDataWithSchema(nil, &c.value)
			if err != nil {
				t.Fatal(err)
			}
			stranger := mustService(t, s.Config{})
			if err := stranger.RegisterType(reflect.TypeFor[kinds]()); err != nil {
				t.Fatal(err)
			}
			back, err = stranger.ToObject(embedded)
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := back.(kinds); !ok || !sameValue(reflect.ValueOf(v), reflect.ValueOf(c.value)) {
				t.Fatalf("type -56 round trip: %T %+v", back, back)
			}
		})
	}
}

func TestReflectiveKinds(t *testing.T) {
	svc := mustService(t, s.Config{})
	d, err := svc.ToData(&kinds{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.ReadCompactRecord(d, svc.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	if want := "github.com/atolldb/atoll/pkg/serialization_test.kinds"; rec.TypeName() != want {
		t.Errorf("type name %q, want %q", rec.TypeName(), want)
	}
	fields := rec.Schema().Fields
	if len(fields) != len(kindsSchema) {
		t.Errorf("schema has %d fields, want %d", len(fields), len(kindsSchema))
	}
	for _, f := range fields {
		if want, ok := kindsSchema[f.Name]; !ok || f.Kind != want {
			t.Errorf("field %s: kind %v, want %v", f.Name, f.Kind, want)
		}
	}
	// Nested types are registered under their own derived names.
	prec, err := rec.GetCompact("point")
	if err != nil {
		t.Fatal(err)
	}
	if want := "github.com/atolldb/atoll/pkg/serialization_test.point"; prec.TypeName() != want {
		t.Errorf("nested type name %q, want %q", prec.TypeName(), want)
	}
	// A []byte holds the int8 bits of its bytes.
	d, err = svc.ToData(&kinds{Bytes: []byte{0x80, 0xff, 1}})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ = s.ReadCompactRecord(d, svc.Schemas())
	if got, err := rec.GetArrayOfInt8("bytes"); err != nil || !reflect.DeepEqual(got, []int8{-128, -1, 1}) {
		t.Errorf("bytes read as %v, %v", got, err)
	}
}

type tagged struct {
	Renamed  int32  `compact:"other"`
	Skipped  string `compact:"-"`
	ID       int64
	URLPath  string
	X        bool
	Été      int8
	hidden   int32
	Embedded       // promoted: its fields are written in its place
	Named    inner `compact:"named"`
	inner2         // unexported embedded struct: its exported fields are promoted
}

type Embedded struct {
	EmbeddedField int16
}

type inner struct{ A int32 }

type inner2 struct {
	Promoted  int32
	notPromo  int32
	PromoSkip int32 `compact:"-"`
}

func TestReflectiveFieldNames(t *testing.T) {
	svc := mustService(t, s.Config{})
	v := tagged{Renamed: 1, Skipped: "no", ID: 2, URLPath: "/", X: true, Été: 3, hidden: 4,
		Embedded: Embedded{EmbeddedField: 5}, Named: inner{A: 6}, inner2: inner2{Promoted: 7, notPromo: 8, PromoSkip: 9}}
	d, err := svc.ToData(&v)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.ReadCompactRecord(d, svc.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rec.Schema().Fields {
		names = append(names, f.Name+":"+f.Kind.String())
	}
	want := []string{"ID:INT64", "URLPath:STRING", "embeddedField:INT16", "named:COMPACT", "other:INT32", "promoted:INT32", "x:BOOLEAN", "été:INT8"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("schema fields %v, want %v", names, want)
	}
	back, err := svc.ToObject(d)
	if err != nil {
		t.Fatal(err)
	}
	v.Skipped, v.hidden, v.inner2.notPromo, v.inner2.PromoSkip = "", 0, 0, 0
	if got := *back.(*tagged); got != v {
		t.Fatalf("got %+v, want %+v", got, v)
	}
}

func TestCompactTypeNameOf(t *testing.T) {
	cases := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[point](), "github.com/atolldb/atoll/pkg/serialization_test.point"},
		{reflect.TypeFor[*point](), "github.com/atolldb/atoll/pkg/serialization_test.point"},
		{reflect.TypeFor[model.Small](), "github.com/atolldb/atoll/bench/model.Small"},
		{reflect.TypeFor[rSmall](), "small"},  // value receiver
		{reflect.TypeFor[*rLarge](), "large"}, // pointer receiver
		{reflect.TypeFor[rLarge](), "large"},
		{reflect.TypeFor[pair[int32]](), "github.com/atolldb/atoll/pkg/serialization_test.pair[int32]"},
	}
	for _, c := range cases {
		if got, err := s.CompactTypeNameOf(c.typ); err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.typ, got, err, c.want)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[struct{ A int }](), reflect.TypeFor[int](), reflect.TypeFor[*[]point](), nil, reflect.TypeFor[emptyName]()} {
		if _, err := s.CompactTypeNameOf(typ); !errors.Is(err, s.ErrInvalidDefinition) {
			t.Errorf("%v: error %v, want ErrInvalidDefinition", typ, err)
		}
	}
}

type pair[T any] struct{ A, B T }

type emptyName struct{ A int32 }

func (emptyName) CompactTypeName() string { return "" }

type badInner struct{ C chan int }

type withMutex struct {
	Mu sync.Mutex
}

type withPortable struct {
	P model.PortableSmall
}

type embeddedPtr struct {
	*Embedded
}

func TestReflectiveUnsupportedTypes(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
		want []string // in the message
	}{
		{"map", reflect.TypeFor[struct{ M map[string]int }](), []string{"field M", "map[string]int"}},
		{"chan", reflect.TypeFor[struct{ C chan int }](), []string{"field C", "chan int"}},
		{"func", reflect.TypeFor[struct{ F func() }](), []string{"field F", "func()"}},
		{"complex", reflect.TypeFor[struct{ Z complex128 }](), []string{"field Z", "complex128"}},
		{"uint16", reflect.TypeFor[struct{ U uint16 }](), []string{"field U", "uint16", "unsigned"}},
		{"uint32 slice", reflect.TypeFor[struct{ U []uint32 }](), []string{"field U", "[]uint32"}},
		{"uint64 pointer", reflect.TypeFor[struct{ U *uint64 }](), []string{"field U", "*uint64"}},
		{"uint", reflect.TypeFor[struct{ U uint }](), []string{"field U", "uint"}},
		{"interface", reflect.TypeFor[struct{ I any }](), []string{"field I", "interface {}"}},
		{"array", reflect.TypeFor[struct{ A [16]byte }](), []string{"field A", "[16]uint8"}},
		{"pointer to pointer", reflect.TypeFor[struct{ P **int32 }](), []string{"field P", "**int32"}},
		{"pointer to slice", reflect.TypeFor[struct{ P *[]int32 }](), []string{"field P", "*[]int32"}},
		{"slice of slices", reflect.TypeFor[struct{ S [][]int32 }](), []string{"field S", "[][]int32"}},
		{"nested bad field", reflect.TypeFor[struct{ In badInner }](), []string{"field C of serialization_test.badInner", "chan int"}},
		{"anonymous nested struct", reflect.TypeFor[struct{ A struct{ X int32 } }](), []string{"field A", "anonymous"}},
		{"nested Portable", reflect.TypeFor[withPortable](), []string{"field P", "Portable"}},
		{"no exported fields", reflect.TypeFor[struct{ x int32 }](), []string{"no exported fields"}},
		{"mutex", reflect.TypeFor[withMutex](), []string{"sync.Mutex has no exported fields"}},
		{"embedded pointer", reflect.TypeFor[embeddedPtr](), []string{"embedded field Embedded", "pointer"}},
		{"tag option", reflect.TypeFor[struct {
			A *int32 `compact:"a,nullable"`
		}](), []string{"field A", `"nullable"`}},
		{"duplicate name", reflect.TypeFor[struct {
			A int32 `compact:"x"`
			B int64 `compact:"x"`
		}](), []string{"fields A and B", `"x"`}},
		{"duplicate default name", reflect.TypeFor[struct {
			Ab int32
			B  int64 `compact:"ab"`
		}](), []string{"fields Ab and B", `"ab"`}},
		{"tag on unexported", reflect.TypeFor[struct {
			A int32
			b int32 `compact:"b"`
		}](), []string{"field b", "unexported"}},
		{"not a struct", reflect.TypeFor[[]int32](), []string{"not a struct"}},
		{"value type", reflect.TypeFor[time.Time](), []string{"time.Time", "field value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.NewReflectiveSerializer(c.typ, "x")
			var de *s.DefinitionError
			if !errors.As(err, &de) || !errors.Is(err, s.ErrInvalidDefinition) {
				t.Fatalf("error %v (%T), want a *DefinitionError", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

type withMap struct {
	Name  string
	Attrs map[string]string
}

func TestZeroConfigErrors(t *testing.T) {
	svc := mustService(t, s.Config{})
	// An unsupported field is a definition error at the first write.
	for range 2 {
		_, err := svc.ToData(&withMap{Name: "x"})
		if !errors.Is(err, s.ErrInvalidDefinition) || !strings.Contains(err.Error(), "Attrs") {
			t.Fatalf("struct with a map: %v", err)
		}
	}
	// Anonymous structs have no type name.
	if _, err := svc.ToData(struct{ A int32 }{}); !errors.Is(err, s.ErrUnsupportedType) {
		t.Errorf("anonymous struct: %v", err)
	}
	// Portable types stay Portable; time.Time is not an object.
	ps := model.PortableSmall(model.SmallForKey(1))
	if d, err := svc.ToData(&ps); err != nil || d.Type() != s.TypePortable {
		t.Errorf("Portable value written as type %d, %v", d.Type(), err)
	}
	if _, err := svc.ToData(time.Now()); !errors.Is(err, s.ErrUnsupportedType) {
		t.Errorf("time.Time: %v", err)
	}
	// A hand-written serializer for *S does not take S values.
	hw := newService(t)
	if _, err := hw.ToData(model.SmallForKey(1)); !errors.Is(err, s.ErrUnsupportedType) || !strings.Contains(err.Error(), "*model.Small") {
		t.Errorf("Small value with a *Small serializer: %v", err)
	}
	// A cycle fails instead of overflowing the stack.
	n := &node{Value: 1}
	n.Next = n
	if _, err := svc.ToData(n); !errors.Is(err, s.ErrUnsupportedType) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	// A time outside Java's range fails.
	if _, err := svc.ToData(&kinds{GoTime: time.Date(1_000_000_000, 1, 1, 0, 0, 0, 0, time.UTC)}); !errors.Is(err, s.ErrUnsupportedType) {
		t.Errorf("year 1e9: %v", err)
	}
	if _, err := svc.ToData(&kinds{GoTimePtrs: []*time.Time{ptr(time.Date(2000, 1, 1, 0, 0, 0, 0, time.FixedZone("", 19*3600)))}}); !errors.Is(err, s.ErrUnsupportedType) {
		t.Errorf("offset +19:00: %v", err)
	}
}

func TestZeroConfigDisabled(t *testing.T) {
	svc := mustService(t, s.Config{ZeroConfigCompact: s.ZeroConfigDisabled})
	v := point{X: 1}
	if _, err := svc.ToData(&v); !errors.Is(err, s.ErrUnsupportedType) {
		t.Fatalf("zero-config disabled: %v", err)
	}
	// Nested types come with the registered type.
	if err := svc.RegisterType(reflect.TypeFor[*line]()); err != nil {
		t.Fatal(err)
	}
	l := line{From: point{X: 1}, To: &point{Y: 2}}
	d, err := svc.ToData(&l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := svc.ToObject(d)
	if err != nil || !sameValue(reflect.ValueOf(back), reflect.ValueOf(&l)) {
		t.Fatalf("got %+v, %v", back, err)
	}
	if _, err := svc.ToData(&v); err != nil {
		t.Fatalf("point after registering line: %v", err)
	}
	// A reflective serializer in the Config brings its nested types too.
	ser, err := s.NewReflectiveSerializer(reflect.TypeFor[*line](), "line")
	if err != nil {
		t.Fatal(err)
	}
	svc = mustService(t, s.Config{ZeroConfigCompact: s.ZeroConfigDisabled, CompactSerializers: []s.CompactSerializer{ser}})
	if _, err := svc.ToData(&l); err != nil {
		t.Fatal(err)
	}
}

type line struct {
	From point
	To   *point
}

func TestRegisterType(t *testing.T) {
	writer := mustService(t, s.Config{})
	v := point{X: 1, Y: 2, Label: ptr("a")}
	d, err := writer.ToData(v) // a value works as well as a pointer
	if err != nil {
		t.Fatal(err)
	}
	if d2, _ := writer.ToData(&v); !bytes.Equal(d, d2) {
		t.Fatal("S and *S write different bytes")
	}
	if back, _ := writer.ToObject(d); reflect.TypeOf(back) != reflect.TypeFor[*point]() {
		t.Fatalf("zero-config types read as *S, got %T", back)
	}

	reader := mustService(t, s.Config{Schemas: writer.Schemas()})
	if back, _ := reader.ToObject(d); reflect.TypeOf(back) != reflect.TypeFor[*s.CompactRecord]() {
		t.Fatalf("unregistered type read as %T", back)
	}
	steps := []struct {
		typ  reflect.Type
		want reflect.Type
	}{
		{reflect.TypeFor[point](), reflect.TypeFor[point]()},
		{reflect.TypeFor[point](), reflect.TypeFor[point]()},
		{reflect.TypeFor[*point](), reflect.TypeFor[*point]()},
	}
	for _, st := range steps {
		if err := reader.RegisterType(st.typ); err != nil {
			t.Fatal(err)
		}
		back, err := reader.ToObject(d)
		if err != nil || reflect.TypeOf(back) != st.want {
			t.Fatalf("after RegisterType(%v): %T, %v", st.typ, back, err)
		}
	}

	// The type a hand-written serializer returns is already registered; the
	// other form cannot replace the serializer.
	hw := newService(t)
	if err := hw.RegisterType(reflect.TypeFor[*model.Small]()); err != nil {
		t.Errorf("registering the type a serializer returns: %v", err)
	}
	if err := hw.RegisterType(reflect.TypeFor[model.Small]()); !errors.Is(err, s.ErrInvalidDefinition) {
		t.Errorf("registering model.Small over a hand-written serializer: %v", err)
	}
	// Non-structs, Portable types, value types and anonymous structs are refused.
	for _, typ := range []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[*model.PortableSmall](), reflect.TypeFor[time.Time](), reflect.TypeFor[struct{ A int32 }]()} {
		if err := hw.RegisterType(typ); !errors.Is(err, s.ErrInvalidDefinition) {
			t.Errorf("RegisterType(%v): %v", typ, err)
		}
	}
	// Two Go types may not share a type name.
	if err := hw.RegisterType(reflect.TypeFor[nameClash]()); !errors.Is(err, s.ErrInvalidDefinition) {
		t.Errorf("name clash: %v", err)
	}
}

type nameClash struct{ A int32 }

func (nameClash) CompactTypeName() string { return "small" }

type node struct {
	Value    int32
	Next     *node
	Children []*node
}

func chain(n int) *node {
	var head *node
	for i := n; i > 0; i-- {
		head = &node{Value: int32(i), Next: head}
	}
	return head
}

func TestReflectiveRecursiveTypes(t *testing.T) {
	svc := mustService(t, s.Config{})
	tree := &node{Value: 1, Children: []*node{
		{Value: 2, Next: &node{Value: 3}},
		nil,
		{Value: 4, Children: []*node{}},
	}}
	for _, v := range []*node{tree, chain(200), {}} {
		d, err := svc.ToData(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := svc.ToObject(d)
		if err != nil {
			t.Fatal(err)
		}
		if !sameValue(reflect.ValueOf(back), reflect.ValueOf(v)) {
			t.Fatalf("got %+v, want %+v", back, v)
		}
	}
	if _, err := svc.ToData(chain(300)); !errors.Is(err, s.ErrUnsupportedType) {
		t.Fatalf("300 levels: %v", err)
	}
}

type fan struct{ Kids []*fan }

// fanOut builds Compact data for fan in which every array item of a level
// points at the same child object: depth levels of k items each decode to
// k^depth objects from a few hundred bytes.
func fanOut(schemaID int64, depth, k int) []byte {
	be := binary.BigEndian
	offsets := func(dst []byte, n, dataLen int) []byte {
		width := 1
		switch {
		case dataLen >= 65535:
			width = 4
		case dataLen >= 255:
			width = 2
		}
		return append(dst, make([]byte, n*width)...) // all zero: every entry points at the first body
	}
	obj := be.AppendUint32(be.AppendUint64(nil, uint64(schemaID)), 0) // no kids: data length 0,
	obj = append(obj, 0xff)                                           // and a null offset
	for range depth {
		arr := be.AppendUint32(be.AppendUint32(nil, uint32(len(obj))), uint32(k))
		arr = offsets(append(arr, obj...), k, len(obj))
		obj = be.AppendUint32(be.AppendUint64(nil, uint64(schemaID)), uint32(len(arr)))
		obj = offsets(append(obj, arr...), 1, len(arr))
	}
	return append([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xc9}, obj...)
}

func TestReflectiveDecodeBoundsOverlappingObjects(t *testing.T) {
	svc := mustService(t, s.Config{})
	honest, err := svc.ToData(&fan{Kids: []*fan{{}, {Kids: []*fan{}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.ReadCompactRecord(honest, svc.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	id := rec.Schema().ID
	// The builder reproduces real data.
	small := fanOut(id, 2, 1)
	if v, err := svc.ToObject(small); err != nil || !sameValue(reflect.ValueOf(v), reflect.ValueOf(&fan{Kids: []*fan{{Kids: []*fan{{}}}}})) {
		t.Fatalf("fanOut(2, 1) reads as %+v, %v", v, err)
	}
	if v, err := svc.ToObject(fanOut(id, 3, 4)); err != nil || len(v.(*fan).Kids[3].Kids[3].Kids) != 4 {
		t.Fatalf("fanOut(3, 4): %v", err)
	}
	bomb := fanOut(id, 10, 16) // 16^10 objects
	start := time.Now()
	if _, err := svc.ToObject(bomb); !errors.Is(err, s.ErrMalformed) {
		t.Fatalf("%d bytes of overlapping objects: %v", len(bomb), err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("rejecting took %v", d)
	}
}

// Schema evolution: two versions of a type under one type name read each
// other's data by field name.
type customerV1 struct {
	Name string
	Age  int32
	Tags []string
}

func (customerV1) CompactTypeName() string { return "customer" }

type customerV2 struct {
	Name    string
	Email   *string // added
	Age     int32
	Address *point // added
	// Tags removed
}

func (customerV2) CompactTypeName() string { return "customer" }

type customerV3 struct {
	Age string // kind changed
}

func (customerV3) CompactTypeName() string { return "customer" }

func TestReflectiveSchemaEvolution(t *testing.T) {
	schemas := s.NewSchemaRegistry()
	v1 := mustService(t, s.Config{Schemas: schemas})
	v2 := mustService(t, s.Config{Schemas: schemas})
	v3 := mustService(t, s.Config{Schemas: schemas})
	for svc, typ := range map[*s.Service]reflect.Type{v1: reflect.TypeFor[*customerV1](), v2: reflect.TypeFor[*customerV2](), v3: reflect.TypeFor[*customerV3]()} {
		if err := svc.RegisterType(typ); err != nil {
			t.Fatal(err)
		}
	}
	old, err := v1.ToData(&customerV1{Name: "Ada", Age: 36, Tags: []string{"math"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := v2.ToObject(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := (customerV2{Name: "Ada", Age: 36}); !sameValue(reflect.ValueOf(got).Elem(), reflect.ValueOf(want)) {
		t.Fatalf("v1 data read as v2: %+v", got)
	}
	newer, err := v2.ToData(&customerV2{Name: "Bob", Email: ptr("b@x"), Age: 40, Address: &point{X: 1}})
	if err != nil {
		t.Fatal(err)
	}
	got, err = v1.ToObject(newer)
	if err != nil {
		t.Fatal(err)
	}
	if want := (customerV1{Name: "Bob", Age: 40}); !sameValue(reflect.ValueOf(got).Elem(), reflect.ValueOf(want)) {
		t.Fatalf("v2 data read as v1: %+v", got)
	}
	if len(schemas.All()) != 3 { // customer v1, customer v2, point
		t.Errorf("%d schemas, want 3", len(schemas.All()))
	}
	if _, err := v3.ToObject(old); !errors.Is(err, s.ErrFieldKind) {
		t.Errorf("INT32 read into a string: %v", err)
	}
}

func TestReflectiveReadErrors(t *testing.T) {
	// Data with nulls where the Go type cannot hold them.
	schemas := s.NewSchemaRegistry()
	writer := mustService(t, s.Config{Schemas: schemas})
	reader := mustService(t, s.Config{Schemas: schemas})
	if err := writer.RegisterType(reflect.TypeFor[*nullable]()); err != nil {
		t.Fatal(err)
	}
	if err := reader.RegisterType(reflect.TypeFor[*plain]()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		value nullable
		want  error
	}{
		{"nulls where plain fields have zero values", nullable{N: ptr[int32](1)}, nil},
		{"null item in a value slice", nullable{N: ptr[int32](1), Points: []*point{nil}}, s.ErrFieldKind},
		{"null item in a []string", nullable{N: ptr[int32](1), Strings: []*string{nil}}, s.ErrFieldKind},
		{"null item in a []Decimal", nullable{N: ptr[int32](1), Decimals: []*s.Decimal{nil}}, s.ErrFieldKind},
		{"null NULLABLE_INT32 into an int32", nullable{}, s.ErrFieldKind},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := writer.ToData(&c.value)
			if err != nil {
				t.Fatal(err)
			}
			_, err = reader.ToObject(d)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

type wide struct{ N []int64 }

func (wide) CompactTypeName() string { return "width" }

type narrow struct{ N []int }

func (narrow) CompactTypeName() string { return "width" }

// An INT64 that does not fit the platform's int fails the read.
func TestReflectiveIntOverflow(t *testing.T) {
	schemas := s.NewSchemaRegistry()
	writer := mustService(t, s.Config{Schemas: schemas})
	reader := mustService(t, s.Config{Schemas: schemas})
	if err := writer.RegisterType(reflect.TypeFor[*wide]()); err != nil {
		t.Fatal(err)
	}
	if err := reader.RegisterType(reflect.TypeFor[*narrow]()); err != nil {
		t.Fatal(err)
	}
	large := int64(1) << 40
	d, err := writer.ToData(&wide{N: []int64{1, large}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := reader.ToObject(d)
	if strconv.IntSize == 64 {
		if err != nil || !reflect.DeepEqual(v.(*narrow).N, []int{1, int(large)}) {
			t.Fatalf("got %v, %v", v, err)
		}
	} else if !errors.Is(err, s.ErrFieldKind) || !strings.Contains(err.Error(), "overflows") {
		t.Fatalf("1<<40 into a 32-bit int: %v, %v", v, err)
	}
}

type nullable struct {
	Points   []*point
	Strings  []*string
	Decimals []*s.Decimal
	Point    *point
	Text     *string
	N        *int32
}

func (nullable) CompactTypeName() string { return "nulls" }

type plain struct {
	Points   []point
	Strings  []string
	Decimals []s.Decimal
	Point    point
	Text     string
	N        int32
}

func (plain) CompactTypeName() string { return "nulls" }

func TestReflectiveTimeZones(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err) // time/tzdata is linked in: the zone is always there
	}
	svc := mustService(t, s.Config{})
	cases := []struct {
		in         time.Time
		wantOffset int
	}{
		{time.Date(2024, 7, 1, 12, 0, 0, 1, paris), 2 * 3600},
		{time.Date(2024, 1, 1, 12, 0, 0, 0, paris), 3600},
		{time.Date(-500, 1, 1, 0, 0, 0, 0, time.FixedZone("x", -(9*3600+30*60))), -(9*3600 + 30*60)},
		{time.Unix(0, 0).UTC(), 0},
		{time.Now(), -1}, // local zone, monotonic reading dropped
	}
	for _, c := range cases {
		d, err := svc.ToData(&kinds{GoTime: c.in})
		if err != nil {
			t.Fatal(err)
		}
		back, err := svc.ToObject(d)
		if err != nil {
			t.Fatal(err)
		}
		got := back.(*kinds).GoTime
		_, off := got.Zone()
		_, inOff := c.in.Zone()
		if !got.Equal(c.in) || off != inOff || (c.wantOffset >= 0 && off != c.wantOffset) {
			t.Errorf("%v read back as %v", c.in, got)
		}
		if off == 0 && got.Location() != time.UTC {
			t.Errorf("offset 0 reads in %v, want UTC", got.Location())
		}
	}
}

// Writing a struct of fixed-size and string fields into a reused buffer
// allocates nothing.
func TestReflectiveWriteAllocations(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector makes sync.Pool drop items, so pooled encoders are reallocated")
	}
	svc := mustService(t, s.Config{})
	small := rSmall(model.SmallForKey(1))
	buf, err := svc.AppendData(nil, &small)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		buf, err = svc.AppendData(buf[:0], &small)
	})
	if err != nil || allocs > 0 {
		t.Fatalf("%v allocations per write (err %v)", allocs, err)
	}
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(bi.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}

// Many goroutines meeting new types at once agree on one serializer and
// schema per type, while others register types for reading.
func TestZeroConfigConcurrentFirstUse(t *testing.T) {
	writer := mustService(t, s.Config{})
	reader := mustService(t, s.Config{Schemas: writer.Schemas()})
	values := []any{&point{X: 1}, &line{To: &point{}}, &kinds{Int: 5}, tree(), &rLarge{StringArray: []string{"x"}}}
	const workers = 32
	out := make([][][]byte, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i, v := range values {
				if w%4 == 0 {
					if err := reader.RegisterType(reflect.TypeOf(v)); err != nil {
						t.Error(err)
					}
				}
				if w%4 == 1 {
					if err := reader.RegisterType(reflect.TypeOf(v).Elem()); err != nil {
						t.Error(err)
					}
				}
				d, err := writer.ToData(values[(i+w)%len(values)])
				if err != nil {
					t.Error(err)
					return
				}
				out[w] = append(out[w], d)
				if _, err := reader.ToObject(d); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i := range out[w] {
			if !bytes.Equal(out[w][i], out[0][(i+w)%len(values)]) {
				t.Fatalf("worker %d wrote other bytes for value %d", w, (i+w)%len(values))
			}
		}
	}
	// point, line, kinds, node, large, small
	if n := len(writer.Schemas().All()); n != 6 {
		t.Errorf("%d schemas, want 6", n)
	}
}

func tree() *node {
	return &node{Value: 1, Children: []*node{{Value: 2}, nil}}
}

// FuzzReflectiveDecode decodes arbitrary bytes with reflective types
// registered: it never panics, errors are typed, and a value that decodes
// writes and reads back equal.
func FuzzReflectiveDecode(f *testing.F) {
	writer := mustService(f, s.Config{})
	for _, v := range []any{&kinds{}, ptr(fullKinds()), ptr(emptyKinds()), tree(), chain(5), &line{To: &point{}}} {
		for _, embed := range []bool{false, true} {
			var d []byte
			var err error
			if embed {
				d, err = writer.AppendDataWithSchema(nil, v)
			} else {
				d, err = writer.AppendData(nil, v)
			}
			if err != nil {
				f.Fatal(err)
			}
			f.Add(d)
		}
	}
	reader := mustService(f, s.Config{Schemas: writer.Schemas()})
	for _, typ := range []reflect.Type{reflect.TypeFor[*kinds](), reflect.TypeFor[node](), reflect.TypeFor[*line]()} {
		if err := reader.RegisterType(typ); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := reader.ToObject(b)
		if err != nil {
			for _, typed := range []error{s.ErrMalformed, s.ErrUnknownSchema, s.ErrUnknownClass, s.ErrFieldKind, s.ErrInvalidDefinition} {
				if errors.Is(err, typed) {
					return
				}
			}
			t.Fatalf("untyped error: %v", err)
		}
		switch v.(type) {
		case *kinds, node, *line:
		default:
			return
		}
		d, err := reader.ToData(v)
		if errors.Is(err, s.ErrUnsupportedType) {
			return // strings that are not UTF-8 read but do not write
		}
		if err != nil {
			t.Fatalf("decoded value does not write: %v", err)
		}
		again, err := reader.ToObject(d)
		if err != nil {
			t.Fatalf("rewritten value does not read: %v", err)
		}
		if !sameValue(reflect.ValueOf(again), reflect.ValueOf(v)) {
			t.Fatalf("rewritten value differs:\n%+v\n%+v", again, v)
		}
	})
}

// sameValue compares like reflect.DeepEqual, except that times are equal
// when they are the same instant with the same offset, big integers when
// they have the same value (nil counting as zero, as Decimal does), and
// floats when they have the same bits.
func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || !a.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Type() {
	case reflect.TypeFor[time.Time]():
		x, y := a.Interface().(time.Time), b.Interface().(time.Time)
		_, xo := x.Zone()
		_, yo := y.Zone()
		return x.Equal(y) && xo == yo
	case reflect.TypeFor[*big.Int]():
		x, y := a.Interface().(*big.Int), b.Interface().(*big.Int)
		if x == nil {
			x = new(big.Int)
		}
		if y == nil {
			y = new(big.Int)
		}
		return x.Cmp(y) == 0
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() && !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	}
	return a.Equal(b)
}

func Example_zeroConfigCompact() {
	// Any named struct can be stored without writing a serializer.
	type Address struct {
		City string
	}
	type Customer struct {
		Name    string
		Age     int32
		Email   *string  // nil is null
		Address *Address // nested Compact object
		Notes   string   `compact:"-"`
	}
	svc, err := s.NewService(s.Config{})
	if err != nil {
		panic(err)
	}
	data, err := svc.ToData(&Customer{Name: "Ada", Age: 36, Address: &Address{City: "London"}})
	if err != nil {
		panic(err)
	}

	// Readers without the Go type see the fields by name.
	rec, err := s.ReadCompactRecord(data, svc.Schemas())
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.TypeName())
	for _, f := range rec.Schema().Fields {
		fmt.Println(" ", f.Name, f.Kind)
	}

	// A reader that knows the type registers it to get it back.
	reader, err := s.NewService(s.Config{Schemas: svc.Schemas()})
	if err != nil {
		panic(err)
	}
	if err := reader.RegisterType(reflect.TypeFor[*Customer]()); err != nil {
		panic(err)
	}
	v, err := reader.ToObject(data)
	if err != nil {
		panic(err)
	}
	c := v.(*Customer)
	fmt.Println(c.Name, c.Age, c.Email == nil, c.Address.City)
	// Output:
	// github.com/atolldb/atoll/pkg/serialization_test.Customer
	//   address COMPACT
	//   age INT32
	//   email STRING
	//   name STRING
	// Ada 36 true London
}

// A Java class com.example.Order { String id; long total; } shares data with
// this struct: same type name, field names and kinds, and declaration order.
type Order struct {
	ID    string `compact:"id"`
	Total int64
}

func ExampleNewReflectiveSerializer() {
	ser, err := s.NewReflectiveSerializer(reflect.TypeFor[*Order](), "com.example.Order")
	if err != nil {
		panic(err)
	}
	svc, err := s.NewService(s.Config{CompactSerializers: []s.CompactSerializer{ser}})
	if err != nil {
		panic(err)
	}
	data, err := svc.ToData(&Order{ID: "o-1", Total: 1250})
	if err != nil {
		panic(err)
	}
	v, err := svc.ToObject(data)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", *v.(*Order))
	// Output: {ID:o-1 Total:1250}
}
