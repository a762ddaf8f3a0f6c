package exec

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// indexFixture is a map of SMALL Compact values with a sorted index on
// intField and a hash index on stringField.
type indexFixture struct {
	t     *testing.T
	ser   *serialization.Service
	e     *Engine
	maps  *testMaps
	st    *store.Map
	cat   *memCatalog
	clock *fakeClock
}

func newIndexFixture(t *testing.T) *indexFixture {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	cat := &memCatalog{}
	e, maps := testEngine(t, ser, cat)
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	maps.clock = clock
	st, _ := maps.Get("m")
	return &indexFixture{t: t, ser: ser, e: e, maps: maps, st: st, cat: cat, clock: clock}
}

func (f *indexFixture) data(k int32, i int32, s string) ([]byte, []byte, int32) {
	v := benchmodel.Small{IntField: i, LongField: int64(k), StringField: s}
	kd, err := f.ser.ToData(k)
	if err != nil {
		f.t.Fatal(err)
	}
	vd, err := f.ser.ToData(&v)
	if err != nil {
		f.t.Fatal(err)
	}
	return kd, vd, serialization.Data(kd).PartitionID(int32(f.st.PartitionCount()))
}

func (f *indexFixture) set(k, i int32, s string, exp store.Expiry) {
	kd, vd, pid := f.data(k, i, s)
	if err := f.st.Set(pid, kd, vd, exp); err != nil {
		f.t.Fatal(err)
	}
}

func (f *indexFixture) addIndexes() {
	for _, ix := range []plan.IndexInfo{
		{Name: "m_int", Map: "m", Type: plan.IndexSorted, Attribute: "intField"},
		{Name: "m_str", Map: "m", Type: plan.IndexHash, Attribute: "stringField"},
	} {
		if _, err := f.cat.AddIndex(ix, true); err != nil {
			f.t.Fatal(err)
		}
		if err := f.e.AddIndex(ix); err != nil {
			f.t.Fatal(err)
		}
	}
}

