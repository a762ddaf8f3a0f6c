package vectors

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/atolldb/atoll/pkg/serialization"
)

func float32frombits(b uint32) float32 { return math.Float32frombits(b) }
func float64frombits(b uint64) float64 { return math.Float64frombits(b) }

// testCase is a vector with its expected value and a Service configured
// with the metadata the vector carries.
type testCase struct {
	v        Vector
	expected any // *object for objects, a Go value otherwise
	svc      *serialization.Service
	classes  *serialization.ClassRegistry
	layouts  *serialization.LayoutRegistry
}

func newCase(v Vector) (*testCase, error) {
	c := &testCase{v: v, classes: serialization.NewClassRegistry(), layouts: serialization.NewLayoutRegistry()}
	schemas := serialization.NewSchemaRegistry()
	var err error
	switch v.Format {
	case "compact", "portable", "identified":
		obj, err := parseObject(v.Format, v.Value)
		if err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		if obj == nil {
			return nil, fmt.Errorf("value: a top-level object cannot be null")
		}
		c.expected = obj
	case "json":
		var p struct {
			Value string `json:"value"`
		}
		if err := json.Unmarshal(v.Value, &p); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		c.expected = serialization.JSON(p.Value)
	case "bytearray":
		var p struct {
			Hex string `json:"hex"`
		}
		if err := json.Unmarshal(v.Value, &p); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		b, err := hex.DecodeString(p.Hex)
		if err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		c.expected = b
	case "primitive":
		var p struct {
			Kind  string          `json:"kind"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(v.Value, &p); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		if c.expected, err = parseValue(v.Format, p.Kind, p.Value); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown format %q", v.Format)
	}
	if v.Compact != nil && !v.Compact.WithSchema {
		for _, s := range v.Compact.Schemas {
			schema, err := compactSchemaOf(s)
			if err != nil {
				return nil, err
			}
			if _, err := schemas.Add(schema); err != nil {
				return nil, err
			}
		}
	}
	if v.Portable != nil {
		for _, d := range v.Portable.ClassDefinitions {
			fields := make([]serialization.PortableField, len(d.Fields))
			for _, f := range d.Fields {
				kind, ok := serialization.ParsePortableType(f.Type)
				if !ok || f.Index < 0 || f.Index >= len(fields) {
					return nil, fmt.Errorf("class definition %d/%d: field %q has type %q or index %d", d.FactoryID, d.ClassID, f.Name, f.Type, f.Index)
				}
				fields[f.Index] = serialization.PortableField{Name: f.Name, Kind: kind, FactoryID: f.FactoryID, ClassID: f.ClassID, Version: f.Version}
			}
			cd, err := serialization.NewClassDefinition(d.FactoryID, d.ClassID, d.Version, fields)
			if err != nil {
				return nil, err
			}
			if err := c.classes.Add(cd); err != nil {
				return nil, err
			}
		}
	}
	if obj, ok := c.expected.(*object); ok && obj.format == "identified" {
		if err := c.addLayouts(obj); err != nil {
			return nil, err
		}
	}
	c.svc, err = serialization.NewService(serialization.Config{Schemas: schemas, ClassRegistry: c.classes, LayoutRegistry: c.layouts})
	return c, err
}

func compactSchemaOf(s compactSchema) (*serialization.Schema, error) {
	defs := make([]serialization.FieldDef, len(s.Fields))
	for i, f := range s.Fields {
		kind, ok := serialization.ParseFieldKind(f.Kind)
		if !ok {
			return nil, fmt.Errorf("schema %q: field %q has unknown kind %q", s.TypeName, f.Name, f.Kind)
		}
		defs[i] = serialization.FieldDef{Name: f.Name, Kind: kind}
	}
	return serialization.NewSchema(s.TypeName, defs)
}

// addLayouts derives the layouts of an IdentifiedDataSerializable value and
// every object nested in it from the fields the vector lists.
func (c *testCase) addLayouts(o *object) error {
	fields := make([]serialization.LayoutField, len(o.fields))
	for i, f := range o.fields {
		fields[i] = serialization.LayoutField{Name: f.name, Op: f.op}
		if f.item != nil && (f.op == serialization.OpInline || f.op == serialization.OpInlineArray) {
			fields[i].FactoryID, fields[i].ClassID = f.item.factoryID, f.item.classID
		}
	}
	l, err := serialization.NewLayout(o.factoryID, o.classID, fields)
	if err != nil {
		return err
	}
	if err := c.layouts.Add(l); err != nil {
		return err
	}
	for _, f := range o.fields {
		switch v := f.value.(type) {
		case *object:
			if err := c.addLayouts(v); err != nil {
				return err
			}
		case []*object:
			for _, it := range v {
				if it != nil {
					if err := c.addLayouts(it); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// checkMetadata compares the schema ids and layouts we compute with the ones
// Hazelcast computed.
func (c *testCase) checkMetadata() []error {
	if c.v.Compact == nil {
		return nil
	}
	var errs []error
	for _, want := range c.v.Compact.Schemas {
		got, err := compactSchemaOf(want)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if id := strconv.FormatInt(got.ID, 10); id != want.SchemaID {
			errs = append(errs, fmt.Errorf("schema %q: id %s, want %s", want.TypeName, id, want.SchemaID))
		}
		if got.FixedSize != want.FixedSizeLength || got.VarCount != want.VarSizeCount {
			errs = append(errs, fmt.Errorf("schema %q: fixed size %d / var count %d, want %d / %d", want.TypeName, got.FixedSize, got.VarCount, want.FixedSizeLength, want.VarSizeCount))
		}
		for _, wf := range want.Fields {
			gf, ok := got.Field(wf.Name)
			if !ok {
				continue
			}
			if gf.Offset != wf.Offset || gf.BitOffset != wf.BitOffset || gf.Index != wf.Index {
				errs = append(errs, fmt.Errorf("schema %q field %q: offset/bit/index %d/%d/%d, want %d/%d/%d", want.TypeName, wf.Name, gf.Offset, gf.BitOffset, gf.Index, wf.Offset, wf.BitOffset, wf.Index))
			}
		}
	}
	return errs
}

// checkEncode rebuilds the value, serializes it and compares the bytes.
func (c *testCase) checkEncode(want []byte) error {
	v := c.expected
	if obj, ok := v.(*object); ok {
		rec, err := c.build(obj)
		if err != nil {
			return fmt.Errorf("encode: build: %w", err)
		}
		v = rec
	}
	var got []byte
	var err error
	if c.v.Compact != nil && c.v.Compact.WithSchema {
		got, err = c.svc.AppendDataWithSchema(nil, v)
	} else {
		got, err = c.svc.AppendData(nil, v)
	}
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("encode: bytes differ at offset %d:\n  got  %x\n  want %x", firstDiff(got, want), got, want)
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// build turns an expected object into the generic record of its format.
func (c *testCase) build(o *object) (any, error) {
	switch o.format {
	case "compact":
		b := serialization.NewCompactRecordBuilder(o.typeName)
		fields, err := c.compactWriteOrder(o)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			v, err := c.buildValue(f.value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			b.Set(f.name, f.kind, v)
		}
		return b.Build()
	case "portable":
		cd, ok := c.classes.Get(o.factoryID, o.classID, o.version)
		if !ok {
			return nil, fmt.Errorf("no class definition %d/%d/%d in the vector", o.factoryID, o.classID, o.version)
		}
		b := serialization.NewPortableRecordBuilder(cd)
		for _, f := range o.fields {
			v, err := c.buildValue(f.value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			b.Set(f.name, v)
		}
		return b.Build()
	case "identified":
		l, ok := c.layouts.Get(o.factoryID, o.classID)
		if !ok {
			return nil, fmt.Errorf("no layout %d/%d", o.factoryID, o.classID)
		}
		b := serialization.NewIdentifiedRecordBuilder(l, c.layouts)
		for _, f := range o.fields {
			v, err := c.buildValue(f.value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			if items, ok := v.([]any); ok && f.op == serialization.OpInlineArray {
				v = typed[*serialization.IdentifiedRecord](items)
			}
			b.Set(f.name, v)
		}
		return b.Build()
	}
	return nil, fmt.Errorf("unknown format %q", o.format)
}

// compactWriteOrder returns the fields of o in the order the Java writer
// wrote them: the vector's write_order for the top-level object, name
// (schema) order for objects a GenericRecord wrote, and the listed
// (declaration) order for objects a CompactSerializer wrote.
func (c *testCase) compactWriteOrder(o *object) ([]field, error) {
	meta := c.v.Compact
	byName := make(map[string]field, len(o.fields))
	defs := make([]serialization.FieldDef, len(o.fields))
	for i, f := range o.fields {
		byName[f.name] = f
		defs[i] = serialization.FieldDef{Name: f.name, Kind: f.kind}
	}
	var names []string
	switch {
	case meta != nil && o == c.expected && len(meta.WriteOrder) == len(o.fields):
		names = meta.WriteOrder
	case meta != nil && strings.HasPrefix(meta.Writer, "GenericRecord"):
		schema, err := serialization.NewSchema(o.typeName, defs)
		if err != nil {
			return nil, err
		}
		for _, f := range schema.Fields {
			names = append(names, f.Name)
		}
	default:
		return o.fields, nil
	}
	out := make([]field, 0, len(names))
	for _, n := range names {
		f, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("write_order names %q, which is not a field", n)
		}
		out = append(out, f)
	}
	return out, nil
}

// buildValue replaces nested expected objects by records.
func (c *testCase) buildValue(v any) (any, error) {
	switch x := v.(type) {
	case *object:
		if x == nil {
			return nil, nil
		}
		return c.build(x)
	case []*object:
		out := make([]any, len(x))
		for i, it := range x {
			if it == nil {
				continue
			}
			rec, err := c.build(it)
			if err != nil {
				return nil, err
			}
			out[i] = rec
		}
		if len(x) > 0 && x[0] != nil {
			switch x[0].format {
			case "compact":
				return typed[*serialization.CompactRecord](out), nil
			case "portable":
				return typed[*serialization.PortableRecord](out), nil
			}
		}
		return out, nil
	}
	return v, nil
}

// checkDecode deserializes the bytes and compares with the expected value.
func (c *testCase) checkDecode(d serialization.Data) error {
	got, err := c.svc.ToObject(d)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if err := compare("value", c.expected, got); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// record is the view the three formats' generic records share.
type record interface {
	Get(name string) (any, error)
	FieldKind(name string) serialization.FieldKind
}

func compare(path string, want, got any) error {
	if want == nil || reflect.ValueOf(want).Kind() == reflect.Pointer && reflect.ValueOf(want).IsNil() {
		if got == nil || isNilValue(got) {
			return nil
		}
		return fmt.Errorf("%s: got %#v, want null", path, got)
	}
	switch w := want.(type) {
	case *object:
		return compareObject(path, w, got)
	case []*object:
		gv := reflect.ValueOf(got)
		if gv.Kind() != reflect.Slice || gv.Len() != len(w) {
			return fmt.Errorf("%s: got %T of length %d, want %d objects", path, got, lenOf(gv), len(w))
		}
		for i, it := range w {
			if err := compare(fmt.Sprintf("%s[%d]", path, i), it, gv.Index(i).Interface()); err != nil {
				return err
			}
		}
		return nil
	case serialization.Decimal:
		g, ok := got.(serialization.Decimal)
		if !ok || g.Scale != w.Scale || g.Unscaled.Cmp(w.Unscaled) != 0 {
			return fmt.Errorf("%s: got %v, want %v", path, got, w)
		}
		return nil
	case []*string:
		if g, ok := got.([]string); ok { // no null items: the plain form
			got = pointers[string](typedAny(g))
		}
	}
	return compareReflect(path, reflect.ValueOf(want), reflect.ValueOf(got))
}

func typedAny[T any](v []T) []any {
	out := make([]any, len(v))
	for i := range v {
		out[i] = v[i]
	}
	return out
}

func lenOf(v reflect.Value) int {
	if v.Kind() == reflect.Slice {
		return v.Len()
	}
	return -1
}

func isNilValue(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// compareReflect compares values of the same type: floats by bits, slices
// and pointers element by element.
func compareReflect(path string, w, g reflect.Value) error {
	if w.Type() != g.Type() {
		return fmt.Errorf("%s: got %s %v, want %s %v", path, g.Type(), g, w.Type(), w)
	}
	switch w.Kind() {
	case reflect.Float32:
		if math.Float32bits(float32(w.Float())) != math.Float32bits(float32(g.Float())) {
			return fmt.Errorf("%s: got %v, want %v", path, g, w)
		}
	case reflect.Float64:
		if math.Float64bits(w.Float()) != math.Float64bits(g.Float()) {
			return fmt.Errorf("%s: got %v, want %v", path, g, w)
		}
	case reflect.Slice:
		if w.IsNil() != g.IsNil() || w.Len() != g.Len() {
			return fmt.Errorf("%s: got %v, want %v", path, g, w)
		}
		for i := 0; i < w.Len(); i++ {
			if err := compare(fmt.Sprintf("%s[%d]", path, i), w.Index(i).Interface(), g.Index(i).Interface()); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if w.IsNil() != g.IsNil() {
			return fmt.Errorf("%s: got %v, want %v", path, g, w)
		}
		if !w.IsNil() {
			return compare(path, w.Elem().Interface(), g.Elem().Interface())
		}
	default:
		if !reflect.DeepEqual(w.Interface(), g.Interface()) {
			return fmt.Errorf("%s: got %#v, want %#v", path, g.Interface(), w.Interface())
		}
	}
	return nil
}

func compareObject(path string, w *object, got any) error {
	var rec record
	switch g := got.(type) {
	case *serialization.CompactRecord:
		if w.format != "compact" || g.TypeName() != w.typeName || len(g.Schema().Fields) != len(w.fields) {
			return fmt.Errorf("%s: got compact %q with %d fields, want %s %q with %d fields", path, g.TypeName(), len(g.Schema().Fields), w.format, w.typeName, len(w.fields))
		}
		rec = g
	case *serialization.PortableRecord:
		if w.format != "portable" || g.FactoryID() != w.factoryID || g.ClassID() != w.classID || g.Version() != w.version {
			return fmt.Errorf("%s: got portable %d/%d/%d, want %s %d/%d/%d", path, g.FactoryID(), g.ClassID(), g.Version(), w.format, w.factoryID, w.classID, w.version)
		}
		rec = g
	case *serialization.IdentifiedRecord:
		if w.format != "identified" || g.Layout().FactoryID != w.factoryID || g.Layout().ClassID != w.classID {
			return fmt.Errorf("%s: got identified %d/%d, want %s %d/%d", path, g.Layout().FactoryID, g.Layout().ClassID, w.format, w.factoryID, w.classID)
		}
		rec = g
	default:
		return fmt.Errorf("%s: got %T, want a %s object", path, got, w.format)
	}
	for _, f := range w.fields {
		fp := path + "." + f.name
		if f.op == 0 && rec.FieldKind(f.name) != f.kind {
			return fmt.Errorf("%s: kind %s, want %s", fp, rec.FieldKind(f.name), f.kind)
		}
		gv, err := rec.Get(f.name)
		if err != nil {
			return fmt.Errorf("%s: %w", fp, err)
		}
		if err := compare(fp, f.value, gv); err != nil {
			return err
		}
	}
	return nil
}

// Config returns a serialization config that registers the metadata every
// vector carries: Compact schemas, Portable class definitions and the
// layouts of IdentifiedDataSerializable values. Where two vectors define the
// same class differently the first definition is kept. Fuzz targets and
// hostile-input tests use it so that mutated vectors get past type lookups.
func Config(vs []Vector) serialization.Config {
	cfg := serialization.Config{
		Schemas:        serialization.NewSchemaRegistry(),
		ClassRegistry:  serialization.NewClassRegistry(),
		LayoutRegistry: serialization.NewLayoutRegistry(),
	}
	for _, v := range vs {
		c, err := newCase(v)
		if err != nil {
			continue
		}
		if v.Compact != nil {
			for _, sc := range v.Compact.Schemas {
				if schema, err := compactSchemaOf(sc); err == nil {
					_, _ = cfg.Schemas.Add(schema) // a conflict keeps the first
				}
			}
		}
		for _, cd := range c.classes.All() {
			_ = cfg.ClassRegistry.Add(cd)
		}
		for _, l := range c.layouts.All() {
			_ = cfg.LayoutRegistry.Add(l)
		}
	}
	return cfg
}
