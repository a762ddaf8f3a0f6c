package io.atoll.client.serialization;

/** Creates empty {@link IdentifiedDataSerializable} instances of one factory id by class id. */
@FunctionalInterface
public interface DataSerializableFactory {
    /** A new instance, or null if the class id is unknown. */
    IdentifiedDataSerializable create(int typeId);
}
