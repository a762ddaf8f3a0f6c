package io.atoll.client.serialization;

/** Serializer type ids, stored big-endian at bytes 4..7 of every {@link Data}. */
public final class SerializationConstants {
    private SerializationConstants() {
    }

    public static final int CONSTANT_TYPE_NULL = 0;
    public static final int CONSTANT_TYPE_PORTABLE = -1;
    public static final int CONSTANT_TYPE_DATA_SERIALIZABLE = -2;
    public static final int CONSTANT_TYPE_BYTE = -3;
    public static final int CONSTANT_TYPE_BOOLEAN = -4;
    public static final int CONSTANT_TYPE_CHAR = -5;
    public static final int CONSTANT_TYPE_SHORT = -6;
    public static final int CONSTANT_TYPE_INTEGER = -7;
    public static final int CONSTANT_TYPE_LONG = -8;
    public static final int CONSTANT_TYPE_FLOAT = -9;
    public static final int CONSTANT_TYPE_DOUBLE = -10;
    public static final int CONSTANT_TYPE_STRING = -11;
    public static final int CONSTANT_TYPE_BYTE_ARRAY = -12;
    public static final int CONSTANT_TYPE_BOOLEAN_ARRAY = -13;
    public static final int CONSTANT_TYPE_CHAR_ARRAY = -14;
    public static final int CONSTANT_TYPE_SHORT_ARRAY = -15;
    public static final int CONSTANT_TYPE_INTEGER_ARRAY = -16;
    public static final int CONSTANT_TYPE_LONG_ARRAY = -17;
    public static final int CONSTANT_TYPE_FLOAT_ARRAY = -18;
    public static final int CONSTANT_TYPE_DOUBLE_ARRAY = -19;
    public static final int CONSTANT_TYPE_STRING_ARRAY = -20;
    public static final int CONSTANT_TYPE_UUID = -21;
    public static final int CONSTANT_TYPE_COMPACT = -55;
    public static final int CONSTANT_TYPE_COMPACT_WITH_SCHEMA = -56;
    public static final int JAVA_DEFAULT_TYPE_SERIALIZABLE = -100;
    public static final int JAVA_DEFAULT_TYPE_EXTERNALIZABLE = -101;
    public static final int JAVASCRIPT_JSON_SERIALIZATION_TYPE = -130;

    /** Factory id of the embedded compact schema object (type -56). */
    public static final int SCHEMA_FACTORY_ID = -42;
    /** Class id of the embedded compact schema object (type -56). */
    public static final int SCHEMA_CLASS_ID = 1;
}
