package security

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"orders", "orders", true},
		{"orders", "orders2", false},
		{"*", "", true},
		{"*", "a/b:c", true},
		{"orders-*", "orders-2024", true},
		{"orders-*", "orders", false},
		{"*-cache", "users-cache", true},
		{"*-cache", "users-cache2", false},
		{"a*b*c", "axbyc", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
		{"*ab*ab", "ab", false},
		{"*ab*ab", "abab", true},
		{"*x*xy", "xy", false},
		{"*x*xy", "xxy", true},
		{"[a]", "a", false}, // no other metacharacters
		{"[a]", "[a]", true},
	} {
		assert.Equal(t, c.want, Match(c.pattern, c.name), "Match(%q, %q)", c.pattern, c.name)
	}
}

func testConfig(t *testing.T) *Config {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("app-pass"), bcrypt.MinCost)
	require.NoError(t, err)
	argon, err := HashPassword([]byte("ops-pass"), Argon2id)
	require.NoError(t, err)
	return &Config{
		Users: []UserConfig{
			{Name: "app", PasswordHash: string(hash), Roles: []string{"app"}},
			{Name: "ops", PasswordHash: argon, Roles: []string{"admin"}},
		},
		Tokens:       []TokenConfig{{Name: "ci", TokenHash: HashToken([]byte("tok-123")), Roles: []string{"reader"}}},
		Certificates: []CertificateConfig{{Subject: "CN=reporting", Roles: []string{"reader"}}},
		Roles: map[string]RoleConfig{
			"app":    {Maps: map[string][]string{"orders-*": {"put", "read", "remove"}, "cache": {"all"}}, Cluster: []string{"sql"}},
			"reader": {Maps: map[string][]string{"*": {"read"}}},
			"admin":  {Maps: map[string][]string{"*": {"all"}}, Cluster: []string{"sql", "admin"}},
		},
	}
}

func TestAuthenticateAndAllowed(t *testing.T) {
	a, err := NewAuthenticator(testConfig(t))
	require.NoError(t, err)
	ctx := context.Background()

	app, err := a.Authenticate(ctx, BasicCredentials("app", "app-pass"), nil)
	require.NoError(t, err)
	assert.Equal(t, "user app", app.Name)
	assert.True(t, app.Allowed(ActionPut, "orders-1"))
	assert.True(t, app.Allowed(ActionRead, "orders-1"))
	assert.False(t, app.Allowed(ActionDestroy, "orders-1"))
	assert.False(t, app.Allowed(ActionRead, "orders"))
	assert.True(t, app.Allowed(ActionLock, "cache"), "all includes lock")
	assert.True(t, app.Allowed(ActionSQL, ""))
	assert.False(t, app.Allowed(ActionAdmin, ""))
	assert.True(t, app.Allowed(ActionPut|ActionRemove, "orders-1"), "a set of actions needs every one")

	var denied *DeniedError
	err = app.Check(ActionDestroy, "orders-1")
	require.ErrorAs(t, err, &denied)
	assert.ErrorIs(t, err, ErrDenied)
	assert.Contains(t, err.Error(), `map "orders-1"`)
	assert.Contains(t, err.Error(), "destroy")
	assert.Contains(t, app.Check(ActionAdmin, "ignored").Error(), `cluster action "admin"`)

	ops, err := a.Authenticate(ctx, BasicCredentials("ops", "ops-pass"), nil)
	require.NoError(t, err)
	assert.True(t, ops.Allowed(ActionAdmin, ""))

	ci, err := a.Authenticate(ctx, "Bearer tok-123", nil)
	require.NoError(t, err)
	assert.Equal(t, "token ci", ci.Name)
	assert.True(t, ci.Allowed(ActionRead, "anything"))
	assert.False(t, ci.Allowed(ActionSQL, ""))

	for _, bad := range []string{
		BasicCredentials("app", "bad-pass"), BasicCredentials("nobody", "app-pass"), "Bearer tok-1234", "Basic !!!",
		"Basic " + "YWJj", "Digest x", "", BasicCredentials("app", strings.Repeat("x", 100)),
	} {
		_, err := a.Authenticate(ctx, bad, nil)
		require.Error(t, err, bad)
		assert.ErrorIs(t, err, ErrUnauthenticated)
		assert.NotContains(t, err.Error(), "pass\"", "no credential in the error")
		assert.NotContains(t, err.Error(), "bad-pass")
		assert.NotContains(t, err.Error(), "tok-1234")
	}

	ca, err := NewCA("test CA", time.Hour)
	require.NoError(t, err)
	certPEM, _, err := ca.Issue(CertOptions{CommonName: "reporting", Client: true})
	require.NoError(t, err)
	cert := parseCert(t, certPEM)
	rep, err := a.Authenticate(ctx, "", cert)
	require.NoError(t, err)
	assert.Equal(t, "certificate CN=reporting", rep.Name)
	certPEM, _, err = ca.Issue(CertOptions{CommonName: "stranger", Client: true})
	require.NoError(t, err)
	_, err = a.Authenticate(ctx, "", parseCert(t, certPEM))
	assert.ErrorContains(t, err, "CN=stranger")
	// Credentials win over the certificate.
	_, err = a.Authenticate(ctx, BasicCredentials("app", "wrong"), cert)
	assert.ErrorIs(t, err, ErrUnauthenticated)
}

