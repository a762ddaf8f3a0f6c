package querytest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// joinTable is a table of the join tests: its mapping and its rows, which
// go into Atoll through INSERT and into the reference through CSV.
type joinData struct {
	name    string
	mapping string
	columns [][2]string // name, DuckDB type
	rows    [][]string  // SQL literals ("NULL" for none)
}

func genJoinData(r *rand.Rand) []joinData {
	nullable := func(p int, v string) string {
		if r.IntN(100) < p {
			return "NULL"
		}
		return v
	}
	words := []string{"quick", "special", "requests", "pending", "ironic", "deposits"}
	note := func() string {
		n := 1 + r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[r.IntN(len(words))]
		}
		return "'" + strings.Join(parts, " ") + "'"
	}
	jn := joinData{name: "jn", columns: [][2]string{{"__key", "INTEGER"}, {"nname", "VARCHAR"}, {"region", "INTEGER"}},
		mapping: `CREATE MAPPING jn (__key INT, nname VARCHAR, region INT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='jn')`}
	for k := 0; k < 25; k++ {
		jn.rows = append(jn.rows, []string{strconv.Itoa(k), fmt.Sprintf("'nation%d'", k), strconv.Itoa(k % 5)})
	}
	jc := joinData{name: "jc", columns: [][2]string{{"__key", "INTEGER"}, {"name", "VARCHAR"}, {"nation", "INTEGER"}, {"score", "BIGINT"}},
		mapping: `CREATE MAPPING jc (__key INT, name VARCHAR, nation INT, score BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='jc')`}
	for k := 0; k < 300; k++ {
		jc.rows = append(jc.rows, []string{strconv.Itoa(k), nullable(5, fmt.Sprintf("'cust%d'", k)),
			nullable(8, strconv.Itoa(r.IntN(30))), strconv.Itoa(r.IntN(1000))})
	}
	jo := joinData{name: "jo", columns: [][2]string{{"__key", "INTEGER"}, {"cust", "INTEGER"}, {"amount", "BIGINT"}, {"note", "VARCHAR"}, {"flag", "INTEGER"}},
		mapping: `CREATE MAPPING jo (__key INT, cust INT, amount BIGINT, note VARCHAR, flag INT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='jo')`}
	for k := 0; k < 2000; k++ {
		// Customers 0..299 exist; some orders name one that does not.
		cust := r.IntN(360) - 10
		if r.IntN(3) == 0 {
			cust = r.IntN(40) // hot customers: many orders each
		}
		jo.rows = append(jo.rows, []string{strconv.Itoa(k), nullable(10, strconv.Itoa(cust)), strconv.Itoa(r.IntN(1000)),
			nullable(10, note()), strconv.Itoa(r.IntN(4))})
	}
	return []joinData{jn, jc, jo}
}

