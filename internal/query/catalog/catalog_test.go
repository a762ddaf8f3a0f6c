package catalog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		assert.False(t, ch.Replayed, "a local change is not marked replayed: %+v", ch)
		enc, err := ch.Marshal()
		require.NoError(t, err)
		sent = append(sent, enc)
	})
	var replayed []Change
	b.OnChange(func(ch Change) { replayed = append(replayed, ch) })

	require.NoError(t, a.PutMapping(people(), false, false))
	_, err := a.AddIndex(plan.IndexInfo{Name: "people_age", Map: "people", Type: plan.IndexSorted, Attribute: "age"}, false)
	require.NoError(t, err)
	require.NoError(t, a.PutMapping(&plan.Mapping{Name: "gone", MapName: "gone"}, false, false))
	require.NoError(t, a.DropMapping("gone", false))
	for _, enc := range sent {
		ch, err := UnmarshalChange(enc)
		require.NoError(t, err)
		require.NoError(t, b.Apply(ch))
	}
	m, ok := b.Mapping("people")
	require.True(t, ok, "the mapping is replicated")
	assert.Equal(t, "person", m.Options["valueCompactTypeName"])
	require.Len(t, m.Columns, 2)
	assert.Equal(t, expr.Integer, m.Columns[1].Type)
	_, ok = b.Mapping("gone")
	require.False(t, ok, "the dropped mapping is gone from the replica")
	ix := b.Indexes("people")
	require.Len(t, ix, 1, "replicated indexes")
	assert.Equal(t, plan.IndexSorted, ix[0].Type)
	for _, ch := range replayed {
		require.True(t, ch.Replayed, "a replayed change is marked: %+v", ch)
	}
	require.Len(t, b.Snapshot(), 2, "the snapshot holds the mapping and the index")
	// A member that receives the snapshot again (every member greets a
	// joiner) keeps its version, so its cached plans stay valid.
	v := b.Version()
	for _, ch := range a.Snapshot() {
		enc, err := ch.Marshal()
		require.NoError(t, err)
		back, err := UnmarshalChange(enc)
		require.NoError(t, err)
		require.NoError(t, b.Apply(back))
	}
	require.Equal(t, v, b.Version(), "applying the same catalog again keeps the version")
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
		_, err := UnmarshalChange([]byte(tc.in))
		assert.ErrorContains(t, err, tc.want, "UnmarshalChange(%.40q)", tc.in)
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
