package store

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

// snapshot is everything observable about a map's contents.
func snapshot(t *testing.T, m *Map) []byte {
	t.Helper()
	var out []byte
	for pid := range m.PartitionCount() {
		var err error
		out, _, err = m.ExportAppend(out, int32(pid), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Appendf(out, "%+v", m.Stats())
}

func TestBadInput(t *testing.T) {
	const maxKey, maxValue = 8, 16
	good := []byte("k")
	val := []byte("v")
	bigKey := bytes.Repeat([]byte("k"), maxKey+1)
	bigVal := bytes.Repeat([]byte("v"), maxValue+1)
	type op struct {
		name string
		call func(m *Map, pid int32, key, value []byte) error
	}
	e0 := func(_ any, err error) error { return err }
	e1 := func(_, _ any, err error) error { return err }
	ops := []op{
		{"get", func(m *Map, p int32, k, _ []byte) error { return e1(m.Get(p, k)) }},
		{"getAppend", func(m *Map, p int32, k, _ []byte) error { return e1(m.GetAppend(nil, p, k)) }},
		{"containsKey", func(m *Map, p int32, k, _ []byte) error { return e0(m.ContainsKey(p, k)) }},
		{"getEntryView", func(m *Map, p int32, k, _ []byte) error { return e1(m.GetEntryView(p, k)) }},
		{"getAll", func(m *Map, p int32, k, _ []byte) error {
			return m.GetAll(p, [][]byte{good, k}, func(int, []byte) {})
		}},
		{"put", func(m *Map, p int32, k, v []byte) error { return e1(m.Put(p, k, v, Expiry{})) }},
		{"putAppend", func(m *Map, p int32, k, v []byte) error { return e1(m.PutAppend(nil, p, k, v, Expiry{})) }},
		{"set", func(m *Map, p int32, k, v []byte) error { return m.Set(p, k, v, Expiry{}) }},
		{"putIfAbsent", func(m *Map, p int32, k, v []byte) error { return e1(m.PutIfAbsent(p, k, v, Expiry{})) }},
		{"replace", func(m *Map, p int32, k, v []byte) error { return e1(m.Replace(p, k, v)) }},
		{"replaceIfSame new", func(m *Map, p int32, k, v []byte) error { return e0(m.ReplaceIfSame(p, k, val, v)) }},
		{"replaceIfSame expected", func(m *Map, p int32, k, v []byte) error { return e0(m.ReplaceIfSame(p, k, v, val)) }},
		{"setIfVersion", func(m *Map, p int32, k, v []byte) error { return e1(m.SetIfVersion(p, k, v, 1, Expiry{})) }},
		{"putAll", func(m *Map, p int32, k, v []byte) error {
			return m.PutAll(p, []Entry{{[]byte("other"), val}, {k, v}}, Expiry{})
		}},
		{"remove", func(m *Map, p int32, k, _ []byte) error { return e1(m.Remove(p, k)) }},
		{"delete", func(m *Map, p int32, k, _ []byte) error { return e0(m.Delete(p, k)) }},
		{"removeIfSame", func(m *Map, p int32, k, v []byte) error { return e0(m.RemoveIfSame(p, k, v)) }},
		{"removeIfVersion", func(m *Map, p int32, k, _ []byte) error { return e0(m.RemoveIfVersion(p, k, 1)) }},
		{"evict", func(m *Map, p int32, k, _ []byte) error { return e0(m.Evict(p, k)) }},
		{"setTtl", func(m *Map, p int32, k, _ []byte) error { return e0(m.SetTTL(p, k, time.Second)) }},
		{"applyRecord", func(m *Map, p int32, k, v []byte) error {
			return m.ApplyRecord(p, EntryView{Key: k, Value: v, EntryMeta: EntryMeta{Version: 9}})
		}},
		{"applyRemove", func(m *Map, p int32, k, _ []byte) error { return e0(m.ApplyRemove(p, k)) }},
	}
	usesValue := map[string]bool{"put": true, "putAppend": true, "set": true, "putIfAbsent": true, "replace": true,
		"replaceIfSame new": true, "replaceIfSame expected": true, "setIfVersion": true, "putAll": true,
		"removeIfSame": true, "applyRecord": true}
	bad := []struct {
		name     string
		pid      int32
		key, val []byte
		want     error
		valueArg bool // only for ops that take a value
	}{
		{"nil key", 0, nil, val, ErrInvalidKey, false},
		{"empty key", 0, []byte{}, val, ErrInvalidKey, false},
		{"key too large", 0, bigKey, val, ErrTooLarge, false},
		{"negative partition", -1, good, val, ErrPartitionRange, false},
		{"partition too high", 3, good, val, ErrPartitionRange, false},
		{"nil value", 0, good, nil, ErrInvalidValue, true},
		{"empty value", 0, good, []byte{}, ErrInvalidValue, true},
		{"value too large", 0, good, bigVal, ErrTooLarge, true},
	}
	for _, o := range ops {
		for _, c := range bad {
			if c.valueArg && !usesValue[o.name] {
				continue
			}
			t.Run(o.name+"/"+c.name, func(t *testing.T) {
				m := newTestMap(t, MapConfig{PartitionCount: 3, MaxKeySize: maxKey, MaxValueSize: maxValue})
				mustSet(t, m, 0, "k", "v")
				mustSet(t, m, 0, "other", "v")
				before := snapshot(t, m)
				err := o.call(m, c.pid, c.key, c.val)
				var se *Error
				if !errors.Is(err, c.want) || !errors.As(err, &se) || se.Op == "" {
					t.Fatalf("got %v, want *Error wrapping %v", err, c.want)
				}
				if after := snapshot(t, m); !bytes.Equal(before, after) {
					t.Fatal("stored data changed")
				}
				checkInvariants(t, m)
			})
		}
	}
}

func TestBadInputOther(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 2})
	mustSet(t, m, 0, "k", "v")
	before := snapshot(t, m)
	checks := []struct {
		name string
		err  error
		want error
	}{
		{"negative ttl", m.Set(0, []byte("k"), []byte("w"), Expiry{TTL: -time.Second}), ErrInvalidExpiry},
		{"negative max idle", m.Set(0, []byte("k"), []byte("w"), Expiry{MaxIdle: -1}), ErrInvalidExpiry},
		{"putAll negative ttl", m.PutAll(0, []Entry{{[]byte("k"), []byte("w")}}, Expiry{TTL: -1}), ErrInvalidExpiry},
		{"setTtl negative", func() error { _, err := m.SetTTL(0, []byte("k"), -1); return err }(), ErrInvalidExpiry},
		{"applyRecord negative ttl", m.ApplyRecord(0, EntryView{Key: []byte("k"), Value: []byte("w"), EntryMeta: EntryMeta{Expiry: Expiry{TTL: -1}}}), ErrInvalidExpiry},
		{"clear range", func() error { _, err := m.Clear(2); return err }(), ErrPartitionRange},
		{"drop range", m.DropPartition(-1), ErrPartitionRange},
		{"size range", func() error { _, err := m.PartitionSize(2); return err }(), ErrPartitionRange},
		{"scan range", m.Scan(2, func(EntryView) bool { return true }), ErrPartitionRange},
		{"iterate range", func() error { _, err := m.Iterate(-5, 0, 0, func(EntryView) bool { return true }); return err }(), ErrPartitionRange},
		{"export range", func() error { _, _, err := m.ExportAppend(nil, 2, 0, 0); return err }(), ErrPartitionRange},
		{"import range", func() error { _, err := m.Import(2, []byte{exportFormat}); return err }(), ErrPartitionRange},
		{"setRole range", m.SetRole(2, RoleBackup), ErrPartitionRange},
		{"setRole bad role", m.SetRole(0, Role(7)), ErrInvalidConfig},
		{"role range", func() error { _, err := m.Role(2); return err }(), ErrPartitionRange},
		{"removeIfSame empty expected", func() error { _, err := m.RemoveIfSame(0, []byte("k"), nil); return err }(), ErrInvalidValue},
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
		var se *Error
		if !errors.As(c.err, &se) {
			t.Errorf("%s: not an *Error: %T", c.name, c.err)
		}
	}
	if after := snapshot(t, m); !bytes.Equal(before, after) {
		t.Fatal("stored data changed")
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []MapConfig{
		{PartitionCount: -1},
		{MaxKeySize: -1},
		{MaxValueSize: 2 << 30},
		{TTL: -time.Second},
		{MaxIdle: -1},
		{Eviction: EvictionConfig{Policy: 9}},
		{Eviction: EvictionConfig{Policy: EvictionLRU, MaxEntries: -1}},
		{Eviction: EvictionConfig{SampleSize: 5000}},
	} {
		if _, err := NewMap(c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: got %v", c, err)
		}
	}
}
