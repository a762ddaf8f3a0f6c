package io.atoll.client;

/**
 * The member is shutting down. Retryable (on another member, or after a restart).
 */
public class ShuttingDownException extends AtollException {
    private static final long serialVersionUID = 1L;

    public ShuttingDownException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
