// Package testcluster starts Atoll members for tests: in the test process
// (fast, with an injectable clock) or as real `atoll member start`
// processes built from this repository. A test written against Cluster runs
// unchanged in both modes.
package testcluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testlog"
)

// Mode says how members run.
type Mode string

// Modes.
const (
	InProcess Mode = "in-process"
	Process   Mode = "process"
)

// Modes lists both modes, for tests that run in each.
var Modes = []Mode{InProcess, Process}

// Cluster is a set of running members.
type Cluster struct {
	t       testing.TB
	mode    Mode
	opts    Options
	members []*Node
}

// Node is one member of a test cluster.
type Node struct {
	Addr      string
	AdminAddr string
	access    *Access
	inproc    *member.Member
	cmd       *exec.Cmd
	exited    chan struct{}
	logs      *testlog.Buffer
	stopped   bool
}

func (n *Node) alive() bool {
	if n.stopped {
		return false
	}
	if n.exited != nil {
		select {
		case <-n.exited:
			return false
		default:
		}
	}
	return true
}

// fastGossip makes test members notice a dead member within about a second.
func fastGossip(cfg *member.Config) {
	cfg.Gossip = member.GossipConfig{
		ProbeInterval: member.Duration(200 * time.Millisecond), ProbeTimeout: member.Duration(100 * time.Millisecond),
		GossipInterval: member.Duration(50 * time.Millisecond), SuspicionMult: 2, RejoinInterval: member.Duration(time.Second),
	}
}

const fastGossipYAML = "gossip: {probe-interval: 200ms, probe-timeout: 100ms, gossip-interval: 50ms, suspicion-mult: 2, rejoin-interval: 1s}\n"

// Options configure the members of a test cluster.
type Options struct {
	ClusterName string
	// SlowFailureDetection keeps memberlist's default timings; by default
	// test members detect a dead member within about a second.
	SlowFailureDetection bool
	// Configure edits each member's configuration (in-process mode); for
	// process mode the same configuration is written to a YAML file.
	Configure func(*member.Config)
	// ConfigYAML is extra YAML configuration for process members.
	ConfigYAML string
	// Namespace, when set, runs process member i (in start order) in the
	// network namespace ns, created by the test, bound to host: the command
	// runs under `ip netns exec ns`.
	Namespace func(i int) (ns, host string)
	// Access is how the cluster's helpers (WaitStable, Heap, Metrics)
	// reach members that serve TLS or require credentials.
	Access *Access
	// Args are more flags for `atoll member start` (process mode).
	Args []string
}

// Start starts n members in the given mode and stops them when the test ends.
func Start(t testing.TB, mode Mode, n int, opts Options) *Cluster {
	t.Helper()
	if opts.ClusterName == "" {
		opts.ClusterName = "test"
	}
	c := &Cluster{t: t, mode: mode, opts: opts}
	t.Cleanup(c.Stop)
	for i := 0; i < n; i++ {
		c.Add()
	}
	return c
}

// Add starts one more member that joins the cluster through the members
// already running, and returns it.
func (c *Cluster) Add() *Node {
	c.t.Helper()
	node := c.start(len(c.members), "127.0.0.1:0")
	c.members = append(c.members, node)
	return node
}

// Restart starts member i again on its address, once it was stopped or
// killed: a new member (new identity, no data) that joins the members
// running. It retries while the port is still held by the old process.
func (c *Cluster) Restart(i int) *Node {
	c.t.Helper()
	old := c.members[i]
	if old.alive() {
		c.t.Fatalf("member %d (%s) is still running", i, old.Addr)
	}
	node := c.start(i, old.Addr)
	c.members[i] = node
	return node
}

func (c *Cluster) start(index int, bind string) *Node {
	c.t.Helper()
	var seeds []string
	for _, m := range c.members {
		if m.alive() && m.Addr != bind {
			seeds = append(seeds, m.Addr)
		}
	}
	var node *Node
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for {
		switch c.mode {
		case InProcess:
			node, err = startInProcess(c.opts, seeds, bind)
		case Process:
			node, err = startProcess(c.t, c.opts, seeds, index, bind)
		default:
			c.t.Fatalf("unknown mode %q", c.mode)
		}
		if err == nil || !strings.Contains(err.Error(), "address already in use") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		c.t.Fatalf("starting member %d (%s) on %s: %v", index, c.mode, bind, err)
	}
	return node
}

