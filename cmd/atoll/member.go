package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/pkg/member"
)

func newMemberCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "member", Short: "Run an Atoll member"}
	var (
		configFile, bind, admin, clusterName string
		shutdownTimeout                      time.Duration
	)
	start := &cobra.Command{
		Use:   "start",
		Short: "Start a member (embedded defaults: cluster dev, 127.0.0.1:5701, admin 127.0.0.1:8080)",
		Long: `start runs a member until it receives SIGINT or SIGTERM, then shuts it down
gracefully. With no flags it uses the embedded defaults; --config reads a YAML
file over them, and --bind, --admin and --cluster-name override both.`,
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
	f.DurationVar(&shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long a graceful shutdown may take")
	cmd.AddCommand(start)
	return cmd
}
