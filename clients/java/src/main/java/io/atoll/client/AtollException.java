package io.atoll.client;

/**
 * Base class of every failure the client reports: errors the members return (one subclass
 * per {@code ErrorCode} of the protocol), lost connections, timeouts, and a closed client.
 * Serialization problems on the client side are {@link io.atoll.client.serialization.AtollSerializationException}s;
 * null keys and values are {@link NullPointerException}s, invalid arguments such as a negative
 * TTL {@link IllegalArgumentException}s.
 *
 * <p>An exception carries the address of the member that reported it (null when no member
 * was involved), the gRPC status code of the call ({@code -1} when there was none), and
 * whether the same call may succeed if tried again. By the time an exception reaches the
 * caller the client has already retried as far as its {@link RetryConfig} allows.
 */
public class AtollException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String memberAddress;
    private final int grpcCode;
    private final boolean retryable;

    public AtollException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, cause);
        this.memberAddress = memberAddress;
        this.grpcCode = grpcCode;
        this.retryable = retryable;
    }

    public AtollException(String message) {
        this(message, null, -1, false, null);
    }

    public AtollException(String message, Throwable cause) {
        this(message, null, -1, false, cause);
    }

    /** Address (host:port) of the member that reported the error, or null. */
    public String getMemberAddress() {
        return memberAddress;
    }

    /** The gRPC status code of the failed call, or -1 when the failure was not a call's. */
    public int getGrpcCode() {
        return grpcCode;
    }

    /** Whether the same call may succeed later (after backoff, a table refresh, a schema registration). */
    public boolean isRetryable() {
        return retryable;
    }

    @Override
    public String getMessage() {
        String m = super.getMessage();
        if (memberAddress == null || m == null || m.contains("member " + memberAddress)) {
            return m; // each fact once
        }
        return m + " (member " + memberAddress + ")";
    }

    /** The message without the member's address. */
    String rawMessage() {
        return super.getMessage();
    }
}