// Live returns the members that have not been stopped or killed.
func (c *Cluster) Live() []*Node {
	var out []*Node
	for _, m := range c.members {
		if m.alive() {
			out = append(out, m)
		}
	}
	return out
}

// Mode returns how the members run.
func (c *Cluster) Mode() Mode { return c.mode }

// Addrs returns the client addresses of the live members.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, m := range c.Live() {
		out = append(out, m.Addr)
	}
	return out
}

// Members returns every node started, including stopped ones, in start order.
func (c *Cluster) Members() []*Node { return c.members }

// Stop shuts every member down, gracefully but without waiting for
// partitions to move (the whole cluster is going away).
func (c *Cluster) Stop() {
	if c.t.Failed() {
		for i, m := range c.members {
			c.t.Logf("--- member %d (%s) logs:\n%s", i, m.Addr, tail(m.Logs(), 20000))
		}
	}
	var wg sync.WaitGroup
	for _, m := range c.Live() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.stop(60*time.Second, false); err != nil {
				c.t.Errorf("stopping member %s: %v\n%s", m.Addr, err, m.Logs())
			}
		}()
	}
	wg.Wait()
	c.members = nil
}

func startInProcess(opts Options, seeds []string, bind string) (*Node, error) {
	cfg := member.DefaultConfig()
	cfg.ClusterName = opts.ClusterName
	cfg.Bind, cfg.Admin = bind, "127.0.0.1:0"
	cfg.Join = seeds
	if !opts.SlowFailureDetection {
		fastGossip(&cfg)
	}
	logs := &testlog.Buffer{}
	cfg.Logger = testlog.Logger(logs)
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	m, err := member.Start(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &Node{Addr: m.Addr(), AdminAddr: m.AdminAddr(), inproc: m, logs: logs, access: opts.Access}, nil
}

// Member returns the in-process member (nil in process mode).
func (n *Node) Member() *member.Member { return n.inproc }

// Logs returns what the member logged.
func (n *Node) Logs() string { return n.logs.String() }

// Stop shuts the member down gracefully (SIGTERM for a process) and waits:
// it hands its partitions over first.
func (n *Node) Stop(timeout time.Duration) error { return n.stop(timeout, true) }

func (n *Node) stop(timeout time.Duration, handOver bool) error {
	n.stopped = true
	if n.inproc != nil {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if !handOver {
			return n.inproc.Close()
		}
		return n.inproc.Shutdown(ctx)
	}
	if n.cmd == nil || n.cmd.Process == nil {
		return nil
	}
	select {
	case <-n.exited:
		return nil
	default:
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.exited:
		if code := n.cmd.ProcessState.ExitCode(); code != 0 {
			return fmt.Errorf("member exited with status %d", code)
		}
		return nil
	case <-time.After(timeout):
		_ = n.cmd.Process.Kill()
		<-n.exited
		return fmt.Errorf("member did not stop within %v", timeout)
	}
}

// Kill ends a process member with SIGKILL (no graceful shutdown); an
// in-process member is closed at once without handing anything over.
func (n *Node) Kill() {
	n.stopped = true
	if n.inproc != nil {
		_ = n.inproc.Close()
		return
	}
	if n.cmd != nil && n.cmd.Process != nil {
		_ = n.cmd.Process.Kill()
		<-n.exited
	}
}

// CLI runs the atoll command against the cluster's live members (their
// addresses and cluster name are appended as flags) and returns its
// stdout, stderr and exit status.
func (c *Cluster) CLI(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	return c.CLIAt(c.Addrs(), args...)
}

// CLIAt runs the atoll command like CLI, against the members at addrs.
func (c *Cluster) CLIAt(addrs []string, args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	return c.Run(append(args, "--addr", strings.Join(addrs, ","), "--cluster-name", c.opts.ClusterName)...)
}

// Run runs the atoll command with exactly args (commands that talk to a
// member's admin address take no --addr) and returns its stdout, stderr
// and exit status.
func (c *Cluster) Run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	cmd := exec.Command(Binary(c.t), args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		c.t.Fatalf("atoll %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// MustCLI runs the atoll command like CLI and fails the test unless it
// exits with status 0; it returns stdout.
func (c *Cluster) MustCLI(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.CLI(args...)
	if code != 0 {
		c.t.Fatalf("atoll %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// BinaryEnv names an environment variable that, when set, is the path of an
// atoll binary to use instead of building one (a test that re-runs itself
// in another process passes its binary on).
const BinaryEnv = "ATOLL_TEST_BINARY"

// Pause stops a process member with SIGSTOP: it neither answers nor
// notices anything until Resume, like a member in a long GC pause or on a
// host that stalls. It returns once the process is stopped (where /proc
// tells). Only process members can be paused.
func (n *Node) Pause() {
	if n.cmd == nil || n.cmd.Process == nil {
		panic("testcluster: only process members can be paused")
	}
	_ = n.cmd.Process.Signal(syscall.SIGSTOP)
	stat := fmt.Sprintf("/proc/%d/stat", n.cmd.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			return // no /proc: the signal has to do
		}
		// The state follows the parenthesized command name.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
	}
}

// Resume continues a paused member (SIGCONT).
func (n *Node) Resume() {
	_ = n.cmd.Process.Signal(syscall.SIGCONT)
}

// Heap reads a member's heap and goroutine count from its admin address.
func (n *Node) Heap(ctx context.Context) (member.Heap, error) {
	var h member.Heap
	body, err := n.Admin().Get(ctx, "/debug/memory")
	if err != nil {
		return h, err
	}
	return h, json.Unmarshal(body, &h)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds cmd/atoll once per test binary (unless BinaryEnv names
// one) and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if binPath = os.Getenv(BinaryEnv); binPath != "" {
			return
		}
		dir, err := os.MkdirTemp("", "atoll-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "atoll")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/atoll")
		cmd.Dir = moduleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/atoll: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var startedRE = regexp.MustCompile(`msg="member started".* address=(\S+) admin=(\S*)`)

func startProcess(t testing.TB, opts Options, seeds []string, index int, bind string) (*Node, error) {
	bin := Binary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "member.yaml")
	yaml := fmt.Sprintf("cluster-name: %q\n%s", opts.ClusterName, opts.ConfigYAML)
	if !opts.SlowFailureDetection {
		yaml += fastGossipYAML
	}
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		return nil, err
	}
	host, args := "127.0.0.1", []string{bin}
	if opts.Namespace != nil {
		var ns string
		ns, host = opts.Namespace(index)
		args = []string{"ip", "netns", "exec", ns, bin}
		bind = host + ":0"
	}
	args = append(args, "member", "start", "--config", conf, "--bind", bind, "--admin", host+":0")
	args = append(args, opts.Args...)
	if len(seeds) > 0 {
		args = append(args, "--join", strings.Join(seeds, ","))
	}
	cmd := exec.Command(args[0], args[1:]...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	n := &Node{cmd: cmd, exited: make(chan struct{}), logs: &testlog.Buffer{}}
	found := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			n.logs.WriteString(line + "\n")
			if m := startedRE.FindStringSubmatch(line); m != nil {
				select {
				case found <- [2]string{m[1], m[2]}:
				default:
				}
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(n.exited)
	}()
	select {
	case addrs := <-found:
		n.Addr, n.AdminAddr, n.access = addrs[0], addrs[1], opts.Access
		return n, nil
	case <-n.exited:
		return nil, fmt.Errorf("member exited before it started:\n%s", n.Logs())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("member did not start within 60s:\n%s", n.Logs())
	}
}

// Metrics scrapes a member's /metrics and returns the metric families by
// name.
func (n *Node) Metrics(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	body, err := n.Admin().Get(ctx, "/metrics")
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %w", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(body))
}
