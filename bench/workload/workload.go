// Package workload loads the maps of bench/WORKLOADS.md (workload A: SQL
// against the Predicate API on a 20-int document; workload B: the query of
// the serialization kinds) into an Atoll cluster through the public client,
// and defines their query cases, each as a SQL statement and as the
// equivalent Predicate API call, with the check the case must return.
package workload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/jrand"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

// ClientConfig returns a client configuration that knows the workload
// types; pass it to client.New.
func ClientConfig(addrs []string, cluster string) client.Config {
	return client.Config{Addresses: addrs, ClusterName: cluster, Serialization: benchmodel.Config()}
}

// BatchSize is the putAll batch of the loaders.
const BatchSize = 500

// SizeError reports a map whose size after loading is not the number of
// entries loaded.
type SizeError struct {
	Map       string
	Got, Want int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("map %s has %d entries after loading, want %d", e.Map, e.Got, e.Want)
}

// putAll loads keys 0..n-1 as the workloads define it: loader goroutine t
// puts the keys k ≡ t (mod loaders) in ascending order in PutAll batches
// of BatchSize; afterwards the map's size must be n.
func putAll[V any](ctx context.Context, m *client.Map[int32, V], n, loaders int, value func(k int32) V) error {
	loaders = max(loaders, 1)
	errs := make([]error, loaders)
	var wg sync.WaitGroup
	for t := 0; t < loaders; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]client.Entry[int32, V], 0, BatchSize)
			for k := t; k < n; k += loaders {
				batch = append(batch, client.Entry[int32, V]{Key: int32(k), Value: value(int32(k))})
				if len(batch) == BatchSize {
					if errs[t] = m.PutAll(ctx, batch); errs[t] != nil {
						return
					}
					batch = batch[:0]
				}
			}
			if len(batch) > 0 {
				errs[t] = m.PutAll(ctx, batch)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("loading %s: %w", m.Name(), err)
	}
	size, err := m.Size(ctx)
	if err != nil {
		return fmt.Errorf("size of %s: %w", m.Name(), err)
	}
	if size != int64(n) {
		return &SizeError{Map: m.Name(), Got: size, Want: int64(n)}
	}
	return nil
}

// A mappings, verbatim from the workload.
var AMappings = []string{
	`CREATE OR REPLACE MAPPING a_ids (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='io.atoll.bench.hazelcast.model.IdentifiedModel$IdsDoc')`,
	`CREATE OR REPLACE MAPPING a_ids_idx (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='io.atoll.bench.hazelcast.model.IdentifiedModel$IdsDoc')`,
	`CREATE OR REPLACE MAPPING a_portable (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='3')`,
	`CREATE OR REPLACE MAPPING a_json TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json')`,
	`CREATE OR REPLACE MAPPING a_json_flat EXTERNAL NAME a_json (__key INT, "value" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`,
}

// AMaps are workload A's maps, in loading order.
var AMaps = []string{"a_ids", "a_ids_idx", "a_portable", "a_json"}

// LoadA registers the layouts, clears the four workload A maps, creates
// a_ids_idx's sorted index, loads n entries into each with `loaders`
// goroutines and creates the mappings.
func LoadA(ctx context.Context, c *client.Client, n, loaders int) error {
	if err := c.RegisterLayouts(ctx, benchmodel.Layouts()...); err != nil {
		return err
	}
	for _, name := range AMaps {
		if err := client.GetMap[int32, any](c, name).Clear(ctx); err != nil {
			return fmt.Errorf("clearing %s: %w", name, err)
		}
	}
	ids := client.GetMap[int32, *benchmodel.IdentifiedADoc](c, "a_ids")
	idx := client.GetMap[int32, *benchmodel.IdentifiedADoc](c, "a_ids_idx")
	if err := idx.AddIndex(ctx, client.IndexConfig{Type: client.IndexSorted, Attributes: []string{"value"}}); err != nil {
		return err
	}
	doc := func(k int32) *benchmodel.IdentifiedADoc {
		return &benchmodel.IdentifiedADoc{Value: int64(k), Payload: benchmodel.APayload(k)}
	}
	if err := putAll(ctx, ids, n, loaders, doc); err != nil {
		return err
	}
	if err := putAll(ctx, idx, n, loaders, doc); err != nil {
		return err
	}
	port := client.GetMap[int32, *benchmodel.PortableADoc](c, "a_portable")
	if err := putAll(ctx, port, n, loaders, func(k int32) *benchmodel.PortableADoc {
		return &benchmodel.PortableADoc{Value: int64(k), Payload: benchmodel.APayload(k)}
	}); err != nil {
		return err
	}
	js := client.GetMap[int32, serialization.JSON](c, "a_json")
	if err := putAll(ctx, js, n, loaders, func(k int32) serialization.JSON { return serialization.JSON(benchmodel.AJSON(k)) }); err != nil {
		return err
	}
	return Exec(ctx, c, AMappings...)
}

