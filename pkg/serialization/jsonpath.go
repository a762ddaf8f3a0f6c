package serialization

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// JSONPath is a compiled path into a JSON document: member names and array
// indexes, optionally with [*] (or Hazelcast's [any]) wildcards. It accepts
// the SQL/JSON form used by JSON_VALUE ("$.a.b[0]", "$['a b']") and the
// attribute form of Hazelcast predicates ("a.b[0]", "arr[any].x").
// A JSONPath is immutable and safe for concurrent use.
type JSONPath struct {
	text  string
	steps []jsonStep
}

type jsonStep struct {
	name  string // member name, when index < 0 and !any
	index int    // array index, or -1
	any   bool   // [*] / [any]
}

// maxJSONDepth bounds the nesting the scanner follows.
const maxJSONDepth = 1000

// ParseJSONPath compiles a path. "$" alone (or "") selects the whole document.
func ParseJSONPath(expr string) (*JSONPath, error) {
	p := &JSONPath{text: expr}
	s := strings.TrimSpace(expr)
	if strings.HasPrefix(s, "lax ") || strings.HasPrefix(s, "strict ") {
		s = strings.TrimSpace(s[strings.IndexByte(s, ' '):])
	}
	s = strings.TrimPrefix(s, "$")
	bad := func(at int, why string) (*JSONPath, error) {
		return nil, &core.DefinitionError{What: "JSON path " + strconv.Quote(expr), Reason: why + " at offset " + strconv.Itoa(at)}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '.':
			i++
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i {
				return bad(i, "empty member name")
			}
			p.steps = append(p.steps, jsonStep{name: s[i:j], index: -1})
			i = j
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return bad(i, "unclosed [")
			}
			inner := strings.TrimSpace(s[i+1 : i+end])
			switch {
			case inner == "*" || inner == "any":
				p.steps = append(p.steps, jsonStep{index: -1, any: true})
			case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
				p.steps = append(p.steps, jsonStep{name: inner[1 : len(inner)-1], index: -1})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return bad(i, "array index must be a non-negative integer, * or any")
				}
				p.steps = append(p.steps, jsonStep{index: n})
			}
			i += end + 1
		case i == 0 && expr != "" && expr[0] != '$':
			// Attribute form: the path starts with a bare member name.
			s = "." + s
		default:
			return bad(i, "unexpected "+strconv.QuoteRune(rune(c)))
		}
	}
	return p, nil
}

// String returns the path as written.
func (p *JSONPath) String() string { return p.text }

// HasWildcard reports whether the path can select several values.
func (p *JSONPath) HasWildcard() bool {
	for _, s := range p.steps {
		if s.any {
			return true
		}
	}
	return false
}

// JSONKind is the type of a JSON value.
type JSONKind uint8

// JSON value kinds. JSONMissing means the path selected nothing.
const (
	JSONMissing JSONKind = iota
	JSONNull
	JSONBool
	JSONNumber
	JSONString
	JSONObject
	JSONArray
)

// JSONValue is a value found in a document: its kind and its raw bytes,
// which alias the document.
type JSONValue struct {
	Kind JSONKind
	Raw  []byte
}

// Lookup returns the first value the path selects in doc, or a value of kind
// JSONMissing. Only the parts of doc on the way to the value are read, and
// they are checked for well-formedness.
func (p *JSONPath) Lookup(doc []byte) (JSONValue, error) {
	return lookupJSON(doc, p.steps)
}

// lookupJSON is Lookup, without allocating for paths without wildcards.
func lookupJSON(doc []byte, steps []jsonStep) (JSONValue, error) {
	sc := jsonScanner{b: doc}
	sc.ws()
	for depth, step := range steps {
		if step.any {
			var found JSONValue
			_, err := sc.walk(steps[depth:], func(v JSONValue) bool {
				found = v
				return false
			}, depth)
			return found, err
		}
		more, err := sc.enter(step, depth)
		if err != nil || !more {
			return JSONValue{}, err
		}
	}
	start := sc.i
	kind, err := sc.skip(len(steps))
	if err != nil {
		return JSONValue{}, err
	}
	return JSONValue{Kind: kind, Raw: sc.b[start:sc.i]}, nil
}

