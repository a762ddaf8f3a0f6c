package serialization_test

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/vectors"
	s "github.com/atolldb/atoll/pkg/serialization"
)

// describeField renders what a FieldReader returned, for comparisons.
func describeField(t *testing.T, v s.FieldValue) string {
	t.Helper()
	switch v.Kind {
	case s.ValueNull:
		return "NULL"
	case s.ValueBool:
		return "BOOLEAN:" + strconv.FormatBool(v.Bool())
	case s.ValueInt8, s.ValueInt16, s.ValueInt32, s.ValueInt64, s.ValueChar:
		return v.Kind.String() + ":" + strconv.FormatInt(v.I, 10)
	case s.ValueFloat32:
		return "FLOAT32:" + strconv.FormatFloat(v.Float(), 'g', -1, 32)
	case s.ValueFloat64:
		return "FLOAT64:" + strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case s.ValueString:
		return "STRING:" + string(v.B)
	case s.ValueDecimal:
		d, err := v.Decimal()
		require.NoError(t, err)
		return "DECIMAL:" + d.String()
	case s.ValueTime:
		x, err := v.Time()
		require.NoError(t, err)
		return "TIME:" + x.String()
	case s.ValueDate:
		x, err := v.Date()
		require.NoError(t, err)
		return "DATE:" + x.String()
	case s.ValueTimestamp:
		x, err := v.Timestamp()
		require.NoError(t, err)
		return "TIMESTAMP:" + x.String()
	case s.ValueTimestampTZ:
		x, err := v.TimestampTZ()
		require.NoError(t, err)
		return "TIMESTAMP_WITH_TIMEZONE:" + x.String()
	case s.ValueObject:
		return "OBJECT:" + hex.EncodeToString(v.B)
	case s.ValueJSON:
		return "JSON:" + string(v.B)
	}
	return v.Kind.String()
}

// describeAny renders a value the records' Get returned the way
// describeField renders the reader's: the oracle the reader is checked
// against.
func describeAny(t *testing.T, svc *s.Service, v any) string {
	t.Helper()
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "NULL"
	} else if rv.Kind() == reflect.Pointer {
		switch v.(type) {
		case *s.CompactRecord, *s.PortableRecord, *s.IdentifiedRecord:
		default:
			return describeAny(t, svc, rv.Elem().Interface())
		}
	}
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "BOOLEAN:" + strconv.FormatBool(x)
	case int8:
		return "INT8:" + strconv.FormatInt(int64(x), 10)
	case int16:
		return "INT16:" + strconv.FormatInt(int64(x), 10)
	case int32:
		return "INT32:" + strconv.FormatInt(int64(x), 10)
	case int64:
		return "INT64:" + strconv.FormatInt(x, 10)
	case s.Char:
		return "CHAR:" + strconv.FormatInt(int64(x), 10)
	case float32:
		return "FLOAT32:" + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return "FLOAT64:" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "STRING:" + x
	case s.Decimal:
		return "DECIMAL:" + x.String()
	case s.LocalTime:
		return "TIME:" + x.String()
	case s.LocalDate:
		return "DATE:" + x.String()
	case s.LocalDateTime:
		return "TIMESTAMP:" + x.String()
	case s.OffsetDateTime:
		return "TIMESTAMP_WITH_TIMEZONE:" + x.String()
	case *s.CompactRecord, *s.PortableRecord, *s.IdentifiedRecord:
		d, err := svc.ToData(x)
		require.NoError(t, err)
		return "OBJECT:" + hex.EncodeToString(d)
	}
	if reflect.TypeOf(v).Kind() == reflect.Slice {
		return "ARRAY"
	}
	return "NULL" // a Go value of a registered type: not a field value
}

