package io.atoll.client;

/**
 * The call was cancelled (or the calling thread was interrupted while it waited).
 */
public class OperationCancelledException extends AtollException {
    private static final long serialVersionUID = 1L;

    public OperationCancelledException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
