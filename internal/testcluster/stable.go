package testcluster

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// State asks a member for its view of the cluster.
func State(ctx context.Context, addr string) (*pb.ClusterState, error) {
	return StateWith(ctx, addr, nil)
}

// StateWith asks a member that serves TLS or requires credentials (the
// admin action) for its view of the cluster; nil access is State.
func StateWith(ctx context.Context, addr string, access *Access) (*pb.ClusterState, error) {
	cc, err := grpc.NewClient(addr, access.DialOptions()...)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	return pb.NewClusterServiceClient(cc).GetClusterState(ctx, &pb.GetClusterStateRequest{})
}

// WaitStable waits until every live member has the same partition table,
// naming exactly the live members, with every partition owned, `backups`
// backups each (every one holding a synced copy), balanced owners and no
// migration in flight.
func (c *Cluster) WaitStable(backups int, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		why := c.Unstable(backups)
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			logs := ""
			for _, m := range c.Live() {
				logs += "\n--- " + m.Addr + "\n" + tail(m.Logs(), 4000)
			}
			c.t.Fatalf("cluster not stable after %v: %s%s", timeout, why, logs)
		}
		if why != last {
			last = why
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Unstable says why the cluster is not stable in WaitStable's sense, or
// returns "" when it is.
func (c *Cluster) Unstable(backups int) string {
	live := c.Live()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var version int64 = -1
	for _, m := range live {
		st, err := StateWith(ctx, m.Addr, c.opts.Access)
		if err != nil {
			return fmt.Sprintf("%s: %v", m.Addr, err)
		}
		t := st.PartitionTable
		if version >= 0 && t.Version != version {
			return fmt.Sprintf("members disagree on the table version (%d and %d)", version, t.Version)
		}
		version = t.Version
		if len(st.Migrations) > 0 {
			return fmt.Sprintf("%d migrations in flight", len(st.Migrations))
		}
		if n := len(st.UnsyncedPartitions); n > 0 {
			return fmt.Sprintf("%s: %d partitions it owns lack a synced backup", m.Addr, n)
		}
		if len(t.Members) != len(live) {
			return fmt.Sprintf("table names %d members, %d are live", len(t.Members), len(live))
		}
		owned := make([]int, len(t.Members))
		want := min(backups, len(live)-1)
		for p, o := range t.Owners {
			if o < 0 {
				return fmt.Sprintf("partition %d has no owner", p)
			}
			owned[o]++
			if len(t.Backups[p].GetMembers()) != want {
				return fmt.Sprintf("partition %d has %d backups, want %d", p, len(t.Backups[p].GetMembers()), want)
			}
		}
		lo, hi := len(t.Owners), 0
		for _, n := range owned {
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi-lo > 1 {
			return fmt.Sprintf("owners unbalanced: %v", owned)
		}
	}
	return ""
}
