package security

import (
	"fmt"
	"sort"
	"strings"
)

// Config is the security section of a member's configuration: who may
// connect (users, tokens, client certificates) and what their roles
// allow. Present, it makes every client authenticate; absent, the member
// serves anyone who reaches it, as before.
type Config struct {
	// Users log in with a name and a password, checked against a bcrypt
	// or argon2id hash (`atoll security hash-password` prints one).
	Users []UserConfig `yaml:"users"`
	// Tokens are bearer tokens, kept as their SHA-256 (`atoll security
	// hash-token`).
	Tokens []TokenConfig `yaml:"tokens"`
	// Certificates map client certificate subjects to roles (clients that
	// present a certificate of the client CA and send no other
	// credentials).
	Certificates []CertificateConfig `yaml:"certificates"`
	// Roles by name.
	Roles map[string]RoleConfig `yaml:"roles"`
}

// UserConfig is a user that logs in with a password.
type UserConfig struct {
	Name         string   `yaml:"name"`
	PasswordHash string   `yaml:"password-hash"`
	Roles        []string `yaml:"roles"`
}

// TokenConfig is a bearer token, known by its hash.
type TokenConfig struct {
	// Name identifies the token in logs (the token itself never appears).
	Name      string   `yaml:"name"`
	TokenHash string   `yaml:"token-hash"`
	Roles     []string `yaml:"roles"`
}

// CertificateConfig gives roles to clients whose certificate has this
// subject, written as Go's crypto/x509 prints it (RFC 2253 order, for
// example "CN=reporting,O=Acme").
type CertificateConfig struct {
	Subject string   `yaml:"subject"`
	Roles   []string `yaml:"roles"`
}

// RoleConfig grants actions on maps whose names match a pattern ("*"
// matches any run of characters: "orders-*", "*", "cache"), and cluster
// actions (sql, admin).
type RoleConfig struct {
	Maps    map[string][]string `yaml:"maps"`
	Cluster []string            `yaml:"cluster"`
}

// grant is a role's actions on one map-name pattern.
type grant struct {
	pattern string
	actions Action
}

// role is a parsed RoleConfig.
type role struct {
	grants  []grant
	cluster Action
}

// parseRoles checks and parses the roles of a configuration.
func parseRoles(cfg map[string]RoleConfig) (map[string]*role, []string) {
	var errs []string
	out := map[string]*role{}
	for name, rc := range cfg {
		r := &role{}
		patterns := make([]string, 0, len(rc.Maps))
		for p := range rc.Maps {
			patterns = append(patterns, p)
		}
		sort.Strings(patterns)
		for _, p := range patterns {
			if p == "" {
				errs = append(errs, fmt.Sprintf("roles.%s.maps: an empty pattern", name))
				continue
			}
			var set Action
			for _, s := range rc.Maps[p] {
				a, err := ParseAction(s)
				switch {
				case err != nil:
					errs = append(errs, fmt.Sprintf("roles.%s.maps[%q]: %v", name, p, err))
				case a&clusterActions != 0:
					errs = append(errs, fmt.Sprintf("roles.%s.maps[%q]: %s is a cluster action: list it under roles.%s.cluster", name, p, a, name))
				default:
					set |= a
				}
			}
			r.grants = append(r.grants, grant{pattern: p, actions: set})
		}
		for _, s := range rc.Cluster {
			a, err := ParseAction(s)
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("roles.%s.cluster: %v", name, err))
			case a&clusterActions == 0:
				errs = append(errs, fmt.Sprintf("roles.%s.cluster: %s is a map action: list it under roles.%s.maps", name, a, name))
			default:
				r.cluster |= a
			}
		}
		out[name] = r
	}
	return out, errs
}

// Principal is who a call authenticated as: a user, a token or a client
// certificate, with the grants of its roles. It is immutable and safe
// for concurrent use.
type Principal struct {
	// Name identifies the principal in logs and errors: "user app",
	// "token ci", "certificate CN=reporting".
	Name    string
	grants  []grant
	cluster Action
}

func newPrincipal(name string, roleNames []string, roles map[string]*role) *Principal {
	p := &Principal{Name: name}
	for _, rn := range roleNames {
		r := roles[rn]
		if r == nil {
			continue // refused by the configuration's check
		}
		p.grants = append(p.grants, r.grants...)
		p.cluster |= r.cluster
	}
	return p
}

// Allowed reports whether the principal may do a on the map named
// mapName (ignored for the cluster actions sql and admin).
func (p *Principal) Allowed(a Action, mapName string) bool {
	if a&clusterActions != 0 {
		return p.cluster&a == a
	}
	for _, g := range p.grants {
		if g.actions&a == a && Match(g.pattern, mapName) {
			return true
		}
	}
	return false
}

// Check returns a *DeniedError unless the principal may do a on mapName.
func (p *Principal) Check(a Action, mapName string) error {
	if p.Allowed(a, mapName) {
		return nil
	}
	if a&clusterActions != 0 {
		mapName = ""
	}
	return &DeniedError{Principal: p.Name, Action: a, Map: mapName}
}

// Match reports whether name matches pattern, in which "*" stands for any
// run of characters (none included) and every other character for
// itself.
func Match(pattern, name string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == name
	}
	if !strings.HasPrefix(name, pattern[:star]) {
		return false
	}
	name = name[star:]
	parts := strings.Split(pattern[star+1:], "*")
	last := parts[len(parts)-1]
	for _, part := range parts[:len(parts)-1] {
		i := strings.Index(name, part)
		if i < 0 {
			return false
		}
		name = name[i+len(part):]
	}
	return strings.HasSuffix(name, last)
}
