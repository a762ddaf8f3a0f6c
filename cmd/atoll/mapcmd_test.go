package main

import (
	"strings"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
)

// TestQuickStart follows the README's quick start against a real member
// process.
func TestQuickStart(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	c.MustCLI("map", "put", "greetings", "hello", "world")
	if out := c.MustCLI("map", "get", "greetings", "hello"); out != "world\n" {
		t.Fatalf("get printed %q", out)
	}
	out, errOut, code := c.CLI("map", "get", "greetings", "nobody")
	if code != 1 || out != "" || strings.TrimSpace(errOut) != "not found" {
		t.Fatalf("get of a missing key: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	c.MustCLI("map", "put", "greetings", "brief", "hi", "--ttl", "1s")
	if out := c.MustCLI("map", "size", "greetings"); out != "2\n" {
		t.Fatalf("size printed %q", out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, _, code := c.CLI("map", "get", "greetings", "brief"); code == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an entry with --ttl 1s never expired")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := c.MustCLI("map", "size", "greetings"); out != "1\n" {
		t.Fatalf("size after expiry printed %q", out)
	}
	if out := c.MustCLI("map", "put", "greetings", "hello", "again"); out != "world\n" {
		t.Fatalf("put printed the previous value %q", out)
	}
	if out := c.MustCLI("map", "entries", "greetings"); out != "hello\tagain\n" {
		t.Fatalf("entries printed %q", out)
	}
	if out := c.MustCLI("map", "remove", "greetings", "hello"); out != "again\n" {
		t.Fatalf("remove printed %q", out)
	}
	c.MustCLI("map", "put", "n", "1", "10", "--key-type", "int", "--value-type", "long")
	if out := c.MustCLI("map", "get", "n", "1", "--key-type", "int"); out != "10\n" {
		t.Fatalf("typed get printed %q", out)
	}
	if _, errOut, code := c.CLI("map", "put", "n", "x", "1", "--key-type", "int"); code != 1 || !strings.Contains(errOut, "not an int") {
		t.Fatalf("bad int key: exit %d, %q", code, errOut)
	}
	if _, errOut, code := c.CLI("map", "put", "j", "k", "{oops", "--value-type", "json"); code != 1 || !strings.Contains(errOut, "not valid JSON") {
		t.Fatalf("bad JSON: exit %d, %q", code, errOut)
	}
	c.MustCLI("map", "clear", "greetings")
	if out := c.MustCLI("map", "stats", "greetings"); !strings.Contains(out, "owned-entry-count            0") {
		t.Fatalf("stats after clear:\n%s", out)
	}
}

func TestFillAndVerify(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	if out := c.MustCLI("map", "fill", "data", "--count", "3000", "--start", "100"); !strings.HasPrefix(out, "3000 written\nserialized key+value: ") {
		t.Fatalf("fill printed %q", out)
	}
	if out := c.MustCLI("map", "verify", "data", "--count", "3000", "--start", "100"); !strings.HasSuffix(out, "3000 ok, 0 missing, 0 wrong\n") {
		t.Fatalf("verify printed %q", out)
	}
	c.MustCLI("map", "remove", "data", "150", "--key-type", "int")
	c.MustCLI("map", "put", "data", "151", "tampered", "--key-type", "int")
	out, _, code := c.CLI("map", "verify", "data", "--count", "3000", "--start", "100")
	if code != 1 || !strings.HasSuffix(out, "2998 ok, 1 missing, 1 wrong\n") || !strings.Contains(out, "missing: key 150") {
		t.Fatalf("verify after damage: exit %d\n%s", code, out)
	}
	// The workload objects, as Compact values.
	c.MustCLI("map", "fill", "small", "--count", "500", "--value-type", "small")
	if out := c.MustCLI("map", "verify", "small", "--count", "500", "--value-type", "small"); !strings.HasSuffix(out, "500 ok, 0 missing, 0 wrong\n") {
		t.Fatalf("verify small printed %q", out)
	}
	if out := c.MustCLI("map", "get", "small", "100", "--key-type", "int"); !strings.Contains(out, "IntField") {
		t.Fatal("no output for a small value")
	}
}
