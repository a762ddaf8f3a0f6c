package server

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Errors the server itself raises.
var (
	// ErrShuttingDown: the member is stopping and takes no new calls.
	ErrShuttingDown = errors.New("server: member is shutting down")
	// ErrStarting: the member is still joining its cluster and serves
	// members only.
	ErrStarting = errors.New("server: member is starting: it serves clients once it has joined its cluster")
	// ErrClusterName: the client named another cluster.
	ErrClusterName = errors.New("server: cluster name mismatch")
	// ErrInvalidArgument: a request field is missing or invalid.
	ErrInvalidArgument = errors.New("server: invalid argument")
	// ErrNotFound: a requested resource does not exist.
	ErrNotFound = errors.New("server: not found")
	// ErrOverloaded: too many calls in flight on one stream.
	ErrOverloaded = errors.New("server: overloaded")
	// ErrUnavailable: the cluster cannot complete the call now.
	ErrUnavailable = errors.New("server: unavailable")
	// ErrPermissionDenied: the caller may not make the call on its
	// connection (a member-only call from a client).
	ErrPermissionDenied = errors.New("server: permission denied")
	// ErrLimitExceeded: a configured limit per client would be passed (the
	// message names it and its configuration key).
	ErrLimitExceeded = errors.New("server: limit exceeded")
)

// TooLargeError refuses a request, or an answer being built, over a limit
// of the member; it matches store.ErrTooLarge and its ErrorDetail carries
// the limit.
type TooLargeError struct {
	Op, What    string // the operation and what was too large ("request", "answer")
	Size, Limit int
	Unit        string // "entries", "bytes", "fields"
	Setting     string // the configuration key of the limit, if any
}

func (e *TooLargeError) Error() string {
	msg := fmt.Sprintf("%s: the %s has %d %s, more than the limit of %d", e.Op, e.What, e.Size, e.Unit, e.Limit)
	if e.Setting != "" {
		msg += " (" + e.Setting + ")"
	}
	return msg
}

// Unwrap makes the error match store.ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return store.ErrTooLarge }

