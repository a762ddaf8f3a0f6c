package store

import (
	"bytes"
	"errors"
	"testing"
)

// step is one operation of a contract scenario with its expected outcome.
type step struct {
	name string
	do   func(m *Map) (got any, err error)
	want any
}

func b(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

type valOK struct {
	V  string
	OK bool
}

func put(pid int32, k, v string) func(*Map) (any, error) {
	return func(m *Map) (any, error) {
		old, ok, err := m.Put(pid, b(k), b(v), Expiry{})
		return valOK{string(old), ok}, err
	}
}

func set(pid int32, k, v string) func(*Map) (any, error) {
	return func(m *Map) (any, error) { return nil, m.Set(pid, b(k), b(v), Expiry{}) }
}

func get(pid int32, k string) func(*Map) (any, error) {
	return func(m *Map) (any, error) {
		v, ok, err := m.Get(pid, b(k))
		return valOK{string(v), ok}, err
	}
}

func TestContract(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"put returns old value", []step{
			{"first put", put(0, "a", "1"), valOK{"", false}},
			{"second put", put(0, "a", "2"), valOK{"1", true}},
			{"get", get(0, "a"), valOK{"2", true}},
			{"other partition is separate", get(1, "a"), valOK{"", false}},
		}},
		{"set and get", []step{
			{"set", set(0, "a", "1"), nil},
			{"set again", set(0, "a", "22"), nil},
			{"get", get(0, "a"), valOK{"22", true}},
			{"get missing", get(0, "b"), valOK{"", false}},
		}},
		{"remove returns old, delete reports presence", []step{
			{"set", set(0, "a", "1"), nil},
			{"remove", func(m *Map) (any, error) {
				v, ok, err := m.Remove(0, b("a"))
				return valOK{string(v), ok}, err
			}, valOK{"1", true}},
			{"remove again", func(m *Map) (any, error) {
				v, ok, err := m.Remove(0, b("a"))
				return valOK{string(v), ok}, err
			}, valOK{"", false}},
			{"set", set(0, "a", "1"), nil},
			{"delete", func(m *Map) (any, error) { return m.Delete(0, b("a")) }, true},
			{"delete again", func(m *Map) (any, error) { return m.Delete(0, b("a")) }, false},
			{"gone", get(0, "a"), valOK{"", false}},
		}},
		{"putIfAbsent", []step{
			{"absent: stores", func(m *Map) (any, error) {
				v, ok, err := m.PutIfAbsent(0, b("a"), b("1"), Expiry{})
				return valOK{string(v), ok}, err
			}, valOK{"", true}},
			{"present: returns current", func(m *Map) (any, error) {
				v, ok, err := m.PutIfAbsent(0, b("a"), b("2"), Expiry{})
				return valOK{string(v), ok}, err
			}, valOK{"1", false}},
			{"unchanged", get(0, "a"), valOK{"1", true}},
		}},
		{"replace", []step{
			{"absent: nothing", func(m *Map) (any, error) {
				v, ok, err := m.Replace(0, b("a"), b("1"))
				return valOK{string(v), ok}, err
			}, valOK{"", false}},
			{"still absent", get(0, "a"), valOK{"", false}},
			{"set", set(0, "a", "1"), nil},
			{"present: replaces", func(m *Map) (any, error) {
				v, ok, err := m.Replace(0, b("a"), b("2"))
				return valOK{string(v), ok}, err
			}, valOK{"1", true}},
			{"get", get(0, "a"), valOK{"2", true}},
		}},
		{"replace if same compares bytes", []step{
			{"absent", func(m *Map) (any, error) { return m.ReplaceIfSame(0, b("a"), b("1"), b("2")) }, false},
			{"set", set(0, "a", "1"), nil},
			{"different", func(m *Map) (any, error) { return m.ReplaceIfSame(0, b("a"), b("11"), b("2")) }, false},
			{"same", func(m *Map) (any, error) { return m.ReplaceIfSame(0, b("a"), b("1"), b("2")) }, true},
			{"get", get(0, "a"), valOK{"2", true}},
		}},
		{"remove if same", []step{
			{"set", set(0, "a", "1"), nil},
			{"different", func(m *Map) (any, error) { return m.RemoveIfSame(0, b("a"), b("2")) }, false},
			{"same", func(m *Map) (any, error) { return m.RemoveIfSame(0, b("a"), b("1")) }, true},
			{"gone", get(0, "a"), valOK{"", false}},
		}},
		{"containsKey", []step{
			{"absent", func(m *Map) (any, error) { return m.ContainsKey(0, b("a")) }, false},
			{"set", set(0, "a", "1"), nil},
			{"present", func(m *Map) (any, error) { return m.ContainsKey(0, b("a")) }, true},
		}},
		{"evict", []step{
			{"absent", func(m *Map) (any, error) { return m.Evict(0, b("a")) }, false},
			{"set", set(0, "a", "1"), nil},
			{"present", func(m *Map) (any, error) { return m.Evict(0, b("a")) }, true},
			{"gone", get(0, "a"), valOK{"", false}},
			{"counted", func(m *Map) (any, error) { return m.Stats().Evictions, nil }, int64(1)},
		}},
		{"size and clear", []step{
			{"set a", set(0, "a", "1"), nil},
			{"set b", set(0, "b", "1"), nil},
			{"set c", set(2, "c", "1"), nil},
			{"partition size", func(m *Map) (any, error) { return m.PartitionSize(0) }, 2},
			{"size", func(m *Map) (any, error) { return m.Size(), nil }, int64(3)},
			{"clear", func(m *Map) (any, error) { return m.Clear(0) }, 2},
			{"partition empty", func(m *Map) (any, error) { return m.PartitionSize(0) }, 0},
			{"size after", func(m *Map) (any, error) { return m.Size(), nil }, int64(1)},
			{"other partition kept", get(2, "c"), valOK{"1", true}},
			{"usable after clear", put(0, "a", "2"), valOK{"", false}},
		}},
		{"evict all", []step{
			{"set a", set(0, "a", "1"), nil},
			{"set b", set(0, "b", "1"), nil},
			{"set c", set(2, "c", "1"), nil},
			{"evict all", func(m *Map) (any, error) { return m.EvictAll(0) }, 2},
			{"partition empty", func(m *Map) (any, error) { return m.PartitionSize(0) }, 0},
			{"other partition kept", get(2, "c"), valOK{"1", true}},
			{"counted as evictions", func(m *Map) (any, error) { return m.Stats().Evictions, nil }, int64(2)},
		}},
		{"versions", []step{
			{"setIfVersion 0 on absent creates", func(m *Map) (any, error) {
				v, ok, err := m.SetIfVersion(0, b("a"), b("1"), 0, Expiry{})
				return [2]any{v, ok}, err
			}, [2]any{uint32(1), true}},
			{"setIfVersion 0 on present fails", func(m *Map) (any, error) {
				v, ok, err := m.SetIfVersion(0, b("a"), b("2"), 0, Expiry{})
				return [2]any{v, ok}, err
			}, [2]any{uint32(1), false}},
			{"setIfVersion wrong version fails", func(m *Map) (any, error) {
				v, ok, err := m.SetIfVersion(0, b("a"), b("2"), 7, Expiry{})
				return [2]any{v, ok}, err
			}, [2]any{uint32(1), false}},
			{"setIfVersion right version", func(m *Map) (any, error) {
				v, ok, err := m.SetIfVersion(0, b("a"), b("2"), 1, Expiry{})
				return [2]any{v, ok}, err
			}, [2]any{uint32(2), true}},
			{"set bumps", set(0, "a", "3"), nil},
			{"view version", func(m *Map) (any, error) {
				v, _, err := m.GetEntryView(0, b("a"))
				return v.Version, err
			}, uint32(3)},
			{"removeIfVersion wrong", func(m *Map) (any, error) { return m.RemoveIfVersion(0, b("a"), 2) }, false},
			{"removeIfVersion right", func(m *Map) (any, error) { return m.RemoveIfVersion(0, b("a"), 3) }, true},
			{"recreated starts at 1", func(m *Map) (any, error) {
				v, ok, err := m.SetIfVersion(0, b("a"), b("1"), 0, Expiry{})
				return [2]any{v, ok}, err
			}, [2]any{uint32(1), true}},
		}},
		{"putAll and getAll", []step{
			{"putAll", func(m *Map) (any, error) {
				return nil, m.PutAll(1, []Entry{{b("a"), b("1")}, {b("b"), b("2")}, {b("a"), b("3")}}, Expiry{})
			}, nil},
			{"getAll", func(m *Map) (any, error) {
				got := map[int]string{}
				err := m.GetAll(1, [][]byte{b("a"), b("x"), b("b")}, func(i int, v []byte) { got[i] = string(v) })
				return got, err
			}, map[int]string{0: "3", 2: "2"}},
			{"size", func(m *Map) (any, error) { return m.PartitionSize(1) }, 2},
		}},
		{"values of every size", []step{
			{"1 byte", put(0, "a", "x"), valOK{"", false}},
			{"3 KB (tier 1)", put(0, "a", string(bytes.Repeat([]byte("y"), 3000))), valOK{"x", true}},
			{"300 KB (own chunk)", put(0, "a", string(bytes.Repeat([]byte("z"), 300_000))), valOK{string(bytes.Repeat([]byte("y"), 3000)), true}},
			{"back to small", put(0, "a", "w"), valOK{string(bytes.Repeat([]byte("z"), 300_000)), true}},
			{"get", get(0, "a"), valOK{"w", true}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, MapConfig{PartitionCount: 4})
			for _, s := range tc.steps {
				got, err := s.do(m)
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				if !equalAny(got, s.want) {
					t.Fatalf("%s: got %v, want %v", s.name, got, s.want)
				}
				checkInvariants(t, m)
			}
		})
	}
}

