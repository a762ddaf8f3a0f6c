package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/serialization"
)

// sharedScanCase is a fragment over the map of sharedScanFixture and what
// one run of it returns, as sorted rows (aggregates merged from the
// workers' partials).
type sharedScanCase struct {
	name string
	f    *plan.Fragment
	agg  bool
}

func sharedScanFixture(t *testing.T, n int32) (*Engine, []sharedScanCase) {
	t.Helper()
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	e, maps := testEngine(t, ser, nil)
	st, _ := maps.Get("m")
	for k := int32(0); k < n; k++ {
		s := benchmodel.SmallForKey(k)
		put(t, ser, st, k, &s)
	}
	cols := []plan.ScanCol{{Path: "__key", Type: expr.Integer}, {Path: "intField", Type: expr.Integer},
		{Path: "longField", Type: expr.BigInt}, {Path: "stringField", Type: expr.Varchar}}
	key := &expr.Col{Index: 0, T: expr.Integer}
	str := &expr.Col{Index: 3, T: expr.Varchar}
	num := func(i int64) expr.Expr { return &expr.Lit{V: expr.BigIntValue(i)} }
	rows := func(name string, filter expr.Expr, limit int64, proj ...int) sharedScanCase {
		f := &plan.Fragment{Map: "m", Cols: cols, Filter: filter, Limit: limit}
		for _, c := range proj {
			f.Project = append(f.Project, &expr.Col{Index: c, T: cols[c].Type})
			f.Out = append(f.Out, plan.Column{Type: cols[c].Type})
		}
		return sharedScanCase{name: name, f: f}
	}
	agg := &plan.Fragment{Map: "m", Cols: cols, Limit: -1,
		Filter: expr.NewCall("<", expr.Boolean, key, num(int64(n/3))),
		Aggs: []plan.AggCall{{Func: "count", T: expr.BigInt},
			{Func: "sum", Arg: &expr.Col{Index: 1, T: expr.Integer}, T: expr.BigInt}},
		Out: []plan.Column{{Type: expr.BigInt}, {Type: expr.BigInt}, {Type: expr.BigInt}}}
	return e, []sharedScanCase{
		rows("every seventh key", expr.NewCall("=", expr.Boolean, expr.NewCall("%", expr.BigInt, key, num(7)), num(3)), -1, 0, 3),
		rows("positive intField", expr.NewCall(">", expr.Boolean, &expr.Col{Index: 1, T: expr.Integer}, num(0)), -1, 0, 1, 2),
		rows("every row", expr.NewCall(">=", expr.Boolean, key, num(0)), -1, 0),
		// Filters on one field with different constants: the scans read
		// the field once per entry between them.
		rows("metin", expr.NewCall("=", expr.Boolean, str, &expr.Lit{V: expr.StringValue(benchmodel.Metin)}), -1, 0, 1),
		rows("no such string", expr.NewCall("=", expr.Boolean, str, &expr.Lit{V: expr.StringValue("none has it")}), -1, 0),
		{name: "count and sum", f: agg, agg: true},
	}
}

// runCase runs c over every partition and returns its rows, sorted.
func runCase(ctx context.Context, e *Engine, c sharedScanCase) ([]string, error) {
	var out []string
	var merged []aggState
	if c.agg {
		merged = newAggStates(c.f.Aggs)
	}
	err := e.runFragment(ctx, c.f, allParts(271), nil, NewMemoryAccount(0), func(b *Batch) error {
		rows, err := DecodeRows(b.Rows, b.Count, len(c.f.Out))
		if err != nil {
			return err
		}
		for _, r := range rows {
			if c.agg {
				merged[0].merge(r[:1])
				merged[1].merge(r[1:])
				continue
			}
			out = append(out, fmt.Sprint(r))
		}
		return nil
	})
	if c.agg {
		var row []expr.Value
		for i := range merged {
			row = merged[i].partial(row)
		}
		out = append(out, fmt.Sprint(row))
	}
	slices.Sort(out)
	return out, err
}

// aloneResults runs each case by itself and returns what each returned.
func aloneResults(t *testing.T, e *Engine, cases []sharedScanCase) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for _, c := range cases {
		got, err := runCase(context.Background(), e, c)
		if err != nil {
			t.Fatalf("%s alone: %v", c.name, err)
		}
		want[c.name] = got
	}
	return want
}

