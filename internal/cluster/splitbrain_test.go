package cluster_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// The split-brain test runs members in network namespaces joined by a
// bridge, so that the network between them can be cut and healed with
// blackhole routes while every member stays reachable from the client
// namespace. The test process itself cannot reach into the namespaces, so
// it creates them and runs itself again inside the client namespace,
// where it starts the members and plays the scenario.

const (
	netnsEnv   = "ATOLL_NETNS_PREFIX" // set in the re-run: the namespaces' prefix
	netnsCount = 3
)

// netns names the namespaces of one test run.
type netns struct{ prefix string }

func (n netns) hub() string         { return n.prefix + "hub" }
func (n netns) client() string      { return n.prefix + "cl" }
func (n netns) member(i int) string { return fmt.Sprintf("%sm%d", n.prefix, i) }
func memberIP(i int) string         { return fmt.Sprintf("10.77.0.%d", i+1) }

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// create builds the namespaces: a hub with a bridge, and one namespace per
// member and for the client, each with a veth into the bridge.
func (n netns) create() error {
	names := []string{n.hub(), n.client()}
	for i := 0; i < netnsCount; i++ {
		names = append(names, n.member(i))
	}
	for _, ns := range names {
		if err := ip("netns", "add", ns); err != nil {
			return err
		}
		if err := ip("-n", ns, "link", "set", "lo", "up"); err != nil {
			return err
		}
	}
	if err := ip("-n", n.hub(), "link", "add", "br0", "type", "bridge"); err != nil {
		return err
	}
	if err := ip("-n", n.hub(), "link", "set", "br0", "up"); err != nil {
		return err
	}
	attach := func(ns, addr string, port int) error {
		peer := fmt.Sprintf("p%d", port)
		for _, args := range [][]string{
			{"link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", peer, "netns", n.hub()},
			{"-n", ns, "addr", "add", addr + "/24", "dev", "eth0"},
			{"-n", ns, "link", "set", "eth0", "up"},
			{"-n", n.hub(), "link", "set", peer, "master", "br0"},
			{"-n", n.hub(), "link", "set", peer, "up"},
		} {
			if err := ip(args...); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < netnsCount; i++ {
		if err := attach(n.member(i), memberIP(i), i); err != nil {
			return err
		}
	}
	return attach(n.client(), "10.77.0.100", netnsCount)
}

func (n netns) remove() {
	for _, ns := range []string{n.hub(), n.client(), n.member(0), n.member(1), n.member(2)} {
		_ = ip("netns", "del", ns)
	}
}

// cut makes member k and the other members unreachable to each other (the
// client still reaches all of them); heal undoes it.
func (n netns) cut(k int) error  { return n.routes("add", k) }
func (n netns) heal(k int) error { return n.routes("del", k) }

func (n netns) routes(op string, k int) error {
	for j := 0; j < netnsCount; j++ {
		if j == k {
			continue
		}
		if err := ip("-n", n.member(k), "route", op, "blackhole", memberIP(j)+"/32"); err != nil {
			return err
		}
		if err := ip("-n", n.member(j), "route", op, "blackhole", memberIP(k)+"/32"); err != nil {
			return err
		}
	}
	return nil
}

func TestSplitBrainMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts member processes in network namespaces")
	}
	if prefix := os.Getenv(netnsEnv); prefix != "" {
		splitBrainScenarios(t, netns{prefix})
		return
	}
	if _, err := exec.LookPath("ip"); err != nil {
		testcluster.Missing(t, "iproute2 (the ip command) is not installed, so no network namespaces")
	}
	n := netns{prefix: fmt.Sprintf("atl%d", os.Getpid()%100000)}
	if err := ip("netns", "add", n.hub()); err != nil {
		testcluster.Missing(t, fmt.Sprintf("network namespaces: creating one is not permitted here (run as root with CAP_SYS_ADMIN): %v", err))
	}
	_ = ip("netns", "del", n.hub())
	t.Cleanup(n.remove)
	if err := n.create(); err != nil {
		t.Fatal(err)
	}
	bin := testcluster.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", n.client(), os.Args[0],
		"-test.run", "^TestSplitBrainMerge$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), netnsEnv+"="+n.prefix, testcluster.BinaryEnv+"="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the scenario in the client namespace failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// splitBrainScenarios runs inside the client namespace.
func splitBrainScenarios(t *testing.T, n netns) {
	start := func(t *testing.T, yaml string) (*testcluster.Cluster, []string) {
		c := testcluster.Start(t, testcluster.Process, netnsCount, testcluster.Options{
			ConfigYAML: yaml,
			Namespace:  func(i int) (string, string) { return n.member(i), memberIP(i) },
		})
		c.WaitStable(1, 2*time.Minute)
		c.MustCLI("map", "fill", "data", "--count", "2000", "--key-type", "int")
		return c, c.Addrs()
	}
	// split cuts member 2 off and waits until each side has noticed.
	split := func(t *testing.T, addrs []string) {
		if err := n.cut(2); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.heal(2) })
		waitMembers(t, addrs[0], 2)
		waitMembers(t, addrs[2], 1)
	}
	heal := func(t *testing.T, c *testcluster.Cluster) {
		if err := n.heal(2); err != nil {
			t.Fatal(err)
		}
		c.WaitStable(1, 2*time.Minute)
		out := c.MustCLI("map", "verify", "data", "--count", "2000", "--key-type", "int")
		if !strings.Contains(out, "2000 ok, 0 missing, 0 wrong") {
			t.Fatalf("after the merge: %s", out)
		}
	}
	put := func(t *testing.T, c *testcluster.Cluster, addr, key, value string) {
		if out, errOut, code := c.CLIAt([]string{addr}, "map", "put", "split", key, value); code != 0 {
			t.Fatalf("put %s=%s at %s: exit %d %s%s", key, value, addr, code, out, errOut)
		}
	}
	get := func(c *testcluster.Cluster, addr, key string) string {
		out, _, _ := c.CLIAt([]string{addr}, "map", "get", "split", key)
		return strings.TrimSpace(out)
	}

	t.Run("BothSidesWriteThenMerge", func(t *testing.T) {
		c, addrs := start(t, "")
		split(t, addrs)
		// Each side takes writes: a key of its own, and one key both write.
		put(t, c, addrs[0], "larger-only", "larger")
		put(t, c, addrs[0], "both", "larger")
		put(t, c, addrs[2], "smaller-only", "smaller")
		put(t, c, addrs[2], "both", "smaller")
		if got := get(c, addrs[2], "both"); got != "smaller" {
			t.Fatalf("the cut-off member reads %q for a key it wrote", got)
		}
		heal(t, c)
		merged := ""
		for _, line := range strings.Split(c.Members()[2].Logs(), "\n") {
			if strings.Contains(line, "merged into the other cluster") {
				merged = line
			}
		}
		if merged == "" {
			t.Fatalf("the cut-off member did not merge:\n%s", c.Members()[2].Logs())
		}
		t.Log(merged)
		// Put-if-absent: the larger side keeps its value; keys only the
		// smaller side wrote arrive.
		for key, want := range map[string]string{"larger-only": "larger", "smaller-only": "smaller", "both": "larger"} {
			for _, addr := range addrs {
				if got := get(c, addr, key); got != want {
					t.Fatalf("after the merge, %s reads %q for %q, want %q", addr, got, key, want)
				}
			}
		}
		if out := c.MustCLI("map", "size", "split"); strings.TrimSpace(out) != "3" {
			t.Fatalf("after the merge the map holds %s entries, want 3", out)
		}
	})

	t.Run("MinClusterSizeRefusesMinorityWrites", func(t *testing.T) {
		c, addrs := start(t, "min-cluster-size: 2\n")
		split(t, addrs)
		put(t, c, addrs[0], "larger-only", "larger")
		out, errOut, code := c.CLIAt(addrs[2:], "map", "put", "split", "smaller-only", "smaller", "--timeout", "3s")
		if code == 0 || !strings.Contains(errOut, "unavailable") {
			t.Fatalf("a write on the side below the minimum cluster size: exit %d, %s%s", code, out, errOut)
		}
		heal(t, c)
		if got := get(c, addrs[2], "larger-only"); got != "larger" {
			t.Fatalf("after the merge, the cut-off member reads %q", got)
		}
		if got := get(c, addrs[0], "smaller-only"); got != "" {
			t.Fatalf("a refused write appeared: %q", got)
		}
	})
}

