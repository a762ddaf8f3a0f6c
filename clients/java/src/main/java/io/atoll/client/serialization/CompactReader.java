package io.atoll.client.serialization;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * Reads the fields of a compact value by name, in any order; given to
 * {@link CompactSerializer#read}. Schema evolution: a reader that may meet data
 * written before a field existed checks {@link #getFieldKind} (it returns
 * {@link FieldKind#NOT_AVAILABLE} for a missing field) or uses the overloads that
 * take a default. Plain and NULLABLE_ kinds convert both ways; reading a null as a
 * plain kind throws {@link InvalidFieldException}. Not thread-safe.
 */
public interface CompactReader {

    /** The kind of the field in the writer's schema, or {@link FieldKind#NOT_AVAILABLE}. */
    FieldKind getFieldKind(String fieldName);

    boolean readBoolean(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    boolean readBoolean(String fieldName, boolean defaultValue);

    byte readInt8(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    byte readInt8(String fieldName, byte defaultValue);

    short readInt16(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    short readInt16(String fieldName, short defaultValue);

    int readInt32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    int readInt32(String fieldName, int defaultValue);

    long readInt64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    long readInt64(String fieldName, long defaultValue);

    float readFloat32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    float readFloat32(String fieldName, float defaultValue);

    double readFloat64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    double readFloat64(String fieldName, double defaultValue);

    String readString(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    String readString(String fieldName, String defaultValue);

    BigDecimal readDecimal(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    BigDecimal readDecimal(String fieldName, BigDecimal defaultValue);

    LocalTime readTime(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    LocalTime readTime(String fieldName, LocalTime defaultValue);

    LocalDate readDate(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    LocalDate readDate(String fieldName, LocalDate defaultValue);

    LocalDateTime readTimestamp(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    LocalDateTime readTimestamp(String fieldName, LocalDateTime defaultValue);

    OffsetDateTime readTimestampWithTimezone(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    OffsetDateTime readTimestampWithTimezone(String fieldName, OffsetDateTime defaultValue);

    boolean[] readArrayOfBoolean(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    boolean[] readArrayOfBoolean(String fieldName, boolean[] defaultValue);

    byte[] readArrayOfInt8(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    byte[] readArrayOfInt8(String fieldName, byte[] defaultValue);

    short[] readArrayOfInt16(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    short[] readArrayOfInt16(String fieldName, short[] defaultValue);

    int[] readArrayOfInt32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    int[] readArrayOfInt32(String fieldName, int[] defaultValue);

    long[] readArrayOfInt64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    long[] readArrayOfInt64(String fieldName, long[] defaultValue);

    float[] readArrayOfFloat32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    float[] readArrayOfFloat32(String fieldName, float[] defaultValue);

    double[] readArrayOfFloat64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    double[] readArrayOfFloat64(String fieldName, double[] defaultValue);

    String[] readArrayOfString(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    String[] readArrayOfString(String fieldName, String[] defaultValue);

    BigDecimal[] readArrayOfDecimal(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    BigDecimal[] readArrayOfDecimal(String fieldName, BigDecimal[] defaultValue);

    LocalTime[] readArrayOfTime(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    LocalTime[] readArrayOfTime(String fieldName, LocalTime[] defaultValue);

    LocalDate[] readArrayOfDate(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    LocalDate[] readArrayOfDate(String fieldName, LocalDate[] defaultValue);

    LocalDateTime[] readArrayOfTimestamp(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    LocalDateTime[] readArrayOfTimestamp(String fieldName, LocalDateTime[] defaultValue);

    OffsetDateTime[] readArrayOfTimestampWithTimezone(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    OffsetDateTime[] readArrayOfTimestampWithTimezone(String fieldName, OffsetDateTime[] defaultValue);

    Boolean readNullableBoolean(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Boolean readNullableBoolean(String fieldName, Boolean defaultValue);

    Byte readNullableInt8(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Byte readNullableInt8(String fieldName, Byte defaultValue);

    Short readNullableInt16(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Short readNullableInt16(String fieldName, Short defaultValue);

    Integer readNullableInt32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Integer readNullableInt32(String fieldName, Integer defaultValue);

    Long readNullableInt64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Long readNullableInt64(String fieldName, Long defaultValue);

    Float readNullableFloat32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Float readNullableFloat32(String fieldName, Float defaultValue);

    Double readNullableFloat64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Double readNullableFloat64(String fieldName, Double defaultValue);

    Boolean[] readArrayOfNullableBoolean(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Boolean[] readArrayOfNullableBoolean(String fieldName, Boolean[] defaultValue);

    Byte[] readArrayOfNullableInt8(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Byte[] readArrayOfNullableInt8(String fieldName, Byte[] defaultValue);

    Short[] readArrayOfNullableInt16(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Short[] readArrayOfNullableInt16(String fieldName, Short[] defaultValue);

    Integer[] readArrayOfNullableInt32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Integer[] readArrayOfNullableInt32(String fieldName, Integer[] defaultValue);

    Long[] readArrayOfNullableInt64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Long[] readArrayOfNullableInt64(String fieldName, Long[] defaultValue);

    Float[] readArrayOfNullableFloat32(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Float[] readArrayOfNullableFloat32(String fieldName, Float[] defaultValue);

    Double[] readArrayOfNullableFloat64(String fieldName);

    /** The field, or {@code defaultValue} if the writer's schema has no such field of a compatible kind. */
    Double[] readArrayOfNullableFloat64(String fieldName, Double[] defaultValue);

    /** A nested compact value: an instance of the class registered for its type name, else a {@link GenericRecord}. */
    <T> T readCompact(String fieldName);

    <T> T readCompact(String fieldName, T defaultValue);

    /** An array of nested compact values as an array of {@code componentType}. */
    <T> T[] readArrayOfCompact(String fieldName, Class<T> componentType);

    <T> T[] readArrayOfCompact(String fieldName, Class<T> componentType, T[] defaultValue);
}
