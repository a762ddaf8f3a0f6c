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

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/profiling"
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
func (r *GRPCRemote) RunFragment(ctx context.Context, member partition.Member, req *pb.RunFragmentRequest) (RowStream, error) {
	cc, err := r.Conn(ctx, member)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	req.Kind, _ = pprof.Label(ctx, profiling.LabelKind)
	if dl, ok := ctx.Deadline(); ok {
		req.TimeoutMs = max(1, time.Until(dl).Milliseconds())
	}
	stream, err := pb.NewQueryServiceClient(cc).RunFragment(ctx, req)
	if err != nil {
		cancel()
		return nil, remoteError(ctx, member, err)
	}
	return &grpcRowStream{ctx: ctx, member: member, stream: stream, cancel: cancel}, nil
}

// OpenExchange implements Remote over ExchangeService.Exchange.
func (r *GRPCRemote) OpenExchange(ctx context.Context, member partition.Member) (ExchangeSender, error) {
	cc, err := r.Conn(ctx, member)
	if err != nil {
		return nil, err
	}
	return memberpb.NewExchangeServiceClient(cc).Exchange(ctx)
}

// ExchangeStats implements Remote over ExchangeService.Stats.
func (r *GRPCRemote) ExchangeStats(ctx context.Context, member partition.Member, clear bool) (ExchangeStats, error) {
	cc, err := r.Conn(ctx, member)
	if err != nil {
		return ExchangeStats{}, err
	}
	s, err := memberpb.NewExchangeServiceClient(cc).Stats(ctx, &memberpb.ExchangeStatsRequest{Clear: clear})
	if err != nil {
		return ExchangeStats{}, remoteError(ctx, member, err)
	}
	return ExchangeStats{MessagesSent: s.MessagesSent, MessagesReceived: s.MessagesReceived, BytesSent: s.BytesSent,
		BytesReceived: s.BytesReceived, RowsShipped: s.RowsShipped, WriteBlock: time.Duration(s.WriteBlockUs) * time.Microsecond,
		SchedulingWait: time.Duration(s.SchedulingWaitUs) * time.Microsecond}, nil
}

// ExchangeStatsProto converts counters to their wire form.
func ExchangeStatsProto(s ExchangeStats) *memberpb.ExchangeStatsResponse {
	return &memberpb.ExchangeStatsResponse{MessagesSent: s.MessagesSent, MessagesReceived: s.MessagesReceived, BytesSent: s.BytesSent,
		BytesReceived: s.BytesReceived, RowsShipped: s.RowsShipped, WriteBlockUs: s.WriteBlock.Microseconds(),
		SchedulingWaitUs: s.SchedulingWait.Microseconds()}
}

// remoteError keeps a remote member's error as it is (its status carries
// the detail the client sees), except that an unavailable member or
// partition, or a channel that closed, becomes ErrUnavailable, which the
// coordinator retries on.
func remoteError(ctx context.Context, member partition.Member, err error) error {
	// Canceled while the query goes on: the channel closed under the call
	// (the member was declared gone).
	if c := status.Code(err); c == codes.Unavailable || c == codes.Canceled && ctx.Err() == nil {
		return fmt.Errorf("%w: member %s: %s", ErrUnavailable, member.Address, status.Convert(err).Message())
	}
	// Cancelled here: the remote call only echoes it. The context's own
	// error lets the query report why it was stopped (its cause).
	if status.Code(err) == codes.Canceled {
		return ctx.Err()
	}
	return err
}

type grpcRowStream struct {
	ctx    context.Context
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
		return nil, remoteError(s.ctx, s.member, err)
	}
	return &Batch{Rows: m.Rows, Count: int(m.Count)}, nil
}

func (s *grpcRowStream) Close() { s.cancel() }