// DestroyA removes workload A's maps.
func DestroyA(ctx context.Context, c *client.Client) error {
	for _, name := range AMaps {
		if err := client.GetMap[int32, any](c, name).Destroy(ctx); err != nil {
			return fmt.Errorf("destroying %s: %w", name, err)
		}
	}
	return nil
}

// Exec runs statements that return no rows (DDL), one after the other.
func Exec(ctx context.Context, c *client.Client, stmts ...string) error {
	for _, s := range stmts {
		rows, err := c.SQL(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// Kinds and sizes of workload B, in the order the workload runs them.
var (
	BKinds = []string{"compact", "portable", "identified", "byte_array"}
	BSizes = []string{"small", "large"}
)

// Queryable reports whether a workload B kind has fields to query (every
// kind but byte_array).
func Queryable(kind string) bool { return kind != "byte_array" }

// UnknownBMapError reports a workload B kind or size that does not exist.
type UnknownBMapError struct{ Kind, Size string }

func (e *UnknownBMapError) Error() string {
	return fmt.Sprintf("unknown workload B map: kind %q, size %q (kinds %v, sizes %v)", e.Kind, e.Size, BKinds, BSizes)
}

// BMap returns the map name of a workload B kind and size.
func BMap(kind, size string) string { return "b_" + kind + "_" + size }

// BGroup returns the case group of a workload B kind and size, e.g.
// "B COMPACT SMALL".
func BGroup(kind, size string) string { return "B " + upper(kind) + " " + upper(size) }

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
		cid := benchmodel.SmallClassID
		if size == "large" {
			cid = benchmodel.LargeClassID
		}
		fmtOpts = fmt.Sprintf("'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='%d'", cid)
	default:
		class := "io.atoll.bench.hazelcast.model.IdentifiedModel$IdsSmall"
		if size == "large" {
			class = "io.atoll.bench.hazelcast.model.IdentifiedModel$IdsLarge"
		}
		fmtOpts = fmt.Sprintf("'valueFormat'='java', 'valueJavaClass'='%s'", class)
	}
	return fmt.Sprintf("CREATE OR REPLACE MAPPING %s (%s) TYPE IMap OPTIONS ('keyFormat'='int', %s)", BMap(kind, size), cols, fmtOpts)
}

// BDropMapping returns the DROP MAPPING of a workload B map.
func BDropMapping(kind, size string) string { return "DROP MAPPING IF EXISTS " + BMap(kind, size) }

// bValue returns the function giving the value stored under key k and
// the write benchmark's fixed value of a kind and size.
func bValue(kind, size string) (value func(k int32) any, fixed any, err error) {
	switch kind + "/" + size {
	case "compact/small":
		f := benchmodel.FixedSmall()
		return func(k int32) any { s := benchmodel.SmallForKey(k); return &s }, &f, nil
	case "compact/large":
		f := benchmodel.FixedLarge()
		return func(k int32) any { l := benchmodel.LargeForKey(k); return &l }, &f, nil
	case "portable/small":
		f := benchmodel.PortableSmall(benchmodel.FixedSmall())
		return func(k int32) any { s := benchmodel.PortableSmall(benchmodel.SmallForKey(k)); return &s }, &f, nil
	case "portable/large":
		return func(k int32) any { return benchmodel.NewPortableLarge(benchmodel.LargeForKey(k)) }, benchmodel.NewPortableLarge(benchmodel.FixedLarge()), nil
	case "identified/small":
		f := benchmodel.IdentifiedSmall(benchmodel.FixedSmall())
		return func(k int32) any { s := benchmodel.IdentifiedSmall(benchmodel.SmallForKey(k)); return &s }, &f, nil
	case "identified/large":
		return func(k int32) any { return benchmodel.NewIdentifiedLarge(benchmodel.LargeForKey(k)) }, benchmodel.NewIdentifiedLarge(benchmodel.FixedLarge()), nil
	case "byte_array/small":
		return func(k int32) any { return benchmodel.BytesForKey(k, benchmodel.SmallBytesLen) }, benchmodel.FixedBytes(benchmodel.SmallBytesLen), nil
	case "byte_array/large":
		return func(k int32) any { return benchmodel.BytesForKey(k, benchmodel.LargeBytesLen) }, benchmodel.FixedBytes(benchmodel.LargeBytesLen), nil
	}
	return nil, nil, &UnknownBMapError{Kind: kind, Size: size}
}

// LoadB clears one workload B map and loads it with n entries using
// `loaders` goroutines. It creates no mapping (the workload creates it
// after the read case).
func LoadB(ctx context.Context, c *client.Client, kind, size string, n, loaders int) error {
	if err := c.RegisterLayouts(ctx, benchmodel.Layouts()...); err != nil {
		return err
	}
	value, _, err := bValue(kind, size)
	if err != nil {
		return err
	}
	m := client.GetMap[int32, any](c, BMap(kind, size))
	if err := m.Clear(ctx); err != nil {
		return fmt.Errorf("clearing %s: %w", m.Name(), err)
	}
	return putAll(ctx, m, n, loaders, value)
}

// BInfo describes a loaded workload B map: the sizes of its values and its
// memory cost (owned entries only; backups are reported apart).
type BInfo struct {
	Map     string
	Entries int
	// ValueDataSize is the serialized size of the write benchmark's value
	// (Hazelcast's Data.totalSize(): 8 header bytes and the payload).
	ValueDataSize int
	// ByteArrayLength is the BYTE_ARRAY kind's value length: the payload
	// size of the IDENTIFIED form of the same size's fixed value.
	ByteArrayLength       int
	OwnedEntryCount       int64
	OwnedEntryMemoryCost  int64
	BackupEntryCount      int64
	BackupEntryMemoryCost int64
}

// MemoryCostPerEntry is the owned memory cost divided by the owned
// entries (0 for an empty map).
func (b BInfo) MemoryCostPerEntry() float64 {
	if b.OwnedEntryCount == 0 {
		return 0
	}
	return float64(b.OwnedEntryMemoryCost) / float64(b.OwnedEntryCount)
}

// DescribeB measures a loaded workload B map: the serialized sizes of its
// fixed value and the members' statistics summed over the cluster.
func DescribeB(ctx context.Context, c *client.Client, kind, size string, n int) (BInfo, error) {
	_, fixed, err := bValue(kind, size)
	if err != nil {
		return BInfo{}, err
	}
	_, ids, _ := bValue("identified", size)
	ser := c.Serialization()
	d, err := ser.ToData(fixed)
	if err != nil {
		return BInfo{}, err
	}
	idsData, err := ser.ToData(ids)
	if err != nil {
		return BInfo{}, err
	}
	name := BMap(kind, size)
	st, err := client.GetMap[int32, any](c, name).Stats(ctx)
	if err != nil {
		return BInfo{}, fmt.Errorf("statistics of %s: %w", name, err)
	}
	return BInfo{
		Map: name, Entries: n, ValueDataSize: len(d), ByteArrayLength: len(idsData) - serialization.HeaderSize,
		OwnedEntryCount: st.OwnedEntryCount, OwnedEntryMemoryCost: st.OwnedEntryMemoryCost,
		BackupEntryCount: st.BackupEntryCount, BackupEntryMemoryCost: st.BackupEntryMemoryCost,
	}, nil
}

// DestroyB removes one workload B map.
func DestroyB(ctx context.Context, c *client.Client, kind, size string) error {
	return client.GetMap[int32, any](c, BMap(kind, size)).Destroy(ctx)
}

// Op performs one operation of a case with the calling thread's random
// source and returns its check (rows, an aggregate, or 1 for get and set).
type Op func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error)

