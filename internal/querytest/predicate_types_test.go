package querytest

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

// wantQueryError fails unless err is a query error whose message holds
// every one of parts.
func wantQueryError(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if assert.ErrorIs(t, err, client.ErrQuery, what) {
		for _, p := range parts {
			assert.ErrorContains(t, err, p, what)
		}
	}
}

func fillSmall(t *testing.T, ctx context.Context, c *client.Client, name string, n int32) *client.Map[int32, *benchmodel.Small] {
	t.Helper()
	m := client.GetMap[int32, *benchmodel.Small](c, name)
	var batch []client.Entry[int32, *benchmodel.Small]
	for k := int32(0); k < n; k++ {
		s := benchmodel.SmallForKey(k)
		s.IntField = k % 10
		batch = append(batch, client.Entry[int32, *benchmodel.Small]{Key: k, Value: &s})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	return m
}

// TestPredicateUnknownAttribute: a predicate, aggregator or projection on
// an attribute that the values' type does not have fails with the
// attribute's name, as its SQL twin fails with "column does not exist";
// a field that only a newer version of a Compact type has is NULL in the
// older values, not an error.
func TestPredicateUnknownAttribute(t *testing.T) {
	c, ctx := start(t)
	m := fillSmall(t, ctx, c, "small_unknown", 50)
	mustExec(t, ctx, c, `CREATE MAPPING small_unknown (__key INT, intField INT, stringField VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')`)
	_, err := c.SQL(ctx, `SELECT __key FROM small_unknown WHERE nope = 1`)
	wantQueryError(t, "SQL twin", err, "column nope does not exist")

	_, err = m.KeySetWithPredicate(ctx, predicate.Equal("nope", int32(1)))
	wantQueryError(t, "equal", err, "attribute nope does not exist", `"small"`)
	_, err = m.EntrySetWithPredicate(ctx, predicate.And(predicate.GreaterThan("intField", int32(-1)), predicate.Equal("nope", nil)))
	wantQueryError(t, "is null", err, "attribute nope does not exist")
	_, err = m.Aggregate(ctx, predicate.Count("nope"))
	wantQueryError(t, "count", err, "attribute nope does not exist")
	_, err = m.Project(ctx, predicate.SingleAttribute("nope"))
	wantQueryError(t, "project", err, "attribute nope does not exist")

	// Nested paths, Portable and IDS values.
	large := client.GetMap[int32, *benchmodel.Large](c, "large_unknown")
	l := benchmodel.LargeForKey(1)
	require.NoError(t, large.Set(ctx, 1, &l))
	_, err = large.KeySetWithPredicate(ctx, predicate.Equal("small.nope", int32(1)))
	wantQueryError(t, "nested", err, "attribute small.nope does not exist", `no field "nope"`)
	require.NoError(t, c.RegisterLayouts(ctx, benchmodel.Layouts()...))
	ps := benchmodel.PortableSmall(benchmodel.SmallForKey(1))
	require.NoError(t, client.GetMap[int32, *benchmodel.PortableSmall](c, "portable_unknown").Set(ctx, 1, &ps))
	_, err = client.GetMap[int32, *benchmodel.PortableSmall](c, "portable_unknown").KeySetWithPredicate(ctx, predicate.Equal("nope", int32(1)))
	wantQueryError(t, "portable", err, "attribute nope does not exist", "Portable class")
	is := benchmodel.IdentifiedSmall(benchmodel.SmallForKey(1))
	require.NoError(t, client.GetMap[int32, *benchmodel.IdentifiedSmall](c, "ids_unknown").Set(ctx, 1, &is))
	_, err = client.GetMap[int32, *benchmodel.IdentifiedSmall](c, "ids_unknown").KeySetWithPredicate(ctx, predicate.Equal("nope", int32(1)))
	wantQueryError(t, "identified", err, "attribute nope does not exist", "IdentifiedDataSerializable")
	strs := client.GetMap[int32, string](c, "strings_unknown")
	require.NoError(t, strs.Set(ctx, 1, "x"))
	_, err = strs.KeySetWithPredicate(ctx, predicate.Equal("nope", int32(1)))
	wantQueryError(t, "scalar values", err, "attribute nope does not exist")

	// Schema evolution: the old version's values read the new field as NULL.
	ev := client.GetMap[int32, any](c, "evolving")
	v1, err := serialization.NewCompactRecordBuilder("evolving_person").Set("name", serialization.KindString, "old").Build()
	require.NoError(t, err)
	v2, err := serialization.NewCompactRecordBuilder("evolving_person").Set("name", serialization.KindString, "new").Set("age", serialization.KindInt32, int32(40)).Build()
	require.NoError(t, err)
	require.NoError(t, ev.Set(ctx, 1, v1))
	require.NoError(t, ev.Set(ctx, 2, v2))
	ks, err := ev.KeySetWithPredicate(ctx, predicate.GreaterThan("age", int32(30)))
	require.NoError(t, err)
	require.Equal(t, []int32{2}, ks, "a field only the newer version has")
	ks, err = ev.KeySetWithPredicate(ctx, predicate.Equal("age", nil))
	require.NoError(t, err)
	require.Equal(t, []int32{1}, ks, "the field in the older version")
	_, err = ev.KeySetWithPredicate(ctx, predicate.Equal("nope", int32(1)))
	wantQueryError(t, "evolving type", err, "attribute nope does not exist", `"evolving_person"`)
}

// TestPredicateLiteralConversion: a predicate converts its value to the
// type of the attribute's values, as Hazelcast does ('7' for an INTEGER is
// 7), and fails naming the attribute, the value and the type when it
// cannot ('abc' for an INTEGER, 5 for a VARCHAR), as the SQL twins fail.
func TestPredicateLiteralConversion(t *testing.T) {
	c, ctx := start(t)
	m := fillSmall(t, ctx, c, "small_conv", 100)
	mustExec(t, ctx, c, `CREATE MAPPING small_conv (__key INT, intField INT, longField BIGINT, stringField VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')`)
	for _, stmt := range []string{`SELECT __key FROM small_conv WHERE intField = 'abc'`, `SELECT __key FROM small_conv WHERE stringField > 5`} {
		_, err := c.SQL(ctx, stmt)
		wantQueryError(t, "SQL twin "+stmt, err, "cannot apply")
	}
	keys := func(p predicate.Predicate) ([]int32, error) {
		ks, err := m.KeySetWithPredicate(ctx, p)
		slices.Sort(ks)
		return ks, err
	}
	for _, tc := range []struct {
		what  string
		p     predicate.Predicate
		parts []string
	}{
		{"text for an INTEGER", predicate.Equal("intField", "abc"), []string{"intField", "'abc'", "INTEGER"}},
		{"a number for a VARCHAR", predicate.GreaterThan("stringField", int64(5)), []string{"stringField", "5", "VARCHAR"}},
		{"under NOT", predicate.Not(predicate.Equal("intField", "abc")), []string{"intField", "'abc'"}},
		{"between", predicate.Between("longField", "x", "y"), []string{"longField", "'x'", "BIGINT"}},
		{"in", predicate.In("intField", int32(1), "two"), []string{"intField", "'two'", "INTEGER"}},
		{"a boolean for a VARCHAR", predicate.Equal("stringField", true), []string{"stringField", "TRUE", "VARCHAR"}},
		{"predicate SQL", predicate.SQL("intField = 'abc'"), []string{"intField", "'abc'"}},
	} {
		_, err := keys(tc.p)
		wantQueryError(t, tc.what, err, tc.parts...)
	}
	want, err := keys(predicate.Equal("intField", int32(7)))
	require.NoError(t, err)
	require.NotEmpty(t, want, "keys equal to 7")
	for _, p := range []predicate.Predicate{predicate.Equal("intField", "7"), predicate.Equal("intField", int64(7)), predicate.Equal("intField", 7.0),
		predicate.In("intField", "7", int32(70)), predicate.Between("intField", "6.5", "7.5")} {
		got, err := keys(p)
		if assert.NoError(t, err, "%s", p) {
			assert.Equal(t, want, got, "%s", p)
		}
	}
	// A fraction never equals an integer (no truncation).
	got, err := keys(predicate.Equal("intField", "7.5"))
	assert.NoError(t, err)
	assert.Empty(t, got, "intField = '7.5'")
}

// TestTypedSumsRejectStrings: sums and averages over an attribute holding
// strings fail with a type error naming the attribute and the type found
// (they used to return 0).
func TestTypedSumsRejectStrings(t *testing.T) {
	c, ctx := start(t)
	m := fillSmall(t, ctx, c, "small_sums", 100)
	for _, a := range []predicate.Aggregator{predicate.LongSum("stringField"), predicate.IntegerSum("stringField"), predicate.DoubleSum("stringField"),
		predicate.FixedPointSum("stringField"), predicate.FloatingPointSum("stringField"), predicate.NumberAvg("stringField"), predicate.LongAvg("stringField")} {
		_, err := m.Aggregate(ctx, a)
		wantQueryError(t, a.Kind.String(), err, "stringField", "VARCHAR")
	}
	// With a predicate and over groups of entries on every member.
	_, err := m.Aggregate(ctx, predicate.LongSum("stringField"), predicate.GreaterThan("intField", int32(3)))
	wantQueryError(t, "longSum with a predicate", err, "stringField", "VARCHAR")
	v, err := m.Aggregate(ctx, predicate.IntegerSum("intField"))
	require.NoError(t, err)
	require.NotZero(t, v, "integerSum over numbers")
}

// TestNestedObjectsInProjectionsAndAggregates: projecting a nested object
// returns it decoded through the registered type; comparableMin/Max over
// nested objects fail clearly (a member cannot order Java objects), and
// over a multi-valued attribute they take every element.
func TestNestedObjectsInProjectionsAndAggregates(t *testing.T) {
	c, ctx := start(t)
	m := client.GetMap[int32, *benchmodel.Large](c, "large_nested")
	var batch []client.Entry[int32, *benchmodel.Large]
	for k := int32(0); k < 40; k++ {
		l := benchmodel.LargeForKey(k)
		l.IntField = k
		l.Small.IntField = k * 3
		l.IntArray = []int32{k, 1000 + k, -k}
		batch = append(batch, client.Entry[int32, *benchmodel.Large]{Key: k, Value: &l})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	got, err := m.Project(ctx, predicate.SingleAttribute("small"), predicate.Equal("intField", int32(12)))
	require.NoError(t, err)
	require.Len(t, got, 1, "project small")
	want := benchmodel.LargeForKey(12).Small
	require.IsType(t, &benchmodel.Small{}, got[0], "project small: the nested Small")
	assert.Equal(t, int32(36), got[0].(*benchmodel.Small).IntField)
	assert.Equal(t, want.StringField, got[0].(*benchmodel.Small).StringField)
	multi, err := m.Project(ctx, predicate.MultiAttribute("__key", "small", "smallArray[0]"), predicate.Equal("intField", int32(3)))
	require.NoError(t, err)
	require.Len(t, multi, 1, "project several")
	row := multi[0].([]any)
	require.Len(t, row, 3)
	assert.Equal(t, int32(3), row[0])
	assert.Equal(t, int32(9), row[1].(*benchmodel.Small).IntField)
	assert.Equal(t, benchmodel.LargeForKey(3).SmallArray[0].StringField, row[2].(*benchmodel.Small).StringField)
	// Arrays as one value, and [any] in a projection, fail clearly (as
	// Hazelcast's projections refuse [any]).
	_, err = m.Project(ctx, predicate.SingleAttribute("smallArray"))
	wantQueryError(t, "project an array", err, "smallArray", "array")
	_, err = m.Project(ctx, predicate.SingleAttribute("intArray[any]"))
	wantQueryError(t, "project [any]", err, "intArray[any]", "[any]")
	for _, a := range []predicate.Aggregator{predicate.Min("small"), predicate.Max("small"), predicate.MaxBy("small")} {
		_, err := m.Aggregate(ctx, a)
		wantQueryError(t, a.Kind.String(), err, "small", "OBJECT", "cannot be compared")
	}
	for _, tc := range []struct {
		what string
		agg  predicate.Aggregator
		want int32
	}{
		{"max of a nested field", predicate.Max("small.intField"), 39 * 3},
		{"max over every element", predicate.Max("intArray[any]"), 1039},
		{"min over every element", predicate.Min("intArray[any]"), -39},
	} {
		v, err := m.Aggregate(ctx, tc.agg)
		require.NoError(t, err, tc.what)
		require.Equal(t, tc.want, v, tc.what)
	}
}
