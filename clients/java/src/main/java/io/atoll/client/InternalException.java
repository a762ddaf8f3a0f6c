package io.atoll.client;

/**
 * A bug or an unexpected condition on the member, or an error the client does not know.
 */
public class InternalException extends AtollException {
    private static final long serialVersionUID = 1L;

    public InternalException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
