package io.atoll.client;

/**
 * The call did not complete within its deadline (the invocation timeout, retries included,
 * or the member's own limit).
 */
public class OperationTimeoutException extends AtollException {
    private static final long serialVersionUID = 1L;

    public OperationTimeoutException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
