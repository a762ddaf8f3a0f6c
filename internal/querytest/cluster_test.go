package querytest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// coordinatorAt runs statements with one given member as the coordinator
// (the Go client picks any member), through the unary QueryService.
type coordinatorAt struct {
	t    *testing.T
	addr string
	qs   pb.QueryServiceClient
}

func coordinator(t *testing.T, addr string) *coordinatorAt {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = cc.Close() })
	return &coordinatorAt{t: t, addr: addr, qs: pb.NewQueryServiceClient(cc)}
}

// run executes one statement and returns its update count and rows (the
// first page, which the statements here fit in).
func (c *coordinatorAt) run(ctx context.Context, sql string) (int64, [][]string, error) {
	c.t.Helper()
	resp, err := c.qs.Execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: sql}, PageSize: 10000})
	if err != nil {
		return 0, nil, err
	}
	require.Zero(c.t, resp.CursorId, "%s on %s: more than one page", sql, c.addr)
	var out [][]string
	if resp.Page != nil && resp.Page.Count > 0 {
		rows, err := exec.DecodeRows(resp.Page.Rows, int(resp.Page.Count), len(resp.Columns))
		require.NoError(c.t, err)
		for _, r := range rows {
			var cells []string
			for _, v := range r {
				cells = append(cells, v.String())
			}
			out = append(out, cells)
		}
	}
	return resp.UpdateCount, out, nil
}

func (c *coordinatorAt) must(ctx context.Context, sql string) (int64, [][]string) {
	c.t.Helper()
	n, rows, err := c.run(ctx, sql)
	require.NoError(c.t, err, "%s on %s", sql, c.addr)
	return n, rows
}

// count returns SELECT COUNT(*) ... on this member.
func (c *coordinatorAt) count(ctx context.Context, from string) string {
	c.t.Helper()
	_, rows := c.must(ctx, "SELECT COUNT(*) FROM "+from)
	return rows[0][0]
}

// TestClusterSQL runs SQL on a cluster with every member in turn as the
// coordinator: a mapping or index made on one member is there on all,
// including a member that joins later; DML run on one member writes each
// key at its owner, with backups, so that no row is lost when a member
// dies; every query sees every partition.
func TestClusterSQL(t *testing.T) {
	cl := testcluster.Start(t, testcluster.InProcess, 3, testcluster.Options{SlowFailureDetection: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var at []*coordinatorAt
	for _, a := range cl.Addrs() {
		at = append(at, coordinator(t, a))
	}

	at[0].must(ctx, `CREATE MAPPING people (__key INT, name VARCHAR, age INT)
		TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='person')`)
	var vals []string
	for k := range 600 {
		vals = append(vals, fmt.Sprintf("(%d, 'p%d', %d)", k, k, k%90))
	}
	n, _ := at[1].must(ctx, "INSERT INTO people VALUES "+strings.Join(vals, ", "))
	require.Equal(t, int64(600), n, "rows the INSERT changed")
	// The keys went to their owners: the map's size (the owners' entry
	// counts summed) is every row, and each member owns some.
	cli, err := client.New(ctx, client.Config{Addresses: cl.Addrs(), ClusterName: "test", StatisticsInterval: -1})
	require.NoError(t, err)
	defer cli.Close()
	// Sizes read while partitions move may count an entry twice or not
	// at all; once they settle, the size is every row.
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := client.GetMap[int32, any](cli, "people").Size(ctx)
		if err == nil && n == 600 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("map size %d, %v; want 600", n, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Partitions spread over the members as they joined; once they have,
	// every member owns rows.
	for i, m := range cl.Members() {
		for ownedEntries(t, m, "people") == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("member %d owns no rows of people", i)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for i, c := range at {
		assert.Equal(t, "600", c.count(ctx, "people"), "COUNT(*) with member %d coordinating", i)
	}

	// An index made on one member is used by every member's plans.
	at[2].must(ctx, `CREATE INDEX people_age ON people (age) TYPE SORTED`)
	for i, c := range at {
		resp, err := c.qs.Execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT name FROM people WHERE age = 7"}, Explain: true})
		require.NoError(t, err)
		rows, err := exec.DecodeRows(resp.Page.Rows, int(resp.Page.Count), len(resp.Columns))
		require.NoError(t, err)
		var plan strings.Builder
		for _, r := range rows {
			plan.WriteString(r[0].String() + "\n")
		}
		assert.Contains(t, plan.String(), "people_age", "member %d plans with the index", i)
		_, aged7 := c.must(ctx, "SELECT name FROM people WHERE age = 7")
		assert.Len(t, aged7, 7, "member %d: people aged 7", i)
	}

	// A member that joins later knows the mapping and the index.
	late := coordinator(t, cl.Add().Addr)
	assert.Equal(t, "70", late.count(ctx, "people WHERE age < 10"), "the late member's count of people under 10")
	at = append(at, late)

	// UPDATE and DELETE coordinated by different members.
	n, _ = late.must(ctx, "UPDATE people SET name = 'old' WHERE age >= 80")
	assert.Equal(t, int64(60), n, "rows the UPDATE changed")
	n, _ = at[0].must(ctx, "DELETE FROM people WHERE age < 30")
	assert.Equal(t, int64(210), n, "rows the DELETE removed")
	// A duplicate key in INSERT is refused.
	_, _, err = at[2].run(ctx, "INSERT INTO people VALUES (500, 'again', 1)")
	assert.ErrorContains(t, err, "duplicate key", "INSERT of a present key")

	// A member dies: its backups hold every row it owned.
	cl.Members()[1].Kill()
	at = append(at[:1], at[2:]...)
	deadline = time.Now().Add(time.Minute)
	for _, c := range at {
		for {
			n, rows, err := c.run(ctx, "SELECT COUNT(*) FROM people WHERE name = 'old'")
			if err == nil && n == -1 && rows[0][0] == "60" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after a member died, %s counts %v, %v; want 60 old people", c.addr, rows, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		for {
			got := c.count(ctx, "people")
			if got == "390" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after a member died, %s counts %s people, want 390", c.addr, got)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// ownedEntries reads a member's atoll_map_entries{role="owner"} gauge.
func ownedEntries(t *testing.T, n *testcluster.Node, mapName string) float64 {
	t.Helper()
	families, err := n.Member().Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "atoll_map_entries" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["map"] == mapName && labels["role"] == "owner" {
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}