// joinQueries are the join queries both engines answer; ordered ones are
// compared row by row.
var joinQueries = []diffQuery{
	{sql: "SELECT jc.__key, jc.name, jo.__key, jo.amount FROM jc JOIN jo ON jc.__key = jo.cust"},
	{sql: "SELECT jc.__key, jo.__key FROM jc LEFT JOIN jo ON jc.__key = jo.cust"},
	{sql: "SELECT jo.__key, jc.name FROM jo LEFT OUTER JOIN jc ON jo.cust = jc.__key"},
	{sql: "SELECT jc.__key, jo.__key, jo.note FROM jo RIGHT JOIN jc ON jc.__key = jo.cust"},
	{sql: "SELECT jc.name, jn.nname FROM jc INNER JOIN jn ON jc.nation = jn.__key"},
	{sql: "SELECT jn.nname, COUNT(*), SUM(jo.amount) FROM jo JOIN jc ON jo.cust = jc.__key JOIN jn ON jc.nation = jn.__key GROUP BY jn.nname"},
	{sql: "SELECT jn.region, COUNT(jo.__key), MAX(jo.amount) FROM jn LEFT JOIN jc ON jc.nation = jn.__key LEFT JOIN jo ON jo.cust = jc.__key GROUP BY jn.region"},
	{sql: "SELECT COUNT(*) FROM jc, jo WHERE jc.__key = jo.cust AND jo.flag = 1"},
	{sql: "SELECT jc.name, jo.amount, jn.nname FROM jc, jo, jn WHERE jc.__key = jo.cust AND jc.nation = jn.__key AND jn.region = 2"},
	{sql: "SELECT * FROM (SELECT __key AS nation, nname FROM jn) AS x JOIN jc USING (nation)"},
	{sql: "SELECT nation, nname, name FROM (SELECT __key AS nation, nname FROM jn) AS x LEFT JOIN jc USING (nation)"},
	{sql: "SELECT * FROM (SELECT __key AS nation, nname FROM jn) AS x NATURAL JOIN (SELECT nation, name, score FROM jc) AS y"},
	{sql: "SELECT __key, name FROM jc WHERE EXISTS (SELECT 1 FROM jo WHERE jo.cust = jc.__key AND jo.amount > 500)"},
	{sql: "SELECT __key, name FROM jc WHERE NOT EXISTS (SELECT 1 FROM jo WHERE jo.cust = jc.__key)"},
	{sql: "SELECT __key FROM jc WHERE __key IN (SELECT cust FROM jo WHERE flag = 2)"},
	{sql: "SELECT __key FROM jc WHERE __key NOT IN (SELECT cust FROM jo WHERE flag = 2)"},
	{sql: "SELECT __key FROM jc WHERE __key NOT IN (SELECT cust FROM jo WHERE flag = 2 AND cust IS NOT NULL)"},
	{sql: "SELECT __key, nation FROM jc WHERE nation NOT IN (SELECT __key FROM jn WHERE region = 1)"},
	{sql: "SELECT __key FROM jc WHERE nation IN (SELECT __key FROM jn WHERE region = 3) AND score > 100"},
	{sql: "SELECT __key FROM jc WHERE EXISTS (SELECT 1 FROM jo WHERE jo.cust = jc.__key AND jo.amount > jc.score)"},
	{sql: "SELECT __key FROM jc WHERE score NOT IN (SELECT amount FROM jo WHERE jo.cust = jc.__key)"},
	{sql: "SELECT jc.__key, COUNT(jo.__key) AS n FROM jc LEFT JOIN jo ON jc.__key = jo.cust GROUP BY jc.__key HAVING COUNT(jo.__key) > 3 ORDER BY n DESC, jc.__key LIMIT 10", ordered: true},
	{sql: "SELECT c_count, COUNT(*) AS custdist FROM (SELECT jc.__key, COUNT(jo.__key) FROM jc LEFT OUTER JOIN jo ON jc.__key = jo.cust AND jo.note NOT LIKE '%special%requests%' GROUP BY jc.__key) AS c_orders (c_key, c_count) GROUP BY c_count ORDER BY custdist DESC, c_count DESC", ordered: true},
	{sql: "SELECT jn.__key, jc.__key FROM jn JOIN jc ON jc.score < jn.__key * 8"},
	{sql: "SELECT a.__key, b.__key FROM jn a CROSS JOIN jn b WHERE a.region = b.region"},
	{sql: "SELECT COUNT(*) FROM jn a CROSS JOIN jn b"},
	{sql: "SELECT jc.__key, jo.__key FROM jc JOIN jo ON jc.__key = jo.cust AND jo.amount > jc.score"},
	{sql: "SELECT jc.__key, jo.__key FROM jc LEFT JOIN jo ON jc.__key = jo.cust AND jc.score > 500"},
	{sql: "SELECT jc.__key FROM jc LEFT JOIN jo ON jc.__key = jo.cust WHERE jo.__key IS NULL"},
	{sql: "SELECT jc.__key, jo.amount FROM jc LEFT JOIN jo ON jc.__key = jo.cust WHERE jc.score < 300 AND (jo.amount IS NULL OR jo.amount > 200)"},
	{sql: "SELECT a.__key, b.amount FROM jo a JOIN jo b ON a.__key = b.__key WHERE a.flag = 1"},
	{sql: "SELECT x.cust, x.total, jc.name FROM (SELECT cust, SUM(amount) AS total FROM jo GROUP BY cust) x JOIN jc ON x.cust = jc.__key"},
	{sql: "SELECT COUNT(*), SUM(a.amount) FROM jo a JOIN jo b ON a.cust = b.cust"},
	{sql: "SELECT COUNT(*) FROM jo a JOIN jo b ON a.note = b.note WHERE a.flag = 0"},
	{sql: "SELECT DISTINCT jn.region FROM jn JOIN jc ON jc.nation = jn.__key"},
	{sql: "SELECT jc.*, jn.nname FROM jc LEFT JOIN jn ON jc.nation = jn.__key"},
	{sql: "SELECT jo.__key, jc.__key FROM jo JOIN jc ON jo.cust = jc.score"},
	{sql: "SELECT jn.nname, SUM(jo.amount) AS total FROM jn JOIN jc ON jc.nation = jn.__key JOIN jo ON jo.cust = jc.__key WHERE jo.flag <> 3 GROUP BY jn.nname ORDER BY total DESC, jn.nname LIMIT 5", ordered: true},
	{sql: "SELECT jc.__key, jo.__key FROM jo RIGHT JOIN jc ON jc.__key = jo.cust WHERE jc.nation = 7"},
	{sql: "SELECT jc.name, o.amount FROM jc JOIN (SELECT cust, amount FROM jo WHERE flag = 3) AS o ON o.cust = jc.__key"},
	{sql: "SELECT jc.__key, jo.__key FROM jc JOIN jo ON jc.__key = jo.cust ORDER BY jo.__key LIMIT 20 OFFSET 5", ordered: true},
	{sql: "SELECT jc.__key FROM jc WHERE jc.__key IN (SELECT cust FROM jo) AND jc.__key NOT IN (SELECT cust FROM jo WHERE flag = 0 AND cust IS NOT NULL)"},
}

