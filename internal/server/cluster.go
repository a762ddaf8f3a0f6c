package server

import (
	"context"
	"strconv"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

func (s *Server) connect(_ context.Context, r *pb.ConnectRequest) (*pb.ConnectResponse, error) {
	if r.ClusterName != s.cfg.ClusterName {
		return nil, invalidCluster(r.ClusterName, s.cfg.ClusterName)
	}
	t := s.cfg.Table.Load()
	return &pb.ConnectResponse{
		MemberUuid:     s.cfg.Self.UUID[:],
		ClusterName:    s.cfg.ClusterName,
		PartitionCount: int32(t.PartitionCount()),
		PartitionTable: t.Proto(),
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
	return s.cfg.Table.Load().Proto(), nil
}

func (s *Server) watchPartitionTable(_ *pb.GetPartitionTableRequest, stream pb.ClusterService_WatchPartitionTableServer) error {
	updates, cancel := s.cfg.Table.Subscribe()
	defer cancel()
	if err := stream.Send(s.cfg.Table.Load().Proto()); err != nil {
		return err
	}
	for {
		select {
		case <-stream.Context().Done():
			return stream.Context().Err()
		case <-s.done:
			return ErrShuttingDown
		case t := <-updates:
			if err := stream.Send(t.Proto()); err != nil {
				return err
			}
		}
	}
}

func (s *Server) clusterState(context.Context, *pb.GetClusterStateRequest) (*pb.ClusterState, error) {
	return s.cfg.Cluster.State(), nil
}
