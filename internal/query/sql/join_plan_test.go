package sql

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/plan"
)

var update = flag.Bool("update", false, "rewrite the golden EXPLAIN files of testdata/")

// sizes are fixed entry counts: the planner's estimates.
type sizes map[string]int64

func (s sizes) EntryCount(m string) int64 {
	if n, ok := s[m]; ok {
		return n
	}
	return -1
}

func joinCatalog(t *testing.T) *plan.MemCatalog {
	t.Helper()
	cat := &plan.MemCatalog{M: map[string]*plan.Mapping{}, I: map[string][]plan.IndexInfo{}}
	p := NewPlanner(cat, nil)
	for _, ddl := range []string{
		`CREATE MAPPING customer (c_custkey BIGINT EXTERNAL NAME "__key", c_name VARCHAR, c_nationkey BIGINT, c_comment VARCHAR)
			TYPE IMap OPTIONS ('keyFormat'='bigint', 'valueFormat'='compact', 'valueCompactTypeName'='tpch.customer')`,
		`CREATE MAPPING orders (o_orderkey BIGINT EXTERNAL NAME "__key", o_custkey BIGINT, o_totalprice DOUBLE, o_comment VARCHAR)
			TYPE IMap OPTIONS ('keyFormat'='bigint', 'valueFormat'='compact', 'valueCompactTypeName'='tpch.orders')`,
		`CREATE MAPPING nation (n_nationkey BIGINT EXTERNAL NAME "__key", n_name VARCHAR, n_regionkey BIGINT)
			TYPE IMap OPTIONS ('keyFormat'='bigint', 'valueFormat'='compact', 'valueCompactTypeName'='tpch.nation')`,
		`CREATE MAPPING lineitem (__key VARCHAR, l_orderkey BIGINT, l_quantity BIGINT)
			TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='compact', 'valueCompactTypeName'='tpch.lineitem')`,
	} {
		ph, err := p.Plan(context.Background(), ddl, nil)
		require.NoError(t, err, "%s", ddl)
		m := ph.Root.(*plan.CreateMapping).Mapping
		cat.M[m.Name] = m
	}
	return cat
}

// TestJoinPlans compares the EXPLAIN of join statements with golden files
// (go test -run TestJoinPlans -update rewrites them): each strategy, the
// build side chosen by size, the exchanges, and where filters land.
func TestJoinPlans(t *testing.T) {
	cat := joinCatalog(t)
	p := NewPlanner(cat, nil)
	p.Options = plan.Options{Stats: sizes{"customer": 150000, "orders": 1500000, "nation": 25, "lineitem": 6000000}}
	cases := []struct{ name, sql string }{
		{"q13_repartition", `SELECT c_count, COUNT(*) AS custdist FROM (SELECT c_custkey, COUNT(o_orderkey) FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%' GROUP BY c_custkey) AS c_orders (c_custkey, c_count) GROUP BY c_count ORDER BY custdist DESC, c_count DESC`},
		{"broadcast_small_build", `SELECT c_name, n_name FROM customer JOIN nation ON c_nationkey = n_nationkey WHERE n_regionkey = 2`},
		{"colocated_keys", `SELECT a.c_custkey, b.c_name FROM customer a JOIN customer b ON a.c_custkey = b.c_custkey WHERE a.c_nationkey = 3`},
		{"repartition_both_sides", `SELECT COUNT(*) FROM orders JOIN lineitem ON o_totalprice = l_quantity`},
		{"repartition_directed_varchar_key", `SELECT l_quantity, o_totalprice FROM lineitem JOIN orders ON l_orderkey = o_orderkey`},
		{"forced_broadcast", `SELECT /*+ JOIN_STRATEGY(broadcast) */ c_name, o_totalprice FROM customer JOIN orders ON c_custkey = o_custkey`},
		{"forced_repartition", `SELECT /*+ JOIN_STRATEGY(repartition) */ c_name, n_name FROM customer JOIN nation ON c_nationkey = n_nationkey`},
		{"forced_coordinator", `SELECT /*+ JOIN_STRATEGY(coordinator) */ c_name, n_name FROM customer JOIN nation ON c_nationkey = n_nationkey`},
		{"nested_loop", `SELECT c_name, n_name FROM customer JOIN nation ON c_nationkey < n_nationkey`},
		{"three_way", `SELECT n_name, SUM(o_totalprice) FROM orders JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey GROUP BY n_name`},
		{"semi_exists", `SELECT c_name FROM customer WHERE EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey AND o_totalprice > 1000)`},
		{"anti_not_in", `SELECT c_name FROM customer WHERE c_nationkey NOT IN (SELECT n_nationkey FROM nation WHERE n_regionkey = 1)`},
		{"left_join_where_stays_above", `SELECT c_name, o_totalprice FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND c_nationkey = 1 WHERE o_totalprice > 10 OR o_totalprice IS NULL`},
		{"coordinator_input", `SELECT x.o_custkey, x.total, c_name FROM (SELECT o_custkey, SUM(o_totalprice) AS total FROM orders GROUP BY o_custkey) x JOIN customer ON x.o_custkey = c_custkey`},
	}
	for _, c := range cases {
		ph, err := p.Plan(context.Background(), c.sql, nil)
		if !assert.NoError(t, err, c.name) {
			continue
		}
		got := c.sql + "\n\n" + plan.ExplainText(ph) + "\n"
		path := filepath.Join("testdata", "joins", c.name+".txt")
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "%s (go test -run TestJoinPlans -update writes it)", c.name)
		assert.Equal(t, string(want), got, "%s: EXPLAIN differs from %s", c.name, path)
		// Every fragment survives its wire form (the bounds of every column
		// reference are checked there).
		checkWire(t, c.name, ph.Root)
	}
}

func checkWire(t *testing.T, name string, n plan.Node) {
	if g, ok := n.(*plan.Gather); ok {
		b, err := plan.MarshalFragment(g.Frag)
		if err == nil {
			_, err = plan.UnmarshalFragment(b, nil, nil)
		}
		assert.NoError(t, err, "%s: a fragment does not survive its wire form", name)
	}
	for _, in := range n.Inputs() {
		checkWire(t, name, in)
	}
}

var _ = strings.TrimSpace
