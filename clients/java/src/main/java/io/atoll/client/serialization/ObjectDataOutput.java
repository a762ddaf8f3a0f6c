package io.atoll.client.serialization;

/**
 * Output of {@link IdentifiedDataSerializable#writeData}. Multi-byte numbers are
 * big-endian; arrays are an int length (-1 for null) followed by the items
 * ({@code boolean[]} uses one byte per item); strings are an int UTF-8 byte length
 * (-1 for null) followed by the bytes. Not thread-safe.
 */
public interface ObjectDataOutput {
    void write(int b);

    void write(byte[] bytes);

    void write(byte[] bytes, int offset, int length);

    void writeBoolean(boolean v);

    void writeByte(int v);

    /** One UTF-16 code unit, 2 bytes. */
    void writeChar(int v);

    void writeShort(int v);

    void writeInt(int v);

    void writeLong(long v);

    /** IEEE-754 bits as {@link Float#floatToIntBits} (NaN canonicalized). */
    void writeFloat(float v);

    /** IEEE-754 bits as {@link Double#doubleToLongBits} (NaN canonicalized). */
    void writeDouble(double v);

    /** Int UTF-8 byte length (-1 for null) + UTF-8 bytes. */
    void writeString(String s);

    void writeByteArray(byte[] v);

    void writeBooleanArray(boolean[] v);

    void writeCharArray(char[] v);

    void writeShortArray(short[] v);

    void writeIntArray(int[] v);

    void writeLongArray(long[] v);

    void writeFloatArray(float[] v);

    void writeDoubleArray(double[] v);

    /** Int length (-1 for null) + one string per item (null items allowed). */
    void writeStringArray(String[] v);

    /**
     * A nested object: int type id + payload (no partition hash word); null is the
     * single int 0. Boxed numbers, strings, arrays, compact, portable and identified
     * objects and generic records are accepted.
     */
    void writeObject(Object object);

    /** Current position, counted from the first byte of the enclosing Data. */
    int position();

    /** A copy of everything written so far. */
    byte[] toByteArray();
}
