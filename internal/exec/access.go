package exec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// pathStep is one step of an attribute path: a field, optionally indexed.
type pathStep struct {
	name  string
	index int  // -1: none
	any   bool // [any]
}

// accessor reads one scan column from an entry's key or value bytes, in
// place. It is compiled once per fragment and worker: the format-specific
// layout of the field (Compact schema offset, Portable field index, IDS
// layout offset) is looked up on the first entry of each schema or class
// and reused while the following entries share it, so the common case
// reads a few bytes at a known offset without allocating.
//
// An accessor is not safe for concurrent use (its caches change).
type accessor struct {
	col   plan.ScanCol
	key   bool
	whole bool
	steps []pathStep
	js    []jstep // JSON path (nil when it has a wildcard)
	jpath *serialization.JSONPath
	flat  bool // json-flat mapping or a JSON path column
	// single: one plain field of a Compact, Portable or IDS value (the
	// in-place fast path).
	single bool
	ser    *serialization.Service

	// Compact cache.
	cID    int64
	cField *serialization.SchemaField
	cVar   bool // the schema has variable-size fields (data length word)
	cOK    bool
	// cUnknown: a strict column whose field no version of the schema's
	// type has (the generic path reports it).
	cUnknown bool
	// Portable cache.
	pFid, pCid, pVer int32
	pIdx             int
	pOK              bool
	// IDS cache.
	iFid, iCid int32
	iLayout    *serialization.Layout
	iIdx       int
	iOff       int // constant offset from the first field, or -1
	iOp        serialization.LayoutOp
	iOK        bool
}

var errAccess = errors.New("cannot read attribute")

func parsePath(p string) ([]pathStep, error) {
	var steps []pathStep
	for _, part := range splitPath(p) {
		st := pathStep{name: part, index: -1}
		if i := strings.IndexByte(part, '['); i >= 0 {
			if !strings.HasSuffix(part, "]") {
				return nil, fmt.Errorf("bad attribute path %q", p)
			}
			st.name = part[:i]
			inner := strings.TrimSpace(part[i+1 : len(part)-1])
			switch inner {
			case "any", "*":
				st.any = true
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("bad index in attribute path %q", p)
				}
				st.index = n
			}
		}
		if st.name == "" && len(steps) == 0 && st.index < 0 && !st.any {
			return nil, fmt.Errorf("bad attribute path %q", p)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// splitPath splits on dots outside brackets.
func splitPath(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

func newAccessor(col plan.ScanCol, ser *serialization.Service) (*accessor, error) {
	a := &accessor{col: col, ser: ser, flat: col.JSON || col.Format == "json-flat"}
	if col.JSON {
		jp, err := serialization.ParseJSONPath(col.Path)
		if err != nil {
			return nil, err
		}
		a.jpath = jp
		if !jp.HasWildcard() {
			a.js = compileJSONSteps(col.Path)
		}
		return a, nil
	}
	p := col.Path
	switch {
	case p == "__key":
		a.key, a.whole = true, true
		return a, nil
	case p == "this":
		a.whole = true
		return a, nil
	case strings.HasPrefix(p, "__key."):
		a.key, p = true, p[len("__key."):]
	case strings.HasPrefix(p, "this."):
		p = p[len("this."):]
	}
	steps, err := parsePath(p)
	if err != nil {
		return nil, err
	}
	a.steps = steps
	a.single = !a.flat && len(steps) == 1 && steps[0].index < 0 && !steps[0].any
	any := false
	for _, s := range steps {
		any = any || s.any
	}
	if !any {
		for _, s := range steps {
			a.js = append(a.js, jstep{name: s.name, index: -1})
			if s.index >= 0 {
				a.js = append(a.js, jstep{index: s.index})
			}
		}
	}
	jp, err := serialization.ParseJSONPath(p)
	if err == nil {
		a.jpath = jp
	}
	return a, nil
}

// compileJSONSteps turns "$.a.b[0]" (already validated) into steps.
func compileJSONSteps(p string) []jstep {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "lax ")
	p = strings.TrimPrefix(strings.TrimSpace(p), "$")
	var out []jstep
	for _, part := range splitPath(strings.TrimPrefix(p, ".")) {
		if part == "" {
			continue
		}
		name := part
		rest := ""
		if i := strings.IndexByte(part, '['); i >= 0 {
			name, rest = part[:i], part[i:]
		}
		if name != "" {
			out = append(out, jstep{name: name, index: -1})
		}
		for rest != "" {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil
			}
			inner := strings.TrimSpace(rest[1:end])
			if n, err := strconv.Atoi(inner); err == nil {
				out = append(out, jstep{index: n})
			} else if len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') {
				out = append(out, jstep{name: inner[1 : len(inner)-1], index: -1})
			} else {
				return nil
			}
			rest = rest[end+1:]
		}
	}
	return out
}