func TestLoginCache(t *testing.T) {
	a, err := NewAuthenticator(testConfig(t))
	require.NoError(t, err)
	now := time.Now()
	a.now = func() time.Time { return now }
	ctx := context.Background()
	_, err = a.Authenticate(ctx, BasicCredentials("app", "app-pass"), nil)
	require.NoError(t, err)
	_, err = a.Authenticate(ctx, BasicCredentials("app", "nope"), nil)
	require.Error(t, err)
	assert.Len(t, a.cache, 2)
	// A cached outcome answers without a check: a user whose hash no
	// longer matches still logs in until the entry expires.
	a.users["app"].hash, _ = parsePasswordHash(mustBcrypt(t, "other"))
	_, err = a.Authenticate(ctx, BasicCredentials("app", "app-pass"), nil)
	require.NoError(t, err)
	now = now.Add(acceptedTTL + time.Second)
	_, err = a.Authenticate(ctx, BasicCredentials("app", "app-pass"), nil)
	require.Error(t, err)
}

func mustBcrypt(t *testing.T, pw string) string {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	require.NoError(t, err)
	return string(h)
}

func TestConfigErrors(t *testing.T) {
	cfg := testConfig(t)
	cfg.Users = append(cfg.Users, UserConfig{Name: "x", PasswordHash: "plain", Roles: []string{"nope"}})
	cfg.Users = append(cfg.Users, UserConfig{Name: "app", PasswordHash: mustBcrypt(t, "a"), Roles: []string{"app"}})
	cfg.Tokens = append(cfg.Tokens, TokenConfig{Name: "t", TokenHash: "md5:abc", Roles: []string{"app"}})
	cfg.Roles["bad"] = RoleConfig{Maps: map[string][]string{"m": {"sql", "fly"}}, Cluster: []string{"read"}}
	_, err := NewAuthenticator(cfg)
	require.Error(t, err)
	for _, want := range []string{
		`unknown role "nope"`, "password-hash: not a bcrypt", "the name appears twice", "token-hash",
		"sql is a cluster action", `unknown action "fly"`, "read is a map action",
	} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = NewAuthenticator(&Config{})
	assert.ErrorContains(t, err, "no client could connect")
}

func TestPasswordHashes(t *testing.T) {
	cost := bcryptCost
	bcryptCost = bcrypt.MinCost // cost 12 takes seconds under the race detector
	defer func() { bcryptCost = cost }()
	for _, alg := range []string{Bcrypt, Argon2id} {
		h, err := HashPassword([]byte("s3cret"), alg)
		require.NoError(t, err)
		ph, err := parsePasswordHash(h)
		require.NoError(t, err, h)
		assert.NoError(t, ph.check([]byte("s3cret")))
		assert.Error(t, ph.check([]byte("s3cret!")))
	}
	_, err := HashPassword(nil, Bcrypt)
	assert.Error(t, err)
	_, err = HashPassword([]byte("x"), "md5")
	assert.Error(t, err)
	for _, bad := range []string{
		"$argon2id$v=19$m=4294967295,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", // 4 TiB
		"$argon2id$v=19$m=64,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$2a$99$abc",
	} {
		_, err := parsePasswordHash(bad)
		assert.Error(t, err, bad)
	}
	tok := NewToken()
	sum, err := parseTokenHash(HashToken([]byte(tok)))
	require.NoError(t, err)
	assert.NotZero(t, sum)
}

func parseCert(t *testing.T, p []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(p)
	require.NotNil(t, b)
	c, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	return c
}

// writeMember writes a member certificate of ca into dir.
func writeMember(t *testing.T, ca *CA, dir, name string) {
	t.Helper()
	c, k, err := ca.Issue(CertOptions{CommonName: name, Hosts: []string{"127.0.0.1", "localhost"}, Server: true, Client: true})
	require.NoError(t, err)
	require.NoError(t, WritePair(dir, "member", c, k))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca.CertPEM, 0o644))
}

