package exec

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// testMaps is an in-memory Maps for engine tests.
type testMaps struct {
	mu    sync.Mutex
	ms    map[string]*store.Map
	obs   map[string]store.Observer
	part  int
	clock store.Clock
}

func newTestMaps() *testMaps {
	return &testMaps{ms: map[string]*store.Map{}, obs: map[string]store.Observer{}, part: 271}
}

func (t *testMaps) Lookup(name string) (*store.Map, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.ms[name]
	return m, ok
}

func (t *testMaps) Get(name string) (*store.Map, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.ms[name]; ok {
		return m, nil
	}
	m, err := store.NewMap(store.MapConfig{Name: name, PartitionCount: t.part, Clock: t.clock})
	if err != nil {
		return nil, err
	}
	t.ms[name] = m
	return m, nil
}

func (t *testMaps) SetIndexObserver(name string, o store.Observer) error {
	m, err := t.Get(name)
	if err != nil {
		return err
	}
	m.SetObserver(o)
	return nil
}

// testEngine is an engine over testMaps on a one-member table.
func testEngine(tb testing.TB, ser *serialization.Service, cat Catalog) (*Engine, *testMaps) {
	maps := newTestMaps()
	h := &partition.Holder{}
	self := partition.Member{UUID: partition.NewUUID(), Address: "local"}
	h.Store(partition.Single(self, maps.part))
	e := New(Config{Maps: maps, Catalog: cat, Serialization: ser, Table: h, Self: self.UUID})
	tb.Cleanup(e.Close)
	return e, maps
}

