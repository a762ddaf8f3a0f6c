package io.atoll.client;

/**
 * The cluster cannot serve the call right now: it lacks members or partitions, or no member
 * could be reached.
 */
public class UnavailableException extends AtollException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
