package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSmokeRandom(t *testing.T) {
	m := newTestMap(t, MapConfig{PartitionCount: 3})
	ref := map[string]string{}
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{1, 10, 100, 1000, 3000, 20000, 100_000}
	ops := 20000
	if raceEnabled {
		ops = 4000
	}
	for i := range ops {
		k := fmt.Sprintf("k%d", r.IntN(500))
		pid := int32(len(k) % 3)
		switch r.IntN(4) {
		case 0, 1:
			v := patternValue(i, sizes[r.IntN(len(sizes)-1+b2i(i%97 == 0))])
			old, ok, err := m.Put(pid, []byte(k), v, Expiry{})
			if err != nil {
				t.Fatal(err)
			}
			if rv, rok := ref[k]; rok != ok || rv != string(old) {
				t.Fatalf("op %d put %s: old mismatch", i, k)
			}
			ref[k] = string(v)
		case 2:
			old, ok, err := m.Remove(pid, []byte(k))
			if err != nil {
				t.Fatal(err)
			}
			if rv, rok := ref[k]; rok != ok || rv != string(old) {
				t.Fatalf("op %d remove %s: mismatch", i, k)
			}
			delete(ref, k)
		case 3:
			v, ok := mustGet(t, m, pid, k)
			if rv, rok := ref[k]; rok != ok || rv != v {
				t.Fatalf("op %d get %s: mismatch", i, k)
			}
		}
		if i%1000 == 0 {
			checkInvariants(t, m)
		}
	}
	checkInvariants(t, m)
	if m.Size() != int64(len(ref)) {
		t.Fatalf("size %d want %d", m.Size(), len(ref))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