// waitMembers waits until the member at addr counts want live members.
func waitMembers(t *testing.T, addr string, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := testcluster.State(ctx, addr)
		cancel()
		if err == nil && len(st.Members) == want && len(st.PartitionTable.Members) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("member %s does not see %d members (state %v, err %v)", addr, want, st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cutNetwork carries in-process members' connections to each other
// (member.Config.Dialer) and can cut one member off: its dials to the
// others and theirs to it fail, and the connections open between them
// close, as a blackhole route would.
type cutNetwork struct {
	mu     sync.Mutex
	selves []string // member i's address, once started
	off    string   // the member cut off, if any
	links  []link
}

type link struct {
	from int
	to   string
	conn net.Conn
}

// crosses reports whether a connection between from and to crosses the
// cut; mu is held.
func (n *cutNetwork) crosses(from int, to string) bool {
	return n.off != "" && (n.selves[from] == n.off) != (to == n.off)
}

// dialer is member i's dialer.
func (n *cutNetwork) dialer(i int) func(context.Context, string) (net.Conn, error) {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.crosses(i, addr) {
			return nil, fmt.Errorf("dial %s: the network is cut", addr)
		}
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			n.links = append(n.links, link{i, addr, conn})
		}
		return conn, err
	}
}

func (n *cutNetwork) cut(addr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.off = addr
	for _, l := range n.links {
		if n.crosses(l.from, l.to) {
			_ = l.conn.Close()
		}
	}
}