// invalid returns an ErrInvalidArgument with a message.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errorClass is one row of the table that maps errors to the wire.
type errorClass struct {
	match     func(error) bool
	grpc      codes.Code
	code      pb.ErrorCode
	retryable bool
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

// errorTable is the only place where Go errors become gRPC codes and
// ErrorCodes; the clients map ErrorCodes back to typed errors. Order
// matters: the first match wins.
var errorTable = []errorClass{
	{is(context.DeadlineExceeded), codes.DeadlineExceeded, pb.ErrorCode_ERROR_CODE_TIMEOUT, false},
	{is(context.Canceled), codes.Canceled, pb.ErrorCode_ERROR_CODE_CANCELLED, false},
	{is(ErrShuttingDown), codes.Unavailable, pb.ErrorCode_ERROR_CODE_SHUTTING_DOWN, true},
	{is(ErrStarting), codes.Unavailable, pb.ErrorCode_ERROR_CODE_UNAVAILABLE, true},
	{is(ErrOverloaded), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_OVERLOADED, true},
	{is(ErrPermissionDenied), codes.PermissionDenied, pb.ErrorCode_ERROR_CODE_PERMISSION_DENIED, false},
	{is(security.ErrDenied), codes.PermissionDenied, pb.ErrorCode_ERROR_CODE_PERMISSION_DENIED, false},
	{is(security.ErrUnauthenticated), codes.Unauthenticated, pb.ErrorCode_ERROR_CODE_UNAUTHENTICATED, false},
	{is(cluster.ErrTLSRequired), codes.Unauthenticated, pb.ErrorCode_ERROR_CODE_UNAUTHENTICATED, false},
	{is(cluster.ErrClientCertificate), codes.Unauthenticated, pb.ErrorCode_ERROR_CODE_UNAUTHENTICATED, false},
	{is(cluster.ErrTooManyConnections), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_LIMIT_EXCEEDED, false},
	{is(ErrLimitExceeded), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_LIMIT_EXCEEDED, false},
	{is(ErrClusterName), codes.PermissionDenied, pb.ErrorCode_ERROR_CODE_CLUSTER_NAME_MISMATCH, false},
	{is(errReplan), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_WRONG_OWNER, false},
	{is(cluster.ErrWrongOwner), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_WRONG_OWNER, true},
	{is(cluster.ErrUnavailable), codes.Unavailable, pb.ErrorCode_ERROR_CODE_UNAVAILABLE, true},
	{is(ErrUnavailable), codes.Unavailable, pb.ErrorCode_ERROR_CODE_UNAVAILABLE, true},
	{is(ErrNotFound), codes.NotFound, pb.ErrorCode_ERROR_CODE_NOT_FOUND, false},
	{is(serialization.ErrUnknownSchema), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_UNKNOWN_SCHEMA, true},
	{is(serialization.ErrUnknownClass), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_UNKNOWN_CLASS, false},
	{is(serialization.ErrMalformed), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA, false},
	{is(serialization.ErrInvalidDefinition), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, false},
	{is(store.ErrInvalidKey), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA, false},
	{is(store.ErrInvalidValue), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_DATA, false},
	{is(store.ErrTooLarge), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_TOO_LARGE, false},
	{is(store.ErrInvalidExpiry), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, false},
	{is(store.ErrPartitionFull), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_OVERLOADED, false},
	{is(maps.ErrInvalidName), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, false},
	{is(maps.ErrMapExists), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, false},
	{is(maps.ErrTooManyMaps), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_LIMIT_EXCEEDED, false},
	{is(ErrInvalidArgument), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, false},
	{is(errConflict), codes.Aborted, pb.ErrorCode_ERROR_CODE_CONFLICT, false},
	{is(ErrNotLockOwner), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_NOT_LOCK_OWNER, false},
	{is(locks.ErrCorrupt), codes.Internal, pb.ErrorCode_ERROR_CODE_INTERNAL, false},
	{is(plan.ErrQuery), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_QUERY, false},
	{is(expr.ErrEval), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_QUERY, false},
	{is(plan.ErrBadFragment), codes.InvalidArgument, pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, false},
	{is(exec.ErrCursorNotFound), codes.NotFound, pb.ErrorCode_ERROR_CODE_NOT_FOUND, false},
	{is(exec.ErrTooManyCursors), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_LIMIT_EXCEEDED, false},
	{is(exec.ErrCorruptRows), codes.Internal, pb.ErrorCode_ERROR_CODE_INTERNAL, false},
	{is(exec.ErrClosed), codes.Unavailable, pb.ErrorCode_ERROR_CODE_SHUTTING_DOWN, true},
	{is(exec.ErrUnavailable), codes.Unavailable, pb.ErrorCode_ERROR_CODE_UNAVAILABLE, true},
	{is(exec.ErrNotPartitionable), codes.FailedPrecondition, pb.ErrorCode_ERROR_CODE_NOT_PARTITIONABLE, false},
	{is(exec.ErrMemoryLimit), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_MEMORY_LIMIT, false},
	{is(exec.ErrMemoryBreaker), codes.ResourceExhausted, pb.ErrorCode_ERROR_CODE_MEMORY_LIMIT, true},
	{is(exec.ErrExchange), codes.Aborted, pb.ErrorCode_ERROR_CODE_UNAVAILABLE, true},
}

// describe maps err to its gRPC code and ErrorDetail.
func describe(err error) (codes.Code, *pb.ErrorDetail) {
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		// Already a status (from a forwarded call): keep its detail.
		for _, d := range s.Details() {
			if detail, ok := d.(*pb.ErrorDetail); ok {
				return s.Code(), detail
			}
		}
		return s.Code(), detailOfCode(s.Code())
	}
	for _, c := range errorTable {
		if c.match(err) {
			d := &pb.ErrorDetail{Code: c.code, Retryable: c.retryable}
			var notFound *serialization.SchemaNotFoundError
			if errors.As(err, &notFound) {
				d.SchemaId = notFound.SchemaID
			}
			var wrong *cluster.WrongOwnerError
			if errors.As(err, &wrong) {
				d.PartitionTableVersion = wrong.TableVersion
			}
			var noClass *serialization.ClassNotFoundError
			if errors.As(err, &noClass) {
				d.FactoryId, d.ClassId, d.ClassVersion = noClass.FactoryID, noClass.ClassID, noClass.Version
			}
			var tl *TooLargeError
			if errors.As(err, &tl) {
				d.Limit = int64(tl.Limit)
			}
			var qe *plan.Error
			if errors.As(err, &qe) {
				d.Line, d.Column = int32(qe.Line), int32(qe.Column)
			}
			var be *exec.BreakerError
			if errors.As(err, &be) {
				d.RetryAfterMs = max(1, be.RetryAfter.Milliseconds())
			}
			var ce *ConflictError
			if errors.As(err, &ce) {
				d.ConflictCause, d.ConflictMap, d.ConflictKey = ce.Cause, ce.Map, ce.Key
			}
			return c.grpc, d
		}
	}
	return codes.Internal, &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_INTERNAL}
}

// detailOfCode describes a status that carries no ErrorDetail (raised by
// gRPC itself on a call to another member: its deadline, a lost
// connection) by its code.
func detailOfCode(c codes.Code) *pb.ErrorDetail {
	switch c {
	case codes.DeadlineExceeded:
		return &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_TIMEOUT}
	case codes.Canceled:
		return &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_CANCELLED}
	case codes.Unavailable:
		return &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_UNAVAILABLE, Retryable: true}
	case codes.ResourceExhausted:
		return &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_OVERLOADED, Retryable: true}
	}
	return &pb.ErrorDetail{Code: pb.ErrorCode_ERROR_CODE_INTERNAL}
}

// toStatus converts err for a unary or streaming call's return value.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	code, detail := describe(err)
	st := status.New(code, err.Error())
	if withDetail, derr := st.WithDetails(detail); derr == nil {
		st = withDetail
	}
	return st.Err()
}

// toPipelineError converts err for a pipeline response.
func toPipelineError(err error) *pb.Error {
	code, detail := describe(err)
	msg := err.Error()
	if s, ok := status.FromError(err); ok {
		msg = s.Message()
	}
	return &pb.Error{GrpcCode: int32(code), Message: msg, Detail: detail}
}
