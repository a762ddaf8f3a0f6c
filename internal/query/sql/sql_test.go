package sql

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// testCatalog holds the workload mappings.
func testCatalog(t testing.TB) *plan.MemCatalog {
	t.Helper()
	cat := &plan.MemCatalog{M: map[string]*plan.Mapping{}, I: map[string][]plan.IndexInfo{}}
	p := NewPlanner(cat, nil)
	for _, ddl := range []string{
		`CREATE OR REPLACE MAPPING a_ids (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='hzb.model.Ids$ADoc')`,
		`CREATE OR REPLACE MAPPING a_ids_idx (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='hzb.model.Ids$ADoc')`,
		`CREATE OR REPLACE MAPPING a_portable (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='3')`,
		`CREATE OR REPLACE MAPPING a_json TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json')`,
		`CREATE OR REPLACE MAPPING a_json_flat EXTERNAL NAME a_json (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`,
		`CREATE OR REPLACE MAPPING b_compact_small (__key INT, intField INT, longField BIGINT, doubleField DOUBLE, stringField VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')`,
	} {
		ph, err := p.Plan(context.Background(), ddl, nil)
		require.NoError(t, err, "%s", ddl)
		m := ph.Root.(*plan.CreateMapping).Mapping
		cat.M[m.Name] = m
	}
	cat.I["a_ids_idx"] = []plan.IndexInfo{{Name: "a_ids_idx_value", Map: "a_ids_idx", Type: plan.IndexSorted, Attribute: "value"}}
	return cat
}

func TestPlans(t *testing.T) {
	p := NewPlanner(testCatalog(t), nil)
	for _, c := range []struct{ sql, plan string }{
		{`SELECT __key, this FROM a_ids`, "Exchange[all members]\n  Project[__key, this]\n    Scan[a_ids]"},
		{`SELECT COUNT(*) FROM a_ids`, "MergeAggregate[COUNT(*)]\n  Exchange[all members]\n    EntryCount[a_ids]"},
		{`SELECT SUM("value") FROM a_ids`, "MergeAggregate[SUM(value)]\n  Exchange[all members]\n    PartialAggregate[SUM(value)]\n      Scan[a_ids]"},
		{`SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json`, "MergeAggregate[SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER))]\n  Exchange[all members]\n    PartialAggregate[SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER))]\n      Scan[a_json]"},
		{`SELECT __key, this FROM a_ids WHERE "value" = ?`, "Exchange[all members]\n  Project[__key, this]\n    Filter[value = ?1]\n      Scan[a_ids]"},
		{`SELECT __key, this FROM a_ids_idx WHERE "value" = ?`, "Exchange[all members]\n  Project[__key, this]\n    Filter[value = ?1]\n      IndexScan[a_ids_idx, index=a_ids_idx_value SORTED, lookup=value = ?1]"},
		{`SELECT * FROM b_compact_small WHERE stringField = 'metin'`, "Exchange[all members]\n  Project[__key, intField, longField, doubleField, stringField]\n    Filter[stringField = 'metin']\n      Scan[b_compact_small]"},
		{`select intField % 10 as g, count(*), max(doubleField) from b_compact_small where longField > 5 group by 1 having count(*) > 1 order by g limit 3`, ""},
		{`select stringField from b_compact_small order by longField desc limit 5`, ""},
	} {
		ph, err := p.Plan(context.Background(), c.sql, nil)
		if !assert.NoError(t, err, c.sql) {
			continue
		}
		got := plan.ExplainText(ph)
		if c.plan != "" {
			assert.Equal(t, c.plan, got, c.sql)
		} else {
			t.Logf("%s:\n%s", c.sql, got)
		}
	}
}

func TestErrors(t *testing.T) {
	p := NewPlanner(testCatalog(t), nil)
	for _, c := range []struct{ sql, msg string }{
		{"SELEC 1", "line 1, column 1: syntax error near 'SELEC'"},
		{"SELECT * FROM nothing", "line 1, column 15: mapping nothing does not exist"},
		{"SELECT nope FROM a_ids", "line 1, column 8: column nope does not exist"},
		{"SELECT *\nFROM a_ids WHERE \"value\" = 'x'", "cannot apply '=' to BIGINT and VARCHAR"},
		{"SELECT __key FROM a_ids a JOIN a_ids b ON a.__key = b.__key", "column __key is ambiguous"},
		{"SELECT * FROM a_ids a JOIN a_ids b ON a.__key = c.__key", "column c.__key does not exist"},
		{"SELECT * FROM a_ids a LEFT JOIN a_ids b", "syntax error at the end"},
		{"SELECT * FROM a_ids a JOIN a_ids b USING (nope)", "USING column nope is not in the left table"},
		{"SELECT * FROM a_ids WHERE __key IN (SELECT __key, this FROM a_ids)", "must return one column"},
		{"SELECT * FROM a_ids WHERE __key = 1 OR EXISTS (SELECT 1 FROM a_ids)", "EXISTS and IN (subquery) are supported as conditions ANDed in WHERE"},
		{"SELECT /*+ JOIN_STRATEGY(sideways) */ * FROM a_ids", "JOIN_STRATEGY takes"},
		{"SELECT /*+ SPEED(11) */ * FROM a_ids", "unknown hint SPEED"},
		{"SELECT * FROM TABLE(exchange_stats(maybe))", "exchange_stats takes TRUE or FALSE"},
		{"SELECT * FROM TABLE(nothing())", "unknown table function nothing"},
		{"SELECT * FROM a_ids a FULL OUTER JOIN a_ids b ON a.__key = b.__key", "line 1, column 23: FULL OUTER JOIN is not supported"},
		{"SELECT * FROM a_ids WHERE", "syntax error at the end"},
		{"SELECT frob(1) FROM a_ids", "unknown function FROB"},
		{"SELECT " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nest deeper than 200"},
		{"SELECT 1 FROM a_ids WHERE " + strings.Repeat("__key = 1 AND ", 30000) + "TRUE", "more than 100000 tokens"},
	} {
		_, err := p.Plan(context.Background(), c.sql, nil)
		assert.ErrorIs(t, err, plan.ErrQuery, c.sql)
		assert.ErrorContains(t, err, c.msg, c.sql)
	}
}

var _ = expr.Unknown
