package vectors

import (
	"path/filepath"
	"runtime"
	"testing"
)

// sharedVectors is the directory of Hazelcast's vectors beside the checkout.
func sharedVectors(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "vectors")
}

func TestSharedVectors(t *testing.T) {
	vs, errs := Load(sharedVectors(t))
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
