package io.atoll.client.serialization;

import java.io.IOException;

/**
 * A class serialized in the portable format: named, typed fields with a field table,
 * readable by name across class versions. Instances are created by the
 * {@link PortableFactory} registered for {@link #getFactoryId()}.
 */
public interface Portable {
    int getFactoryId();

    int getClassId();

    /** Writes every field of the class definition, each once. */
    void writePortable(PortableWriter writer) throws IOException;

    /** Reads fields by name, in any order. */
    void readPortable(PortableReader reader) throws IOException;
}
