package io.atoll.client;

/**
 * A transaction lost a conflict with another one; retry the transaction.
 */
public class ConflictException extends AtollException {
    private static final long serialVersionUID = 1L;

    public ConflictException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
