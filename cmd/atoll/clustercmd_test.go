package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
)

// TestClusterCommands lists the members and partitions of a three-member
// cluster of real processes.
func TestClusterCommands(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{})
	c.WaitStable(1, 2*time.Minute)

	out := c.MustCLI("cluster", "members")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "ADDRESS") || !strings.HasPrefix(lines[4], "3 members") {
		t.Fatalf("cluster members printed:\n%s", out)
	}
	row := regexp.MustCompile(`^(\S+)\s+([0-9a-f-]{36})\s+(coordinator|member)\s+(\d+)\s+(\d+)`)
	coordinators, owned, backups := 0, 0, 0
	addrs := map[string]bool{}
	for _, a := range c.Addrs() {
		addrs[a] = true
	}
	for _, l := range lines[1:4] {
		m := row.FindStringSubmatch(l)
		if m == nil || !addrs[m[1]] {
			t.Fatalf("unexpected member line %q in:\n%s", l, out)
		}
		if m[3] == "coordinator" {
			coordinators++
		}
		o, _ := strconv.Atoi(m[4])
		b, _ := strconv.Atoi(m[5])
		if o < 90 || o > 91 || b < 90 || b > 91 {
			t.Fatalf("member %s owns %d and backs up %d partitions, want a third of 271 each:\n%s", m[1], o, b, out)
		}
		owned, backups = owned+o, backups+b
	}
	if coordinators != 1 || owned != 271 || backups != 271 {
		t.Fatalf("%d coordinators, %d owned, %d backups:\n%s", coordinators, owned, backups, out)
	}

	out = c.MustCLI("cluster", "partitions")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+271+1 || !strings.Contains(lines[272], "migrations in flight: 0") ||
		!strings.Contains(lines[272], "partitions lacking a synced backup: 0") {
		t.Fatalf("cluster partitions printed %d lines:\n%s", len(lines), out)
	}
	part := regexp.MustCompile(`^(\d+)\s+(\S+)\s+(\S+)\s+yes$`)
	for i, l := range lines[1:272] {
		m := part.FindStringSubmatch(l)
		if m == nil || m[1] != strconv.Itoa(i) || !addrs[m[2]] || !addrs[m[3]] || m[2] == m[3] {
			t.Fatalf("partition line %q", l)
		}
	}

	// A join whose rows move between the members shows in their exchange
	// counters: a line per member and a total; --clear clears them.
	c.MustCLI("sql", "CREATE MAPPING l (__key INT, v BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='l')")
	var vals []string
	for k := 0; k < 300; k++ {
		vals = append(vals, "("+strconv.Itoa(k)+", "+strconv.Itoa(k%50)+")")
	}
	c.MustCLI("sql", "INSERT INTO l VALUES "+strings.Join(vals, ", "))
	c.MustCLI("sql", "SELECT /*+ JOIN_STRATEGY(repartition) */ COUNT(*) FROM l a JOIN l b ON a.v = b.__key")
	out = c.MustCLI("cluster", "stats", "--clear")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "ROWS SHIPPED") || !strings.HasPrefix(strings.TrimSpace(lines[1]), "cl 1") ||
		!strings.HasPrefix(strings.TrimSpace(lines[4]), "cluster") {
		t.Fatalf("cluster stats printed:\n%s", out)
	}
	fields := strings.Fields(lines[4]) // cluster, 3, members, messages sent, received, KB sent, received, rows, ...
	if shipped, _ := strconv.Atoi(fields[7]); shipped == 0 {
		t.Fatalf("no rows shipped after a repartitioned join:\n%s", out)
	}
	out = c.MustCLI("cluster", "stats")
	if fields := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[4]); fields[3] != "0" || fields[7] != "0" {
		t.Fatalf("counters after --clear:\n%s", out)
	}
}
