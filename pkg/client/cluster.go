package client

import (
	"context"
	"encoding/hex"
	"fmt"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// Member is a member of the cluster.
type Member struct {
	UUID         string
	Address      string // for clients and members
	AdminAddress string // admin HTTP (health, metrics, profiles); may be empty
}

// Partition is the owner and backups of one partition, by member address.
type Partition struct {
	ID      int32
	Owner   string   // "" when no member owns it
	Backups []string // in order: the first ones are the synchronous backups
	// Synced reports that the owner confirmed every backup has a full copy
	// (true for a partition without backups); false too when the owner
	// could not be asked.
	Synced bool
}

// Migration is a partition moving: its ownership ("handing-off", from the
// owner From to the member To that already holds a backup) or its backups
// ("syncing": new backups catch up with the owner From before they
// replace the old ones).
type Migration struct {
	Partition int32
	State     string
	From, To  string
	Backups   []string
}

// ClusterState is the cluster as its coordinator sees it.
type ClusterState struct {
	// TableVersion is the partition table's version.
	TableVersion int64
	// Coordinator is the member that decides the partition table.
	Coordinator Member
	// Members are the live members, coordinator first.
	Members    []Member
	Partitions []Partition
	// Migrations are the partition moves in flight.
	Migrations []Migration
	// MigrationsCompleted and MigrationsFailed count moves since the
	// coordinator started coordinating.
	MigrationsCompleted, MigrationsFailed int64
	// Unsynced is the number of partitions that lack a synced backup
	// (Partition.Synced false); Unreachable lists the owners that could
	// not be asked, whose partitions count among them.
	Unsynced    int
	Unreachable []string
}

// ClusterState returns the members, the partition table and the
// migrations in flight, as the coordinator knows them (only it knows the
// migrations; another member answers if it cannot be reached), and which
// partitions lack a synced backup, as each owner knows it.
func (c *Client) ClusterState(ctx context.Context) (*ClusterState, error) {
	cn, err := c.anyConn(ctx)
	if err != nil {
		return nil, err
	}
	st, err := cn.cluster.GetClusterState(ctx, &pb.GetClusterStateRequest{})
	if err != nil {
		return nil, errorFromStatus(err, cn.addr)
	}
	for _, m := range st.Members {
		if string(m.Uuid) == string(st.CoordinatorUuid) && m.Address != cn.addr {
			if cc, err := c.connTo(ctx, m.Address); err == nil {
				if cst, err := cc.cluster.GetClusterState(ctx, &pb.GetClusterStateRequest{}); err == nil {
					st = cst
				}
			}
			break
		}
	}
	out, err := clusterStateFromProto(st)
	if err != nil {
		return nil, err
	}
	c.askOwners(ctx, st, out)
	return out, nil
}

// askOwners marks the partitions whose owners report them synced: each
// member reports the partitions it owns that lack a synced backup.
func (c *Client) askOwners(ctx context.Context, coord *pb.ClusterState, out *ClusterState) {
	type answer struct {
		addr     string
		unsynced []int32
		err      error
	}
	owners := map[string]bool{}
	for _, p := range out.Partitions {
		if p.Owner != "" {
			owners[p.Owner] = true
		}
	}
	answers := make(chan answer, len(owners))
	for addr := range owners {
		go func() {
			cc, err := c.connTo(ctx, addr)
			if err != nil {
				answers <- answer{addr: addr, err: err}
				return
			}
			st, err := cc.cluster.GetClusterState(ctx, &pb.GetClusterStateRequest{})
			if err != nil {
				answers <- answer{addr: addr, err: err}
				return
			}
			answers <- answer{addr: addr, unsynced: st.UnsyncedPartitions}
		}()
	}
	unsynced := map[int32]bool{}
	unreachable := map[string]bool{}
	for range owners {
		a := <-answers
		if a.err != nil {
			unreachable[a.addr] = true
			out.Unreachable = append(out.Unreachable, a.addr)
		}
		for _, p := range a.unsynced {
			unsynced[p] = true
		}
	}
	for i := range out.Partitions {
		p := &out.Partitions[i]
		p.Synced = p.Owner != "" && !unreachable[p.Owner] && !unsynced[p.ID]
		if !p.Synced {
			out.Unsynced++
		}
	}
}

func memberFromProto(m *pb.Member) Member {
	return Member{UUID: uuidString(m.Uuid), Address: m.Address, AdminAddress: m.AdminAddress}
}

func uuidString(b []byte) string {
	if len(b) != 16 {
		return hex.EncodeToString(b)
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func clusterStateFromProto(st *pb.ClusterState) (*ClusterState, error) {
	t := st.GetPartitionTable()
	if t == nil {
		return nil, fmt.Errorf("%w: the member sent a cluster state without a partition table", ErrInternal)
	}
	out := &ClusterState{TableVersion: t.Version, MigrationsCompleted: st.MigrationsCompleted, MigrationsFailed: st.MigrationsFailed}
	byUUID := map[string]string{}
	for _, m := range t.Members {
		byUUID[string(m.Uuid)] = m.Address
	}
	for _, m := range st.Members {
		byUUID[string(m.Uuid)] = m.Address
		mm := memberFromProto(m)
		out.Members = append(out.Members, mm)
		if string(m.Uuid) == string(st.CoordinatorUuid) {
			out.Coordinator = mm
		}
	}
	addr := func(i int32) string {
		if i < 0 || int(i) >= len(t.Members) {
			return ""
		}
		return t.Members[i].Address
	}
	for p, o := range t.Owners {
		part := Partition{ID: int32(p), Owner: addr(o)}
		if p < len(t.Backups) {
			for _, b := range t.Backups[p].GetMembers() {
				part.Backups = append(part.Backups, addr(b))
			}
		}
		out.Partitions = append(out.Partitions, part)
	}
	for _, m := range st.Migrations {
		mig := Migration{Partition: m.Partition, State: m.State, From: byUUID[string(m.FromUuid)], To: byUUID[string(m.ToUuid)]}
		for _, b := range m.BackupUuids {
			mig.Backups = append(mig.Backups, byUUID[string(b)])
		}
		out.Migrations = append(out.Migrations, mig)
	}
	return out, nil
}
