package sql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/plan"
)

// TestTouches: the maps each kind of statement reaches, and how, through
// mappings (a_json_flat reads the map a_json), joins, subqueries, DML,
// DDL and EXPLAIN: what the member's permission check asks of a role.
func TestTouches(t *testing.T) {
	p := NewPlanner(testCatalog(t), nil)
	r := func(m string) plan.Touch { return plan.Touch{Map: m, Kind: plan.TouchRead} }
	for _, c := range []struct {
		sql  string
		want []plan.Touch
	}{
		{`SELECT * FROM a_ids`, []plan.Touch{r("a_ids")}},
		{`SELECT COUNT(*) FROM a_json_flat`, []plan.Touch{r("a_json")}},
		{`SELECT a.__key FROM a_ids a JOIN b_compact_small b ON a.__key = b.__key`, []plan.Touch{r("a_ids"), r("b_compact_small")}},
		{`SELECT __key FROM a_ids WHERE __key IN (SELECT __key FROM a_portable)`, []plan.Touch{r("a_ids"), r("a_portable")}},
		{`SELECT * FROM a_ids UNION ALL SELECT * FROM a_ids_idx`, []plan.Touch{r("a_ids"), r("a_ids_idx")}},
		{`INSERT INTO a_ids VALUES (1, 2)`, []plan.Touch{{Map: "a_ids", Kind: plan.TouchWrite}}},
		{`SINK INTO a_ids SELECT __key, "value" FROM a_portable`, []plan.Touch{{Map: "a_ids", Kind: plan.TouchWrite}, r("a_portable")}},
		{`UPDATE a_ids SET "value" = 3 WHERE __key = 1`, []plan.Touch{{Map: "a_ids", Kind: plan.TouchWrite}, r("a_ids")}},
		{`DELETE FROM a_json_flat WHERE __key = 1`, []plan.Touch{{Map: "a_json", Kind: plan.TouchRemove}, r("a_json")}},
		{`CREATE MAPPING m2 EXTERNAL NAME orders TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json')`, []plan.Touch{{Map: "orders", Kind: plan.TouchCreate}}},
		{`DROP MAPPING IF EXISTS a_json_flat`, []plan.Touch{{Map: "a_json_flat", Kind: plan.TouchDropMapping}}},
		{`CREATE INDEX IF NOT EXISTS i ON a_ids ("value")`, []plan.Touch{{Map: "a_ids", Kind: plan.TouchIndex}}},
		{`EXPLAIN SELECT * FROM a_portable`, []plan.Touch{r("a_portable")}},
		{`SELECT * FROM TABLE(exchange_stats())`, []plan.Touch{{Kind: plan.TouchMembers}}},
		{`SHOW MAPPINGS`, nil},
		{`SELECT 1`, nil},
	} {
		ph, err := p.Plan(context.Background(), c.sql, nil)
		require.NoError(t, err, c.sql)
		assert.Equal(t, c.want, plan.Touches(ph.Root), c.sql)
	}
}
