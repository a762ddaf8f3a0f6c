package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/testcluster"
)

// runAtoll runs the atoll command with env added to the environment and
// stdin as its input; it returns stdout, stderr and the exit status.
func runAtoll(t *testing.T, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testcluster.Binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("atoll %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

func mustAtoll(t *testing.T, env []string, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := runAtoll(t, env, stdin, args...)
	require.Equal(t, 0, code, "atoll %v:\n%s%s", args, out, errOut)
	return out
}

// TestSecureCLI builds a secured member the way the README does, with
// the CLI alone: a CA and certificates (create-ca, create-cert), a
// password hash and a token hash for the security section, a member
// process started with the TLS flags and the cluster secret from the
// environment. Then the client commands connect with --tls-ca and
// credentials from files or the environment (never argv), are refused
// without them, and `atoll profile` and `atoll member memory` pass
// credentials (a token, a client certificate) to the admin address.
func TestSecureCLI(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	mustAtoll(t, nil, "", "security", "create-ca", "--out", dir)
	mustAtoll(t, nil, "", "security", "create-cert", "--ca-dir", dir, "--name", "member", "--hosts", "127.0.0.1,localhost", "--out", dir)
	mustAtoll(t, nil, "", "security", "create-cert", "--ca-dir", dir, "--kind", "client", "--name", "ops-cert", "--out", dir)

	require.NoError(t, os.WriteFile(file("app.password"), []byte("app-password-1\n"), 0o600))
	appHash := strings.TrimSpace(mustAtoll(t, nil, "", "security", "hash-password", "--password-file", file("app.password")))
	assert.NoError(t, bcrypt.CompareHashAndPassword([]byte(appHash), []byte("app-password-1")))
	cost, err := bcrypt.Cost([]byte(appHash))
	require.NoError(t, err)
	assert.Equal(t, security.BcryptCost, cost)
	argon := strings.TrimSpace(mustAtoll(t, nil, "other-password\n", "security", "hash-password", "--algorithm", "argon2id"))
	assert.True(t, strings.HasPrefix(argon, "$argon2id$v=19$"), argon)
	token := mustAtoll(t, nil, "", "security", "new-token")
	require.NoError(t, os.WriteFile(file("ops.token"), []byte(token), 0o600))
	tokenHash := strings.TrimSpace(mustAtoll(t, nil, "", "security", "hash-token", "--token-file", file("ops.token")))
	assert.Equal(t, security.HashToken([]byte(strings.TrimSpace(token))), tokenHash)

	yaml := `security:
  users:
    - {name: app, password-hash: '` + appHash + `', roles: [app]}
    - {name: other, password-hash: '` + argon + `', roles: [app]}
  tokens:
    - {name: ops, token-hash: '` + tokenHash + `', roles: [ops]}
  certificates:
    - {subject: CN=ops-cert, roles: [ops]}
  roles:
    app: {maps: {"*": [create, put, read, remove]}, cluster: [sql]}
    ops: {cluster: [admin]}
`
	t.Setenv("ATOLL_CLUSTER_SECRET", "a-cluster-secret-from-the-environment")
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{
		ConfigYAML: yaml,
		Args:       []string{"--tls-cert", file("member.crt"), "--tls-key", file("member.key"), "--tls-ca", file("ca.crt")},
	})
	logs := c.Live()[0].Logs()
	assert.Contains(t, logs, `members-authenticated-by="certificates of the members' CA and the cluster secret"`)
	addr, admin := c.Addrs()[0], c.Live()[0].AdminAddr
	conn := []string{"--addr", addr, "--cluster-name", "test"}
	withTLS := append([]string{"--tls-ca", file("ca.crt")}, conn...)

	// Flags.
	mustAtoll(t, nil, "", append([]string{"map", "put", "m", "k", "v", "--user", "app", "--password-file", file("app.password")}, withTLS...)...)
	// The environment.
	env := []string{"ATOLL_TLS_CA=" + file("ca.crt"), "ATOLL_USER=app", "ATOLL_PASSWORD_FILE=" + file("app.password")}
	assert.Equal(t, "v\n", mustAtoll(t, env, "", append([]string{"map", "get", "m", "k"}, conn...)...))
	assert.Equal(t, "v\n", mustAtoll(t, []string{"ATOLL_TLS_CA=" + file("ca.crt"), "ATOLL_USER=other", "ATOLL_PASSWORD=other-password"}, "",
		append([]string{"map", "get", "m", "k"}, conn...)...))
	mustAtoll(t, env, "", append([]string{"sql", "CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='varchar')"}, conn...)...)
	assert.Contains(t, mustAtoll(t, env, "", append([]string{"sql", "SELECT this FROM m", "--format", "csv"}, conn...)...), "v")

	// Refusals.
	_, errOut, code := runAtoll(t, nil, "", append([]string{"map", "get", "m", "k"}, withTLS...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "authentication failed: no credentials")
	require.NoError(t, os.WriteFile(file("wrong.password"), []byte("nope"), 0o600))
	_, errOut, code = runAtoll(t, nil, "", append([]string{"map", "get", "m", "k", "--user", "app", "--password-file", file("wrong.password")}, withTLS...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "unknown user or wrong password")
	assert.NotContains(t, errOut, "nope")
	_, errOut, code = runAtoll(t, nil, "", append([]string{"map", "get", "m", "k", "--user", "app", "--password-file", file("app.password")}, conn...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "serves TLS only")
	_, errOut, code = runAtoll(t, env, "", append([]string{"map", "get", "m", "k", "--user", "app"}, conn...)...)
	assert.Equal(t, 0, code, "the password file still comes from the environment: %s", errOut)

	// Cluster commands need the admin action: a token.
	_, errOut, code = runAtoll(t, env, "", append([]string{"cluster", "members"}, conn...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `cluster action "admin"`)
	out := mustAtoll(t, []string{"ATOLL_TLS_CA=" + file("ca.crt"), "ATOLL_TOKEN_FILE=" + file("ops.token")}, "", append([]string{"cluster", "members"}, conn...)...)
	assert.Contains(t, out, "1 members")
	out = mustAtoll(t, env, "", append([]string{"cluster", "members", "--token-file", file("ops.token")}, conn...)...)
	assert.Contains(t, out, "1 members", "a token on the command line wins over the user of the environment")

	// The admin address: profiles and memory need the admin action too.
	_, errOut, code = runAtoll(t, nil, "", "profile", "heap", "--member", admin, "--tls-ca", file("ca.crt"), "--out", file("heap"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "401 Unauthorized")
	out = mustAtoll(t, nil, "", "profile", "heap", "--member", admin, "--tls-ca", file("ca.crt"), "--token-file", file("ops.token"), "--out", file("heap"))
	assert.Contains(t, out, "flame graph")
	require.FileExists(t, file("heap.pb.gz"))
	out = mustAtoll(t, nil, "", "member", "memory", "--admin", admin, "--tls-ca", file("ca.crt"), "--tls-cert", file("ops-cert.crt"), "--tls-key", file("ops-cert.key"))
	assert.Contains(t, out, "goroutines")
	_, errOut, code = runAtoll(t, env, "", "member", "memory", "--admin", admin)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "403 Forbidden", "the app user is no admin")

	// Secrets never appear in the member's log.
	logs = c.Live()[0].Logs()
	for _, secret := range []string{"app-password-1", "other-password", strings.TrimSpace(token), "a-cluster-secret-from-the-environment"} {
		assert.NotContains(t, logs, secret)
	}
}
