package querytest

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// diffRow is one generated row of table t: the columns a, b, c, s, g of
// the general queries, and one NULL-heavy column of every SQL type
// (typedCols; typed[i] is the index of its value in the column's domain,
// -1 for NULL).
type diffRow struct {
	key   int32
	a     *int32
	b     int64
	c     *float64
	s     *string
	g     int32
	typed []int
}

var words = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}

// typedCol is a column of one SQL type with a small domain of values (so
// that DISTINCT, GROUP BY and UNION meet duplicates) and many NULLs.
type typedCol struct {
	name, typ string
	duck      string // the reference's type (TIMESTAMP WITH TIME ZONE: UTC timestamps)
	domain    int
	lit       func(i int) string // SQL literal of value i
	csv       func(i int) string // the reference's CSV text of value i
	numeric   bool
}

var typedCols = []typedCol{
	{name: "e", typ: "BOOLEAN", duck: "BOOLEAN", domain: 2,
		lit: func(i int) string { return []string{"FALSE", "TRUE"}[i] }, csv: func(i int) string { return []string{"false", "true"}[i] }},
	{name: "ti", typ: "TINYINT", duck: "TINYINT", domain: 11, numeric: true,
		lit: func(i int) string { return strconv.Itoa(i - 5) }, csv: func(i int) string { return strconv.Itoa(i - 5) }},
	{name: "si", typ: "SMALLINT", duck: "SMALLINT", domain: 31, numeric: true,
		lit: func(i int) string { return strconv.Itoa(i*20 - 300) }, csv: func(i int) string { return strconv.Itoa(i*20 - 300) }},
	{name: "i", typ: "INT", duck: "INTEGER", domain: 25, numeric: true,
		lit: func(i int) string { return strconv.Itoa(i*1000 - 12000) }, csv: func(i int) string { return strconv.Itoa(i*1000 - 12000) }},
	{name: "n", typ: "BIGINT", duck: "BIGINT", domain: 25, numeric: true,
		lit: func(i int) string { return strconv.FormatInt(int64(i)*10_000_000_000-120_000_000_000, 10) },
		csv: func(i int) string { return strconv.FormatInt(int64(i)*10_000_000_000-120_000_000_000, 10) }},
	// Multiples of 1/8 and 1/4: exact in binary, so sums agree.
	{name: "r", typ: "REAL", duck: "REAL", domain: 41, numeric: true,
		lit: func(i int) string { return strconv.FormatFloat(float64(i-20)/8, 'g', -1, 64) },
		csv: func(i int) string { return strconv.FormatFloat(float64(i-20)/8, 'g', -1, 64) }},
	{name: "f", typ: "DOUBLE", duck: "DOUBLE", domain: 41, numeric: true,
		lit: func(i int) string { return strconv.FormatFloat(float64(i-20)*2.5, 'g', -1, 64) },
		csv: func(i int) string { return strconv.FormatFloat(float64(i-20)*2.5, 'g', -1, 64) }},
	{name: "dc", typ: "DECIMAL", duck: "DECIMAL(18,3)", domain: 41, numeric: true,
		lit: func(i int) string { return strconv.FormatFloat(float64(i-20)/4, 'f', 2, 64) },
		csv: func(i int) string { return strconv.FormatFloat(float64(i-20)/4, 'f', 2, 64) }},
	{name: "v", typ: "VARCHAR", duck: "VARCHAR", domain: len(words),
		lit: func(i int) string { return "'" + words[i] + "'" }, csv: func(i int) string { return words[i] }},
	{name: "d", typ: "DATE", duck: "DATE", domain: 25,
		lit: func(i int) string { return fmt.Sprintf("DATE '2020-01-%02d'", i+1) },
		csv: func(i int) string { return fmt.Sprintf("2020-01-%02d", i+1) }},
	{name: "tm", typ: "TIME", duck: "TIME", domain: 24,
		lit: func(i int) string { return fmt.Sprintf("TIME '%02d:%02d:00'", 8+i/4, i%4*15) },
		csv: func(i int) string { return fmt.Sprintf("%02d:%02d:00", 8+i/4, i%4*15) }},
	{name: "ts", typ: "TIMESTAMP", duck: "TIMESTAMP", domain: 30,
		lit: func(i int) string { return fmt.Sprintf("TIMESTAMP '2020-01-%02d %02d:30:00'", 1+i/3, 9+i%3) },
		csv: func(i int) string { return fmt.Sprintf("2020-01-%02d %02d:30:00", 1+i/3, 9+i%3) }},
	{name: "tz", typ: "TIMESTAMP WITH TIME ZONE", duck: "TIMESTAMP", domain: 30,
		lit: func(i int) string { return fmt.Sprintf("TIMESTAMP '2021-06-%02d %02d:00:00'", 1+i/3, 20+i%3) },
		csv: func(i int) string { return fmt.Sprintf("2021-06-%02d %02d:00:00", 1+i/3, 20+i%3) }},
}

