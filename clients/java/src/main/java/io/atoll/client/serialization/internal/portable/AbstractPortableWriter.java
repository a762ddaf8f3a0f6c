package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.Portable;
import io.atoll.client.serialization.PortableWriter;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/** All typed {@link PortableWriter} calls funnel into {@link #write(String, FieldType, Object)}. */
public abstract class AbstractPortableWriter implements PortableWriter {

    abstract void write(String fieldName, FieldType type, Object value);

    @Override
    public void writeInt(String fieldName, int value) {
        write(fieldName, FieldType.INT, value);
    }

    @Override
    public void writeLong(String fieldName, long value) {
        write(fieldName, FieldType.LONG, value);
    }

    @Override
    public void writeString(String fieldName, String value) {
        write(fieldName, FieldType.UTF, value);
    }

    @Override
    public void writeBoolean(String fieldName, boolean value) {
        write(fieldName, FieldType.BOOLEAN, value);
    }

    @Override
    public void writeByte(String fieldName, byte value) {
        write(fieldName, FieldType.BYTE, value);
    }

    @Override
    public void writeChar(String fieldName, int value) {
        write(fieldName, FieldType.CHAR, (char) value);
    }

    @Override
    public void writeDouble(String fieldName, double value) {
        write(fieldName, FieldType.DOUBLE, value);
    }

    @Override
    public void writeFloat(String fieldName, float value) {
        write(fieldName, FieldType.FLOAT, value);
    }

    @Override
    public void writeShort(String fieldName, short value) {
        write(fieldName, FieldType.SHORT, value);
    }

    @Override
    public void writeDecimal(String fieldName, BigDecimal value) {
        write(fieldName, FieldType.DECIMAL, value);
    }

    @Override
    public void writeTime(String fieldName, LocalTime value) {
        write(fieldName, FieldType.TIME, value);
    }

    @Override
    public void writeDate(String fieldName, LocalDate value) {
        write(fieldName, FieldType.DATE, value);
    }

    @Override
    public void writeTimestamp(String fieldName, LocalDateTime value) {
        write(fieldName, FieldType.TIMESTAMP, value);
    }

    @Override
    public void writeTimestampWithTimezone(String fieldName, OffsetDateTime value) {
        write(fieldName, FieldType.TIMESTAMP_WITH_TIMEZONE, value);
    }

    @Override
    public void writePortable(String fieldName, Portable portable) {
        write(fieldName, FieldType.PORTABLE, portable);
    }

    @Override
    public void writeByteArray(String fieldName, byte[] value) {
        write(fieldName, FieldType.BYTE_ARRAY, value);
    }

    @Override
    public void writeBooleanArray(String fieldName, boolean[] value) {
        write(fieldName, FieldType.BOOLEAN_ARRAY, value);
    }

    @Override
    public void writeCharArray(String fieldName, char[] value) {
        write(fieldName, FieldType.CHAR_ARRAY, value);
    }

    @Override
    public void writeIntArray(String fieldName, int[] value) {
        write(fieldName, FieldType.INT_ARRAY, value);
    }

    @Override
    public void writeLongArray(String fieldName, long[] value) {
        write(fieldName, FieldType.LONG_ARRAY, value);
    }

    @Override
    public void writeDoubleArray(String fieldName, double[] value) {
        write(fieldName, FieldType.DOUBLE_ARRAY, value);
    }

    @Override
    public void writeFloatArray(String fieldName, float[] value) {
        write(fieldName, FieldType.FLOAT_ARRAY, value);
    }

    @Override
    public void writeShortArray(String fieldName, short[] value) {
        write(fieldName, FieldType.SHORT_ARRAY, value);
    }

    @Override
    public void writeStringArray(String fieldName, String[] value) {
        write(fieldName, FieldType.UTF_ARRAY, value);
    }

    @Override
    public void writeDecimalArray(String fieldName, BigDecimal[] value) {
        write(fieldName, FieldType.DECIMAL_ARRAY, value);
    }

    @Override
    public void writeTimeArray(String fieldName, LocalTime[] value) {
        write(fieldName, FieldType.TIME_ARRAY, value);
    }

    @Override
    public void writeDateArray(String fieldName, LocalDate[] value) {
        write(fieldName, FieldType.DATE_ARRAY, value);
    }

    @Override
    public void writeTimestampArray(String fieldName, LocalDateTime[] value) {
        write(fieldName, FieldType.TIMESTAMP_ARRAY, value);
    }

    @Override
    public void writeTimestampWithTimezoneArray(String fieldName, OffsetDateTime[] value) {
        write(fieldName, FieldType.TIMESTAMP_WITH_TIMEZONE_ARRAY, value);
    }

    @Override
    public void writePortableArray(String fieldName, Portable[] portables) {
        write(fieldName, FieldType.PORTABLE_ARRAY, portables);
    }
}
