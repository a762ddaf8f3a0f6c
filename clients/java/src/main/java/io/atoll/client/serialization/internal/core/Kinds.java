package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.InvalidFieldException;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.Map;

/** Java types of field kinds and the conversions between nullable and plain kinds. */
public final class Kinds {
    private Kinds() {
    }

    private static final Map<FieldKind, FieldKind> NULLABLE = new EnumMap<>(FieldKind.class);
    private static final Map<FieldKind, FieldKind> PLAIN = new EnumMap<>(FieldKind.class);
    private static final Map<FieldKind, Class<?>> JAVA_TYPE = new EnumMap<>(FieldKind.class);

    private static void pair(FieldKind plain, FieldKind nullable) {
        NULLABLE.put(plain, nullable);
        PLAIN.put(nullable, plain);
    }

    static {
        pair(FieldKind.BOOLEAN, FieldKind.NULLABLE_BOOLEAN);
        pair(FieldKind.INT8, FieldKind.NULLABLE_INT8);
        pair(FieldKind.INT16, FieldKind.NULLABLE_INT16);
        pair(FieldKind.INT32, FieldKind.NULLABLE_INT32);
        pair(FieldKind.INT64, FieldKind.NULLABLE_INT64);
        pair(FieldKind.FLOAT32, FieldKind.NULLABLE_FLOAT32);
        pair(FieldKind.FLOAT64, FieldKind.NULLABLE_FLOAT64);
        pair(FieldKind.ARRAY_OF_BOOLEAN, FieldKind.ARRAY_OF_NULLABLE_BOOLEAN);
        pair(FieldKind.ARRAY_OF_INT8, FieldKind.ARRAY_OF_NULLABLE_INT8);
        pair(FieldKind.ARRAY_OF_INT16, FieldKind.ARRAY_OF_NULLABLE_INT16);
        pair(FieldKind.ARRAY_OF_INT32, FieldKind.ARRAY_OF_NULLABLE_INT32);
        pair(FieldKind.ARRAY_OF_INT64, FieldKind.ARRAY_OF_NULLABLE_INT64);
        pair(FieldKind.ARRAY_OF_FLOAT32, FieldKind.ARRAY_OF_NULLABLE_FLOAT32);
        pair(FieldKind.ARRAY_OF_FLOAT64, FieldKind.ARRAY_OF_NULLABLE_FLOAT64);

        JAVA_TYPE.put(FieldKind.BOOLEAN, Boolean.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_BOOLEAN, boolean[].class);
        JAVA_TYPE.put(FieldKind.INT8, Byte.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_INT8, byte[].class);
        JAVA_TYPE.put(FieldKind.CHAR, Character.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_CHAR, char[].class);
        JAVA_TYPE.put(FieldKind.INT16, Short.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_INT16, short[].class);
        JAVA_TYPE.put(FieldKind.INT32, Integer.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_INT32, int[].class);
        JAVA_TYPE.put(FieldKind.INT64, Long.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_INT64, long[].class);
        JAVA_TYPE.put(FieldKind.FLOAT32, Float.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_FLOAT32, float[].class);
        JAVA_TYPE.put(FieldKind.FLOAT64, Double.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_FLOAT64, double[].class);
        JAVA_TYPE.put(FieldKind.STRING, String.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_STRING, String[].class);
        JAVA_TYPE.put(FieldKind.DECIMAL, BigDecimal.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_DECIMAL, BigDecimal[].class);
        JAVA_TYPE.put(FieldKind.TIME, LocalTime.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_TIME, LocalTime[].class);
        JAVA_TYPE.put(FieldKind.DATE, LocalDate.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_DATE, LocalDate[].class);
        JAVA_TYPE.put(FieldKind.TIMESTAMP, LocalDateTime.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_TIMESTAMP, LocalDateTime[].class);
        JAVA_TYPE.put(FieldKind.TIMESTAMP_WITH_TIMEZONE, OffsetDateTime.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE, OffsetDateTime[].class);
        JAVA_TYPE.put(FieldKind.COMPACT, GenericRecord.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_COMPACT, GenericRecord[].class);
        JAVA_TYPE.put(FieldKind.PORTABLE, GenericRecord.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_PORTABLE, GenericRecord[].class);
        JAVA_TYPE.put(FieldKind.IDENTIFIED, GenericRecord.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_IDENTIFIED, GenericRecord[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_BOOLEAN, Boolean.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_BOOLEAN, Boolean[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_INT8, Byte.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_INT8, Byte[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_INT16, Short.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_INT16, Short[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_INT32, Integer.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_INT32, Integer[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_INT64, Long.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_INT64, Long[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_FLOAT32, Float.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_FLOAT32, Float[].class);
        JAVA_TYPE.put(FieldKind.NULLABLE_FLOAT64, Double.class);
        JAVA_TYPE.put(FieldKind.ARRAY_OF_NULLABLE_FLOAT64, Double[].class);
    }

    /** Java class of values of a kind (boxed for scalars). */
    public static Class<?> javaType(FieldKind kind) {
        return JAVA_TYPE.get(kind);
    }

    /** Whether {@code value} (non-null) can be stored in a field of this kind. */
    public static boolean accepts(FieldKind kind, Object value) {
        Class<?> t = JAVA_TYPE.get(kind);
        return t != null && t.isInstance(value);
    }

    /** Scalar number kinds become their NULLABLE_ twin (boxed values); others stay. */
    public static FieldKind boxedScalar(FieldKind kind) {
        if (kind != null && !kind.isArray() && NULLABLE.containsKey(kind)) {
            return NULLABLE.get(kind);
        }
        return kind;
    }

    /** Arrays of numbers become arrays of their NULLABLE_ twin (boxed items); others stay. */
    public static FieldKind boxedArray(FieldKind kind) {
        if (kind != null && kind.isArray() && NULLABLE.containsKey(kind)) {
            return NULLABLE.get(kind);
        }
        return kind;
    }

    static boolean isPrimitiveScalar(FieldKind kind) {
        return NULLABLE.containsKey(kind) && !kind.isArray();
    }

    public static boolean isRecord(FieldKind k) {
        return k == FieldKind.COMPACT || k == FieldKind.PORTABLE || k == FieldKind.IDENTIFIED;
    }

    static boolean isRecordArray(FieldKind k) {
        return k == FieldKind.ARRAY_OF_COMPACT || k == FieldKind.ARRAY_OF_PORTABLE || k == FieldKind.ARRAY_OF_IDENTIFIED;
    }

    /** Whether a value stored as {@code actual} can be read as {@code requested}. */
    public static boolean compatible(FieldKind actual, FieldKind requested) {
        if (actual == requested) {
            return true;
        }
        if (isRecord(actual) && isRecord(requested) || isRecordArray(actual) && isRecordArray(requested)) {
            return true;
        }
        return NULLABLE.get(actual) == requested || PLAIN.get(actual) == requested;
    }

    /**
     * Converts a value of kind {@code actual} to the Java type of {@code requested}:
     * plain ↔ nullable scalars and arrays. A null read as a plain scalar, or a null item
     * read into a primitive array, throws {@link InvalidFieldException}.
     */
    static Object convert(String field, Object value, FieldKind actual, FieldKind requested) {
        if (actual == requested || isRecord(actual) && isRecord(requested) || isRecordArray(actual) && isRecordArray(requested)) {
            if (value == null && isPrimitiveScalar(requested) || value == null && requested == FieldKind.CHAR) {
                throw new InvalidFieldException("field '" + field + "' is null and cannot be read as " + requested);
            }
            return value;
        }
        if (NULLABLE.get(actual) == requested) {
            if (value == null || !actual.isArray()) {
                return value;
            }
            int n = Array.getLength(value);
            Object out = Array.newInstance(javaType(requested).getComponentType(), n);
            for (int i = 0; i < n; i++) {
                Array.set(out, i, Array.get(value, i));
            }
            return out;
        }
        if (PLAIN.get(actual) == requested) {
            if (value == null) {
                if (!actual.isArray()) {
                    throw new InvalidFieldException("field '" + field + "' is null and cannot be read as " + requested);
                }
                return null;
            }
            if (!actual.isArray()) {
                return value;
            }
            Object[] items = (Object[]) value;
            Object out = Array.newInstance(javaType(requested).getComponentType(), items.length);
            for (int i = 0; i < items.length; i++) {
                if (items[i] == null) {
                    throw new InvalidFieldException("field '" + field + "' has a null item at " + i + " and cannot be read as " + requested);
                }
                Array.set(out, i, items[i]);
            }
            return out;
        }
        throw new InvalidFieldException("field '" + field + "' is " + actual + " and cannot be read as " + requested);
    }
}
