package io.atoll.client;

/**
 * A query was rejected or stopped by the member's memory circuit breaker. Retryable with
 * backoff.
 */
public class MemoryLimitException extends AtollException {
    private static final long serialVersionUID = 1L;

    public MemoryLimitException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
