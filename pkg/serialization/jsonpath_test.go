package serialization_test

import (
	"errors"
	"testing"

	s "github.com/atolldb/atoll/pkg/serialization"
)

func TestJSONPathLookup(t *testing.T) {
	doc := []byte(`{"value":42,"payload":[1,2,{"x":"y\"z"}],"nested":{"a b":{"c":[true,null,-1.5e3]}},"u":"\u00e9\ud83d\ude00","value2":7}`)
	cases := []struct {
		path string
		kind s.JSONKind
		raw  string
	}{
		{"$.value", s.JSONNumber, "42"},
		{"value", s.JSONNumber, "42"},
		{"lax $.value", s.JSONNumber, "42"},
		{"$.payload[1]", s.JSONNumber, "2"},
		{"payload[2].x", s.JSONString, `"y\"z"`},
		{"$.nested['a b'].c[0]", s.JSONBool, "true"},
		{"$.nested['a b'].c[1]", s.JSONNull, "null"},
		{"$.nested['a b'].c[2]", s.JSONNumber, "-1.5e3"},
		{"$.payload", s.JSONArray, `[1,2,{"x":"y\"z"}]`},
		{"$.missing", s.JSONMissing, ""},
		{"$.payload[9]", s.JSONMissing, ""},
		{"$.value[0]", s.JSONMissing, ""},
		{"$.payload.x", s.JSONMissing, ""},
		{"$.value2", s.JSONNumber, "7"},
		{"$", s.JSONObject, string(doc)},
	}
	for _, c := range cases {
		p, err := s.ParseJSONPath(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		v, err := p.Lookup(doc)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if v.Kind != c.kind || string(v.Raw) != c.raw {
			t.Errorf("%s: got %v %q, want %v %q", c.path, v.Kind, v.Raw, c.kind, c.raw)
		}
	}
	p, _ := s.ParseJSONPath("$.u")
	v, _ := p.Lookup(doc)
	if text, ok := v.Text(); !ok || text != "é😀" {
		t.Errorf("unescaped text %q", text)
	}
	p, _ = s.ParseJSONPath("$.value")
	v, _ = p.Lookup(doc)
	if n, ok := v.Int64(); !ok || n != 42 {
		t.Errorf("Int64 = %d, %v", n, ok)
	}
}

func TestJSONPathWildcard(t *testing.T) {
	p, err := s.ParseJSONPath("arr[any].x")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = p.Each([]byte(`{"arr":[{"x":1},{"y":2},{"x":3}]}`), func(v s.JSONValue) bool {
		got = append(got, string(v.Raw))
		return true
	})
	if err != nil || len(got) != 2 || got[0] != "1" || got[1] != "3" {
		t.Fatalf("got %v, %v", got, err)
	}
	if !p.HasWildcard() {
		t.Fatal("HasWildcard false")
	}
}

func TestJSONPathErrors(t *testing.T) {
	for _, bad := range []string{"$.", "$[", "$[x]", "$[-1]", "$.a..b", "$x"} {
		if _, err := s.ParseJSONPath(bad); !errors.Is(err, s.ErrInvalidDefinition) {
			t.Errorf("ParseJSONPath(%q) = %v, want ErrInvalidDefinition", bad, err)
		}
	}
	p, _ := s.ParseJSONPath("$.b")
	for _, doc := range []string{`{"a":}`, `{"a":1`, `{"a" 1}`, `{"a":tru}`, `{"a":"x`, `{"a":01}`, `[1,,2]`, ``} {
		if _, err := p.Lookup([]byte(doc)); !errors.Is(err, s.ErrMalformed) {
			t.Errorf("Lookup in %q = %v, want ErrMalformed", doc, err)
		}
	}
}

func TestJSONValueConversions(t *testing.T) {
	cases := []struct {
		raw   string
		i     int64
		iok   bool
		f     float64
		fok   bool
		isNum bool
	}{
		{"0", 0, true, 0, true, true},
		{"-9223372036854775808", -9223372036854775808, true, -9223372036854775808, true, true},
		{"9223372036854775808", 0, false, 9223372036854775808, true, true},
		{"1.0", 1, true, 1, true, true},
		{"1.5", 0, false, 1.5, true, true},
		{"2e3", 2000, true, 2000, true, true},
	}
	for _, c := range cases {
		v := s.JSONValue{Kind: s.JSONNumber, Raw: []byte(c.raw)}
		if i, ok := v.Int64(); ok != c.iok || (ok && i != c.i) {
			t.Errorf("%s Int64 = %d, %v", c.raw, i, ok)
		}
		if f, ok := v.Float64(); ok != c.fok || (ok && f != c.f) {
			t.Errorf("%s Float64 = %v, %v", c.raw, f, ok)
		}
	}
}
