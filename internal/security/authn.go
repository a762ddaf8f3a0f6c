package security

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Credentials travel in the standard `authorization` header of every call
// (gRPC metadata, or HTTP on the admin address): "Basic " and the base64
// of "name:password", or "Bearer " and a token. A client that sends
// neither may be known by its TLS certificate instead.

// AuthorizationHeader is the header (gRPC metadata key) credentials travel
// in.
const AuthorizationHeader = "authorization"

// Lifetimes of cached outcomes: a checked password is not checked again
// for a while (bcrypt and argon2id cost milliseconds by design), and a
// refused one is refused again at once.
const (
	acceptedTTL     = 5 * time.Minute
	refusedTTL      = 30 * time.Second
	maxCacheEntries = 4096
)

// Authenticator finds the principal that credentials name. It is safe for
// concurrent use.
type Authenticator struct {
	users  map[string]*user
	tokens map[[32]byte]*Principal
	certs  map[string]*Principal
	// dummy is checked for names that are no user, so that a refusal
	// takes as long whether the name exists or not.
	dummy *passwordHash
	// slots bounds the password checks running at once: a flood of logins
	// waits instead of taking every core.
	slots chan struct{}

	mu    sync.Mutex
	cache map[[32]byte]cachedAuth
	now   func() time.Time
}

type user struct {
	hash      *passwordHash
	principal *Principal
}

type cachedAuth struct {
	p     *Principal
	err   error
	until time.Time
}

// NewAuthenticator checks a security configuration and returns its
// authenticator. It refuses a configuration that names unknown roles,
// repeats a name, holds a malformed hash, or has no principal at all (no
// client could connect).
func NewAuthenticator(cfg *Config) (*Authenticator, error) {
	roles, errs := parseRoles(cfg.Roles)
	a := &Authenticator{
		users: map[string]*user{}, tokens: map[[32]byte]*Principal{}, certs: map[string]*Principal{},
		slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0))),
		cache: map[[32]byte]cachedAuth{}, now: time.Now,
	}
	checkRoles := func(what string, names []string) {
		if len(names) == 0 {
			errs = append(errs, what+": no roles")
		}
		for _, r := range names {
			if _, ok := roles[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: unknown role %q", what, r))
			}
		}
	}
	for i, u := range cfg.Users {
		what := fmt.Sprintf("users[%d] (%s)", i, u.Name)
		if u.Name == "" || strings.ContainsAny(u.Name, ":\n") {
			errs = append(errs, fmt.Sprintf("users[%d]: a name must be set and hold no ':' or newline", i))
			continue
		}
		if _, dup := a.users[u.Name]; dup {
			errs = append(errs, what+": the name appears twice")
		}
		h, err := parsePasswordHash(u.PasswordHash)
		if err != nil {
			errs = append(errs, what+": password-hash: "+err.Error())
		}
		checkRoles(what, u.Roles)
		a.users[u.Name] = &user{hash: h, principal: newPrincipal("user "+u.Name, u.Roles, roles)}
	}
	for i, t := range cfg.Tokens {
		what := fmt.Sprintf("tokens[%d] (%s)", i, t.Name)
		if t.Name == "" {
			errs = append(errs, fmt.Sprintf("tokens[%d]: a name must be set", i))
		}
		sum, err := parseTokenHash(t.TokenHash)
		if err != nil {
			errs = append(errs, what+": token-hash: "+err.Error())
		} else if _, dup := a.tokens[sum]; dup {
			errs = append(errs, what+": the same token hash appears twice")
		}
		checkRoles(what, t.Roles)
		a.tokens[sum] = newPrincipal("token "+t.Name, t.Roles, roles)
	}
	for i, c := range cfg.Certificates {
		what := fmt.Sprintf("certificates[%d] (%s)", i, c.Subject)
		if c.Subject == "" {
			errs = append(errs, fmt.Sprintf("certificates[%d]: a subject must be set", i))
		}
		if _, dup := a.certs[c.Subject]; dup {
			errs = append(errs, what+": the subject appears twice")
		}
		checkRoles(what, c.Roles)
		a.certs[c.Subject] = newPrincipal("certificate "+c.Subject, c.Roles, roles)
	}
	if len(cfg.Users)+len(cfg.Tokens)+len(cfg.Certificates) == 0 {
		errs = append(errs, "no users, tokens or certificates: no client could connect")
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("security: %s", strings.Join(errs, "; "))
	}
	// Unknown names are checked against a user's hash, so that a refusal
	// costs the same whether the name exists or not.
	for _, u := range a.users {
		a.dummy = u.hash
		break
	}
	return a, nil
}

