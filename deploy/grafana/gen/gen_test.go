package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDashboardsUpToDate fails when the committed dashboards differ from
// what the generator writes: run `go run ./deploy/grafana/gen`.
func TestDashboardsUpToDate(t *testing.T) {
	files, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(Dir(), name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator writes (%v): run go run ./deploy/grafana/gen", name, err)
		}
	}
}
