package exec

import (
	"bytes"

	"github.com/atolldb/atoll/pkg/serialization"
)

// jstep is one step of a compiled JSON path: a member name or an index.
type jstep struct {
	name  string
	index int // -1 for a member
}

// jsonLookup finds the value at steps in doc without allocating: it walks
// the document once, skipping the members and elements it does not need.
// Malformed input on the way reports ok=false; nothing panics.
func jsonLookup(doc []byte, steps []jstep) (kind serialization.JSONKind, raw []byte, ok bool) {
	i, found, ok := jsonFind(doc, steps)
	if !ok || !found {
		return serialization.JSONMissing, nil, ok
	}
	end, ok := skipValue(doc, i, 0)
	if !ok {
		return 0, nil, false
	}
	switch c := doc[i]; {
	case c == '"':
		kind = serialization.JSONString
	case c == '{':
		kind = serialization.JSONObject
	case c == '[':
		kind = serialization.JSONArray
	case c == 't' || c == 'f':
		kind = serialization.JSONBool
	case c == 'n':
		kind = serialization.JSONNull
	default:
		kind = serialization.JSONNumber
	}
	return kind, doc[i:end], true
}

// jsonFind returns the index where the value at steps starts; found is
// false when the path selects nothing, ok false for malformed input on
// the way.
func jsonFind(doc []byte, steps []jstep) (at int, found, ok bool) {
	i := skipWS(doc, 0)
	for _, st := range steps {
		if i >= len(doc) {
			return 0, false, false
		}
		if st.index < 0 {
			if doc[i] != '{' {
				return 0, false, true
			}
			i = skipWS(doc, i+1)
			found := false
			for i < len(doc) && doc[i] != '}' {
				if doc[i] != '"' {
					return 0, false, false
				}
				ks, ke, esc, ok := scanString(doc, i)
				if !ok {
					return 0, false, false
				}
				i = skipWS(doc, ke+1)
				if i >= len(doc) || doc[i] != ':' {
					return 0, false, false
				}
				i = skipWS(doc, i+1)
				if keyMatch(doc[ks:ke], esc, st.name) {
					found = true
					break
				}
				if i, ok = skipValue(doc, i, 0); !ok {
					return 0, false, false
				}
				i = skipWS(doc, i)
				if i < len(doc) && doc[i] == ',' {
					i = skipWS(doc, i+1)
				}
			}
			if !found {
				return 0, false, true
			}
			continue
		}
		if doc[i] != '[' {
			return 0, false, true
		}
		i = skipWS(doc, i+1)
		for n := 0; ; n++ {
			if i >= len(doc) {
				return 0, false, false
			}
			if doc[i] == ']' {
				return 0, false, true
			}
			if n == st.index {
				break
			}
			var ok bool
			if i, ok = skipValue(doc, i, 0); !ok {
				return 0, false, false
			}
			i = skipWS(doc, i)
			if i < len(doc) && doc[i] == ',' {
				i = skipWS(doc, i+1)
			}
		}
	}
	if i >= len(doc) {
		return 0, false, false
	}
	return i, true, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads a string starting at b[i] == '"'; it returns the
// content's bounds and whether it has escapes.
func scanString(b []byte, i int) (start, end int, escaped, ok bool) {
	start = i + 1
	for j := start; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return start, j, escaped, true
		}
	}
	return 0, 0, false, false
}

func keyMatch(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	v := serialization.JSONValue{Kind: serialization.JSONString, Raw: append(append([]byte{'"'}, key...), '"')}
	s, ok := v.Text()
	return ok && s == name
}

// skipValue returns the index after the value at b[i].
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > 1000 {
		return 0, false
	}
	switch c := b[i]; c {
	case '"':
		_, end, _, ok := scanString(b, i)
		return end + 1, ok
	case '{', '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == close {
			return i + 1, true
		}
		for i < len(b) {
			if c == '{' {
				if b[i] != '"' {
					return 0, false
				}
				_, end, _, ok := scanString(b, i)
				if !ok {
					return 0, false
				}
				i = skipWS(b, end+1)
				if i >= len(b) || b[i] != ':' {
					return 0, false
				}
				i = skipWS(b, i+1)
			}
			var ok bool
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == close {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipWS(b, i+1)
		}
		return 0, false
	case 't':
		return i + 4, bytes.HasPrefix(b[i:], []byte("true"))
	case 'f':
		return i + 5, bytes.HasPrefix(b[i:], []byte("false"))
	case 'n':
		return i + 4, bytes.HasPrefix(b[i:], []byte("null"))
	}
	j := i
	for j < len(b) && (b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || (b[j] >= '0' && b[j] <= '9')) {
		j++
	}
	return j, j > i
}
