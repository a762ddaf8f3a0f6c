package client

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// Sentinel errors; every error a member reports is an *Error that matches
// one of them with errors.Is.
var (
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("atoll: client is closed")
	// ErrNoMember: no member could be reached.
	ErrNoMember = errors.New("atoll: no member reachable")
	// ErrInvalidArgument: the member found the request invalid.
	ErrInvalidArgument = errors.New("atoll: invalid argument")
	// ErrInvalidData: a key or value is not valid serialized data.
	ErrInvalidData = errors.New("atoll: invalid data")
	// ErrTooLarge: a request, key or value is over a member's size limit.
	ErrTooLarge = errors.New("atoll: too large")
	// ErrUnknownSchema: the cluster does not know a Compact schema.
	ErrUnknownSchema = errors.New("atoll: unknown compact schema")
	// ErrUnknownClass: the cluster lacks a Portable class definition or an
	// IdentifiedDataSerializable layout it needs.
	ErrUnknownClass = errors.New("atoll: unknown class")
	// ErrWrongOwner: the member does not own the key's partition.
	ErrWrongOwner = errors.New("atoll: wrong partition owner")
	// ErrClusterName: the member belongs to another cluster.
	ErrClusterName = errors.New("atoll: cluster name mismatch")
	// ErrShuttingDown: the member is shutting down.
	ErrShuttingDown = errors.New("atoll: member shutting down")
	// ErrOverloaded: the member refused work to protect itself.
	ErrOverloaded = errors.New("atoll: member overloaded")
	// ErrTimeout: the call's deadline passed.
	ErrTimeout = errors.New("atoll: timeout")
	// ErrQuery: a query or statement is invalid.
	ErrQuery = errors.New("atoll: invalid query")
	// ErrConflict: a transaction conflicted with another one.
	ErrConflict = errors.New("atoll: transaction conflict")
	// ErrMemoryLimit: a query needed more memory than it may take: the
	// members' memory circuit breaker refused or terminated it (a
	// *QueryMemoryError once the query retries are spent), or it passed
	// its own limit (not retryable).
	ErrMemoryLimit = errors.New("atoll: memory limit")
	// ErrUnavailable: the cluster cannot serve the call right now.
	ErrUnavailable = errors.New("atoll: unavailable")
	// ErrCancelled: the call was cancelled.
	ErrCancelled = errors.New("atoll: cancelled")
	// ErrNotFound: a named resource does not exist.
	ErrNotFound = errors.New("atoll: not found")
	// ErrInternal: the member failed unexpectedly.
	ErrInternal = errors.New("atoll: internal error")
	// ErrPermissionDenied: the member refused a call the client may not
	// make on its connection (a call between members, for example).
	ErrPermissionDenied = errors.New("atoll: permission denied")
	// ErrLimitExceeded: a configured limit of the member would be exceeded
	// (the number of maps, open cursors, ...); the message names it.
	ErrLimitExceeded = errors.New("atoll: member limit exceeded")
	// ErrNotLockOwner: Unlock of a key this client holds no lock on.
	ErrNotLockOwner = errors.New("atoll: not the lock's owner")
	// ErrUnauthenticated: the member requires credentials the client did
	// not send or that name no principal (unknown user, wrong password,
	// unknown token or certificate), or it serves TLS and the client
	// connected without (the message says which).
	ErrUnauthenticated = errors.New("atoll: unauthenticated")
)

// errNotPartitionable: a member refused to run a query by partitions
// (its rows are not the union of its partitions'); the client then runs it
// through one member, so no caller sees it.
var errNotPartitionable = errors.New("atoll: the query cannot run by partitions")

// HandshakeError is a TLS handshake with a member that failed: the
// member serves plaintext, or one side did not accept the other's
// certificate. It is not retried.
type HandshakeError struct {
	Member string
	Err    error
}

func (e *HandshakeError) Error() string {
	hint := ""
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case errors.As(e.Err, &unknown):
		hint = " (the member's certificate is not signed by a CA in Config.TLS.RootCAs)"
	case errors.As(e.Err, &hostname):
		hint = " (the member's certificate does not name the address dialed: set Config.TLS.ServerName)"
	case strings.Contains(e.Err.Error(), "handshake failure"):
		hint = " (the member refused the handshake: it serves plaintext, or requires a client certificate this client lacks)"
	}
	return fmt.Sprintf("atoll: TLS handshake with the member at %s failed: %v%s", e.Member, e.Err, hint)
}

