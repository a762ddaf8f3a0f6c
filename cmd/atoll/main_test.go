package main

import (
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
)

// TestVersionAndErrors: --version prints the version; an error prints one
// "atoll:" prefix; and with no member running a command fails at once,
// saying that every address refused the connection, instead of waiting
// out its --timeout.
func TestVersionAndErrors(t *testing.T) {
	bin := testcluster.Binary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "atoll "+member.Version {
		t.Fatalf("--version printed %q (%v), want %q", out, err, "atoll "+member.Version)
	}

	// Two addresses where nothing listens.
	var addrs []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		l.Close()
	}
	start := time.Now()
	cmd := exec.Command(bin, "map", "size", "m", "--addr", strings.Join(addrs, ","), "--timeout", "1m")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	took := time.Since(start)
	msg := stderr.String()
	if err == nil || !strings.HasPrefix(msg, "atoll: no member reachable: every address refused the connection") {
		t.Fatalf("with no member running: %v, stderr %q", err, msg)
	}
	for _, a := range addrs {
		if strings.Count(msg, a) != 1 {
			t.Errorf("the error does not name %s once: %q", a, msg)
		}
	}
	if !strings.Contains(msg, "is a member running there?") || len(msg) > 500 {
		t.Errorf("the error does not say what to check, or says too much: %q", msg)
	}
	if n := strings.Count(msg, "atoll:"); n != 1 {
		t.Errorf("%d \"atoll:\" prefixes in %q", n, msg)
	}
	if took > 10*time.Second {
		t.Errorf("failing took %v with a 1m --timeout; refused connections should fail at once", took)
	}

	// An error a member reports has one prefix too.
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	_, errOut, code := c.CLI("sql", "SELECT nope FROM nothing")
	if code != 1 || !strings.HasPrefix(errOut, "atoll: ") || strings.Count(errOut, "atoll:") != 1 || !strings.Contains(errOut, "mapping nothing does not exist") {
		t.Fatalf("a member's error: exit %d, stderr %q", code, errOut)
	}
}
