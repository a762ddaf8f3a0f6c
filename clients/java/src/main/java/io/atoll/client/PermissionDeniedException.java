package io.atoll.client;

/**
 * The member refused a call the client may not make on its connection (for example a call between
 * members from a client). Not retryable.
 */
public class PermissionDeniedException extends AtollException {
    private static final long serialVersionUID = 1L;

    public PermissionDeniedException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
