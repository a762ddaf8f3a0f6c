package exec

import (
	"context"
	"fmt"
	"io"
	"runtime/pprof"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partition"
)

// GRPCRemote is a Remote over the members' QueryService.RunFragment: the
// cluster layer gives it its member-to-member connections. A remote
// member's error arrives as a gRPC status with its ErrorDetail, which the
// coordinator's server passes on to the client unchanged (retryable errors
// such as a partition that moved stay retryable).
type GRPCRemote struct {
	// Conn returns a connection to a member; it is called for every
	// fragment, so it should reuse connections.
	Conn func(ctx context.Context, member partition.Member) (grpc.ClientConnInterface, error)
}

var _ Remote = (*GRPCRemote)(nil)

// RunFragment implements Remote.
func (r *GRPCRemote) RunFragment(ctx context.Context, member partition.Member, fragment []byte, partitions []int32) (RowStream, error) {
	cc, err := r.Conn(ctx, member)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	req := &pb.RunFragmentRequest{Fragment: fragment, Partitions: partitions}
	req.Kind, _ = pprof.Label(ctx, "kind")
	if dl, ok := ctx.Deadline(); ok {
		req.TimeoutMs = max(1, time.Until(dl).Milliseconds())
	}
	stream, err := pb.NewQueryServiceClient(cc).RunFragment(ctx, req)
	if err != nil {
		cancel()
		return nil, remoteError(member, err)
	}
	return &grpcRowStream{member: member, stream: stream, cancel: cancel}, nil
}

// remoteError keeps a remote member's error as it is (its status carries
// the detail the client sees), except that an unavailable member or
// partition becomes ErrUnavailable, which the coordinator retries on.
func remoteError(member partition.Member, err error) error {
	if status.Code(err) == codes.Unavailable {
		return fmt.Errorf("%w: member %s: %s", ErrUnavailable, member.Address, status.Convert(err).Message())
	}
	return err
}

type grpcRowStream struct {
	member partition.Member
	stream pb.QueryService_RunFragmentClient
	cancel context.CancelFunc
}

func (s *grpcRowStream) Next() (*Batch, error) {
	m, err := s.stream.Recv()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, remoteError(s.member, err)
	}
	return &Batch{Rows: m.Rows, Count: int(m.Count)}, nil
}

func (s *grpcRowStream) Close() { s.cancel() }
