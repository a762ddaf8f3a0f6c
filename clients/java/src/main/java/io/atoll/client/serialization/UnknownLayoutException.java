package io.atoll.client.serialization;

/**
 * Identified data names a (factory id, class id) that has neither a registered
 * {@link DataSerializableFactory} nor an {@link IdentifiedLayout}. A client fetches the
 * layout from the cluster, registers it with {@link SerializationService#registerIdentifiedLayout}
 * and reads again.
 */
public class UnknownLayoutException extends UnknownTypeException {
    private static final long serialVersionUID = 1L;
    private final int factoryId;
    private final int classId;

    public UnknownLayoutException(int factoryId, int classId, String message) {
        super(message);
        this.factoryId = factoryId;
        this.classId = classId;
    }

    public int getFactoryId() {
        return factoryId;
    }

    public int getClassId() {
        return classId;
    }
}