// Case is one case of a workload: an operation through one API, with the
// check it must return.
type Case struct {
	Group string // "A3", "B COMPACT SMALL"
	Name  string // "sum IDS", "read", "query", "write"
	API   string // SQL, PRED or MAP
	Map   string // the map it reads or writes
	Text  string // the SQL statement or the call
	Want  int64
	// Seed is the per-thread random seed base: thread t uses Seed+t, the
	// validation run Seed+threads+1000.
	Seed int64
	Run  Op
}

// Title is the case's name in tables, e.g. "A3 sum IDS".
func (c Case) Title() string { return c.Group + " " + c.Name }

// ID identifies the case and its API as the Hazelcast runner does, e.g.
// "A3/sum IDS/SQL".
func (c Case) ID() string { return c.Group + "/" + c.Name + "/" + c.API }

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

// ACases returns workload A's cases for n entries, in the workload's
// order, SQL before PRED.
func ACases(n int) []Case {
	s := int64(n) * int64(n-1) / 2
	sql := func(stmt string) Op {
		return func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return single(c.SQL(ctx, stmt))
		}
	}
	longSum := func(m string) Op {
		return func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return aggregate(client.GetMap[int32, any](c, m).Aggregate(ctx, predicate.LongSum("value")))
		}
	}
	eqSQL := func(m string) Op {
		stmt := `SELECT __key, this FROM ` + m + ` WHERE "value" = ?`
		return func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error) {
			return consume(c.SQL(ctx, stmt, int64(r.IntN(int32(n)))))
		}
	}
	eqPred := func(m string) Op {
		return func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error) {
			es, err := client.GetMap[int32, *benchmodel.IdentifiedADoc](c, m).EntrySetWithPredicate(ctx, predicate.Equal("value", int64(r.IntN(int32(n)))))
			return int64(len(es)), err
		}
	}
	const (
		sumText   = `%s.Aggregate(predicate.LongSum("value"))`
		eqSQLText = `SELECT __key, this FROM %s WHERE "value" = ?`
		eqPrdText = `%s.EntrySetWithPredicate(predicate.Equal("value", v))`
	)
	return []Case{
		{Group: "A1", Name: "scan-all IDS", API: "SQL", Map: "a_ids", Text: `SELECT __key, this FROM a_ids`, Want: int64(n), Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return consume(c.SQL(ctx, `SELECT __key, this FROM a_ids`))
		}},
		{Group: "A1", Name: "scan-all IDS", API: "PRED", Map: "a_ids", Text: `a_ids.EntrySetWithPredicate(nil)`, Want: int64(n), Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			// IMap.entrySet() is a query with the true predicate.
			es, err := client.GetMap[int32, *benchmodel.IdentifiedADoc](c, "a_ids").EntrySetWithPredicate(ctx, nil)
			return int64(len(es)), err
		}},
		{Group: "A2", Name: "count IDS", API: "SQL", Map: "a_ids", Text: `SELECT COUNT(*) FROM a_ids`, Want: int64(n), Run: sql(`SELECT COUNT(*) FROM a_ids`)},
		{Group: "A2", Name: "count IDS", API: "PRED", Map: "a_ids", Text: `a_ids.Aggregate(predicate.Count())`, Want: int64(n), Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return aggregate(client.GetMap[int32, any](c, "a_ids").Aggregate(ctx, predicate.Count()))
		}},
		{Group: "A3", Name: "sum IDS", API: "SQL", Map: "a_ids", Text: `SELECT SUM("value") FROM a_ids`, Want: s, Run: sql(`SELECT SUM("value") FROM a_ids`)},
		{Group: "A3", Name: "sum IDS", API: "PRED", Map: "a_ids", Text: fmt.Sprintf(sumText, "a_ids"), Want: s, Run: longSum("a_ids")},
		{Group: "A3", Name: "sum PORTABLE", API: "SQL", Map: "a_portable", Text: `SELECT SUM("value") FROM a_portable`, Want: s, Run: sql(`SELECT SUM("value") FROM a_portable`)},
		{Group: "A3", Name: "sum PORTABLE", API: "PRED", Map: "a_portable", Text: fmt.Sprintf(sumText, "a_portable"), Want: s, Run: longSum("a_portable")},
		{Group: "A3", Name: "sum JSON(json-flat)", API: "SQL", Map: "a_json", Text: `SELECT SUM("value") FROM a_json_flat`, Want: s, Run: sql(`SELECT SUM("value") FROM a_json_flat`)},
		{Group: "A3", Name: "sum JSON(json-flat)", API: "PRED", Map: "a_json", Text: fmt.Sprintf(sumText, "a_json"), Want: s, Run: longSum("a_json")},
		{Group: "A4", Name: "sum JSON_VALUE", API: "SQL", Map: "a_json", Text: `SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json`, Want: s, Run: sql(`SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json`)},
		{Group: "A4", Name: "sum JSON_VALUE", API: "PRED", Map: "a_json", Text: fmt.Sprintf(sumText, "a_json"), Want: s, Run: longSum("a_json")},
		{Group: "A5", Name: "eq no-index IDS", API: "SQL", Map: "a_ids", Text: fmt.Sprintf(eqSQLText, "a_ids"), Want: 1, Seed: 4000, Run: eqSQL("a_ids")},
		{Group: "A5", Name: "eq no-index IDS", API: "PRED", Map: "a_ids", Text: fmt.Sprintf(eqPrdText, "a_ids"), Want: 1, Seed: 4000, Run: eqPred("a_ids")},
		{Group: "A5", Name: "eq sorted-index IDS", API: "SQL", Map: "a_ids_idx", Text: fmt.Sprintf(eqSQLText, "a_ids_idx"), Want: 1, Seed: 4000, Run: eqSQL("a_ids_idx")},
		{Group: "A5", Name: "eq sorted-index IDS", API: "PRED", Map: "a_ids_idx", Text: fmt.Sprintf(eqPrdText, "a_ids_idx"), Want: 1, Seed: 4000, Run: eqPred("a_ids_idx")},
	}
}

