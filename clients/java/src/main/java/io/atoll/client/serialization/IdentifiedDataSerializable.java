package io.atoll.client.serialization;

import java.io.IOException;

/**
 * A class that writes its own fields, in a fixed order, with no names: the most compact
 * and fastest format, readable only by code that knows the order (the class itself, or an
 * {@link IdentifiedLayout} for readers without the class). Instances are created by the
 * {@link DataSerializableFactory} registered for {@link #getFactoryId()}.
 */
public interface IdentifiedDataSerializable {
    int getFactoryId();

    int getClassId();

    void writeData(ObjectDataOutput out) throws IOException;

    void readData(ObjectDataInput in) throws IOException;
}
