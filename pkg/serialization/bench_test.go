package serialization_test

import (
	"testing"

	"github.com/atolldb/atoll/bench/model"
	s "github.com/atolldb/atoll/pkg/serialization"
)

// benchValues returns the workloads' SMALL and LARGE value for key 1 in each
// format, as the Go types a user would store.
func benchValues() []struct {
	name  string
	value any
} {
	small, large := model.SmallForKey(1), model.LargeForKey(1)
	ps, is := model.PortableSmall(small), model.IdentifiedSmall(small)
	return []struct {
		name  string
		value any
	}{
		{"compact/small", &small},
		{"compact/large", &large},
		{"portable/small", &ps},
		{"portable/large", model.NewPortableLarge(large)},
		{"identified/small", &is},
		{"identified/large", model.NewIdentifiedLarge(large)},
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

// BenchmarkReadField reads one fixed-size field (longField) and one string
// field (stringField) in place from the serialized value, as a member does
// when it evaluates a query.
func BenchmarkReadField(b *testing.B) {
	svc := newService(b)
	member, err := s.NewService(s.Config{Layouts: model.Layouts(), Schemas: svc.Schemas(), ClassRegistry: svc.ClassRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range benchValues() {
		d, err := svc.ToData(c.value)
		if err != nil {
			b.Fatal(err)
		}
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
