package querytest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// twin is one query expressed both ways. pred runs the Predicate API call
// and returns its rows; explain returns the predicate's plan.
type twin struct {
	name    string
	sql     string
	params  []any
	pred    func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) ([]string, error)
	explain func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) (string, error)
	ordered bool // rows must come in the same order
	noPlan  bool // the plans differ by design (see comment)
}

func entries(p predicate.Predicate) func(context.Context, *client.Map[int32, *benchmodel.Small]) ([]string, error) {
	return func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) ([]string, error) {
		es, err := m.EntrySetWithPredicate(ctx, p)
		out := []string{}
		for _, e := range es {
			out = append(out, show(e.Key, e.Value))
		}
		return out, err
	}
}

func explainEntries(p predicate.Predicate) func(context.Context, *client.Map[int32, *benchmodel.Small]) (string, error) {
	return func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) (string, error) {
		return m.Explain(ctx, p)
	}
}

func agg(a predicate.Aggregator, p ...predicate.Predicate) func(context.Context, *client.Map[int32, *benchmodel.Small]) ([]string, error) {
	return func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) ([]string, error) {
		v, err := m.Aggregate(ctx, a, p...)
		return []string{show(v)}, err
	}
}

func explainAgg(a predicate.Aggregator, p predicate.Predicate) func(context.Context, *client.Map[int32, *benchmodel.Small]) (string, error) {
	return func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) (string, error) {
		return m.Explain(ctx, p, client.ExplainAggregate(a))
	}
}