// Seeds of workload B's map cases.
const (
	ReadSeed  = 2000
	WriteSeed = 3000
)

// BReadCase is workload B's read case: Get of a uniform random key.
func BReadCase(kind, size string, n int) (Case, error) {
	if _, _, err := bValue(kind, size); err != nil {
		return Case{}, err
	}
	name := BMap(kind, size)
	m := &mapCache{name: name}
	return Case{Group: BGroup(kind, size), Name: "read", API: "MAP", Map: name, Text: name + ".Get(k), k uniform in [0,N)", Want: 1, Seed: ReadSeed,
		Run: func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error) {
			_, ok, err := m.get(c).Get(ctx, r.IntN(int32(n)))
			if ok {
				return 1, err
			}
			return 0, err
		}}, nil
}

// BWriteCase is workload B's write case: Set of the fixed value under a
// uniform random key (every key exists, so every Set is an update).
func BWriteCase(kind, size string, n int) (Case, error) {
	_, fixed, err := bValue(kind, size)
	if err != nil {
		return Case{}, err
	}
	name := BMap(kind, size)
	m := &mapCache{name: name}
	return Case{Group: BGroup(kind, size), Name: "write", API: "MAP", Map: name, Text: name + ".Set(k, FIXED), k uniform in [0,N)", Want: 1, Seed: WriteSeed,
		Run: func(ctx context.Context, c *client.Client, r *jrand.Random) (int64, error) {
			if err := m.get(c).Set(ctx, r.IntN(int32(n)), fixed); err != nil {
				return 0, err
			}
			return 1, nil
		}}, nil
}

