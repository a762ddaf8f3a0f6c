package querytest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// TestNullsOfEveryType checks SQL's NULL rules for a column of every type,
// in json-flat and Compact values: DISTINCT and UNION keep one NULL, GROUP
// BY makes one NULL group, COUNT and COUNT(DISTINCT) skip NULLs, MIN and
// MAX ignore them, and ORDER BY puts NULLs first in ascending and last in
// descending order, as Hazelcast does. The Predicate API's distinct
// aggregator keeps the NULL too.
func TestNullsOfEveryType(t *testing.T) {
	c, ctx := start(t)
	types := []struct{ typ, lo, hi, loOut, hiOut string }{
		{"BOOLEAN", "FALSE", "TRUE", "false", "true"},
		{"TINYINT", "-3", "7", "-3", "7"},
		{"SMALLINT", "-300", "700", "-300", "700"},
		{"INT", "-30000", "70000", "-30000", "70000"},
		{"BIGINT", "-3000000000", "7000000000", "-3000000000", "7000000000"},
		{"REAL", "-1.5", "2.5", "-1.5", "2.5"},
		{"DOUBLE", "-1.25", "2.75", "-1.25", "2.75"},
		{"DECIMAL", "-0.5", "3.5", "-0.5", "3.5"},
		{"VARCHAR", "'apple'", "'pear'", "'apple'", "'pear'"},
		{"DATE", "DATE '2020-02-29'", "DATE '2024-12-31'", "'2020-02-29 00:00:00'", "'2024-12-31 00:00:00'"},
		{"TIME", "TIME '08:15:00'", "TIME '23:59:59.5'", "'08:15:00'", "'23:59:59.5'"},
		{"TIMESTAMP", "TIMESTAMP '2020-01-01 10:00:00'", "TIMESTAMP '2021-01-01 00:00:00.25'", "'2020-01-01 10:00:00'", "'2021-01-01 00:00:00.25'"},
		{"TIMESTAMP WITH TIME ZONE", "TIMESTAMP '2020-01-01 10:00:00'", "TIMESTAMP '2022-03-04 05:06:07'", "'2020-01-01 10:00:00'", "'2022-03-04 05:06:07'"},
	}
	for _, format := range []string{"json-flat", "compact"} {
		for i, ty := range types {
			name := fmt.Sprintf("nulls_%s_%d", strings.ReplaceAll(format, "-", "_"), i)
			t.Run(format+"/"+ty.typ, func(t *testing.T) {
				mustExec(t, ctx, c,
					`CREATE MAPPING `+name+` (__key INT, x `+ty.typ+`) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='`+format+`', 'valueCompactTypeName'='`+name+`')`,
					fmt.Sprintf(`INSERT INTO %s VALUES (1, %s), (2, NULL), (3, %s), (4, NULL), (5, %s), (6, NULL)`, name, ty.hi, ty.lo, ty.hi))
				lo, hi := ty.loOut, ty.hiOut
				for _, tc := range []struct {
					sql     string
					want    []string
					ordered bool
				}{
					{"SELECT DISTINCT x FROM %s", []string{"NULL", lo, hi}, false},
					{"SELECT x, COUNT(*), COUNT(x) FROM %s GROUP BY x", []string{"NULL|3|0", lo + "|1|1", hi + "|2|2"}, false},
					{"SELECT COUNT(DISTINCT x), COUNT(x), COUNT(*) FROM %[1]s", []string{"2|3|6"}, false},
					{"SELECT x FROM %[1]s UNION SELECT x FROM %[1]s WHERE x IS NULL", []string{"NULL", lo, hi}, false},
					{"SELECT x FROM %[1]s WHERE __key < 3 UNION ALL SELECT x FROM %[1]s WHERE __key > 4", []string{"NULL", "NULL", hi, hi}, false},
					{"SELECT x FROM %s ORDER BY x, __key", []string{"NULL", "NULL", "NULL", lo, hi, hi}, true},
					{"SELECT x FROM %s ORDER BY x DESC, __key", []string{hi, hi, lo, "NULL", "NULL", "NULL"}, true},
					{"SELECT DISTINCT x FROM %s ORDER BY x DESC", []string{hi, lo, "NULL"}, true},
					{"SELECT MIN(x), MAX(x) FROM %s", []string{lo + "|" + hi}, false},
				} {
					got, err := atollRows(ctx, c, fmt.Sprintf(tc.sql, name))
					if !assert.NoError(t, err, tc.sql) {
						continue
					}
					want := tc.want
					if !tc.ordered {
						got, want = sorted(got), sorted(want)
					}
					assert.Equal(t, want, got, fmt.Sprintf(tc.sql, name))
				}
				d, err := client.GetMap[int32, any](c, name).Aggregate(ctx, predicate.Distinct("x"))
				require.NoError(t, err, "distinct aggregator")
				assert.Len(t, d, 3, "distinct aggregator")
				assert.Contains(t, d, nil, "distinct aggregator")
			})
		}
	}
}