// Unwrap returns the handshake's error.
func (e *HandshakeError) Unwrap() error { return e.Err }

var codeErrors = map[pb.ErrorCode]error{
	pb.ErrorCode_ERROR_CODE_INVALID_ARGUMENT:      ErrInvalidArgument,
	pb.ErrorCode_ERROR_CODE_INVALID_DATA:          ErrInvalidData,
	pb.ErrorCode_ERROR_CODE_TOO_LARGE:             ErrTooLarge,
	pb.ErrorCode_ERROR_CODE_UNKNOWN_SCHEMA:        ErrUnknownSchema,
	pb.ErrorCode_ERROR_CODE_UNKNOWN_CLASS:         ErrUnknownClass,
	pb.ErrorCode_ERROR_CODE_WRONG_OWNER:           ErrWrongOwner,
	pb.ErrorCode_ERROR_CODE_CLUSTER_NAME_MISMATCH: ErrClusterName,
	pb.ErrorCode_ERROR_CODE_SHUTTING_DOWN:         ErrShuttingDown,
	pb.ErrorCode_ERROR_CODE_OVERLOADED:            ErrOverloaded,
	pb.ErrorCode_ERROR_CODE_TIMEOUT:               ErrTimeout,
	pb.ErrorCode_ERROR_CODE_QUERY:                 ErrQuery,
	pb.ErrorCode_ERROR_CODE_CONFLICT:              ErrConflict,
	pb.ErrorCode_ERROR_CODE_MEMORY_LIMIT:          ErrMemoryLimit,
	pb.ErrorCode_ERROR_CODE_UNAVAILABLE:           ErrUnavailable,
	pb.ErrorCode_ERROR_CODE_CANCELLED:             ErrCancelled,
	pb.ErrorCode_ERROR_CODE_NOT_FOUND:             ErrNotFound,
	pb.ErrorCode_ERROR_CODE_INTERNAL:              ErrInternal,
	pb.ErrorCode_ERROR_CODE_PERMISSION_DENIED:     ErrPermissionDenied,
	pb.ErrorCode_ERROR_CODE_LIMIT_EXCEEDED:        ErrLimitExceeded,
	pb.ErrorCode_ERROR_CODE_NOT_LOCK_OWNER:        ErrNotLockOwner,
	pb.ErrorCode_ERROR_CODE_UNAUTHENTICATED:       ErrUnauthenticated,
	pb.ErrorCode_ERROR_CODE_NOT_PARTITIONABLE:     errNotPartitionable,
	pb.ErrorCode_ERROR_CODE_UNSPECIFIED:           ErrInternal,
}

// Error is a failure reported by a member.
type Error struct {
	// Member is the address of the member that reported the error.
	Member  string
	Code    codes.Code // the gRPC status code
	Message string
	// Retryable says the same call may succeed later; the client has
	// already retried it as far as its retry policy allows.
	Retryable bool
	// SchemaID is set for ErrUnknownSchema.
	SchemaID int64
	// FactoryID, ClassID and ClassVersion are set for ErrUnknownClass.
	FactoryID, ClassID, ClassVersion int32
	// TableVersion is the member's partition table version (ErrWrongOwner).
	TableVersion int64
	// Line and Column locate an ErrQuery problem (1-based, 0 if unknown).
	Line, Column int32
	// RetryAfter is the least wait the member asks for before a retry
	// (ErrMemoryLimit from the memory circuit breaker).
	RetryAfter time.Duration
	// ConflictCause, ConflictMap and ConflictKey say why a transaction
	// lost a conflict (ErrConflict), and on which key (serialized).
	ConflictCause pb.ConflictCause
	ConflictMap   string
	ConflictKey   []byte

	kind error
	// transport: the call failed on its way (the connection broke), and
	// Message says what happened to the member.
	transport bool
}

func (e *Error) Error() string {
	switch {
	case e.transport && e.Member != "":
		return "atoll: member " + e.Member + " " + e.Message
	case e.Member != "":
		return fmt.Sprintf("atoll: %s (member %s)", e.Message, e.Member)
	}
	return "atoll: " + e.Message
}

// Unwrap returns the sentinel error of the error's kind.
func (e *Error) Unwrap() error { return e.kind }

