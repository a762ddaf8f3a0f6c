package querytest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

func TestCursorsPageAndClose(t *testing.T) {
	cl := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
	require.NoError(t, err)
	defer c.Close()
	m := client.GetMap[int32, string](c, "words")
	var batch []client.Entry[int32, string]
	for k := int32(0); k < 1000; k++ {
		batch = append(batch, client.Entry[int32, string]{Key: k, Value: "w" + string(rune('a'+k%26))})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	mustExec(t, ctx, c, `CREATE MAPPING words TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	member := cl.Members()[0].Member()

	// Read everything through pages of 7 rows.
	rows, err := c.SQL(ctx, `SELECT __key, this FROM words`, client.WithPageSize(7))
	require.NoError(t, err)
	cols := rows.Columns()
	require.Len(t, cols, 2)
	require.Equal(t, "INTEGER", cols[0].Type)
	require.Equal(t, "VARCHAR", cols[1].Type)
	seen := map[int32]bool{}
	for rows.Next() {
		var k int32
		var v string
		require.NoError(t, rows.Scan(&k, &v))
		seen[k] = true
	}
	require.NoError(t, rows.Err())
	require.Len(t, seen, 1000, "keys read")
	require.Zero(t, member.QueryCursors(), "cursors left open after reading to the end")

	// Close half-way releases the cursor on the member.
	rows, err = c.SQL(ctx, `SELECT __key FROM words`, client.WithPageSize(10))
	require.NoError(t, err)
	for i := 0; i < 15 && rows.Next(); i++ {
	}
	require.Equal(t, 1, member.QueryCursors(), "cursors open mid-way")
	require.NoError(t, rows.Close())
	require.Zero(t, member.QueryCursors(), "cursors open after Close")
}

func TestQueryErrorsNamePositions(t *testing.T) {
	c, ctx := start(t)
	mustExec(t, ctx, c, `CREATE MAPPING m (__key INT, v BIGINT, s VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`)
	for _, tc := range []struct {
		sql          string
		line, column int32
		msg          string
	}{
		{"SELEC * FROM m", 1, 1, "syntax error near 'SELEC'"},
		{"SELECT *\nFROM nothing", 2, 6, "mapping nothing does not exist"},
		{"SELECT v,\n  nope FROM m", 2, 3, "column nope does not exist"},
		{"SELECT * FROM m WHERE v = 'x'", 1, 23, "cannot apply '=' to BIGINT and VARCHAR"},
		{"SELECT * FROM m\nWHERE s + 1 > 2", 2, 7, "cannot apply '+' to VARCHAR and BIGINT"},
		{"SELECT * FROM m a JOIN m b\n  ON a.v = b.nope", 2, 14, "column b.nope does not exist"},
		{"SELECT frob(v) FROM m", 1, 8, "unknown function FROB"},
		{"CREATE MAPPING x TYPE Kafka", 1, 23, "unsupported mapping type Kafka"},
		{"SELECT v FROM m WHERE 'abc", 1, 23, "unterminated string literal"},
	} {
		_, err := c.SQL(ctx, tc.sql)
		var e *client.Error
		if !assert.ErrorIs(t, err, client.ErrQuery, tc.sql) || !assert.ErrorAs(t, err, &e, tc.sql) {
			continue
		}
		assert.Equal(t, [2]int32{tc.line, tc.column}, [2]int32{e.Line, e.Column}, "%q: line and column", tc.sql)
		assert.Contains(t, e.Message, tc.msg, tc.sql)
	}
	// Run-time errors are query errors too, and the member keeps serving.
	mustExec(t, ctx, c, `INSERT INTO m VALUES (1, 0, 'a')`)
	_, err := c.SQL(ctx, `SELECT 10 / v FROM m`)
	require.ErrorIs(t, err, client.ErrQuery)
	require.ErrorContains(t, err, "division by zero")
	require.Equal(t, []string{"1"}, queryRows(t, ctx, c, `SELECT COUNT(*) FROM m`), "the member keeps serving")
}

func TestDMLAndDDL(t *testing.T) {
	c, ctx := start(t)
	mustExec(t, ctx, c,
		`CREATE MAPPING people (__key INT, name VARCHAR, age INT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='person')`,
		`CREATE MAPPING docs (__key VARCHAR, title VARCHAR, pages BIGINT) TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='json-flat')`,
		`INSERT INTO people VALUES (1, 'Ada', 36), (2, 'Alan', 41), (3, 'Grace', 85)`,
		`INSERT INTO docs (__key, title, pages) VALUES ('a', 'Notes', 12), ('b', 'Report', 120)`,
	)
	// INSERT of an existing key fails; SINK INTO overwrites.
	_, err := c.SQL(ctx, `INSERT INTO people VALUES (1, 'Other', 1)`)
	require.ErrorContains(t, err, "duplicate key", "INSERT of a present key")
	rows, err := c.SQL(ctx, `SINK INTO people VALUES (1, 'Ada Lovelace', ?)`, int32(36))
	require.NoError(t, err)
	require.Equal(t, int64(1), rows.UpdateCount(), "rows SINK INTO changed")
	rows, err = c.SQL(ctx, `UPDATE people SET age = age + 1 WHERE age > ?`, 40)
	require.NoError(t, err)
	require.Equal(t, int64(2), rows.UpdateCount(), "rows UPDATE changed")
	require.Equal(t, []string{"1|Ada Lovelace|36", "2|Alan|42", "3|Grace|86"}, queryRows(t, ctx, c, `SELECT __key, name, age FROM people ORDER BY __key`), "people")
	// The Compact values INSERT wrote read back through the Go client.
	vals, err := client.GetMap[int32, any](c, "people").ValuesWithPredicate(ctx, predicate.Equal("name", "Alan"))
	require.NoError(t, err)
	require.Len(t, vals, 1)
	require.IsType(t, &serialization.CompactRecord{}, vals[0])
	require.Equal(t, "person", vals[0].(*serialization.CompactRecord).TypeName())
	rows, err = c.SQL(ctx, `DELETE FROM people WHERE name LIKE 'A%'`)
	require.NoError(t, err)
	require.Equal(t, int64(2), rows.UpdateCount(), "rows DELETE removed")
	require.Equal(t, []string{"Grace"}, queryRows(t, ctx, c, `SELECT name FROM people`), "after delete")
	// JSON documents written by INSERT read through JSON_VALUE too.
	mustExec(t, ctx, c, `CREATE MAPPING docs_json EXTERNAL NAME docs TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='json')`)
	require.Equal(t, []string{`a|24|"Notes"`, `b|240|"Report"`}, queryRows(t, ctx, c, `SELECT __key, JSON_VALUE(this, '$.pages' RETURNING BIGINT) * 2, CAST(JSON_QUERY(this, '$.title') AS VARCHAR) FROM docs_json ORDER BY __key`), "docs")
	// A number read into a narrower integer type converts, or fails when
	// out of its range.
	require.Equal(t, []string{"12", "120"}, queryRows(t, ctx, c, `SELECT JSON_VALUE(this, '$.pages' RETURNING TINYINT) FROM docs_json ORDER BY __key`), "TINYINT")
	mustExec(t, ctx, c, `INSERT INTO docs (__key, title, pages) VALUES ('c', 'Book', 1000)`)
	require.Equal(t, []string{"1000"}, queryRows(t, ctx, c, `SELECT JSON_VALUE(this, '$.pages' RETURNING SMALLINT) FROM docs_json WHERE __key = 'c'`), "SMALLINT")
	_, err = atollRows(ctx, c, `SELECT JSON_VALUE(this, '$.pages' RETURNING TINYINT) FROM docs_json WHERE __key = 'c'`)
	require.ErrorContains(t, err, "value 1000 is out of range for TINYINT")
	mustExec(t, ctx, c, `DELETE FROM docs WHERE __key = 'c'`)
	require.Equal(t, []string{"docs", "docs_json", "people"}, queryRows(t, ctx, c, `SHOW MAPPINGS`), "mappings")
	mustExec(t, ctx, c, `DROP MAPPING docs_json`, `DROP MAPPING IF EXISTS docs_json`)
	_, err = c.SQL(ctx, `DROP MAPPING docs_json`)
	require.ErrorIs(t, err, client.ErrQuery, "DROP of a missing mapping")
	// CREATE INDEX through SQL; the plan uses it.
	mustExec(t, ctx, c, `CREATE INDEX people_age ON people (age) TYPE SORTED`)
	plan, err := c.ExplainSQL(ctx, `SELECT name FROM people WHERE age = ?`, 86)
	require.NoError(t, err)
	require.Contains(t, plan, "IndexScan[people, index=people_age SORTED")
	require.Equal(t, []string{"Grace"}, queryRows(t, ctx, c, `SELECT name FROM people WHERE age = ?`, 86), "indexed")
	// Expressions without a table, UNION ALL and a subquery in FROM.
	require.Equal(t, []string{"3|Xy|12|z", "4|b|5|w"}, sorted(queryRows(t, ctx, c, `SELECT 1 + 2, UPPER('x') || 'y', CAST('12' AS INTEGER), COALESCE(NULL, 'z') UNION ALL SELECT 4, 'b', 5, 'w'`)), "values")
	require.Equal(t, []string{"Grace"}, queryRows(t, ctx, c, `SELECT n FROM (SELECT name AS n, age FROM people) p WHERE age > 80`), "subquery")
}

func TestPredicateFeatures(t *testing.T) {
	c, ctx := start(t)
	m := client.GetMap[int32, *benchmodel.Large](c, "large")
	var batch []client.Entry[int32, *benchmodel.Large]
	for k := int32(0); k < 200; k++ {
		l := benchmodel.LargeForKey(k)
		l.IntField = k
		l.Small.IntField = k % 5
		l.SmallArray[1].StringField = []string{"x", "y"}[k%2]
		l.IntArray[0] = k * 10
		batch = append(batch, client.Entry[int32, *benchmodel.Large]{Key: k, Value: &l})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	count := func(p predicate.Predicate) int {
		t.Helper()
		ks, err := m.KeySetWithPredicate(ctx, p)
		require.NoError(t, err, "%s", p)
		return len(ks)
	}
	for _, tc := range []struct {
		p    predicate.Predicate
		want int
	}{
		{predicate.Equal("small.intField", int32(3)), 40},
		{predicate.Equal("smallArray[any].stringField", "y"), 100},
		{predicate.Equal("smallArray[1].stringField", "x"), 100},
		{predicate.Equal("intArray[0]", int32(50)), 1},
		{predicate.GreaterEqual("__key", int32(150)), 50},
		{predicate.Equal("__key", int32(7)), 1},
		{predicate.SQL("intField < 10 AND small.intField = 0"), 2},
		{predicate.Not(predicate.Equal("small.intField", int32(0))), 160},
		{predicate.Regex("stringField", "[a-m].*"), -1},
		{predicate.ILike("stringField", "METIN"), 1},
		{predicate.Partition(int32(42), predicate.True()), -2},
		{predicate.False(), 0},
	} {
		got := count(tc.p)
		switch tc.want {
		case -1:
			assert.True(t, got > 0 && got < 200, "%s: %d, want some and not all", tc.p, got)
		case -2:
			assert.True(t, got > 0 && got <= 10, "%s: %d entries in one partition", tc.p, got)
		default:
			assert.Equal(t, tc.want, got, "%s", tc.p)
		}
	}
	// Aggregators.
	for _, tc := range []struct {
		a    predicate.Aggregator
		want any
	}{
		{predicate.Count(), int64(200)},
		{predicate.Count("intField"), int64(200)},
		{predicate.IntegerSum("intField"), int64(19900)},
		{predicate.FixedPointSum("small.intField"), int64(400)},
		{predicate.IntegerAvg("intField"), 99.5},
		{predicate.Min("intField"), int32(0)},
		{predicate.Max("intField"), int32(199)},
	} {
		got, err := m.Aggregate(ctx, tc.a)
		if assert.NoError(t, err, "%v", tc.a) {
			assert.Equal(t, tc.want, got, "%v", tc.a)
		}
	}
	d, err := m.Aggregate(ctx, predicate.Distinct("small.intField"))
	require.NoError(t, err)
	require.Len(t, d, 5, "distinct")
	mb, err := m.Aggregate(ctx, predicate.MaxBy("intField"), predicate.LessThan("intField", int32(100)))
	require.NoError(t, err)
	require.IsType(t, client.Entry[int32, *benchmodel.Large]{}, mb)
	require.Equal(t, int32(99), mb.(client.Entry[int32, *benchmodel.Large]).Key, "maxBy")
	require.Equal(t, int32(99), mb.(client.Entry[int32, *benchmodel.Large]).Value.IntField, "maxBy")
	// Projections.
	proj, err := m.Project(ctx, predicate.MultiAttribute("__key", "small.intField"), predicate.Equal("intField", int32(12)))
	require.NoError(t, err)
	require.Equal(t, []any{[]any{int32(12), int32(2)}}, proj, "project")
	// Paging: pages of 30 by intField descending.
	pp := predicate.Paging(predicate.GreaterThan("intField", int32(9)), 30, predicate.SortKey{Attribute: "intField", Descending: true})
	var all []int32
	for page := 0; page < 8; page++ {
		ks, err := m.KeySetWithPredicate(ctx, pp)
		require.NoError(t, err)
		all = append(all, ks...)
		pp.NextPage()
	}
	require.Len(t, all, 190, "keys over every page")
	require.Equal(t, int32(199), all[0])
	require.Equal(t, int32(10), all[189])
	// The filter reads its own attribute whatever the sort keys are: keys
	// under 20 by small.intField, then intField descending; and under the
	// default order (by key).
	pp = predicate.Paging(predicate.LessThan("intField", int32(20)), 4,
		predicate.SortKey{Attribute: "small.intField"}, predicate.SortKey{Attribute: "intField", Descending: true})
	ks, err := m.KeySetWithPredicate(ctx, pp)
	require.NoError(t, err)
	require.Equal(t, []int32{15, 10, 5, 0}, ks, "paging by other sort keys")
	pp = predicate.Paging(predicate.LessThan("intField", int32(20)), 4)
	pp.SetPage(4)
	ks, err = m.KeySetWithPredicate(ctx, pp)
	require.NoError(t, err)
	require.Equal(t, []int32{16, 17, 18, 19}, ks, "paging by key")
	// Bad predicates are query errors.
	_, err = m.KeySetWithPredicate(ctx, predicate.SQL("intField >"))
	require.ErrorIs(t, err, client.ErrQuery, "bad predicate SQL")
	_, err = m.KeySetWithPredicate(ctx, predicate.Regex("stringField", "("))
	require.ErrorIs(t, err, client.ErrQuery, "bad regular expression")
}

func TestQueryTimeout(t *testing.T) {
	c, ctx := start(t)
	m := client.GetMap[int32, string](c, "t")
	var batch []client.Entry[int32, string]
	for k := int32(0); k < 3000; k++ {
		batch = append(batch, client.Entry[int32, string]{Key: k, Value: strings.Repeat("x", 50)})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	mustExec(t, ctx, c, `CREATE MAPPING t TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	// Every value equals every other, so the self-join on the value makes
	// 3 000² = 9 million pairs, with a regular expression on each: far
	// more than any machine does within the timeout, so the query stops
	// with a timeout instead of running on.
	began := time.Now()
	_, err := c.SQL(ctx, `SELECT COUNT(*) FROM t a JOIN t b ON a.this = b.this WHERE REGEXP_LIKE(a.this || b.this, 'x+y')`,
		client.WithQueryTimeout(time.Millisecond))
	require.True(t, errors.Is(err, client.ErrTimeout) || errors.Is(err, context.DeadlineExceeded), "got %v, want a timeout", err)
	require.Less(t, time.Since(began), time.Minute, "the query stops soon after its 1ms timeout")
	t.Logf("stopped after %v", time.Since(began))
}

// OrderKey is a Compact key with fields.
type OrderKey struct {
	Customer string
	Number   int32
}

func (OrderKey) CompactTypeName() string { return "order_key" }

func TestKeyFields(t *testing.T) {
	c, ctx := start(t)
	m := client.GetMap[OrderKey, string](c, "orders")
	for i := int32(0); i < 30; i++ {
		require.NoError(t, m.Set(ctx, OrderKey{Customer: []string{"ada", "alan", "grace"}[i%3], Number: i}, "item"))
	}
	ks, err := m.KeySetWithPredicate(ctx, predicate.And(predicate.Equal("__key.customer", "alan"), predicate.LessThan("__key.number", int32(10))))
	require.NoError(t, err)
	require.Len(t, ks, 3)
	mustExec(t, ctx, c, `CREATE MAPPING orders (customer VARCHAR EXTERNAL NAME "__key.customer", num INT EXTERNAL NAME "__key.number", this VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='compact', 'keyCompactTypeName'='order_key', 'valueFormat'='varchar')`)
	require.Equal(t, []string{"ada|10|135", "alan|10|145", "grace|10|155"}, queryRows(t, ctx, c, `SELECT customer, COUNT(*), SUM(num) FROM orders GROUP BY customer ORDER BY customer`), "group by key field")
}

// TestUpdatePortableAndIdentified writes Portable and IDS values through
// SQL: UPDATE keeps the other fields, INSERT builds new values from the
// class definition or layout.
func TestUpdatePortableAndIdentified(t *testing.T) {
	c, ctx := start(t)
	require.NoError(t, c.RegisterLayouts(ctx, benchmodel.Layouts()...))
	pm := client.GetMap[int32, *benchmodel.PortableSmall](c, "ps")
	im := client.GetMap[int32, *benchmodel.IdentifiedSmall](c, "is")
	for k := int32(0); k < 10; k++ {
		ps := benchmodel.PortableSmall(benchmodel.SmallForKey(k))
		is := benchmodel.IdentifiedSmall(benchmodel.SmallForKey(k))
		require.NoError(t, pm.Set(ctx, k, &ps))
		require.NoError(t, im.Set(ctx, k, &is))
	}
	mustExec(t, ctx, c,
		`CREATE MAPPING ps (__key INT, intField INT, stringField VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='1')`,
		`CREATE MAPPING "is" (__key INT, intField INT, stringField VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='identified', 'valueIdentifiedFactoryId'='1', 'valueIdentifiedClassId'='1')`,
		`UPDATE ps SET stringField = 'changed' WHERE __key < 3`,
		`UPDATE "is" SET intField = -1 WHERE __key >= 8`,
		`INSERT INTO ps (__key, intField, stringField) VALUES (100, 7, 'new')`,
		`INSERT INTO "is" (__key, intField, stringField) VALUES (100, 8, 'new')`,
	)
	v, _, err := pm.Get(ctx, 1)
	want := benchmodel.SmallForKey(1)
	require.NoError(t, err)
	require.Equal(t, "changed", v.StringField, "Portable after UPDATE")
	require.Equal(t, want.LongField, v.LongField, "Portable after UPDATE")
	w, _, err := im.Get(ctx, 9)
	want = benchmodel.SmallForKey(9)
	require.NoError(t, err)
	require.Equal(t, int32(-1), w.IntField, "IDS after UPDATE")
	require.Equal(t, want.StringField, w.StringField, "IDS after UPDATE")
	require.Equal(t, []string{"7|new"}, queryRows(t, ctx, c, `SELECT intField, stringField FROM ps WHERE __key = 100`), "portable insert")
	require.Equal(t, []string{"8|new"}, queryRows(t, ctx, c, `SELECT intField, stringField FROM "is" WHERE __key = 100`), "identified insert")
	// DML filters on the key column.
	rows, err := c.SQL(ctx, `DELETE FROM ps WHERE __key = 100 OR __key = 101`)
	require.NoError(t, err)
	require.Equal(t, int64(1), rows.UpdateCount(), "rows DELETE by key removed")
	rows, err = c.SQL(ctx, `UPDATE "is" SET stringField = 'x' WHERE __key BETWEEN 2 AND 4`)
	require.NoError(t, err)
	require.Equal(t, int64(3), rows.UpdateCount(), "rows UPDATE by key changed")
}