// keys runs "SELECT __key WHERE attr op v" with and without indexes and
// checks that both give the same keys; it returns them.
func (f *indexFixture) keys(attr, op string, v expr.Value, wantIndex bool) []int64 {
	f.t.Helper()
	scan := func() *plan.Scan {
		return &plan.Scan{Table: "m", Map: "m", Cols: []plan.ScanCol{{Path: "__key", Type: expr.BigInt}, {Path: attr}},
			Project: []expr.Expr{&expr.Col{Index: 0, Name: "__key", T: expr.BigInt}}, Names: []string{"__key"},
			Filter: expr.NewCall(op, expr.Boolean, &expr.Col{Index: 1, Name: attr}, &expr.Param{Index: 0, T: v.T})}
	}
	run := func(cat plan.Catalog) []int64 {
		ph := plan.Build(context.Background(), scan(), cat, []expr.Type{v.T}, "query", plan.Options{})
		text := plan.ExplainText(ph)
		if got := strings.Contains(text, "IndexScan"); got != (wantIndex && cat != nil) {
			f.t.Fatalf("index use %v, want %v:\n%s", got, wantIndex && cat != nil, text)
		}
		res, err := f.e.Execute(context.Background(), ph, []expr.Value{v}, Options{PageSize: 1 << 20})
		if err != nil {
			f.t.Fatal(err)
		}
		rows, err := DecodeRows(res.Rows, res.Count, 1)
		if err != nil {
			f.t.Fatal(err)
		}
		var out []int64
		for _, r := range rows {
			out = append(out, r[0].I)
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	withIndex, scanned := run(f.cat), run(nil)
	if !slices.Equal(withIndex, scanned) {
		f.t.Fatalf("%s %s %v: index gives %v, scan gives %v", attr, op, v, withIndex, scanned)
	}
	return withIndex
}

// check compares index lookups with scans for a spread of values.
func (f *indexFixture) check() {
	f.t.Helper()
	for i := int64(-1); i < 12; i++ {
		f.keys("intField", "=", expr.IntValue(expr.Integer, i), true)
	}
	f.keys("intField", ">", expr.IntValue(expr.Integer, 7), true)
	f.keys("intField", "<=", expr.BigIntValue(3), true)
	for _, s := range []string{"a", "b", "c", "zz"} {
		f.keys("stringField", "=", expr.StringValue(s), true)
	}
}

func (f *indexFixture) indexed() int {
	n := 0
	ix := f.e.indexes.lookup("m", "m_int", f.st)
	for _, p := range ix.parts {
		p.mu.RLock()
		n += len(p.keyVal)
		p.mu.RUnlock()
	}
	return n
}

func TestIndexesFollowTheStore(t *testing.T) {
	f := newIndexFixture(t)
	strs := []string{"a", "b", "c"}
	for k := int32(0); k < 1500; k++ {
		f.set(k, k%10, strs[k%3], store.Expiry{})
	}
	f.addIndexes() // built over existing entries
	f.check()
	if got := f.keys("intField", "=", expr.IntValue(expr.Integer, 4), true); len(got) != 150 {
		t.Fatalf("%d entries with intField 4", len(got))
	}

	// Writes after the index exists: updates move entries between values,
	// inserts and removes.
	for k := int32(0); k < 300; k++ {
		f.set(k, 11, "zz", store.Expiry{})
	}
	for k := int32(1500); k < 1600; k++ {
		f.set(k, k%10, "b", store.Expiry{})
	}
	for k := int32(300); k < 400; k++ {
		kd, _, pid := f.data(k, 0, "")
		if _, err := f.st.Delete(pid, kd); err != nil {
			t.Fatal(err)
		}
	}
	f.check()
	if got := f.keys("intField", "=", expr.IntValue(expr.Integer, 11), true); len(got) != 300 {
		t.Fatalf("%d entries with intField 11", len(got))
	}

	// TTL: expired entries are never returned, and a sweep removes them
	// from the index.
	for k := int32(400); k < 500; k++ {
		f.set(k, 10, "c", store.Expiry{TTL: time.Second})
	}
	f.check()
	f.clock.Add(3 * time.Second)
	if got := f.keys("intField", "=", expr.IntValue(expr.Integer, 10), true); len(got) != 0 {
		t.Fatalf("expired entries returned: %d", len(got))
	}
	before := f.indexed()
	for f.st.Sweep(10000).Expired > 0 {
	}
	if after := f.indexed(); before-after != 100 {
		t.Fatalf("sweep removed %d index entries, want 100", before-after)
	}
	f.check()

	// Evict one entry, clear one partition, evict all of another, drop a
	// third: their index parts follow.
	kd, _, pid := f.data(1234, 0, "")
	if ok, err := f.st.Evict(pid, kd); err != nil || !ok {
		t.Fatalf("evict: %v %v", ok, err)
	}
	for _, op := range []func(int32) error{
		func(p int32) error { _, err := f.st.Clear(p); return err },
		func(p int32) error { _, err := f.st.EvictAll(p); return err },
		f.st.DropPartition,
	} {
		if err := op(pid); err != nil {
			t.Fatal(err)
		}
		pid = (pid + 1) % 271
	}
	f.check()
	if got, want := f.indexed(), int(f.st.Size()); got != want {
		t.Fatalf("index holds %d entries, the map %d", got, want)
	}

	// Migration in: a partition imported from another member, and single
	// records applied from a backup stream.
	src, _ := f.maps.Get("src")
	kd, vd, pid := f.data(5000, 7, "a")
	if err := src.Set(pid, kd, vd, store.Expiry{}); err != nil {
		t.Fatal(err)
	}
	chunk, _, err := src.ExportAppend(nil, pid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.DropPartition(pid), error(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Import(pid, chunk); err != nil {
		t.Fatal(err)
	}
	kd2, vd2, pid2 := f.data(5001, 7, "b")
	if err := f.st.ApplyRecord(pid2, store.EntryView{Key: kd2, Value: vd2, EntryMeta: store.EntryMeta{Version: 1}}); err != nil {
		t.Fatal(err)
	}
	got := f.keys("intField", "=", expr.IntValue(expr.Integer, 7), true)
	if !slices.Contains(got, 5000) || !slices.Contains(got, 5001) {
		t.Fatalf("imported entries missing from the index: %v", got)
	}
	f.check()
	if got, want := f.indexed(), int(f.st.Size()); got != want {
		t.Fatalf("index holds %d entries, the map %d", got, want)
	}
}

// TestIndexUnderConcurrentWrites builds an index while writers run and
// checks it against a scan afterwards.
func TestIndexUnderConcurrentWrites(t *testing.T) {
	f := newIndexFixture(t)
	var wg sync.WaitGroup
	for w := int32(0); w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int32(0); i < 600; i++ {
				k := (i*4 + w) % 900
				f.set(k, (k+i)%10, []string{"a", "b", "c"}[i%3], store.Expiry{})
			}
		}()
	}
	f.addIndexes()
	wg.Wait()
	f.check()
	if got, want := f.indexed(), int(f.st.Size()); got != want {
		t.Fatalf("index holds %d entries, the map %d", got, want)
	}
}

// TestSumAllocatesPerPartitionNotPerEntry: a SUM over 20 000 IDS values
// allocates a bounded number of objects per query (per worker and batch),
// never per entry.
func TestSumAllocatesPerPartitionNotPerEntry(t *testing.T) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	e, maps := testEngine(t, ser, nil)
	st, _ := maps.Get("ids")
	const n = 20_000
	for k := int32(0); k < n; k++ {
		put(t, ser, st, k, &benchmodel.IdentifiedADoc{Value: int64(k), Payload: benchmodel.APayload(k)})
	}
	f := &plan.Fragment{Map: "ids", Cols: []plan.ScanCol{{Path: "value", Type: expr.BigInt}}, Limit: -1,
		Aggs: []plan.AggCall{{Func: "sum", Arg: &expr.Col{Index: 0, T: expr.BigInt}, T: expr.BigInt}},
		Out:  []plan.Column{{Type: expr.BigInt}, {Type: expr.BigInt}}}
	parts := allParts(271)
	allocs := testing.AllocsPerRun(5, func() {
		if err := e.runFragment(context.Background(), f, parts, nil, NewMemoryAccount(0), func(*Batch) error { return nil }); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 271 {
		t.Fatalf("%.0f allocations for %d entries", allocs, n)
	}
}

// TestPrepareDedupesKeys: an equality lookup's index keys are each value's
// forms (30 and "30") once, in the order first met, whether the list is
// short (compared key by key) or long (a set); an empty list still selects
// equality.
func TestPrepareDedupesKeys(t *testing.T) {
	few := []expr.Value{expr.IntValue(expr.Integer, 5), expr.StringValue("5"), expr.IntValue(expr.Integer, 5),
		expr.BigIntValue(7), expr.NullValue, expr.StringValue("x")}
	var many []expr.Value
	for len(many) <= fewValues {
		many = append(many, few...)
	}
	for _, typ := range []plan.IndexType{plan.IndexSorted, plan.IndexHash} {
		n := &index{info: plan.IndexInfo{Type: typ}}
		got := n.prepare(few, nil, nil, false, false).eq
		if typ == plan.IndexSorted && len(got) < 4 {
			t.Fatalf("sorted: %d keys for 5, \"5\", 7 and \"x\", want at least 4 (5, \"5\", 7 or \"7\", \"x\")", len(got))
		}
		uniq := slices.Clone(got)
		slices.Sort(uniq)
		if len(slices.Compact(uniq)) != len(got) {
			t.Fatalf("type %v: duplicate keys in %q", typ, got)
		}
		if long := n.prepare(many, nil, nil, false, false).eq; !slices.Equal(long, got) {
			t.Fatalf("type %v: a long list gives %q, a short one %q", typ, long, got)
		}
		if n.prepare([]expr.Value{}, nil, nil, false, false).eq == nil {
			t.Fatalf("type %v: an empty list no longer selects equality", typ)
		}
	}
}
