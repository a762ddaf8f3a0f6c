package io.atoll.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.atoll.client.proto.Error;
import io.atoll.client.proto.ErrorDetail;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;

import javax.net.ssl.SSLException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The one mapping from the protocol's errors to typed exceptions. */
final class Errors {
    private Errors() {
    }

    /** An exception for an ErrorDetail (null detail: internal). */
    static AtollException fromDetail(int grpcCode, String message, ErrorDetail d, String member, String clientCluster, Throwable cause) {
        if (d == null) {
            return new InternalException(message, member, grpcCode, false, cause);
        }
        boolean r = d.getRetryable();
        switch (d.getCode()) {
            case ERROR_CODE_INVALID_ARGUMENT:
                return new InvalidArgumentException(message, member, grpcCode, r, cause);
            case ERROR_CODE_INVALID_DATA:
                return new InvalidDataException(message, member, grpcCode, r, cause);
            case ERROR_CODE_TOO_LARGE:
                return new TooLargeException(message, member, grpcCode, r, cause, d.getLimit());
            case ERROR_CODE_UNKNOWN_SCHEMA:
                return new UnknownCompactSchemaException(message, member, grpcCode, r, cause, d.getSchemaId());
            case ERROR_CODE_UNKNOWN_CLASS:
                return new UnknownClassException(message, member, grpcCode, r, cause, d.getFactoryId(), d.getClassId(), d.getClassVersion());
            case ERROR_CODE_WRONG_OWNER:
                return new WrongOwnerException(message, member, grpcCode, r, cause, d.getPartitionTableVersion());
            case ERROR_CODE_CLUSTER_NAME_MISMATCH:
                return new ClusterNameMismatchException(member, grpcCode, clientCluster, cause);
            case ERROR_CODE_SHUTTING_DOWN:
                return new ShuttingDownException(message, member, grpcCode, r, cause);
            case ERROR_CODE_OVERLOADED:
                return new OverloadedException(message, member, grpcCode, r, cause);
            case ERROR_CODE_TIMEOUT:
                return new OperationTimeoutException(message, member, grpcCode, r, cause);
            case ERROR_CODE_QUERY:
                return new QueryException(message, member, grpcCode, r, cause, d.getLine(), d.getColumn());
            case ERROR_CODE_CONFLICT:
                return new ConflictException(message, member, grpcCode, r, cause, conflictCause(d), d.getConflictMap().isEmpty() ? null : d.getConflictMap());
            case ERROR_CODE_NOT_LOCK_OWNER:
                return new NotLockOwnerException(message, member, grpcCode, cause);
            case ERROR_CODE_MEMORY_LIMIT:
                return new MemoryLimitException(message, member, grpcCode, r, cause, 1, java.time.Duration.ofMillis(d.getRetryAfterMs()));
            case ERROR_CODE_UNAVAILABLE:
                return new UnavailableException(message, member, grpcCode, r, cause);
            case ERROR_CODE_CANCELLED:
                return new OperationCancelledException(message, member, grpcCode, r, cause);
            case ERROR_CODE_NOT_FOUND:
                return new NotFoundException(message, member, grpcCode, r, cause);
            case ERROR_CODE_PERMISSION_DENIED:
                return new PermissionDeniedException(message, member, grpcCode, r, cause);
            case ERROR_CODE_LIMIT_EXCEEDED:
                return new LimitExceededException(message, member, grpcCode, r, cause);
            case ERROR_CODE_UNAUTHENTICATED:
                return new AuthenticationException(message, member, grpcCode, r, cause);
            default:
                return new InternalException(message, member, grpcCode, r, cause);
        }
    }

    private static ConflictException.Cause conflictCause(ErrorDetail d) {
        switch (d.getConflictCause()) {
            case CONFLICT_CAUSE_LOCKED:
                return ConflictException.Cause.LOCKED;
            case CONFLICT_CAUSE_CHANGED:
                return ConflictException.Cause.CHANGED;
            case CONFLICT_CAUSE_ABORTED:
                return ConflictException.Cause.ABORTED;
            default:
                return ConflictException.Cause.UNKNOWN;
        }
    }

