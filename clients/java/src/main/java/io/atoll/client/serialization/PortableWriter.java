package io.atoll.client.serialization;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * Writes the fields of a {@link Portable}; given to {@link Portable#writePortable}.
 * Each field of the class definition is written exactly once. Field names must be ASCII.
 * Not thread-safe.
 */
public interface PortableWriter {

    void writeInt(String fieldName, int value);

    void writeLong(String fieldName, long value);

    void writeString(String fieldName, String value);

    void writeBoolean(String fieldName, boolean value);

    void writeByte(String fieldName, byte value);

    void writeChar(String fieldName, int value);

    void writeDouble(String fieldName, double value);

    void writeFloat(String fieldName, float value);

    void writeShort(String fieldName, short value);

    void writeDecimal(String fieldName, BigDecimal value);

    void writeTime(String fieldName, LocalTime value);

    void writeDate(String fieldName, LocalDate value);

    void writeTimestamp(String fieldName, LocalDateTime value);

    void writeTimestampWithTimezone(String fieldName, OffsetDateTime value);

    /** A nested portable (or null, if the class definition is registered). */
    void writePortable(String fieldName, Portable portable);

    /** A null nested portable of the given class; its class definition must be registered. */
    void writeNullPortable(String fieldName, int factoryId, int classId);

    void writeByteArray(String fieldName, byte[] value);

    void writeBooleanArray(String fieldName, boolean[] value);

    void writeCharArray(String fieldName, char[] value);

    void writeIntArray(String fieldName, int[] value);

    void writeLongArray(String fieldName, long[] value);

    void writeDoubleArray(String fieldName, double[] value);

    void writeFloatArray(String fieldName, float[] value);

    void writeShortArray(String fieldName, short[] value);

    void writeStringArray(String fieldName, String[] value);

    void writeDecimalArray(String fieldName, BigDecimal[] value);

    void writeTimeArray(String fieldName, LocalTime[] value);

    void writeDateArray(String fieldName, LocalDate[] value);

    void writeTimestampArray(String fieldName, LocalDateTime[] value);

    void writeTimestampWithTimezoneArray(String fieldName, OffsetDateTime[] value);

    /** An array of nested portables of one class; items cannot be null. */
    void writePortableArray(String fieldName, Portable[] portables);
}
