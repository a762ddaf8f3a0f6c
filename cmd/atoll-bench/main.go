// Command atoll-bench runs the workloads of bench/WORKLOADS.md (SQL
// against the Predicate API; the serialization kinds) against an embedded
// cluster or an existing one, by the workloads' measurement protocol, and
// reports the figures as a table, JSON and an HTML page with charts.
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/member"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "atoll-bench:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "atoll-bench",
		Short: "Benchmark Atoll on the Hazelcast parity workloads",
		Long: `atoll-bench runs the workloads of the Hazelcast parity benchmark:

  predicate-vs-sql  workload A: eight cases, each through SQL and the Predicate API
  serialization     workload B: COMPACT, PORTABLE, IDENTIFIED and BYTE_ARRAY values,
                    SMALL and LARGE: get, set, memory cost per entry, SQL and predicate query
  all               both
  q13               TPC-H Query 13, a join across partitions and members, against DuckDB
  txn               transactions against the same operations done raw (Haeinsa's mixes)

Without --addr it starts an embedded cluster of --members members in this
process; with --addr it drives an existing cluster. Each case runs by the
workloads' protocol: a validation run whose check must match, a warm-up,
then --rounds rounds on --threads threads; ops/s is the median of the
rounds' throughputs, latencies are percentiles of every operation
(HdrHistogram, 3 significant digits). The default is the full protocol
(100 000 entries, about 10 minutes for all); --quick runs the smoke sizes
in under a minute.

With --rate the run is in latency mode instead (open loop, as wrk2 runs a
benchmark): requests of each case are scheduled at the rate for
--duration (default 60s) after a --warmup (default 5s), at most --threads
(default 64) in flight, and each is timed from the moment the schedule
meant to send it, so that a stall shows in the percentiles as the users
behind it feel it. The table gives p50 to p99.99 and the max per case and
API, the rate achieved and whether the run kept up; --json holds each
case's whole HdrHistogram and --html plots SQL and Predicate on one
percentile chart per case.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newRunCmd("predicate-vs-sql", "Workload A: SQL and the Predicate API side by side", true, false),
		newRunCmd("serialization", "Workload B: serialization kinds and sizes (get, set, memory, queries)", false, true),
		newRunCmd("all", "Workloads A and B", true, true),
		newQ13Cmd(),
		newOverloadCmd(),
		newTxnCmd(),
		newFailoverCmd(),
		newCompareCmd(),
		newSummarizeCmd(),
	)
	return root
}

// runFlags are the flags of the run commands.
type runFlags struct {
	addr, clusterName         string
	members, threads, entries int
	rounds                    int
	warmup, duration          time.Duration
	quick                     bool
	only                      string
	kinds, sizes              []string
	jsonOut, htmlOut, compare string
	rates                     []string
	profile                   []string
	profileDir                string
	clientMemory              string
	clientGOGC                int
	clientLimit               int64 // clientMemory in bytes (config)
}

// UsageError reports a flag value or combination that cannot run.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func newRunCmd(name, short string, a, b bool) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, mode, err := f.config(cmd, a, b)
			if err != nil {
				return err
			}
			return run(cmd.Context(), f, cfg, mode, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "", "drive an existing cluster at host:port[,host:port] instead of starting one")
	fl.StringVar(&f.clusterName, "cluster-name", "dev", "cluster name of the --addr cluster")
	fl.IntVar(&f.members, "members", 2, "members of the embedded cluster")
	fl.IntVar(&f.threads, "threads", 8, "client threads per case (with --rate: requests in flight at most, default 64)")
	fl.IntVar(&f.entries, "entries", 0, "entries per map (default: 100000, or 2000 with --quick)")
	fl.IntVar(&f.rounds, "rounds", 0, "measured rounds per case (default: 3, or 1 with --quick; not with --rate)")
	fl.DurationVar(&f.warmup, "warmup", 0, "warm-up per case (default: 2s, or 100ms with --quick; with --rate 5s, or 100ms)")
	fl.DurationVar(&f.duration, "duration", 0, "duration of a round (default: 4s for A and 3s for B, or 300ms and 200ms with --quick); with --rate the schedule's length (default 60s, or 1s with --quick)")
	fl.StringArrayVar(&f.rates, "rate", nil, "latency mode: requests per second per API, for every case (N) or for the cases whose id matches a regular expression (REGEX=N; repeat the flag, the first match wins; cases no rate matches are left out)")
	fl.BoolVar(&f.quick, "quick", false, "the workloads' smoke sizes: 2000 entries, one short round (under a minute)")
	fl.StringVar(&f.only, "only", "", "run only the cases whose id matches this regular expression (ids: A3/sum IDS/SQL, B COMPACT SMALL/read/MAP)")
	if b {
		fl.StringSliceVar(&f.kinds, "kinds", nil, "workload B kinds (default all: "+strings.Join(workload.BKinds, ",")+")")
		fl.StringSliceVar(&f.sizes, "sizes", nil, "workload B sizes (default all: "+strings.Join(workload.BSizes, ",")+")")
	}
	fl.StringVar(&f.jsonOut, "json", "", "write every figure and the environment to this JSON file")
	fl.StringVar(&f.htmlOut, "html", "", "write a self-contained HTML page with charts to this file")
	fl.StringVar(&f.compare, "compare", "", "compare with another run's JSON (atoll-bench's or the Hazelcast runner's results file)")
	fl.StringSliceVar(&f.profile, "profile", nil, "profiles to take during each case's rounds or schedule: cpu, allocs (of the members) and wall (wall-clock, fgprof: of the members and, with --addr, of this client), labelled with the case and its API")
	fl.StringVar(&f.profileDir, "profile-dir", "profiles", "directory of the --profile files (profile and flame graph per case, API and process)")
	fl.StringVar(&f.clientMemory, "client-memory", defaultClientMemory, "with --addr, the memory this client may use (GOMEMLIMIT), as the Hazelcast runner gives its client JVM -Xms2g -Xmx2g; 0: no limit")
	fl.IntVar(&f.clientGOGC, "client-gogc", defaultClientGOGC, "with --addr, how far this client's heap grows past its live data before a collection, in percent (GOGC)")
	return cmd
}

// The client's memory with --addr: the heap the Hazelcast runner gives its
// client JVM, and a heap growth that keeps the client well under it (about
// 560 MiB at most on workload A, against 250 MiB with Go's default of 100)
// while it collects garbage a quarter as often.
const (
	defaultClientMemory = "2GiB"
	defaultClientGOGC   = 400
)

// budgetClientMemory sets the memory limit and heap growth of this
// process, the client of an existing cluster (limit 0: none), and returns
// what the run reports.
func budgetClientMemory(limit int64, gogc int) string {
	debug.SetGCPercent(gogc)
	if limit <= 0 {
		return fmt.Sprintf("GOGC %d, no limit", gogc)
	}
	debug.SetMemoryLimit(limit)
	return fmt.Sprintf("GOGC %d, GOMEMLIMIT %d MiB", gogc, limit>>20)
}

// config turns the flags into the harness's configuration and names the
// protocol ("full", "quick", or either with "+custom" when figures were
// overridden).
func (f *runFlags) config(cmd *cobra.Command, a, b bool) (harness.Config, string, error) {
	cfg, mode := harness.Full, "full"
	if f.quick {
		cfg, mode = harness.Quick, "quick"
	}
	cfg.WorkloadA, cfg.WorkloadB = a, b
	changed := cmd.Flags().Changed
	custom := false
	if changed("addr") && changed("members") {
		return cfg, "", &UsageError{"--members sets the size of the embedded cluster; it cannot be combined with --addr"}
	}
	if f.members < 1 {
		return cfg, "", &UsageError{fmt.Sprintf("--members %d: want at least 1", f.members)}
	}
	if changed("threads") {
		cfg.Threads, custom = f.threads, true
	}
	if changed("entries") {
		if f.entries < 1 {
			return cfg, "", &UsageError{fmt.Sprintf("--entries %d: want at least 1", f.entries)}
		}
		cfg.AEntries, cfg.BEntries, custom = f.entries, f.entries, true
	}
	if changed("rounds") {
		cfg.Rounds, custom = f.rounds, true
	}
	if changed("warmup") {
		cfg.AWarmup, cfg.BWarmup, custom = f.warmup, f.warmup, true
	}
	if changed("duration") {
		cfg.ADuration, cfg.BDuration, custom = f.duration, f.duration, true
	}
	if f.only != "" {
		re, err := regexp.Compile(f.only)
		if err != nil {
			return cfg, "", &UsageError{fmt.Sprintf("--only %q: %v", f.only, err)}
		}
		cfg.Only, custom = re, true
	}
	if f.addr == "" && (changed("client-memory") || changed("client-gogc")) {
		return cfg, "", &UsageError{"--client-memory and --client-gogc apply with --addr: embedded members share this process"}
	}
	limit, err := member.ParseByteSize(f.clientMemory)
	if err != nil || limit < 0 {
		return cfg, "", &UsageError{fmt.Sprintf("--client-memory %q: want a size such as 2GiB, or 0", f.clientMemory)}
	}
	f.clientLimit = limit
	if f.clientGOGC < 1 {
		return cfg, "", &UsageError{fmt.Sprintf("--client-gogc %d: want a percentage of at least 1", f.clientGOGC)}
	}
	if len(f.kinds) > 0 || len(f.sizes) > 0 {
		cfg.Kinds, cfg.Sizes, custom = f.kinds, f.sizes, true
	}
	for _, k := range f.profile {
		if !slices.Contains(profileKinds, k) {
			return cfg, "", &UsageError{fmt.Sprintf("--profile %q: want some of %s", k, strings.Join(profileKinds, ", "))}
		}
	}
	if len(f.rates) > 0 {
		if changed("rounds") {
			return cfg, "", &UsageError{"--rounds does not apply with --rate: the latency mode runs one schedule of --duration per case"}
		}
		for _, s := range f.rates {
			r, err := parseRate(s)
			if err != nil {
				return cfg, "", err
			}
			cfg.Rates = append(cfg.Rates, r)
		}
		cfg.Rounds = 1
		if !changed("threads") {
			cfg.Threads = rateThreads
		}
		if !changed("warmup") {
			cfg.AWarmup, cfg.BWarmup = rateWarmup, rateWarmup
			if f.quick {
				cfg.AWarmup, cfg.BWarmup = harness.Quick.AWarmup, harness.Quick.BWarmup
			}
		}
		if !changed("duration") {
			cfg.ADuration, cfg.BDuration = rateDuration, rateDuration
			if f.quick {
				cfg.ADuration, cfg.BDuration = time.Second, time.Second
			}
		}
		mode += "+rate"
	}
	if err := cfg.Validate(); err != nil {
		return cfg, "", err
	}
	if custom {
		mode += "+custom"
	}
	return cfg, mode, nil
}

// The latency mode's defaults: requests in flight at most, warm-up and
// schedule length.
const (
	rateThreads  = 64
	rateWarmup   = 5 * time.Second
	rateDuration = 60 * time.Second
)

// parseRate reads a --rate value: N (every case) or REGEX=N (the cases
// whose id the expression matches).
func parseRate(s string) (harness.Rate, error) {
	pattern, num := "", s
	if i := strings.LastIndex(s, "="); i >= 0 {
		pattern, num = s[:i], s[i+1:]
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return harness.Rate{}, &UsageError{fmt.Sprintf("--rate %q: want N or REGEX=N with N a positive number of requests per second", s)}
	}
	r := harness.Rate{PerSecond: v}
	if pattern != "" {
		if r.Cases, err = regexp.Compile(pattern); err != nil {
			return harness.Rate{}, &UsageError{fmt.Sprintf("--rate %q: %v", s, err)}
		}
	}
	return r, nil
}

// CasesFailedError reports the cases that failed (the figures of the
// others are written all the same).
type CasesFailedError struct{ IDs []string }

func (e *CasesFailedError) Error() string {
	return fmt.Sprintf("%d case(s) failed: %s", len(e.IDs), strings.Join(e.IDs, ", "))
}

func run(ctx context.Context, f runFlags, cfg harness.Config, mode string, stdout, stderr io.Writer) error {
	var other *report.Run
	if f.compare != "" {
		var err error
		if other, err = report.ReadFile(f.compare); err != nil {
			return err
		}
	}
	if len(f.profile) > 0 {
		if err := os.MkdirAll(f.profileDir, 0o755); err != nil {
			return fmt.Errorf("--profile-dir: %w", err)
		}
	}
	start := time.Now()
	out := &report.Run{
		Tool: "atoll-bench", Date: start.UTC().Format(time.RFC3339), GoVersion: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUModel: cpuModel(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Mode: mode, LoadAvg: &report.Load{Start: report.Float(harness.LoadAverage())},
	}
	var addrs []string
	clusterName := f.clusterName
	if f.addr == "" {
		clusterName = "atoll-bench"
		fmt.Fprintf(stderr, "starting %d embedded members\n", f.members)
		cl, err := startEmbedded(ctx, f.members, clusterName, stderr)
		if err != nil {
			return err
		}
		defer cl.close()
		addrs = cl.addrs()
		out.MemberProcess = "embedded: members in the atoll-bench process, with the client"
	} else {
		addrs = strings.Split(f.addr, ",")
		out.MemberProcess = "existing cluster at " + f.addr
		out.ClientMemory = budgetClientMemory(f.clientLimit, f.clientGOGC)
	}
	c, err := client.New(ctx, workload.ClientConfig(addrs, clusterName))
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", strings.Join(addrs, ","), err)
	}
	defer c.Close()
	st, err := c.ClusterState(ctx)
	if err != nil {
		return fmt.Errorf("cluster state: %w", err)
	}
	out.Members = len(st.Members)
	var admins []string
	for _, m := range st.Members {
		out.Addresses = append(out.Addresses, m.Address)
		if m.AdminAddress != "" {
			admins = append(admins, m.AdminAddress)
		}
	}
	fmt.Fprintf(stderr, "cluster of %d members at %s; %s protocol, %d threads\n", out.Members, strings.Join(out.Addresses, ","), mode, cfg.Threads)
	if out.ClientMemory != "" {
		fmt.Fprintf(stderr, "client memory: %s\n", out.ClientMemory)
	}

	var prof harness.Profiler
	if len(f.profile) > 0 {
		if len(admins) == 0 {
			return &UsageError{"--profile: the members publish no admin address to profile"}
		}
		if f.addr == "" {
			admins = admins[:1] // one process: one profile covers every member (and the client)
		}
		prof = &caseProfiler{dir: f.profileDir, kinds: f.profile, admins: admins, client: f.addr != "", warn: stderr}
	}
	var obs harness.Observer = plainObserver{w: stderr}
	if fd, ok := stderr.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(fd.Fd())) {
		obs = &barObserver{w: stderr}
	}
	runErr := harness.Run(ctx, c, cfg, obs, prof, out)
	out.TotalSeconds = report.Float(time.Since(start).Seconds())
	out.LoadAvg.End = report.Float(harness.LoadAverage())

	fmt.Fprintln(stdout)
	if err := out.WriteTable(stdout); err != nil {
		return err
	}
	var cmp *report.Comparison
	if other != nil {
		cmp = report.Compare(out, other)
		fmt.Fprintln(stdout)
		if err := cmp.WriteTable(stdout); err != nil {
			return err
		}
	}
	if err := writeOutputs(out, cmp, f.jsonOut, f.htmlOut, stderr); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if failed := out.Failed(); len(failed) > 0 {
		return &CasesFailedError{IDs: failed}
	}
	return nil
}

func writeOutputs(r *report.Run, cmp *report.Comparison, jsonOut, htmlOut string, stderr io.Writer) error {
	if jsonOut != "" {
		if err := writeFile(jsonOut, func(w io.Writer) error { return r.WriteJSON(w) }); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", jsonOut)
	}
	if htmlOut != "" {
		if err := writeFile(htmlOut, func(w io.Writer) error { return r.WriteHTML(w, cmp) }); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", htmlOut)
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func newCompareCmd() *cobra.Command {
	var htmlOut, format string
	cmd := &cobra.Command{
		Use:   "compare THIS.json OTHER.json",
		Short: "Compare two runs (atoll-bench's or the Hazelcast runner's results files)",
		Long: `compare prints the ratio THIS ÷ OTHER of every case's throughput and median
