package io.atoll.client;

/**
 * The member found the request invalid: a bad map name, a negative limit, an unknown
 * option. Not retryable.
 */
public class InvalidArgumentException extends AtollException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
