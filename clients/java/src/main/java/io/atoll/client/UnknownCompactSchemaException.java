package io.atoll.client;

/**
 * The cluster does not know the Compact schema some data refers to. The client publishes
 * the schemas it defines before it writes and again when a member reports this, so callers see
 * it only for data built with a schema the client cannot publish.
 */
public class UnknownCompactSchemaException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final long schemaId;

    public UnknownCompactSchemaException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause, long schemaId) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.schemaId = schemaId;
    }

    /** The unknown schema id. */
    public long getSchemaId() {
        return schemaId;
    }
}
