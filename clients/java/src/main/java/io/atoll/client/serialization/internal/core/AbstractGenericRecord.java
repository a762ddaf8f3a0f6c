package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.InvalidFieldException;

import java.util.Arrays;
import java.util.Objects;

/** Typed getters on top of {@link #kindOrNull} and {@link #rawValue}; equality by content. */
public abstract class AbstractGenericRecord implements GenericRecord {

    /** The field's kind, or null if absent. */
    protected abstract FieldKind kindOrNull(String name);

    /** The field's value in the Java type of {@code kind}, which is the field's own kind. */
    protected abstract Object rawValue(String name, FieldKind kind);

    /** Type identity for messages and equality. */
    protected abstract String identity();

    /** The field's value as the Java type of requested, which must be compatible with the field's kind. */
    public final Object read(String name, FieldKind requested) {
        FieldKind actual = kindOrNull(name);
        if (actual == null) {
            throw new InvalidFieldException("unknown field '" + name + "' in " + identity());
        }
        if (!Kinds.compatible(actual, requested)) {
            throw new InvalidFieldException("field '" + name + "' of " + identity() + " is " + actual + ", not " + requested);
        }
        return Kinds.convert(name, rawValue(name, actual), actual, requested);
    }

    @Override
    public FieldKind getFieldKind(String fieldName) {
        FieldKind k = kindOrNull(fieldName);
        return k == null ? FieldKind.NOT_AVAILABLE : k;
    }

    @Override
    public boolean hasField(String fieldName) {
        return kindOrNull(fieldName) != null;
    }

    @Override
    public Object getValue(String fieldName) {
        FieldKind actual = kindOrNull(fieldName);
        if (actual == null) {
            throw new InvalidFieldException("unknown field '" + fieldName + "' in " + identity());
        }
        return rawValue(fieldName, actual);
    }

    @Override
    public boolean getBoolean(String fieldName) {
        return (Boolean) read(fieldName, FieldKind.BOOLEAN);
    }

    @Override
    public byte getInt8(String fieldName) {
        return (Byte) read(fieldName, FieldKind.INT8);
    }

    @Override
    public char getChar(String fieldName) {
        return (Character) read(fieldName, FieldKind.CHAR);
    }

    @Override
    public short getInt16(String fieldName) {
        return (Short) read(fieldName, FieldKind.INT16);
    }

    @Override
    public int getInt32(String fieldName) {
        return (Integer) read(fieldName, FieldKind.INT32);
    }

    @Override
    public long getInt64(String fieldName) {
        return (Long) read(fieldName, FieldKind.INT64);
    }

    @Override
    public float getFloat32(String fieldName) {
        return (Float) read(fieldName, FieldKind.FLOAT32);
    }

    @Override
    public double getFloat64(String fieldName) {
        return (Double) read(fieldName, FieldKind.FLOAT64);
    }

    @Override
    public String getString(String fieldName) {
        return (String) read(fieldName, FieldKind.STRING);
    }

    @Override
    public java.math.BigDecimal getDecimal(String fieldName) {
        return (java.math.BigDecimal) read(fieldName, FieldKind.DECIMAL);
    }

    @Override
    public java.time.LocalTime getTime(String fieldName) {
        return (java.time.LocalTime) read(fieldName, FieldKind.TIME);
    }

    @Override
    public java.time.LocalDate getDate(String fieldName) {
        return (java.time.LocalDate) read(fieldName, FieldKind.DATE);
    }

    @Override
    public java.time.LocalDateTime getTimestamp(String fieldName) {
        return (java.time.LocalDateTime) read(fieldName, FieldKind.TIMESTAMP);
    }

    @Override
    public java.time.OffsetDateTime getTimestampWithTimezone(String fieldName) {
        return (java.time.OffsetDateTime) read(fieldName, FieldKind.TIMESTAMP_WITH_TIMEZONE);
    }

    @Override
    public GenericRecord getGenericRecord(String fieldName) {
        return (GenericRecord) read(fieldName, FieldKind.COMPACT);
    }

    @Override
    public boolean[] getArrayOfBoolean(String fieldName) {
        return (boolean[]) read(fieldName, FieldKind.ARRAY_OF_BOOLEAN);
    }

    @Override
    public byte[] getArrayOfInt8(String fieldName) {
        return (byte[]) read(fieldName, FieldKind.ARRAY_OF_INT8);
    }

    @Override
    public char[] getArrayOfChar(String fieldName) {
        return (char[]) read(fieldName, FieldKind.ARRAY_OF_CHAR);
    }

    @Override
    public short[] getArrayOfInt16(String fieldName) {
        return (short[]) read(fieldName, FieldKind.ARRAY_OF_INT16);
    }

    @Override
    public int[] getArrayOfInt32(String fieldName) {
        return (int[]) read(fieldName, FieldKind.ARRAY_OF_INT32);
    }

