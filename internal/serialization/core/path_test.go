package core

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlansKeepTheFirstAndEveryPlanUpToTheBound(t *testing.T) {
	var ps Plans[int]
	assert.Nil(t, ps.First())
	assert.Empty(t, ps.List())

	plans := make([]int, MaxPlans+3)
	for i := range plans {
		plans[i] = i
		ps.Add(&plans[i])
	}
	require.NotNil(t, ps.First())
	assert.Same(t, &plans[0], ps.First())
	list := ps.List()
	require.Len(t, list, MaxPlans)
	for i, p := range list {
		assert.Same(t, &plans[i], p)
	}
}

func TestPlansAddedConcurrentlyAreAllKept(t *testing.T) {
	var ps Plans[int]
	plans := make([]int, 32)
	var wg sync.WaitGroup
	for i := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plans[i] = i
			ps.Add(&plans[i])
			assert.NotNil(t, ps.First())
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, p := range ps.List() {
		seen[*p] = true
	}
	assert.Len(t, seen, len(plans))
	assert.Contains(t, ps.List(), ps.First())
}

func TestPathStepItems(t *testing.T) {
	for _, c := range []struct {
		st       PathStep
		count    int
		from, to int
	}{
		{PathStep{Name: "a", Index: -1, Any: true}, 3, 0, 3},
		{PathStep{Name: "a", Index: -1, Any: true}, 0, 0, 0},
		{PathStep{Name: "a", Index: 0}, 3, 0, 1},
		{PathStep{Name: "a", Index: 2}, 3, 2, 3},
		{PathStep{Name: "a", Index: 3}, 3, 0, 0},
		{PathStep{Name: "a", Index: -1}, 3, 0, 0},
	} {
		from, to := c.st.Items(c.count)
		assert.Equal(t, [2]int{c.from, c.to}, [2]int{from, to}, "%+v of %d", c.st, c.count)
	}
}

// The messages reach users of predicates and SQL as they are.
func TestParseAttributePathErrors(t *testing.T) {
	for p, msg := range map[string]string{
		"intArray[x]":  `bad index in attribute path "intArray[x]"`,
		"intArray[-1]": `bad index in attribute path "intArray[-1]"`,
		"smallArray[":  `bad attribute path "smallArray["`,
		".x":           `bad attribute path ".x"`,
	} {
		_, err := ParseAttributePath(p)
		require.Error(t, err, p)
		assert.Equal(t, msg, err.Error())
	}
	steps, err := ParseAttributePath("a.b[any].c[2]")
	require.NoError(t, err)
	assert.Equal(t, []PathStep{{Name: "a", Index: -1}, {Name: "b", Index: -1, Any: true}, {Name: "c", Index: 2}}, steps)
}
