package testcluster

import (
	"context"
	"crypto/tls"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/atolldb/atoll/internal/profiling"
)

// Access is how tests reach members that serve TLS or require
// credentials: the TLS configuration of a client (the cluster's CA) and
// an authorization header that names a principal with the admin action.
type Access struct {
	TLS           *tls.Config
	Authorization string
}

// DialOptions connect to a member's address with the access (nil: in
// plaintext, without credentials).
func (a *Access) DialOptions() []grpc.DialOption {
	if a == nil {
		return []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if a.TLS != nil {
		opts[0] = grpc.WithTransportCredentials(credentials.NewTLS(a.TLS))
	}
	if a.Authorization != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(authorization(a.Authorization)))
	}
	return opts
}

type authorization string

func (a authorization) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": string(a)}, nil
}

func (authorization) RequireTransportSecurity() bool { return false }

// Admin is how the node's admin address is reached (over TLS and with
// the authorization of the cluster's Access, if any).
func (n *Node) Admin() profiling.Admin {
	a := profiling.Admin{Addr: n.AdminAddr}
	if n.access != nil {
		a.TLS, a.Authorization = n.access.TLS, n.access.Authorization
	}
	return a
}