func genRows(r *rand.Rand, n int) []diffRow {
	rows := make([]diffRow, n)
	for i := range rows {
		row := diffRow{key: int32(i), b: r.Int64N(2_000_000) - 1_000_000, g: int32(r.IntN(10))}
		if r.IntN(10) > 0 {
			a := int32(r.IntN(100) - 20)
			row.a = &a
		}
		if r.IntN(8) > 0 {
			c := float64(r.IntN(4000)-1000) / 8 // exact in binary: sums agree
			row.c = &c
		}
		if r.IntN(9) > 0 {
			s := words[r.IntN(len(words))] + strconv.Itoa(r.IntN(30))
			row.s = &s
		}
		row.typed = make([]int, len(typedCols))
		for j, tc := range typedCols {
			row.typed[j] = -1
			if r.IntN(5) >= 2 { // 40% NULL
				row.typed[j] = r.IntN(tc.domain)
			}
		}
		rows[i] = row
	}
	return rows
}

// genCond returns a random condition over t.
func genCond(r *rand.Rand, depth int) string {
	if depth > 0 && r.IntN(3) == 0 {
		op := " AND "
		if r.IntN(2) == 0 {
			op = " OR "
		}
		return "(" + genCond(r, depth-1) + op + genCond(r, depth-1) + ")"
	}
	if depth > 0 && r.IntN(8) == 0 {
		return "NOT (" + genCond(r, depth-1) + ")"
	}
	cmp := []string{"=", "<>", "<", "<=", ">", ">="}[r.IntN(6)]
	switch r.IntN(11) {
	case 0:
		return fmt.Sprintf("a %s %d", cmp, r.IntN(100)-20)
	case 1:
		return fmt.Sprintf("b %s %d", cmp, r.Int64N(2_000_000)-1_000_000)
	case 2:
		return fmt.Sprintf("c %s %g", cmp, float64(r.IntN(4000)-1000)/8)
	case 3:
		return fmt.Sprintf("s %s '%s'", cmp, words[r.IntN(len(words))]+strconv.Itoa(r.IntN(30)))
	case 4:
		return fmt.Sprintf("s LIKE '%s%%'", words[r.IntN(len(words))][:2])
	case 5:
		return []string{"a IS NULL", "a IS NOT NULL", "s IS NULL", "c IS NOT NULL"}[r.IntN(4)]
	case 6:
		lo := r.Int64N(2_000_000) - 1_000_000
		return fmt.Sprintf("b BETWEEN %d AND %d", lo, lo+r.Int64N(800_000))
	case 7:
		return fmt.Sprintf("g IN (%d, %d, %d)", r.IntN(10), r.IntN(10), r.IntN(10))
	case 8:
		return fmt.Sprintf("a + g %s %d", cmp, r.IntN(100))
	case 9:
		return fmt.Sprintf("g %s %d", cmp, r.IntN(10))
	}
	return fmt.Sprintf("__key %s %d", cmp, r.IntN(1000))
}

type diffQuery struct {
	sql     string
	ordered bool
}