func (n *cutNetwork) heal() {
	n.mu.Lock()
	n.off = ""
	n.mu.Unlock()
}

// TestSplitBrainMergeInProcess plays the split-brain merge with
// in-process members whose connections to each other run through a
// network the test cuts: it needs no privileges, so it runs everywhere.
// Member 2 is cut off, both sides take writes, and when the network
// heals member 2 merges into the larger side: keys only it wrote arrive,
// and for a key both sides wrote the larger side's value wins.
func TestSplitBrainMergeInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for members to notice a split and a merge")
	}
	nw := &cutNetwork{}
	c := testcluster.Start(t, testcluster.InProcess, 3, testcluster.Options{ClusterName: "test", Configure: func(cfg *member.Config) {
		nw.mu.Lock()
		cfg.Dialer = nw.dialer(len(nw.selves))
		nw.selves = append(nw.selves, "")
		nw.mu.Unlock()
	}})
	addrs := c.Addrs()
	nw.mu.Lock()
	copy(nw.selves, addrs)
	nw.mu.Unlock()
	c.WaitStable(1, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	mapAt := func(addr string) *client.Map[string, string] {
		cl, err := client.New(ctx, client.Config{Addresses: []string{addr}, ClusterName: "test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cl.Close() })
		return client.GetMap[string, string](cl, "split")
	}
	before := mapAt(addrs[0])
	for i := range 200 {
		if err := before.Set(ctx, fmt.Sprint("before-", i), "v"); err != nil {
			t.Fatal(err)
		}
	}

	nw.cut(addrs[2])
	t.Cleanup(nw.heal)
	waitMembers(t, addrs[0], 2)
	waitMembers(t, addrs[2], 1)
	larger, smaller := mapAt(addrs[0]), mapAt(addrs[2])
	// Each side takes writes: a key of its own, and one key both write.
	for _, w := range []struct {
		m          *client.Map[string, string]
		key, value string
	}{{larger, "larger-only", "larger"}, {larger, "both", "larger"}, {smaller, "smaller-only", "smaller"}, {smaller, "both", "smaller"}} {
		if err := w.m.Set(ctx, w.key, w.value); err != nil {
			t.Fatalf("set %s=%s during the split: %v", w.key, w.value, err)
		}
	}
	if v, _, err := smaller.Get(ctx, "both"); err != nil || v != "smaller" {
		t.Fatalf("the cut-off member reads %q (%v) for a key it wrote", v, err)
	}

	nw.heal()
	c.WaitStable(1, 2*time.Minute)
	if logs := c.Members()[2].Logs(); !strings.Contains(logs, "merged into the other cluster") {
		t.Fatalf("the cut-off member did not merge:\n%s", logs)
	}
	for _, addr := range addrs {
		m := mapAt(addr)
		for key, want := range map[string]string{"larger-only": "larger", "smaller-only": "smaller", "both": "larger", "before-7": "v", "before-199": "v"} {
			if got, ok, err := m.Get(ctx, key); err != nil || !ok || got != want {
				t.Errorf("after the merge %s reads %q for %q (found %v, %v), want %q", addr, got, key, ok, err, want)
			}
		}
		if n, err := m.Size(ctx); err != nil || n != 203 {
			t.Errorf("after the merge the map holds %d entries read through %s (%v), want 203", n, addr, err)
		}
	}
}
