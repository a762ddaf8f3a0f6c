package io.atoll.client.serialization;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Set;

/**
 * Reads the fields of a {@link Portable} by name; given to {@link Portable#readPortable}.
 * When the data was written by another version of the class, a field the data lacks
 * reads as its default (0, false, null) and narrower numbers widen (byte to short, int,
 * long, float, double; short, char and int to wider types). With the same version a
 * missing field throws {@link InvalidFieldException}. Not thread-safe.
 */
public interface PortableReader {

    /** Class version of the data being read. */
    int getVersion();

    boolean hasField(String fieldName);

    Set<String> getFieldNames();

    FieldType getFieldType(String fieldName);

    int getFieldClassId(String fieldName);

    int readInt(String fieldName);

    long readLong(String fieldName);

    String readString(String fieldName);

    boolean readBoolean(String fieldName);

    byte readByte(String fieldName);

    char readChar(String fieldName);

    double readDouble(String fieldName);

    float readFloat(String fieldName);

    short readShort(String fieldName);

    BigDecimal readDecimal(String fieldName);

    LocalTime readTime(String fieldName);

    LocalDate readDate(String fieldName);

    LocalDateTime readTimestamp(String fieldName);

    OffsetDateTime readTimestampWithTimezone(String fieldName);

    /** A nested portable created by its factory. */
    <P extends Portable> P readPortable(String fieldName);

    byte[] readByteArray(String fieldName);

    boolean[] readBooleanArray(String fieldName);

    char[] readCharArray(String fieldName);

    int[] readIntArray(String fieldName);

    long[] readLongArray(String fieldName);

    double[] readDoubleArray(String fieldName);

    float[] readFloatArray(String fieldName);

    short[] readShortArray(String fieldName);

    String[] readStringArray(String fieldName);

    BigDecimal[] readDecimalArray(String fieldName);

    LocalTime[] readTimeArray(String fieldName);

    LocalDate[] readDateArray(String fieldName);

    LocalDateTime[] readTimestampArray(String fieldName);

    OffsetDateTime[] readTimestampWithTimezoneArray(String fieldName);

    Portable[] readPortableArray(String fieldName);
}
