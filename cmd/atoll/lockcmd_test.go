package main

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/testcluster"
)

// TestLockCommands holds a lock with `atoll map lock` in one process and
// looks at it, and breaks it, from others.
func TestLockCommands(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	c.MustCLI("map", "put", "accounts", "alice", "10")
	args := append([]string{"map", "lock", "accounts", "alice", "--hold", "2m"}, "--addr", strings.Join(c.Addrs(), ","), "--cluster-name", "test")
	holder := exec.Command(testcluster.Binary(t), args...)
	stdout, err := holder.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	holder.Stderr = &stderr
	require.NoError(t, holder.Start())
	t.Cleanup(func() { _ = holder.Process.Kill() })
	lines := bufio.NewReader(stdout)
	first, err := lines.ReadString('\n')
	require.NoError(t, err, "the lock command printed nothing: %s", stderr.String())
	require.Equal(t, "locked\n", first)

	out := c.MustCLI("map", "is-locked", "accounts", "alice")
	assert.True(t, strings.HasPrefix(out, "locked by a client (1 times)"), out)
	assert.Equal(t, "unlocked\n", c.MustCLI("map", "is-locked", "accounts", "bob"))
	_, errOut, code := c.CLI("map", "try-lock", "accounts", "alice", "--wait", "100ms")
	assert.Equal(t, 1, code)
	assert.Equal(t, "locked by another", strings.TrimSpace(errOut))
	_, errOut, code = c.CLI("map", "put", "accounts", "alice", "0", "--timeout", "1s")
	assert.NotEqual(t, 0, code, "a write of another client waits for the lock: %s", errOut)
	assert.Equal(t, "10\n", c.MustCLI("map", "get", "accounts", "alice"), "reads do not wait")

	// try-lock of a free key holds it until its hold ends, then unlocks.
	out = c.MustCLI("map", "try-lock", "accounts", "bob", "--hold", "100ms")
	assert.Equal(t, "locked\nunlocked\n", out)
	out = c.MustCLI("map", "lock", "accounts", "bob", "--lease", "200ms")
	assert.Equal(t, "locked\nlease ended\n", out)

	c.MustCLI("map", "force-unlock", "accounts", "alice")
	assert.Equal(t, "unlocked\n", c.MustCLI("map", "is-locked", "accounts", "alice"))
	c.MustCLI("map", "put", "accounts", "alice", "0")

	// The holder, interrupted, finds its lock gone.
	require.NoError(t, holder.Process.Signal(interruptSignal))
	rest, _ := io.ReadAll(lines)
	err = holder.Wait()
	assert.Error(t, err, "the holder's unlock of a lock broken by force-unlock fails (stdout %q)", rest)
	assert.Contains(t, stderr.String(), "not the lock's owner")

	// A lock is held by its command: once the command is gone, so is the lock.
	killed := exec.Command(testcluster.Binary(t), args...)
	kout, err := killed.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, killed.Start())
	line, err := bufio.NewReader(kout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
	require.NoError(t, killed.Process.Kill())
	_ = killed.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for c.MustCLI("map", "is-locked", "accounts", "alice") != "unlocked\n" {
		require.True(t, time.Now().Before(deadline), "the lock of a killed command was never released")
		time.Sleep(50 * time.Millisecond)
	}
}

// interruptSignal is what Ctrl-C sends.
var interruptSignal = syscall.SIGINT
