package io.atoll.client.serialization;

/**
 * Compact data refers to a schema id the {@link SchemaRegistry} does not know. A client
 * fetches the schema from the cluster and retries; see {@link SchemaRegistry#setSource}.
 */
public class UnknownSchemaException extends AtollSerializationException {
    private static final long serialVersionUID = 1L;
    private final long schemaId;

    public UnknownSchemaException(long schemaId) {
        super("unknown compact schema id " + schemaId + " (0x" + String.format("%016x", schemaId) + ")");
        this.schemaId = schemaId;
    }

    public long getSchemaId() {
        return schemaId;
    }
}
