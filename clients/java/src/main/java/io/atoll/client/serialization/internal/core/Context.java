package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.SchemaRegistry;
import io.atoll.client.serialization.internal.compact.CompactCodec;

/**
 * What the format codecs need of the serialization service, which knows every format:
 * the schema registry, the depth limits, the Compact codec (whose records turn into the
 * classes registered for their type names), and values of any format nested with
 * writeObject (IdentifiedDataSerializable's writeObject fields: compact objects nest
 * compact objects, portable objects portable ones). The service implements it with an
 * object of its own, so these internals are not methods of its API.
 */
public interface Context {
    SchemaRegistry getSchemaRegistry();

    /** Fails with a MalformedDataException when a value being read nests deeper than allowed. */
    void checkDepth(int depth);

    /** Fails when a value being written nests deeper than allowed (a cycle?). */
    void checkWriteDepth(int depth);

    CompactCodec compact();

    /** Writes a nested object: int type id + payload, or int 0 for null. */
    void writeObject(BufferOutput out, Object obj);

    /** Reads a nested object written by {@link #writeObject}. */
    Object readObject(BufferInput in);
}