// readInto stores the column's value for an entry in dst. Values may
// alias key and value (valid while the entry is). The common case (one
// field of a Compact, Portable or IDS value, or a whole Data) writes dst
// directly without copying values around.
func (a *accessor) readInto(key, value []byte, dst *expr.Value) error {
	d := value
	if a.key {
		d = key
	}
	if len(d) < serialization.HeaderSize {
		*dst = expr.Value{T: expr.Null}
		return nil
	}
	typ := int32(binary.BigEndian.Uint32(d[4:8]))
	if a.single {
		ok := false
		switch typ {
		case serialization.TypeIdentified:
			ok = a.identifiedInto(d, dst)
		case serialization.TypeCompact:
			ok = a.compactInto(d, dst)
		case serialization.TypePortable:
			ok = a.portableInto(d, dst)
		}
		if ok {
			if t := a.col.Type; t == expr.Unknown || t == dst.T || dst.T == expr.Null {
				return nil
			}
			v, err := a.convert(*dst, nil)
			*dst = v
			return err
		}
	} else if a.whole && a.col.Type == expr.Object {
		*dst = expr.Value{T: expr.Object, B: d}
		return nil
	}
	if a.js != nil && (typ == serialization.TypeJSON || (a.flat && typ == serialization.TypeString)) && a.jsonInto(d, dst) {
		return nil
	}
	v, err := a.read(key, value)
	*dst = v
	return err
}

// read returns the column's value for an entry (the general path).
func (a *accessor) read(key, value []byte) (expr.Value, error) {
	d := value
	if a.key {
		d = key
	}
	if len(d) < serialization.HeaderSize {
		return expr.NullValue, nil
	}
	typ := int32(binary.BigEndian.Uint32(d[4:8]))
	if a.whole {
		return a.convert(wholeValue(d, typ, a.col.Type))
	}
	if a.flat || typ == serialization.TypeJSON {
		return a.readJSON(d, typ)
	}
	if len(a.steps) == 1 && a.steps[0].index < 0 && !a.steps[0].any {
		var v expr.Value
		ok := false
		switch typ {
		case serialization.TypeCompact:
			ok = a.compactInto(d, &v)
		case serialization.TypePortable:
			ok = a.portableInto(d, &v)
		case serialization.TypeIdentified:
			ok = a.identifiedInto(d, &v)
		}
		if ok {
			return a.convert(v, nil)
		}
	}
	return a.generic(d, typ)
}

// convert applies the column's type.
func (a *accessor) convert(v expr.Value, err error) (expr.Value, error) {
	if err != nil || v.IsNull() {
		return v, err
	}
	t := a.col.Type
	if t == expr.Unknown || t == v.T || t == expr.Object {
		return v, nil
	}
	if v.T == expr.List {
		return v, nil
	}
	c, cerr := expr.Cast(v, t)
	if cerr != nil {
		return expr.NullValue, fmt.Errorf("attribute %s: %w", a.col.Path, cerr)
	}
	return c, nil
}

