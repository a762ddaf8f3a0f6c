package partition

import (
	"fmt"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// Proto converts the table for the API (clients and members).
func (t *Table) Proto() *pb.PartitionTable {
	p := &pb.PartitionTable{Version: t.Version, Owners: t.Owners, Lineage: t.Lineage[:], HandingOff: t.HandingOff}
	for _, m := range t.Members {
		p.Members = append(p.Members, &pb.Member{Uuid: m.UUID[:], Address: m.Address, AdminAddress: m.AdminAddress, JoinOrder: m.JoinOrder})
	}
	for _, b := range t.Backups {
		p.Backups = append(p.Backups, &pb.PartitionBackups{Members: b})
	}
	return p
}

// FromProto converts and checks a table received from another member: every
// owner and backup index names a member, no partition lists its owner or a
// member twice, and the UUIDs are well formed.
func FromProto(p *pb.PartitionTable) (*Table, error) {
	if p == nil {
		return nil, fmt.Errorf("partition: no table")
	}
	if len(p.Backups) > len(p.Owners) {
		return nil, fmt.Errorf("partition: table has backups for %d partitions but %d owners", len(p.Backups), len(p.Owners))
	}
	t := &Table{Version: p.Version, Owners: p.Owners, Backups: make([][]int32, len(p.Owners))}
	for _, pid := range p.HandingOff {
		if pid < 0 || int(pid) >= len(p.Owners) {
			return nil, fmt.Errorf("partition: table hands over partition %d of %d", pid, len(p.Owners))
		}
		t.HandingOff = append(t.HandingOff, pid)
	}
	if len(p.Lineage) != 0 {
		if len(p.Lineage) != len(t.Lineage) {
			return nil, fmt.Errorf("partition: table lineage of %d bytes", len(p.Lineage))
		}
		copy(t.Lineage[:], p.Lineage)
	}
	seen := make(map[UUID]bool, len(p.Members))
	for _, m := range p.Members {
		var u UUID
		if len(m.GetUuid()) != len(u) {
			return nil, fmt.Errorf("partition: table member %q has a uuid of %d bytes", m.GetAddress(), len(m.GetUuid()))
		}
		copy(u[:], m.Uuid)
		if seen[u] {
			return nil, fmt.Errorf("partition: table names member %s twice", u)
		}
		seen[u] = true
		t.Members = append(t.Members, Member{UUID: u, Address: m.Address, AdminAddress: m.AdminAddress, JoinOrder: m.JoinOrder})
	}
	n := int32(len(t.Members))
	for i, o := range t.Owners {
		if o < -1 || o >= n {
			return nil, fmt.Errorf("partition: owner of partition %d is member %d of %d", i, o, n)
		}
	}
	for i, b := range p.Backups {
		for j, m := range b.GetMembers() {
			if m < 0 || m >= n || m == t.Owners[i] {
				return nil, fmt.Errorf("partition: backup %d of partition %d is member %d (owner %d, %d members)", j, i, m, t.Owners[i], n)
			}
			for _, prev := range b.Members[:j] {
				if prev == m {
					return nil, fmt.Errorf("partition: partition %d lists backup %d twice", i, m)
				}
			}
		}
		t.Backups[i] = b.GetMembers()
	}
	return t, nil
}
