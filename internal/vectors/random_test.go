package vectors

import (
	"os"
	"testing"
)

// TestHazelcastRandom checks Go against Hazelcast on random objects: the
// vector files that the Java comparison with Hazelcast
// (tools/hazelcast-vectors, HazelcastRandomTest) writes in the same
// `make test`, in the directory ATOLL_RANDOM_VECTORS names. Without it the
// test has nothing to read and is skipped; `make test` always sets it.
func TestHazelcastRandom(t *testing.T) {
	dir := os.Getenv("ATOLL_RANDOM_VECTORS")
	if dir == "" {
		t.Skip("ATOLL_RANDOM_VECTORS is not set: run through `make test` or `make hazelcast-random`")
	}
	vs, errs := Load(dir)
	for _, err := range errs {
		t.Error(err)
	}
	if len(vs) == 0 {
		t.Fatalf("no random vectors in %s", dir)
	}
	failed := 0
	for _, v := range vs {
		if err := Check(v); err != nil {
			failed++
			if failed <= 5 {
				t.Errorf("%s (%s): %v\nvalue: %s\ndata: %s", v.Name, v.File, err, v.Value, v.DataHex)
			}
		}
	}
	t.Logf("%d random vectors from Hazelcast, %d failed", len(vs), failed)
	if failed > 0 {
		t.Fatalf("%d of %d random vectors differ", failed, len(vs))
	}
}
