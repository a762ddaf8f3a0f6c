package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/pkg/member"
)

func newMemberCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "member", Short: "Run an Atoll member"}
	var (
		configFile, bind, admin, clusterName, advertise string
		memoryLimit                                     string
		join                                            []string
		shutdownTimeout                                 time.Duration
		tlsCert, tlsKey, tlsCA, tlsClientCA             string
		secretFile                                      string
	)
	start := &cobra.Command{
		Use:   "start",
		Short: "Start a member (embedded defaults: cluster dev, 127.0.0.1:5701, admin 127.0.0.1:8080)",
		Long: `start runs a member until it receives SIGINT or SIGTERM, then shuts it down
gracefully, handing its partitions to the other members first. With no flags
it uses the embedded defaults; --config reads a YAML file over them, and the
other flags override both. --join host:port[,host:port] joins the cluster of
any of those members; several members on one host need only distinct --bind
and --admin ports (members gossip over their --bind address).

--memory-limit (YAML memory-limit) is the member's memory limit: the
process's Go soft limit (as GOMEMLIMIT), and what the query memory breaker's
thresholds are fractions of; queries may hold half of it together by
default (query.memory-limit-per-member). Without it the member takes
GOMEMLIMIT when set, else 90% of its cgroup's memory limit (a container),
else 75% of the machine's memory.

--tls-cert, --tls-key and --tls-ca (YAML tls) serve the member's address
and admin address over TLS, and make members prove they belong with
certificates of that CA; --tls-client-ca names another CA for clients'
certificates. --cluster-secret-file (YAML cluster-secret-file, or the
secret itself in $ATOLL_CLUSTER_SECRET) makes members prove they know the
cluster secret and encrypts gossip with it. Client authentication and
permissions are the YAML security section (see README, Security).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := member.DefaultConfig()
			if configFile != "" {
				var err error
				if cfg, err = member.LoadConfig(configFile); err != nil {
					return err
				}
			}
			flags := cmd.Flags()
			if flags.Changed("bind") {
				cfg.Bind = bind
			}
			if flags.Changed("admin") {
				cfg.Admin = admin
			}
			if flags.Changed("cluster-name") {
				cfg.ClusterName = clusterName
			}
			if flags.Changed("advertise") {
				cfg.Advertise = advertise
			}
			if flags.Changed("join") {
				cfg.Join = join
			}
			if flags.Changed("tls-cert") || flags.Changed("tls-key") || flags.Changed("tls-ca") || flags.Changed("tls-client-ca") {
				if cfg.TLS == nil {
					cfg.TLS = &member.TLSConfig{}
				}
				for _, f := range []struct {
					name    string
					value   string
					setting *string
				}{{"tls-cert", tlsCert, &cfg.TLS.CertFile}, {"tls-key", tlsKey, &cfg.TLS.KeyFile}, {"tls-ca", tlsCA, &cfg.TLS.CAFile}, {"tls-client-ca", tlsClientCA, &cfg.TLS.ClientCAFile}} {
					if flags.Changed(f.name) {
						*f.setting = f.value
					}
				}
			}
			if flags.Changed("cluster-secret-file") {
				cfg.ClusterSecretFile = secretFile
			}
			if s, ok := os.LookupEnv("ATOLL_CLUSTER_SECRET"); ok && s != "" && cfg.ClusterSecretFile == "" {
				cfg.ClusterSecret = []byte(s)
			}
			if flags.Changed("memory-limit") {
				n, err := member.ParseByteSize(memoryLimit)
				if err != nil {
					return fmt.Errorf("--memory-limit: %w", err)
				}
				cfg.MemoryLimit = member.ByteSize(n)
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			// The member owns this process: its memory limit is Go's.
			limit, _ := cfg.ResolveMemoryLimit()
			cfg.MemoryLimit = member.ByteSize(limit)
			debug.SetMemoryLimit(limit)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			m, err := member.Start(ctx, cfg)
			if err != nil {
				return err
			}
			<-ctx.Done()
			stop()
			sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			defer cancel()
			return m.Shutdown(sctx)
		},
	}
	f := start.Flags()
	f.StringVar(&configFile, "config", "", "YAML configuration file")
	f.StringVar(&bind, "bind", "", "address for clients and members (host:port)")
	f.StringVar(&admin, "admin", "", `admin HTTP address (host:port); "" disables it`)
	f.StringVar(&clusterName, "cluster-name", "", "cluster name")
	f.StringVar(&advertise, "advertise", "", "address other members and clients use to reach this one (default: the bind address)")
	f.StringSliceVar(&join, "join", nil, "members to join through, host:port[,host:port] (default: start a new cluster)")
	f.StringVar(&memoryLimit, "memory-limit", "", "the member's memory limit, e.g. 1GiB or 512MiB: Go's soft limit and the base of the query memory breaker (default: GOMEMLIMIT, else 90% of the cgroup limit, else 75% of the machine's memory)")
	f.DurationVar(&shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long a graceful shutdown may take")
	f.StringVar(&tlsCert, "tls-cert", "", "the member's certificate (PEM), for serving and for dialing other members")
	f.StringVar(&tlsKey, "tls-key", "", "the member certificate's key (PEM)")
	f.StringVar(&tlsCA, "tls-ca", "", "the CA of the cluster's members (PEM); it also verifies clients' certificates unless --tls-client-ca")
	f.StringVar(&tlsClientCA, "tls-client-ca", "", "the CA of clients' certificates (PEM)")
	f.StringVar(&secretFile, "cluster-secret-file", "", "file holding the cluster secret members prove (or $ATOLL_CLUSTER_SECRET)")
	var adminAddr string
	var sec securityFlags
	memory := &cobra.Command{
		Use:   "memory --admin ADDR",
		Short: "Print a member's Go heap after a garbage collection, and its goroutines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			admin, err := sec.admin(cmd, adminAddr)
			if err != nil {
				return err
			}
			body, err := admin.Get(ctx, "/debug/memory")
			if err != nil {
				return fmt.Errorf("admin %s: %w", adminAddr, err)
			}
			var h member.Heap
			if err := json.Unmarshal(body, &h); err != nil {
				return fmt.Errorf("admin %s: %w", adminAddr, err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "heap-alloc-bytes %d\nheap-inuse-bytes %d\nsys-bytes %d\ngoroutines %d\n", h.HeapAllocBytes, h.HeapInuseBytes, h.SysBytes, h.Goroutines)
			return nil
		},
	}
	memory.Flags().StringVar(&adminAddr, "admin", "127.0.0.1:8080", "the member's admin HTTP address")
	sec.register(memory.Flags())
	cmd.AddCommand(start, memory)
	return cmd
}
