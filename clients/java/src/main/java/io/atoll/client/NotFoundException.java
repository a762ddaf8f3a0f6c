package io.atoll.client;

/**
 * A named resource (a cursor, a listener) does not exist.
 */
public class NotFoundException extends AtollException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
