package server

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/testlog"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestPipelineOpsHaveRules: every operation a pipeline or query stream
// can carry stands for a method with an access rule, so a new operation
// cannot run unchecked (a call without one is refused).
func TestPipelineOpsHaveRules(t *testing.T) {
	for name, od := range map[string]protoreflect.OneofDescriptor{"PipelineRequest": pipelineOp, "QueryCall": queryCallOp} {
		for i := 0; i < od.Fields().Len(); i++ {
			f := od.Fields().Get(i)
			if name == "QueryCall" && f.Name() == "cancel" {
				continue // ends a call of the same stream; no rule of its own
			}
			method := pipelineMethods[f.Number()]
			if name == "QueryCall" {
				method = queryCallMethods[f.Number()]
			}
			require.NotEmpty(t, method, "%s.%s stands for no method", name, f.Name())
			assert.True(t, HasAccessRule(method), "%s.%s (%s) has no access rule", name, f.Name(), method)
		}
	}
	// Unknown operations and methods are refused, not served.
	ctx := context.WithValue(context.Background(), callerKey{}, &caller{})
	s := New(Config{})
	assert.ErrorIs(t, s.access.authorize(ctx, "", &pb.KeyRequest{}), ErrPermissionDenied)
	assert.ErrorIs(t, s.access.authorize(context.Background(), pb.MapService_Get_FullMethodName, &pb.KeyRequest{}), ErrPermissionDenied,
		"a call without an access decision is refused")
	_, _, err := s.access.admit(context.Background(), "/atoll.v1.MapService/Teleport")
	assert.ErrorIs(t, err, ErrPermissionDenied)
}

// TestRecoveredPanics: a handler that panics, called through the
// interceptor or the pipeline, answers an internal error; the panic is
// logged with its stack and counted, and the server keeps serving.
func TestRecoveredPanics(t *testing.T) {
	logs := &testlog.Buffer{}
	reg := prometheus.NewRegistry()
	m := metrics.New(reg, metrics.Sources{}, metrics.Options{})
	s := New(Config{Logger: testlog.Logger(logs), Security: m.Security})
	s.Started()
	info := &grpc.UnaryServerInfo{FullMethod: pb.MetadataService_ListMetadata_FullMethodName}
	_, err := s.UnaryInterceptor(context.Background(), &pb.Empty{}, info, func(context.Context, any) (any, error) {
		var table map[string]int
		table["boom"]++ // assignment to a nil map
		return nil, nil
	})
	assert.Equal(t, codes.Internal, status.Code(err))
	assert.Contains(t, status.Convert(err).Message(), "internal error")
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Security.Panics))
	assert.Contains(t, logs.String(), "call panicked")
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")

	// A pipeline call whose handler panics (this server has no map
	// registry) fails alone, as an internal error.
	ser, err := serialization.NewService(serialization.Config{})
	require.NoError(t, err)
	s.cfg.Serialization = ser
	key, err := ser.ToData(int32(1))
	require.NoError(t, err)
	ctx := context.WithValue(context.Background(), callerKey{}, unrestricted)
	resp := s.runCall(ctx, &pb.PipelineRequest{CallId: 7, Op: &pb.PipelineRequest_Get{Get: &pb.KeyRequest{Map: "m", Key: key}}})
	require.NotNil(t, resp.Error)
	assert.Equal(t, uint64(7), resp.CallId)
	assert.Equal(t, pb.ErrorCode_ERROR_CODE_INTERNAL, resp.Error.Detail.GetCode())
	assert.Equal(t, 2.0, testutil.ToFloat64(m.Security.Panics))

	// The server still serves.
	resp2, err := s.UnaryInterceptor(context.Background(), &pb.Empty{}, info, func(context.Context, any) (any, error) { return &pb.Empty{}, nil })
	require.NoError(t, err)
	assert.NotNil(t, resp2)
}
