package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.CompactReader;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.internal.core.Kinds;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/** All typed {@link CompactReader} calls funnel into {@link #read(String, FieldKind)}. */
public abstract class AbstractCompactReader implements CompactReader {

    abstract Object read(String fieldName, FieldKind kind);

    /** Whether the writer's schema has the field with a kind readable as {@code kind}. */
    final boolean readable(String fieldName, FieldKind kind) {
        FieldKind actual = getFieldKind(fieldName);
        return actual != FieldKind.NOT_AVAILABLE && Kinds.compatible(actual, kind);
    }

    @Override
    public boolean readBoolean(String fieldName) {
        return (Boolean) read(fieldName, FieldKind.BOOLEAN);
    }

    @Override
    public boolean readBoolean(String fieldName, boolean defaultValue) {
        return readable(fieldName, FieldKind.BOOLEAN) ? readBoolean(fieldName) : defaultValue;
    }

    @Override
    public byte readInt8(String fieldName) {
        return (Byte) read(fieldName, FieldKind.INT8);
    }

    @Override
    public byte readInt8(String fieldName, byte defaultValue) {
        return readable(fieldName, FieldKind.INT8) ? readInt8(fieldName) : defaultValue;
    }

    @Override
    public short readInt16(String fieldName) {
        return (Short) read(fieldName, FieldKind.INT16);
    }

    @Override
    public short readInt16(String fieldName, short defaultValue) {
        return readable(fieldName, FieldKind.INT16) ? readInt16(fieldName) : defaultValue;
    }

    @Override
    public int readInt32(String fieldName) {
        return (Integer) read(fieldName, FieldKind.INT32);
    }

    @Override
    public int readInt32(String fieldName, int defaultValue) {
        return readable(fieldName, FieldKind.INT32) ? readInt32(fieldName) : defaultValue;
    }

    @Override
    public long readInt64(String fieldName) {
        return (Long) read(fieldName, FieldKind.INT64);
    }

    @Override
    public long readInt64(String fieldName, long defaultValue) {
        return readable(fieldName, FieldKind.INT64) ? readInt64(fieldName) : defaultValue;
    }

    @Override
    public float readFloat32(String fieldName) {
        return (Float) read(fieldName, FieldKind.FLOAT32);
    }

    @Override
    public float readFloat32(String fieldName, float defaultValue) {
        return readable(fieldName, FieldKind.FLOAT32) ? readFloat32(fieldName) : defaultValue;
    }

    @Override
    public double readFloat64(String fieldName) {
        return (Double) read(fieldName, FieldKind.FLOAT64);
    }

    @Override
    public double readFloat64(String fieldName, double defaultValue) {
        return readable(fieldName, FieldKind.FLOAT64) ? readFloat64(fieldName) : defaultValue;
    }

    @Override
    public String readString(String fieldName) {
        return (String) read(fieldName, FieldKind.STRING);
    }

    @Override
    public String readString(String fieldName, String defaultValue) {
        return readable(fieldName, FieldKind.STRING) ? readString(fieldName) : defaultValue;
    }

    @Override
    public BigDecimal readDecimal(String fieldName) {
        return (BigDecimal) read(fieldName, FieldKind.DECIMAL);
    }

    @Override
    public BigDecimal readDecimal(String fieldName, BigDecimal defaultValue) {
        return readable(fieldName, FieldKind.DECIMAL) ? readDecimal(fieldName) : defaultValue;
    }

    @Override
    public LocalTime readTime(String fieldName) {
        return (LocalTime) read(fieldName, FieldKind.TIME);
    }

    @Override
    public LocalTime readTime(String fieldName, LocalTime defaultValue) {
        return readable(fieldName, FieldKind.TIME) ? readTime(fieldName) : defaultValue;
    }

    @Override
    public LocalDate readDate(String fieldName) {
        return (LocalDate) read(fieldName, FieldKind.DATE);
    }

    @Override
    public LocalDate readDate(String fieldName, LocalDate defaultValue) {
        return readable(fieldName, FieldKind.DATE) ? readDate(fieldName) : defaultValue;
    }

    @Override
    public LocalDateTime readTimestamp(String fieldName) {
        return (LocalDateTime) read(fieldName, FieldKind.TIMESTAMP);
    }

    @Override
    public LocalDateTime readTimestamp(String fieldName, LocalDateTime defaultValue) {
        return readable(fieldName, FieldKind.TIMESTAMP) ? readTimestamp(fieldName) : defaultValue;
    }

    @Override
    public OffsetDateTime readTimestampWithTimezone(String fieldName) {
        return (OffsetDateTime) read(fieldName, FieldKind.TIMESTAMP_WITH_TIMEZONE);
    }