// toData serializes v with ser.
func toData(tb testing.TB, ser *serialization.Service, v any) []byte {
	tb.Helper()
	d, err := ser.ToData(v)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func put(tb testing.TB, ser *serialization.Service, m *store.Map, k int32, v any) {
	kd, vd := toData(tb, ser, k), toData(tb, ser, v)
	pid := serialization.Data(kd).PartitionID(int32(m.PartitionCount()))
	if err := m.Set(pid, kd, vd, store.Expiry{}); err != nil {
		tb.Fatal(err)
	}
}

func allParts(n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	return p
}

// BenchmarkFragmentSum measures the member-side cost of SUM(value) over
// 100 000 entries of each format, per entry, without the network: the
// fragment reads the field in place and keeps one partial sum per worker.
func BenchmarkFragmentSum(b *testing.B) {
	const n = 100_000
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		b.Fatal(err)
	}
	e, maps := testEngine(b, ser, nil)
	for _, format := range []string{"ids", "portable", "compact", "json"} {
		st, _ := maps.Get(format)
		loaded := false
		load := func() {
			if loaded {
				return
			}
			loaded = true
			for k := int32(0); k < n; k++ {
				var v any
				switch format {
				case "ids":
					v = &benchmodel.IdentifiedADoc{Value: int64(k), Payload: benchmodel.APayload(k)}
				case "portable":
					v = &benchmodel.PortableADoc{Value: int64(k), Payload: benchmodel.APayload(k)}
				case "compact":
					s := benchmodel.SmallForKey(k)
					s.LongField = int64(k)
					v = &s
				case "json":
					v = serialization.JSON(benchmodel.AJSON(k))
				}
				put(b, ser, st, k, v)
			}
		}
		field := "value"
		if format == "compact" {
			field = "longField"
		}
		for _, t := range []expr.Type{expr.BigInt, expr.Unknown} {
			f := &plan.Fragment{Map: format, Cols: []plan.ScanCol{{Path: field, Type: t}}, Limit: -1,
				Aggs: []plan.AggCall{{Func: "sum", Arg: &expr.Col{Index: 0, T: t}, T: expr.BigInt}},
				Out:  []plan.Column{{Type: expr.BigInt}, {Type: expr.BigInt}}}
			b.Run(fmt.Sprintf("%s/%s", format, t), func(b *testing.B) {
				load()
				b.ReportAllocs()
				parts := allParts(271)
				b.ResetTimer()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					var sum int64
					err := e.runFragment(context.Background(), f, parts, nil, NewMemoryAccount(0), func(bt *Batch) error {
						rows, err := DecodeRows(bt.Rows, bt.Count, 2)
						for _, r := range rows {
							sum += r[0].I
						}
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
					if sum != int64(n)*(n-1)/2 {
						b.Fatalf("sum %d", sum)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entry")
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/n, "cpu-ns/entry")
			})
		}
	}
}

// cpuTime is the process's user+system CPU time: on a shared, loaded
// machine it measures the work better than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIndexedEqual is the member-side cost of an equality lookup on a
// sorted index over 100 000 IDS entries, through Engine.Execute (plan from
// the cache, fragment over 271 partitions, first page): workload A5 with
// an index, without the network. The by-partitions cases run it as a
// member runs the part a client sends it (Options.Partitions).
func BenchmarkIndexedEqual(b *testing.B) {
	const n = 100_000
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		b.Fatal(err)
	}
	cat := &memCatalog{}
	e, maps := testEngine(b, ser, cat)
	st, _ := maps.Get("a")
	for k := int32(0); k < n; k++ {
		put(b, ser, st, k, &benchmodel.IdentifiedADoc{Value: int64(k), Payload: benchmodel.APayload(k)})
	}
	for _, typ := range []plan.IndexType{plan.IndexSorted, plan.IndexHash} {
		info := plan.IndexInfo{Name: "a_value_" + typ.String(), Map: "a", Type: typ, Attribute: "value"}
		cat.indexes = []plan.IndexInfo{info}
		cat.version++
		if err := e.AddIndex(info); err != nil {
			b.Fatal(err)
		}
		scan := &plan.Scan{Table: "a", Map: "a", Cols: []plan.ScanCol{{Path: "__key", Type: expr.Object}, {Path: "this", Type: expr.Object}, {Path: "value"}},
			Project: []expr.Expr{&expr.Col{Index: 0, Name: "__key", T: expr.Object}, &expr.Col{Index: 1, Name: "this", T: expr.Object}},
			Names:   []string{"__key", "this"},
			Filter:  expr.NewCall("=", expr.Boolean, &expr.Col{Index: 2, Name: "value"}, &expr.Param{Index: 0, T: expr.BigInt})}
		ph := plan.Build(context.Background(), scan, cat, []expr.Type{expr.BigInt}, "query", plan.Options{})
		if got := plan.ExplainText(ph); !strings.Contains(got, "IndexScan") {
			b.Fatalf("plan has no index scan:\n%s", got)
		}
		for _, way := range []struct {
			name string
			opts Options
		}{{"", Options{}}, {"/by-partitions", Options{Partitions: allParts(271)}}} {
			b.Run(typ.String()+way.name, func(b *testing.B) {
				b.ReportAllocs()
				ctx := context.Background()
				for i := 0; i < b.N; i++ {
					res, err := e.Execute(ctx, ph, []expr.Value{expr.BigIntValue(int64(i % n))}, way.opts)
					if err != nil {
						b.Fatal(err)
					}
					if res.Count != 1 {
						b.Fatalf("%d rows", res.Count)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/query")
			})
		}
	}
}

// memCatalog is a Catalog of index definitions for engine tests.
type memCatalog struct {
	mu       sync.Mutex
	mappings map[string]*plan.Mapping
	indexes  []plan.IndexInfo
	version  uint64
}

func (c *memCatalog) Mapping(name string) (*plan.Mapping, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.mappings[name]
	return m, ok
}
func (c *memCatalog) Mappings() []*plan.Mapping { return nil }
func (c *memCatalog) Indexes(m string) []plan.IndexInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []plan.IndexInfo
	for _, ix := range c.indexes {
		if ix.Map == m {
			out = append(out, ix)
		}
	}
	return out
}
func (c *memCatalog) Version() uint64 { c.mu.Lock(); defer c.mu.Unlock(); return c.version }
func (c *memCatalog) PutMapping(m *plan.Mapping, orReplace, ifNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mappings == nil {
		c.mappings = map[string]*plan.Mapping{}
	}
	c.mappings[m.Name] = m
	c.version++
	return nil
}
func (c *memCatalog) DropMapping(name string, ifExists bool) error { return nil }
func (c *memCatalog) AddIndex(ix plan.IndexInfo, ifNotExists bool) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, have := range c.indexes {
		if have.Name == ix.Name {
			return false, nil
		}
	}
	c.indexes = append(c.indexes, ix)
	c.version++
	return true, nil
}
func (c *memCatalog) AllIndexes() []plan.IndexInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]plan.IndexInfo(nil), c.indexes...)
}

