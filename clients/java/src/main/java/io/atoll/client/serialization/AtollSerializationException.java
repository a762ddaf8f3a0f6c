package io.atoll.client.serialization;

/**
 * Base class of every error the serialization layer reports: values it cannot
 * serialize, bytes it cannot decode, missing metadata. Decoders never let a
 * lower-level exception (index out of bounds, negative array size, date-time
 * range errors) escape; they throw one of the subclasses instead.
 */
public class AtollSerializationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public AtollSerializationException(String message) {
        super(message);
    }

    public AtollSerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