// wholeValue reads a whole key or value: the Data itself when an object is
// wanted, else the scalar it holds.
func wholeValue(d []byte, typ int32, want expr.Type) (expr.Value, error) {
	if want == expr.Object {
		return expr.ObjectValue(d), nil
	}
	p := d[serialization.HeaderSize:]
	be := binary.BigEndian
	switch typ {
	case serialization.TypeInt32:
		if len(p) >= 4 {
			return expr.IntValue(expr.Integer, int64(int32(be.Uint32(p)))), nil
		}
	case serialization.TypeInt64:
		if len(p) >= 8 {
			return expr.BigIntValue(int64(be.Uint64(p))), nil
		}
	case serialization.TypeInt16:
		if len(p) >= 2 {
			return expr.IntValue(expr.SmallInt, int64(int16(be.Uint16(p)))), nil
		}
	case serialization.TypeByte:
		if len(p) >= 1 {
			return expr.IntValue(expr.TinyInt, int64(int8(p[0]))), nil
		}
	case serialization.TypeBool:
		if len(p) >= 1 {
			return expr.BoolValue(p[0] != 0), nil
		}
	case serialization.TypeFloat32:
		if len(p) >= 4 {
			return expr.TypedFloat(expr.Real, float64(math.Float32frombits(be.Uint32(p)))), nil
		}
	case serialization.TypeFloat64:
		if len(p) >= 8 {
			return expr.DoubleValue(math.Float64frombits(be.Uint64(p))), nil
		}
	case serialization.TypeChar:
		if len(p) >= 2 {
			return expr.StringValue(string(rune(be.Uint16(p)))), nil
		}
	case serialization.TypeString, serialization.TypeJSON:
		if len(p) >= 4 {
			n := int32(be.Uint32(p))
			if n < 0 {
				return expr.NullValue, nil
			}
			if int(n) <= len(p)-4 {
				t := expr.Varchar
				if typ == serialization.TypeJSON {
					t = expr.JSON
				}
				return expr.Value{T: t, B: p[4 : 4+n]}, nil
			}
		}
		return expr.NullValue, fmt.Errorf("%w: truncated string", errAccess)
	case serialization.TypeNull:
		return expr.NullValue, nil
	default:
		return expr.ObjectValue(d), nil
	}
	return expr.NullValue, fmt.Errorf("%w: truncated value of type %d", errAccess, typ)
}

func (a *accessor) readJSON(d []byte, typ int32) (expr.Value, error) {
	var doc []byte
	switch typ {
	case serialization.TypeJSON, serialization.TypeString:
		p := d[serialization.HeaderSize:]
		if len(p) < 4 {
			return expr.NullValue, nil
		}
		n := int(int32(binary.BigEndian.Uint32(p)))
		if n < 0 || n > len(p)-4 {
			return expr.NullValue, nil
		}
		doc = p[4 : 4+n]
	default:
		if a.flat {
			return expr.NullValue, nil
		}
		return a.generic(d, typ)
	}
	if a.js != nil {
		kind, raw, ok := jsonLookup(doc, a.js)
		if !ok {
			return expr.NullValue, nil
		}
		return a.convertJSON(serialization.JSONValue{Kind: kind, Raw: raw})
	}
	if a.jpath == nil {
		return expr.NullValue, nil
	}
	var list []expr.Value
	var firstErr error
	err := a.jpath.Each(doc, func(v serialization.JSONValue) bool {
		x, err := a.convertJSON(v)
		if err != nil {
			firstErr = err
			return false
		}
		list = append(list, x)
		return true
	})
	if err != nil {
		return expr.NullValue, nil
	}
	if firstErr != nil {
		return expr.NullValue, firstErr
	}
	return expr.Value{T: expr.List, L: &expr.Values{Items: list}}, nil
}

// jsonInto is the fast path of an integer or string read from a JSON
// document; it reports false to leave other cases to readJSON.
func (a *accessor) jsonInto(d []byte, dst *expr.Value) bool {
	p := d[serialization.HeaderSize:]
	if len(p) < 4 {
		return false
	}
	n := int(int32(binary.BigEndian.Uint32(p)))
	if n < 0 || n > len(p)-4 {
		return false
	}
	doc := p[4 : 4+n]
	at, found, ok := jsonFind(doc, a.js)
	if !ok {
		return false
	}
	if !found || doc[at] == 'n' {
		if found && !bytes.HasPrefix(doc[at:], []byte("null")) {
			return false
		}
		*dst = expr.Value{T: expr.Null}
		return true
	}
	t := a.col.Type
	switch c := doc[at]; {
	case c == '-' || (c >= '0' && c <= '9'):
		if t != expr.Unknown && !t.IsInteger() {
			return false
		}
		j := at
		neg := c == '-'
		if neg {
			j++
		}
		start := j
		var x int64
		for j < len(doc) && doc[j] >= '0' && doc[j] <= '9' {
			x = x*10 + int64(doc[j]-'0')
			j++
		}
		digits := j - start
		if digits == 0 || digits > 18 || (j < len(doc) && (doc[j] == '.' || doc[j] == 'e' || doc[j] == 'E')) {
			return false // fractions, exponents and long numbers take the slow path
		}
		if neg {
			x = -x
		}
		switch t {
		case expr.Unknown, expr.BigInt:
			*dst = expr.Value{T: expr.BigInt, I: x}
		default:
			if !fitsInt(t, x) {
				return false // the slow path reports the overflow
			}
			*dst = expr.Value{T: t, I: x}
		}
		return true
	case c == '"':
		if t != expr.Unknown && t != expr.Varchar {
			return false
		}
		_, end, esc, ok := scanString(doc, at)
		if !ok || esc {
			return false
		}
		*dst = expr.Value{T: expr.Varchar, B: doc[at+1 : end]}
		return true
	}
	return false
}

