package io.atoll.client.serialization;

import java.util.Set;

/**
 * A compact, portable or identified value read or built without its Java class.
 *
 * <p>Records decoded from bytes read each field in place (compact by its offset table,
 * portable by its field table, identified through its {@link IdentifiedLayout}); records
 * built with {@link GenericRecordBuilder} hold their values. Getters take the field name;
 * a name the record does not have, or a kind that does not match, throws
 * {@link InvalidFieldException}; use {@link #getFieldKind} to check first (it returns
 * {@link FieldKind#NOT_AVAILABLE} for a missing field, which is how a reader handles
 * schema evolution). Plain and NULLABLE_ kinds convert both ways, except that a null
 * cannot be read as a primitive. Records are immutable; decoded ones are thread-safe.
 */
public interface GenericRecord {

    /** The binary format a record belongs to. */
    enum Format { COMPACT, PORTABLE, IDENTIFIED }

    Format getFormat();

    /** Compact type name; null for portable and identified records. */
    String getTypeName();

    /** The compact schema; null for portable and identified records. */
    Schema getSchema();

    /** The portable class definition; null for compact and identified records. */
    ClassDefinition getClassDefinition();

    /** The identified layout; null for compact and portable records. */
    IdentifiedLayout getLayout();

    /** A builder for a record of the same type, with no field set; every field must be set. */
    GenericRecordBuilder newBuilder();

    /** A builder pre-filled with this record's values; setters overwrite them. */
    GenericRecordBuilder newBuilderWithClone();

    /** Field names: schema (name) order for compact, index order for portable, write order for identified. */
    Set<String> getFieldNames();

    /** The field's kind, or {@link FieldKind#NOT_AVAILABLE} if the record has no such field. */
    FieldKind getFieldKind(String fieldName);

    boolean hasField(String fieldName);

    /** The field's value in the Java type of its own kind (boxed scalars, arrays, nested records). */
    Object getValue(String fieldName);

    boolean getBoolean(String fieldName);

    byte getInt8(String fieldName);

    char getChar(String fieldName);

    short getInt16(String fieldName);

    int getInt32(String fieldName);

    long getInt64(String fieldName);

    float getFloat32(String fieldName);

    double getFloat64(String fieldName);

    String getString(String fieldName);

    java.math.BigDecimal getDecimal(String fieldName);

    java.time.LocalTime getTime(String fieldName);

    java.time.LocalDate getDate(String fieldName);

    java.time.LocalDateTime getTimestamp(String fieldName);

    java.time.OffsetDateTime getTimestampWithTimezone(String fieldName);

    GenericRecord getGenericRecord(String fieldName);

    boolean[] getArrayOfBoolean(String fieldName);

    byte[] getArrayOfInt8(String fieldName);

    char[] getArrayOfChar(String fieldName);

    short[] getArrayOfInt16(String fieldName);

    int[] getArrayOfInt32(String fieldName);

    long[] getArrayOfInt64(String fieldName);

    float[] getArrayOfFloat32(String fieldName);

    double[] getArrayOfFloat64(String fieldName);

    String[] getArrayOfString(String fieldName);

    java.math.BigDecimal[] getArrayOfDecimal(String fieldName);

    java.time.LocalTime[] getArrayOfTime(String fieldName);

    java.time.LocalDate[] getArrayOfDate(String fieldName);

    java.time.LocalDateTime[] getArrayOfTimestamp(String fieldName);

    java.time.OffsetDateTime[] getArrayOfTimestampWithTimezone(String fieldName);

    GenericRecord[] getArrayOfGenericRecord(String fieldName);

    Boolean getNullableBoolean(String fieldName);

    Byte getNullableInt8(String fieldName);

    Short getNullableInt16(String fieldName);

    Integer getNullableInt32(String fieldName);

    Long getNullableInt64(String fieldName);

    Float getNullableFloat32(String fieldName);

    Double getNullableFloat64(String fieldName);

    Boolean[] getArrayOfNullableBoolean(String fieldName);

    Byte[] getArrayOfNullableInt8(String fieldName);

    Short[] getArrayOfNullableInt16(String fieldName);

    Integer[] getArrayOfNullableInt32(String fieldName);

    Long[] getArrayOfNullableInt64(String fieldName);

    Float[] getArrayOfNullableFloat32(String fieldName);

    Double[] getArrayOfNullableFloat64(String fieldName);

}
