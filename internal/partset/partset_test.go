package partset

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendParse(t *testing.T) {
	for _, parts := range [][]int32{{0}, {7}, {8}, {270}, {0, 1, 2, 3, 4, 5, 6, 7, 8}, {3, 64, 200, 270}} {
		set := Append(nil, parts)
		require.Len(t, set, int(slices.Max(parts))/8+1, "%v", parts)
		got, err := Parse(set, 271)
		require.NoError(t, err)
		require.Equal(t, parts, got)
	}
	// Appended after other bytes, in any order.
	set := Append([]byte{0xff}, []int32{9, 1})
	require.Equal(t, []byte{0xff, 0b10, 0b10}, set)
	got, err := Parse(set[1:], 271)
	require.NoError(t, err)
	require.Equal(t, []int32{1, 9}, got)

	for _, c := range []struct {
		set  []byte
		want string
	}{
		{nil, "names none"},
		{[]byte{0, 0, 0}, "names none"},
		{Append(nil, []int32{271}), "partition 271 is not one of the cluster's 0..270"},
		{append(make([]byte, 40), 1), "partition 320 is not one of the cluster's 0..270"},
	} {
		_, err := Parse(c.set, 271)
		require.ErrorContains(t, err, c.want, "%x", c.set)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte{1}, 271)
	f.Add(Append(nil, []int32{0, 100, 270}), 271)
	f.Add([]byte{0x80, 0xff}, 9)
	f.Fuzz(func(t *testing.T, set []byte, count int) {
		parts, err := Parse(set, count)
		if err != nil {
			return
		}
		require.NotEmpty(t, parts)
		require.True(t, slices.IsSorted(parts))
		require.Less(t, int(parts[len(parts)-1]), count)
		require.Equal(t, parts, mustParse(t, Append(nil, parts), count))
	})
}

func mustParse(t *testing.T, set []byte, count int) []int32 {
	parts, err := Parse(set, count)
	require.NoError(t, err)
	return parts
}
