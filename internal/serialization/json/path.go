// Package json reads JSON documents in place: compiled paths, in the
// SQL/JSON form of JSON_VALUE ("$.a.b[0]", "$['a b']") and the attribute
// form of Hazelcast predicates ("a.b[0]", "arr[any].x"), and the one
// scanner that walks a document to what a path selects, checking only the
// bytes on its way. The query engine's JSON_VALUE and the FieldReader of
// JSON values both use it.
package json

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// Path is a compiled path into a JSON document: member names and array
// indexes, optionally with [*] (or Hazelcast's [any]) wildcards. It accepts
// the SQL/JSON form used by JSON_VALUE ("$.a.b[0]", "$['a b']") and the
// attribute form of Hazelcast predicates ("a.b[0]", "arr[any].x").
// A Path is immutable and safe for concurrent use.
type Path struct {
	text  string
	steps []step
}

type step struct {
	name  string // member name, when index < 0 and !any
	index int    // array index, or -1
	any   bool   // [*] / [any]
}

// maxDepth bounds the nesting the scanner follows.
const maxDepth = 1000

// ParsePath compiles a path. "$" alone (or "") selects the whole document.
func ParsePath(expr string) (*Path, error) {
	p := &Path{text: expr}
	s := strings.TrimSpace(expr)
	if strings.HasPrefix(s, "lax ") || strings.HasPrefix(s, "strict ") {
		s = strings.TrimSpace(s[strings.IndexByte(s, ' '):])
	}
	s = strings.TrimPrefix(s, "$")
	bad := func(at int, why string) (*Path, error) {
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
			p.steps = append(p.steps, step{name: s[i:j], index: -1})
			i = j
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return bad(i, "unclosed [")
			}
			inner := strings.TrimSpace(s[i+1 : i+end])
			switch {
			case inner == "*" || inner == "any":
				p.steps = append(p.steps, step{index: -1, any: true})
			case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
				p.steps = append(p.steps, step{name: inner[1 : len(inner)-1], index: -1})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return bad(i, "array index must be a non-negative integer, * or any")
				}
				p.steps = append(p.steps, step{index: n})
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
func (p *Path) String() string { return p.text }

// HasWildcard reports whether the path can select several values.
func (p *Path) HasWildcard() bool {
	for _, s := range p.steps {
		if s.any {
			return true
		}
	}
	return false
}

// Kind is the type of a JSON value.
type Kind uint8

// JSON value kinds. Missing means the path selected nothing.
const (
	Missing Kind = iota
	Null
	Bool
	Number
	String
	Object
	Array
)

// Value is a value found in a document: its kind and its raw bytes,
// which alias the document.
type Value struct {
	Kind Kind
	Raw  []byte
}

// Lookup returns the first value the path selects in doc, or a value of kind
// Missing. Only the parts of doc on the way to the value are read, and
// they are checked for well-formedness.
func (p *Path) Lookup(doc []byte) (Value, error) {
	return lookup(doc, p.steps)
}

// lookup is Lookup, without allocating for paths without wildcards.
func lookup(doc []byte, steps []step) (Value, error) {
	sc := scanner{b: doc}
	sc.ws()
	for depth, step := range steps {
		if step.any {
			var found Value
			_, err := sc.walk(steps[depth:], func(v Value) bool {
				found = v
				return false
			}, depth)
			return found, err
		}
		more, err := sc.enter(step, depth)
		if err != nil || !more {
			return Value{}, err
		}
	}
	start := sc.i
	kind, err := sc.skip(len(steps))
	if err != nil {
		return Value{}, err
	}
	return Value{Kind: kind, Raw: sc.b[start:sc.i]}, nil
}

// enter moves from the value at sc.i to the member or item that a step
// without wildcard selects; found is false when the value has none (it is
// then checked to its end, as walk checks the values it passes).
func (sc *scanner) enter(st step, depth int) (found bool, err error) {
	if depth > maxDepth {
		return false, sc.fail("nesting too deep")
	}
	if sc.i >= len(sc.b) {
		return false, sc.fail("unexpected end of document")
	}
	c := sc.b[sc.i]
	switch {
	case c == '{' && st.index < 0:
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
			if keyEquals(key, escaped, st.name) {
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
	case c == '[' && st.index >= 0:
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
			return false, nil
		}
		for n := 0; ; n++ {
			if n == st.index {
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
func (p *Path) Each(doc []byte, fn func(Value) bool) error {
	sc := scanner{b: doc}
	sc.ws()
	_, err := sc.walk(p.steps, fn, 0)
	return err
}

type scanner struct {
	b []byte
	i int
}

func (sc *scanner) fail(why string) error {
	return core.Malformed("json", sc.i, why)
}

func (sc *scanner) ws() {
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
func (sc *scanner) walk(steps []step, fn func(Value) bool, depth int) (bool, error) {
	if depth > maxDepth {
		return false, sc.fail("nesting too deep")
	}
	if len(steps) == 0 {
		start := sc.i
		kind, err := sc.skip(depth)
		if err != nil {
			return false, err
		}
		return fn(Value{Kind: kind, Raw: sc.b[start:sc.i]}), nil
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
	s, ok := unescape(key)
	return ok && s == name
}

// skip moves past one value and reports its kind.
func (sc *scanner) skip(depth int) (Kind, error) {
	if depth > maxDepth {
		return 0, sc.fail("nesting too deep")
	}
	if sc.i >= len(sc.b) {
		return 0, sc.fail("unexpected end of document")
	}
	switch c := sc.b[sc.i]; c {
	case '"':
		_, _, err := sc.str()
		return String, err
	case '{', '[':
		closer := byte('}')
		kind := Object
		if c == '[' {
			closer, kind = ']', Array
		}
		sc.i++
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == closer {
			sc.i++
			return kind, nil
		}
		for {
			if kind == Object {
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
		return Bool, sc.literal("true")
	case 'f':
		return Bool, sc.literal("false")
	case 'n':
		return Null, sc.literal("null")
	}
	start := sc.i
	for sc.i < len(sc.b) && strings.IndexByte("+-0123456789.eE", sc.b[sc.i]) >= 0 {
		sc.i++
	}
	if sc.i == start || !validNumber(sc.b[start:sc.i]) {
		sc.i = start
		return 0, sc.fail("invalid value")
	}
	return Number, nil
}

func (sc *scanner) literal(word string) error {
	if !bytes.HasPrefix(sc.b[sc.i:], []byte(word)) {
		return sc.fail("invalid literal")
	}
	sc.i += len(word)
	return nil
}

// str reads a string at sc.i and returns its raw content (between the quotes).
func (sc *scanner) str() (raw []byte, escaped bool, err error) {
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

// unescape decodes the content of a JSON string.
func unescape(raw []byte) (string, bool) {
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
func (v Value) Int64() (int64, bool) {
	if v.Kind != Number {
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
func (v Value) int64Slow() (int64, bool) {
	f, err := strconv.ParseFloat(string(v.Raw), 64)
	if err != nil || f != float64(int64(f)) || f >= 1<<63 || f < -(1<<63) {
		return 0, false
	}
	return int64(f), true
}

// Float64 returns a number value as a float64.
func (v Value) Float64() (float64, bool) {
	if v.Kind != Number {
		return 0, false
	}
	if n, ok := v.Int64(); ok && n > -(1<<53) && n < 1<<53 {
		return float64(n), true
	}
	f, err := strconv.ParseFloat(string(v.Raw), 64)
	return f, err == nil
}

// Bool returns a boolean value.
func (v Value) Bool() (bool, bool) {
	if v.Kind != Bool {
		return false, false
	}
	return v.Raw[0] == 't', true
}

// Text returns a string value unescaped; other scalar kinds return their
// JSON text, objects and arrays their raw JSON.
func (v Value) Text() (string, bool) {
	switch v.Kind {
	case Missing, Null:
		return "", false
	case String:
		return unescape(v.Raw[1 : len(v.Raw)-1])
	}
	return string(v.Raw), true
}

// fieldValue converts a JSON value: integral numbers are INT64 and
// other numbers FLOAT64 (numbers out of range of both are null), strings
// are views of the document unless they have escapes, objects and arrays
// are JSON text.
func fieldValue(v Value) core.FieldValue {
	switch v.Kind {
	case Number:
		if n, ok := v.Int64(); ok {
			return core.FieldValue{Kind: core.ValueInt64, I: n}
		}
		if f, ok := v.Float64(); ok {
			return core.FloatValue(core.ValueFloat64, f)
		}
	case String:
		raw := v.Raw[1 : len(v.Raw)-1]
		if bytes.IndexByte(raw, '\\') < 0 {
			return core.FieldValue{Kind: core.ValueString, B: raw}
		}
		if s, ok := unescape(raw); ok {
			return core.FieldValue{Kind: core.ValueString, B: []byte(s)}
		}
	case Bool:
		return core.BoolValue(v.Raw[0] == 't')
	case Object, Array:
		return core.FieldValue{Kind: core.ValueJSON, B: v.Raw}
	}
	return core.FieldValue{}
}

// AttributePath is the path of an attribute path's steps in a JSON
// document ("a.b[0]", "arr[any].x"), as a FieldReader reads JSON values.
func AttributePath(steps []core.PathStep) *Path {
	p := &Path{}
	for _, st := range steps {
		if st.Name != "" {
			p.steps = append(p.steps, step{name: st.Name, index: -1})
		}
		switch {
		case st.Any:
			p.steps = append(p.steps, step{index: -1, any: true})
		case st.Index >= 0:
			p.steps = append(p.steps, step{index: st.Index})
		}
	}
	return p
}

// Read hands what p selects in doc to out, converted as fieldValue does.
// A document found malformed on the way selects nothing at all.
func Read(doc []byte, p *Path, out *core.Sink) error {
	if !p.HasWildcard() {
		var v core.FieldValue
		if !lookupValue(doc, p.steps, &v) {
			return nil
		}
		return out.Emit(v)
	}
	// The values are gathered before they are handed out, so that a
	// document found malformed after some of them hands out none.
	var found []Value
	sc := scanner{b: doc}
	sc.ws()
	if _, err := sc.walk(p.steps, func(v Value) bool {
		found = append(found, v)
		return true
	}, 0); err != nil {
		return nil
	}
	for _, v := range found {
		if err := out.Emit(fieldValue(v)); err != nil {
			return err
		}
	}
	return nil
}

// ReadOne reads what p, a path without wildcards, selects in doc into v:
// a null value when it selects nothing or doc is malformed on the way.
func ReadOne(doc []byte, p *Path, v *core.FieldValue) {
	if !lookupValue(doc, p.steps, v) {
		*v = core.FieldValue{}
	}
}

// lookupValue is lookup converted by fieldValue into v, reading integers
// as it scans them (the common case of a numeric attribute). It reports
// false when the steps select nothing or the document is malformed on the
// way, and leaves v alone then.
func lookupValue(doc []byte, steps []step, v *core.FieldValue) bool {
	sc := scanner{b: doc}
	sc.ws()
	for depth, st := range steps {
		more, err := sc.enter(st, depth)
		if err != nil || !more {
			return false
		}
	}
	if x, ok := sc.integer(); ok {
		*v = core.FieldValue{Kind: core.ValueInt64, I: x}
		return true
	}
	start := sc.i
	kind, err := sc.skip(len(steps))
	if err != nil {
		return false
	}
	*v = fieldValue(Value{Kind: kind, Raw: sc.b[start:sc.i]})
	return true
}

// integer reads, at sc.i, a JSON integer of at most 18 digits (which fits
// an int64), leaving other numbers and values to skip and fieldValue.
func (sc *scanner) integer() (int64, bool) {
	b, i := sc.b, sc.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	digits := i
	var x int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-digits < 19 {
		x = x*10 + int64(b[i]-'0')
		i++
	}
	n := i - digits
	if n == 0 || n > 18 || (n > 1 && b[digits] == '0') {
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || (b[i] >= '0' && b[i] <= '9')) {
		return 0, false
	}
	if neg {
		x = -x
	}
	sc.i = i
	return x, true
}