// enter moves from the value at sc.i to the member or item that a step
// without wildcard selects; found is false when the value has none (it is
// then checked to its end, as walk checks the values it passes).
func (sc *jsonScanner) enter(step jsonStep, depth int) (found bool, err error) {
	if depth > maxJSONDepth {
		return false, sc.fail("nesting too deep")
	}
	if sc.i >= len(sc.b) {
		return false, sc.fail("unexpected end of document")
	}
	c := sc.b[sc.i]
	switch {
	case c == '{' && step.index < 0:
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
			return false, nil
		}
		for {
			key, escaped, err := sc.str()
			if err != nil {
				return false, err
			}
			sc.ws()
			if sc.i >= len(sc.b) || sc.b[sc.i] != ':' {
				return false, sc.fail("expected ':' after member name")
			}
			sc.i++
			sc.ws()
			if keyEquals(key, escaped, step.name) {
				return true, nil
			}
			if _, err := sc.skip(depth + 1); err != nil {
				return false, err
			}
			sc.ws()
			if sc.i >= len(sc.b) {
				return false, sc.fail("unterminated object")
			}
			if sc.b[sc.i] == '}' {
				return false, nil
			}
			if sc.b[sc.i] != ',' {
				return false, sc.fail("expected ',' or '}' in object")
			}
			sc.i++
			sc.ws()
		}
	case c == '[' && step.index >= 0:
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
			return false, nil
		}
		for n := 0; ; n++ {
			if n == step.index {
				return true, nil
			}
			if _, err := sc.skip(depth + 1); err != nil {
				return false, err
			}
			sc.ws()
			if sc.i >= len(sc.b) {
				return false, sc.fail("unterminated array")
			}
			if sc.b[sc.i] == ']' {
				return false, nil
			}
			if sc.b[sc.i] != ',' {
				return false, sc.fail("expected ',' or ']' in array")
			}
			sc.i++
			sc.ws()
		}
	}
	_, err = sc.skip(depth)
	return false, err
}

// Each calls fn for every value the path selects, in document order, until
// fn returns false.
func (p *JSONPath) Each(doc []byte, fn func(JSONValue) bool) error {
	sc := jsonScanner{b: doc}
	sc.ws()
	_, err := sc.walk(p.steps, fn, 0)
	return err
}

type jsonScanner struct {
	b []byte
	i int
}

func (sc *jsonScanner) fail(why string) error {
	return core.Malformed("json", sc.i, why)
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// walk applies steps to the value at sc.i, calling fn for each match, and
// leaves sc.i after the value. It returns false when fn asked to stop.
func (sc *jsonScanner) walk(steps []jsonStep, fn func(JSONValue) bool, depth int) (bool, error) {
	if depth > maxJSONDepth {
		return false, sc.fail("nesting too deep")
	}
	if len(steps) == 0 {
		start := sc.i
		kind, err := sc.skip(depth)
		if err != nil {
			return false, err
		}
		return fn(JSONValue{Kind: kind, Raw: sc.b[start:sc.i]}), nil
	}
	if sc.i >= len(sc.b) {
		return false, sc.fail("unexpected end of document")
	}
	step := steps[0]
	switch sc.b[sc.i] {
	case '{':
		if step.index >= 0 || step.any {
			_, err := sc.skip(depth)
			return true, err
		}
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
			sc.i++
			return true, nil
		}
		for {
			key, escaped, err := sc.str()
			if err != nil {
				return false, err
			}
			sc.ws()
			if sc.i >= len(sc.b) || sc.b[sc.i] != ':' {
				return false, sc.fail("expected ':' after member name")
			}
			sc.i++
			sc.ws()
			if keyEquals(key, escaped, step.name) {
				more, err := sc.walk(steps[1:], fn, depth+1)
				if err != nil || !more {
					return more, err
				}
			} else if _, err := sc.skip(depth + 1); err != nil {
				return false, err
			}
			sc.ws()
			if sc.i >= len(sc.b) {
				return false, sc.fail("unterminated object")
			}
			if sc.b[sc.i] == '}' {
				sc.i++
				return true, nil
			}
			if sc.b[sc.i] != ',' {
				return false, sc.fail("expected ',' or '}' in object")
			}
			sc.i++
			sc.ws()
		}
	case '[':
		if step.index < 0 && !step.any {
			_, err := sc.skip(depth)
			return true, err
		}
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
			sc.i++
			return true, nil
		}
		for n := 0; ; n++ {
			if step.any || n == step.index {
				more, err := sc.walk(steps[1:], fn, depth+1)
				if err != nil || !more {
					return more, err
				}
			} else if _, err := sc.skip(depth + 1); err != nil {
				return false, err
			}
			sc.ws()
			if sc.i >= len(sc.b) {
				return false, sc.fail("unterminated array")
			}
			if sc.b[sc.i] == ']' {
				sc.i++
				return true, nil
			}
			if sc.b[sc.i] != ',' {
				return false, sc.fail("expected ',' or ']' in array")
			}
			sc.i++
			sc.ws()
		}
	}
	_, err := sc.skip(depth)
	return true, err
}

