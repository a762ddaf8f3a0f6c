// Package txtest holds the end-to-end tests of transactions and locks:
// member processes killed with SIGKILL and restarted under a load of
// transfers from several client processes (Go, and Java when the Java
// SDK's test runs it), clients killed mid-commit, and locks that move with
// their partitions.
package txtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// The bank-transfer test. Its size comes from the environment, so that the
// same test runs small in CI and long on demand:
//
//	ATOLL_BANK_DURATION  how long transfers run (default 12s)
//	ATOLL_BANK_ACCOUNTS  accounts (default 200)
//	ATOLL_BANK_WORKERS   Go client processes (default 3), 4 goroutines each
//	ATOLL_BANK_KILLS     member kill-and-restart cycles (default 1)
//	ATOLL_BANK_JAVA      the java command, and ATOLL_BANK_JAVA_CLASSPATH the
//	                     class path of the Java SDK's tests: 2 Java client
//	                     processes (io.atoll.client.BankWorker) run besides
//	                     the Go ones (the Java SDK's BankTransferTest sets them)
//
// The longer version:
//
//	ATOLL_BANK_DURATION=5m ATOLL_BANK_ACCOUNTS=2000 ATOLL_BANK_WORKERS=6 ATOLL_BANK_KILLS=10 \
//	  go test -count=1 -timeout 30m -run '^TestBankTransfer$' ./internal/txtest
//
// and with Java clients, from the repository root:
//
//	mvn -q -B verify -pl clients/java -am -Dtest=BankTransferTest -Dsurefire.failIfNoSpecifiedTests=false \
//	  -Datoll.bank.duration=5m -Datoll.bank.kills=10
const (
	accountsMap  = "bank-accounts"
	transfersMap = "bank-transfers"
	initial      = 1000
	// txLease is the transactions' lease: a client killed mid-commit
	// leaves nothing locked for longer (plus the members' sweep).
	txLease = 2 * time.Second
	// sweep is the members' lock sweep interval in this test.
	sweep = 250 * time.Millisecond
)

// Worker environment: a process started with workerEnv set runs transfers
// instead of the tests (TestMain).
const (
	workerEnv      = "ATOLL_BANK_WORKER"
	workerAddrsEnv = "ATOLL_BANK_ADDRS"
	workerClusterE = "ATOLL_BANK_CLUSTER"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(workerEnv); name != "" {
		os.Exit(runWorker(name))
	}
	os.Exit(m.Run())
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// runWorker is a Go client process: it makes transfers between random
// accounts with RunInTransaction, 4 at a time, until its standard input
// closes, and reports each on standard output:
//
//	commit ID FROM TO AMOUNT   the transfer's function returned; its commit starts
//	ok ID       committed
//	skip ID     committed, nothing moved (not enough money)
//	conflict ID conflicted on every attempt: not applied
//	unknown ID  the commit's outcome could not be learned
//	error ID    failed otherwise (a timeout while the cluster healed)
//
// Each transfer records its id in the transfers map in the same
// transaction, so that the test can tell which were applied.
func runWorker(name string) int {
	accounts := envInt("ATOLL_BANK_ACCOUNTS", 200)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := client.New(ctx, client.Config{
		Addresses: strings.Split(os.Getenv(workerAddrsEnv), ","), ClusterName: os.Getenv(workerClusterE),
		ClientName: name, TxLease: txLease, InvocationTimeout: 20 * time.Second,
		TxRetry: client.Backoff{Initial: 5 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 20},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	defer c.Close()
	go func() { // the test closes standard input to stop the worker
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	out := &lineWriter{w: bufio.NewWriter(os.Stdout)}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(g)))
			for seq := 0; ctx.Err() == nil; seq++ {
				id := fmt.Sprintf("%s-%d-%d", name, g, seq)
				from, to := rng.IntN(accounts), rng.IntN(accounts-1)
				if to >= from {
					to++
				}
				out.line("%s", transfer(ctx, c, id, from, to, int64(1+rng.IntN(100)), out))
			}
		}()
	}
	wg.Wait()
	return 0
}

