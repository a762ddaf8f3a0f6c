package io.atoll.client;

/**
 * The member does not own the key's partition. The client refreshes its partition table and
 * retries, so callers see it only when ownership kept moving until the deadline.
 */
public class WrongOwnerException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final long partitionTableVersion;

    public WrongOwnerException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause, long partitionTableVersion) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.partitionTableVersion = partitionTableVersion;
    }

    /** The member's partition table version. */
    public long getPartitionTableVersion() {
        return partitionTableVersion;
    }
}
