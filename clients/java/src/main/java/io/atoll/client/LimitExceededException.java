package io.atoll.client;

/**
 * A configured limit of the member would be exceeded, such as the number of maps or of open cursors:
 * the message names the limit and its configuration key. Retrying helps only once something was
 * released (a map destroyed, a cursor closed).
 */
public class LimitExceededException extends AtollException {
    private static final long serialVersionUID = 1L;

    public LimitExceededException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
