package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.CompactWriter;
import io.atoll.client.serialization.FieldKind;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/** All typed {@link CompactWriter} calls funnel into {@link #write(String, FieldKind, Object)}. */
public abstract class AbstractCompactWriter implements CompactWriter {

    abstract void write(String fieldName, FieldKind kind, Object value);

    @Override
    public void writeBoolean(String fieldName, boolean value) {
        write(fieldName, FieldKind.BOOLEAN, value);
    }

    @Override
    public void writeInt8(String fieldName, byte value) {
        write(fieldName, FieldKind.INT8, value);
    }

    @Override
    public void writeInt16(String fieldName, short value) {
        write(fieldName, FieldKind.INT16, value);
    }

    @Override
    public void writeInt32(String fieldName, int value) {
        write(fieldName, FieldKind.INT32, value);
    }

    @Override
    public void writeInt64(String fieldName, long value) {
        write(fieldName, FieldKind.INT64, value);
    }

    @Override
    public void writeFloat32(String fieldName, float value) {
        write(fieldName, FieldKind.FLOAT32, value);
    }

    @Override
    public void writeFloat64(String fieldName, double value) {
        write(fieldName, FieldKind.FLOAT64, value);
    }

    @Override
    public void writeString(String fieldName, String value) {
        write(fieldName, FieldKind.STRING, value);
    }

    @Override
    public void writeDecimal(String fieldName, BigDecimal value) {
        write(fieldName, FieldKind.DECIMAL, value);
    }

    @Override
    public void writeTime(String fieldName, LocalTime value) {
        write(fieldName, FieldKind.TIME, value);
    }

    @Override
    public void writeDate(String fieldName, LocalDate value) {
        write(fieldName, FieldKind.DATE, value);
    }

    @Override
    public void writeTimestamp(String fieldName, LocalDateTime value) {
        write(fieldName, FieldKind.TIMESTAMP, value);
    }

    @Override
    public void writeTimestampWithTimezone(String fieldName, OffsetDateTime value) {
        write(fieldName, FieldKind.TIMESTAMP_WITH_TIMEZONE, value);
    }

    @Override
    public void writeArrayOfBoolean(String fieldName, boolean[] value) {
        write(fieldName, FieldKind.ARRAY_OF_BOOLEAN, value);
    }

    @Override
    public void writeArrayOfInt8(String fieldName, byte[] value) {
        write(fieldName, FieldKind.ARRAY_OF_INT8, value);
    }

    @Override
    public void writeArrayOfInt16(String fieldName, short[] value) {
        write(fieldName, FieldKind.ARRAY_OF_INT16, value);
    }

    @Override
    public void writeArrayOfInt32(String fieldName, int[] value) {
        write(fieldName, FieldKind.ARRAY_OF_INT32, value);
    }

    @Override
    public void writeArrayOfInt64(String fieldName, long[] value) {
        write(fieldName, FieldKind.ARRAY_OF_INT64, value);
    }

    @Override
    public void writeArrayOfFloat32(String fieldName, float[] value) {
        write(fieldName, FieldKind.ARRAY_OF_FLOAT32, value);
    }

    @Override
    public void writeArrayOfFloat64(String fieldName, double[] value) {
        write(fieldName, FieldKind.ARRAY_OF_FLOAT64, value);
    }

    @Override
    public void writeArrayOfString(String fieldName, String[] value) {
        write(fieldName, FieldKind.ARRAY_OF_STRING, value);
    }

    @Override
    public void writeArrayOfDecimal(String fieldName, BigDecimal[] value) {
        write(fieldName, FieldKind.ARRAY_OF_DECIMAL, value);
    }

    @Override
    public void writeArrayOfTime(String fieldName, LocalTime[] value) {
        write(fieldName, FieldKind.ARRAY_OF_TIME, value);
    }

    @Override
    public void writeArrayOfDate(String fieldName, LocalDate[] value) {
        write(fieldName, FieldKind.ARRAY_OF_DATE, value);
    }

    @Override
    public void writeArrayOfTimestamp(String fieldName, LocalDateTime[] value) {
        write(fieldName, FieldKind.ARRAY_OF_TIMESTAMP, value);
    }

    @Override
    public void writeArrayOfTimestampWithTimezone(String fieldName, OffsetDateTime[] value) {
        write(fieldName, FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE, value);
    }

    @Override
    public void writeNullableBoolean(String fieldName, Boolean value) {
        write(fieldName, FieldKind.NULLABLE_BOOLEAN, value);
    }

    @Override
    public void writeNullableInt8(String fieldName, Byte value) {
        write(fieldName, FieldKind.NULLABLE_INT8, value);
    }

    @Override
    public void writeNullableInt16(String fieldName, Short value) {
        write(fieldName, FieldKind.NULLABLE_INT16, value);
    }

    @Override
    public void writeNullableInt32(String fieldName, Integer value) {
        write(fieldName, FieldKind.NULLABLE_INT32, value);
    }

    @Override
    public void writeNullableInt64(String fieldName, Long value) {
        write(fieldName, FieldKind.NULLABLE_INT64, value);
    }

    @Override
    public void writeNullableFloat32(String fieldName, Float value) {
        write(fieldName, FieldKind.NULLABLE_FLOAT32, value);
    }

    @Override
    public void writeNullableFloat64(String fieldName, Double value) {
        write(fieldName, FieldKind.NULLABLE_FLOAT64, value);
    }

    @Override
    public void writeArrayOfNullableBoolean(String fieldName, Boolean[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_BOOLEAN, value);
    }

    @Override
    public void writeArrayOfNullableInt8(String fieldName, Byte[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT8, value);
    }

    @Override
    public void writeArrayOfNullableInt16(String fieldName, Short[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT16, value);
    }

    @Override
    public void writeArrayOfNullableInt32(String fieldName, Integer[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT32, value);
    }

    @Override
    public void writeArrayOfNullableInt64(String fieldName, Long[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT64, value);
    }

    @Override
    public void writeArrayOfNullableFloat32(String fieldName, Float[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT32, value);
    }

    @Override
    public void writeArrayOfNullableFloat64(String fieldName, Double[] value) {
        write(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT64, value);
    }

    @Override
    public <T> void writeCompact(String fieldName, T value) {
        write(fieldName, FieldKind.COMPACT, value);
    }

    @Override
    public <T> void writeArrayOfCompact(String fieldName, T[] value) {
        write(fieldName, FieldKind.ARRAY_OF_COMPACT, value);
    }
}