func TestTLSVerifyAndReload(t *testing.T) {
	ca, err := NewCA("cluster CA", time.Hour)
	require.NoError(t, err)
	other, err := NewCA("other CA", time.Hour)
	require.NoError(t, err)
	dir := t.TempDir()
	writeMember(t, ca, dir, "member-1")
	opts := TLSOptions{
		CertFile: filepath.Join(dir, "member.crt"), KeyFile: filepath.Join(dir, "member.key"), CAFile: filepath.Join(dir, "ca.crt"),
		ReloadInterval: time.Millisecond,
	}
	m, err := NewTLS(opts)
	require.NoError(t, err)
	assert.Equal(t, "member-1", m.Leaf().Subject.CommonName)

	// Two members of the CA accept each other over a real TLS handshake;
	// a member of another CA is refused by both sides' checks.
	serve := func(srv *TLS) (string, chan tls.ConnectionState) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { _ = ln.Close() })
		states := make(chan tls.ConnectionState, 4)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				tc := tls.Server(c, srv.ServerConfig())
				if tc.Handshake() == nil {
					states <- tc.ConnectionState()
				}
				_ = tc.Close()
			}
		}()
		return ln.Addr().String(), states
	}
	addr, states := serve(m)
	dir2 := t.TempDir()
	writeMember(t, ca, dir2, "member-2")
	m2, err := NewTLS(TLSOptions{CertFile: filepath.Join(dir2, "member.crt"), KeyFile: filepath.Join(dir2, "member.key"), CAFile: filepath.Join(dir2, "ca.crt")})
	require.NoError(t, err)
	c, err := tls.Dial("tcp", addr, m2.DialConfig())
	require.NoError(t, err)
	_ = c.Close()
	st := <-states
	require.NoError(t, m.VerifyMember(st))
	cert, err := m.VerifyClient(st)
	require.NoError(t, err)
	assert.Equal(t, "member-2", cert.Subject.CommonName)

	dir3 := t.TempDir()
	writeMember(t, other, dir3, "intruder")
	m3, err := NewTLS(TLSOptions{CertFile: filepath.Join(dir3, "member.crt"), KeyFile: filepath.Join(dir3, "member.key"), CAFile: filepath.Join(dir3, "ca.crt")})
	require.NoError(t, err)
	_, err = tls.Dial("tcp", addr, m3.DialConfig())
	require.Error(t, err, "the intruder does not accept the cluster's certificate")
	// Had it dialed anyway, the member would refuse its certificate.
	intruderCert := m3.material().cert.Leaf
	err = m.VerifyMember(tls.ConnectionState{PeerCertificates: []*x509.Certificate{intruderCert}})
	assert.ErrorContains(t, err, "not one of the cluster's members'")
	assert.ErrorContains(t, m.VerifyMember(tls.ConnectionState{}), "no certificate")

	// member-names narrows who counts as a member.
	named, err := NewTLS(TLSOptions{CertFile: opts.CertFile, KeyFile: opts.KeyFile, CAFile: opts.CAFile, MemberNames: []string{"member-1"}})
	require.NoError(t, err)
	assert.ErrorContains(t, named.VerifyMember(st), "member-names")

	// A renewed certificate is served without a restart; a broken one is
	// not taken.
	writeMember(t, ca, dir, "member-1-renewed")
	require.Eventually(t, func() bool { return m.Leaf().Subject.CommonName == "member-1-renewed" }, 10*time.Second, 5*time.Millisecond)
	c, err = tls.Dial("tcp", addr, m2.DialConfig())
	require.NoError(t, err)
	assert.Equal(t, "member-1-renewed", c.ConnectionState().PeerCertificates[0].Subject.CommonName)
	_ = c.Close()
	<-states
	require.NoError(t, os.WriteFile(opts.KeyFile, []byte("garbage"), 0o600))
	time.Sleep(5 * time.Millisecond)
	assert.Equal(t, "member-1-renewed", m.Leaf().Subject.CommonName)
}

func TestNewTLSErrors(t *testing.T) {
	_, err := NewTLS(TLSOptions{CertFile: "a"})
	assert.ErrorContains(t, err, "cert-file, key-file and ca-file")
	dir := t.TempDir()
	ca, err := NewCA("ca", time.Hour)
	require.NoError(t, err)
	writeMember(t, ca, dir, "m")
	_, err = NewTLS(TLSOptions{CertFile: filepath.Join(dir, "member.crt"), KeyFile: filepath.Join(dir, "member.key"), CAFile: filepath.Join(dir, "member.key")})
	assert.ErrorContains(t, err, "holds no PEM certificate")
	_, err = NewTLS(TLSOptions{CertFile: filepath.Join(dir, "member.crt"), KeyFile: filepath.Join(dir, "missing"), CAFile: filepath.Join(dir, "ca.crt")})
	assert.True(t, errors.Is(err, os.ErrNotExist))
	_, err = ParseClientAuth("maybe")
	assert.Error(t, err)
}
