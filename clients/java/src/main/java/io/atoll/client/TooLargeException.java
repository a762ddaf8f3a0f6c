package io.atoll.client;

/**
 * A request, key or value exceeds a member's size limit. Not retryable.
 */
public class TooLargeException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final long limit;

    public TooLargeException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause, long limit) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.limit = limit;
    }

    /** The limit in bytes that was exceeded (0 when unknown). */
    public long getLimit() {
        return limit;
    }
}