// mapCache keeps a case's map handle for the client it last ran with, so
// that get and set do not look the map up on every call.
type mapCache struct {
	name string
	cur  atomic.Pointer[mapHandle]
}

type mapHandle struct {
	c *client.Client
	m *client.Map[int32, any]
}

func (mc *mapCache) get(c *client.Client) *client.Map[int32, any] {
	if h := mc.cur.Load(); h != nil && h.c == c {
		return h.m
	}
	h := &mapHandle{c: c, m: client.GetMap[int32, any](c, mc.name)}
	mc.cur.Store(h)
	return h.m
}

// BQueryCases returns the query cases of one workload B map for n
// entries, SQL before PRED.
func BQueryCases(kind, size string, n int) []Case {
	name := BMap(kind, size)
	want := int64(n / benchmodel.MetinEvery)
	if n%benchmodel.MetinEvery != 0 {
		want++
	}
	stmt := `SELECT * FROM ` + name + ` WHERE stringField = 'metin'`
	return []Case{
		{Group: BGroup(kind, size), Name: "query", API: "SQL", Map: name, Text: stmt, Want: want, Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			return consume(c.SQL(ctx, stmt))
		}},
		{Group: BGroup(kind, size), Name: "query", API: "PRED", Map: name, Text: name + `.ValueListWithPredicate(predicate.Equal("stringField", "metin")).Len()`, Want: want, Run: func(ctx context.Context, c *client.Client, _ *jrand.Random) (int64, error) {
			// As the workload's reference client does: values(p).size() on
			// Hazelcast's lazy list, which deserializes no value.
			l, err := client.GetMap[int32, any](c, name).ValueListWithPredicate(ctx, predicate.Equal("stringField", "metin"))
			if err != nil {
				return 0, err
			}
			return int64(l.Len()), nil
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
