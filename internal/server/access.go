package server

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// Access control
//
// Every call passes access.check in the server's interceptors before a
// handler runs: the one place that decides who may call what. A call's
// caller is what its connection established: a member of this cluster
// (the connection opened with the member handshake, Config.IsMember) or a
// client. The table below gives each method the callers it is served to;
// methods it does not name are served to everyone. Permissions per map or
// per principal extend this table and this check, not the handlers.

// caller is who made a call.
type caller uint8

const (
	callerClient caller = iota
	callerMember
)

// requires maps a full gRPC method name to the caller it needs.
var requires = func() map[string]caller {
	m := map[string]caller{pb.QueryService_RunFragment_FullMethodName: callerMember}
	for _, sd := range []*grpc.ServiceDesc{&memberv1.MemberService_ServiceDesc, &memberv1.ExchangeService_ServiceDesc, &memberv1.TransactionResolverService_ServiceDesc} {
		for _, md := range sd.Methods {
			m["/"+sd.ServiceName+"/"+md.MethodName] = callerMember
		}
		for _, st := range sd.Streams {
			m["/"+sd.ServiceName+"/"+st.StreamName] = callerMember
		}
	}
	return m
}()

// refusalLogInterval is how often refusals of one address are logged.
const refusalLogInterval = time.Minute

// maxRefusalAddrs bounds the addresses whose last log time is kept.
const maxRefusalAddrs = 4096

// access decides who may call what, and counts and logs refusals.
type access struct {
	s  *Server
	mu sync.Mutex
	// logged holds, by remote host, when a refusal was last logged and how
	// many were refused since.
	logged map[string]*refusalLog
}

type refusalLog struct {
	at      time.Time
	refused int
}

// check admits a call of method or returns why not.
func (a *access) check(ctx context.Context, method string) error {
	need, ok := requires[method]
	if !ok || need == callerClient {
		return nil
	}
	if a.s.cfg.IsMember != nil && a.s.cfg.IsMember(ctx) {
		return nil
	}
	a.refused(ctx, method)
	return fmt.Errorf("%w: %s is served to the members of the cluster only, and this connection did not open with the member handshake",
		ErrPermissionDenied, method)
}

// refused counts a refusal and logs it, once a minute per remote host.
func (a *access) refused(ctx context.Context, method string) {
	if c := a.s.cfg.RefusedCalls; c != nil {
		c.Inc()
	}
	host := "unknown"
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		host = p.Addr.String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	now := time.Now()
	a.mu.Lock()
	if a.logged == nil {
		a.logged = map[string]*refusalLog{}
	}
	l := a.logged[host]
	if l == nil {
		if len(a.logged) >= maxRefusalAddrs {
			for h, old := range a.logged {
				if now.Sub(old.at) >= refusalLogInterval {
					delete(a.logged, h)
				}
			}
		}
		if len(a.logged) >= maxRefusalAddrs {
			a.mu.Unlock()
			return // counted; too many addresses to log each
		}
		l = &refusalLog{}
		a.logged[host] = l
	}
	l.refused++
	if !l.at.IsZero() && now.Sub(l.at) < refusalLogInterval {
		a.mu.Unlock()
		return
	}
	refused := l.refused
	l.at, l.refused = now, 0
	a.mu.Unlock()
	a.s.log.Warn("refused member-only calls from a connection that did not open with the member handshake",
		"address", host, "method", method, "refused since last logged", refused)
}