func TestSQLAndPredicateTwins(t *testing.T) {
	c, ctx := start(t)
	const n = 600
	m := client.GetMap[int32, *benchmodel.Small](c, "people")
	var batch []client.Entry[int32, *benchmodel.Small]
	for k := int32(0); k < n; k++ {
		s := benchmodel.SmallForKey(k)
		s.IntField = k % 50
		s.LongField = int64(k) * 7
		s.DoubleField = float64(k%13) / 4
		batch = append(batch, client.Entry[int32, *benchmodel.Small]{Key: k, Value: &s})
	}
	require.NoError(t, m.PutAll(ctx, batch))
	mustExec(t, ctx, c, `CREATE MAPPING people (__key INT, intField INT, longField BIGINT, doubleField DOUBLE, stringField VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')`)

	eq := predicate.Equal("intField", int32(7))
	gt := predicate.GreaterThan("longField", int64(3000))
	between := predicate.Between("longField", int64(700), int64(1400))
	in := predicate.In("intField", int32(1), int32(2), int32(3))
	like := predicate.Like("stringField", "a%")
	and := predicate.And(predicate.GreaterThan("intField", int32(10)), predicate.LessEqual("doubleField", 1.5))
	or := predicate.Or(predicate.LessThan("intField", int32(2)), predicate.GreaterEqual("longField", int64(4100)))
	cases := []twin{
		{name: "equal", sql: `SELECT __key, this FROM people WHERE intField = ?`, params: []any{int32(7)}, pred: entries(eq), explain: explainEntries(eq)},
		{name: "greater", sql: `SELECT __key, this FROM people WHERE longField > ?`, params: []any{int64(3000)}, pred: entries(gt), explain: explainEntries(gt)},
		{name: "between", sql: `SELECT __key, this FROM people WHERE longField BETWEEN ? AND ?`, params: []any{int64(700), int64(1400)}, pred: entries(between), explain: explainEntries(between)},
		{name: "in", sql: `SELECT __key, this FROM people WHERE intField IN (?, ?, ?)`, params: []any{int32(1), int32(2), int32(3)}, pred: entries(in), explain: explainEntries(in)},
		{name: "like", sql: `SELECT __key, this FROM people WHERE stringField LIKE 'a%'`, pred: entries(like), explain: explainEntries(like)},
		{name: "and", sql: `SELECT __key, this FROM people WHERE intField > ? AND doubleField <= ?`, params: []any{int32(10), 1.5}, pred: entries(and), explain: explainEntries(and)},
		{name: "or", sql: `SELECT __key, this FROM people WHERE intField < ? OR longField >= ?`, params: []any{int32(2), int64(4100)}, pred: entries(or), explain: explainEntries(or)},
		{name: "sql predicate", sql: `SELECT __key, this FROM people WHERE intField > ? AND stringField LIKE 'b%'`, params: []any{int64(5)},
			pred: entries(predicate.SQL("intField > 5 AND stringField LIKE 'b%'")), explain: explainEntries(predicate.SQL("intField > 5 AND stringField LIKE 'b%'"))},
		{name: "keys", sql: `SELECT __key FROM people WHERE intField = ?`, params: []any{int32(7)},
			pred: func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) ([]string, error) {
				ks, err := m.KeySetWithPredicate(ctx, eq)
				var out []string
				for _, k := range ks {
					out = append(out, show(k))
				}
				return out, err
			},
			explain: func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) (string, error) {
				return m.Explain(ctx, eq, client.ExplainKeys())
			}},
		{name: "values", sql: `SELECT this FROM people WHERE intField = ?`, params: []any{int32(7)},
			pred: func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) ([]string, error) {
				vs, err := m.ValuesWithPredicate(ctx, eq)
				var out []string
				for _, v := range vs {
					out = append(out, show(v))
				}
				return out, err
			},
			explain: func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) (string, error) {
				return m.Explain(ctx, eq, client.ExplainValues())
			}},
		{name: "count", sql: `SELECT COUNT(*) FROM people`, pred: agg(predicate.Count()), explain: explainAgg(predicate.Count(), nil)},
		{name: "count where", sql: `SELECT COUNT(*) FROM people WHERE longField > ?`, params: []any{int64(3000)}, pred: agg(predicate.Count(), gt), explain: explainAgg(predicate.Count(), gt)},
		{name: "long sum", sql: `SELECT SUM(longField) FROM people`, pred: agg(predicate.LongSum("longField")), explain: explainAgg(predicate.LongSum("longField"), nil)},
		{name: "integer sum where", sql: `SELECT SUM(intField) FROM people WHERE intField IN (?, ?, ?)`, params: []any{int32(1), int32(2), int32(3)},
			pred: agg(predicate.IntegerSum("intField"), in), explain: explainAgg(predicate.IntegerSum("intField"), in)},
		{name: "double avg", sql: `SELECT AVG(doubleField) FROM people`, pred: agg(predicate.DoubleAvg("doubleField")), explain: explainAgg(predicate.DoubleAvg("doubleField"), nil)},
		{name: "min", sql: `SELECT MIN(longField) FROM people WHERE intField = ?`, params: []any{int32(7)}, pred: agg(predicate.Min("longField"), eq), explain: explainAgg(predicate.Min("longField"), eq)},
		{name: "max", sql: `SELECT MAX(stringField) FROM people`, pred: agg(predicate.Max("stringField")), explain: explainAgg(predicate.Max("stringField"), nil)},
		{name: "project", sql: `SELECT longField FROM people WHERE intField = ?`, params: []any{int32(7)},
			pred: func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) ([]string, error) {
				vs, err := m.Project(ctx, predicate.SingleAttribute("longField"), eq)
				var out []string
				for _, v := range vs {
					out = append(out, show(v))
				}
				return out, err
			},
			explain: func(ctx context.Context, m *client.Map[int32, *benchmodel.Small]) (string, error) {
				return m.Explain(ctx, eq, client.ExplainProject(predicate.SingleAttribute("longField")))
			}},
		// The predicate's NOT is two-valued (NOT (p IS TRUE)); the SQL twin
		// says so explicitly.
		{name: "not", sql: `SELECT __key, this FROM people WHERE NOT ((intField = ?) IS TRUE)`, params: []any{int32(7)},
			pred: entries(predicate.Not(eq)), explain: explainEntries(predicate.Not(eq))},
		// Paging sorts by a hidden column on the predicate side; same rows,
		// plans differ in that column.
		{name: "paging", sql: `SELECT __key, this FROM people WHERE longField > ? ORDER BY longField LIMIT ? OFFSET ?`, params: []any{int64(3000), int64(10), int64(20)},
			pred: entries(predicate.Paging(gt, 10, predicate.SortKey{Attribute: "longField"}).SetPage(2)), ordered: true, noPlan: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := queryRows(t, ctx, c, tc.sql, tc.params...)
			got, err := tc.pred(ctx, m)
			require.NoError(t, err)
			if !tc.ordered {
				want, got = sorted(want), sorted(got)
			}
			require.Equal(t, want, got, "rows of SQL (expected) and PRED (actual)")
			require.NotEmpty(t, want, "rows: the case tests nothing without")
			if tc.noPlan {
				return
			}
			sqlPlan, err := c.ExplainSQL(ctx, tc.sql, tc.params...)
			require.NoError(t, err)
			predPlan, err := tc.explain(ctx, m)
			require.NoError(t, err)
			require.Equal(t, sqlPlan, predPlan, "plans of SQL (expected) and PRED (actual)")
		})
	}
}

func head(s []string) string {
	if len(s) > 5 {
		return fmt.Sprint(s[:5], "...")
	}
	return fmt.Sprint(s)
}