func keyEquals(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	s, ok := unescapeJSON(key)
	return ok && s == name
}

// skip moves past one value and reports its kind.
func (sc *jsonScanner) skip(depth int) (JSONKind, error) {
	if depth > maxJSONDepth {
		return 0, sc.fail("nesting too deep")
	}
	if sc.i >= len(sc.b) {
		return 0, sc.fail("unexpected end of document")
	}
	switch c := sc.b[sc.i]; c {
	case '"':
		_, _, err := sc.str()
		return JSONString, err
	case '{', '[':
		closer := byte('}')
		kind := JSONObject
		if c == '[' {
			closer, kind = ']', JSONArray
		}
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == closer {
			sc.i++
			return kind, nil
		}
		for {
			if kind == JSONObject {
				if _, _, err := sc.str(); err != nil {
					return 0, err
				}
				sc.ws()
				if sc.i >= len(sc.b) || sc.b[sc.i] != ':' {
					return 0, sc.fail("expected ':' after member name")
				}
				sc.i++
				sc.ws()
			}
			if _, err := sc.skip(depth + 1); err != nil {
				return 0, err
			}
			sc.ws()
			if sc.i >= len(sc.b) {
				return 0, sc.fail("unterminated object or array")
			}
			if sc.b[sc.i] == closer {
				sc.i++
				return kind, nil
			}
			if sc.b[sc.i] != ',' {
				return 0, sc.fail("expected ',' in object or array")
			}
			sc.i++
			sc.ws()
		}
	case 't':
		return JSONBool, sc.literal("true")
	case 'f':
		return JSONBool, sc.literal("false")
	case 'n':
		return JSONNull, sc.literal("null")
	}
	start := sc.i
	for sc.i < len(sc.b) && strings.IndexByte("+-0123456789.eE", sc.b[sc.i]) >= 0 {
		sc.i++
	}
	if sc.i == start || !validNumber(sc.b[start:sc.i]) {
		sc.i = start
		return 0, sc.fail("invalid value")
	}
	return JSONNumber, nil
}

func (sc *jsonScanner) literal(word string) error {
	if !bytes.HasPrefix(sc.b[sc.i:], []byte(word)) {
		return sc.fail("invalid literal")
	}
	sc.i += len(word)
	return nil
}

// str reads a string at sc.i and returns its raw content (between the quotes).
func (sc *jsonScanner) str() (raw []byte, escaped bool, err error) {
	if sc.i >= len(sc.b) || sc.b[sc.i] != '"' {
		return nil, false, sc.fail("expected a string")
	}
	start := sc.i + 1
	for j := start; j < len(sc.b); j++ {
		switch c := sc.b[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			sc.i = j + 1
			return sc.b[start:j], escaped, nil
		case c < 0x20:
			sc.i = j
			return nil, false, sc.fail("control character in string")
		}
	}
	return nil, false, sc.fail("unterminated string")
}

