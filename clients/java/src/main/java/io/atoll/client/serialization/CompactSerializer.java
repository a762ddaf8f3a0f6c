package io.atoll.client.serialization;

/**
 * Reads and writes one class in the compact format. Register it with
 * {@link SerializationConfig#addCompactSerializer}. The type name is part of the schema
 * id and must be the same in every client and language that shares the data.
 *
 * @param <T> the class
 */
public interface CompactSerializer<T> {
    /** Builds a value from the reader; fields may be read in any order. */
    T read(CompactReader reader);

    /** Writes the value's fields; always the same fields in the same order. */
    void write(CompactWriter writer, T object);

    /** The type name stored in the schema. */
    String getTypeName();

    /** The class this serializer handles. */
    Class<T> getCompactClass();
}
