package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/tpch"
	"github.com/atolldb/atoll/pkg/client"
)

type q13Flags struct {
	sf            float64
	members       []int
	vectorSizes   []int64
	batchBytes    int64
	runs          int
	data          string
	duckdbThreads int
	jsonOut       string
	htmlOut       string
	profileDir    string
}

func newQ13Cmd() *cobra.Command {
	var f q13Flags
	cmd := &cobra.Command{
		Use:   "q13",
		Short: "TPC-H Query 13 (a join across partitions and members) against DuckDB",
		Long: `q13 generates TPC-H's customer and orders tables (tpchgen-cli, CSV), asks DuckDB
for Q13's answer and time on the same files, then for each cluster size of
--members starts an embedded cluster of that many members in this process,
loads both tables as Compact values keyed by their primary keys, checks that
Q13 returns exactly DuckDB's rows, and times it --runs times per vector size
(the rows a member gathers from the others before handing them to the join;
a single member sends none). It prints the Virtuoso article's table
(vector size, milliseconds, scheduling wait, write-block) with the
messages and KB per second of each member, and writes --json and --html.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.sf <= 0 || f.runs < 1 || len(f.members) == 0 || len(f.vectorSizes) == 0 {
				return &UsageError{"q13 needs --sf > 0, --runs >= 1, --members and --vector-sizes"}
			}
			for _, m := range f.members {
				if m < 1 {
					return &UsageError{fmt.Sprintf("--members %d: want at least 1", m)}
				}
			}
			for _, v := range f.vectorSizes {
				if v < 1 {
					return &UsageError{fmt.Sprintf("--vector-sizes %d: want at least 1", v)}
				}
			}
			return runQ13(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&f.sf, "sf", 1, "TPC-H scale factor (1: 150 000 customers, 1 500 000 orders)")
	fl.IntSliceVar(&f.members, "members", []int{1, 2, 3}, "cluster sizes to run, each an embedded cluster of its own")
	fl.Int64SliceVar(&f.vectorSizes, "vector-sizes", []int64{10000, 100000, 1000000}, "vector sizes to time on clusters of several members")
	fl.Int64Var(&f.batchBytes, "batch-bytes", 64<<10, "the most a member buffers for another before sending")
	fl.IntVar(&f.runs, "runs", 5, "timed runs per setting (after one warm-up run); the median is reported")
	fl.StringVar(&f.data, "data", "", "directory for the generated CSV files (default: the user cache directory)")
	fl.IntVar(&f.duckdbThreads, "duckdb-threads", 0, "DuckDB's threads (0: its default, one per CPU)")
	fl.StringVar(&f.jsonOut, "json", "", "write every figure to this JSON file")
	fl.StringVar(&f.htmlOut, "html", "", "write a self-contained HTML page with charts to this file")
	fl.StringVar(&f.profileDir, "profile", "", "capture a CPU profile of the members during each setting's timed runs into this directory")
	return cmd
}

func runQ13(ctx context.Context, f q13Flags, stdout, stderr io.Writer) error {
	root := f.data
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("--data: %w", err)
		}
		root = filepath.Join(cache, "atoll", "tpch")
	}
	dir := tpch.Dir(root, f.sf)
	run := &tpch.Run{Date: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUModel: cpuModel(),
		CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), ScaleFactor: f.sf, Runs: f.runs, BatchBytes: f.batchBytes,
		MemberProcess: "embedded: every member in the atoll-bench process, with the client", LoadStart: harness.LoadAverage()}
	fmt.Fprintf(stderr, "generating TPC-H SF %g into %s\n", f.sf, dir)
	if err := tpch.Generate(ctx, dir, f.sf); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "DuckDB: Q13, %d timed runs\n", f.runs)
	ref, err := tpch.DuckDB(ctx, dir, f.runs, f.duckdbThreads)
	if err != nil {
		return err
	}
	run.DuckDB = tpch.DuckDBFigures{Version: ref.Version, Threads: ref.Threads, Millis: ref.Millis, MedianMs: tpch.Median(ref.Millis)}
	fmt.Fprintf(stderr, "DuckDB %s: %d rows, %.1f ms (median)\n", ref.Version, len(ref.Rows), run.DuckDB.MedianMs)
	if f.profileDir != "" {
		if err := os.MkdirAll(f.profileDir, 0o755); err != nil {
			return fmt.Errorf("--profile: %w", err)
		}
	}
	for _, n := range f.members {
		if err := q13Cluster(ctx, f, n, dir, ref, run, stderr); err != nil {
			return err
		}
	}
	run.LoadEnd = harness.LoadAverage()
	fmt.Fprintln(stdout)
	if err := run.WriteTable(stdout); err != nil {
		return err
	}
	if f.jsonOut != "" {
		if err := writeFile(f.jsonOut, run.WriteJSON); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", f.jsonOut)
	}
	if f.htmlOut != "" {
		if err := writeFile(f.htmlOut, run.WriteHTML); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", f.htmlOut)
	}
	return nil
}

// q13Cluster runs the settings of one cluster size.
func q13Cluster(ctx context.Context, f q13Flags, n int, dir string, ref *tpch.Reference, run *tpch.Run, stderr io.Writer) error {
	fmt.Fprintf(stderr, "starting %d embedded member(s)\n", n)
	cl, err := startEmbedded(ctx, n, "atoll-bench", stderr)
	if err != nil {
		return err
	}
	defer cl.close()
	c, err := client.New(ctx, client.Config{Addresses: cl.addrs(), ClusterName: "atoll-bench"})
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	counts, err := tpch.Load(ctx, c, dir, 4, loadProgress(stderr))
	if err != nil {
		return err
	}
	if run.LoadSeconds == 0 {
		run.LoadSeconds = time.Since(start).Seconds()
	}
	run.Customers, run.Orders = counts["customer"], counts["orders"]
	fmt.Fprintf(stderr, "loaded %d customers and %d orders in %.1fs\n", run.Customers, run.Orders, time.Since(start).Seconds())
	got, err := tpch.Q13Rows(ctx, c, tpch.Q13)
	if err != nil {
		return err
	}
	if d := tpch.Diff(got, ref.Rows); d != "" {
		return fmt.Errorf("Q13 on %d member(s) differs from DuckDB's answer: %s", n, d)
	}
	fmt.Fprintf(stderr, "Q13 on %d member(s) returns DuckDB's %d rows\n", n, len(got))
	vectors := f.vectorSizes
	if n == 1 {
		vectors = vectors[:1] // one member sends nothing: the vector size does not apply
	}
	// DuckDB again, next to this cluster size's runs: the machine's load
	// moves, and the ratio should compare like with like.
	near, err := tpch.DuckDB(ctx, dir, f.runs, f.duckdbThreads)
	if err != nil {
		return err
	}
	duckMs := tpch.Median(near.Millis)
	fmt.Fprintf(stderr, "DuckDB now: %.1f ms (median)\n", duckMs)
	var admin string
	if f.profileDir != "" {
		admin = cl.members[0].AdminAddr() // one process: one profile covers every member
	}
	for _, v := range vectors {
		q := strings.Replace(tpch.Q13, "SELECT ", fmt.Sprintf("SELECT /*+ VECTOR_SIZE(%d) BATCH_BYTES(%d) */ ", v, f.batchBytes), 1)
		if _, err := tpch.Q13Rows(ctx, c, q); err != nil { // warm-up
			return err
		}
		if _, err := exchangeStats(ctx, c, true); err != nil {
			return err
		}
		r := tpch.Result{Members: n, VectorSize: v, Load1: harness.LoadAverage()}
		var stopProfile func() []string
		if admin != "" {
			stopProfile = startQ13Profile(ctx, f.profileDir, admin, fmt.Sprintf("q13-sf%g-%dm-v%d", f.sf, n, v), stderr)
		}
		began, cpu0 := time.Now(), harness.ProcessCPU()
		for i := 0; i < f.runs; i++ {
			t := time.Now()
			if _, err := tpch.Q13Rows(ctx, c, q); err != nil {
				return err
			}
			r.Millis = append(r.Millis, float64(time.Since(t).Microseconds())/1000)
		}
		elapsed := time.Since(began).Seconds()
		r.CPUMsPerRun = float64((harness.ProcessCPU() - cpu0).Microseconds()) / 1000 / float64(f.runs)
		if stopProfile != nil {
			r.Profiles = stopProfile()
		}
		stats, err := exchangeStats(ctx, c, true)
		if err != nil {
			return err
		}
		runs := float64(f.runs)
		var shipped float64
		for _, s := range stats {
			r.SchedulingWaitUs += float64(s.schedulingWaitUs) / runs
			r.WriteBlockUs += float64(s.writeBlockUs) / runs
			r.Messages += float64(s.messagesSent) / runs
			r.Bytes += float64(s.bytesSent) / runs
			shipped += float64(s.rowsShipped) / runs
			if n > 1 {
				r.PerMember = append(r.PerMember, tpch.MemberTraffic{Member: s.member,
					MessagesPerSecond: float64(s.messagesSent+s.messagesReceived) / elapsed,
					KBPerSecond:       float64(s.bytesSent+s.bytesReceived) / 1024 / elapsed})
			}
		}
		r.RowsShipped = shipped
		if shipped > 0 {
			r.BytesPerRow = r.Bytes / shipped
		}
		r.MedianMs = tpch.Median(r.Millis)
		r.DuckDBMs = duckMs
		r.VsDuckDB = r.MedianMs / duckMs
		run.Results = append(run.Results, r)
		fmt.Fprintf(stderr, "  %d member(s), vector %d: %.1f ms (median of %d), %.2f× DuckDB, %.0f ms CPU, %.0f µs scheduling wait, %.0f µs write-block per run\n",
			n, v, r.MedianMs, f.runs, r.VsDuckDB, r.CPUMsPerRun, r.SchedulingWaitUs, r.WriteBlockUs)
	}
	return nil
}

// memberStats is one row of TABLE(exchange_stats()).
type memberStats struct {
	member                                                   string
	messagesSent, messagesReceived, bytesSent, bytesReceived int64
	rowsShipped, writeBlockUs, schedulingWaitUs              int64
}

// exchangeStats reads every member's exchange counters through SQL,
// clearing them with clear.
func exchangeStats(ctx context.Context, c *client.Client, clear bool) ([]memberStats, error) {
	rows, err := c.SQL(ctx, "SELECT * FROM TABLE(exchange_stats("+strings.ToUpper(strconv.FormatBool(clear))+"))")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memberStats
	for rows.Next() {
		var s memberStats
		if err := rows.Scan(&s.member, &s.messagesSent, &s.messagesReceived, &s.bytesSent, &s.bytesReceived,
			&s.rowsShipped, &s.writeBlockUs, &s.schedulingWaitUs); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// loadProgress draws a bar per table on a terminal, else a line per table.
func loadProgress(w io.Writer) tpch.Progress {
	bars := map[string]*progressbar.ProgressBar{}
	tty := false
	if fd, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(fd.Fd())) {
		tty = true
	}
	var last string
	var mu sync.Mutex
	return func(table string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if !tty {
			if total >= 0 && table != last {
				last = table
				fmt.Fprintf(w, "  %s: %d rows\n", table, total)
			}
			return
		}
		b := bars[table]
		if b == nil {
			b = progressbar.NewOptions64(-1, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("loading "+table),
				progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			bars[table] = b
		}
		_ = b.Set64(done)
		if total >= 0 {
			_ = b.Finish()
			fmt.Fprintf(w, "  %s: %d rows\n", table, total)
		}
	}
}

// startQ13Profile captures a CPU profile of the members while a setting's
// runs go on; the returned function waits for it and names its files.
func startQ13Profile(ctx context.Context, dir, admin, id string, warn io.Writer) func() []string {
	p := &caseProfiler{dir: dir, kinds: []string{"cpu"}, admins: []string{admin}, warn: warn}
	ch := make(chan []string, 1)
	go func() {
		prof, err := p.capture(ctx, id, "SQL", 0, admin, "cpu", 5)
		if err != nil {
			fmt.Fprintf(warn, "  %s: profile: %v\n", id, err)
			ch <- nil
			return
		}
		var top []string
		for _, t := range prof.Top {
			top = append(top, fmt.Sprintf("%s %.1f%%", t.Function, t.Percent))
		}
		ch <- append([]string{prof.File}, top...)
	}()
	return func() []string { return <-ch }
}
