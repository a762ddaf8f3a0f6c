package io.atoll.client.sql;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * One row of a {@link SqlResult}. Columns are addressed by 0-based index or by name
 * (case-sensitive; {@link IllegalArgumentException} for a name no column has,
 * {@link IndexOutOfBoundsException} for an index out of range).
 *
 * <p>{@link #getObject} returns values as {@link SqlColumnType#getValueClass()} says
 * (OBJECT columns such as {@code __key} and {@code this} deserialized, JSON as
 * {@code JsonValue}). The typed getters return null for NULL and convert without loss:
 * {@code getLong} reads any integer column, {@code getDouble} any integer or floating-point
 * column, {@code getDecimal} any numeric column; any other mismatch is a
 * {@link ClassCastException} naming the column and both types. A row stays valid after the
 * iteration moved on.
 */
public interface SqlRow {
    /** The result's columns. */
    SqlRowMetadata getMetadata();

    /** The value of a column, deserialized when it is an object (the target type is not checked). */
    <T> T getObject(int columnIndex);

    <T> T getObject(String columnName);

    Boolean getBoolean(int columnIndex);

    Boolean getBoolean(String columnName);

    Byte getByte(int columnIndex);

    Byte getByte(String columnName);

    Short getShort(int columnIndex);

    Short getShort(String columnName);

    Integer getInt(int columnIndex);

    Integer getInt(String columnName);

    Long getLong(int columnIndex);

    Long getLong(String columnName);

    Float getFloat(int columnIndex);

    Float getFloat(String columnName);

    Double getDouble(int columnIndex);

    Double getDouble(String columnName);

    BigDecimal getDecimal(int columnIndex);

    BigDecimal getDecimal(String columnName);

    /** A VARCHAR value, or the text of a JSON value. */
    String getString(int columnIndex);

    String getString(String columnName);

    LocalDate getDate(int columnIndex);

    LocalDate getDate(String columnName);

    LocalTime getTime(int columnIndex);

    LocalTime getTime(String columnName);

    LocalDateTime getTimestamp(int columnIndex);

    LocalDateTime getTimestamp(String columnName);

    OffsetDateTime getTimestampWithTimeZone(int columnIndex);

    OffsetDateTime getTimestampWithTimeZone(String columnName);
}
