package sql

import (
	"context"
	"testing"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// FuzzPlan feeds arbitrary statements to the SQL front end: it must return
// a plan or an error, never panic, and a plan must print.
func FuzzPlan(f *testing.F) {
	for _, s := range []string{
		`SELECT __key, this FROM a_ids WHERE "value" = ?`,
		`SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json`,
		`SELECT * FROM b_compact_small WHERE stringField = 'metin'`,
		`SELECT intField % 10 AS g, COUNT(*), MAX(doubleField) FROM b_compact_small WHERE longField > 5 GROUP BY 1 HAVING COUNT(*) > 1 ORDER BY g LIMIT 3`,
		`SELECT CAST("value" AS VARCHAR) || 'x', CASE WHEN __key > 1 THEN 1 ELSE 2 END FROM a_ids UNION ALL SELECT 'a', 3`,
		`CREATE OR REPLACE MAPPING m (__key INT, "v" BIGINT EXTERNAL NAME "this.v") TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`,
		`DROP MAPPING IF EXISTS m`, `SHOW MAPPINGS`, `CREATE INDEX i ON a_ids ("value") TYPE HASH`,
		`INSERT INTO b_compact_small VALUES (1, 2, 3, 4.5, 'x')`, `SINK INTO b_compact_small (__key, intField) VALUES (?, ?)`,
		`UPDATE b_compact_small SET intField = intField + 1 WHERE __key = 3`, `DELETE FROM a_ids WHERE "value" < 0`,
		`EXPLAIN SELECT COUNT(*) FROM a_ids`, `SELECT a FROM (SELECT __key AS a FROM a_ids) s WHERE a > 1`,
		`SELECT a.__key, b."value" FROM a_ids a LEFT JOIN a_ids_idx b ON a.__key = b."value" AND b.__key > 3 WHERE a."value" IS NULL`,
		`SELECT /*+ JOIN_STRATEGY(broadcast) VECTOR_SIZE(10) */ x.k, COUNT(*) FROM (SELECT __key FROM a_ids) AS x (k) RIGHT JOIN b_compact_small USING (__key) GROUP BY x.k`,
		`SELECT * FROM a_ids, b_compact_small WHERE a_ids.__key = intField AND EXISTS (SELECT 1 FROM a_portable p WHERE p.__key = a_ids.__key)`,
		`SELECT __key FROM a_ids WHERE "value" NOT IN (SELECT longField FROM b_compact_small WHERE intField = a_ids.__key)`,
		`SELECT * FROM TABLE(exchange_stats(clear => TRUE)) CROSS JOIN a_ids NATURAL JOIN a_ids_idx`,
		`SELECT "unterminated FROM x`, `SELECT 1 /* open`, `SELECT ((((((1))))))`, "SELECT '\x00\xff'",
	} {
		f.Add(s)
	}
	p := NewPlanner(testCatalog(f), nil)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		ph, err := p.Plan(context.Background(), s, []expr.Type{expr.BigInt, expr.Varchar})
		if err != nil {
			return
		}
		_ = plan.ExplainText(ph)
	})
}
