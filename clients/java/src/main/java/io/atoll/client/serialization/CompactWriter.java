package io.atoll.client.serialization;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * Writes the fields of a compact value; given to {@link CompactSerializer#write}.
 * Fixed-size fields land at their schema offsets whatever the call order; the
 * variable-size section is laid out in call order, so a serializer always writes
 * its fields in the same order (to reproduce another implementation's bytes, write
 * in its order). A serializer must write the same fields, with the same kinds, for
 * every value of its class. Not thread-safe.
 */
public interface CompactWriter {

    void writeBoolean(String fieldName, boolean value);

    void writeInt8(String fieldName, byte value);

    void writeInt16(String fieldName, short value);

    void writeInt32(String fieldName, int value);

    void writeInt64(String fieldName, long value);

    void writeFloat32(String fieldName, float value);

    void writeFloat64(String fieldName, double value);

    void writeString(String fieldName, String value);

    void writeDecimal(String fieldName, BigDecimal value);

    void writeTime(String fieldName, LocalTime value);

    void writeDate(String fieldName, LocalDate value);

    void writeTimestamp(String fieldName, LocalDateTime value);

    void writeTimestampWithTimezone(String fieldName, OffsetDateTime value);

    void writeArrayOfBoolean(String fieldName, boolean[] value);

    void writeArrayOfInt8(String fieldName, byte[] value);

    void writeArrayOfInt16(String fieldName, short[] value);

    void writeArrayOfInt32(String fieldName, int[] value);

    void writeArrayOfInt64(String fieldName, long[] value);

    void writeArrayOfFloat32(String fieldName, float[] value);

    void writeArrayOfFloat64(String fieldName, double[] value);

    void writeArrayOfString(String fieldName, String[] value);

    void writeArrayOfDecimal(String fieldName, BigDecimal[] value);

    void writeArrayOfTime(String fieldName, LocalTime[] value);

    void writeArrayOfDate(String fieldName, LocalDate[] value);

    void writeArrayOfTimestamp(String fieldName, LocalDateTime[] value);

    void writeArrayOfTimestampWithTimezone(String fieldName, OffsetDateTime[] value);

    void writeNullableBoolean(String fieldName, Boolean value);

    void writeNullableInt8(String fieldName, Byte value);

    void writeNullableInt16(String fieldName, Short value);

    void writeNullableInt32(String fieldName, Integer value);

    void writeNullableInt64(String fieldName, Long value);

    void writeNullableFloat32(String fieldName, Float value);

    void writeNullableFloat64(String fieldName, Double value);

    void writeArrayOfNullableBoolean(String fieldName, Boolean[] value);

    void writeArrayOfNullableInt8(String fieldName, Byte[] value);

    void writeArrayOfNullableInt16(String fieldName, Short[] value);

    void writeArrayOfNullableInt32(String fieldName, Integer[] value);

    void writeArrayOfNullableInt64(String fieldName, Long[] value);

    void writeArrayOfNullableFloat32(String fieldName, Float[] value);

    void writeArrayOfNullableFloat64(String fieldName, Double[] value);

    /** A nested compact value (or null): an object with a registered serializer, or a compact {@link GenericRecord}. */
    <T> void writeCompact(String fieldName, T value);

    /** An array of nested compact values of one type; null items allowed. */
    <T> void writeArrayOfCompact(String fieldName, T[] value);
}
