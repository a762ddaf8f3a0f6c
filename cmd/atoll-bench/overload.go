package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/bench/overload"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/member"
)

type overloadFlags struct {
	processFlags
	clients                []int
	step                   time.Duration
	passes                 int
	fit, padBytes          int
	memoryLimit, killAbove string
	breaker                string
	jsonOut, htmlOut, svg  string
}

// overloadClients are the document's client counts.
var overloadClients = []int{1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 80, 96, 112, 128, 160, 192, 224, 256}

func newOverloadCmd() *cobra.Command {
	var f overloadFlags
	cmd := &cobra.Command{
		Use:   "join-overload",
		Short: "The join overload workload: 1 to 256 clients looping a large join, the memory breaker on and off",
		Long: `join-overload starts --members member processes (the atoll command beside
atoll-bench, on PATH, or --atoll), each with --memory-limit, loads two maps
sized so that about --fit joins fit in a member's query memory at once, and
for each client count of --clients has that many clients loop a join whose
build side holds every build row with its padding. Per client count it
prints the error rate, the min/median/max of the per-second throughput, the
p50/p90/p100 latency (retries inside the client included), the breaker's
rejections and terminations, the largest resident set of any member, gets
made on the side, the CPU per answered query in the members and in the
client, and the share of the machine's CPU the hypervisor stole (steal in
/proc/stat) during the step. A member whose resident set passes --kill-above is
killed, as a container's out-of-memory killer would (default: the memory
limit / 0.9, the container a member's derived limit would come from); a
member that leaves its metrics unanswered for 5s has stalled. A run stops
at the first client count at which a member dies or stalls.

--breaker both runs the whole range with the breaker on, then on fresh
members with it off (query.breaker.enabled: false): the document's new and
old hash join. The clients are goroutines of one Go client, so the members
it starts let one client hold as many cursors as the largest client count
(query.max-cursors-per-client; give an existing cluster the same). With
--addr it drives an existing cluster once (--breaker
then only labels the run) and watches resident sets through the members'
metrics. It writes --json, --html (the table and the five graphs) and
--svg (the graphs alone).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOverload(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	f.processFlags.register(fl)
	fl.IntSliceVar(&f.clients, "clients", overloadClients, "client counts, in order")
	fl.DurationVar(&f.step, "step", 10*time.Second, "how long each client count runs per pass (throughput is sampled per second)")
	fl.IntVar(&f.passes, "passes", 1, "how many times the client counts run, in order each time; a client count's figures pool its passes, spreading a drift of the machine's speed over all of them")
	fl.StringVar(&f.memoryLimit, "memory-limit", "256MiB", "each member's --memory-limit")
	fl.StringVar(&f.killAbove, "kill-above", "", "kill a member whose resident set passes this (default: memory limit / 0.9); 0: never")
	fl.IntVar(&f.fit, "fit", 20, "how many joins fit in a member's query memory at once")
	fl.IntVar(&f.padBytes, "pad", 1000, "bytes of padding per build row")
	fl.StringVar(&f.breaker, "breaker", "on", "on, off, or both (on, then off on fresh members)")
	fl.StringVar(&f.jsonOut, "json", "", "write every figure to this JSON file")
	fl.StringVar(&f.htmlOut, "html", "", "write the table and the five graphs to this HTML file")
	fl.StringVar(&f.svg, "svg", "", "write the five graphs to this SVG file")
	return cmd
}

func runOverload(ctx context.Context, f overloadFlags, stdout, stderr io.Writer) error {
	limit, err := member.ParseByteSize(f.memoryLimit)
	if err != nil || limit <= 0 {
		return &UsageError{fmt.Sprintf("--memory-limit %q: want a size such as 256MiB", f.memoryLimit)}
	}
	killAbove := int64(float64(limit) / 0.9)
	if f.killAbove != "" {
		if killAbove, err = member.ParseByteSize(f.killAbove); err != nil {
			return &UsageError{fmt.Sprintf("--kill-above %q: want a size such as 300MiB, or 0", f.killAbove)}
		}
	}
	if len(f.clients) == 0 || f.members < 1 || f.fit < 1 || f.padBytes < 1 || f.passes < 1 {
		return &UsageError{"join-overload needs --clients, --members ≥ 1, --fit ≥ 1, --pad ≥ 1 and --passes ≥ 1"}
	}
	for _, n := range f.clients {
		if n < 1 {
			return &UsageError{fmt.Sprintf("--clients %d: want at least 1", n)}
		}
	}
	modes := map[string][]bool{"on": {true}, "off": {false}, "both": {true, false}}[f.breaker]
	if modes == nil {
		return &UsageError{fmt.Sprintf("--breaker %q: want on, off or both", f.breaker)}
	}
	if f.addr != "" && len(modes) > 1 {
		return &UsageError{"--breaker both starts members of its own: not with --addr"}
	}
	retry := client.Backoff{}
	cfg := overload.Config{Clients: f.clients, Step: f.step, Passes: f.passes, MemoryLimit: limit, KillAbove: killAbove,
		RetryBudget: retry.Budget(200 * time.Millisecond), Progress: stderr}
	rep := &overload.Report{Date: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUModel: cpuModel(), CPUs: runtime.NumCPU()}
	for _, on := range modes {
		res, err := overloadRun(ctx, f, on, limit, cfg, stderr)
		if err != nil {
			return err
		}
		if on {
			rep.On = res
		} else {
			rep.Off = res
		}
	}
	fmt.Fprintln(stdout)
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
		flag  string
	}{{f.jsonOut, rep.WriteJSON, "--json"}, {f.htmlOut, rep.WriteHTML, "--html"}, {f.svg, rep.WriteSVG, "--svg"}} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			return fmt.Errorf("%s: %w", out.flag, err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", out.path)
	}
	return nil
}

// overloadRun runs every client count with the breaker on or off.
func overloadRun(ctx context.Context, f overloadFlags, breaker bool, limit int64, cfg overload.Config, stderr io.Writer) (*overload.Result, error) {
	if f.addr != "" && f.admins == "" {
		return nil, &UsageError{"--addr needs --admin with one admin address per member"}
	}
	fmt.Fprintf(stderr, "memory limit %s, breaker %s\n", f.memoryLimit, onOff(breaker))
	members, stop, err := f.memberProcesses(ctx, overload.ProcessOptions{MemoryLimit: limit, Breaker: breaker, CursorsPerClient: slices.Max(f.clients)}, "atoll-join-overload-", stderr)
	if err != nil {
		return nil, err
	}
	defer stop()
	var addrs []string
	for _, m := range members {
		addrs = append(addrs, m.Addr)
	}
	c, err := client.New(ctx, client.Config{Addresses: addrs, ClusterName: f.clusterName})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	size := overload.SizeFor(limit, len(members), f.fit, f.padBytes)
	start := time.Now()
	if err := overload.Load(ctx, c, size, 4); err != nil {
		return nil, err
	}
	if err := overload.Check(ctx, c, size); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "loaded %d build rows (%d bytes of padding each) and %d probe rows in %.1fs; the join checks; breaker %s\n",
		size.BuildRows, size.PadBytes, size.ProbeRows, time.Since(start).Seconds(), onOff(breaker))
	res, err := overload.Run(ctx, c, members, size, cfg)
	if res != nil {
		res.Breaker = breaker
	}
	return res, err
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