// BenchmarkFragmentFilter measures workload B's query on the member:
// stringField = 'metin' over 100 000 SMALL or LARGE values of each format,
// projecting the key and the mapping's scalar columns of the 100 matches
// (SMALL: four fields; LARGE: eight, behind its variable-size arrays and,
// for IDS, its inline objects). Besides ns/entry it reports ns per byte of
// value (ns/value-byte, to compare the sizes) and the allocations per entry
// scanned (allocs/entry), which must be 0: a query allocates per partition
// and per match, never per entry.
func BenchmarkFragmentFilter(b *testing.B) {
	const n = 100_000
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		b.Fatal(err)
	}
	e, maps := testEngine(b, ser, nil)
	smallCols := []plan.ScanCol{{Path: "__key", Type: expr.Integer}, {Path: "intField", Type: expr.Integer}, {Path: "longField", Type: expr.BigInt},
		{Path: "doubleField", Type: expr.Double}, {Path: "stringField", Type: expr.Varchar}}
	largeCols := []plan.ScanCol{{Path: "__key", Type: expr.Integer}, {Path: "booleanField", Type: expr.Boolean}, {Path: "byteField", Type: expr.TinyInt},
		{Path: "shortField", Type: expr.SmallInt}, {Path: "intField", Type: expr.Integer}, {Path: "longField", Type: expr.BigInt},
		{Path: "floatField", Type: expr.Real}, {Path: "doubleField", Type: expr.Double}, {Path: "stringField", Type: expr.Varchar}}
	for _, format := range []string{"compact", "portable", "identified"} {
		for _, size := range []string{"SMALL", "LARGE"} {
			b.Run(format+"/"+size, func(b *testing.B) {
				name := format + "_" + size
				st, _ := maps.Get(name)
				if st.Size() == 0 {
					for k := int32(0); k < n; k++ {
						put(b, ser, st, k, workloadBValue(format, size, k))
					}
				}
				var valueBytes int64
				for pid := int32(0); pid < 271; pid++ {
					_ = st.ScanKV(pid, func(_, v []byte) bool { valueBytes += int64(len(v)); return true })
				}
				cols := smallCols
				if size == "LARGE" {
					cols = largeCols
				}
				str := len(cols) - 1
				f := &plan.Fragment{Map: name, Cols: cols, Limit: -1,
					Filter: expr.NewCall("=", expr.Boolean, &expr.Col{Index: str, T: expr.Varchar}, &expr.Lit{V: expr.StringValue("metin")})}
				for i, c := range cols {
					f.Project = append(f.Project, &expr.Col{Index: i, T: c.Type})
					f.Out = append(f.Out, plan.Column{Type: c.Type})
				}
				parts := allParts(271)
				// One query at a time, and eight at once as eight clients
				// run them (their reads shared); figures are per query.
				for _, queries := range []int{1, 8} {
					b.Run(fmt.Sprintf("queries=%d", queries), func(b *testing.B) {
						b.ReportAllocs()
						var ms0, ms1 runtime.MemStats
						runtime.ReadMemStats(&ms0)
						shared0 := e.shares.sharedReads()
						b.ResetTimer()
						cpu0 := cpuTime()
						var next atomic.Int64
						var wg sync.WaitGroup
						errs := make(chan error, queries)
						for range queries {
							wg.Add(1)
							go func() {
								defer wg.Done()
								for next.Add(1) <= int64(b.N) {
									rows := 0
									if err := e.runFragment(context.Background(), f, parts, nil, NewMemoryAccount(0), func(bt *Batch) error { rows += bt.Count; return nil }); err != nil {
										errs <- err
										return
									}
									if rows != n/1000 {
										errs <- fmt.Errorf("%d rows", rows)
										return
									}
								}
							}()
						}
						wg.Wait()
						b.StopTimer()
						close(errs)
						if err := <-errs; err != nil {
							b.Fatal(err)
						}
						runtime.ReadMemStats(&ms1)
						perEntry := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / n
						b.ReportMetric(perEntry, "ns/entry")
						b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/n, "cpu-ns/entry")
						b.ReportMetric(perEntry/(float64(valueBytes)/n), "ns/value-byte")
						b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N)/n, "allocs/entry")
						b.ReportMetric(float64(e.shares.sharedReads()-shared0)/float64(b.N), "shared-reads/query")
					})
				}
			})
		}
	}
}

// workloadBValue is workload B's value of a format and size under key k.
func workloadBValue(format, size string, k int32) any {
	if size == "LARGE" {
		l := benchmodel.LargeForKey(k)
		switch format {
		case "portable":
			return benchmodel.NewPortableLarge(l)
		case "identified":
			return benchmodel.NewIdentifiedLarge(l)
		}
		return &l
	}
	s := benchmodel.SmallForKey(k)
	switch format {
	case "portable":
		p := benchmodel.PortableSmall(s)
		return &p
	case "identified":
		p := benchmodel.IdentifiedSmall(s)
		return &p
	}
	return &s
}