// expectedPath walks a path through records with Get, as a reader without
// compiled plans would: the values the path selects.
func expectedPath(t *testing.T, svc *s.Service, root any, steps []string) []string {
	t.Helper()
	type getter interface{ Get(string) (any, error) }
	vals := []any{root}
	for _, st := range steps {
		name, index, every := st, -1, false
		if i := len(st) - 1; i > 0 && st[i] == ']' {
			j := 0
			for j < len(st) && st[j] != '[' {
				j++
			}
			name = st[:j]
			if st[j+1:i] == "any" {
				every = true
			} else {
				index, _ = strconv.Atoi(st[j+1 : i])
			}
		}
		var next []any
		for _, v := range vals {
			g, ok := v.(getter)
			if !ok || reflect.ValueOf(v).IsNil() {
				continue
			}
			fv, err := g.Get(name)
			if err != nil {
				continue
			}
			items := reflect.ValueOf(fv)
			switch {
			case every && items.Kind() == reflect.Slice:
				for i := 0; i < items.Len(); i++ {
					next = append(next, items.Index(i).Interface())
				}
			case index >= 0 && items.Kind() == reflect.Slice:
				if index < items.Len() {
					next = append(next, items.Index(index).Interface())
				}
			case !every && index < 0:
				next = append(next, fv)
			}
		}
		vals = next
	}
	var out []string
	for _, v := range vals {
		out = append(out, describeAny(t, svc, v))
	}
	return out
}

// pathsOf lists the paths a record's fields offer: every field, the first
// and every item of arrays, and one level into nested objects.
func pathsOf(v any, prefix string, depth int) [][]string {
	type fielder interface{ Get(string) (any, error) }
	names, ok := recordFieldNames(v)
	if !ok {
		return nil
	}
	var out [][]string
	for _, n := range names {
		out = append(out, []string{n})
		x, err := v.(fielder).Get(n)
		if err != nil {
			continue
		}
		items := reflect.ValueOf(x)
		if items.Kind() == reflect.Slice {
			out = append(out, []string{n + "[0]"}, []string{n + "[1]"}, []string{n + "[any]"})
			if items.Len() > 0 && depth < 2 {
				for _, sub := range pathsOf(items.Index(0).Interface(), "", depth+1) {
					out = append(out, append([]string{n + "[0]"}, sub...), append([]string{n + "[any]"}, sub...))
				}
			}
			continue
		}
		if depth < 2 {
			for _, sub := range pathsOf(x, "", depth+1) {
				out = append(out, append([]string{n}, sub...))
			}
		}
	}
	return out
}

// TestFieldReaderMatchesRecords reads every field of every committed
// vector (and the fields of its nested objects, items of its arrays) with
// a FieldReader and with the records' Get, and expects the same values.
func TestFieldReaderMatchesRecords(t *testing.T) {
	checked := 0
	for name, v := range committedVectors(t) {
		if v.Format != "compact" && v.Format != "portable" && v.Format != "identified" {
			continue
		}
		svc, err := s.NewService(vectors.Config([]vectors.Vector{v}))
		require.NoError(t, err)
		d, err := hex.DecodeString(v.DataHex)
		require.NoError(t, err)
		rec, err := svc.ToObject(d)
		require.NoError(t, err, name)
		for _, steps := range pathsOf(rec, "", 0) {
			path := ""
			for i, st := range steps {
				if i > 0 {
					path += "."
				}
				path += st
			}
			r, err := svc.FieldReader(path, s.FieldOptions{})
			require.NoError(t, err, path)
			var got []string
			err = r.Each(d, func(fv s.FieldValue) error {
				got = append(got, describeField(t, fv))
				return nil
			})
			require.NoError(t, err, "%s: %s", name, path)
			want := expectedPath(t, svc, rec, steps)
			if !r.Multi() && len(want) == 0 {
				want = []string{"NULL"} // a path that selects nothing reads as null
				if len(got) == 0 {
					got = want
				}
			}
			assert.Equal(t, want, got, "%s: %s", name, path)
			if !r.Multi() {
				one, err := r.Read(d)
				require.NoError(t, err)
				assert.Equal(t, want[0], describeField(t, one), "%s: %s (Read)", name, path)
			}
			checked++
		}
	}
	require.Greater(t, checked, 500, "paths checked")
}

// workloadValues are workload B's SMALL and LARGE values (key 1000, whose
// stringField is "metin") in the three formats.
func workloadValues(t testing.TB, svc *s.Service) map[string]s.Data {
	l := benchmodel.LargeForKey(1000)
	sm := benchmodel.SmallForKey(1000)
	ps, is := benchmodel.PortableSmall(sm), benchmodel.IdentifiedSmall(sm)
	out := map[string]s.Data{}
	for name, v := range map[string]any{
		"compact/SMALL": &sm, "compact/LARGE": &l,
		"portable/SMALL": &ps, "portable/LARGE": benchmodel.NewPortableLarge(l),
		"identified/SMALL": &is, "identified/LARGE": benchmodel.NewIdentifiedLarge(l),
	} {
		d, err := svc.ToData(v)
		require.NoError(t, err)
		out[name] = d
	}
	return out
}