func genQueries(r *rand.Rand, n int) []diffQuery {
	var out []diffQuery
	for len(out) < n {
		w := genCond(r, 2)
		var q diffQuery
		switch r.IntN(11) {
		case 0:
			q.sql = "SELECT __key, a, b FROM t WHERE " + w
		case 1:
			q.sql = "SELECT COUNT(*), COUNT(a), SUM(b), MIN(c), MAX(s), SUM(a) FROM t WHERE " + w
		case 2:
			q.sql = "SELECT g, COUNT(*), SUM(a), AVG(c), MAX(b), MIN(s) FROM t WHERE " + w + " GROUP BY g"
		case 3:
			q.sql = fmt.Sprintf("SELECT g, COUNT(*) FROM t WHERE %s GROUP BY g HAVING COUNT(*) > %d", w, r.IntN(60))
		case 4:
			q.sql, q.ordered = fmt.Sprintf("SELECT __key, b FROM t WHERE %s ORDER BY b DESC, __key LIMIT %d", w, 1+r.IntN(20)), true
		case 5:
			q.sql, q.ordered = fmt.Sprintf("SELECT __key, s FROM t WHERE %s ORDER BY __key LIMIT %d OFFSET %d", w, 1+r.IntN(20), r.IntN(30)), true
		case 6:
			q.sql = "SELECT DISTINCT g FROM t WHERE " + w
		case 7:
			q.sql = "SELECT COUNT(DISTINCT a), COUNT(DISTINCT s) FROM t WHERE " + w
		case 8:
			q.sql = "SELECT __key, CASE WHEN a > 40 THEN 'high' WHEN a > 10 THEN 'mid' ELSE 'low' END, COALESCE(s, 'none'), b + 1, ABS(b) FROM t WHERE " + w
		case 9:
			q.sql = "SELECT UPPER(s), LENGTH(s), a * 2 - g FROM t WHERE s IS NOT NULL AND " + w
		default:
			q.sql = "SELECT g, a IS NULL, COUNT(*) FROM t WHERE " + w + " GROUP BY g, a IS NULL"
		}
		out = append(out, q)
	}
	return out
}

// typedCond returns a condition on typed column j.
func typedCond(r *rand.Rand, j int) string {
	tc := typedCols[j]
	switch r.IntN(6) {
	case 0:
		return tc.name + " IS NULL"
	case 1:
		return tc.name + " IS NOT NULL"
	}
	cmp := []string{"=", "<>", "<", "<=", ">", ">="}[r.IntN(6)]
	return fmt.Sprintf("%s %s %s", tc.name, cmp, tc.lit(r.IntN(tc.domain)))
}

// genTypedQueries returns queries on the NULL-heavy typed columns: DISTINCT,
// COUNT(DISTINCT), UNION, GROUP BY and ORDER BY meet NULLs of every type.
func genTypedQueries(r *rand.Rand, n int) []diffQuery {
	var out []diffQuery
	for len(out) < n {
		j, k := r.IntN(len(typedCols)), r.IntN(len(typedCols))
		x, y := typedCols[j].name, typedCols[k].name
		w := typedCond(r, r.IntN(len(typedCols)))
		if r.IntN(2) == 0 {
			w = "(" + w + " OR " + typedCond(r, j) + ")"
		}
		dir := []string{"", " DESC"}[r.IntN(2)]
		var q diffQuery
		switch r.IntN(12) {
		case 0:
			q.sql = "SELECT DISTINCT " + x + " FROM t WHERE " + w
		case 1:
			q.sql = "SELECT " + x + ", COUNT(*), COUNT(" + x + ") FROM t WHERE " + w + " GROUP BY " + x
		case 2:
			q.sql = "SELECT COUNT(DISTINCT " + x + "), COUNT(" + x + "), COUNT(*) FROM t WHERE " + w
		case 3:
			q.sql = "SELECT " + x + " FROM t WHERE " + w + " UNION SELECT " + x + " FROM t WHERE " + typedCond(r, k)
		case 4:
			q.sql = "SELECT " + x + ", " + y + " FROM t WHERE " + w + " UNION ALL SELECT " + x + ", " + y + " FROM t WHERE " + typedCond(r, j)
		case 5:
			q.sql, q.ordered = fmt.Sprintf("SELECT __key, %s FROM t WHERE %s ORDER BY %s%s, __key LIMIT %d", x, w, x, dir, 1+r.IntN(40)), true
		case 6:
			q.sql, q.ordered = "SELECT "+x+", COUNT(*) FROM t GROUP BY "+x+" ORDER BY "+x+dir, true
		case 7:
			q.sql = "SELECT MIN(" + x + "), MAX(" + x + "), COUNT(" + x + ") FROM t WHERE " + w
		case 8:
			q.sql = "SELECT g, MIN(" + x + "), MAX(" + x + "), COUNT(DISTINCT " + x + ") FROM t WHERE " + w + " GROUP BY g"
		case 9:
			q.sql = "SELECT DISTINCT " + x + ", " + y + " FROM t WHERE " + w
		case 10:
			q.sql, q.ordered = "SELECT DISTINCT "+x+" FROM t ORDER BY "+x+dir, true
		default:
			if !typedCols[j].numeric {
				q.sql = "SELECT " + x + ", " + y + ", COUNT(*) FROM t WHERE " + w + " GROUP BY " + x + ", " + y
				break
			}
			q.sql = "SELECT SUM(" + x + "), AVG(" + x + "), SUM(DISTINCT " + x + ") FROM t WHERE " + w
		}
		out = append(out, q)
	}
	return out
}