// joinHints force each strategy (where it can apply) besides the
// planner's own choice.
var joinHints = []string{"", "/*+ JOIN_STRATEGY(broadcast) */ ", "/*+ JOIN_STRATEGY(repartition) BATCH_BYTES(512) VECTOR_SIZE(100) */ ",
	"/*+ JOIN_STRATEGY(colocated) */ ", "/*+ JOIN_STRATEGY(coordinator) */ "}

func withHint(q, hint string) string {
	if hint == "" {
		return q
	}
	return strings.Replace(q, "SELECT ", "SELECT "+hint, 1)
}

// TestJoinsDuckDB compares every join query, with every strategy forced,
// with DuckDB, on one member and on three.
func TestJoinsDuckDB(t *testing.T) {
	r := rand.New(rand.NewPCG(20261125, 13))
	tables := genJoinData(r)
	dir := t.TempDir()
	var refTables []refTable
	for _, tb := range tables {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		head := make([]string, len(tb.columns))
		for i, c := range tb.columns {
			head[i] = c[0]
		}
		_ = w.Write(head)
		for _, row := range tb.rows {
			rec := make([]string, len(row))
			for i, v := range row {
				switch {
				case v == "NULL":
					rec[i] = `\N`
				case strings.HasPrefix(v, "'"):
					rec[i] = strings.Trim(v, "'")
				default:
					rec[i] = v
				}
			}
			_ = w.Write(rec)
		}
		w.Flush()
		path := filepath.Join(dir, tb.name+".csv")
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		refTables = append(refTables, refTable{name: tb.name, csv: path, columns: tb.columns})
	}
	var texts []string
	for _, q := range joinQueries {
		texts = append(texts, q.sql)
	}
	ref := duckdbReference(t, dir, refTables, texts)
	for i, q := range joinQueries {
		require.Empty(t, ref[i].Error, "query %d rejected by the reference:\n%s", i, q.sql)
	}
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d members", n), func(t *testing.T) {
			// A low broadcast threshold makes the planner's own choice
			// repartition the larger tables.
			cl := testcluster.Start(t, testcluster.InProcess, n, testcluster.Options{SlowFailureDetection: true,
				Configure: func(c *member.Config) { c.Query.Join.BroadcastThresholdRows = 100 }})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test", Serialization: benchmodel.Config()})
			require.NoError(t, err)
			defer c.Close()
			loadJoinData(t, ctx, c, tables)
			compared := 0
			for i, q := range joinQueries {
				want := refRows(ref[i])
				for _, hint := range joinHints {
					stmt := withHint(q.sql, hint)
					got, err := atollRows(ctx, c, stmt)
					if !assert.NoError(t, err, "query %d:\n%s", i, stmt) {
						continue
					}
					w := want
					if !q.ordered {
						w, got = sorted(w), sorted(got)
					}
					assert.Equal(t, w, got, "query %d: DuckDB's rows (expected) and Atoll's (actual)\n%s", i, stmt)
					compared++
				}
			}
			t.Logf("%d join queries compared with DuckDB on %d members", compared, n)
			// Rows moved between members (and only then).
			stats := queryRows(t, ctx, c, "SELECT COUNT(*), SUM(rows_shipped), SUM(messages_received) FROM TABLE(exchange_stats())")
			parts := strings.Split(stats[0], "|")
			shipped, _ := strconv.Atoi(parts[1])
			received, _ := strconv.Atoi(parts[2])
			assert.Equal(t, strconv.Itoa(n), parts[0], "exchange stats: members")
			assert.Equal(t, n > 1, shipped > 0, "exchange stats: rows shipped %d on %d members", shipped, n)
			assert.Equal(t, n > 1, received > 0, "exchange stats: messages received %d on %d members", received, n)
		})
	}
}