    @Override
    public OffsetDateTime readTimestampWithTimezone(String fieldName, OffsetDateTime defaultValue) {
        return readable(fieldName, FieldKind.TIMESTAMP_WITH_TIMEZONE) ? readTimestampWithTimezone(fieldName) : defaultValue;
    }

    @Override
    public boolean[] readArrayOfBoolean(String fieldName) {
        return (boolean[]) read(fieldName, FieldKind.ARRAY_OF_BOOLEAN);
    }

    @Override
    public boolean[] readArrayOfBoolean(String fieldName, boolean[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_BOOLEAN) ? readArrayOfBoolean(fieldName) : defaultValue;
    }

    @Override
    public byte[] readArrayOfInt8(String fieldName) {
        return (byte[]) read(fieldName, FieldKind.ARRAY_OF_INT8);
    }

    @Override
    public byte[] readArrayOfInt8(String fieldName, byte[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_INT8) ? readArrayOfInt8(fieldName) : defaultValue;
    }

    @Override
    public short[] readArrayOfInt16(String fieldName) {
        return (short[]) read(fieldName, FieldKind.ARRAY_OF_INT16);
    }

    @Override
    public short[] readArrayOfInt16(String fieldName, short[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_INT16) ? readArrayOfInt16(fieldName) : defaultValue;
    }

    @Override
    public int[] readArrayOfInt32(String fieldName) {
        return (int[]) read(fieldName, FieldKind.ARRAY_OF_INT32);
    }

    @Override
    public int[] readArrayOfInt32(String fieldName, int[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_INT32) ? readArrayOfInt32(fieldName) : defaultValue;
    }

    @Override
    public long[] readArrayOfInt64(String fieldName) {
        return (long[]) read(fieldName, FieldKind.ARRAY_OF_INT64);
    }

    @Override
    public long[] readArrayOfInt64(String fieldName, long[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_INT64) ? readArrayOfInt64(fieldName) : defaultValue;
    }

    @Override
    public float[] readArrayOfFloat32(String fieldName) {
        return (float[]) read(fieldName, FieldKind.ARRAY_OF_FLOAT32);
    }

    @Override
    public float[] readArrayOfFloat32(String fieldName, float[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_FLOAT32) ? readArrayOfFloat32(fieldName) : defaultValue;
    }

    @Override
    public double[] readArrayOfFloat64(String fieldName) {
        return (double[]) read(fieldName, FieldKind.ARRAY_OF_FLOAT64);
    }

    @Override
    public double[] readArrayOfFloat64(String fieldName, double[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_FLOAT64) ? readArrayOfFloat64(fieldName) : defaultValue;
    }

    @Override
    public String[] readArrayOfString(String fieldName) {
        return (String[]) read(fieldName, FieldKind.ARRAY_OF_STRING);
    }

    @Override
    public String[] readArrayOfString(String fieldName, String[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_STRING) ? readArrayOfString(fieldName) : defaultValue;
    }

    @Override
    public BigDecimal[] readArrayOfDecimal(String fieldName) {
        return (BigDecimal[]) read(fieldName, FieldKind.ARRAY_OF_DECIMAL);
    }

    @Override
    public BigDecimal[] readArrayOfDecimal(String fieldName, BigDecimal[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_DECIMAL) ? readArrayOfDecimal(fieldName) : defaultValue;
    }

    @Override
    public LocalTime[] readArrayOfTime(String fieldName) {
        return (LocalTime[]) read(fieldName, FieldKind.ARRAY_OF_TIME);
    }

    @Override
    public LocalTime[] readArrayOfTime(String fieldName, LocalTime[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_TIME) ? readArrayOfTime(fieldName) : defaultValue;
    }

    @Override
    public LocalDate[] readArrayOfDate(String fieldName) {
        return (LocalDate[]) read(fieldName, FieldKind.ARRAY_OF_DATE);
    }

    @Override
    public LocalDate[] readArrayOfDate(String fieldName, LocalDate[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_DATE) ? readArrayOfDate(fieldName) : defaultValue;
    }

    @Override
    public LocalDateTime[] readArrayOfTimestamp(String fieldName) {
        return (LocalDateTime[]) read(fieldName, FieldKind.ARRAY_OF_TIMESTAMP);
    }

    @Override
    public LocalDateTime[] readArrayOfTimestamp(String fieldName, LocalDateTime[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_TIMESTAMP) ? readArrayOfTimestamp(fieldName) : defaultValue;
    }

    @Override
    public OffsetDateTime[] readArrayOfTimestampWithTimezone(String fieldName) {
        return (OffsetDateTime[]) read(fieldName, FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE);
    }

    @Override
    public OffsetDateTime[] readArrayOfTimestampWithTimezone(String fieldName, OffsetDateTime[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE) ? readArrayOfTimestampWithTimezone(fieldName) : defaultValue;
    }

