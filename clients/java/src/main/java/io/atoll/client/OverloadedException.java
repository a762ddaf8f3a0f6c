package io.atoll.client;

/**
 * The member refused work to protect itself (too many calls in flight, a full partition).
 */
public class OverloadedException extends AtollException {
    private static final long serialVersionUID = 1L;

    public OverloadedException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
