package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.PortableReader;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/** All typed {@link PortableReader} calls funnel into {@link #read(String, FieldType)}. */
public abstract class AbstractPortableReader implements PortableReader {

    abstract Object read(String fieldName, FieldType type);

    @Override
    public int readInt(String fieldName) {
        return (Integer) read(fieldName, FieldType.INT);
    }

    @Override
    public long readLong(String fieldName) {
        return (Long) read(fieldName, FieldType.LONG);
    }

    @Override
    public String readString(String fieldName) {
        return (String) read(fieldName, FieldType.UTF);
    }

    @Override
    public boolean readBoolean(String fieldName) {
        return (Boolean) read(fieldName, FieldType.BOOLEAN);
    }

    @Override
    public byte readByte(String fieldName) {
        return (Byte) read(fieldName, FieldType.BYTE);
    }

    @Override
    public char readChar(String fieldName) {
        return (Character) read(fieldName, FieldType.CHAR);
    }

    @Override
    public double readDouble(String fieldName) {
        return (Double) read(fieldName, FieldType.DOUBLE);
    }

    @Override
    public float readFloat(String fieldName) {
        return (Float) read(fieldName, FieldType.FLOAT);
    }

    @Override
    public short readShort(String fieldName) {
        return (Short) read(fieldName, FieldType.SHORT);
    }

    @Override
    public BigDecimal readDecimal(String fieldName) {
        return (BigDecimal) read(fieldName, FieldType.DECIMAL);
    }

    @Override
    public LocalTime readTime(String fieldName) {
        return (LocalTime) read(fieldName, FieldType.TIME);
    }

    @Override
    public LocalDate readDate(String fieldName) {
        return (LocalDate) read(fieldName, FieldType.DATE);
    }

    @Override
    public LocalDateTime readTimestamp(String fieldName) {
        return (LocalDateTime) read(fieldName, FieldType.TIMESTAMP);
    }

    @Override
    public OffsetDateTime readTimestampWithTimezone(String fieldName) {
        return (OffsetDateTime) read(fieldName, FieldType.TIMESTAMP_WITH_TIMEZONE);
    }

    @Override
    public byte[] readByteArray(String fieldName) {
        return (byte[]) read(fieldName, FieldType.BYTE_ARRAY);
    }

    @Override
    public boolean[] readBooleanArray(String fieldName) {
        return (boolean[]) read(fieldName, FieldType.BOOLEAN_ARRAY);
    }

    @Override
    public char[] readCharArray(String fieldName) {
        return (char[]) read(fieldName, FieldType.CHAR_ARRAY);
    }

    @Override
    public int[] readIntArray(String fieldName) {
        return (int[]) read(fieldName, FieldType.INT_ARRAY);
    }

    @Override
    public long[] readLongArray(String fieldName) {
        return (long[]) read(fieldName, FieldType.LONG_ARRAY);
    }

    @Override
    public double[] readDoubleArray(String fieldName) {
        return (double[]) read(fieldName, FieldType.DOUBLE_ARRAY);
    }

    @Override
    public float[] readFloatArray(String fieldName) {
        return (float[]) read(fieldName, FieldType.FLOAT_ARRAY);
    }

    @Override
    public short[] readShortArray(String fieldName) {
        return (short[]) read(fieldName, FieldType.SHORT_ARRAY);
    }

    @Override
    public String[] readStringArray(String fieldName) {
        return (String[]) read(fieldName, FieldType.UTF_ARRAY);
    }

    @Override
    public BigDecimal[] readDecimalArray(String fieldName) {
        return (BigDecimal[]) read(fieldName, FieldType.DECIMAL_ARRAY);
    }

    @Override
    public LocalTime[] readTimeArray(String fieldName) {
        return (LocalTime[]) read(fieldName, FieldType.TIME_ARRAY);
    }

    @Override
    public LocalDate[] readDateArray(String fieldName) {
        return (LocalDate[]) read(fieldName, FieldType.DATE_ARRAY);
    }

    @Override
    public LocalDateTime[] readTimestampArray(String fieldName) {
        return (LocalDateTime[]) read(fieldName, FieldType.TIMESTAMP_ARRAY);
    }

    @Override
    public OffsetDateTime[] readTimestampWithTimezoneArray(String fieldName) {
        return (OffsetDateTime[]) read(fieldName, FieldType.TIMESTAMP_WITH_TIMEZONE_ARRAY);
    }

}
