package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/overload"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/txn"
	"github.com/atolldb/atoll/bench/workload"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/member"
)

type txnFlags struct {
	processFlags
	threads, keys, rounds, attempts int
	hotKeys                         []int
	mixes                           []string
	warmup, duration                time.Duration
	jsonOut, htmlOut, profileDir    string
	memoryLimit                     string
}

func newTxnCmd() *cobra.Command {
	var f txnFlags
	cmd := &cobra.Command{
		Use:   "txn",
		Short: "Transactions against the same operations done raw: Haeinsa's practical and worst-case mixes",
		Long: `txn runs the two transaction mixes of Haeinsa's performance page, each done raw
(plain map calls) and as one transaction, by the workloads' protocol (a
validation run, a warm-up, then --rounds rounds on --threads threads):

  practical  (3 writes + 1 read) × 2 rows + 1 read × 1 row
  worst      1 write × 2 rows + 1 read × 1 row

Rows are int64 values of one map, drawn from --keys keys (conflicts rare),
or, at each level of --hot-keys above 0, from that many keys only (conflicts
frequent). A transaction that conflicts runs again with the client's backoff
and jitter, up to --attempts attempts. It prints throughput, p50/p90/p99
latency, the transaction's throughput and latency against raw, the
conflicts per transaction and the transactions that failed after their
retries, and writes --json and --html (and, with --profile, CPU and
allocation profiles of the members during each case's rounds).

Without --addr it starts --members member processes (the atoll command
beside atoll-bench, on PATH, or --atoll); with --addr it drives an existing
cluster (--admin: the members' admin addresses, for readiness and profiles).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTxn(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	f.processFlags.register(fl)
	fl.IntVar(&f.threads, "threads", 8, "client threads")
	fl.IntVar(&f.keys, "keys", 100_000, "keys the rows are drawn from")
	fl.IntSliceVar(&f.hotKeys, "hot-keys", []int{0}, "contention levels: 0 draws from --keys, N from the first N keys (e.g. 0,16)")
	fl.StringSliceVar(&f.mixes, "mix", txn.Mixes, "mixes to run: practical, worst")
	fl.DurationVar(&f.warmup, "warmup", 2*time.Second, "warm-up of each case")
	fl.DurationVar(&f.duration, "duration", 5*time.Second, "one measured round")
	fl.IntVar(&f.rounds, "rounds", 3, "measured rounds per case")
	fl.IntVar(&f.attempts, "attempts", 10, "attempts of a transaction before it fails with a conflict")
	fl.StringVar(&f.memoryLimit, "memory-limit", "4GiB", "each started member's --memory-limit")
	fl.StringVar(&f.jsonOut, "json", "", "write every figure to this JSON file")
	fl.StringVar(&f.htmlOut, "html", "", "write the table and charts to this HTML file")
	fl.StringVar(&f.profileDir, "profile", "", "capture CPU and allocation profiles of the members during each case's rounds into this directory")
	return cmd
}

func runTxn(ctx context.Context, f txnFlags, stdout, stderr io.Writer) error {
	proto := harness.Protocol{Threads: f.threads, Warmup: f.warmup, Duration: f.duration, Rounds: f.rounds}
	if err := proto.Validate(); err != nil {
		return &UsageError{err.Error()}
	}
	if f.attempts < 1 || f.members < 1 || len(f.hotKeys) == 0 || len(f.mixes) == 0 {
		return &UsageError{"txn needs --attempts ≥ 1, --members ≥ 1, --hot-keys and --mix"}
	}
	retry := client.Backoff{Initial: 10 * time.Millisecond, Max: time.Second, Attempts: f.attempts}
	for _, h := range f.hotKeys {
		if err := (txn.Config{Keys: f.keys, HotKeys: h}).Validate(); err != nil {
			return &UsageError{err.Error()}
		}
	}
	for _, m := range f.mixes {
		if m != "practical" && m != "worst" {
			return &UsageError{fmt.Sprintf("--mix %q: want practical or worst", m)}
		}
	}
	run := &txn.Run{Date: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUModel: cpuModel(), CPUs: runtime.NumCPU(),
		Members: f.members, Threads: f.threads, Keys: f.keys, Warmup: f.warmup.Seconds(), Duration: f.duration.Seconds(),
		Rounds: f.rounds, Attempts: f.attempts, LoadStart: harness.LoadAverage()}
	addrs, admins, stop, err := txnCluster(ctx, f, stderr)
	if err != nil {
		return err
	}
	defer stop()
	run.Members = len(addrs)
	run.MemberProcess = "member processes on this host"
	if f.addr != "" {
		run.MemberProcess = "an existing cluster at " + f.addr
	}
	c, err := client.New(ctx, client.Config{Addresses: addrs, ClusterName: f.clusterName, ClientName: "atoll-bench txn"})
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	if err := txn.Load(ctx, c, f.keys, f.threads); err != nil {
		return fmt.Errorf("loading %d keys: %w", f.keys, err)
	}
	fmt.Fprintf(stderr, "loaded %d keys in %.1fs\n", f.keys, time.Since(start).Seconds())
	var prof *caseProfiler
	if f.profileDir != "" && len(admins) > 0 {
		if err := os.MkdirAll(f.profileDir, 0o755); err != nil {
			return fmt.Errorf("--profile: %w", err)
		}
		prof = &caseProfiler{dir: f.profileDir, kinds: []string{"cpu", "allocs"}, admins: admins, warn: stderr}
	}
	for _, hot := range f.hotKeys {
		cfg := txn.Config{Keys: f.keys, HotKeys: hot, Retry: retry}
		for _, mix := range f.mixes {
			for _, mode := range txn.Modes {
				run.Cases = append(run.Cases, txnCase(ctx, c, cfg, mix, mode, proto, prof, stderr))
				if ctx.Err() != nil {
					return ctx.Err()
				}
			}
		}
	}
	run.LoadEnd = harness.LoadAverage()
	if err := run.WriteTable(stdout); err != nil {
		return err
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{f.jsonOut, run.WriteJSON}, {f.htmlOut, run.WriteHTML}} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", out.path)
	}
	return nil
}

// txnCluster starts the member processes (or takes --addr's cluster) and
// waits until they are ready.
func txnCluster(ctx context.Context, f txnFlags, stderr io.Writer) (addrs, admins []string, stop func(), err error) {
	limit, err := member.ParseByteSize(f.memoryLimit)
	if err != nil {
		return nil, nil, nil, &UsageError{fmt.Sprintf("--memory-limit %q: %v", f.memoryLimit, err)}
	}
	members, stop, err := f.memberProcesses(ctx, overload.ProcessOptions{MemoryLimit: limit, Breaker: true}, "atoll-txn-", stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, m := range members {
		addrs = append(addrs, m.Addr)
		if m.Admin != "" {
			admins = append(admins, m.Admin)
		}
	}
	return addrs, admins, stop, nil
}

// txnCase measures one mix in one mode at one contention level.
func txnCase(ctx context.Context, c *client.Client, cfg txn.Config, mix, mode string, p harness.Protocol, prof *caseProfiler, stderr io.Writer) txn.Case {
	level := txn.Level(cfg.HotKeys, cfg.Keys)
	id := workload.Case{Group: "TX " + mix, Name: level, API: mode}
	out := txn.Case{Mix: mix, Mode: mode, HotKeys: cfg.HotKeys, Case: report.Case{ID: id.ID(), Group: id.Group, Name: id.Name, API: mode, Map: txn.MapName}}
	counters := &txn.Counters{}
	var before txn.Snapshot
	var profiles []report.Profile
	var cpu time.Duration
	hooks := harness.Hooks{
		Phase: func(ph harness.Phase) { fmt.Fprintf(stderr, "%s %s %s: %s\n", mix, mode, level, ph) },
		Rounds: func() func() {
			before, cpu = counters.Snapshot(), harness.ProcessCPU()
			var stopProf func() []report.Profile
			if prof != nil {
				stopProf = prof.Start(ctx, id, p.Expected()-p.Warmup)
			}
			return func() {
				cpu = harness.ProcessCPU() - cpu
				if stopProf != nil {
					profiles = stopProf()
				}
			}
		},
	}
	var newErr error
	m, err := harness.Measure(ctx, p, id.ID(), 1, func(thread int) harness.Op {
		op, err := txn.NewOp(c, cfg, mix, mode, thread, counters)
		if err != nil {
			newErr = err
			return func(context.Context) (int64, error) { return 0, err }
		}
		return op
	}, new(atomic.Int64), hooks)
	if err == nil {
		err = newErr
	}
	out.Load1 = report.Float(harness.LoadAverage())
	out.Profiles = profiles
	if err == nil {
		err = out.SetLatency(m.Latency)
	}
	if err != nil {
		out.Error = err.Error()
		out.OpsPerSecMedian, out.P50ms, out.P90ms, out.P99ms = report.NaN(), report.NaN(), report.NaN(), report.NaN()
		out.P999ms, out.P9999ms, out.Maxms = report.NaN(), report.NaN(), report.NaN()
		fmt.Fprintf(stderr, "%s %s %s: %v\n", mix, mode, level, err)
		return out
	}
	out.Ops, out.OpsPerSecMedian, out.RoundOpsPerSec = m.Ops, report.Float(m.OpsPerSec), m.RoundOpsPerSec
	out.ProcessCPU = report.Float(cpu.Seconds() / p.Expected().Seconds())
	check := m.Check
	out.Check, out.Expected = &check, new(int64)
	*out.Expected = 1
	if mode == "transaction" {
		d := counters.Snapshot().Sub(before)
		out.Transactions, out.Conflicts, out.Failures = d.Transactions, d.Conflicts, d.Failures
		if d.Transactions > 0 {
			out.ConflictPct = 100 * float64(d.Conflicts) / float64(d.Transactions)
			out.FailurePct = 100 * float64(d.Failures) / float64(d.Transactions)
		}
	}
	return out
}
