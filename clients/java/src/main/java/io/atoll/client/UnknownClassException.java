package io.atoll.client;

/**
 * The cluster lacks a Portable class definition or an IdentifiedDataSerializable layout it
 * needs.
 */
public class UnknownClassException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final int factoryId;
    private final int classId;
    private final int classVersion;

    public UnknownClassException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause, int factoryId, int classId, int classVersion) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.factoryId = factoryId;
        this.classId = classId;
        this.classVersion = classVersion;
    }

    /** Factory id of the class. */
    public int getFactoryId() {
        return factoryId;
    }

    /** Class id. */
    public int getClassId() {
        return classId;
    }

    /** Version of the Portable class (0 for identified classes). */
    public int getClassVersion() {
        return classVersion;
    }
}