func (a *accessor) convertJSON(v serialization.JSONValue) (expr.Value, error) {
	switch v.Kind {
	case serialization.JSONNumber:
		if !a.col.Type.IsFloat() {
			if n, ok := v.Int64(); ok {
				return a.convert(expr.BigIntValue(n), nil)
			}
		}
		f, ok := v.Float64()
		if !ok {
			return expr.NullValue, nil
		}
		return a.convert(expr.DoubleValue(f), nil)
	case serialization.JSONString:
		raw := v.Raw[1 : len(v.Raw)-1]
		if bytesHasByte(raw, '\\') {
			s, ok := v.Text()
			if !ok {
				return expr.NullValue, nil
			}
			return a.convert(expr.StringValue(s), nil)
		}
		return a.convert(expr.BytesString(raw), nil)
	case serialization.JSONBool:
		b, _ := v.Bool()
		return a.convert(expr.BoolValue(b), nil)
	case serialization.JSONObject, serialization.JSONArray:
		if a.col.Type == expr.JSON || a.col.Type == expr.Unknown {
			return expr.Value{T: expr.JSON, B: v.Raw}, nil
		}
	}
	return expr.NullValue, nil
}

func bytesHasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// ---- Compact ---------------------------------------------------------------

func (a *accessor) compactInto(d []byte, dst *expr.Value) bool {
	if len(d) < 16 {
		return false
	}
	id := int64(binary.BigEndian.Uint64(d[8:16]))
	if !a.cOK || id != a.cID {
		s, ok := a.ser.Schemas().Get(id)
		if !ok {
			return false // the generic path reports it
		}
		a.cID, a.cOK, a.cVar = id, true, s.VarCount > 0
		a.cField = nil
		if f, ok := s.Field(a.steps[0].name); ok {
			a.cField = f
		}
		a.cUnknown = a.cField == nil && a.col.Strict && a.unknownField(&compactType{s}, a.steps[0].name) != nil
	}
	f := a.cField
	if f == nil {
		if a.cUnknown {
			return false
		}
		*dst = expr.Value{T: expr.Null}
		return true // schema evolution: absent field
	}
	base := 16
	dataLen := -1
	if a.cVar {
		if len(d) < 20 {
			return false
		}
		dataLen = int(int32(binary.BigEndian.Uint32(d[16:20])))
		base = 20
		if dataLen < 0 || base+dataLen > len(d) {
			return false
		}
	}
	be := binary.BigEndian
	if f.Offset >= 0 {
		off := base + int(f.Offset)
		var v expr.Value
		switch f.Kind {
		case serialization.KindInt32:
			if off+4 > len(d) {
				return false
			}
			v = expr.IntValue(expr.Integer, int64(int32(be.Uint32(d[off:]))))
		case serialization.KindInt64:
			if off+8 > len(d) {
				return false
			}
			v = expr.BigIntValue(int64(be.Uint64(d[off:])))
		case serialization.KindFloat64:
			if off+8 > len(d) {
				return false
			}
			v = expr.DoubleValue(math.Float64frombits(be.Uint64(d[off:])))
		case serialization.KindFloat32:
			if off+4 > len(d) {
				return false
			}
			v = expr.TypedFloat(expr.Real, float64(math.Float32frombits(be.Uint32(d[off:]))))
		case serialization.KindInt16:
			if off+2 > len(d) {
				return false
			}
			v = expr.IntValue(expr.SmallInt, int64(int16(be.Uint16(d[off:]))))
		case serialization.KindInt8:
			if off+1 > len(d) {
				return false
			}
			v = expr.IntValue(expr.TinyInt, int64(int8(d[off])))
		case serialization.KindBoolean:
			if off+1 > len(d) {
				return false
			}
			v = expr.BoolValue(d[off]&(1<<f.BitOffset) != 0)
		default:
			return false
		}
		*dst = v
		return true
	}
	if dataLen < 0 {
		return false
	}
	width := 4
	switch {
	case dataLen < 255:
		width = 1
	case dataLen < 65535:
		width = 2
	}
	at := base + dataLen + int(f.Index)*width
	if at+width > len(d) {
		return false
	}
	var off int
	switch width {
	case 1:
		if d[at] == 0xff {
			*dst = expr.Value{T: expr.Null}
			return true
		}
		off = int(d[at])
	case 2:
		x := int(be.Uint16(d[at:]))
		if x == 0xffff {
			*dst = expr.Value{T: expr.Null}
			return true
		}
		off = x
	default:
		x := int32(be.Uint32(d[at:]))
		if x == -1 {
			*dst = expr.Value{T: expr.Null}
			return true
		}
		off = int(x)
	}
	p := base + off
	end := base + dataLen
	if off < 0 || off >= dataLen {
		return false
	}
	switch f.Kind {
	case serialization.KindString:
		if p+4 > end {
			return false
		}
		n := int(int32(be.Uint32(d[p:])))
		if n < 0 || p+4+n > end {
			return false
		}
		*dst = expr.Value{T: expr.Varchar, B: d[p+4 : p+4+n]}
	case serialization.KindNullableInt32:
		if p+4 > end {
			return false
		}
		*dst = expr.Value{T: expr.Integer, I: int64(int32(be.Uint32(d[p:])))}
	case serialization.KindNullableInt64:
		if p+8 > end {
			return false
		}
		*dst = expr.Value{T: expr.BigInt, I: int64(be.Uint64(d[p:]))}
	case serialization.KindNullableFloat64:
		if p+8 > end {
			return false
		}
		*dst = expr.Value{T: expr.Double, F: math.Float64frombits(be.Uint64(d[p:]))}
	case serialization.KindNullableFloat32:
		if p+4 > end {
			return false
		}
		*dst = expr.Value{T: expr.Real, F: float64(math.Float32frombits(be.Uint32(d[p:])))}
	case serialization.KindNullableInt16:
		if p+2 > end {
			return false
		}
		*dst = expr.Value{T: expr.SmallInt, I: int64(int16(be.Uint16(d[p:])))}
	case serialization.KindNullableInt8:
		if p+1 > end {
			return false
		}
		*dst = expr.Value{T: expr.TinyInt, I: int64(int8(d[p]))}
	case serialization.KindNullableBoolean:
		if p+1 > end {
			return false
		}
		*dst = expr.BoolValue(d[p] != 0)
	default:
		return false
	}
	return true
}

