package io.atoll.client;

import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.JsonValue;
import io.atoll.client.sql.SqlRow;
import io.atoll.client.sql.SqlRowMetadata;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Objects;

/** The client's {@link SqlRow}: decoded values, objects deserialized on first access. */
final class ClientSqlRow implements SqlRow {
    private final AtollClient client;
    private final SqlRowMetadata metadata;
    private final Object[] values;

    ClientSqlRow(AtollClient client, SqlRowMetadata metadata, Object[] values) {
        this.client = client;
        this.metadata = metadata;
        this.values = values;
    }

    @Override
    public SqlRowMetadata getMetadata() {
        return metadata;
    }

    private int index(String name) {
        Objects.requireNonNull(name, "columnName");
        int i = metadata.findColumn(name);
        if (i == SqlRowMetadata.COLUMN_NOT_FOUND) {
            throw new IllegalArgumentException("no column " + name + " in " + metadata);
        }
        return i;
    }

    /** The value of a column, objects deserialized (once). */
    private Object value(int i) {
        Objects.checkIndex(i, values.length);
        Object v = values[i];
        if (v instanceof Data) {
            v = AtollClient.await(client.metadata.toObject((Data) v));
            values[i] = new Deserialized(v);
            return v;
        }
        return v instanceof Deserialized ? ((Deserialized) v).value : v;
    }

    /** A deserialized object, boxed so that a Data value read back from an object stays apart. */
    private static final class Deserialized {
        final Object value;

        Deserialized(Object value) {
            this.value = value;
        }
    }

    private ClassCastException mismatch(int i, Object v, String wanted) {
        return new ClassCastException("column " + metadata.getColumn(i).getName() + " holds a " + v.getClass().getSimpleName()
                + " (" + metadata.getColumn(i).getType() + "), not " + wanted);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getObject(int columnIndex) {
        return (T) value(columnIndex);
    }

    @Override
    public <T> T getObject(String columnName) {
        return getObject(index(columnName));
    }

    @Override
    public Boolean getBoolean(int i) {
        Object v = value(i);
        if (v == null || v instanceof Boolean) {
            return (Boolean) v;
        }
        throw mismatch(i, v, "a BOOLEAN");
    }

    @Override
    public Boolean getBoolean(String columnName) {
        return getBoolean(index(columnName));
    }

    @Override
    public Byte getByte(int i) {
        Object v = value(i);
        if (v == null || v instanceof Byte) {
            return (Byte) v;
        }
        throw mismatch(i, v, "a TINYINT");
    }

    @Override
    public Byte getByte(String columnName) {
        return getByte(index(columnName));
    }

    @Override
    public Short getShort(int i) {
        Object v = value(i);
        if (v == null || v instanceof Short) {
            return (Short) v;
        } else if (v instanceof Byte) {
            return ((Byte) v).shortValue();
        }
        throw mismatch(i, v, "a SMALLINT or narrower integer");
    }

    @Override
    public Short getShort(String columnName) {
        return getShort(index(columnName));
    }

    @Override
    public Integer getInt(int i) {
        Object v = value(i);
        if (v == null || v instanceof Integer) {
            return (Integer) v;
        } else if (v instanceof Byte || v instanceof Short) {
            return ((Number) v).intValue();
        }
        throw mismatch(i, v, "an INTEGER or narrower integer");
    }

    @Override
    public Integer getInt(String columnName) {
        return getInt(index(columnName));
    }

    @Override
    public Long getLong(int i) {
        Object v = value(i);
        if (v == null || v instanceof Long) {
            return (Long) v;
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
            return ((Number) v).longValue();
        }
        throw mismatch(i, v, "an integer");
    }

    @Override
    public Long getLong(String columnName) {
        return getLong(index(columnName));
    }

    @Override
    public Float getFloat(int i) {
        Object v = value(i);
        if (v == null || v instanceof Float) {
            return (Float) v;
        }
        throw mismatch(i, v, "a REAL");
    }

    @Override
    public Float getFloat(String columnName) {
        return getFloat(index(columnName));
    }

    @Override
    public Double getDouble(int i) {
        Object v = value(i);
        if (v == null || v instanceof Double) {
            return (Double) v;
        } else if (v instanceof Float || v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return ((Number) v).doubleValue();
        }
        throw mismatch(i, v, "a floating-point or integer number");
    }

    @Override
    public Double getDouble(String columnName) {
        return getDouble(index(columnName));
    }

    @Override
    public BigDecimal getDecimal(int i) {
        Object v = value(i);
        if (v == null || v instanceof BigDecimal) {
            return (BigDecimal) v;
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        } else if ((v instanceof Float || v instanceof Double) && Double.isFinite(((Number) v).doubleValue())) {
            return v instanceof Float ? new BigDecimal(v.toString()) : BigDecimal.valueOf((Double) v);
        }
        throw mismatch(i, v, "a number");
    }

    @Override
    public BigDecimal getDecimal(String columnName) {
        return getDecimal(index(columnName));
    }

    @Override
    public String getString(int i) {
        Object v = value(i);
        if (v == null || v instanceof String) {
            return (String) v;
        } else if (v instanceof JsonValue) {
            return ((JsonValue) v).getValue();
        }
        throw mismatch(i, v, "a VARCHAR or JSON");
    }

    @Override
    public String getString(String columnName) {
        return getString(index(columnName));
    }

    @Override
    public LocalDate getDate(int i) {
        Object v = value(i);
        if (v == null || v instanceof LocalDate) {
            return (LocalDate) v;
        }
        throw mismatch(i, v, "a DATE");
    }

    @Override
    public LocalDate getDate(String columnName) {
        return getDate(index(columnName));
    }

    @Override
    public LocalTime getTime(int i) {
        Object v = value(i);
        if (v == null || v instanceof LocalTime) {
            return (LocalTime) v;
        }
        throw mismatch(i, v, "a TIME");
    }

    @Override
    public LocalTime getTime(String columnName) {
        return getTime(index(columnName));
    }

    @Override
    public LocalDateTime getTimestamp(int i) {
        Object v = value(i);
        if (v == null || v instanceof LocalDateTime) {
            return (LocalDateTime) v;
        }
        throw mismatch(i, v, "a TIMESTAMP");
    }

    @Override
    public LocalDateTime getTimestamp(String columnName) {
        return getTimestamp(index(columnName));
    }

    @Override
    public OffsetDateTime getTimestampWithTimeZone(int i) {
        Object v = value(i);
        if (v == null || v instanceof OffsetDateTime) {
            return (OffsetDateTime) v;
        }
        throw mismatch(i, v, "a TIMESTAMP WITH TIME ZONE");
    }

    @Override
    public OffsetDateTime getTimestampWithTimeZone(String columnName) {
        return getTimestampWithTimeZone(index(columnName));
    }

    @Override
    public String toString() {
        Object[] shown = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            shown[i] = v instanceof Deserialized ? ((Deserialized) v).value : v;
        }
        return Arrays.toString(shown);
    }
}