// transfer moves amount from one account to another in a transaction and
// returns its report line.
func transfer(_ context.Context, c *client.Client, id string, from, to int, amount int64, out *lineWriter) string {
	// A transfer under way finishes even when the worker is told to stop.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	moved := false
	err := c.RunInTransaction(ctx, func(tx *client.Tx) error {
		accounts := client.TxMap[int32, int64](tx, accountsMap)
		a, _, err := accounts.Get(ctx, int32(from))
		if err != nil {
			return err
		}
		b, _, err := accounts.Get(ctx, int32(to))
		if err != nil {
			return err
		}
		moved = a >= amount
		if moved {
			if err := accounts.Set(ctx, int32(from), a-amount); err != nil {
				return err
			}
			if err := accounts.Set(ctx, int32(to), b+amount); err != nil {
				return err
			}
			rec := fmt.Sprintf("%d,%d,%d", from, to, amount)
			if err := client.TxMap[string, string](tx, transfersMap).Set(ctx, id, rec); err != nil {
				return err
			}
		}
		out.line("commit %s %d %d %d", id, from, to, amount)
		return nil
	})
	switch {
	case err == nil && moved:
		return "ok " + id
	case err == nil:
		return "skip " + id
	case errors.Is(err, client.ErrConflict):
		return "conflict " + id
	case errors.Is(err, client.ErrCommitUnknown):
		return "unknown " + id
	}
	return "error " + id + " " + strings.ReplaceAll(err.Error(), "\n", " ")
}

// lineWriter writes whole lines from several goroutines, flushed at once
// (a worker may be killed any time: what it reported must be out).
type lineWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (l *lineWriter) line(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format+"\n", args...)
	_ = l.w.Flush()
}

// worker is a client process of the test.
type worker struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}

	mu       sync.Mutex
	outcomes map[string]string // id → ok, skip, conflict, unknown, error
	inCommit map[string]string // ids between "commit" and their outcome → "FROM TO AMOUNT"
	lines    int
	errors   []string
	stderr   strings.Builder
}

func startWorker(t *testing.T, name string, argv []string, env []string) *worker {
	t.Helper()
	w := &worker{name: name, done: make(chan struct{}), outcomes: map[string]string{}, inCommit: map[string]string{}}
	w.cmd = exec.Command(argv[0], argv[1:]...)
	w.cmd.Env = append(os.Environ(), env...)
	w.cmd.Stderr = &lockedBuilder{b: &w.stderr, mu: &w.mu}
	stdout, err := w.cmd.StdoutPipe()
	require.NoError(t, err)
	w.stdin, err = w.cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, w.cmd.Start(), "starting worker %s", name)
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			w.record(sc.Text())
		}
		_ = w.cmd.Wait()
	}()
	return w
}

type lockedBuilder struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (w *worker) record(line string) {
	kind, rest, _ := strings.Cut(line, " ")
	id, msg, _ := strings.Cut(rest, " ")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines++
	switch kind {
	case "commit":
		w.inCommit[id] = msg
	case "ok", "skip", "conflict", "unknown", "error":
		delete(w.inCommit, id)
		w.outcomes[id] = kind
		if kind == "error" && len(w.errors) < 5 {
			w.errors = append(w.errors, id+": "+msg)
		}
	}
}

// committing reports whether the worker is inside a commit now.
func (w *worker) committing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.inCommit) > 0
}

// stop closes the worker's standard input and waits for it to finish.
func (w *worker) stop(t *testing.T) {
	_ = w.stdin.Close()
	select {
	case <-w.done:
	case <-time.After(90 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.done
		t.Errorf("worker %s did not stop within 90s", w.name)
	}
}

// stderrText is what the worker wrote to its standard error so far.
func (w *worker) stderrText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// committed counts the transfers the worker reported committed.
func (w *worker) committed() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, kind := range w.outcomes {
		if kind == "ok" {
			n++
		}
	}
	return n
}

