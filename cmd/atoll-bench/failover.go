package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/bench/failover"
	"github.com/atolldb/atoll/bench/overload"
	"github.com/atolldb/atoll/pkg/client"
)

type failoverFlags struct {
	sdk, disruption     string
	before, after       time.Duration
	writers             int
	atoll, logs         string
	javaClasspath, java string
	jsonOut             string
}

func newFailoverCmd() *cobra.Command {
	var f failoverFlags
	cmd := &cobra.Command{
		Use:   "failover",
		Short: "Failover: 8 writers while one of 3 members is killed (kill -9) or paused (SIGSTOP)",
		Long: `failover starts 3 member processes with their default configuration (the
atoll command beside atoll-bench, on PATH, or --atoll), waits until they are
ready, and runs the failover workload through an SDK: --writers writers each
set keys "t<writer>-<i>" to themselves (30 s deadline per call in Go, the
client's invocation timeout in Java), the third member is killed with
SIGKILL (--disruption kill) or paused with SIGSTOP (stop) after --before,
the writers go on for --after, stop, the paused member is continued, and
every acknowledged key is read back. It prints one FAILOVER line: the
longest pause without an acknowledgement of any writer, the slowest call,
and the writes acknowledged, failed and lost. The workload is Hazelcast's
reference harness (bench/hazelcast/run failover runs it against Hazelcast).

--sdk go runs the writers in this process; --sdk java runs the Java SDK's
runner (io.atoll.client.bench.Failover, in the SDK's test classes) with
--java-classpath; bench/failover/run builds both and runs every SDK and
disruption, and Hazelcast's, in one go.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFailover(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.sdk, "sdk", "go", "go, or java (needs --java-classpath)")
	fl.StringVar(&f.disruption, "disruption", "kill", "kill (SIGKILL) or stop (SIGSTOP, then SIGCONT once the writers stopped)")
	fl.DurationVar(&f.before, "before", 5*time.Second, "writes before the disruption")
	fl.DurationVar(&f.after, "after", 15*time.Second, "writes after the disruption")
	fl.IntVar(&f.writers, "writers", 8, "writers")
	fl.StringVar(&f.atoll, "atoll", "", "the atoll command that starts members (default: beside atoll-bench, else on PATH)")
	fl.StringVar(&f.logs, "logs", "", "directory for the members' logs (default: a new temporary directory)")
	fl.StringVar(&f.javaClasspath, "java-classpath", "", "with --sdk java: the Java SDK's classes, test classes and dependencies")
	fl.StringVar(&f.java, "java", "java", "with --sdk java: the java command")
	fl.StringVar(&f.jsonOut, "json", "", "write the result to this JSON file")
	return cmd
}

func runFailover(ctx context.Context, f failoverFlags, stdout, stderr io.Writer) error {
	signals := map[string]syscall.Signal{"kill": syscall.SIGKILL, "stop": syscall.SIGSTOP}
	sig, ok := signals[f.disruption]
	if !ok {
		return &UsageError{fmt.Sprintf("--disruption %q: want kill or stop", f.disruption)}
	}
	if f.sdk != "go" && f.sdk != "java" {
		return &UsageError{fmt.Sprintf("--sdk %q: want go or java", f.sdk)}
	}
	if f.sdk == "java" && f.javaClasspath == "" {
		return &UsageError{"--sdk java needs --java-classpath (bench/failover/run builds it)"}
	}
	if f.writers < 1 || f.before <= 0 || f.after <= 0 {
		return &UsageError{"failover needs --writers ≥ 1 and positive --before and --after"}
	}
	bin, err := overload.FindBinary(f.atoll)
	if err != nil {
		return err
	}
	logs := f.logs
	if logs == "" {
		if logs, err = os.MkdirTemp("", "atoll-failover-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(logs, 0o755); err != nil {
		return fmt.Errorf("--logs: %w", err)
	}
	const cluster = "atoll-failover"
	fmt.Fprintf(stderr, "starting 3 member processes (logs in %s)\n", logs)
	// Breaker on and a derived memory limit: the members' defaults.
	members, err := overload.StartMembers(ctx, overload.ProcessOptions{Binary: bin, ClusterName: cluster, Breaker: true, LogDir: logs}, 3)
	if err != nil {
		return err
	}
	victim := members[2]
	defer func() {
		_ = syscall.Kill(victim.PID(), syscall.SIGCONT) // a paused member stops too
		overload.StopMembers(members)
	}()
	var addrs []string
	for _, m := range members {
		addrs = append(addrs, m.Addr)
	}
	for _, m := range members {
		if err := waitReady(ctx, m.Admin, 2*time.Minute); err != nil {
			return err
		}
	}
	label := map[string]string{"kill": "kill -9", "stop": "SIGSTOP"}[f.disruption]
	fmt.Fprintf(stderr, "%d writers through the %s SDK; %s of member %s (pid %d) after %v, %v more\n",
		f.writers, f.sdk, label, victim.Addr, victim.PID(), f.before, f.after)
	if f.sdk == "java" {
		return runJavaFailover(ctx, f, addrs, cluster, victim.PID(), stdout, stderr)
	}
	c, err := client.New(ctx, client.Config{Addresses: addrs, ClusterName: cluster})
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := failover.Run(ctx, client.GetMap[string, string](c, "fo"), failover.Config{
		Writers: f.writers, Before: f.before, After: f.after,
		Disrupt: func() error { return failover.Signal(victim.PID(), sig) },
		Settle: func() error {
			if sig == syscall.SIGSTOP {
				return failover.Signal(victim.PID(), syscall.SIGCONT)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	res.System, res.Disruption = "atoll go", label
	fmt.Fprintln(stdout, res.Line())
	if res.FirstError != "" {
		fmt.Fprintf(stdout, "first failed write: %s\n", res.FirstError)
	}
	if f.jsonOut != "" {
		return writeFile(f.jsonOut, res.WriteJSON)
	}
	return nil
}

// runJavaFailover runs the Java SDK's failover runner against the members;
// it signals the victim itself, on its own timeline.
func runJavaFailover(ctx context.Context, f failoverFlags, addrs []string, cluster string, pid int, stdout, stderr io.Writer) error {
	args := []string{"-Xms512m", "-Xmx512m", "-cp", f.javaClasspath, "io.atoll.client.bench.Failover",
		"--addresses", strings.Join(addrs, ","), "--cluster", cluster, "--pid", fmt.Sprint(pid),
		"--signal", map[string]string{"kill": "KILL", "stop": "STOP"}[f.disruption], "--writers", fmt.Sprint(f.writers),
		"--before", fmt.Sprint(f.before.Milliseconds()), "--after", fmt.Sprint(f.after.Milliseconds())}
	if f.jsonOut != "" {
		abs, err := filepath.Abs(f.jsonOut)
		if err != nil {
			return err
		}
		args = append(args, "--json", abs)
	}
	cmd := exec.CommandContext(ctx, f.java, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the Java failover runner: %w", err)
	}
	return nil
}