func TestFieldReaderWorkloadPaths(t *testing.T) {
	svc, err := s.NewService(benchmodel.Config())
	require.NoError(t, err)
	l := benchmodel.LargeForKey(1000)
	for name, d := range workloadValues(t, svc) {
		large := name[len(name)-5:] == "LARGE"
		cases := []struct {
			path string
			want string
		}{
			{"stringField", "STRING:metin"},
			{"nope", "NULL"},
		}
		if large {
			cases = append(cases, []struct {
				path string
				want string
			}{
				{"longField", "INT64:" + strconv.FormatInt(l.LongField, 10)},
				{"doubleField", "FLOAT64:" + strconv.FormatFloat(l.DoubleField, 'g', -1, 64)},
				{"booleanField", "BOOLEAN:" + strconv.FormatBool(l.BooleanField)},
				{"intArray[2]", "INT32:" + strconv.Itoa(int(l.IntArray[2]))},
				{"intArray[3]", "NULL"},
				{"stringArray[1]", "STRING:" + l.StringArray[1]},
				{"small.stringField", "STRING:" + l.Small.StringField},
				{"small.longField", "INT64:" + strconv.FormatInt(l.Small.LongField, 10)},
				{"smallArray[1].stringField", "STRING:" + l.SmallArray[1].StringField},
				{"smallArray[2].intField", "INT32:" + strconv.Itoa(int(l.SmallArray[2].IntField))},
				{"smallArray[7].intField", "NULL"},
				{"intArray", "ARRAY"},
			}...)
		}
		for _, c := range cases {
			r, err := svc.FieldReader(c.path, s.FieldOptions{})
			require.NoError(t, err)
			v, err := r.Read(d)
			require.NoError(t, err, "%s %s", name, c.path)
			assert.Equal(t, c.want, describeField(t, v), "%s %s", name, c.path)
		}
		if large {
			r, err := svc.FieldReader("smallArray[any].stringField", s.FieldOptions{})
			require.NoError(t, err)
			var got []string
			require.NoError(t, r.Each(d, func(v s.FieldValue) error { got = append(got, string(v.B)); return nil }))
			assert.Equal(t, []string{l.SmallArray[0].StringField, l.SmallArray[1].StringField, l.SmallArray[2].StringField}, got, name)
		}
	}
}

// TestFieldReaderAllocatesNothing: scalars and strings, at any depth of
// inline or nested objects, are read without allocating.
func TestFieldReaderAllocatesNothing(t *testing.T) {
	svc, err := s.NewService(benchmodel.Config())
	require.NoError(t, err)
	values := workloadValues(t, svc)
	for name, d := range values {
		paths := []string{"intField", "longField", "doubleField", "stringField"}
		if name[len(name)-5:] == "LARGE" {
			paths = append(paths, "booleanField", "byteField", "shortField", "floatField", "intArray[1]", "stringArray[2]",
				"small.stringField", "smallArray[2].stringField", "smallArray[1].longField")
		}
		for _, p := range paths {
			r, err := svc.FieldReader(p, s.FieldOptions{})
			require.NoError(t, err)
			_, err = r.Read(d) // compiles the plan
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(100, func() { _, _ = r.Read(d) })
			assert.Zero(t, allocs, "%s %s", name, p)
		}
	}
	doc, err := svc.ToData(s.JSON(benchmodel.AJSON(12)))
	require.NoError(t, err)
	for _, p := range []string{"value", "payload[3]"} {
		r, err := svc.FieldReader(p, s.FieldOptions{})
		require.NoError(t, err)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = r.Read(doc) }), p)
	}
}

