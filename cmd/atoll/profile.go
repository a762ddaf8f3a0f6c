package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/internal/profiling"
)

func newProfileCmd() *cobra.Command {
	var (
		adminAddr, out, label, diffBase string
		seconds, rate                   int
		sec                             securityFlags
	)
	cmd := &cobra.Command{
		Use:   "profile cpu|wall|allocs|heap|mutex|block --member ADMIN_ADDR --out FILE",
		Short: "Capture a profile of a member and draw its flame graph",
		Long: `profile captures a profile from a member's admin address and writes two
files: FILE.pb.gz, the raw profile as the member sent it (go tool pprof reads
it), and FILE.svg, a self-contained flame graph that opens in any browser.

  cpu     CPU time over --seconds
  wall    wall-clock time over --seconds, on and off CPU (fgprof)
  allocs  allocations made during --seconds
  heap    memory in use now
  mutex   lock contention during --seconds (needs --rate or sampling on)
  block   time blocked during --seconds (needs --rate or sampling on)

--label KEY=VALUE keeps only the samples with that pprof label: map
operations run under map=NAME and op=KIND (get, set, put, remove, ...),
queries under kind=sql|predicate, query_id and map. Go records labels in CPU
profiles only. --diff-base OTHER.pb.gz draws the difference to an earlier
profile of the same type, scaled to the same total: red frames got hotter,
blue ones cooler.

A member with a security section serves profiles to a principal with the
admin action only: pass --user and --password-file, or --token-file (or
a client certificate, --tls-cert and --tls-key), and --tls-ca when the
member serves TLS.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			if _, ok := profiling.Kinds[kind]; !ok {
				return fmt.Errorf("unknown profile type %q: want one of %s", kind, strings.Join(profiling.KindNames(), ", "))
			}
			if out == "" {
				return fmt.Errorf("--out FILE is required")
			}
			var key, value string
			if label != "" {
				var err error
				if key, value, err = profiling.ParseLabel(label); err != nil {
					return err
				}
			}
			var base *profile.Profile
			if diffBase != "" {
				b, err := os.ReadFile(diffBase)
				if err != nil {
					return fmt.Errorf("--diff-base: %w", err)
				}
				if base, err = profile.ParseData(b); err != nil {
					return fmt.Errorf("--diff-base %s: not a profile: %w", diffBase, err)
				}
			}
			ctx := cmd.Context()
			admin, err := sec.admin(cmd, adminAddr)
			if err != nil {
				return err
			}
			if rate > 0 {
				prev, err := profiling.SetRate(ctx, admin, kind, rate)
				if err != nil {
					return err
				}
				defer func() { _, _ = profiling.SetRate(context.Background(), admin, kind, prev) }()
			}
			raw, p, err := profiling.Fetch(ctx, admin, kind, seconds)
			if err != nil {
				return err
			}
			stem := strings.TrimSuffix(strings.TrimSuffix(out, ".svg"), ".pb.gz")
			if err := os.WriteFile(stem+".pb.gz", raw, 0o644); err != nil {
				return err
			}
			title := fmt.Sprintf("%s profile of %s", kind, adminAddr)
			if kind != "heap" {
				title += fmt.Sprintf(", %ds", seconds)
			}
			samples := len(p.Sample)
			if key != "" {
				if samples, err = profiling.KeepLabel(p, key, value); err != nil {
					return fmt.Errorf("--label %s: %w", label, err)
				}
				if base != nil {
					if _, err := profiling.KeepLabel(base, key, value); err != nil {
						return fmt.Errorf("--label %s on --diff-base: %w", label, err)
					}
				}
				title += ", " + label
			}
			if base != nil {
				if p, err = profiling.Diff(p, base); err != nil {
					return err
				}
				title += " vs " + diffBase
			}
			g, err := profiling.NewFlameGraph(p, title)
			if err != nil {
				return err
			}
			f, err := os.Create(stem + ".svg")
			if err != nil {
				return err
			}
			if err := g.WriteSVG(f); err != nil {
				_ = f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s.pb.gz\traw %s profile\n%s.svg\tflame graph of %d samples\n", stem, kind, stem, samples)
			if samples == 0 && (kind == "mutex" || kind == "block") && rate == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "no samples: %s sampling may be off; pass --rate N or POST %s=N to http://%s/debug/pprof/rates\n", kind, kind, adminAddr)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&adminAddr, "member", "127.0.0.1:8080", "the member's admin HTTP address (host:port)")
	f.IntVar(&seconds, "seconds", 10, "how long to profile (cpu, wall, allocs, mutex, block)")
	f.StringVar(&out, "out", "", "output path without extension: writes FILE.pb.gz and FILE.svg")
	f.StringVar(&label, "label", "", "keep only samples with this pprof label, KEY=VALUE (e.g. op=set, kind=sql)")
	f.StringVar(&diffBase, "diff-base", "", "draw the difference to this earlier profile (.pb.gz)")
	f.IntVar(&rate, "rate", 0, "mutex/block: sampling rate to set while profiling (mutex: 1 in N events; block: per N ns blocked)")
	sec.register(f)
	return cmd
}
