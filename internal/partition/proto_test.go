package partition

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

func sample() *Table {
	a, b, c := Member{UUID: NewUUID(), Address: "a:1"}, Member{UUID: NewUUID(), Address: "b:1"}, Member{UUID: NewUUID(), Address: "c:1"}
	return &Table{Version: 7, Lineage: NewUUID(), Members: []Member{a, b, c},
		Owners: []int32{0, 1, 2, -1}, Backups: [][]int32{{1, 2}, {0}, nil, nil}}
}

func TestProtoRoundTrip(t *testing.T) {
	want := sample()
	got, err := FromProto(want.Proto())
	require.NoError(t, err)
	require.Equal(t, want, got, "the round trip keeps the table")
}

func TestFromProtoRejectsBadTables(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(*pb.PartitionTable)
	}{
		{"nil", "no table", nil},
		{"owner out of range", "owner of partition 1 is member 3", func(p *pb.PartitionTable) { p.Owners[1] = 3 }},
		{"negative owner", "owner of partition 0 is member -2", func(p *pb.PartitionTable) { p.Owners[0] = -2 }},
		{"backup out of range", "backup 0 of partition 1 is member 9", func(p *pb.PartitionTable) { p.Backups[1].Members[0] = 9 }},
		{"backup is the owner", "backup 1 of partition 0 is member 0", func(p *pb.PartitionTable) { p.Backups[0].Members[1] = 0 }},
		{"backup twice", "lists backup 1 twice", func(p *pb.PartitionTable) { p.Backups[0].Members[1] = 1 }},
		{"short uuid", "uuid of 3 bytes", func(p *pb.PartitionTable) { p.Members[0].Uuid = []byte{1, 2, 3} }},
		{"member twice", "twice", func(p *pb.PartitionTable) { p.Members[1].Uuid = p.Members[0].Uuid }},
		{"bad lineage", "lineage of 2 bytes", func(p *pb.PartitionTable) { p.Lineage = []byte{1, 2} }},
		{"too many backups", "backups for 5 partitions", func(p *pb.PartitionTable) {
			p.Backups = append(p.Backups, &pb.PartitionBackups{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *pb.PartitionTable
			if tc.edit != nil {
				p = sample().Proto()
				tc.edit(p)
			}
			_, err := FromProto(p)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// FuzzFromProto checks that any table a peer could send either converts to
// a table whose indexes are all in range or is refused.
func FuzzFromProto(f *testing.F) {
	b, _ := proto.Marshal(sample().Proto())
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var p pb.PartitionTable
		if proto.Unmarshal(data, &p) != nil {
			return
		}
		tab, err := FromProto(&p)
		if err != nil {
			return
		}
		n := int32(len(tab.Members))
		for i, o := range tab.Owners {
			require.True(t, o >= -1 && o < n, "owner %d of partition %d out of range", o, i)
			for _, m := range tab.Backups[i] {
				require.True(t, m >= 0 && m < n && m != o, "backup %d of partition %d is invalid", m, i)
			}
		}
	})
}
