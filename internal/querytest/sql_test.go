package querytest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

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
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := client.GetMap[int32, string](c, "words")
	var batch []client.Entry[int32, string]
	for k := int32(0); k < 1000; k++ {
		batch = append(batch, client.Entry[int32, string]{Key: k, Value: "w" + string(rune('a'+k%26))})
	}
	if err := m.PutAll(ctx, batch); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, c, `CREATE MAPPING words TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	member := cl.Members()[0].Member()

	// Read everything through pages of 7 rows.
	rows, err := c.SQL(ctx, `SELECT __key, this FROM words`, client.WithPageSize(7))
	if err != nil {
		t.Fatal(err)
	}
	if cols := rows.Columns(); len(cols) != 2 || cols[0].Type != "INTEGER" || cols[1].Type != "VARCHAR" {
		t.Fatalf("columns %+v", cols)
	}
	seen := map[int32]bool{}
	for rows.Next() {
		var k int32
		var v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		seen[k] = true
	}
	if err := rows.Err(); err != nil || len(seen) != 1000 {
		t.Fatalf("read %d keys, err %v", len(seen), err)
	}
	if n := member.QueryCursors(); n != 0 {
		t.Fatalf("%d cursors left open after reading to the end", n)
	}

	// Close half-way releases the cursor on the member.
	rows, err = c.SQL(ctx, `SELECT __key FROM words`, client.WithPageSize(10))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 15 && rows.Next(); i++ {
	}
	if n := member.QueryCursors(); n != 1 {
		t.Fatalf("%d cursors open mid-way, want 1", n)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if n := member.QueryCursors(); n != 0 {
		t.Fatalf("%d cursors open after Close", n)
	}
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
		if !errors.As(err, &e) || !errors.Is(err, client.ErrQuery) {
			t.Errorf("%q: got %v, want a query error", tc.sql, err)
			continue
		}
		if e.Line != tc.line || e.Column != tc.column || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%q: got line %d column %d %q, want %d:%d %q", tc.sql, e.Line, e.Column, e.Message, tc.line, tc.column, tc.msg)
		}
	}
	// Run-time errors are query errors too, and the member keeps serving.
	mustExec(t, ctx, c, `INSERT INTO m VALUES (1, 0, 'a')`)
	if _, err := c.SQL(ctx, `SELECT 10 / v FROM m`); !errors.Is(err, client.ErrQuery) || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("division by zero: %v", err)
	}
	if got := queryRows(t, ctx, c, `SELECT COUNT(*) FROM m`); got[0] != "1" {
		t.Fatal(got)
	}
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
	if _, err := c.SQL(ctx, `INSERT INTO people VALUES (1, 'Other', 1)`); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("duplicate insert: %v", err)
	}
	rows, err := c.SQL(ctx, `SINK INTO people VALUES (1, 'Ada Lovelace', ?)`, int32(36))
	if err != nil || rows.UpdateCount() != 1 {
		t.Fatalf("sink: %v", err)
	}
	rows, err = c.SQL(ctx, `UPDATE people SET age = age + 1 WHERE age > ?`, 40)
	if err != nil || rows.UpdateCount() != 2 {
		t.Fatalf("update: %v %v", err, rows)
	}
	if got := queryRows(t, ctx, c, `SELECT __key, name, age FROM people ORDER BY __key`); !slices.Equal(got, []string{"1|Ada Lovelace|36", "2|Alan|42", "3|Grace|86"}) {
		t.Fatalf("people: %v", got)
	}
	// The Compact values INSERT wrote read back through the Go client.
	vals, err := client.GetMap[int32, any](c, "people").ValuesWithPredicate(ctx, predicate.Equal("name", "Alan"))
	if err != nil || len(vals) != 1 {
		t.Fatalf("values: %v %v", vals, err)
	}
	if rec, ok := vals[0].(*serialization.CompactRecord); !ok || rec.TypeName() != "person" {
		t.Fatalf("value %T", vals[0])
	}
	rows, err = c.SQL(ctx, `DELETE FROM people WHERE name LIKE 'A%'`)
	if err != nil || rows.UpdateCount() != 2 {
		t.Fatalf("delete: %v", err)
	}
	if got := queryRows(t, ctx, c, `SELECT name FROM people`); !slices.Equal(got, []string{"Grace"}) {
		t.Fatalf("after delete: %v", got)
	}
	// JSON documents written by INSERT read through JSON_VALUE too.
	mustExec(t, ctx, c, `CREATE MAPPING docs_json EXTERNAL NAME docs TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='json')`)
	if got := queryRows(t, ctx, c, `SELECT __key, JSON_VALUE(this, '$.pages' RETURNING BIGINT) * 2, CAST(JSON_QUERY(this, '$.title') AS VARCHAR) FROM docs_json ORDER BY __key`); !slices.Equal(got, []string{`a|24|"Notes"`, `b|240|"Report"`}) {
		t.Fatalf("docs: %v", got)
	}
	if got := queryRows(t, ctx, c, `SHOW MAPPINGS`); !slices.Equal(got, []string{"docs", "docs_json", "people"}) {
		t.Fatalf("mappings: %v", got)
	}
	mustExec(t, ctx, c, `DROP MAPPING docs_json`, `DROP MAPPING IF EXISTS docs_json`)
	if _, err := c.SQL(ctx, `DROP MAPPING docs_json`); !errors.Is(err, client.ErrQuery) {
		t.Fatalf("drop of a missing mapping: %v", err)
	}
	// CREATE INDEX through SQL; the plan uses it.
	mustExec(t, ctx, c, `CREATE INDEX people_age ON people (age) TYPE SORTED`)
	plan, err := c.ExplainSQL(ctx, `SELECT name FROM people WHERE age = ?`, 86)
	if err != nil || !strings.Contains(plan, "IndexScan[people, index=people_age SORTED") {
		t.Fatalf("plan: %v\n%s", err, plan)
	}
	if got := queryRows(t, ctx, c, `SELECT name FROM people WHERE age = ?`, 86); !slices.Equal(got, []string{"Grace"}) {
		t.Fatalf("indexed: %v", got)
	}
	// Expressions without a table, UNION ALL and a subquery in FROM.
	if got := queryRows(t, ctx, c, `SELECT 1 + 2, UPPER('x') || 'y', CAST('12' AS INTEGER), COALESCE(NULL, 'z') UNION ALL SELECT 4, 'b', 5, 'w'`); !slices.Equal(sorted(got), []string{"3|Xy|12|z", "4|b|5|w"}) {
		t.Fatalf("values: %v", got)
	}
	if got := queryRows(t, ctx, c, `SELECT n FROM (SELECT name AS n, age FROM people) p WHERE age > 80`); !slices.Equal(got, []string{"Grace"}) {
		t.Fatalf("subquery: %v", got)
	}
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
	if err := m.PutAll(ctx, batch); err != nil {
		t.Fatal(err)
	}
	count := func(p predicate.Predicate) int {
		t.Helper()
		ks, err := m.KeySetWithPredicate(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
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
			if got == 0 || got == 200 {
				t.Errorf("%s: %d", tc.p, got)
			}
		case -2:
			if got == 0 || got > 10 {
				t.Errorf("%s: %d entries in one partition", tc.p, got)
			}
		default:
			if got != tc.want {
				t.Errorf("%s: %d, want %d", tc.p, got, tc.want)
			}
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
		if err != nil || got != tc.want {
			t.Errorf("%v: %v (%T) %v, want %v", tc.a, got, got, err, tc.want)
		}
	}
	d, err := m.Aggregate(ctx, predicate.Distinct("small.intField"))
	if err != nil || len(d.([]any)) != 5 {
		t.Fatalf("distinct: %v %v", d, err)
	}
	mb, err := m.Aggregate(ctx, predicate.MaxBy("intField"), predicate.LessThan("intField", int32(100)))
	if e := mb.(client.Entry[int32, *benchmodel.Large]); err != nil || e.Key != 99 || e.Value.IntField != 99 {
		t.Fatalf("maxBy: %v %v", mb, err)
	}
	// Projections.
	proj, err := m.Project(ctx, predicate.MultiAttribute("__key", "small.intField"), predicate.Equal("intField", int32(12)))
	if err != nil || len(proj) != 1 || proj[0].([]any)[0] != int32(12) || proj[0].([]any)[1] != int32(2) {
		t.Fatalf("project: %v %v", proj, err)
	}
	// Paging: pages of 30 by intField descending.
	pp := predicate.Paging(predicate.GreaterThan("intField", int32(9)), 30, predicate.SortKey{Attribute: "intField", Descending: true})
	var all []int32
	for page := 0; page < 8; page++ {
		ks, err := m.KeySetWithPredicate(ctx, pp)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ks...)
		pp.NextPage()
	}
	if len(all) != 190 || all[0] != 199 || all[189] != 10 {
		t.Fatalf("paging gave %d keys from %v to %v", len(all), all[0], all[len(all)-1])
	}
	// The filter reads its own attribute whatever the sort keys are: keys
	// under 20 by small.intField, then intField descending; and under the
	// default order (by key).
	pp = predicate.Paging(predicate.LessThan("intField", int32(20)), 4,
		predicate.SortKey{Attribute: "small.intField"}, predicate.SortKey{Attribute: "intField", Descending: true})
	if ks, err := m.KeySetWithPredicate(ctx, pp); err != nil || !slices.Equal(ks, []int32{15, 10, 5, 0}) {
		t.Fatalf("paging by other sort keys: %v %v, want [15 10 5 0]", ks, err)
	}
	pp = predicate.Paging(predicate.LessThan("intField", int32(20)), 4)
	pp.SetPage(4)
	if ks, err := m.KeySetWithPredicate(ctx, pp); err != nil || !slices.Equal(ks, []int32{16, 17, 18, 19}) {
		t.Fatalf("paging by key: %v %v, want [16 17 18 19]", ks, err)
	}
	// Bad predicates are query errors.
	if _, err := m.KeySetWithPredicate(ctx, predicate.SQL("intField >")); !errors.Is(err, client.ErrQuery) {
		t.Fatalf("bad predicate SQL: %v", err)
	}
	if _, err := m.KeySetWithPredicate(ctx, predicate.Regex("stringField", "(")); !errors.Is(err, client.ErrQuery) {
		t.Fatalf("bad regex: %v", err)
	}
}

func TestQueryTimeout(t *testing.T) {
	c, ctx := start(t)
	m := client.GetMap[int32, string](c, "t")
	var batch []client.Entry[int32, string]
	for k := int32(0); k < 3000; k++ {
		batch = append(batch, client.Entry[int32, string]{Key: k, Value: strings.Repeat("x", 50)})
	}
	if err := m.PutAll(ctx, batch); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, c, `CREATE MAPPING t TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	// Every value equals every other, so the self-join on the value makes
	// 3 000² = 9 million pairs, with a regular expression on each: far
	// more than any machine does within the timeout, so the query stops
	// with a timeout instead of running on.
	began := time.Now()
	_, err := c.SQL(ctx, `SELECT COUNT(*) FROM t a JOIN t b ON a.this = b.this WHERE REGEXP_LIKE(a.this || b.this, 'x+y')`,
		client.WithQueryTimeout(time.Millisecond))
	if !errors.Is(err, client.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a timeout", err)
	}
	if took := time.Since(began); took > time.Minute {
		t.Fatalf("the query stopped %v after it began, long after its 1ms timeout", took)
	}
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
		if err := m.Set(ctx, OrderKey{Customer: []string{"ada", "alan", "grace"}[i%3], Number: i}, "item"); err != nil {
			t.Fatal(err)
		}
	}
	ks, err := m.KeySetWithPredicate(ctx, predicate.And(predicate.Equal("__key.customer", "alan"), predicate.LessThan("__key.number", int32(10))))
	if err != nil || len(ks) != 3 {
		t.Fatalf("keys %v %v", ks, err)
	}
	mustExec(t, ctx, c, `CREATE MAPPING orders (customer VARCHAR EXTERNAL NAME "__key.customer", num INT EXTERNAL NAME "__key.number", this VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='compact', 'keyCompactTypeName'='order_key', 'valueFormat'='varchar')`)
	if got := queryRows(t, ctx, c, `SELECT customer, COUNT(*), SUM(num) FROM orders GROUP BY customer ORDER BY customer`); !slices.Equal(got, []string{"ada|10|135", "alan|10|145", "grace|10|155"}) {
		t.Fatalf("group by key field: %v", got)
	}
}