// norm prints a value the same way for both engines.
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return strconv.FormatBool(x)
	case string:
		if _, err := strconv.ParseInt(x, 10, 64); err == nil && x != "" {
			return x // integers from the reference arrive as strings
		}
		return "'" + x + "'"
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float32:
		return normFloat(float64(x))
	case float64:
		return normFloat(x)
	case time.Time: // DATE and the timestamps (UTC)
		return "'" + x.UTC().Format("2006-01-02 15:04:05.999999") + "'"
	case time.Duration: // TIME
		return "'" + time.Unix(0, int64(x)).UTC().Format("15:04:05.999999") + "'"
	}
	return fmt.Sprint(v)
}

func normFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 9, 64)
}

func TestDifferentialDuckDB(t *testing.T) {
	c, ctx := start(t)
	r := rand.New(rand.NewPCG(20261121, 5))
	rows := genRows(r, 1000)
	cols := []string{"__key INT", "a INT", "b BIGINT", "c DOUBLE", "s VARCHAR", "g INT"}
	refCols := slices.Clone(tColumns)
	for _, tc := range typedCols {
		cols = append(cols, tc.name+" "+tc.typ)
		refCols = append(refCols, [2]string{tc.name, tc.duck})
	}
	mustExec(t, ctx, c, `CREATE MAPPING t (`+strings.Join(cols, ", ")+`)
		TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='diff_row')`)
	// Load through INSERT (which writes Compact values following the
	// mapping), in batches.
	dir := t.TempDir()
	var csvBuf bytes.Buffer
	cw := csv.NewWriter(&csvBuf)
	header := make([]string, len(refCols))
	for i, rc := range refCols {
		header[i] = rc[0]
	}
	_ = cw.Write(header)
	for start := 0; start < len(rows); start += 200 {
		var vals []string
		for _, row := range rows[start:min(start+200, len(rows))] {
			a, c2, s := "NULL", "NULL", "NULL"
			ca, cc, cs := `\N`, `\N`, `\N`
			if row.a != nil {
				a, ca = strconv.Itoa(int(*row.a)), strconv.Itoa(int(*row.a))
			}
			if row.c != nil {
				c2, cc = strconv.FormatFloat(*row.c, 'g', -1, 64), strconv.FormatFloat(*row.c, 'g', -1, 64)
			}
			if row.s != nil {
				s, cs = "'"+*row.s+"'", *row.s
			}
			lits := []string{strconv.Itoa(int(row.key)), a, strconv.FormatInt(row.b, 10), c2, s, strconv.Itoa(int(row.g))}
			rec := []string{strconv.Itoa(int(row.key)), ca, strconv.FormatInt(row.b, 10), cc, cs, strconv.Itoa(int(row.g))}
			for j, tc := range typedCols {
				if v := row.typed[j]; v < 0 {
					lits, rec = append(lits, "NULL"), append(rec, `\N`)
				} else {
					lits, rec = append(lits, tc.lit(v)), append(rec, tc.csv(v))
				}
			}
			vals = append(vals, "("+strings.Join(lits, ", ")+")")
			_ = cw.Write(rec)
		}
		mustExec(t, ctx, c, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	cw.Flush()
	dataPath := filepath.Join(dir, "t.csv")
	require.NoError(t, os.WriteFile(dataPath, csvBuf.Bytes(), 0o644))
	require.Equal(t, []string{"1000"}, queryRows(t, ctx, c, "SELECT COUNT(*) FROM t"), "rows loaded")
	queries := append(genQueries(r, 300), genTypedQueries(r, 300)...)
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.sql
	}
	ref := duckdbReference(t, dir, []refTable{{name: "t", csv: dataPath, columns: refCols}}, texts)
	nonEmpty := 0
	for i, q := range queries {
		if !assert.Empty(t, ref[i].Error, "query %d rejected by the reference:\n%s", i, q.sql) {
			continue
		}
		want := refRows(ref[i])
		got, err := atollRows(ctx, c, q.sql)
		if !assert.NoError(t, err, "query %d:\n%s", i, q.sql) {
			continue
		}
		if !q.ordered {
			want, got = sorted(want), sorted(got)
		}
		assert.Equal(t, want, got, "query %d: DuckDB's rows (expected) and Atoll's (actual)\n%s", i, q.sql)
		if len(want) > 0 {
			nonEmpty++
		}
		if testing.Verbose() && i < 4 {
			t.Logf("%s\n  duckdb %v\n  atoll  %v", q.sql, head(want), head(got))
		}
	}
	t.Logf("%d queries compared with DuckDB, %d with rows", len(queries), nonEmpty)
}

// tColumns are the columns of table t, in the reference's types.
var tColumns = [][2]string{{"__key", "INTEGER"}, {"a", "INTEGER"}, {"b", "BIGINT"}, {"c", "DOUBLE"}, {"s", "VARCHAR"}, {"g", "INTEGER"}}

// refTable is a table the reference engine loads from a CSV file.
type refTable struct {
	name, csv string
	columns   [][2]string // name and DuckDB type, in the file's order
}

// refResult is the reference's answer to one query.
type refResult struct {
	Rows  [][]any `json:"rows"`
	Error string  `json:"error"`
}

// duckdbReference runs queries in DuckDB over the tables.
func duckdbReference(t *testing.T, dir string, tables []refTable, queries []string) []refResult {
	t.Helper()
	if os.Getenv("ATOLL_SKIP_DUCKDB") != "" {
		testcluster.Missing(t, "the DuckDB reference engine (ATOLL_SKIP_DUCKDB is set)")
	}
	if err := exec.Command("python3", "-c", "import duckdb").Run(); err != nil {
		testcluster.Missing(t, fmt.Sprintf("the reference engine needs python3 with duckdb (scripts/install-deps.sh installs it): %v", err))
	}
	type tableSpec struct {
		Name    string          `json:"name"`
		CSV     string          `json:"csv"`
		Columns json.RawMessage `json:"columns"`
	}
	var spec struct {
		Tables  []tableSpec `json:"tables"`
		Queries []string    `json:"queries"`
	}
	for _, tb := range tables {
		// An object whose keys keep the file's column order.
		var b strings.Builder
		b.WriteString("{")
		for i, c := range tb.columns {
			if i > 0 {
				b.WriteString(",")
			}
			k, _ := json.Marshal(c[0])
			v, _ := json.Marshal(c[1])
			b.Write(k)
			b.WriteString(":")
			b.Write(v)
		}
		b.WriteString("}")
		spec.Tables = append(spec.Tables, tableSpec{Name: tb.name, CSV: tb.csv, Columns: json.RawMessage(b.String())})
	}
	spec.Queries = queries
	sb, _ := json.Marshal(spec)
	specPath := filepath.Join(dir, "spec.json")
	require.NoError(t, os.WriteFile(specPath, sb, 0o644))
	out, err := exec.Command("python3", filepath.Join("testdata", "duckdb_ref.py"), specPath).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		require.NoError(t, err, "duckdb reference:\n%s", stderr)
	}
	var ref []refResult
	require.NoError(t, json.Unmarshal(out, &ref))
	require.Len(t, ref, len(queries), "the reference's answers")
	return ref
}

// refRows prints a reference result's rows as atollRows prints Atoll's.
func refRows(r refResult) []string {
	want := make([]string, len(r.Rows))
	for j, row := range r.Rows {
		parts := make([]string, len(row))
		for k, v := range row {
			parts[k] = norm(v)
		}
		want[j] = strings.Join(parts, "|")
	}
	return want
}

func atollRows(ctx context.Context, c *client.Client, stmt string) ([]string, error) {
	rows, err := c.SQL(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for k, v := range vals {
			parts[k] = norm(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, rows.Err()
}