    @Override
    public Boolean readNullableBoolean(String fieldName) {
        return (Boolean) read(fieldName, FieldKind.NULLABLE_BOOLEAN);
    }

    @Override
    public Boolean readNullableBoolean(String fieldName, Boolean defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_BOOLEAN) ? readNullableBoolean(fieldName) : defaultValue;
    }

    @Override
    public Byte readNullableInt8(String fieldName) {
        return (Byte) read(fieldName, FieldKind.NULLABLE_INT8);
    }

    @Override
    public Byte readNullableInt8(String fieldName, Byte defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_INT8) ? readNullableInt8(fieldName) : defaultValue;
    }

    @Override
    public Short readNullableInt16(String fieldName) {
        return (Short) read(fieldName, FieldKind.NULLABLE_INT16);
    }

    @Override
    public Short readNullableInt16(String fieldName, Short defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_INT16) ? readNullableInt16(fieldName) : defaultValue;
    }

    @Override
    public Integer readNullableInt32(String fieldName) {
        return (Integer) read(fieldName, FieldKind.NULLABLE_INT32);
    }

    @Override
    public Integer readNullableInt32(String fieldName, Integer defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_INT32) ? readNullableInt32(fieldName) : defaultValue;
    }

    @Override
    public Long readNullableInt64(String fieldName) {
        return (Long) read(fieldName, FieldKind.NULLABLE_INT64);
    }

    @Override
    public Long readNullableInt64(String fieldName, Long defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_INT64) ? readNullableInt64(fieldName) : defaultValue;
    }

    @Override
    public Float readNullableFloat32(String fieldName) {
        return (Float) read(fieldName, FieldKind.NULLABLE_FLOAT32);
    }

    @Override
    public Float readNullableFloat32(String fieldName, Float defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_FLOAT32) ? readNullableFloat32(fieldName) : defaultValue;
    }

    @Override
    public Double readNullableFloat64(String fieldName) {
        return (Double) read(fieldName, FieldKind.NULLABLE_FLOAT64);
    }

    @Override
    public Double readNullableFloat64(String fieldName, Double defaultValue) {
        return readable(fieldName, FieldKind.NULLABLE_FLOAT64) ? readNullableFloat64(fieldName) : defaultValue;
    }

    @Override
    public Boolean[] readArrayOfNullableBoolean(String fieldName) {
        return (Boolean[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_BOOLEAN);
    }

    @Override
    public Boolean[] readArrayOfNullableBoolean(String fieldName, Boolean[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_BOOLEAN) ? readArrayOfNullableBoolean(fieldName) : defaultValue;
    }

    @Override
    public Byte[] readArrayOfNullableInt8(String fieldName) {
        return (Byte[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT8);
    }

    @Override
    public Byte[] readArrayOfNullableInt8(String fieldName, Byte[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT8) ? readArrayOfNullableInt8(fieldName) : defaultValue;
    }

    @Override
    public Short[] readArrayOfNullableInt16(String fieldName) {
        return (Short[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT16);
    }

    @Override
    public Short[] readArrayOfNullableInt16(String fieldName, Short[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT16) ? readArrayOfNullableInt16(fieldName) : defaultValue;
    }

    @Override
    public Integer[] readArrayOfNullableInt32(String fieldName) {
        return (Integer[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT32);
    }

    @Override
    public Integer[] readArrayOfNullableInt32(String fieldName, Integer[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT32) ? readArrayOfNullableInt32(fieldName) : defaultValue;
    }

    @Override
    public Long[] readArrayOfNullableInt64(String fieldName) {
        return (Long[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT64);
    }

    @Override
    public Long[] readArrayOfNullableInt64(String fieldName, Long[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT64) ? readArrayOfNullableInt64(fieldName) : defaultValue;
    }

    @Override
    public Float[] readArrayOfNullableFloat32(String fieldName) {
        return (Float[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT32);
    }

    @Override
    public Float[] readArrayOfNullableFloat32(String fieldName, Float[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT32) ? readArrayOfNullableFloat32(fieldName) : defaultValue;
    }

    @Override
    public Double[] readArrayOfNullableFloat64(String fieldName) {
        return (Double[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT64);
    }

    @Override
    public Double[] readArrayOfNullableFloat64(String fieldName, Double[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT64) ? readArrayOfNullableFloat64(fieldName) : defaultValue;
    }

    @Override
    public <T> T readCompact(String fieldName, T defaultValue) {
        return readable(fieldName, FieldKind.COMPACT) ? readCompact(fieldName) : defaultValue;
    }

    @Override
    public <T> T[] readArrayOfCompact(String fieldName, Class<T> componentType, T[] defaultValue) {
        return readable(fieldName, FieldKind.ARRAY_OF_COMPACT) ? readArrayOfCompact(fieldName, componentType) : defaultValue;
    }
}