    /** The exception of a failed pipeline call. */
    static AtollException fromPipeline(Error e, String member, String clientCluster) {
        return fromDetail(e.getGrpcCode(), e.getMessage(), e.hasDetail() ? e.getDetail() : null, member, clientCluster, null);
    }

    /** The ErrorDetail carried by a gRPC status, or null. */
    static ErrorDetail detailOf(Throwable t) {
        com.google.rpc.Status st = StatusProto.fromThrowable(t);
        if (st == null) {
            return null;
        }
        for (Any any : st.getDetailsList()) {
            if (any.is(ErrorDetail.class)) {
                try {
                    return any.unpack(ErrorDetail.class);
                } catch (InvalidProtocolBufferException e) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * The exception of a failed unary or streaming call. Transport failures without a detail
     * become retryable {@link UnavailableException}s.
     */
    static AtollException fromStatus(Throwable t, String member, String clientCluster) {
        if (t instanceof AtollException) {
            return (AtollException) t;
        }
        Status s = Status.fromThrowable(t);
        SSLException ssl = sslCause(t);
        if (ssl != null && s.getCode() == Status.Code.UNAVAILABLE) {
            return new TlsHandshakeException("TLS handshake with the member at " + member + " failed: " + ssl.getMessage() + tlsHint(ssl), member, t);
        }
        ErrorDetail d = detailOf(t);
        String msg = s.getDescription() != null ? s.getDescription() : s.getCode().toString();
        if (d != null) {
            return fromDetail(s.getCode().value(), msg, d, member, clientCluster, t);
        }
        switch (s.getCode()) {
            case UNAVAILABLE:
                return new UnavailableException(msg, member, s.getCode().value(), true, t);
            case CANCELLED:
                return new OperationCancelledException(msg, member, s.getCode().value(), false, t);
            case DEADLINE_EXCEEDED:
                return new OperationTimeoutException(msg, member, s.getCode().value(), false, t);
            default:
                return new InternalException(msg, member, s.getCode().value(), false, t);
        }
    }

    /**
     * Whether an exception refuses the connection itself — another cluster, missing or wrong
     * credentials, TLS on one side only, a member's limit — so that trying again or another member
     * would not help: connecting fails with it at once.
     */
    static boolean refusesConnection(Throwable t) {
        return t instanceof ClusterNameMismatchException || t instanceof AuthenticationException
                || t instanceof PermissionDeniedException || t instanceof TlsHandshakeException || t instanceof LimitExceededException;
    }

    /** The TLS failure in a transport failure's causes, or null. */
    private static SSLException sslCause(Throwable t) {
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t instanceof SSLException) {
                return (SSLException) t;
            }
            Status s = t instanceof StatusRuntimeException ? ((StatusRuntimeException) t).getStatus()
                    : t instanceof StatusException ? ((StatusException) t).getStatus() : null;
            if (s != null && s.getCause() instanceof SSLException) {
                return (SSLException) s.getCause();
            }
        }
        return null;
    }

    private static String tlsHint(SSLException e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (m.contains("handshake_failure")) {
            return " (the member refused the handshake: it serves plaintext, or requires a client certificate this client lacks)";
        }
        if (m.contains("pkix") || m.contains("certification path") || m.contains("certificate_verify_failed")) {
            return " (the member's certificate is not signed by a trusted CA: check the TlsConfig's CA certificate)";
        }
        if (m.contains("subject alternative") || m.contains("no name matching")) {
            return " (the member's certificate does not name the address dialed)";
        }
        return "";
    }

    /** The cause of a completion or execution exception. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Rethrows what a future failed with, as the synchronous methods do. */
    static RuntimeException rethrow(Throwable t) {
        t = unwrap(t);
        if (t instanceof CancellationException) {
            OperationCancelledException e = new OperationCancelledException("the call was cancelled", null, -1, false, t);
            throw e;
        }
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        }
        if (t instanceof java.lang.Error) {
            throw (java.lang.Error) t;
        }
        throw new AtollException(String.valueOf(t.getMessage()), t);
    }
}