latency and of the memory per entry of every workload B map; when OTHER is
the Hazelcast runner's results file it also judges Atoll's goals against
it. --html writes THIS run's page with the comparison charted; --format
markdown writes the tables as Markdown.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" {
				return &UsageError{fmt.Sprintf("--format %q: want text or markdown", format)}
			}
			this, err := report.ReadFile(args[0])
			if err != nil {
				return err
			}
			other, err := report.ReadFile(args[1])
			if err != nil {
				return err
			}
			cmp := report.Compare(this, other)
			if format == "markdown" {
				err = cmp.WriteMarkdown(cmd.OutOrStdout())
			} else {
				err = cmp.WriteTable(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			return writeOutputs(this, cmp, "", htmlOut, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&htmlOut, "html", "", "write THIS run's HTML page with the comparison to this file")
	cmd.Flags().StringVar(&format, "format", "text", "text or markdown (tables for RESULTS.md)")
	return cmd
}

func newSummarizeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "summarize RUN.json...",
		Short: "Medians of several runs (atoll-bench's or the Hazelcast runner's results files) as Markdown",
		Long: `summarize prints, as Markdown tables, the median over the runs of every
case's throughput (with each run's figure), the medians of their p50, p90
and p99 latencies, the largest max, the SQL÷PRED ratio of the medians, and
the memory per entry of every workload B map. The runs should follow the
same protocol (several full runs of one system).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs := make([]*report.Run, len(args))
			for i, p := range args {
				r, err := report.ReadFile(p)
				if err != nil {
					return err
				}
				runs[i] = r
			}
			return report.WriteSummary(cmd.OutOrStdout(), runs)
		},
	}
}

// cpuModel is the processor's model name (Linux), for the environment.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
