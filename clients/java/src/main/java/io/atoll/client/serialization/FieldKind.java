package io.atoll.client.serialization;

/**
 * Kind of a field of a {@link GenericRecord}, a compact {@link Schema} or an
 * {@link IdentifiedLayout}. Ids 0..46 are the wire ids of the compact format (the
 * schema id fingerprints them); {@link #IDENTIFIED} and {@link #ARRAY_OF_IDENTIFIED}
 * describe nested identified values in layouts and never appear in a schema.
 */
public enum FieldKind {
    /** Returned by {@code getFieldKind} for a field that does not exist. */
    NOT_AVAILABLE(0),
    BOOLEAN(1),
    ARRAY_OF_BOOLEAN(2),
    INT8(3),
    ARRAY_OF_INT8(4),
    /** Portable and identified only. */
    CHAR(5),
    /** Portable and identified only. */
    ARRAY_OF_CHAR(6),
    INT16(7),
    ARRAY_OF_INT16(8),
    INT32(9),
    ARRAY_OF_INT32(10),
    INT64(11),
    ARRAY_OF_INT64(12),
    FLOAT32(13),
    ARRAY_OF_FLOAT32(14),
    FLOAT64(15),
    ARRAY_OF_FLOAT64(16),
    STRING(17),
    ARRAY_OF_STRING(18),
    DECIMAL(19),
    ARRAY_OF_DECIMAL(20),
    TIME(21),
    ARRAY_OF_TIME(22),
    DATE(23),
    ARRAY_OF_DATE(24),
    TIMESTAMP(25),
    ARRAY_OF_TIMESTAMP(26),
    TIMESTAMP_WITH_TIMEZONE(27),
    ARRAY_OF_TIMESTAMP_WITH_TIMEZONE(28),
    COMPACT(29),
    ARRAY_OF_COMPACT(30),
    /** Portable only. */
    PORTABLE(31),
    /** Portable only. */
    ARRAY_OF_PORTABLE(32),
    NULLABLE_BOOLEAN(33),
    ARRAY_OF_NULLABLE_BOOLEAN(34),
    NULLABLE_INT8(35),
    ARRAY_OF_NULLABLE_INT8(36),
    NULLABLE_INT16(37),
    ARRAY_OF_NULLABLE_INT16(38),
    NULLABLE_INT32(39),
    ARRAY_OF_NULLABLE_INT32(40),
    NULLABLE_INT64(41),
    ARRAY_OF_NULLABLE_INT64(42),
    NULLABLE_FLOAT32(43),
    ARRAY_OF_NULLABLE_FLOAT32(44),
    NULLABLE_FLOAT64(45),
    ARRAY_OF_NULLABLE_FLOAT64(46),
    /** Identified layouts only: a nested identified value. Not a wire id. */
    IDENTIFIED(1001),
    /** Identified layouts only: an array of nested identified values. Not a wire id. */
    ARRAY_OF_IDENTIFIED(1002);

    private static final FieldKind[] BY_ID = new FieldKind[47];

    static {
        for (FieldKind k : values()) {
            if (k.id < BY_ID.length) {
                BY_ID[k.id] = k;
            }
        }
    }

    private final int id;

    FieldKind(int id) {
        this.id = id;
    }

    /** Wire id. */
    public int getId() {
        return id;
    }

    /** The kind with the given wire id, or null. */
    public static FieldKind ofId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /** Whether a compact schema may hold a field of this kind. */
    public boolean isCompactKind() {
        switch (this) {
            case NOT_AVAILABLE:
            case CHAR:
            case ARRAY_OF_CHAR:
            case PORTABLE:
            case ARRAY_OF_PORTABLE:
            case IDENTIFIED:
            case ARRAY_OF_IDENTIFIED:
                return false;
            default:
                return true;
        }
    }

    /** Size in the compact fixed-size section: 1..8 bytes, 0 for BOOLEAN (a bit), -1 for variable-size kinds. */
    public int compactFixedSize() {
        switch (this) {
            case BOOLEAN:
                return 0;
            case INT8:
                return 1;
            case INT16:
                return 2;
            case INT32:
            case FLOAT32:
                return 4;
            case INT64:
            case FLOAT64:
                return 8;
            default:
                return -1;
        }
    }

    /** Whether this kind is an array kind. */
    public boolean isArray() {
        return name().startsWith("ARRAY_OF_");
    }
}
