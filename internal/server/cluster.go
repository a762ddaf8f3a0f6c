package server

import (
	"context"
	"strconv"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/metrics"
)

func (s *Server) connect(ctx context.Context, r *pb.ConnectRequest) (*pb.ConnectResponse, error) {
	if r.ClusterName != s.cfg.ClusterName {
		return nil, &clusterNameError{got: r.ClusterName}
	}
	s.openSession(ctx, r.ClientUuid)
	t := s.cfg.Table.Load()
	return &pb.ConnectResponse{
		MemberUuid:     s.cfg.Self.UUID[:],
		ClusterName:    s.cfg.ClusterName,
		PartitionCount: int32(t.PartitionCount()),
		PartitionTable: t.Proto(),
		MemberVersion:  s.cfg.Version,
		Limits: &pb.Limits{
			MaxMessageSize: int64(s.cfg.MaxMessageSize), MaxKeySize: int64(s.cfg.MaxKeySize),
			MaxValueSize: int64(s.cfg.MaxValueSize), MaxBatchEntries: int64(s.cfg.MaxBatchEntries),
		},
	}, nil
}

// clusterNameError refuses a client of another cluster. It names the
// client's cluster, never the member's: a stranger learns only that its
// guess was wrong.
type clusterNameError struct{ got string }

func (e *clusterNameError) Error() string {
	return "this member does not belong to cluster " + strconv.Quote(e.got) + " (check the client's cluster name)"
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

// maxNearCachesPerReport bounds the near caches one client report may
// name.
const maxNearCachesPerReport = 1024

// pushClientStatistics passes a client's report on to the metrics. Near
// caches of maps this member does not have are left out, and those of maps
// without series of their own count under the empty map name, so that
// clients cannot grow the map label set.
func (s *Server) pushClientStatistics(_ context.Context, r *pb.ClientStatistics) (*pb.Empty, error) {
	if len(r.ClientUuid) != 16 {
		return nil, invalid("client uuid has %d bytes, want 16", len(r.ClientUuid))
	}
	if len(r.NearCaches) > maxNearCachesPerReport {
		return nil, invalid("%d near caches in one report; at most %d", len(r.NearCaches), maxNearCachesPerReport)
	}
	if s.cfg.Clients == nil {
		return &pb.Empty{}, nil
	}
	rep := metrics.ClientReport{
		ID: string(r.ClientUuid), Type: r.ClientType, Interval: time.Duration(r.IntervalMs) * time.Millisecond,
		Calls: r.Calls, Retries: r.Retries, Failures: r.Failures, Connections: int64(r.Connections),
		TxCommits: r.TransactionCommits, TxRetries: r.TransactionRetries, TxConflicts: r.TransactionConflicts,
	}
	for _, nc := range r.NearCaches {
		if m, ok := s.cfg.Maps.Lookup(nc.Map); ok {
			name := nc.Map
			if !m.OwnSeries() {
				name = ""
			}
			rep.NearCaches = append(rep.NearCaches, metrics.NearCacheReport{
				Map: name, Hits: nc.Hits, Misses: nc.Misses, Invalidations: nc.Invalidations, Entries: nc.Entries,
			})
		}
	}
	s.cfg.Clients.Record(rep)
	return &pb.Empty{}, nil
}