// ---- Portable --------------------------------------------------------------

func (a *accessor) portableInto(d []byte, dst *expr.Value) bool {
	be := binary.BigEndian
	if len(d) < 28 {
		return false
	}
	fid, cid, ver := int32(be.Uint32(d[8:])), int32(be.Uint32(d[12:])), int32(be.Uint32(d[16:]))
	body := 20
	end := int(int32(be.Uint32(d[body:])))
	count := int(int32(be.Uint32(d[body+4:])))
	if end > len(d) || count < 0 || body+8+4*count > end {
		return false
	}
	name := a.steps[0].name
	entryAt := func(i int) (kind serialization.FieldKind, pos int, ok bool) {
		at := body + 8 + 4*i
		pos = int(int32(be.Uint32(d[at:])))
		if pos < body+8+4*count || pos+3 > end {
			return 0, 0, false
		}
		n := int(be.Uint16(d[pos:]))
		if pos+2+n+1 > end || string(d[pos+2:pos+2+n]) != name {
			return 0, 0, false
		}
		k, ok := serialization.PortableKind(int32(int8(d[pos+2+n])))
		return k, pos + 3 + n, ok
	}
	var kind serialization.FieldKind
	var pos int
	ok := false
	if a.pOK && a.pFid == fid && a.pCid == cid && a.pVer == ver && a.pIdx < count {
		kind, pos, ok = entryAt(a.pIdx)
	}
	if !ok {
		for i := 0; i < count && !ok; i++ {
			if kind, pos, ok = entryAt(i); ok {
				a.pFid, a.pCid, a.pVer, a.pIdx, a.pOK = fid, cid, ver, i, true
			}
		}
		if !ok {
			if a.col.Strict {
				return false // the generic path tells evolution from an unknown field
			}
			*dst = expr.Value{T: expr.Null}
			return true // no such field
		}
	}
	var v expr.Value
	switch kind {
	case serialization.KindInt64:
		if pos+8 > end {
			return false
		}
		v = expr.BigIntValue(int64(be.Uint64(d[pos:])))
	case serialization.KindInt32:
		if pos+4 > end {
			return false
		}
		v = expr.IntValue(expr.Integer, int64(int32(be.Uint32(d[pos:]))))
	case serialization.KindFloat64:
		if pos+8 > end {
			return false
		}
		v = expr.DoubleValue(math.Float64frombits(be.Uint64(d[pos:])))
	case serialization.KindFloat32:
		if pos+4 > end {
			return false
		}
		v = expr.TypedFloat(expr.Real, float64(math.Float32frombits(be.Uint32(d[pos:]))))
	case serialization.KindInt16:
		if pos+2 > end {
			return false
		}
		v = expr.IntValue(expr.SmallInt, int64(int16(be.Uint16(d[pos:]))))
	case serialization.KindInt8:
		if pos+1 > end {
			return false
		}
		v = expr.IntValue(expr.TinyInt, int64(int8(d[pos])))
	case serialization.KindBoolean:
		if pos+1 > end {
			return false
		}
		v = expr.BoolValue(d[pos] != 0)
	case serialization.KindString:
		if pos+4 > end {
			return false
		}
		n := int(int32(be.Uint32(d[pos:])))
		if n < 0 {
			*dst = expr.Value{T: expr.Null}
			return true
		}
		if pos+4+n > end {
			return false
		}
		v = expr.BytesString(d[pos+4 : pos+4+n])
	default:
		return false
	}
	*dst = v
	return true
}