func errorFromDetail(code codes.Code, msg string, d *pb.ErrorDetail, member string) *Error {
	e := &Error{Member: member, Code: code, Message: msg, kind: ErrInternal}
	if d != nil {
		if k, ok := codeErrors[d.Code]; ok {
			e.kind = k
		}
		e.Retryable = d.Retryable
		e.SchemaID, e.TableVersion = d.SchemaId, d.PartitionTableVersion
		e.FactoryID, e.ClassID, e.ClassVersion = d.FactoryId, d.ClassId, d.ClassVersion
		e.Line, e.Column = d.Line, d.Column
		e.RetryAfter = time.Duration(d.RetryAfterMs) * time.Millisecond
		e.ConflictCause, e.ConflictMap, e.ConflictKey = d.ConflictCause, d.ConflictMap, d.ConflictKey
	}
	return e
}

// errorFromPipeline converts a pipeline response error.
func errorFromPipeline(pe *pb.Error, member string) *Error {
	return errorFromDetail(codes.Code(pe.GrpcCode), pe.Message, pe.Detail, member)
}

// errorFromStatus converts the error of a unary or streaming gRPC call.
// Transport failures (no detail) become ErrUnavailable, retryable.
func errorFromStatus(err error, member string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s, ok := status.FromError(err)
	if !ok {
		return err
	}
	if detail := statusDetail(err); detail != nil {
		return errorFromDetail(s.Code(), s.Message(), detail, member)
	}
	switch s.Code() {
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	case codes.Unavailable:
		return &Error{Member: member, Code: s.Code(), Message: connReason(err), Retryable: true, kind: ErrUnavailable, transport: true}
	}
	return &Error{Member: member, Code: s.Code(), Message: s.Message(), kind: ErrInternal}
}

// statusDetail returns the ErrorDetail of a gRPC status error, or nil.
func statusDetail(err error) *pb.ErrorDetail {
	s, ok := status.FromError(err)
	if !ok {
		return nil
	}
	for _, d := range s.Details() {
		if detail, ok := d.(*pb.ErrorDetail); ok {
			return detail
		}
	}
	return nil
}

// QueryMemoryError reports a query that the members' memory circuit
// breaker refused or terminated on every attempt Config.QueryRetry
// allowed (or until its context ended). It matches ErrMemoryLimit:
//
//	var me *client.QueryMemoryError
//	if errors.As(err, &me) { log.Printf("refused for memory after %d attempts", me.Attempts) }
type QueryMemoryError struct {
	// Attempts is how many times the query was sent.
	Attempts int
	// Last is the members' last refusal.
	Last *Error
	// Cause is the context's error when it ended the retries (nil when
	// they were spent).
	Cause error
}

func (e *QueryMemoryError) Error() string {
	msg := fmt.Sprintf("atoll: query refused for memory after %d attempt(s): %s", e.Attempts, e.Last.Message)
	if e.Cause != nil {
		msg += fmt.Sprintf(" (then %v)", e.Cause)
	}
	return msg
}

// Unwrap returns the last refusal (which matches ErrMemoryLimit) and the
// context's error, if any.
func (e *QueryMemoryError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Last, e.Cause}
	}
	return []error{e.Last}
}

// connError marks a failure of the connection rather than of the call.
// sent says whether the request may have reached the member. Its message
// says in plain words what happened to the member; the transport's own
// error (err) stays in the chain for errors.Is and As, and in debug logs.
type connError struct {
	member string
	sent   bool
	err    error
}

func (e *connError) Error() string { return "atoll: member " + e.member + " " + connReason(e.err) }

func (e *connError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// errMemberLeft fails the calls on a connection to a member that a new
// partition table no longer names.
var errMemberLeft = errors.New("left the cluster: the partition table no longer names it")

// errStreamEnded: the member ended a stream without an error.
var errStreamEnded = errors.New("the member ended the stream")

// connReason says what happened to a member's connection, after "member
// ADDR ", in words a user can act on.
func connReason(err error) string {
	var e *Error
	var dt *connectTimeoutError
	msg := statusText(err)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused the connection: is a member running there?"
	case errors.Is(err, errMemberLeft):
		return errMemberLeft.Error()
	case errors.Is(err, ErrShuttingDown), statusDetail(err).GetCode() == pb.ErrorCode_ERROR_CODE_SHUTTING_DOWN:
		return "is shutting down"
	case errors.As(err, &dt):
		return fmt.Sprintf("did not answer within %v (Config.ConnectTimeout)", dt.after)
	case errors.Is(err, context.DeadlineExceeded):
		return "did not answer in time"
	case strings.Contains(msg, "keepalive"):
		return "stopped answering: no answer to the heartbeat within Config.HeartbeatTimeout"
	case errors.Is(err, io.EOF), errors.Is(err, errStreamEnded), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		strings.Contains(msg, "EOF"), strings.Contains(msg, "connection reset"), strings.Contains(msg, "broken pipe"),
		strings.Contains(msg, "transport is closing"), strings.Contains(msg, "error reading from server"), strings.Contains(msg, "connection closed"):
		return "closed the connection; it may have stopped"
	case errors.As(err, &e):
		return "failed: " + e.Message
	}
	return "is unreachable: " + msg
}

