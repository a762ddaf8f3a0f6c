package io.atoll.client;

import java.time.Duration;

/**
 * A query needed more memory than it may take. When the members' memory circuit breaker
 * refused or terminated it, the exception is retryable and the client has already sent the
 * query again as far as its {@link QueryRetryConfig} allows: {@link #getAttempts()} says how
 * many times it was sent, and the message says it was refused for memory. When the query
 * passed its own limit ({@code query.memory-limit-per-query} or the {@code MEMORY_LIMIT} hint)
 * it is not retryable and was sent once.
 */
public class MemoryLimitException extends AtollException {
    private static final long serialVersionUID = 1L;

    private final int attempts;
    private final Duration retryAfter;

    public MemoryLimitException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        this(message, memberAddress, grpcCode, retryable, cause, 1, Duration.ZERO);
    }

    public MemoryLimitException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause,
                                int attempts, Duration retryAfter) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.attempts = attempts;
        this.retryAfter = retryAfter;
    }

    /** How many times the client sent the query. */
    public int getAttempts() {
        return attempts;
    }

    /** The least wait the member asked for before a retry (zero when it asked for none). */
    public Duration getRetryAfter() {
        return retryAfter;
    }

    /** The same refusal after {@code attempts} attempts. */
    MemoryLimitException afterAttempts(int attempts) {
        return new MemoryLimitException("query refused for memory after " + attempts + " attempt(s): " + rawMessage(),
                getMemberAddress(), getGrpcCode(), isRetryable(), this, attempts, retryAfter);
    }
}
