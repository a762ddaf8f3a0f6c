package member_test

import (
	"context"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// BenchmarkSecurity measures get and set of small values through the Go
// client against an in-process member over loopback in three modes:
// off (plaintext, no security section, as before), tls (TLS on the
// connection only) and on (TLS, a user authenticated on every call and
// the role's permission checked on every map operation). 8 concurrent
// callers, 10 000 keys. scripts/bench-security.sh runs it in interleaved
// rounds and prints the medians and the overhead of "on" against "off".
//
//	go test -run '^$' -bench Security -benchtime 3s -count 1 ./internal/member/
func BenchmarkSecurity(b *testing.B) {
	const keys = 10_000
	ctx := context.Background()
	certs := testcluster.NewCerts(b, "bench")
	hash, err := bcrypt.GenerateFromPassword([]byte("bench-password"), bcrypt.MinCost)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"off", "tls", "on"} {
		c := testcluster.Start(b, testcluster.InProcess, 1, testcluster.Options{Configure: func(cfg *member.Config) {
			if mode == "off" {
				return
			}
			cfg.TLS = certs.Member()
			if mode == "on" {
				cfg.Security = &security.Config{
					Users: []security.UserConfig{{Name: "app", PasswordHash: string(hash), Roles: []string{"app"}}},
					Roles: map[string]security.RoleConfig{"app": {Maps: map[string][]string{"orders-*": {"read"}, "hot*": {"put", "read"}}}},
				}
			}
		}})
		cfg := client.Config{Addresses: c.Addrs(), ClusterName: "test", StatisticsInterval: -1}
		if mode != "off" {
			cfg.TLS = certs.ClientTLS(b, "")
		}
		if mode == "on" {
			cfg.Credentials = client.Credentials{Username: "app", Password: "bench-password"}
		}
		cl, err := client.New(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		benchGetSet(b, client.GetMap[int32, string](cl, "hot"), keys, mode)
		_ = cl.Close()
		c.Stop()
	}
}
