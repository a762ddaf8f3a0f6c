package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atolldb/atoll/internal/testcluster"
)

// TestSQLCommand runs `atoll sql` against a real member process: one-shot
// statements in every output format, an error's exit status, EXPLAIN, and
// the shell reading multi-line statements from a pipe.
func TestSQLCommand(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	c.MustCLI("sql", `CREATE MAPPING people (__key INT, name VARCHAR, note VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')`)
	if out := c.MustCLI("sql", `INSERT INTO people VALUES (1, 'Ada', 'says "hi", twice'), (2, 'Alan', NULL)`); out != "OK, 2 rows changed\n" {
		t.Fatalf("insert printed %q", out)
	}
	out := c.MustCLI("sql", "--format", "csv", `SELECT __key, name, note FROM people ORDER BY __key`)
	if want := "__key,name,note\n1,Ada,\"says \"\"hi\"\", twice\"\n2,Alan,\n"; out != want {
		t.Fatalf("csv:\n%q\nwant\n%q", out, want)
	}
	out = c.MustCLI("sql", `SELECT name FROM people WHERE __key = ?`, "--param", "int:2")
	if !strings.Contains(out, "| Alan |") || !strings.Contains(out, "(1 row)") {
		t.Fatalf("table:\n%s", out)
	}
	out = c.MustCLI("sql", "--format", "json", `SELECT __key, note FROM people ORDER BY __key`)
	if out != "{\"__key\":1,\"note\":\"says \\\"hi\\\", twice\"}\n{\"__key\":2,\"note\":null}\n" {
		t.Fatalf("json:\n%s", out)
	}
	out = c.MustCLI("sql", "--explain", `SELECT COUNT(*) FROM people`)
	if !strings.Contains(out, "MergeAggregate[COUNT(*)]") || !strings.Contains(out, "EntryCount[people]") {
		t.Fatalf("explain:\n%s", out)
	}
	// A predicate and its SQL twin explain alike from the command line.
	predPlan := c.MustCLI("map", "query", "people", "name = 'Ada'", "--explain", "--key-type", "int")
	sqlPlan := c.MustCLI("sql", "--explain", `SELECT __key, this FROM people WHERE name = ?`, "--param", "string:Ada")
	if predPlan != sqlPlan {
		t.Fatalf("predicate plan:\n%s\nSQL plan:\n%s", predPlan, sqlPlan)
	}
	if out := c.MustCLI("map", "query", "people", "name LIKE 'A%'", "--keys", "--key-type", "int"); out != "1\n2\n" && out != "2\n1\n" {
		t.Fatalf("map query --keys printed %q", out)
	}
	stdout, stderr, code := c.CLI("sql", `SELECT nope FROM people`)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "line 1, column 8: column nope does not exist") {
		t.Fatalf("bad statement: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// The shell: statements over several lines, ';' inside a string, an
	// error that does not end the session, history.
	args := []string{"sql", "--addr", strings.Join(c.Addrs(), ","), "--cluster-name", "test", "--history", filepath.Join(t.TempDir(), "hist")}
	cmd := exec.Command(testcluster.Binary(t), args...)
	cmd.Stdin = strings.NewReader("SELECT name\n  FROM people\n  WHERE name <> 'semi;colon'\n  OR __key = 2;\nSELECT bad FROM people;\n\\history\nSELECT COUNT(*)\nFROM people;\n")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("shell exit: %v (an error happened, so 1 is expected)\n%s%s", err, so.String(), se.String())
	}
	got := so.String()
	for _, want := range []string{"| Ada  |", "| Alan |", "(2 rows)", "1  SELECT name\n  FROM people", "| 2      |"} {
		if !strings.Contains(got, want) {
			t.Fatalf("shell output lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(se.String(), "column bad does not exist") {
		t.Fatalf("shell stderr: %s", se.String())
	}
}

// TestSQLCommandMemoryRetry: a statement the members' memory breaker
// refuses every time fails, after --retry-attempts, with the message that
// says so.
func TestSQLCommandMemoryRetry(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{ConfigYAML: "query: {memory-limit-per-member: 1}\n"})
	c.MustCLI("map", "put", "m", "a", "x")
	c.MustCLI("map", "put", "m", "b", "y")
	c.MustCLI("sql", `CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='varchar')`)
	stdout, stderr, code := c.CLI("sql", "--retry-attempts", "3", "--retry-base", "1ms", "--retry-cap", "2ms", `SELECT this FROM m ORDER BY this`)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "query refused for memory after 3 attempt(s)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Map operations never meet the breaker.
	if out := c.MustCLI("map", "get", "m", "a"); out != "x\n" {
		t.Fatalf("get printed %q", out)
	}
}
