package io.atoll.vectors;

import java.util.Map;

/** Value kinds of field kinds, portable type names and identified write calls. */
final class Kinds {
    private Kinds() {
    }

    /** Portable FieldType names of scalars, by value kind's name. */
    private static final Map<String, String> PORTABLE = Map.ofEntries(
            Map.entry("BOOLEAN", "BOOLEAN"), Map.entry("BYTE", "INT8"), Map.entry("CHAR", "CHAR"),
            Map.entry("SHORT", "INT16"), Map.entry("INT", "INT32"), Map.entry("LONG", "INT64"),
            Map.entry("FLOAT", "FLOAT32"), Map.entry("DOUBLE", "FLOAT64"), Map.entry("UTF", "STRING"),
            Map.entry("PORTABLE", "OBJECT"), Map.entry("DECIMAL", "DECIMAL"), Map.entry("TIME", "TIME"),
            Map.entry("DATE", "DATE"), Map.entry("TIMESTAMP", "TIMESTAMP"),
            Map.entry("TIMESTAMP_WITH_TIMEZONE", "TIMESTAMP_WITH_TIMEZONE"));

    /** Identified write calls of scalars and arrays. */
    private static final Map<String, String> IDENTIFIED = Map.ofEntries(
            Map.entry("writeBoolean", "BOOLEAN"), Map.entry("writeByte", "INT8"), Map.entry("writeChar", "CHAR"),
            Map.entry("writeShort", "INT16"), Map.entry("writeInt", "INT32"), Map.entry("writeLong", "INT64"),
            Map.entry("writeFloat", "FLOAT32"), Map.entry("writeDouble", "FLOAT64"), Map.entry("writeString", "STRING"),
            Map.entry("writeBooleanArray", "ARRAY_OF_BOOLEAN"), Map.entry("writeByteArray", "ARRAY_OF_INT8"),
            Map.entry("writeCharArray", "ARRAY_OF_CHAR"), Map.entry("writeShortArray", "ARRAY_OF_INT16"),
            Map.entry("writeIntArray", "ARRAY_OF_INT32"), Map.entry("writeLongArray", "ARRAY_OF_INT64"),
            Map.entry("writeFloatArray", "ARRAY_OF_FLOAT32"), Map.entry("writeDoubleArray", "ARRAY_OF_FLOAT64"),
            Map.entry("writeStringArray", "ARRAY_OF_STRING"), Map.entry("writeDataInline", "OBJECT"),
            Map.entry("writeInlineArray", "ARRAY_OF_OBJECT"), Map.entry("writeObject", "OBJECT"),
            Map.entry("writeObjectArray", "ARRAY_OF_OBJECT"));

    static String valueKind(Obj.Format format, String kind, Object value) {
        switch (format) {
            case COMPACT:
                return kind.equals("COMPACT") ? "OBJECT" : kind.equals("ARRAY_OF_COMPACT") ? "ARRAY_OF_OBJECT" : kind;
            case PORTABLE: {
                boolean array = kind.endsWith("_ARRAY");
                String item = PORTABLE.get(array ? kind.substring(0, kind.length() - "_ARRAY".length()) : kind);
                if (item == null) {
                    throw new IllegalArgumentException("no portable type " + kind);
                }
                return array ? "ARRAY_OF_" + item : item;
            }
            default: {
                String vk = IDENTIFIED.get(kind);
                if (vk == null) {
                    throw new IllegalArgumentException("no identified call " + kind);
                }
                return vk;
            }
        }
    }

    /** Hazelcast's id of a compact field kind or portable field type. */
    static int kindId(Obj.Format format, String kind) {
        return format == Obj.Format.COMPACT
                ? com.hazelcast.nio.serialization.FieldKind.valueOf(kind).getId()
                : com.hazelcast.nio.serialization.FieldType.valueOf(kind).getId();
    }
}
