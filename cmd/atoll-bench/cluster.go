package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/atolldb/atoll/bench/overload"
	"github.com/atolldb/atoll/pkg/member"
)

// embedded is a cluster of members in this process.
type embedded struct {
	members []*member.Member
}

// startEmbedded starts n members on free loopback ports, each joining the
// first, and waits until every one is ready (its /readyz answers 200:
// named in the partition table, partitions owned, no migration in flight).
func startEmbedded(ctx context.Context, n int, clusterName string, logs io.Writer) (*embedded, error) {
	e := &embedded{}
	for i := 0; i < n; i++ {
		cfg := member.DefaultConfig()
		cfg.ClusterName = clusterName
		cfg.Bind, cfg.Admin = "127.0.0.1:0", "127.0.0.1:0"
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError}))
		if i > 0 {
			cfg.Join = []string{e.members[0].Addr()}
		}
		m, err := member.Start(ctx, cfg)
		if err != nil {
			e.close()
			return nil, fmt.Errorf("starting member %d of %d: %w", i+1, n, err)
		}
		e.members = append(e.members, m)
	}
	for _, m := range e.members {
		if err := waitReady(ctx, m.AdminAddr(), 2*time.Minute); err != nil {
			e.close()
			return nil, err
		}
	}
	return e, nil
}

func (e *embedded) addrs() []string {
	var out []string
	for _, m := range e.members {
		out = append(out, m.Addr())
	}
	return out
}

// close stops every member at once (the whole cluster goes away: nothing
// to hand over).
func (e *embedded) close() {
	for _, m := range e.members {
		_ = m.Close()
	}
}

// errNotReady is wrapped when a member does not become ready in time.
var errNotReady = errors.New("member not ready")

func waitReady(ctx context.Context, admin string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := "no answer"
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s after %v (%s)", errNotReady, admin, timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// logDir returns the directory for started members' logs: --logs (made if
// missing), else a new temporary directory named after prefix.
func logDir(flag, prefix string) (string, error) {
	if flag == "" {
		return os.MkdirTemp("", prefix)
	}
	if err := os.MkdirAll(flag, 0o755); err != nil {
		return "", fmt.Errorf("--logs: %w", err)
	}
	return flag, nil
}

// processFlags are the flags of a command that starts member processes of
// the atoll command or, with --addr, drives an existing cluster.
type processFlags struct {
	members                   int
	addr, admins, clusterName string
	atoll, logs               string
}

func (f *processFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&f.members, "members", 2, "member processes to start")
	fl.StringVar(&f.addr, "addr", "", "drive an existing cluster at host:port[,host:port] (admin addresses: --admin)")
	fl.StringVar(&f.admins, "admin", "", "with --addr: the members' admin addresses, host:port[,host:port], in the same order")
	fl.StringVar(&f.clusterName, "cluster-name", "atoll-bench", "cluster name")
	fl.StringVar(&f.atoll, "atoll", "", "the atoll command that starts members (default: beside atoll-bench, else on PATH)")
	fl.StringVar(&f.logs, "logs", "", "directory for the members' logs (default: a new temporary directory)")
}

// memberProcesses starts --members member processes with opts (their
// binary, cluster name and log directory from f; the logs in a new
// temporary directory named after logPrefix unless --logs) and waits
// until each is ready; with --addr it takes that cluster's members, their
// admin addresses from --admin (one per member, or none). stop stops the
// processes it started.
func (f processFlags) memberProcesses(ctx context.Context, opts overload.ProcessOptions, logPrefix string, stderr io.Writer) (members []*overload.Member, stop func(), err error) {
	if f.addr != "" {
		addrs := strings.Split(f.addr, ",")
		var admins []string
		if f.admins != "" {
			if admins = strings.Split(f.admins, ","); len(admins) != len(addrs) {
				return nil, nil, &UsageError{"--admin needs one admin address per member of --addr"}
			}
		}
		for i, a := range addrs {
			m := &overload.Member{Addr: a, Name: a}
			if admins != nil {
				m.Admin = admins[i]
			}
			members = append(members, m)
		}
		return members, func() {}, nil
	}
	if opts.Binary, err = overload.FindBinary(f.atoll); err != nil {
		return nil, nil, err
	}
	if opts.LogDir, err = logDir(f.logs, logPrefix); err != nil {
		return nil, nil, err
	}
	opts.ClusterName = f.clusterName
	fmt.Fprintf(stderr, "starting %d member processes (logs in %s)\n", f.members, opts.LogDir)
	if members, err = overload.StartMembers(ctx, opts, f.members); err != nil {
		return nil, nil, err
	}
	for _, m := range members {
		if err := waitReady(ctx, m.Admin, 2*time.Minute); err != nil {
			overload.StopMembers(members)
			return nil, nil, err
		}
	}
	return members, func() { overload.StopMembers(members) }, nil
}
