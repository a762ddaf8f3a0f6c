package member

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/atolldb/atoll/internal/security"
)

// secured holds a member's security parts, built from its configuration.
type secured struct {
	tls    *security.TLS           // nil: plaintext
	secret []byte                  // nil: no cluster secret
	auth   *security.Authenticator // nil: no client authentication
}

// minSecretLen is the least length of a cluster secret.
const minSecretLen = 16

// loadSecurity loads the TLS material, the cluster secret and the
// authenticator the configuration names.
func loadSecurity(cfg *Config, log *slog.Logger) (*secured, error) {
	s := &secured{}
	if t := cfg.TLS; t != nil {
		ca, _ := security.ParseClientAuth(t.ClientAuth) // validated
		var err error
		s.tls, err = security.NewTLS(security.TLSOptions{
			CertFile: t.CertFile, KeyFile: t.KeyFile, CAFile: t.CAFile, ClientCAFile: t.ClientCAFile,
			ClientAuth: ca, MemberNames: t.MemberNames, ReloadInterval: time.Duration(t.ReloadInterval),
			Logger: log.With("component", "tls"),
		})
		if err != nil {
			return nil, fmt.Errorf("member: tls: %w", err)
		}
	}
	s.secret = cfg.ClusterSecret
	if s.secret == nil && cfg.ClusterSecretFile != "" {
		b, err := os.ReadFile(cfg.ClusterSecretFile)
		if err != nil {
			return nil, fmt.Errorf("member: cluster-secret-file: %w", err)
		}
		s.secret = bytes.TrimRight(b, "\r\n")
	}
	if s.secret != nil && len(s.secret) < minSecretLen {
		return nil, fmt.Errorf("member: the cluster secret has %d bytes, at least %d are needed", len(s.secret), minSecretLen)
	}
	if cfg.Security != nil {
		var err error
		if s.auth, err = security.NewAuthenticator(cfg.Security); err != nil {
			return nil, fmt.Errorf("member: %w", err)
		}
	}
	return s, nil
}

// logPosture says in one line at start how the member is protected, and
// warns of what leaves it open.
func (s *secured) logPosture(log *slog.Logger, cfg *Config, bound net.Addr) {
	tcp, _ := bound.(*net.TCPAddr)
	loopback := tcp != nil && tcp.IP.IsLoopback()
	members := "cluster name only"
	switch {
	case s.tls != nil && s.secret != nil:
		members = "certificates of the members' CA and the cluster secret"
	case s.tls != nil:
		members = "certificates of the members' CA"
	case s.secret != nil:
		members = "the cluster secret"
	}
	if s.auth == nil {
		msg := "security is off: every client that reaches this member may read, write and drop every map and run any SQL (add a security section to require credentials)"
		level := slog.LevelInfo
		if !loopback {
			level = slog.LevelWarn
		}
		log.Log(context.Background(), level, msg, "bind", bound.String(), "loopback", loopback, "tls", s.tls != nil, "members-authenticated-by", members)
		return
	}
	log.Info("security is on: clients authenticate and their roles' permissions are checked on every call",
		"users", len(cfg.Security.Users), "tokens", len(cfg.Security.Tokens), "certificate-subjects", len(cfg.Security.Certificates),
		"tls", s.tls != nil, "members-authenticated-by", members)
	if s.tls == nil && !loopback {
		log.Warn("security is on without TLS: passwords and tokens cross the network in plaintext (configure tls)", "bind", bound.String())
	}
	if t := cfg.TLS; t != nil && t.ClientCAFile == "" && t.ClientAuth != "none" && len(t.MemberNames) == 0 && s.secret == nil {
		log.Warn("clients holding certificates of the members' CA could open member connections: set tls.client-ca-file, tls.member-names or cluster-secret-file")
	}
}

// adminGuard requires the admin action of the callers of the admin
// address's /debug endpoints when the member has a security section: a
// user or token in the Authorization header, or a client certificate of
// the clients' CA. /metrics, /healthz and /readyz stay open.
func (s *secured) adminGuard(next http.Handler, log *slog.Logger) http.Handler {
	if s.auth == nil {
		return next
	}
	refusals := security.RefusalLog{Interval: time.Minute}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/debug/") {
			next.ServeHTTP(w, r)
			return
		}
		p, err := s.adminPrincipal(r)
		if err == nil {
			err = p.Check(security.ActionAdmin, "")
		}
		if err == nil {
			next.ServeHTTP(w, r)
			return
		}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if ok, n := refusals.Note(host, time.Now()); ok {
			log.Warn("refused an admin request", "path", r.URL.Path, "address", host, "reason", err.Error(), "refused since last logged", n)
		}
		if errors.Is(err, security.ErrUnauthenticated) {
			w.Header().Set("WWW-Authenticate", `Basic realm="atoll admin", charset="UTF-8"`)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		http.Error(w, err.Error(), http.StatusForbidden)
	})
}

func (s *secured) adminPrincipal(r *http.Request) (*security.Principal, error) {
	if st := r.TLS; st != nil && s.tls != nil && s.tls.ClientAuth() != security.ClientCertNone {
		c, err := s.tls.VerifyClient(*st)
		if err != nil {
			return nil, &security.AuthError{Reason: err.Error()}
		}
		return s.auth.Authenticate(r.Context(), r.Header.Get("Authorization"), c)
	}
	return s.auth.Authenticate(r.Context(), r.Header.Get("Authorization"), nil)
}