// TestSharedScans runs scans of one map at the same time, eight at once,
// until their reads were shared, and requires each to return what it
// returns alone: rows, aggregates, a LIMIT, a filter that fails on one
// entry (only its own scan fails) and a scan cancelled as it runs. Scans
// without a filter that return every entry read alone.
func TestSharedScans(t *testing.T) {
	const n = 20_000
	e, cases := sharedScanFixture(t, n)
	want := aloneResults(t, e, cases)
	if got := len(want["every row"]); got != n {
		t.Fatalf("every row alone: %d rows, want %d", got, n)
	}
	if got := len(want["metin"]); got != n/benchmodel.MetinEvery {
		t.Fatalf("metin alone: %d rows, want %d", got, n/benchmodel.MetinEvery)
	}
	key := &expr.Col{Index: 0, T: expr.Integer}
	failing := sharedScanCase{name: "division by zero", f: &plan.Fragment{Map: "m", Cols: cases[0].f.Cols, Limit: -1,
		Filter:  expr.NewCall(">", expr.Boolean, expr.NewCall("/", expr.BigInt, &expr.Lit{V: expr.BigIntValue(1)}, expr.NewCall("-", expr.BigInt, key, &expr.Lit{V: expr.BigIntValue(n / 2)})), &expr.Lit{V: expr.BigIntValue(0)}),
		Project: []expr.Expr{key}, Out: []plan.Column{{Type: expr.Integer}}}}
	if _, err := runCase(context.Background(), e, failing); err == nil {
		t.Fatal("a division by zero in the filter did not fail its scan")
	}
	limited := sharedScanCase{name: "limit", f: &plan.Fragment{Map: "m", Cols: cases[0].f.Cols, Limit: 25,
		Filter:  cases[2].f.Filter,
		Project: []expr.Expr{key}, Out: []plan.Column{{Type: expr.Integer}}}}

	before := e.shares.sharedReads()
	deadline := time.Now().Add(2 * time.Minute)
	for round := 0; round < 3 || e.shares.sharedReads() == before; round++ {
		if time.Now().After(deadline) {
			t.Fatalf("no read was shared in %d rounds of eight scans at once", round)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		run := func(c sharedScanCase, check func([]string, error) error) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				got, err := runCase(ctx, e, c)
				if err := check(got, err); err != nil {
					errs <- fmt.Errorf("round %d, %s: %w", round, c.name, err)
				}
			}()
		}
		for _, c := range cases {
			run(c, func(got []string, err error) error {
				if err != nil {
					return err
				}
				if !slices.Equal(got, want[c.name]) {
					return fmt.Errorf("%d rows, want %d (or other rows)", len(got), len(want[c.name]))
				}
				return nil
			})
		}
		run(failing, func(_ []string, err error) error {
			if err == nil {
				return errors.New("no error")
			}
			return nil
		})
		run(limited, func(got []string, err error) error {
			if err != nil {
				return err
			}
			if len(got) != 25 || len(slices.Compact(got)) != 25 {
				return fmt.Errorf("%d rows, want 25 different ones", len(got))
			}
			return nil
		})
		wg.Add(1)
		go func() { // cancelled as it runs: an error or every row
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(time.Duration(round%5) * 100 * time.Microsecond)
				cancel()
			}()
			got, err := runCase(ctx, e, cases[2])
			if err == nil && !slices.Equal(got, want[cases[2].name]) {
				errs <- fmt.Errorf("round %d, cancelled scan: %d rows and no error", round, len(got))
			} else if err != nil && !errors.Is(err, context.Canceled) {
				errs <- fmt.Errorf("round %d, cancelled scan: %w", round, err)
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			return
		}
	}
	e.shares.mu.Lock()
	maps := len(e.shares.byMap)
	e.shares.mu.Unlock()
	if maps != 0 {
		t.Errorf("%d maps still have scans after every scan ended", maps)
	}

	// Scans that hand out every entry as a row read alone.
	unfiltered := sharedScanCase{name: "unfiltered", f: &plan.Fragment{Map: "m", Cols: cases[0].f.Cols, Limit: -1,
		Project: []expr.Expr{key}, Out: []plan.Column{{Type: expr.Integer}}}}
	before = e.shares.sharedReads()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := runCase(context.Background(), e, unfiltered); err != nil || !slices.Equal(got, want["every row"]) {
				t.Errorf("unfiltered: %d rows, %v", len(got), err)
			}
		}()
	}
	wg.Wait()
	if shared := e.shares.sharedReads() - before; shared != 0 {
		t.Errorf("%d reads of unfiltered scans were shared", shared)
	}
}

