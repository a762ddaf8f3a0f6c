package vectors

import (
	"testing"
)

// committedVectors is the repository's vectors, written by Hazelcast
// (tools/hazelcast-vectors, `make vectors`).
const committedVectors = "../../testdata/vectors"

func TestCommittedVectors(t *testing.T) {
	vs, errs := Load(committedVectors)
	for _, err := range errs {
		t.Error(err)
	}
	if len(vs) == 0 {
		t.Fatal("no vectors found")
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if err := Check(v); err != nil {
				t.Fatal(err)
			}
		})
	}
}
