// Package workload loads the maps of ../shared/workloads (workload A: SQL
// against the Predicate API on a 20-int document; workload B: the query of
// the serialization kinds) into an Atoll cluster through the public client,
// and defines their query cases, each as a SQL statement and as the
// equivalent Predicate API call, with the check the case must return.
package workload

import (
	"context"
	"fmt"

	"github.com/atolldb/atoll/bench/jrand"
	"github.com/atolldb/atoll/bench/model"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

// ClientConfig returns a client configuration that knows the workload
// types; pass it to client.New.
func ClientConfig(addrs []string, cluster string) client.Config {
	return client.Config{Addresses: addrs, ClusterName: cluster, Serialization: model.Config()}
}

// BatchSize is the putAll batch of the loaders.
const BatchSize = 500

func putAll[V any](ctx context.Context, m *client.Map[int32, V], n int, value func(k int32) V) error {
	batch := make([]client.Entry[int32, V], 0, BatchSize)
	for k := 0; k < n; k++ {
		batch = append(batch, client.Entry[int32, V]{Key: int32(k), Value: value(int32(k))})
		if len(batch) == BatchSize || k == n-1 {
			if err := m.PutAll(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}

// A mappings, verbatim from the workload.
var AMappings = []string{
	`CREATE OR REPLACE MAPPING a_ids (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='hzb.model.Ids$ADoc')`,
	`CREATE OR REPLACE MAPPING a_ids_idx (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='hzb.model.Ids$ADoc')`,
	`CREATE OR REPLACE MAPPING a_portable (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='3')`,
	`CREATE OR REPLACE MAPPING a_json TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json')`,
	`CREATE OR REPLACE MAPPING a_json_flat EXTERNAL NAME a_json (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`,
}

// LoadA registers the layouts, creates a_ids_idx's sorted index, loads
// the four workload A maps with n entries each and creates the mappings.
func LoadA(ctx context.Context, c *client.Client, n int) error {
	if err := c.RegisterLayouts(ctx, model.Layouts()...); err != nil {
		return err
	}
	ids := client.GetMap[int32, *model.IdentifiedADoc](c, "a_ids")
	idx := client.GetMap[int32, *model.IdentifiedADoc](c, "a_ids_idx")
	if err := idx.AddIndex(ctx, client.IndexConfig{Type: client.IndexSorted, Attributes: []string{"value"}}); err != nil {
		return err
	}
	doc := func(k int32) *model.IdentifiedADoc {
		return &model.IdentifiedADoc{Value: int64(k), Payload: model.APayload(k)}
	}
	if err := putAll(ctx, ids, n, doc); err != nil {
		return err
	}
	if err := putAll(ctx, idx, n, doc); err != nil {
		return err
	}
	port := client.GetMap[int32, *model.PortableADoc](c, "a_portable")
	if err := putAll(ctx, port, n, func(k int32) *model.PortableADoc {
		return &model.PortableADoc{Value: int64(k), Payload: model.APayload(k)}
	}); err != nil {
		return err
	}
	js := client.GetMap[int32, serialization.JSON](c, "a_json")
	if err := putAll(ctx, js, n, func(k int32) serialization.JSON { return serialization.JSON(model.AJSON(k)) }); err != nil {
		return err
	}
	return exec(ctx, c, AMappings...)
}

func exec(ctx context.Context, c *client.Client, stmts ...string) error {
	for _, s := range stmts {
		rows, err := c.SQL(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		rows.Close()
	}
	return nil
}

// Kinds and sizes of workload B.
var (
	BKinds = []string{"compact", "portable", "identified"}
	BSizes = []string{"small", "large"}
)

// BMap returns the map name of a workload B kind and size.
func BMap(kind, size string) string { return "b_" + kind + "_" + size }

// BMapping returns the CREATE MAPPING of a workload B map.
func BMapping(kind, size string) string {
	cols := "__key INT, intField INT, longField BIGINT, doubleField DOUBLE, stringField VARCHAR"
	if size == "large" {
		cols = "__key INT, booleanField BOOLEAN, byteField TINYINT, shortField SMALLINT, intField INT, longField BIGINT, floatField REAL, doubleField DOUBLE, stringField VARCHAR"
	}
	var fmtOpts string
	switch kind {
	case "compact":
		fmtOpts = fmt.Sprintf("'valueFormat'='compact', 'valueCompactTypeName'='%s'", size)
	case "portable":
		cid := model.SmallClassID
		if size == "large" {
			cid = model.LargeClassID
		}
		fmtOpts = fmt.Sprintf("'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='%d'", cid)
	default:
		class := "hzb.model.Ids$IdsSmall"
		if size == "large" {
			class = "hzb.model.Ids$IdsLarge"
		}
		fmtOpts = fmt.Sprintf("'valueFormat'='java', 'valueJavaClass'='%s'", class)
	}
	return fmt.Sprintf("CREATE OR REPLACE MAPPING %s (%s) TYPE IMap OPTIONS ('keyFormat'='int', %s)", BMap(kind, size), cols, fmtOpts)
}

// LoadB loads one workload B map with n entries and creates its mapping.
func LoadB(ctx context.Context, c *client.Client, kind, size string, n int) error {
	if err := c.RegisterLayouts(ctx, model.Layouts()...); err != nil {
		return err
	}
	name := BMap(kind, size)
	var err error
	switch kind + "/" + size {
	case "compact/small":
		err = putAll(ctx, client.GetMap[int32, *model.Small](c, name), n, func(k int32) *model.Small { s := model.SmallForKey(k); return &s })
	case "compact/large":
		err = putAll(ctx, client.GetMap[int32, *model.Large](c, name), n, func(k int32) *model.Large { l := model.LargeForKey(k); return &l })
	case "portable/small":
		err = putAll(ctx, client.GetMap[int32, *model.PortableSmall](c, name), n, func(k int32) *model.PortableSmall {
			s := model.PortableSmall(model.SmallForKey(k))
			return &s
		})
	case "portable/large":
		err = putAll(ctx, client.GetMap[int32, *model.PortableLarge](c, name), n, func(k int32) *model.PortableLarge {
			return model.NewPortableLarge(model.LargeForKey(k))
		})
	case "identified/small":
		err = putAll(ctx, client.GetMap[int32, *model.IdentifiedSmall](c, name), n, func(k int32) *model.IdentifiedSmall {
			s := model.IdentifiedSmall(model.SmallForKey(k))
			return &s
		})
	case "identified/large":
		err = putAll(ctx, client.GetMap[int32, *model.IdentifiedLarge](c, name), n, func(k int32) *model.IdentifiedLarge {
			return model.NewIdentifiedLarge(model.LargeForKey(k))
		})
	default:
		return fmt.Errorf("unknown workload B map %s/%s", kind, size)
	}
	if err != nil {
		return err
	}
	return exec(ctx, c, BMapping(kind, size))
}

// Case is one query case: Run performs one operation with the case's
// per-thread random source and returns its check.
type Case struct {
	ID   string // e.g. "A3 sum PORTABLE"
	API  string // SQL or PRED
	Want int64
	Run  func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error)
	// Seed is the per-thread random seed base (thread t uses Seed+t).
	Seed int64
}

// consume reads every row and every column (deserializing objects).
func consume(rows *client.Rows, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := int64(0)
	for rows.Next() {
		if _, err := rows.Values(); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func single(rows *client.Rows, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, fmt.Errorf("no row: %v", rows.Err())
	}
	var v int64
	if err := rows.Scan(&v); err != nil {
		return 0, err
	}
	return v, rows.Err()
}

func aggregate(v any, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	}
	return 0, fmt.Errorf("aggregate returned %T", v)
}

// ACases returns workload A's cases for n entries, SQL before PRED.
func ACases(n int) []Case {
	s := int64(n) * int64(n-1) / 2
	sql := func(stmt string) func(context.Context, *client.Client, *jrand.Random) (int64, error) {
		return func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return single(c.SQL(ctx, stmt))
		}
	}
	longSum := func(m string) func(context.Context, *client.Client, *jrand.Random) (int64, error) {
		return func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return aggregate(client.GetMap[int32, any](c, m).Aggregate(ctx, predicate.LongSum("value")))
		}
	}
	eqSQL := func(m string) func(context.Context, *client.Client, *jrand.Random) (int64, error) {
		stmt := `SELECT __key, this FROM ` + m + ` WHERE "value" = ?`
		return func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error) {
			return consume(c.SQL(ctx, stmt, int64(r.IntN(int32(n)))))
		}
	}
	eqPred := func(m string) func(context.Context, *client.Client, *jrand.Random) (int64, error) {
		return func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error) {
			es, err := client.GetMap[int32, *model.IdentifiedADoc](c, m).EntrySetWithPredicate(ctx, predicate.Equal("value", int64(r.IntN(int32(n)))))
			return int64(len(es)), err
		}
	}
	return []Case{
		{ID: "A1 scan-all IDS", API: "SQL", Want: int64(n), Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return consume(c.SQL(ctx, `SELECT __key, this FROM a_ids`))
		}},
		{ID: "A1 scan-all IDS", API: "PRED", Want: int64(n), Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			// IMap.entrySet() is a query with the true predicate.
			es, err := client.GetMap[int32, *model.IdentifiedADoc](c, "a_ids").EntrySetWithPredicate(ctx, nil)
			return int64(len(es)), err
		}},
		{ID: "A2 count IDS", API: "SQL", Want: int64(n), Run: sql(`SELECT COUNT(*) FROM a_ids`)},
		{ID: "A2 count IDS", API: "PRED", Want: int64(n), Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return aggregate(client.GetMap[int32, any](c, "a_ids").Aggregate(ctx, predicate.Count()))
		}},
		{ID: "A3 sum IDS", API: "SQL", Want: s, Run: sql(`SELECT SUM("value") FROM a_ids`)},
		{ID: "A3 sum IDS", API: "PRED", Want: s, Run: longSum("a_ids")},
		{ID: "A3 sum PORTABLE", API: "SQL", Want: s, Run: sql(`SELECT SUM("value") FROM a_portable`)},
		{ID: "A3 sum PORTABLE", API: "PRED", Want: s, Run: longSum("a_portable")},
		{ID: "A3 sum JSON(json-flat)", API: "SQL", Want: s, Run: sql(`SELECT SUM("value") FROM a_json_flat`)},
		{ID: "A3 sum JSON(json-flat)", API: "PRED", Want: s, Run: longSum("a_json")},
		{ID: "A4 sum JSON_VALUE", API: "SQL", Want: s, Run: sql(`SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json`)},
		{ID: "A4 sum JSON_VALUE", API: "PRED", Want: s, Run: longSum("a_json")},
		{ID: "A5 eq no-index IDS", API: "SQL", Want: 1, Seed: 4000, Run: eqSQL("a_ids")},
		{ID: "A5 eq no-index IDS", API: "PRED", Want: 1, Seed: 4000, Run: eqPred("a_ids")},
		{ID: "A5 eq sorted-index IDS", API: "SQL", Want: 1, Seed: 4000, Run: eqSQL("a_ids_idx")},
		{ID: "A5 eq sorted-index IDS", API: "PRED", Want: 1, Seed: 4000, Run: eqPred("a_ids_idx")},
	}
}

// BCases returns the query cases of one workload B map for n entries.
func BCases(kind, size string, n int) []Case {
	name := BMap(kind, size)
	id := "B " + upper(kind) + " " + upper(size) + " query"
	want := int64(n / model.MetinEvery)
	if n%model.MetinEvery != 0 {
		want++
	}
	return []Case{
		{ID: id, API: "SQL", Want: want, Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return consume(c.SQL(ctx, `SELECT * FROM `+name+` WHERE stringField = 'metin'`))
		}},
		{ID: id, API: "PRED", Want: want, Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			vs, err := client.GetMap[int32, any](c, name).ValuesWithPredicate(ctx, predicate.Equal("stringField", "metin"))
			return int64(len(vs)), err
		}},
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
