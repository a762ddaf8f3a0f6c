package io.atoll.client.serialization;

/**
 * The bytes are long enough but do not describe a valid value: a negative length,
 * an offset outside its section, overlapping bodies, an unknown field type id,
 * an invalid date, an embedded schema that does not match its id, nesting deeper
 * than the configured limit.
 */
public class MalformedDataException extends AtollSerializationException {
    private static final long serialVersionUID = 1L;

    public MalformedDataException(String message) {
        super(message);
    }

    public MalformedDataException(String message, Throwable cause) {
        super(message, cause);
    }
}