// ---- IdentifiedDataSerializable ----------------------------------------------

func (a *accessor) identifiedInto(d []byte, dst *expr.Value) bool {
	be := binary.BigEndian
	if len(d) < 17 || d[8]&1 == 0 || d[8]&2 != 0 {
		return false
	}
	fid, cid := int32(be.Uint32(d[9:])), int32(be.Uint32(d[13:]))
	if !a.iOK || fid != a.iFid || cid != a.iCid {
		l, ok := a.ser.LayoutRegistry().Get(fid, cid)
		if !ok {
			return false
		}
		a.iFid, a.iCid, a.iLayout, a.iOK = fid, cid, l, true
		a.iIdx, a.iOff = -1, -1
		if f, i, ok := l.Field(a.steps[0].name); ok {
			a.iIdx, a.iOp = i, f.Op
			a.iOff = constOffset(l, i)
		}
	}
	if a.iIdx < 0 {
		if a.col.Strict {
			return false // the generic path reports the unknown field
		}
		*dst = expr.Value{T: expr.Null}
		return true
	}
	if a.iOff < 0 {
		return false
	}
	p := 17 + a.iOff
	if a.iOp == serialization.OpLong {
		if p+8 > len(d) {
			return false
		}
		*dst = expr.Value{T: expr.BigInt, I: int64(be.Uint64(d[p:]))}
		return true
	}
	var v expr.Value
	switch a.iOp {
	case serialization.OpInt:
		if p+4 > len(d) {
			return false
		}
		v = expr.IntValue(expr.Integer, int64(int32(be.Uint32(d[p:]))))
	case serialization.OpDouble:
		if p+8 > len(d) {
			return false
		}
		v = expr.DoubleValue(math.Float64frombits(be.Uint64(d[p:])))
	case serialization.OpFloat:
		if p+4 > len(d) {
			return false
		}
		v = expr.TypedFloat(expr.Real, float64(math.Float32frombits(be.Uint32(d[p:]))))
	case serialization.OpShort:
		if p+2 > len(d) {
			return false
		}
		v = expr.IntValue(expr.SmallInt, int64(int16(be.Uint16(d[p:]))))
	case serialization.OpByte:
		if p+1 > len(d) {
			return false
		}
		v = expr.IntValue(expr.TinyInt, int64(int8(d[p])))
	case serialization.OpBoolean:
		if p+1 > len(d) {
			return false
		}
		v = expr.BoolValue(d[p] != 0)
	case serialization.OpString:
		if p+4 > len(d) {
			return false
		}
		n := int(int32(be.Uint32(d[p:])))
		if n < 0 {
			*dst = expr.Value{T: expr.Null}
			return true
		}
		if p+4+n > len(d) {
			return false
		}
		v = expr.BytesString(d[p+4 : p+4+n])
	default:
		return false
	}
	*dst = v
	return true
}

// fitsInt reports whether x is in the range of integer type t.
func fitsInt(t expr.Type, x int64) bool {
	switch t {
	case expr.TinyInt:
		return x >= math.MinInt8 && x <= math.MaxInt8
	case expr.SmallInt:
		return x >= math.MinInt16 && x <= math.MaxInt16
	case expr.Integer:
		return x >= math.MinInt32 && x <= math.MaxInt32
	}
	return true
}

