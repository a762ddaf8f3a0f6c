package cluster

import (
	"context"
	"fmt"
	"io"
	"slices"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partition"
)

// service implements MemberService for the node.
type service struct {
	memberv1.UnimplementedMemberServiceServer
	n *Node
}

func uuidOf(b []byte) (partition.UUID, error) {
	var u partition.UUID
	if len(b) != len(u) {
		return u, fmt.Errorf("cluster: uuid of %d bytes", len(b))
	}
	copy(u[:], b)
	return u, nil
}

func (s *service) GossipPacket(_ context.Context, r *memberv1.GossipPacketRequest) (*memberv1.Ack, error) {
	s.n.gt.receivePacket(r.From, r.Payload)
	return &memberv1.Ack{}, nil
}

func (s *service) GossipStream(stream memberv1.MemberService_GossipStreamServer) error {
	return s.n.gt.acceptStream(stream)
}

func (s *service) PublishTable(_ context.Context, r *memberv1.TableMessage) (*memberv1.Ack, error) {
	t, sender, err := s.n.tableFromMessage(r)
	if err != nil {
		return nil, err
	}
	s.n.receiveTable(t, sender)
	return &memberv1.Ack{}, nil
}

func (s *service) SyncTable(_ context.Context, r *memberv1.TableMessage) (*memberv1.TableMessage, error) {
	return s.n.syncTable(r)
}

// replicateStream is the backup's side of a replication stream: encoded
// ReplicationBatch messages in, ReplicationAck messages out (change.go).
type replicateStream interface {
	Recv() ([]byte, error)
	Send([]byte) error
}

// replicate applies what an owner streams to this backup, acknowledging
// each batch, until the stream ends (framed.go). It reads the batches in
// place and reuses its buffers: a change applied allocates nothing here.
func (n *Node) replicate(stream replicateStream) error {
	repl := n.repl
	names := map[string]string{}
	var (
		change Change
		acks   []partitionAck
		resync []int32
		out    []byte
	)
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		batch, err := readBatch(msg)
		if err != nil {
			return err
		}
		owner, err := uuidOf(batch.owner)
		if err != nil {
			return err
		}
		acks, resync = acks[:0], resync[:0]
		for {
			more, err := batch.next(&change, names)
			if err != nil {
				return err
			}
			if !more {
				break
			}
			need, err := repl.apply(owner, &change)
			if err != nil {
				n.log.Warn("applying a replicated change failed; asking for a snapshot", "partition", change.Partition, "err", err)
				need = true
			}
			if need && !slices.Contains(resync, change.Partition) {
				resync = append(resync, change.Partition)
			}
			acks = noteAck(acks, change.Partition, change.Epoch)
		}
		for i := range acks {
			acks[i].seq = repl.appliedFrom(acks[i].epoch, acks[i].partition)
		}
		out = appendAck(out[:0], acks, resync)
		if err := stream.Send(out); err != nil {
			return err
		}
	}
}

// noteAck records that a batch carried a change of pid under epoch: the
// partition's acknowledgement names the last epoch seen.
func noteAck(acks []partitionAck, pid int32, epoch uint64) []partitionAck {
	for i := range acks {
		if acks[i].partition == pid {
			acks[i].epoch = epoch
			return acks
		}
	}
	return append(acks, partitionAck{partition: pid, epoch: epoch})
}

func (s *service) Sync(stream memberv1.MemberService_SyncServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	pid := first.Partition
	owner, err := uuidOf(first.OwnerUuid)
	if err != nil {
		return err
	}
	if pid < 0 || int(pid) >= s.n.cfg.PartitionCount {
		return fmt.Errorf("cluster: a copy of partition %d, out of range", pid)
	}
	repl := s.n.repl
	ps := repl.parts[pid]
	ps.syncMu.Lock()
	defer ps.syncMu.Unlock()
	if err := repl.beginSync(owner, pid); err != nil {
		return err
	}
	// The copy is checked as it arrives and kept until it is complete: the
	// backup's current copy stays whole if it never is.
	var chunks []*memberv1.SyncChunk
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err == nil {
			if err = s.n.cfg.Store.Check(msg.Map, pid, msg.Data); err != nil {
				s.n.log.Warn("refused a copy of a partition from its owner", "partition", pid, "map", msg.Map, "err", err)
			}
		}
		if err != nil {
			repl.abortSync(pid)
			return err
		}
		chunks = append(chunks, msg)
	}
	err = repl.applySync(owner, pid, first.Epoch, first.Seq, func() error {
		if err := s.n.cfg.Store.DropPartition(pid); err != nil {
			return err
		}
		for _, c := range chunks {
			if err := s.n.cfg.Store.Import(c.Map, pid, c.Data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return stream.SendAndClose(&memberv1.PartitionAck{Partition: pid, Epoch: first.Epoch, Seq: first.Seq})
}

func (s *service) Handoff(ctx context.Context, r *memberv1.HandoffRequest) (*memberv1.HandoffResponse, error) {
	to, err := uuidOf(r.ToUuid)
	if err != nil {
		return nil, err
	}
	return &memberv1.HandoffResponse{}, s.n.repl.handoff(ctx, r.Partition, to, r.TableVersion)
}

func (s *service) CatchUp(ctx context.Context, r *memberv1.CatchUpRequest) (*memberv1.Ack, error) {
	to := make([]partition.UUID, len(r.MemberUuids))
	for i, b := range r.MemberUuids {
		u, err := uuidOf(b)
		if err != nil {
			return nil, err
		}
		to[i] = u
	}
	return &memberv1.Ack{}, s.n.repl.catchUp(ctx, r.Partition, to)
}

func (s *service) Leave(_ context.Context, r *memberv1.LeaveRequest) (*memberv1.LeaveResponse, error) {
	u, err := uuidOf(r.Uuid)
	if err != nil {
		return nil, err
	}
	return &memberv1.LeaveResponse{Staying: int32(s.n.coord.markLeaving(u))}, nil
}

func (s *service) PutMetadata(_ context.Context, r *pb.MetadataList) (*memberv1.Ack, error) {
	return &memberv1.Ack{}, s.n.cfg.Metadata.Put(r)
}

func (s *service) GetMetadata(context.Context, *memberv1.Ack) (*pb.MetadataList, error) {
	return s.n.cfg.Metadata.List(), nil
}

func (s *service) PutCatalog(_ context.Context, r *memberv1.CatalogChanges) (*memberv1.Ack, error) {
	if s.n.cfg.Catalog == nil {
		return &memberv1.Ack{}, nil // no query engine here: nothing to keep
	}
	return &memberv1.Ack{}, s.n.cfg.Catalog.Apply(r.Changes)
}

func (s *service) GetCatalog(context.Context, *memberv1.Ack) (*memberv1.CatalogChanges, error) {
	if s.n.cfg.Catalog == nil {
		return &memberv1.CatalogChanges{}, nil
	}
	return &memberv1.CatalogChanges{Changes: s.n.cfg.Catalog.Changes()}, nil
}

func (s *service) Merge(stream memberv1.MemberService_MergeServer) error {
	return s.n.receiveMerge(stream)
}
