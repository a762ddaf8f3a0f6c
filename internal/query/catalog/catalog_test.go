package catalog

import (
	"strings"
	"testing"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

func people() *plan.Mapping {
	return &plan.Mapping{Name: "people", MapName: "people", KeyFormat: "int", ValueFormat: "compact",
		Options: map[string]string{"valueCompactTypeName": "person"},
		Columns: []plan.MappingColumn{{Name: "__key", Type: expr.Integer, Path: "__key"}, {Name: "age", Type: expr.Integer, Path: "age"}},
		DDL:     "CREATE MAPPING people ..."}
}

// TestReplicationRoundTrip replays one catalog's changes on another through
// their wire form, the way members replicate them.
func TestReplicationRoundTrip(t *testing.T) {
	a, b := New(), New()
	var sent [][]byte
	a.OnChange(func(ch Change) {
		if ch.Replayed {
			t.Errorf("a local change is marked replayed: %+v", ch)
		}
		enc, err := ch.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, enc)
	})
	var replayed []Change
	b.OnChange(func(ch Change) { replayed = append(replayed, ch) })

	if err := a.PutMapping(people(), false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddIndex(plan.IndexInfo{Name: "people_age", Map: "people", Type: plan.IndexSorted, Attribute: "age"}, false); err != nil {
		t.Fatal(err)
	}
	if err := a.PutMapping(&plan.Mapping{Name: "gone", MapName: "gone"}, false, false); err != nil {
		t.Fatal(err)
	}
	if err := a.DropMapping("gone", false); err != nil {
		t.Fatal(err)
	}
	for _, enc := range sent {
		ch, err := UnmarshalChange(enc)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(ch); err != nil {
			t.Fatal(err)
		}
	}
	m, ok := b.Mapping("people")
	if !ok || m.Options["valueCompactTypeName"] != "person" || len(m.Columns) != 2 || m.Columns[1].Type != expr.Integer {
		t.Fatalf("replicated mapping %+v", m)
	}
	if _, ok := b.Mapping("gone"); ok {
		t.Fatal("the dropped mapping exists on the replica")
	}
	if ix := b.Indexes("people"); len(ix) != 1 || ix[0].Type != plan.IndexSorted {
		t.Fatalf("replicated indexes %+v", ix)
	}
	for _, ch := range replayed {
		if !ch.Replayed {
			t.Fatalf("a replayed change is not marked: %+v", ch)
		}
	}
	if len(b.Snapshot()) != 2 {
		t.Fatalf("snapshot %+v, want the mapping and the index", b.Snapshot())
	}
	// A member that receives the snapshot again (every member greets a
	// joiner) keeps its version, so its cached plans stay valid.
	v := b.Version()
	for _, ch := range a.Snapshot() {
		enc, err := ch.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalChange(enc)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(back); err != nil {
			t.Fatal(err)
		}
	}
	if b.Version() != v {
		t.Fatalf("applying the same catalog again moved the version from %d to %d", v, b.Version())
	}
}

func TestUnmarshalChangeRejectsBadChanges(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{`, "unreadable"},
		{`{"Kind":"explode"}`, "unknown change kind"},
		{`{"Kind":"put-mapping"}`, "without a mapping name"},
		{`{"Kind":"drop-mapping"}`, "without a mapping name"},
		{`{"Kind":"add-index","Index":{"Name":"i"}}`, "without name, map or attribute"},
		{strings.Repeat(" ", maxChange+1), "bytes"},
	} {
		if _, err := UnmarshalChange([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("UnmarshalChange(%.40q): %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// FuzzUnmarshalChange checks that any bytes a member receives either decode
// to a change a catalog can apply without panicking, or are refused.
func FuzzUnmarshalChange(f *testing.F) {
	for _, ch := range []Change{
		{Kind: PutMapping, Mapping: people()},
		{Kind: DropMapping, Name: "people"},
		{Kind: AddIndex, Index: plan.IndexInfo{Name: "i", Map: "people", Type: plan.IndexHash, Attribute: "age"}},
	} {
		b, _ := ch.Marshal()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ch, err := UnmarshalChange(b)
		if err != nil {
			return
		}
		_ = New().Apply(ch)
	})
}
