package io.atoll.client;

/**
 * A key or value is not valid serialized data (or is empty). Not retryable.
 */
public class InvalidDataException extends AtollException {
    private static final long serialVersionUID = 1L;

    public InvalidDataException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
