// Package vectors checks Atoll's serialization against test vectors in the
// JSON format of the repository's vectors (testdata/vectors/README.md), which
// Hazelcast's own serialization service writes (tools/hazelcast-vectors):
// every vector is rebuilt from its tagged value and encoded (bytes must be
// identical), decoded and compared with the value, and routed (partition hash
// and id must match). It backs both the Go tests and `atoll vectors verify`.
package vectors

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"

	"github.com/atolldb/atoll/pkg/serialization"
)

// File is one vector file.
type File struct {
	HazelcastVersion string   `json:"hazelcast_version"`
	Set              string   `json:"set"`
	PartitionCount   int32    `json:"partition_count"`
	Vectors          []Vector `json:"vectors"`
}

// Vector is one test vector.
type Vector struct {
	Name          string          `json:"name"`
	Format        string          `json:"format"`
	Description   string          `json:"description"`
	TypeID        int32           `json:"type_id"`
	DataHex       string          `json:"data_hex"`
	PartitionHash int32           `json:"partition_hash"`
	PartitionID   int32           `json:"partition_id"`
	Value         json.RawMessage `json:"value"`
	Compact       *compactMeta    `json:"compact"`
	Portable      *portableMeta   `json:"portable"`
	Identified    *identifiedMeta `json:"identified"`

	// File is the file the vector came from; PartitionCount its partition count.
	File           string `json:"-"`
	PartitionCount int32  `json:"-"`
}

type compactMeta struct {
	TypeName   string          `json:"type_name"`
	SchemaID   string          `json:"schema_id"`
	WithSchema bool            `json:"with_schema"`
	Writer     string          `json:"writer"`
	WriteOrder []string        `json:"write_order"`
	Schemas    []compactSchema `json:"schemas"`
}

type compactSchema struct {
	TypeName        string `json:"type_name"`
	SchemaID        string `json:"schema_id"`
	FixedSizeLength int32  `json:"fixed_size_length"`
	VarSizeCount    int32  `json:"var_size_count"`
	Fields          []struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		KindID    int32  `json:"kind_id"`
		Offset    int32  `json:"offset"`
		BitOffset int8   `json:"bit_offset"`
		Index     int32  `json:"index"`
	} `json:"fields"`
}

type portableMeta struct {
	FactoryID        int32 `json:"factory_id"`
	ClassID          int32 `json:"class_id"`
	Version          int32 `json:"version"`
	ClassDefinitions []struct {
		FactoryID int32 `json:"factory_id"`
		ClassID   int32 `json:"class_id"`
		Version   int32 `json:"version"`
		Fields    []struct {
			Index     int    `json:"index"`
			Name      string `json:"name"`
			Type      string `json:"type"`
			TypeID    int32  `json:"type_id"`
			FactoryID int32  `json:"factory_id"`
			ClassID   int32  `json:"class_id"`
			Version   int32  `json:"version"`
		} `json:"fields"`
	} `json:"class_definitions"`
}

type identifiedMeta struct {
	FactoryID  int32    `json:"factory_id"`
	ClassID    int32    `json:"class_id"`
	WriteOrder []string `json:"write_order"`
}

// Load reads every *.json vector file in paths (a path may also name a
// file). Files that cannot be read or parsed are reported in errs, one error
// per file, and skipped; a path that does not exist is an error too.
func Load(paths ...string) (vs []Vector, errs []error) {
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			errs = append(errs, err)
			continue
		} else if st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(p, "*.json")) // the pattern is valid
			slices.Sort(files)
		}
		for _, name := range files {
			fvs, err := loadFile(name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			vs = append(vs, fvs...)
		}
	}
	return vs, errs
}

func loadFile(name string) ([]Vector, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if f.PartitionCount == 0 {
		f.PartitionCount = serialization.DefaultPartitionCount
	}
	for i := range f.Vectors {
		f.Vectors[i].File = name
		f.Vectors[i].PartitionCount = f.PartitionCount
	}
	return f.Vectors, nil
}

