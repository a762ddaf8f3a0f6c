package io.atoll.client.serialization;

import io.atoll.client.serialization.internal.core.RecordBuilder;

/**
 * Builds a {@link GenericRecord}.
 *
 * <p>{@link #compact(String)} accepts any fields; the schema follows from the setters
 * called, and variable-size fields are written in the order they were set (set them in
 * name order to get the bytes a schema-ordered writer produces, or in declaration order
 * to match a hand-written serializer). {@link #portable(ClassDefinition)} and
 * {@link #identified(IdentifiedLayout)} accept only the declared fields, every one of
 * which must be set; they are written in class definition / layout order.
 * Setting a field twice throws, except on a builder from
 * {@link GenericRecord#newBuilderWithClone()}. Not thread-safe.
 */
public interface GenericRecordBuilder {

    /** A builder for a compact record of the given type name. */
    static GenericRecordBuilder compact(String typeName) {
        return RecordBuilder.compact(typeName);
    }

    /** A builder for a portable record of the given class definition. */
    static GenericRecordBuilder portable(ClassDefinition classDefinition) {
        return RecordBuilder.portable(classDefinition);
    }

    /** A builder for an identified record of the given layout. */
    static GenericRecordBuilder identified(IdentifiedLayout layout) {
        return RecordBuilder.identified(layout);
    }

    /** The record; the builder must not be used afterwards. */
    GenericRecord build();

    GenericRecordBuilder setBoolean(String fieldName, boolean value);

    GenericRecordBuilder setInt8(String fieldName, byte value);

    GenericRecordBuilder setChar(String fieldName, char value);

    GenericRecordBuilder setInt16(String fieldName, short value);

    GenericRecordBuilder setInt32(String fieldName, int value);

    GenericRecordBuilder setInt64(String fieldName, long value);

    GenericRecordBuilder setFloat32(String fieldName, float value);

    GenericRecordBuilder setFloat64(String fieldName, double value);

    GenericRecordBuilder setString(String fieldName, String value);

    GenericRecordBuilder setDecimal(String fieldName, java.math.BigDecimal value);

    GenericRecordBuilder setTime(String fieldName, java.time.LocalTime value);

    GenericRecordBuilder setDate(String fieldName, java.time.LocalDate value);

    GenericRecordBuilder setTimestamp(String fieldName, java.time.LocalDateTime value);

    GenericRecordBuilder setTimestampWithTimezone(String fieldName, java.time.OffsetDateTime value);

    GenericRecordBuilder setGenericRecord(String fieldName, GenericRecord value);

    GenericRecordBuilder setArrayOfBoolean(String fieldName, boolean[] value);

    GenericRecordBuilder setArrayOfInt8(String fieldName, byte[] value);

    GenericRecordBuilder setArrayOfChar(String fieldName, char[] value);

    GenericRecordBuilder setArrayOfInt16(String fieldName, short[] value);

    GenericRecordBuilder setArrayOfInt32(String fieldName, int[] value);

    GenericRecordBuilder setArrayOfInt64(String fieldName, long[] value);

    GenericRecordBuilder setArrayOfFloat32(String fieldName, float[] value);

    GenericRecordBuilder setArrayOfFloat64(String fieldName, double[] value);

    GenericRecordBuilder setArrayOfString(String fieldName, String[] value);

    GenericRecordBuilder setArrayOfDecimal(String fieldName, java.math.BigDecimal[] value);

    GenericRecordBuilder setArrayOfTime(String fieldName, java.time.LocalTime[] value);

    GenericRecordBuilder setArrayOfDate(String fieldName, java.time.LocalDate[] value);

    GenericRecordBuilder setArrayOfTimestamp(String fieldName, java.time.LocalDateTime[] value);

    GenericRecordBuilder setArrayOfTimestampWithTimezone(String fieldName, java.time.OffsetDateTime[] value);

    GenericRecordBuilder setArrayOfGenericRecord(String fieldName, GenericRecord[] value);

    GenericRecordBuilder setNullableBoolean(String fieldName, Boolean value);

    GenericRecordBuilder setNullableInt8(String fieldName, Byte value);

    GenericRecordBuilder setNullableInt16(String fieldName, Short value);

    GenericRecordBuilder setNullableInt32(String fieldName, Integer value);

    GenericRecordBuilder setNullableInt64(String fieldName, Long value);

    GenericRecordBuilder setNullableFloat32(String fieldName, Float value);

    GenericRecordBuilder setNullableFloat64(String fieldName, Double value);

    GenericRecordBuilder setArrayOfNullableBoolean(String fieldName, Boolean[] value);

    GenericRecordBuilder setArrayOfNullableInt8(String fieldName, Byte[] value);

    GenericRecordBuilder setArrayOfNullableInt16(String fieldName, Short[] value);

    GenericRecordBuilder setArrayOfNullableInt32(String fieldName, Integer[] value);

    GenericRecordBuilder setArrayOfNullableInt64(String fieldName, Long[] value);

    GenericRecordBuilder setArrayOfNullableFloat32(String fieldName, Float[] value);

    GenericRecordBuilder setArrayOfNullableFloat64(String fieldName, Double[] value);

}