func TestFieldReaderWholeValues(t *testing.T) {
	svc, err := s.NewService(benchmodel.Config())
	require.NoError(t, err)
	r, err := svc.FieldReader("", s.FieldOptions{})
	require.NoError(t, err)
	sm := benchmodel.SmallForKey(3)
	for _, c := range []struct {
		v    any
		want string
	}{
		{int32(-7), "INT32:-7"}, {int64(1) << 40, "INT64:1099511627776"}, {int16(-2), "INT16:-2"}, {int8(5), "INT8:5"},
		{true, "BOOLEAN:true"}, {float32(1.5), "FLOAT32:1.5"}, {2.25, "FLOAT64:2.25"}, {s.Char('x'), "CHAR:120"},
		{"text", "STRING:text"}, {s.JSON(`{"a":1}`), `JSON:{"a":1}`},
	} {
		d, err := svc.ToData(c.v)
		require.NoError(t, err)
		v, err := r.Read(d)
		require.NoError(t, err)
		assert.Equal(t, c.want, describeField(t, v))
	}
	d, err := svc.ToData(&sm)
	require.NoError(t, err)
	v, err := r.Read(d)
	require.NoError(t, err)
	assert.Equal(t, s.ValueObject, v.Kind)
	assert.Equal(t, []byte(d), v.B, "a whole object reads as its own Data")
	_, err = r.Read(s.Data{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9, 1}) // a truncated Integer
	assert.ErrorIs(t, err, s.ErrMalformed)
}

func TestFieldReaderJSON(t *testing.T) {
	svc, err := s.NewService(s.Config{})
	require.NoError(t, err)
	doc, err := svc.ToData(s.JSON(`{"a":{"b":[1,2.5,"x\"y",true,null,{"c":3}]},"s":"plain"}`))
	require.NoError(t, err)
	str, err := svc.ToData(`{"a":{"b":[7]}}`)
	require.NoError(t, err)
	for _, c := range []struct {
		path string
		opts s.FieldOptions
		d    s.Data
		want []string
	}{
		{"a.b[0]", s.FieldOptions{}, doc, []string{"INT64:1"}},
		{"a.b[1]", s.FieldOptions{}, doc, []string{"FLOAT64:2.5"}},
		{"a.b[2]", s.FieldOptions{}, doc, []string{`STRING:x"y`}},
		{"a.b[3]", s.FieldOptions{}, doc, []string{"BOOLEAN:true"}},
		{"a.b[4]", s.FieldOptions{}, doc, []string{"NULL"}},
		{"a.b[5]", s.FieldOptions{}, doc, []string{`JSON:{"c":3}`}},
		{"a.b[9]", s.FieldOptions{}, doc, nil},
		{"s", s.FieldOptions{}, doc, []string{"STRING:plain"}},
		{"a.b[any]", s.FieldOptions{}, doc, []string{"INT64:1", "FLOAT64:2.5", `STRING:x"y`, "BOOLEAN:true", "NULL", `JSON:{"c":3}`}},
		{"$.a.b[1]", s.FieldOptions{JSONPath: true}, doc, []string{"FLOAT64:2.5"}},
		{"$.a['b'][*]", s.FieldOptions{JSONPath: true}, str, []string{"INT64:7"}},
		{"a.b[0]", s.FieldOptions{}, str, nil},                               // a string is no document
		{"a.b[0]", s.FieldOptions{JSONOnly: true}, str, []string{"INT64:7"}}, // unless json-flat
	} {
		r, err := svc.FieldReader(c.path, c.opts)
		require.NoError(t, err)
		var got []string
		require.NoError(t, r.Each(c.d, func(v s.FieldValue) error { got = append(got, describeField(t, v)); return nil }))
		assert.Equal(t, c.want, got, c.path)
	}
	bad, err := svc.ToData(s.JSON(`{"a":[1,}`))
	require.NoError(t, err)
	r, err := svc.FieldReader("a[any]", s.FieldOptions{})
	require.NoError(t, err)
	n := 0
	require.NoError(t, r.Each(bad, func(s.FieldValue) error { n++; return nil }))
	assert.Zero(t, n, "a malformed document selects nothing")
}

