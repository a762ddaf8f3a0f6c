package portable

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/serialization/core"
)

// A registry keeps the versions of a class apart, and classes whose ids
// differ only in sign or in which id is which apart.
func TestClassRegistryVersionsAndIDs(t *testing.T) {
	def := func(fid, cid, ver int32, field string) *ClassDefinition {
		cd, err := NewClassDefinition(fid, cid, ver, []Field{{Name: field, Kind: core.KindInt32}})
		require.NoError(t, err)
		return cd
	}
	defs := []*ClassDefinition{def(1, 2, 0, "a"), def(1, 2, 1, "b"), def(2, 1, 0, "c"), def(-1, 2, 0, "d"), def(1, -2, 0, "e")}
	r := NewClassRegistry()
	var added []string
	r.OnAdd(func(cd *ClassDefinition) { added = append(added, cd.Fields[0].Name) })
	for _, cd := range defs {
		require.NoError(t, r.Add(cd))
	}
	for _, cd := range defs {
		got, ok := r.Get(cd.FactoryID, cd.ClassID, cd.Version)
		require.True(t, ok, "%d/%d/%d", cd.FactoryID, cd.ClassID, cd.Version)
		assert.Same(t, cd, got)
	}
	_, ok := r.Get(1, 2, 2)
	assert.False(t, ok, "a version never added")
	assert.ElementsMatch(t, defs, r.All())
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, added)

	require.NoError(t, r.Add(def(1, 2, 1, "b")), "the same definition again")
	assert.Error(t, r.Add(def(1, 2, 1, "x")), "another definition under the same ids")
	got, _ := r.Get(1, 2, 1)
	assert.Equal(t, "b", got.Fields[0].Name, "the first definition stays")
	assert.Len(t, added, 5)
}
