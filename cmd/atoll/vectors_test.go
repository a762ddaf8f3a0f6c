package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// committedVectors is the repository's vectors (testdata/vectors).
const committedVectors = "../../testdata/vectors"

func TestVectorsVerifyCommitted(t *testing.T) {
	out, err := runCLI(t, "vectors", "verify", committedVectors)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasSuffix(out, "153 passed, 0 failed\n") {
		t.Fatalf("output does not end with the summary:\n%s", out)
	}
}

func TestVectorsVerifyReportsFailures(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(committedVectors, "primitive.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	vs := f["vectors"].([]any)
	first := vs[0].(map[string]any)
	first["data_hex"] = strings.Replace(first["data_hex"].(string), "2a", "2b", 1) // Integer 42 becomes 43
	dir := t.TempDir()
	b, _ := json.Marshal(f)
	if err := os.WriteFile(filepath.Join(dir, "primitive.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "vectors", "verify", dir)
	var exit *exitError
	if !errors.As(err, &exit) || exit.code != 1 {
		t.Fatalf("want exit status 1, got %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got := lines[len(lines)-1]; got != "31 passed, 2 failed" {
		t.Fatalf("summary %q, want %q\n%s", got, "31 passed, 2 failed", out)
	}
	if !strings.Contains(out, "FAIL int_42") || !strings.Contains(out, "broken.json") {
		t.Fatalf("failure lines missing:\n%s", out)
	}
}