func equalAny(a, b any) bool {
	am, ok1 := a.(map[int]string)
	bm, ok2 := b.(map[int]string)
	if ok1 || ok2 {
		if len(am) != len(bm) {
			return false
		}
		for k, v := range am {
			if bm[k] != v {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestStoreCopiesBytes(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	k, v := []byte("key"), []byte("value")
	mustSet(t, m, 0, string(k), string(v))
	if err := m.Set(0, k, v, Expiry{}); err != nil {
		t.Fatal(err)
	}
	k[0], v[0] = 'X', 'X' // the caller reuses its buffers
	got, ok, _ := m.Get(0, []byte("key"))
	if !ok || string(got) != "value" {
		t.Fatalf("stored bytes changed with the caller's buffer: %q %v", got, ok)
	}
	got[0] = 'Y' // the caller modifies a returned copy
	if again, _ := mustGet(t, m, 0, "key"); again != "value" {
		t.Fatalf("returned value aliases the store: %q", again)
	}
	old, _, _ := m.Put(0, []byte("key"), []byte("other"), Expiry{})
	old[0] = 'Z'
	ev, _, _ := m.GetEntryView(0, []byte("key"))
	ev.Key[0], ev.Value[0] = 'Q', 'Q'
	if again, _ := mustGet(t, m, 0, "key"); again != "other" {
		t.Fatalf("old value or entry view aliases the store: %q", again)
	}
}

func TestAppendVariants(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 1})
	mustSet(t, m, 0, "k", "v1")
	dst := []byte("prefix:")
	dst, ok, err := m.GetAppend(dst, 0, []byte("k"))
	if err != nil || !ok || string(dst) != "prefix:v1" {
		t.Fatalf("GetAppend = %q %v %v", dst, ok, err)
	}
	dst, ok, err = m.PutAppend(dst[:0], 0, []byte("k"), []byte("v2"), Expiry{})
	if err != nil || !ok || string(dst) != "v1" {
		t.Fatalf("PutAppend = %q %v %v", dst, ok, err)
	}
	dst, ok, err = m.RemoveAppend(dst[:0], 0, []byte("k"))
	if err != nil || !ok || string(dst) != "v2" {
		t.Fatalf("RemoveAppend = %q %v %v", dst, ok, err)
	}
	dst, ok, err = m.GetAppend(dst[:0], 0, []byte("k"))
	if err != nil || ok || len(dst) != 0 {
		t.Fatalf("GetAppend on missing = %q %v %v", dst, ok, err)
	}
}

// Hot paths allocate nothing beyond the returned copy.
func TestHotPathAllocations(t *testing.T) {
	m := newTestMap(t, MapConfig{})
	key := dataKey(nil, 42)
	pid := partitionOf(key, m.PartitionCount())
	value := fillValue(make([]byte, smallValue), 1)
	if err := m.Set(pid, key, value, Expiry{}); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 0, 128)
	cases := []struct {
		name string
		want float64
		fn   func()
	}{
		{"GetAppend", 0, func() { dst, _, _ = m.GetAppend(dst[:0], pid, key) }},
		{"Get", 1, func() { _, _, _ = m.Get(pid, key) }},
		{"Set same size (in place)", 0, func() { _ = m.Set(pid, key, value, Expiry{}) }},
		{"PutAppend", 0, func() { dst, _, _ = m.PutAppend(dst[:0], pid, key, value, Expiry{}) }},
		{"ContainsKey", 0, func() { _, _ = m.ContainsKey(pid, key) }},
		{"Delete then Set (amortized)", 0, func() { _, _ = m.Delete(pid, key); _ = m.Set(pid, key, value, Expiry{}) }},
	}
	for _, c := range cases {
		if got := testing.AllocsPerRun(200, c.fn); got > c.want {
			t.Errorf("%s: %v allocs/op, want <= %v", c.name, got, c.want)
		}
	}
}

func TestErrorType(t *testing.T) {
	m := newTestMap(t, MapConfig{Name: "orders", PartitionCount: 2, MaxKeySize: 4})
	_, _, err := m.Get(0, []byte("too long"))
	var se *Error
	if !errors.As(err, &se) || se.Op != "get" || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %#v", err)
	}
	if want := "store: get: too large: key is 8 bytes, limit is 4 (MapConfig.MaxKeySize)"; err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
}
