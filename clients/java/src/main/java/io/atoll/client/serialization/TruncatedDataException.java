package io.atoll.client.serialization;

/** The bytes end (or a length field points) before the value they describe is complete. */
public class TruncatedDataException extends AtollSerializationException {
    private static final long serialVersionUID = 1L;

    public TruncatedDataException(String message) {
        super(message);
    }
}
