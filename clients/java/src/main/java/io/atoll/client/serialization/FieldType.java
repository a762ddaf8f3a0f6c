package io.atoll.client.serialization;

/** Type of a {@link Portable} field, as stored after each field name in the binary. */
public enum FieldType {
    PORTABLE(0, FieldKind.PORTABLE),
    BYTE(1, FieldKind.INT8),
    BOOLEAN(2, FieldKind.BOOLEAN),
    CHAR(3, FieldKind.CHAR),
    SHORT(4, FieldKind.INT16),
    INT(5, FieldKind.INT32),
    LONG(6, FieldKind.INT64),
    FLOAT(7, FieldKind.FLOAT32),
    DOUBLE(8, FieldKind.FLOAT64),
    /** String. */
    UTF(9, FieldKind.STRING),
    PORTABLE_ARRAY(10, FieldKind.ARRAY_OF_PORTABLE),
    BYTE_ARRAY(11, FieldKind.ARRAY_OF_INT8),
    BOOLEAN_ARRAY(12, FieldKind.ARRAY_OF_BOOLEAN),
    CHAR_ARRAY(13, FieldKind.ARRAY_OF_CHAR),
    SHORT_ARRAY(14, FieldKind.ARRAY_OF_INT16),
    INT_ARRAY(15, FieldKind.ARRAY_OF_INT32),
    LONG_ARRAY(16, FieldKind.ARRAY_OF_INT64),
    FLOAT_ARRAY(17, FieldKind.ARRAY_OF_FLOAT32),
    DOUBLE_ARRAY(18, FieldKind.ARRAY_OF_FLOAT64),
    /** String array. */
    UTF_ARRAY(19, FieldKind.ARRAY_OF_STRING),
    DECIMAL(20, FieldKind.DECIMAL),
    DECIMAL_ARRAY(21, FieldKind.ARRAY_OF_DECIMAL),
    TIME(22, FieldKind.TIME),
    TIME_ARRAY(23, FieldKind.ARRAY_OF_TIME),
    DATE(24, FieldKind.DATE),
    DATE_ARRAY(25, FieldKind.ARRAY_OF_DATE),
    TIMESTAMP(26, FieldKind.TIMESTAMP),
    TIMESTAMP_ARRAY(27, FieldKind.ARRAY_OF_TIMESTAMP),
    TIMESTAMP_WITH_TIMEZONE(28, FieldKind.TIMESTAMP_WITH_TIMEZONE),
    TIMESTAMP_WITH_TIMEZONE_ARRAY(29, FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE);

    private static final FieldType[] BY_ID = values();

    private final int id;
    private final FieldKind kind;

    FieldType(int id, FieldKind kind) {
        this.id = id;
        this.kind = kind;
    }

    public int getId() {
        return id;
    }

    /** The {@link GenericRecord} kind of values of this type. */
    public FieldKind toFieldKind() {
        return kind;
    }

    public boolean isArrayType() {
        return kind.isArray();
    }

    /** The type with this id, or null. */
    public static FieldType get(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /** The portable type holding values of a generic record kind, or null. */
    public static FieldType ofKind(FieldKind kind) {
        for (FieldType t : BY_ID) {
            if (t.kind == kind) {
                return t;
            }
        }
        return null;
    }
}