// loadJoinData loads the tables through SQL. A batch is an upsert (SINK
// INTO), sent again when it fails with an error that says it may succeed
// later: on a loaded machine the fast failure detection of the test
// members can declare a member dead for a moment, and the statement it
// coordinated or wrote to fails with that member's connection.
func loadJoinData(t *testing.T, ctx context.Context, c *client.Client, tables []joinData) {
	t.Helper()
	for _, tb := range tables {
		mustExec(t, ctx, c, tb.mapping)
		for start := 0; start < len(tb.rows); start += 250 {
			var vals []string
			for _, row := range tb.rows[start:min(start+250, len(tb.rows))] {
				vals = append(vals, "("+strings.Join(row, ", ")+")")
			}
			stmt := "SINK INTO " + tb.name + " VALUES " + strings.Join(vals, ", ")
			require.NoError(t, retrying(ctx, func() error {
				rows, err := c.SQL(ctx, stmt)
				if err == nil {
					rows.Close()
				}
				return err
			}), "%s", stmt)
		}
		var count []string
		require.NoError(t, retrying(ctx, func() error {
			rows, err := c.SQL(ctx, "SELECT COUNT(*) FROM "+tb.name)
			if err != nil {
				return err
			}
			defer rows.Close()
			count = count[:0]
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					return err
				}
				count = append(count, show(vals...))
			}
			return rows.Err()
		}), "rows of %s", tb.name)
		require.Equal(t, []string{strconv.Itoa(len(tb.rows))}, count, "rows of %s", tb.name)
	}
}

// retrying runs op until it succeeds, fails with an error that is not
// worth a retry (a *client.Error not Retryable, or not a member's
// unavailability), or a minute has passed.
func retrying(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(time.Minute)
	wait := 50 * time.Millisecond
	for {
		err := op()
		var ce *client.Error
		again := errors.Is(err, client.ErrUnavailable) || (errors.As(err, &ce) && ce.Retryable)
		if err == nil || !again || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