    @Override
    public long[] getArrayOfInt64(String fieldName) {
        return (long[]) read(fieldName, FieldKind.ARRAY_OF_INT64);
    }

    @Override
    public float[] getArrayOfFloat32(String fieldName) {
        return (float[]) read(fieldName, FieldKind.ARRAY_OF_FLOAT32);
    }

    @Override
    public double[] getArrayOfFloat64(String fieldName) {
        return (double[]) read(fieldName, FieldKind.ARRAY_OF_FLOAT64);
    }

    @Override
    public String[] getArrayOfString(String fieldName) {
        return (String[]) read(fieldName, FieldKind.ARRAY_OF_STRING);
    }

    @Override
    public java.math.BigDecimal[] getArrayOfDecimal(String fieldName) {
        return (java.math.BigDecimal[]) read(fieldName, FieldKind.ARRAY_OF_DECIMAL);
    }

    @Override
    public java.time.LocalTime[] getArrayOfTime(String fieldName) {
        return (java.time.LocalTime[]) read(fieldName, FieldKind.ARRAY_OF_TIME);
    }

    @Override
    public java.time.LocalDate[] getArrayOfDate(String fieldName) {
        return (java.time.LocalDate[]) read(fieldName, FieldKind.ARRAY_OF_DATE);
    }

    @Override
    public java.time.LocalDateTime[] getArrayOfTimestamp(String fieldName) {
        return (java.time.LocalDateTime[]) read(fieldName, FieldKind.ARRAY_OF_TIMESTAMP);
    }

    @Override
    public java.time.OffsetDateTime[] getArrayOfTimestampWithTimezone(String fieldName) {
        return (java.time.OffsetDateTime[]) read(fieldName, FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE);
    }

    @Override
    public GenericRecord[] getArrayOfGenericRecord(String fieldName) {
        return (GenericRecord[]) read(fieldName, FieldKind.ARRAY_OF_COMPACT);
    }

    @Override
    public Boolean getNullableBoolean(String fieldName) {
        return (Boolean) read(fieldName, FieldKind.NULLABLE_BOOLEAN);
    }

    @Override
    public Byte getNullableInt8(String fieldName) {
        return (Byte) read(fieldName, FieldKind.NULLABLE_INT8);
    }

    @Override
    public Short getNullableInt16(String fieldName) {
        return (Short) read(fieldName, FieldKind.NULLABLE_INT16);
    }

    @Override
    public Integer getNullableInt32(String fieldName) {
        return (Integer) read(fieldName, FieldKind.NULLABLE_INT32);
    }

    @Override
    public Long getNullableInt64(String fieldName) {
        return (Long) read(fieldName, FieldKind.NULLABLE_INT64);
    }

    @Override
    public Float getNullableFloat32(String fieldName) {
        return (Float) read(fieldName, FieldKind.NULLABLE_FLOAT32);
    }

    @Override
    public Double getNullableFloat64(String fieldName) {
        return (Double) read(fieldName, FieldKind.NULLABLE_FLOAT64);
    }

    @Override
    public Boolean[] getArrayOfNullableBoolean(String fieldName) {
        return (Boolean[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_BOOLEAN);
    }

    @Override
    public Byte[] getArrayOfNullableInt8(String fieldName) {
        return (Byte[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT8);
    }

    @Override
    public Short[] getArrayOfNullableInt16(String fieldName) {
        return (Short[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT16);
    }

    @Override
    public Integer[] getArrayOfNullableInt32(String fieldName) {
        return (Integer[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT32);
    }

    @Override
    public Long[] getArrayOfNullableInt64(String fieldName) {
        return (Long[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT64);
    }

    @Override
    public Float[] getArrayOfNullableFloat32(String fieldName) {
        return (Float[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT32);
    }

    @Override
    public Double[] getArrayOfNullableFloat64(String fieldName) {
        return (Double[]) read(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT64);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof AbstractGenericRecord)) {
            return false;
        }
        AbstractGenericRecord r = (AbstractGenericRecord) o;
        if (r.getFormat() != getFormat() || !r.identity().equals(identity()) || !r.getFieldNames().equals(getFieldNames())) {
            return false;
        }
        for (String f : getFieldNames()) {
            if (r.getFieldKind(f) != getFieldKind(f)) {
                return false;
            }
            if (!Arrays.deepEquals(new Object[] {getValue(f)}, new Object[] {r.getValue(f)})) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getFormat(), identity(), getFieldNames());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(identity()).append('{');
        boolean first = true;
        for (String f : getFieldNames()) {
            if (!first) {
                sb.append(", ");
            }
            first = false;
            sb.append(f).append('=');
            Object v;
            try {
                v = getValue(f);
            } catch (AtollSerializationException e) {
                v = "<" + e.getMessage() + ">";
            }
            String s = Arrays.deepToString(new Object[] {v});
            sb.append(s, 1, s.length() - 1);
        }
        return sb.append('}').toString();
    }
}