var opSize = map[serialization.LayoutOp]int{
	serialization.OpBoolean: 1, serialization.OpByte: 1, serialization.OpChar: 2, serialization.OpShort: 2,
	serialization.OpInt: 4, serialization.OpLong: 8, serialization.OpFloat: 4, serialization.OpDouble: 8,
}

// constOffset returns field i's offset from the first field when every
// field before it has a fixed size, or -1.
func constOffset(l *serialization.Layout, i int) int {
	off := 0
	for _, f := range l.Fields[:i] {
		n, ok := opSize[f.Op]
		if !ok {
			return -1
		}
		off += n
	}
	return off
}

// ---- Generic path: record readers ------------------------------------------

// generic reads a path of any depth through the serialization records.
func (a *accessor) generic(d []byte, typ int32) (expr.Value, error) {
	var cur any
	var err error
	switch typ {
	case serialization.TypeCompact, serialization.TypeCompactWithSchema:
		var r serialization.CompactRecord
		if r, err = serialization.ReadCompactRecord(d, a.ser.Schemas()); err == nil {
			cur = &r
		}
	case serialization.TypePortable:
		var r serialization.PortableRecord
		if r, err = serialization.ReadPortableRecord(d, a.ser.ClassRegistry()); err == nil {
			cur = &r
		}
	case serialization.TypeIdentified:
		var r serialization.IdentifiedRecord
		if r, err = serialization.ReadIdentifiedRecord(d, a.ser); err == nil {
			cur = &r
		}
	case serialization.TypeJSON:
		return a.readJSON(d, typ)
	default:
		if a.col.Strict && typ != serialization.TypeNull {
			return expr.NullValue, plan.Errorf("attribute %s does not exist: the values are of type id %d, which has no fields", a.col.Path, typ)
		}
		return expr.NullValue, nil // scalars have no fields
	}
	if err != nil {
		return expr.NullValue, fmt.Errorf("attribute %s: %w", a.col.Path, err)
	}
	vals := []any{cur}
	multi := false
	for _, st := range a.steps {
		var next []any
		for _, v := range vals {
			fv, ok := field(v, st.name)
			if !ok {
				if a.col.Strict {
					if err := a.unknownField(v, st.name); err != nil {
						return expr.NullValue, err
					}
				}
				continue
			}
			switch {
			case st.any:
				multi = true
				next = append(next, elements(fv)...)
			case st.index >= 0:
				els := elements(fv)
				if st.index < len(els) {
					next = append(next, els[st.index])
				}
			default:
				next = append(next, fv)
			}
		}
		vals = next
	}
	if !multi {
		if len(vals) == 0 {
			return expr.NullValue, nil
		}
		return a.convert(a.fromAny(vals[0]))
	}
	list := make([]expr.Value, 0, len(vals))
	for _, v := range vals {
		x, err := a.convert(a.fromAny(v))
		if err != nil {
			return expr.NullValue, err
		}
		list = append(list, x)
	}
	return expr.Value{T: expr.List, L: &expr.Values{Items: list}}, nil
}

type getter interface {
	Get(name string) (any, error)
}

// compactType is a Compact schema seen as a type that may have other
// versions (schemas of the same type name).
type compactType struct{ s *serialization.Schema }

// unknownField returns a query error when v is an object none of whose
// type's versions has the field: a Compact type name, a Portable class
// (any version) or an IDS layout. A field that only some versions have
// is no error (its value is NULL in the others), nor is a missing (nil)
// object.
func (a *accessor) unknownField(v any, name string) error {
	switch r := v.(type) {
	case nil:
		return nil
	case *compactType:
		for _, s := range a.ser.Schemas().All() {
			if s.TypeName == r.s.TypeName {
				if _, ok := s.Field(name); ok {
					return nil
				}
			}
		}
		return plan.Errorf("attribute %s does not exist: Compact type %q has no field %q", a.col.Path, r.s.TypeName, name)
	case *serialization.CompactRecord:
		return a.unknownField(&compactType{r.Schema()}, name)
	case *serialization.PortableRecord:
		cd, err := r.ClassDefinition()
		if err != nil {
			return nil
		}
		for _, c := range a.ser.ClassRegistry().All() {
			if c.FactoryID == cd.FactoryID && c.ClassID == cd.ClassID {
				for _, f := range c.Fields {
					if f.Name == name {
						return nil
					}
				}
			}
		}
		return plan.Errorf("attribute %s does not exist: Portable class %d/%d has no field %q", a.col.Path, cd.FactoryID, cd.ClassID, name)
	case *serialization.IdentifiedRecord:
		l := r.Layout()
		if _, _, ok := l.Field(name); ok {
			return nil
		}
		return plan.Errorf("attribute %s does not exist: the layout of IdentifiedDataSerializable %d/%d has no field %q", a.col.Path, l.FactoryID, l.ClassID, name)
	}
	if _, ok := v.(getter); ok {
		return nil
	}
	return plan.Errorf("attribute %s does not exist: a %T value has no field %q", a.col.Path, v, name)
}