// TestUpdatePortableAndIdentified writes Portable and IDS values through
// SQL: UPDATE keeps the other fields, INSERT builds new values from the
// class definition or layout.
func TestUpdatePortableAndIdentified(t *testing.T) {
	c, ctx := start(t)
	if err := c.RegisterLayouts(ctx, benchmodel.Layouts()...); err != nil {
		t.Fatal(err)
	}
	pm := client.GetMap[int32, *benchmodel.PortableSmall](c, "ps")
	im := client.GetMap[int32, *benchmodel.IdentifiedSmall](c, "is")
	for k := int32(0); k < 10; k++ {
		ps := benchmodel.PortableSmall(benchmodel.SmallForKey(k))
		is := benchmodel.IdentifiedSmall(benchmodel.SmallForKey(k))
		if err := pm.Set(ctx, k, &ps); err != nil {
			t.Fatal(err)
		}
		if err := im.Set(ctx, k, &is); err != nil {
			t.Fatal(err)
		}
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
	if err != nil || v.StringField != "changed" || v.LongField != want.LongField {
		t.Fatalf("portable after update: %+v %v", v, err)
	}
	w, _, err := im.Get(ctx, 9)
	want = benchmodel.SmallForKey(9)
	if err != nil || w.IntField != -1 || w.StringField != want.StringField {
		t.Fatalf("identified after update: %+v %v", w, err)
	}
	if got := queryRows(t, ctx, c, `SELECT intField, stringField FROM ps WHERE __key = 100`); !slices.Equal(got, []string{"7|new"}) {
		t.Fatalf("portable insert: %v", got)
	}
	if got := queryRows(t, ctx, c, `SELECT intField, stringField FROM "is" WHERE __key = 100`); !slices.Equal(got, []string{"8|new"}) {
		t.Fatalf("identified insert: %v", got)
	}
	// DML filters on the key column.
	rows, err := c.SQL(ctx, `DELETE FROM ps WHERE __key = 100 OR __key = 101`)
	if err != nil || rows.UpdateCount() != 1 {
		t.Fatalf("delete by key: %v", err)
	}
	rows, err = c.SQL(ctx, `UPDATE "is" SET stringField = 'x' WHERE __key BETWEEN 2 AND 4`)
	if err != nil || rows.UpdateCount() != 3 {
		t.Fatalf("update by key: %v", err)
	}
}
