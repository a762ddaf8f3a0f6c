package overload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Member is a member the workload watches: its client and admin
// addresses and, for a member this process started, the process.
type Member struct {
	Addr, Admin string
	// Name labels the member in the report (its address by default).
	Name string
	cmd  *exec.Cmd
	// exited is closed when the process has ended (nil for a member of
	// an existing cluster).
	exited chan struct{}
	// killed says why the watcher killed the process, if it did.
	killed atomic.Pointer[string]
}

// PID is the process id of a member this process started, else 0.
func (m *Member) PID() int {
	if m.cmd == nil || m.cmd.Process == nil {
		return 0
	}
	return m.cmd.Process.Pid
}

// Exited reports whether a member this process started has ended, and how.
func (m *Member) Exited() (bool, string) {
	if m.exited == nil {
		return false, ""
	}
	select {
	case <-m.exited:
	default:
		return false, ""
	}
	if why := m.killed.Load(); why != nil {
		return true, *why
	}
	return true, m.cmd.ProcessState.String()
}

// kill ends the process at once (SIGKILL), recording why.
func (m *Member) kill(why string) {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	m.killed.CompareAndSwap(nil, &why)
	_ = m.cmd.Process.Kill()
}

// Stop ends a member this process started, gracefully (SIGTERM, then
// SIGKILL after timeout), and waits for it.
func (m *Member) Stop(timeout time.Duration) {
	if m.exited == nil {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.exited:
	case <-time.After(timeout):
		_ = m.cmd.Process.Kill()
		<-m.exited
	}
}

// ProcessOptions say how to start member processes.
type ProcessOptions struct {
	// Binary is the atoll command.
	Binary string
	// ClusterName names the cluster.
	ClusterName string
	// MemoryLimit is each member's --memory-limit, in bytes.
	MemoryLimit int64
	// Breaker turns the query memory circuit breaker on or off.
	Breaker bool
	// CursorsPerClient is each member's query.max-cursors-per-client: the
	// workload's clients are goroutines of one client, so the members
	// must let that client hold one cursor for each of them.
	CursorsPerClient int
	// LogDir receives each member's log (member-N.log) and configuration.
	LogDir string
}

var startedLine = regexp.MustCompile(`msg="member started".* address=(\S+) admin=(\S*)`)

// StartMembers starts n `atoll member start` processes on free loopback
// ports, each joining the first, with o's memory limit and breaker
// setting. The caller stops them (StopMembers).
func StartMembers(ctx context.Context, o ProcessOptions, n int) ([]*Member, error) {
	conf := filepath.Join(o.LogDir, fmt.Sprintf("member-breaker-%t.yaml", o.Breaker))
	yaml := fmt.Sprintf("query:\n  max-cursors-per-client: %d\n  breaker:\n    enabled: %t\n", max(o.CursorsPerClient, 64), o.Breaker)
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		return nil, err
	}
	var ms []*Member
	for i := 0; i < n; i++ {
		args := []string{"member", "start", "--config", conf, "--bind", "127.0.0.1:0", "--admin", "127.0.0.1:0",
			"--cluster-name", o.ClusterName, "--memory-limit", strconv.FormatInt(o.MemoryLimit, 10)}
		if i > 0 {
			args = append(args, "--join", ms[0].Addr)
		}
		m, err := startMember(ctx, o.Binary, args, filepath.Join(o.LogDir, fmt.Sprintf("member-%d-breaker-%t.log", i+1, o.Breaker)))
		if err != nil {
			StopMembers(ms)
			return nil, fmt.Errorf("starting member %d of %d: %w", i+1, n, err)
		}
		m.Name = fmt.Sprintf("member %d", i+1)
		ms = append(ms, m)
	}
	return ms, nil
}

// StopMembers stops the members this process started.
func StopMembers(ms []*Member) {
	for _, m := range ms {
		m.Stop(30 * time.Second)
	}
}

func startMember(ctx context.Context, bin string, args []string, logPath string) (*Member, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd.Stdout = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	m := &Member{cmd: cmd, exited: make(chan struct{})}
	found := make(chan [2]string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = io.WriteString(logFile, line+"\n")
			if s := startedLine.FindStringSubmatch(line); s != nil {
				select {
				case found <- [2]string{s[1], s[2]}:
				default:
				}
			}
		}
		_, _ = io.Copy(logFile, stderr)
	}()
	go func() {
		<-copied
		_ = cmd.Wait()
		logFile.Close()
		close(m.exited)
	}()
	select {
	case a := <-found:
		m.Addr, m.Admin = a[0], a[1]
		return m, nil
	case <-m.exited:
		return nil, fmt.Errorf("the member exited before it started (log: %s)", logPath)
	case <-ctx.Done():
		m.kill("interrupted")
		<-m.exited
		return nil, ctx.Err()
	case <-time.After(time.Minute):
		m.kill("did not start")
		<-m.exited
		return nil, fmt.Errorf("the member did not start within a minute (log: %s)", logPath)
	}
}

// FindBinary returns the atoll command: path when given, else the one
// beside this executable, else the one on PATH.
func FindBinary(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "atoll")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("atoll"); err == nil {
		return p, nil
	}
	return "", errors.New("no atoll command beside atoll-bench or on PATH: build it (go build -o bin/ ./cmd/atoll ./cmd/atoll-bench) or pass --atoll")
}

// processRSS reads a process's resident set from /proc, in bytes: all
// of it, and its anonymous part (the memory the process allocated:
// everything the Go runtime holds, which its memory limit bounds; the
// rest is the executable's and libraries' file pages, which the kernel
// can drop and read again).
func processRSS(pid int) (rss, anon int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "RssAnon") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			anon = kb << 10
		}
		found++
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("no VmRSS and RssAnon in /proc/%d/status", pid)
	}
	return rss, anon, nil
}
