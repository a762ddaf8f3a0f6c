package io.atoll.client.serialization;

/**
 * No serializer, factory, class definition or layout is registered for a value:
 * an unsupported Java class on the write side, or a type id / factory id / class id
 * with nothing to decode it on the read side.
 */
public class UnknownTypeException extends AtollSerializationException {
    private static final long serialVersionUID = 1L;

    public UnknownTypeException(String message) {
        super(message);
    }
}
