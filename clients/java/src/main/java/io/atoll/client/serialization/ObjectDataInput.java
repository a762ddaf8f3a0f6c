package io.atoll.client.serialization;

/**
 * Input of {@link IdentifiedDataSerializable#readData}, the mirror of
 * {@link ObjectDataOutput}. Every read is bounds-checked: reading past the end
 * throws {@link TruncatedDataException}, an invalid length throws
 * {@link MalformedDataException}; array lengths are checked against the remaining
 * bytes before anything is allocated. Not thread-safe.
 */
public interface ObjectDataInput {
    boolean readBoolean();

    byte readByte();

    int readUnsignedByte();

    char readChar();

    short readShort();

    int readUnsignedShort();

    int readInt();

    long readLong();

    float readFloat();

    double readDouble();

    String readString();

    byte[] readByteArray();

    boolean[] readBooleanArray();

    char[] readCharArray();

    short[] readShortArray();

    int[] readIntArray();

    long[] readLongArray();

    float[] readFloatArray();

    double[] readDoubleArray();

    String[] readStringArray();

    /** Reads a nested object written with {@link ObjectDataOutput#writeObject}. */
    <T> T readObject();

    /** Reads a nested object and checks it is an instance of {@code type} (or null). */
    <T> T readObject(Class<T> type);

    void readFully(byte[] bytes);

    void readFully(byte[] bytes, int offset, int length);

    /** Skips up to {@code n} bytes; returns the number skipped. */
    int skipBytes(int n);

    /** Current position, counted from the first byte of the enclosing Data. */
    int position();

    /** Bytes left before the end of the input. */
    int available();
}
