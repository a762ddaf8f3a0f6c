package querytest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// A value list holds what the query returned serialized and deserializes a
// value when it is read: a client that has not seen the values' Compact
// schema fetches it then, within the read's context.
func TestValueListDeserializesWhenRead(t *testing.T) {
	cl, ctx := startCluster(t)
	const n = 3 * benchmodel.MetinEvery
	want := map[benchmodel.Small]int{}
	var batch []client.Entry[int32, *benchmodel.Small]
	for k := range int32(n) {
		s := benchmodel.SmallForKey(k)
		if s.StringField == benchmodel.Metin {
			want[s]++
		}
		batch = append(batch, client.Entry[int32, *benchmodel.Small]{Key: k, Value: &s})
	}
	require.NoError(t, client.GetMap[int32, *benchmodel.Small](connect(t, ctx, cl), "smalls").PutAll(ctx, batch))
	require.Len(t, want, 3)

	// A second client: it has no schema of the values yet.
	m := client.GetMap[int32, *benchmodel.Small](connect(t, ctx, cl), "smalls")
	metin := predicate.Equal("stringField", benchmodel.Metin)
	l, err := m.ValueListWithPredicate(ctx, metin)
	require.NoError(t, err)
	require.Equal(t, 3, l.Len())
	for i := range l.Len() {
		require.NotEmpty(t, l.Data(i))
	}

	done, stop := context.WithCancel(ctx)
	stop()
	_, err = l.At(done, 0)
	require.ErrorIs(t, err, context.Canceled, "the schema is fetched when a value is read, within its context")

	got := map[benchmodel.Small]int{}
	for i := range l.Len() {
		a, err := l.At(ctx, i)
		require.NoError(t, err)
		b, err := l.At(ctx, i)
		require.NoError(t, err)
		require.Equal(t, *a, *b)
		require.NotSame(t, a, b, "each read returns a new object")
		got[*a]++
	}
	require.Equal(t, want, got)

	all, err := l.All(ctx)
	require.NoError(t, err)
	require.Len(t, all, 3)
	for i, v := range all {
		a, err := l.At(ctx, i)
		require.NoError(t, err)
		require.Equal(t, *a, *v, "All keeps the list's order")
	}
	eager, err := m.ValuesWithPredicate(ctx, metin)
	require.NoError(t, err)
	got = map[benchmodel.Small]int{}
	for _, v := range eager {
		got[*v]++
	}
	require.Equal(t, want, got)

	none, err := m.ValueListWithPredicate(ctx, predicate.Equal("stringField", "no such value"))
	require.NoError(t, err)
	require.Zero(t, none.Len())
	vs, err := none.All(ctx)
	require.NoError(t, err)
	require.Nil(t, vs)
}
