package io.atoll.client.sql;

import io.atoll.client.serialization.JsonValue;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/** The SQL type of a column, with Hazelcast's names, and the Java class of its values. */
public enum SqlColumnType {
    VARCHAR(String.class),
    BOOLEAN(Boolean.class),
    TINYINT(Byte.class),
    SMALLINT(Short.class),
    INTEGER(Integer.class),
    BIGINT(Long.class),
    DECIMAL(BigDecimal.class),
    REAL(Float.class),
    DOUBLE(Double.class),
    DATE(LocalDate.class),
    TIME(LocalTime.class),
    TIMESTAMP(LocalDateTime.class),
    TIMESTAMP_WITH_TIME_ZONE(OffsetDateTime.class),
    /** Keys and values ({@code __key}, {@code this}), deserialized by the client. */
    OBJECT(Object.class),
    /** The type of the NULL literal. */
    NULL(Void.class),
    JSON(JsonValue.class),
    /** The column's values have no declared type (Predicate API projections): each value has its own. */
    UNKNOWN(Object.class);

    private final Class<?> valueClass;

    SqlColumnType(Class<?> valueClass) {
        this.valueClass = valueClass;
    }

    /** The class of the column's non-null values as {@link SqlRow#getObject(int)} returns them. */
    public Class<?> getValueClass() {
        return valueClass;
    }
}
