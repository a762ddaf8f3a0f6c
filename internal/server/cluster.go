package server

import (
	"context"
	"strconv"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partition"
)

// TableToProto converts a partition table.
func TableToProto(t *partition.Table) *pb.PartitionTable {
	p := &pb.PartitionTable{Version: t.Version, Owners: t.Owners}
	for _, m := range t.Members {
		p.Members = append(p.Members, &pb.Member{Uuid: m.UUID[:], Address: m.Address, AdminAddress: m.AdminAddress, JoinOrder: m.JoinOrder})
	}
	for _, b := range t.Backups {
		p.Backups = append(p.Backups, &pb.PartitionBackups{Members: b})
	}
	return p
}

func (s *Server) connect(_ context.Context, r *pb.ConnectRequest) (*pb.ConnectResponse, error) {
	if r.ClusterName != s.cfg.ClusterName {
		return nil, invalidCluster(r.ClusterName, s.cfg.ClusterName)
	}
	t := s.cfg.Table.Load()
	return &pb.ConnectResponse{
		MemberUuid:     s.cfg.Self.UUID[:],
		ClusterName:    s.cfg.ClusterName,
		PartitionCount: int32(t.PartitionCount()),
		PartitionTable: TableToProto(t),
		MemberVersion:  s.cfg.Version,
	}, nil
}

func invalidCluster(got, want string) error {
	return &clusterNameError{got: got, want: want}
}

type clusterNameError struct{ got, want string }

func (e *clusterNameError) Error() string {
	return "cluster name " + strconv.Quote(e.got) + " does not match this member's cluster " + strconv.Quote(e.want)
}

func (e *clusterNameError) Unwrap() error { return ErrClusterName }

func (s *Server) partitionTable(context.Context, *pb.GetPartitionTableRequest) (*pb.PartitionTable, error) {
	return TableToProto(s.cfg.Table.Load()), nil
}

func (s *Server) watchPartitionTable(_ *pb.GetPartitionTableRequest, stream pb.ClusterService_WatchPartitionTableServer) error {
	updates, cancel := s.cfg.Table.Subscribe()
	defer cancel()
	if err := stream.Send(TableToProto(s.cfg.Table.Load())); err != nil {
		return err
	}
	for {
		select {
		case <-stream.Context().Done():
			return stream.Context().Err()
		case <-s.done:
			return ErrShuttingDown
		case t := <-updates:
			if err := stream.Send(TableToProto(t)); err != nil {
				return err
			}
		}
	}
}