// Check verifies one vector: partition hash and id, schema ids and layouts,
// byte-exact encoding of the rebuilt value, and decoding back to the value.
// It returns every difference found, joined.
func Check(v Vector) error {
	data, err := hex.DecodeString(v.DataHex)
	if err != nil {
		return fmt.Errorf("data_hex: %w", err)
	}
	d := serialization.Data(data)
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if d.Type() != v.TypeID {
		fail("type id: data has %d, vector says %d", d.Type(), v.TypeID)
	}
	if h := d.PartitionHash(); h != v.PartitionHash {
		fail("partition hash: got %d, want %d", h, v.PartitionHash)
	}
	if id := d.PartitionID(v.PartitionCount); id != v.PartitionID {
		fail("partition id: got %d, want %d", id, v.PartitionID)
	}
	c, err := newCase(v)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	errs = append(errs, c.checkMetadata()...)
	if err := c.checkEncode(data); err != nil {
		errs = append(errs, err)
	}
	if err := c.checkDecode(d); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// object is an expected Compact, Portable or IdentifiedDataSerializable value.
type object struct {
	format    string
	typeName  string // compact
	factoryID int32  // portable, identified
	classID   int32
	version   int32 // portable
	fields    []field
}

type field struct {
	name      string
	kind      serialization.FieldKind // compact / portable
	op        serialization.LayoutOp  // identified
	valueKind string
	item      *object // identity of nested objects (item_type)
	value     any     // expected Go value; *object for nested objects
}

// wireObject / wireField mirror the vector JSON of objects.
type wireObject struct {
	TypeName  string      `json:"type_name"`
	FactoryID int32       `json:"factory_id"`
	ClassID   int32       `json:"class_id"`
	Version   int32       `json:"version"`
	Fields    []wireField `json:"fields"`
}

type wireField struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	Op        string          `json:"op"`
	ValueKind string          `json:"value_kind"`
	ItemType  *wireObject     `json:"item_type"`
	Value     json.RawMessage `json:"value"`
}

func parseObject(format string, raw json.RawMessage) (*object, error) {
	if isNull(raw) {
		return nil, nil
	}
	var w wireObject
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	o := &object{format: format, typeName: w.TypeName, factoryID: w.FactoryID, classID: w.ClassID, version: w.Version}
	for _, wf := range w.Fields {
		f := field{name: wf.Name, valueKind: wf.ValueKind}
		var ok bool
		switch format {
		case "compact":
			f.kind, ok = serialization.ParseFieldKind(wf.Kind)
		case "portable":
			f.kind, ok = serialization.ParsePortableType(wf.Kind)
		case "identified":
			f.op, ok = serialization.ParseLayoutOp(wf.Op)
		}
		if !ok {
			return nil, fmt.Errorf("field %q: unknown kind %q / op %q", wf.Name, wf.Kind, wf.Op)
		}
		if wf.ItemType != nil {
			f.item = &object{format: format, typeName: wf.ItemType.TypeName, factoryID: wf.ItemType.FactoryID, classID: wf.ItemType.ClassID, version: wf.ItemType.Version}
		}
		val, err := parseValue(format, wf.ValueKind, wf.Value)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", wf.Name, err)
		}
		f.value = objectValue(f.op, val)
		o.fields = append(o.fields, f)
	}
	return o, nil
}

