package serialization_test

import (
	"strings"
	"testing"

	"github.com/atolldb/atoll/internal/benchmodel"
	s "github.com/atolldb/atoll/pkg/serialization"
)

// benchValues returns the workloads' SMALL and LARGE value for key 1 in each
// format, as the Go types a user would store.
func benchValues() []struct {
	name  string
	value any
} {
	small, large := benchmodel.SmallForKey(1), benchmodel.LargeForKey(1)
	ps, is := benchmodel.PortableSmall(small), benchmodel.IdentifiedSmall(small)
	return []struct {
		name  string
		value any
	}{
		{"compact/small", &small},
		{"compact/large", &large},
		{"portable/small", &ps},
		{"portable/large", benchmodel.NewPortableLarge(large)},
		{"identified/small", &is},
		{"identified/large", benchmodel.NewIdentifiedLarge(large)},
	}
}

var sinkData []byte
var sinkAny any
var sinkInt int64
var sinkBytes []byte

func BenchmarkEncode(b *testing.B) {
	svc := newService(b)
	for _, c := range benchValues() {
		b.Run(c.name, func(b *testing.B) {
			buf, err := svc.AppendData(nil, c.value)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buf, err = svc.AppendData(buf[:0], c.value)
				if err != nil {
					b.Fatal(err)
				}
			}
			sinkData = buf
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	svc := newService(b)
	for _, c := range benchValues() {
		b.Run(c.name, func(b *testing.B) {
			d, err := svc.ToData(c.value)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(d)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if sinkAny, err = svc.ToObject(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodePage decodes a page of 100 values with one Decoder, as
// a client decodes the values a predicate query returns.
func BenchmarkDecodePage(b *testing.B) {
	svc := newService(b)
	const values = 100
	for _, c := range benchValues() {
		b.Run(c.name, func(b *testing.B) {
			d, err := svc.ToData(c.value)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(values * len(d)))
			b.ReportAllocs()
			for b.Loop() {
				dec := svc.NewDecoder()
				for range values {
					if sinkAny, err = dec.ToObject(d); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*values), "ns/value")
		})
	}
}

// compactImpls returns services that write the model's SMALL and LARGE
// objects in the Compact format three ways: with the hand-written
// serializers of internal/benchmodel, with reflective serializers registered for the
// same types under the same type names (identical bytes), and through
// zero-config (no registration; the Go type names).
func compactImpls(b *testing.B) []struct {
	name string
	svc  *s.Service
} {
	rs, err := s.ReflectiveSerializer[*benchmodel.Small]("small")
	if err != nil {
		b.Fatal(err)
	}
	rl, err := s.ReflectiveSerializer[*benchmodel.Large]("large")
	if err != nil {
		b.Fatal(err)
	}
	reflective, err := s.NewService(s.Config{CompactSerializers: []s.CompactSerializer{rs, rl}})
	if err != nil {
		b.Fatal(err)
	}
	zeroConfig, err := s.NewService(s.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return []struct {
		name string
		svc  *s.Service
	}{
		{"hand-written", newService(b)},
		{"reflective", reflective},
		{"zero-config", zeroConfig},
	}
}

func compactValues() []struct {
	name  string
	value any
} {
	small, large := benchmodel.SmallForKey(1), benchmodel.LargeForKey(1)
	return []struct {
		name  string
		value any
	}{{"small", &small}, {"large", &large}}
}

// BenchmarkEncodeCompact compares hand-written and reflective Compact
// serializers writing into a reused buffer.
func BenchmarkEncodeCompact(b *testing.B) {
	for _, impl := range compactImpls(b) {
		for _, c := range compactValues() {
			b.Run(impl.name+"/"+c.name, func(b *testing.B) {
				buf, err := impl.svc.AppendData(nil, c.value)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					buf, err = impl.svc.AppendData(buf[:0], c.value)
					if err != nil {
						b.Fatal(err)
					}
				}
				sinkData = buf
			})
		}
	}
}

// BenchmarkDecodeCompact compares hand-written and reflective Compact
// serializers reading a Go value.
func BenchmarkDecodeCompact(b *testing.B) {
	for _, impl := range compactImpls(b) {
		for _, c := range compactValues() {
			b.Run(impl.name+"/"+c.name, func(b *testing.B) {
				d, err := impl.svc.ToData(c.value)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(d)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if sinkAny, err = impl.svc.ToObject(d); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchDatum is a benchmark value, serialized.
type benchDatum struct {
	name string
	d    s.Data
}

// memberData returns a member's Service, which knows the workload
// objects' schemas and layouts but not their Go types, and benchValues
// serialized.
func memberData(b *testing.B) (*s.Service, []benchDatum) {
	svc := newService(b)
	member, err := s.NewService(s.Config{Layouts: benchmodel.Layouts(), Schemas: svc.Schemas(), ClassRegistry: svc.ClassRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	var out []benchDatum
	for _, c := range benchValues() {
		d, err := svc.ToData(c.value)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, benchDatum{c.name, d})
	}
	return member, out
}

// BenchmarkReadField reads one fixed-size field (longField) and one string
// field (stringField) in place from the serialized value, as a member does
// when it evaluates a query.
func BenchmarkReadField(b *testing.B) {
	member, values := memberData(b)
	for _, c := range values {
		d := c.d
		var readLong func() (int64, error)
		var readString func() ([]byte, error)
		switch d.Type() {
		case s.TypeCompact:
			readLong = func() (int64, error) {
				rec, err := s.ReadCompactRecord(d, member.Schemas())
				if err != nil {
					return 0, err
				}
				return rec.GetInt64("longField")
			}
			readString = func() ([]byte, error) {
				rec, err := s.ReadCompactRecord(d, member.Schemas())
				if err != nil {
					return nil, err
				}
				v, _, err := rec.GetStringBytes("stringField")
				return v, err
			}
		case s.TypePortable:
			readLong = func() (int64, error) {
				rec, err := s.ReadPortableRecord(d, member.ClassRegistry())
				if err != nil {
					return 0, err
				}
				return rec.GetInt64("longField")
			}
			readString = func() ([]byte, error) {
				rec, err := s.ReadPortableRecord(d, member.ClassRegistry())
				if err != nil {
					return nil, err
				}
				v, _, err := rec.GetStringBytes("stringField")
				return v, err
			}
		case s.TypeIdentified:
			readLong = func() (int64, error) {
				rec, err := s.ReadIdentifiedRecord(d, member)
				if err != nil {
					return 0, err
				}
				return rec.GetInt64("longField")
			}
			readString = func() ([]byte, error) {
				rec, err := s.ReadIdentifiedRecord(d, member)
				if err != nil {
					return nil, err
				}
				v, _, err := rec.GetStringBytes("stringField")
				return v, err
			}
		}
		b.Run(c.name+"/longField", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				v, err := readLong()
				if err != nil {
					b.Fatal(err)
				}
				sinkInt += v
			}
		})
		b.Run(c.name+"/stringField", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				v, err := readString()
				if err != nil {
					b.Fatal(err)
				}
				sinkBytes = v
			}
		})
	}
}

// BenchmarkFieldReader reads fields with compiled FieldReaders, as the
// member's query engine does: the workload's fields, and for LARGE the
// nested ones behind variable-size arrays and inline objects.
func BenchmarkFieldReader(b *testing.B) {
	member, values := memberData(b)
	for _, c := range values {
		d := c.d
		paths := []string{"longField", "stringField"}
		if strings.HasSuffix(c.name, "large") {
			paths = append(paths, "small.stringField", "smallArray[2].stringField")
		}
		for _, p := range paths {
			r, err := member.FieldReader(p, s.FieldOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(c.name+"/"+p, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					v, err := r.Read(d)
					if err != nil || v.IsNull() {
						b.Fatal(v, err)
					}
					sinkBytes = v.B
				}
			})
		}
	}
}