// TestSlowSharedReadsGoSolo makes every shared read slow: the scans in it
// then read alone, and still return what they return alone. OnScanRead
// is told of every read, and of each partition every scan was given.
func TestSlowSharedReadsGoSolo(t *testing.T) {
	e, cases := sharedScanFixture(t, 40_000)
	var reads, served atomic.Int64
	e.cfg.OnScanRead = func(scans int) {
		reads.Add(1)
		served.Add(int64(scans))
	}
	want := aloneResults(t, e, cases)
	if got, want := served.Load(), int64(len(cases)*271); got != want || reads.Load() != want {
		t.Fatalf("scans one at a time: %d reads served %d partitions, want %d of each", reads.Load(), got, want)
	}
	defer func(d time.Duration) { slowRead = d }(slowRead)
	slowRead = 0
	for round := range 10 {
		before := e.shares.sharedReads()
		var wg sync.WaitGroup
		for _, c := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := runCase(context.Background(), e, c)
				if err != nil || !slices.Equal(got, want[c.name]) {
					t.Errorf("round %d, %s: %d rows, %v; want %d", round, c.name, len(got), err, len(want[c.name]))
				}
			}()
		}
		wg.Wait()
		// A read of some 150 entries times each filter in it twice or
		// more: a scan reads alone after two shared reads, and takes
		// part in four more at most meanwhile (two of its goroutines',
		// two with its riders).
		if shared := e.shares.sharedReads() - before; shared > int64(6*len(cases)) {
			t.Fatalf("round %d: %d shared reads of %d scans whose reads are all slow", round, shared, len(cases))
		}
	}
	if got, want := served.Load(), int64(11*len(cases)*271); got != want || reads.Load() > want {
		t.Fatalf("%d reads served %d partitions, want %d", reads.Load(), got, want)
	}
}

// TestEntryMemo reads fields of entries through the memo of a shared
// read: within an entry a reader's value is read once and kept (a second
// read of other bytes returns the first value), the key and the value are
// told apart, readers past the memo's slots are read every time, and the
// next entry reads afresh.
func TestEntryMemo(t *testing.T) {
	ser, err := serialization.NewService(benchmodel.Config())
	if err != nil {
		t.Fatal(err)
	}
	data := func(v any) []byte { return toData(t, ser, v) }
	acc := func(path string, typ expr.Type) *accessor {
		a, err := newAccessor(plan.ScanCol{Path: path, Type: typ}, ser)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	one, two := benchmodel.SmallForKey(1), benchmodel.SmallForKey(2)
	if one.IntField == two.IntField || one.StringField == two.StringField {
		t.Fatal("the two values must differ in intField and stringField")
	}
	k1, v1, v2 := data(int32(1)), data(&one), data(&two)
	intField := acc("intField", expr.Integer)
	var m entryMemo
	read := func(a *accessor, key, value []byte) serialization.FieldValue {
		t.Helper()
		var v serialization.FieldValue
		if err := m.readTo(a, a.data(key, value), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	m.next()
	if got := read(intField, k1, v1); got.I != int64(one.IntField) {
		t.Fatalf("intField of the first value: %d, want %d", got.I, one.IntField)
	}
	if got := read(acc("intField", expr.BigInt), k1, v2); got.I != int64(one.IntField) {
		t.Fatalf("intField read again in the entry: %d, want the kept %d", got.I, one.IntField)
	}
	if got := read(acc("__key", expr.Integer), k1, v1); got.I != 1 {
		t.Fatalf("the key: %d, want 1", got.I)
	}
	for _, path := range []string{"longField", "doubleField"} {
		read(acc(path, expr.Unknown), k1, v1) // fills the slots
	}
	if got := read(acc("stringField", expr.Varchar), k1, v2); string(got.B) != two.StringField {
		t.Fatalf("a reader past the slots: %q, want the second value's %q", got.B, two.StringField)
	}
	m.next()
	if got := read(intField, k1, v2); got.I != int64(two.IntField) {
		t.Fatalf("intField of the next entry: %d, want %d", got.I, two.IntField)
	}
	m.reset()
	for _, s := range m.slots {
		if s.rd != nil || s.v.B != nil {
			t.Fatal("reset kept a value")
		}
	}
}