// objectValue gives the values of writeObject and writeObjectArray fields the
// Go types an identified record reads and writes for them: a byte array is a
// []byte, and the items of an object array are values of any type (nil for
// null), not pointers.
func objectValue(op serialization.LayoutOp, v any) any {
	switch {
	case op == serialization.OpObject:
		if b, ok := v.([]int8); ok {
			out := make([]byte, len(b))
			for i, x := range b {
				out[i] = byte(x)
			}
			return out
		}
	case op == serialization.OpObjectArray && v != nil:
		if _, ok := v.([]*object); ok {
			return v
		}
		rv := reflect.ValueOf(v)
		out := make([]any, rv.Len())
		for i := range out {
			if it := rv.Index(i); !it.IsNil() {
				out[i] = it.Elem().Interface()
			}
		}
		return out
	}
	return v
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// parseValue turns a tagged JSON value into the Go value the serialization
// package reads and writes for its value kind.
func parseValue(format, kind string, raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	if elem, ok := cutPrefix(kind, "ARRAY_OF_"); ok {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		return parseArray(format, elem, items)
	}
	base, _ := cutPrefix(kind, "NULLABLE_")
	switch base {
	case "OBJECT":
		return parseObject(format, raw)
	case "BOOLEAN":
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case "INT8", "INT16", "INT32", "CHAR":
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, err
		}
		switch base {
		case "INT8":
			return int8(n), nil
		case "INT16":
			return int16(n), nil
		case "CHAR":
			return serialization.Char(n), nil
		}
		return int32(n), nil
	case "INT64":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return strconv.ParseInt(s, 10, 64)
	case "FLOAT32", "FLOAT64":
		var f struct {
			Bits string `json:"bits"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, err
		}
		bits, err := strconv.ParseUint(f.Bits, 16, 64)
		if err != nil {
			return nil, err
		}
		if base == "FLOAT32" {
			return float32frombits(uint32(bits)), nil
		}
		return float64frombits(bits), nil
	case "STRING":
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case "DECIMAL":
		var d struct {
			Unscaled string `json:"unscaled"`
			Scale    int32  `json:"scale"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, err
		}
		u, ok := new(big.Int).SetString(d.Unscaled, 10)
		if !ok {
			return nil, fmt.Errorf("bad unscaled value %q", d.Unscaled)
		}
		return serialization.Decimal{Unscaled: u, Scale: d.Scale}, nil
	case "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_WITH_TIMEZONE":
		var t struct {
			Year, Month, Day, Hour, Minute, Second, Nano int64
			Offset                                       int32 `json:"offset_seconds"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		date := serialization.LocalDate{Year: int32(t.Year), Month: int8(t.Month), Day: int8(t.Day)}
		tm := serialization.LocalTime{Hour: int8(t.Hour), Minute: int8(t.Minute), Second: int8(t.Second), Nanosecond: int32(t.Nano)}
		switch base {
		case "DATE":
			return date, nil
		case "TIME":
			return tm, nil
		case "TIMESTAMP":
			return serialization.LocalDateTime{Date: date, Time: tm}, nil
		}
		return serialization.OffsetDateTime{LocalDateTime: serialization.LocalDateTime{Date: date, Time: tm}, OffsetSeconds: t.Offset}, nil
	case "UUID":
		var u struct {
			Most  string `json:"most_sig_bits"`
			Least string `json:"least_sig_bits"`
		}
		if err := json.Unmarshal(raw, &u); err != nil {
			return nil, err
		}
		most, err1 := strconv.ParseInt(u.Most, 10, 64)
		least, err2 := strconv.ParseInt(u.Least, 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		return serialization.UUIDFromBits(most, least), nil
	}
	return nil, fmt.Errorf("unknown value kind %q", kind)
}

// parseArray builds the slice type the package uses for ARRAY_OF_<elem>:
// plain slices for primitive items, pointer items where items may be null.
func parseArray(format, elem string, items []json.RawMessage) (any, error) {
	vals := make([]any, len(items))
	for i, it := range items {
		v, err := parseValue(format, elem, it)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		vals[i] = v
	}
	switch elem {
	case "BOOLEAN":
		return typed[bool](vals), nil
	case "INT8":
		return typed[int8](vals), nil
	case "CHAR":
		return typed[serialization.Char](vals), nil
	case "INT16":
		return typed[int16](vals), nil
	case "INT32":
		return typed[int32](vals), nil
	case "INT64":
		return typed[int64](vals), nil
	case "FLOAT32":
		return typed[float32](vals), nil
	case "FLOAT64":
		return typed[float64](vals), nil
	case "STRING":
		return pointers[string](vals), nil
	case "DECIMAL":
		return pointers[serialization.Decimal](vals), nil
	case "TIME":
		return pointers[serialization.LocalTime](vals), nil
	case "DATE":
		return pointers[serialization.LocalDate](vals), nil
	case "TIMESTAMP":
		return pointers[serialization.LocalDateTime](vals), nil
	case "TIMESTAMP_WITH_TIMEZONE":
		return pointers[serialization.OffsetDateTime](vals), nil
	case "NULLABLE_BOOLEAN":
		return pointers[bool](vals), nil
	case "NULLABLE_INT8":
		return pointers[int8](vals), nil
	case "NULLABLE_INT16":
		return pointers[int16](vals), nil
	case "NULLABLE_INT32":
		return pointers[int32](vals), nil
	case "NULLABLE_INT64":
		return pointers[int64](vals), nil
	case "NULLABLE_FLOAT32":
		return pointers[float32](vals), nil
	case "NULLABLE_FLOAT64":
		return pointers[float64](vals), nil
	case "OBJECT":
		out := make([]*object, len(vals))
		for i, v := range vals {
			out[i], _ = v.(*object)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown array item kind %q", elem)
}

func typed[T any](vals []any) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i], _ = v.(T)
	}
	return out
}

func pointers[T any](vals []any) []*T {
	out := make([]*T, len(vals))
	for i, v := range vals {
		if x, ok := v.(T); ok {
			out[i] = &x
		}
	}
	return out
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}