// validNumber checks the JSON number grammar.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// unescapeJSON decodes the content of a JSON string.
func unescapeJSON(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), utf8.Valid(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			b.WriteByte(raw[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if r2, ok := hex4(raw[i+3:]); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return b.String(), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Int64 returns a number value as an int64; it fails for non-integral or
// out-of-range numbers and for other kinds.
func (v JSONValue) Int64() (int64, bool) {
	if v.Kind != JSONNumber {
		return 0, false
	}
	b := v.Raw
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return v.int64Slow()
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return v.int64Slow()
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// int64Slow accepts integral values written with a fraction or exponent (1.0, 1e3).
func (v JSONValue) int64Slow() (int64, bool) {
	f, err := strconv.ParseFloat(string(v.Raw), 64)
	if err != nil || f != float64(int64(f)) || f >= 1<<63 || f < -(1<<63) {
		return 0, false
	}
	return int64(f), true
}

// Float64 returns a number value as a float64.
func (v JSONValue) Float64() (float64, bool) {
	if v.Kind != JSONNumber {
		return 0, false
	}
	if n, ok := v.Int64(); ok && n > -(1<<53) && n < 1<<53 {
		return float64(n), true
	}
	f, err := strconv.ParseFloat(string(v.Raw), 64)
	return f, err == nil
}

// Bool returns a boolean value.
func (v JSONValue) Bool() (bool, bool) {
	if v.Kind != JSONBool {
		return false, false
	}
	return v.Raw[0] == 't', true
}

// Text returns a string value unescaped; other scalar kinds return their
// JSON text, objects and arrays their raw JSON.
func (v JSONValue) Text() (string, bool) {
	switch v.Kind {
	case JSONMissing, JSONNull:
		return "", false
	case JSONString:
		return unescapeJSON(v.Raw[1 : len(v.Raw)-1])
	}
	return string(v.Raw), true
}

// readJSON reads the reader's path in a JSON document (a JSON Data, or a
// String Data read as one). A malformed document reads as nothing.
func (r *FieldReader) readJSON(d core.Data, out *core.Sink) error {
	doc, ok, err := d.Text()
	if err != nil || !ok {
		return nil
	}
	if !r.multi {
		v, err := lookupJSON(doc, r.json)
		if err != nil || v.Kind == JSONMissing {
			return nil
		}
		return out.Emit(jsonFieldValue(v))
	}
	// A document found malformed on the way selects nothing at all, so
	// the values are gathered before they are handed out.
	var found []JSONValue
	sc := jsonScanner{b: doc}
	sc.ws()
	if _, err := sc.walk(r.json, func(v JSONValue) bool {
		found = append(found, v)
		return true
	}, 0); err != nil {
		return nil
	}
	for _, v := range found {
		if err := out.Emit(jsonFieldValue(v)); err != nil {
			return err
		}
	}
	return nil
}

// jsonFieldValue converts a JSON value: integral numbers are INT64 and
// other numbers FLOAT64 (numbers out of range of both are null), strings
// are views of the document unless they have escapes, objects and arrays
// are JSON text.
func jsonFieldValue(v JSONValue) core.FieldValue {
	switch v.Kind {
	case JSONNumber:
		if n, ok := v.Int64(); ok {
			return core.FieldValue{Kind: core.ValueInt64, I: n}
		}
		if f, ok := v.Float64(); ok {
			return core.FloatValue(core.ValueFloat64, f)
		}
	case JSONString:
		raw := v.Raw[1 : len(v.Raw)-1]
		if bytes.IndexByte(raw, '\\') < 0 {
			return core.FieldValue{Kind: core.ValueString, B: raw}
		}
		if s, ok := unescapeJSON(raw); ok {
			return core.FieldValue{Kind: core.ValueString, B: []byte(s)}
		}
	case JSONBool:
		return core.BoolValue(v.Raw[0] == 't')
	case JSONObject, JSONArray:
		return core.FieldValue{Kind: core.ValueJSON, B: v.Raw}
	}
	return core.FieldValue{}
}