func TestFieldReaderStrict(t *testing.T) {
	svc, err := s.NewService(benchmodel.Config())
	require.NoError(t, err)
	values := workloadValues(t, svc)
	for name, want := range map[string]string{
		"compact/LARGE":    `Compact type "large" has no field "nope"`,
		"portable/LARGE":   `Portable class 2/2 has no field "nope"`,
		"identified/LARGE": `the layout of IdentifiedDataSerializable 1/2 has no field "nope"`,
	} {
		r, err := svc.FieldReader("nope", s.FieldOptions{Strict: true})
		require.NoError(t, err)
		_, err = r.Read(values[name])
		var ufe *s.UnknownFieldError
		require.ErrorAs(t, err, &ufe, name)
		assert.ErrorIs(t, err, s.ErrUnknownField)
		assert.Equal(t, want, ufe.Reason)
	}
	r, err := svc.FieldReader("small.nope", s.FieldOptions{Strict: true})
	require.NoError(t, err)
	_, err = r.Read(values["compact/LARGE"])
	assert.ErrorContains(t, err, `Compact type "small" has no field "nope"`)
	r, err = svc.FieldReader("stringField.x", s.FieldOptions{Strict: true})
	require.NoError(t, err)
	_, err = r.Read(values["compact/SMALL"])
	assert.ErrorIs(t, err, s.ErrUnknownField)
	n, err := svc.ToData(int32(4))
	require.NoError(t, err)
	r, err = svc.FieldReader("x", s.FieldOptions{Strict: true})
	require.NoError(t, err)
	_, err = r.Read(n)
	assert.ErrorContains(t, err, "the values are of type id -7, which has no fields")
	r, err = svc.FieldReader("x", s.FieldOptions{})
	require.NoError(t, err)
	v, err := r.Read(n)
	require.NoError(t, err)
	assert.True(t, v.IsNull())
}

// TestFieldReaderSchemaEvolution: a reader compiled on one version of a
// type reads another version's objects by their own schema.
func TestFieldReaderSchemaEvolution(t *testing.T) {
	svc, err := s.NewService(s.Config{})
	require.NoError(t, err)
	v1, err := s.NewCompactRecordBuilder("t").Set("a", s.KindInt32, int32(1)).Build()
	require.NoError(t, err)
	v2, err := s.NewCompactRecordBuilder("t").Set("b", s.KindString, "x").Set("a", s.KindInt64, int64(2)).Build()
	require.NoError(t, err)
	d1, err := svc.ToData(v1)
	require.NoError(t, err)
	d2, err := svc.ToData(v2)
	require.NoError(t, err)
	ra, err := svc.FieldReader("a", s.FieldOptions{Strict: true})
	require.NoError(t, err)
	rb, err := svc.FieldReader("b", s.FieldOptions{Strict: true})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		a1, err := ra.Read(d1)
		require.NoError(t, err)
		assert.Equal(t, "INT32:1", describeField(t, a1))
		a2, err := ra.Read(d2)
		require.NoError(t, err)
		assert.Equal(t, "INT64:2", describeField(t, a2))
		b1, err := rb.Read(d1)
		require.NoError(t, err, "another version of the type has the field")
		assert.True(t, b1.IsNull())
	}
}

// TestFieldReaderConcurrentFirstUse: workers sharing a reader compile and
// publish plans for several schemas at once (run with -race).
func TestFieldReaderConcurrentFirstUse(t *testing.T) {
	svc, err := s.NewService(s.Config{})
	require.NoError(t, err)
	var datas []s.Data
	for i := 0; i < 20; i++ {
		rec, err := s.NewCompactRecordBuilder("t"+strconv.Itoa(i)).Set("v", s.KindInt32, int32(i)).Build()
		require.NoError(t, err)
		d, err := svc.ToData(rec)
		require.NoError(t, err)
		datas = append(datas, d)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := svc.FieldReader("v", s.FieldOptions{})
			if err != nil {
				errs <- err
				return
			}
			for round := 0; round < 50; round++ {
				for i, d := range datas {
					v, err := r.Read(d)
					if err != nil || v.I != int64(i) {
						errs <- fmt.Errorf("schema %d: %v %v", i, v, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// FuzzFieldReader reads paths out of arbitrary bytes: a value or an
// error, never a panic.
func FuzzFieldReader(f *testing.F) {
	svc, err := s.NewService(benchmodel.Config())
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range workloadValues(f, svc) {
		for _, p := range []string{"stringField", "smallArray[1].stringField", "small.intField", "intArray[any]"} {
			f.Add([]byte(d), p)
		}
	}
	addVectorSeedsWithPath(f)
	f.Fuzz(func(t *testing.T, d []byte, path string) {
		for _, opts := range []s.FieldOptions{{}, {Strict: true}, {JSONOnly: true}, {JSONPath: true}} {
			r, err := svc.FieldReader(path, opts)
			if err != nil {
				continue
			}
			_, _ = r.Read(d)
			_ = r.Each(d, func(s.FieldValue) error { return nil })
		}
	})
}

func addVectorSeedsWithPath(f *testing.F) {
	for _, v := range committedVectors(f) {
		b, _ := hex.DecodeString(v.DataHex)
		f.Add(b, "f")
	}
}
