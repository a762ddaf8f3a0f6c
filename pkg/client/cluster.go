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
}

// ClusterState returns the members, the partition table and the
// migrations in flight, as the coordinator knows them (only it knows the
// migrations; another member answers if it cannot be reached).
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
	return clusterStateFromProto(st)
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