func field(v any, name string) (any, bool) {
	g, ok := v.(getter)
	if !ok || name == "" {
		return nil, false
	}
	x, err := g.Get(name)
	if err != nil {
		return nil, false
	}
	return x, true
}

func elements(v any) []any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}

// fromAny converts a value a record returned. Nested objects (Compact,
// Portable and IDS records) become OBJECT values: their own Data, which a
// client decodes through its registered types or as a generic record.
func (a *accessor) fromAny(v any) (expr.Value, error) {
	switch x := v.(type) {
	case *serialization.CompactRecord, *serialization.PortableRecord, *serialization.IdentifiedRecord:
		d, err := a.ser.ToData(x)
		if err != nil {
			return expr.NullValue, fmt.Errorf("attribute %s: %w", a.col.Path, err)
		}
		return expr.ObjectValue(d), nil
	}
	if v != nil && reflect.TypeOf(v).Kind() == reflect.Slice {
		return expr.NullValue, plan.Errorf("attribute %s is an array, which cannot be read as one value: read an element (%[1]s[0]) or every element (%[1]s[any])", a.col.Path)
	}
	return fromAny(v), nil
}

// fromAny converts a scalar value a record returned (NULL for others).
func fromAny(v any) expr.Value {
	switch x := v.(type) {
	case nil:
		return expr.NullValue
	case bool:
		return expr.BoolValue(x)
	case int8:
		return expr.IntValue(expr.TinyInt, int64(x))
	case int16:
		return expr.IntValue(expr.SmallInt, int64(x))
	case int32:
		return expr.IntValue(expr.Integer, int64(x))
	case int64:
		return expr.BigIntValue(x)
	case int:
		return expr.BigIntValue(int64(x))
	case float32:
		return expr.TypedFloat(expr.Real, float64(x))
	case float64:
		return expr.DoubleValue(x)
	case string:
		return expr.StringValue(x)
	case *string:
		if x == nil {
			return expr.NullValue
		}
		return expr.StringValue(*x)
	case serialization.Char:
		return expr.StringValue(string(rune(x)))
	case *bool:
		if x == nil {
			return expr.NullValue
		}
		return expr.BoolValue(*x)
	case *int8:
		if x == nil {
			return expr.NullValue
		}
		return expr.IntValue(expr.TinyInt, int64(*x))
	case *int16:
		if x == nil {
			return expr.NullValue
		}
		return expr.IntValue(expr.SmallInt, int64(*x))
	case *int32:
		if x == nil {
			return expr.NullValue
		}
		return expr.IntValue(expr.Integer, int64(*x))
	case *int64:
		if x == nil {
			return expr.NullValue
		}
		return expr.BigIntValue(*x)
	case *float32:
		if x == nil {
			return expr.NullValue
		}
		return expr.TypedFloat(expr.Real, float64(*x))
	case *float64:
		if x == nil {
			return expr.NullValue
		}
		return expr.DoubleValue(*x)
	case serialization.Decimal:
		v, _ := expr.Cast(expr.StringValue(x.String()), expr.Decimal)
		return v
	case *serialization.Decimal:
		if x == nil {
			return expr.NullValue
		}
		return fromAny(*x)
	case serialization.LocalDate:
		v, _ := expr.Cast(expr.StringValue(x.String()), expr.Date)
		return v
	case serialization.LocalTime:
		v, _ := expr.Cast(expr.StringValue(x.String()), expr.Time)
		return v
	case serialization.LocalDateTime:
		v, _ := expr.Cast(expr.StringValue(x.String()), expr.Timestamp)
		return v
	case serialization.OffsetDateTime:
		v, _ := expr.Cast(expr.StringValue(x.String()), expr.TimestampTZ)
		return v
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		switch rv.Elem().Interface().(type) {
		case serialization.LocalDate, serialization.LocalTime, serialization.LocalDateTime, serialization.OffsetDateTime:
			return fromAny(rv.Elem().Interface())
		}
	}
	return expr.NullValue
}