// connectTimeoutError: a member did not answer the client's Connect within
// Config.ConnectTimeout.
type connectTimeoutError struct{ after time.Duration }

func (e *connectTimeoutError) Error() string { return fmt.Sprintf("no answer within %v", e.after) }

func (e *connectTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// statusText is an error's message without gRPC's "rpc error: code = X
// desc = " prefix.
func statusText(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Message()
	}
	return strings.TrimPrefix(err.Error(), "atoll: ")
}

// noMemberError reports that no member could be reached, with each
// address's reason; it matches ErrNoMember and each reason. Its message
// stays short whatever the number of addresses.
type noMemberError struct{ errs []error }

func noMember(errs []error) error { return &noMemberError{errs: errs} }

// maxAddresses is how many addresses a noMemberError names per reason.
const maxAddresses = 5

func (e *noMemberError) Error() string {
	// Addresses are grouped by what happened to them, in order.
	type group struct {
		reason string
		addrs  []string
	}
	var groups []*group
	var others []string
	for _, err := range e.errs {
		var ce *connError
		if !errors.As(err, &ce) {
			others = append(others, strings.TrimPrefix(err.Error(), "atoll: "))
			continue
		}
		r := connReason(ce.err)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.reason == r })
		if i < 0 {
			i = len(groups)
			groups = append(groups, &group{reason: r})
		}
		groups[i].addrs = append(groups[i].addrs, ce.member)
	}
	list := func(addrs []string) string {
		out := strings.Join(addrs[:min(len(addrs), maxAddresses)], ", ")
		if len(addrs) > maxAddresses {
			out += fmt.Sprintf(" and %d more", len(addrs)-maxAddresses)
		}
		return out
	}
	if len(groups) == 1 && len(others) == 0 && errors.Is(e.errs[0], syscall.ECONNREFUSED) {
		return "atoll: no member reachable: every address refused the connection (is a member running there?): " + list(groups[0].addrs)
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, list(g.addrs)+" "+g.reason)
	}
	if len(others) > maxAddresses {
		others = append(others[:maxAddresses], fmt.Sprintf("and %d more", len(others)-maxAddresses))
	}
	return "atoll: no member reachable: " + strings.Join(append(parts, others...), "; ")
}

func (e *noMemberError) Unwrap() []error { return append([]error{ErrNoMember}, e.errs...) }

// deadlineError is the error of a call whose context ended before it
// completed: it matches ErrTimeout (the deadline passed) or ErrCancelled,
// the context's error, and the last failure it met, which its message
// names.
type deadlineError struct {
	ctxErr error
	last   error // nil when the call only waited
}

func (e *deadlineError) Error() string {
	msg := "atoll: the call's deadline passed"
	if errors.Is(e.ctxErr, context.Canceled) {
		msg = "atoll: the call was cancelled"
	}
	if e.last != nil && !errors.Is(e.last, e.ctxErr) {
		msg += "; before, " + strings.TrimPrefix(e.last.Error(), "atoll: ")
	}
	return msg
}

func (e *deadlineError) Unwrap() []error {
	kind := ErrTimeout
	if errors.Is(e.ctxErr, context.Canceled) {
		kind = ErrCancelled
	}
	if e.last != nil {
		return []error{kind, e.ctxErr, e.last}
	}
	return []error{kind, e.ctxErr}
}

// TypeError reports a value that cannot be converted to the map's Go type.
type TypeError struct {
	Map  string
	Want string // Go type of the map's keys or values
	Got  string // Go type the data decoded to
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("atoll: map %q holds a %s where %s was expected", e.Map, e.Got, e.Want)
}
