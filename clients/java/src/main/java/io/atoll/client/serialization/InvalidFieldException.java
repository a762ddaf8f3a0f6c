package io.atoll.client.serialization;

/**
 * A field was read or written by a name the schema / class definition / layout does
 * not have, with a kind that does not match, or a null was read as a primitive.
 */
public class InvalidFieldException extends AtollSerializationException {
    private static final long serialVersionUID = 1L;

    public InvalidFieldException(String message) {
        super(message);
    }
}