// Authenticate returns the principal that an authorization header names,
// or, when there is none, that of the client certificate cert (nil: the
// connection presented none, or one the member did not accept). A refusal
// is an *AuthError saying why, never repeating a credential.
func (a *Authenticator) Authenticate(ctx context.Context, header string, cert *x509.Certificate) (*Principal, error) {
	if header == "" {
		if cert == nil {
			return nil, &AuthError{Reason: "no credentials: send a user and password or a token, or present a client certificate"}
		}
		subject := cert.Subject.String()
		if p := a.certs[subject]; p != nil {
			return p, nil
		}
		return nil, &AuthError{Reason: fmt.Sprintf("no principal for the client certificate subject %q", subject)}
	}
	scheme, cred, _ := strings.Cut(header, " ")
	cred = strings.TrimSpace(cred)
	switch strings.ToLower(scheme) {
	case "bearer":
		sum := sha256.Sum256([]byte(cred))
		if p := a.tokens[sum]; p != nil {
			return p, nil
		}
		return nil, &AuthError{Reason: "unknown token"}
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return nil, &AuthError{Reason: "the Basic credentials are not base64"}
		}
		name, password, ok := strings.Cut(string(raw), ":")
		if !ok {
			return nil, &AuthError{Reason: "the Basic credentials are not name:password"}
		}
		return a.login(ctx, name, password)
	}
	return nil, &AuthError{Reason: "the authorization header is neither Basic nor Bearer"}
}

// login checks a user's password, through the cache.
func (a *Authenticator) login(ctx context.Context, name, password string) (*Principal, error) {
	if len(password) > MaxPasswordLength {
		return nil, &AuthError{Reason: fmt.Sprintf("user %q: the password is longer than %d bytes", name, MaxPasswordLength)}
	}
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(password))
	var key [32]byte
	h.Sum(key[:0])
	now := a.now()
	a.mu.Lock()
	if c, ok := a.cache[key]; ok && now.Before(c.until) {
		a.mu.Unlock()
		return c.p, c.err
	}
	a.mu.Unlock()
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	u := a.users[name]
	var err error
	if u == nil {
		if a.dummy != nil {
			_ = a.dummy.check([]byte(password))
		}
		err = &AuthError{Reason: fmt.Sprintf("user %q: unknown user or wrong password", name)}
	} else if u.hash.check([]byte(password)) != nil {
		err = &AuthError{Reason: fmt.Sprintf("user %q: unknown user or wrong password", name)}
	}
	<-a.slots
	c := cachedAuth{err: err, until: now.Add(refusedTTL)}
	if err == nil {
		c = cachedAuth{p: u.principal, until: now.Add(acceptedTTL)}
	}
	a.mu.Lock()
	if len(a.cache) >= maxCacheEntries {
		for k, old := range a.cache {
			if !now.Before(old.until) {
				delete(a.cache, k)
			}
		}
		if len(a.cache) >= maxCacheEntries {
			clear(a.cache)
		}
	}
	a.cache[key] = c
	a.mu.Unlock()
	return c.p, c.err
}

// BasicCredentials returns the authorization header value of a user and
// password.
func BasicCredentials(name, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(name+":"+password))
}

// BearerCredentials returns the authorization header value of a token.
func BearerCredentials(token string) string { return "Bearer " + token }
