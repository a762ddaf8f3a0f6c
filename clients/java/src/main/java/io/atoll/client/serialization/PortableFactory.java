package io.atoll.client.serialization;

/** Creates empty {@link Portable} instances of one factory id by class id. */
@FunctionalInterface
public interface PortableFactory {
    /** A new instance, or null if the class id is unknown (the value then decodes to a {@link GenericRecord}). */
    Portable create(int classId);
}