// killMidCommit waits until the worker has committed a transfer (a
// client process, a JVM above all, can take a while to start on a loaded
// machine), then stops it (SIGSTOP) at a moment it is inside a commit and
// kills it with SIGKILL: a client that dies mid-commit.
func (w *worker) killMidCommit(t *testing.T) {
	deadline := time.Now().Add(2 * time.Minute)
	for w.committed() == 0 {
		if time.Now().After(deadline) {
			t.Errorf("worker %s committed no transfer in 2 minutes", w.name)
			break
		}
		select {
		case <-w.done:
			t.Errorf("worker %s exited before committing a transfer:\n%s", w.name, w.stderrText())
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	for try := 0; try < 200; try++ {
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		_ = w.cmd.Process.Signal(syscall.SIGSTOP)
		time.Sleep(20 * time.Millisecond) // lines already written reach the reader
		if w.committing() {
			_ = w.cmd.Process.Kill()
			<-w.done
			t.Logf("killed worker %s in the middle of a commit (try %d)", w.name, try+1)
			return
		}
		_ = w.cmd.Process.Signal(syscall.SIGCONT)
	}
	_ = w.cmd.Process.Kill()
	<-w.done
	t.Errorf("worker %s was never caught inside a commit", w.name)
}

func TestBankTransfer(t *testing.T) {
	duration := envDuration("ATOLL_BANK_DURATION", 12*time.Second)
	accounts := envInt("ATOLL_BANK_ACCOUNTS", 200)
	goWorkers := envInt("ATOLL_BANK_WORKERS", 3)
	kills := envInt("ATOLL_BANK_KILLS", 1)
	javaCmd, javaCP := os.Getenv("ATOLL_BANK_JAVA"), os.Getenv("ATOLL_BANK_JAVA_CLASSPATH")

	cluster := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{
		ConfigYAML: fmt.Sprintf("locks: {sweep-interval: %s}\n", sweep),
	})
	cluster.WaitStable(1, 60*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
	defer cancel()
	c, err := client.New(ctx, client.Config{Addresses: cluster.Addrs(), ClusterName: "test"})
	require.NoError(t, err)
	defer c.Close()
	balances := client.GetMap[int32, int64](c, accountsMap)
	entries := make([]client.Entry[int32, int64], accounts)
	for i := range entries {
		entries[i] = client.Entry[int32, int64]{Key: int32(i), Value: initial}
	}
	require.NoError(t, balances.PutAll(ctx, entries))

	env := func(name string) []string {
		return []string{workerEnv + "=" + name, workerAddrsEnv + "=" + strings.Join(cluster.Addrs(), ","), workerClusterE + "=test",
			fmt.Sprintf("ATOLL_BANK_ACCOUNTS=%d", accounts)}
	}
	var workers []*worker
	for i := 0; i < goWorkers; i++ {
		name := fmt.Sprintf("go%d", i)
		workers = append(workers, startWorker(t, name, []string{os.Args[0], "-test.run=^$"}, env(name)))
	}
	if javaCmd != "" {
		for i := 0; i < 2; i++ {
			name := fmt.Sprintf("java%d", i)
			workers = append(workers, startWorker(t, name, []string{javaCmd, "-cp", javaCP, "io.atoll.client.BankWorker"}, env(name)))
		}
	}
	t.Logf("%d accounts, %d Go and %d Java client processes, %v, %d member kill(s)", accounts, goWorkers, len(workers)-goWorkers, duration, kills)

	// The schedule: member kills and restarts spread over the run, and the
	// last worker (a Java one when they run) killed mid-commit halfway
	// through.
	start := time.Now()
	victim := workers[len(workers)-1]
	victimKilled := false
	for k := 0; k < kills; k++ {
		at := start.Add(duration * time.Duration(k+1) / time.Duration(kills+1))
		if !victimKilled && at.After(start.Add(duration/2)) {
			sleepUntil(start.Add(duration / 2))
			victim.killMidCommit(t)
			victimKilled = true
		}
		sleepUntil(at)
		live := cluster.Live()
		dead := live[rand.IntN(len(live))]
		t.Logf("%v: SIGKILL member %s", time.Since(start).Round(time.Millisecond), dead.Addr)
		dead.Kill()
		time.Sleep(time.Second)
		added := cluster.Add()
		t.Logf("%v: restarted: member %s joined", time.Since(start).Round(time.Millisecond), added.Addr)
		cluster.WaitStable(1, 2*time.Minute)
	}
	if !victimKilled {
		sleepUntil(start.Add(duration / 2))
		victim.killMidCommit(t)
	}
	sleepUntil(start.Add(duration))
	for _, w := range workers[:len(workers)-1] {
		w.stop(t)
	}
	stopped := time.Now()

	// No lock outlives its lease: once the lease (and a sweep) has passed,
	// no member holds a lock record, without anyone touching the keys.
	waitLocks(t, cluster, stopped.Add(txLease+2*sweep+5*time.Second))

	verify(t, ctx, c, accounts, workers, victim)
}

func sleepUntil(at time.Time) {
	if d := time.Until(at); d > 0 {
		time.Sleep(d)
	}
}

// waitLocks waits until no member's atoll_locks gauge counts a lock, and
// fails if that takes past deadline.
func waitLocks(t *testing.T, cluster *testcluster.Cluster, deadline time.Time) {
	t.Helper()
	for {
		held, why := locksHeld(cluster)
		if held == 0 && why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v lock(s) outlived their lease (%s)", held, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func locksHeld(cluster *testcluster.Cluster) (float64, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	total := 0.0
	for _, n := range cluster.Live() {
		fams, err := n.Metrics(ctx)
		if err != nil {
			return 0, err.Error()
		}
		f := fams["atoll_locks"]
		if f == nil || len(f.Metric) != 1 {
			return 0, "no atoll_locks on " + n.Addr
		}
		total += f.Metric[0].GetGauge().GetValue()
	}
	return total, ""
}

// verify checks the end state: the total is unchanged; every transfer
// reported committed is recorded, and none reported failed is; and the
// balances are exactly the initial ones moved by every recorded transfer
// once.
func verify(t *testing.T, ctx context.Context, c *client.Client, accounts int, workers []*worker, victim *worker) {
	balances := map[int32]int64{}
	for e, err := range client.GetMap[int32, int64](c, accountsMap).All(ctx) {
		require.NoError(t, err)
		balances[e.Key] = e.Value
	}
	recorded := map[string]string{}
	for e, err := range client.GetMap[string, string](c, transfersMap).All(ctx) {
		require.NoError(t, err)
		recorded[e.Key] = e.Value
	}
	require.Len(t, balances, accounts)
	var total int64
	expected := map[int32]int64{}
	for i := 0; i < accounts; i++ {
		expected[int32(i)] = initial
		total += balances[int32(i)]
		assert.GreaterOrEqual(t, balances[int32(i)], int64(0), "account %d", i)
	}
	assert.Equal(t, int64(accounts*initial), total, "the total balance")
	for id, rec := range recorded {
		var from, to int32
		var amount int64
		_, err := fmt.Sscanf(rec, "%d,%d,%d", &from, &to, &amount)
		require.NoError(t, err, "transfer %s: %q", id, rec)
		expected[from] -= amount
		expected[to] += amount
	}
	var wrong []string
	for i := int32(0); i < int32(accounts); i++ {
		if expected[i] != balances[i] {
			wrong = append(wrong, fmt.Sprintf("account %d: %d, the recorded transfers make %d", i, balances[i], expected[i]))
		}
	}
	if !assert.Empty(t, wrong, "every recorded transfer applied exactly once") {
		for _, w := range workers {
			w.mu.Lock()
			for id, move := range w.inCommit {
				_, rec := recorded[id]
				t.Logf("worker %s was committing %s (%s), recorded %v", w.name, id, move, rec)
			}
			w.mu.Unlock()
		}
	}
	counts := map[string]int{}
	for _, w := range workers {
		w.mu.Lock()
		for id, kind := range w.outcomes {
			counts[kind]++
			_, applied := recorded[id]
			switch kind {
			case "ok":
				assert.True(t, applied, "transfer %s returned success but is not applied", id)
			case "conflict", "skip":
				assert.False(t, applied, "transfer %s returned %s but is applied", id, kind)
			}
		}
		if len(w.errors) > 0 {
			t.Logf("worker %s errors (first %d): %s", w.name, len(w.errors), strings.Join(w.errors, "; "))
		}
		if w != victim && w.cmd.ProcessState != nil && !w.cmd.ProcessState.Success() {
			t.Errorf("worker %s exited with %v:\n%s", w.name, w.cmd.ProcessState, w.stderr.String())
		}
		w.mu.Unlock()
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var summary []string
	for _, k := range kinds {
		summary = append(summary, fmt.Sprintf("%s %d", k, counts[k]))
	}
	t.Logf("transfers: %s; %d recorded", strings.Join(summary, ", "), len(recorded))
	assert.Greater(t, counts["ok"], 0, "no transfer committed")
	for _, w := range workers {
		assert.Greater(t, w.committed(), 0, "worker %s committed no transfer", w.name)
	}
}
