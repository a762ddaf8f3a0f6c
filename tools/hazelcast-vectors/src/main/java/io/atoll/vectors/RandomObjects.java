package io.atoll.vectors;

import com.hazelcast.core.HazelcastJsonValue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Random objects for the comparison with Hazelcast, drawn from one seed: compact, portable
 * and identified objects with random fields of every kind (nested objects, nulls, Unicode,
 * extreme numbers, empty and large arrays), and built-in values. A compact type name comes
 * back now and then with other fields (schema evolution); portable and identified types get
 * fresh class ids, so no two classes of a run conflict.
 */
public final class RandomObjects {
    /** A random value: a described object, or a built-in value with its value kind. */
    public record Item(Obj object, String kind, Object builtin) {
    }

    static final String[] COMPACT_KINDS = {"BOOLEAN", "INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "STRING",
        "DECIMAL", "TIME", "DATE", "TIMESTAMP", "TIMESTAMP_WITH_TIMEZONE", "NULLABLE_BOOLEAN", "NULLABLE_INT8",
        "NULLABLE_INT16", "NULLABLE_INT32", "NULLABLE_INT64", "NULLABLE_FLOAT32", "NULLABLE_FLOAT64", "COMPACT"};
    static final String[] PORTABLE_TYPES = {"BOOLEAN", "BYTE", "CHAR", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "UTF",
        "DECIMAL", "TIME", "DATE", "TIMESTAMP", "TIMESTAMP_WITH_TIMEZONE", "PORTABLE"};
    static final String[] IDENTIFIED_CALLS = {"writeBoolean", "writeByte", "writeChar", "writeShort", "writeInt",
        "writeLong", "writeFloat", "writeDouble", "writeString", "writeBooleanArray", "writeByteArray",
        "writeCharArray", "writeShortArray", "writeIntArray", "writeLongArray", "writeFloatArray",
        "writeDoubleArray", "writeStringArray", "writeObject", "writeObjectArray", "writeDataInline",
        "writeInlineArray"};
    /** Value kinds a writeObject field holds (boxed scalars, strings, arrays, nested objects). */
    static final String[] OBJECT_KINDS = {"NULLABLE_BOOLEAN", "NULLABLE_INT8", "CHAR", "NULLABLE_INT16",
        "NULLABLE_INT32", "NULLABLE_INT64", "NULLABLE_FLOAT32", "NULLABLE_FLOAT64", "STRING", "ARRAY_OF_BOOLEAN",
        "ARRAY_OF_INT8", "ARRAY_OF_CHAR", "ARRAY_OF_INT16", "ARRAY_OF_INT32", "ARRAY_OF_INT64", "ARRAY_OF_FLOAT32",
        "ARRAY_OF_FLOAT64", "ARRAY_OF_STRING", "OBJECT"};
    static final String[] OBJECT_ARRAY_KINDS = {"ARRAY_OF_NULLABLE_BOOLEAN", "ARRAY_OF_NULLABLE_INT8",
        "ARRAY_OF_NULLABLE_INT16", "ARRAY_OF_NULLABLE_INT32", "ARRAY_OF_NULLABLE_INT64", "ARRAY_OF_NULLABLE_FLOAT32",
        "ARRAY_OF_NULLABLE_FLOAT64", "ARRAY_OF_STRING", "ARRAY_OF_OBJECT"};
    static final String[] BUILTIN_KINDS = {"BOOLEAN", "INT8", "CHAR", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64",
        "STRING", "UUID", "ARRAY_OF_BOOLEAN", "ARRAY_OF_CHAR", "ARRAY_OF_INT16", "ARRAY_OF_INT32", "ARRAY_OF_INT64",
        "ARRAY_OF_FLOAT32", "ARRAY_OF_FLOAT64", "ARRAY_OF_STRING", "BYTES", "JSON"};
    private static final String[] NAMES = {"id", "name", "value", "count", "price", "tags", "when", "owner", "a", "b",
        "x", "longerFieldName", "field_with_underscores", "über", "名前", "z9"};
    private static final int MAX_DEPTH = 3;

    private final Random r;
    private int nextClass = 1;
    private final List<String> compactNames = new ArrayList<>();

    public RandomObjects(long seed) {
        this.r = new Random(seed);
    }

    public Item next() {
        int p = r.nextInt(100);
        if (p < 30) {
            return new Item(compact(0), null, null);
        }
        if (p < 55) {
            return new Item(portable(0), null, null);
        }
        if (p < 80) {
            return new Item(identified(0), null, null);
        }
        String kind = BUILTIN_KINDS[r.nextInt(BUILTIN_KINDS.length)];
        switch (kind) {
            case "BYTES":
                return new Item(null, "ARRAY_OF_INT8", value("ARRAY_OF_INT8", false));
            case "JSON":
                return new Item(null, "JSON", new HazelcastJsonValue(json(0)));
            default:
                return new Item(null, kind, value(kind, false));
        }
    }

    /**
     * Field names; portable ones are ASCII (Hazelcast stores one byte per character of a
     * portable field name and loses the rest; Atoll refuses such names).
     */
    private List<String> names(boolean ascii) {
        int n = r.nextInt(12) == 0 ? 0 : 1 + r.nextInt(r.nextInt(6) == 0 ? 30 : 8);
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            String name = NAMES[r.nextInt(NAMES.length)] + (r.nextBoolean() ? "" : Integer.toString(out.size()));
            if (!out.contains(name) && (!ascii || name.chars().allMatch(c -> c < 128))) {
                out.add(name);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- compact

    private Obj compact(int depth) {
        String type;
        if (!compactNames.isEmpty() && r.nextInt(8) == 0) {
            type = compactNames.get(r.nextInt(compactNames.size())); // same type, other fields
        } else {
            type = "rnd.Type" + nextClass++;
            compactNames.add(type);
        }
        Obj o = Obj.compact(type);
        for (String name : names(false)) {
            String kind = COMPACT_KINDS[r.nextInt(COMPACT_KINDS.length)];
            boolean array = r.nextInt(3) == 0;
            if (kind.equals("COMPACT") && depth < MAX_DEPTH) {
                Obj shape = compact(depth + 1); // an array's items share one type
                o.nested(name, array ? "ARRAY_OF_COMPACT" : "COMPACT", shape.sameType(),
                        array ? objects(() -> compactLike(shape, depth + 1), true) : maybe(() -> compactLike(shape, depth + 1)));
                continue;
            }
            if (kind.equals("COMPACT")) {
                kind = "STRING";
            }
            String k = array ? "ARRAY_OF_" + kind : kind;
            o.add(name, k, value(k, true));
        }
        return o;
    }

    /** Another value of the type of {@code shape}: same type name and fields, new values. */
    private Obj compactLike(Obj shape, int depth) {
        Obj o = shape.sameType();
        for (Obj.Field f : shape.fields()) {
            if (f.itemType() != null) {
                Object v = f.value();
                Obj inner = v instanceof Obj ? (Obj) v : v instanceof Obj[] ? first((Obj[]) v) : null;
                if (inner == null) {
                    o.nested(f.name(), f.kind(), f.itemType(), null);
                } else if (v instanceof Obj) {
                    o.nested(f.name(), f.kind(), f.itemType(), maybe(() -> compactLike(inner, depth + 1)));
                } else {
                    o.nested(f.name(), f.kind(), f.itemType(), objects(() -> compactLike(inner, depth + 1), true));
                }
            } else {
                o.add(f.name(), f.kind(), value(f.kind(), true));
            }
        }
        return o;
    }

    private static Obj first(Obj[] items) {
        for (Obj o : items) {
            if (o != null) {
                return o;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- portable

    private Obj portable(int depth) {
        Obj o = Obj.portable(3, nextClass++, r.nextInt(4));
        for (String name : names(true)) {
            String type = PORTABLE_TYPES[r.nextInt(PORTABLE_TYPES.length)];
            boolean array = r.nextInt(3) == 0;
            if (type.equals("PORTABLE") && depth >= MAX_DEPTH) {
                type = "UTF";
            }
            if (type.equals("PORTABLE")) {
                Obj proto = portable(depth + 1);
                o.nested(name, array ? "PORTABLE_ARRAY" : "PORTABLE", proto,
                        array ? objects(() -> portableLike(proto), false) : maybe(() -> portableLike(proto)));
                continue;
            }
            String t = array ? type + "_ARRAY" : type;
            o.add(name, t, value(Kinds.valueKind(Obj.Format.PORTABLE, t, null), true, type.equals("UTF")));
        }
        return o;
    }

    private Obj portableLike(Obj proto) {
        Obj o = proto.sameType();
        for (Obj.Field f : proto.fields()) {
            if (f.itemType() != null) {
                o.nested(f.name(), f.kind(), f.itemType(), f.kind().equals("PORTABLE_ARRAY")
                        ? objects(() -> portableLike(f.itemType()), false) : maybe(() -> portableLike(f.itemType())));
            } else {
                o.add(f.name(), f.kind(), value(f.valueKind(), true, f.kind().equals("UTF_ARRAY")));
            }
        }
        return o;
    }

    // ---------------------------------------------------------------- identified

    private Obj identified(int depth) {
        int factory = HazelcastObjects.FIRST_DYNAMIC_FACTORY + r.nextInt(HazelcastObjects.DYNAMIC_FACTORIES);
        Obj o = Obj.identified(factory, nextClass++);
        for (String name : names(false)) {
            String call = IDENTIFIED_CALLS[r.nextInt(IDENTIFIED_CALLS.length)];
            boolean nested = call.equals("writeDataInline") || call.equals("writeInlineArray");
            if (depth >= MAX_DEPTH && (nested || call.startsWith("writeObject"))) {
                call = "writeInt";
                nested = false;
            }
            if (nested) {
                Obj proto = identified(depth + 1);
                o.nested(name, call, proto, call.equals("writeDataInline") ? identifiedLike(proto)
                        : r.nextInt(8) == 0 ? null : array(() -> identifiedLike(proto)));
            } else if (call.equals("writeObject")) {
                String vk = OBJECT_KINDS[r.nextInt(OBJECT_KINDS.length)];
                if (vk.equals("OBJECT")) {
                    Obj proto = identified(depth + 1);
                    o.add(name, call, vk, proto.sameType(), maybe(() -> identifiedLike(proto)));
                } else {
                    o.add(name, call, vk, null, value(vk, true));
                }
            } else if (call.equals("writeObjectArray")) {
                String vk = OBJECT_ARRAY_KINDS[r.nextInt(OBJECT_ARRAY_KINDS.length)];
                if (vk.equals("ARRAY_OF_OBJECT")) {
                    Obj proto = identified(depth + 1);
                    o.add(name, call, vk, proto.sameType(), objects(() -> identifiedLike(proto), true));
                } else {
                    o.add(name, call, vk, null, value(vk, true));
                }
            } else {
                o.add(name, call, value(Kinds.valueKind(Obj.Format.IDENTIFIED, call, null), true));
            }
        }
        return o;
    }

    private Obj identifiedLike(Obj proto) {
        Obj o = proto.sameType();
        for (Obj.Field f : proto.fields()) {
            Object v = f.value();
            switch (f.kind()) {
                case "writeDataInline":
                    o.nested(f.name(), f.kind(), f.itemType(), identifiedLike(f.itemType()));
                    break;
                case "writeInlineArray":
                    o.nested(f.name(), f.kind(), f.itemType(), r.nextInt(8) == 0 ? null : array(() -> identifiedLike(f.itemType())));
                    break;
                default:
                    if (f.valueKind().endsWith("OBJECT")) {
                        Obj inner = v instanceof Obj ? (Obj) v : v instanceof Obj[] ? first((Obj[]) v) : null;
                        Object nv = inner == null ? null : f.valueKind().equals("OBJECT")
                                ? maybe(() -> identifiedLike(inner)) : objects(() -> identifiedLike(inner), true);
                        o.add(f.name(), f.kind(), f.valueKind(), f.itemType(), nv);
                    } else {
                        o.add(f.name(), f.kind(), f.valueKind(), null, value(f.valueKind(), true));
                    }
            }
        }
        return o;
    }

    // ---------------------------------------------------------------- values

    private interface Gen {
        Obj get();
    }

    private Obj maybe(Gen g) {
        return r.nextInt(5) == 0 ? null : g.get();
    }

    /** An array of nested objects (null 1 in 8), with null items if allowed. */
    private Obj[] objects(Gen g, boolean nullItems) {
        if (r.nextInt(8) == 0) {
            return null;
        }
        Obj[] out = array(g);
        for (int i = 0; nullItems && i < out.length; i++) {
            if (r.nextInt(5) == 0) {
                out[i] = null;
            }
        }
        return out;
    }

    private Obj[] array(Gen g) {
        Obj[] out = new Obj[r.nextInt(4)];
        for (int i = 0; i < out.length; i++) {
            out[i] = g.get();
        }
        return out;
    }

    private int length() {
        int p = r.nextInt(40);
        return p == 0 ? 200 + r.nextInt(3000) : p < 6 ? 0 : r.nextInt(8);
    }

    Object value(String vk, boolean nullable) {
        return value(vk, nullable, nullable);
    }

    /**
     * A random value of a value kind; {@code nullable} allows null where the kind can hold it
     * (strings, decimals, temporal values, arrays, nullable kinds), {@code nullItems} null items
     * in arrays of such kinds (never in arrays of primitives).
     */
    Object value(String vk, boolean nullable, boolean nullItems) {
        boolean canBeNull = nullable && (vk.startsWith("ARRAY_OF_") || vk.startsWith("NULLABLE_") || vk.equals("STRING")
                || vk.equals("DECIMAL") || vk.equals("TIME") || vk.equals("DATE") || vk.startsWith("TIMESTAMP"));
        if (canBeNull && r.nextInt(8) == 0) {
            return null;
        }
        if (vk.startsWith("ARRAY_OF_")) {
            String item = vk.substring("ARRAY_OF_".length());
            int n = length();
            switch (item) {
                case "BOOLEAN": {
                    boolean[] a = new boolean[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = r.nextBoolean();
                    }
                    return a;
                }
                case "INT8": {
                    byte[] a = new byte[n];
                    r.nextBytes(a);
                    return a;
                }
                case "CHAR": {
                    char[] a = new char[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = (Character) scalar("CHAR");
                    }
                    return a;
                }
                case "INT16": {
                    short[] a = new short[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = (Short) scalar("INT16");
                    }
                    return a;
                }
                case "INT32": {
                    int[] a = new int[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = (Integer) scalar("INT32");
                    }
                    return a;
                }
                case "INT64": {
                    long[] a = new long[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = (Long) scalar("INT64");
                    }
                    return a;
                }
                case "FLOAT32": {
                    float[] a = new float[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = (Float) scalar("FLOAT32");
                    }
                    return a;
                }
                case "FLOAT64": {
                    double[] a = new double[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = (Double) scalar("FLOAT64");
                    }
                    return a;
                }
                default: {
                    String base = item.startsWith("NULLABLE_") ? item.substring("NULLABLE_".length()) : item;
                    Object[] a = (Object[]) java.lang.reflect.Array.newInstance(boxed(base), n);
                    for (int i = 0; i < n; i++) {
                        a[i] = nullItems && r.nextInt(6) == 0 ? null : scalar(base);
                    }
                    return a;
                }
            }
        }
        return scalar(vk.startsWith("NULLABLE_") ? vk.substring("NULLABLE_".length()) : vk);
    }

    private static Class<?> boxed(String kind) {
        switch (kind) {
            case "BOOLEAN": return Boolean.class;
            case "INT8": return Byte.class;
            case "INT16": return Short.class;
            case "INT32": return Integer.class;
            case "INT64": return Long.class;
            case "FLOAT32": return Float.class;
            case "FLOAT64": return Double.class;
            case "STRING": return String.class;
            case "DECIMAL": return BigDecimal.class;
            case "TIME": return LocalTime.class;
            case "DATE": return LocalDate.class;
            case "TIMESTAMP": return LocalDateTime.class;
            case "TIMESTAMP_WITH_TIMEZONE": return OffsetDateTime.class;
            default: throw new IllegalArgumentException("no array of " + kind);
        }
    }

    private static final long[] LONG_EDGES = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE,
        255, 256, -128, 65535, 1L << 32};
    private static final float[] FLOAT_EDGES = {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
        Float.MIN_VALUE, Float.MAX_VALUE, Float.MIN_NORMAL, 1f, -1.5f};
    private static final double[] DOUBLE_EDGES = {0d, -0d, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, 0.1, -1e300};

    private long integer() {
        return r.nextInt(4) == 0 ? LONG_EDGES[r.nextInt(LONG_EDGES.length)] : r.nextLong() >> r.nextInt(64);
    }

    private Object scalar(String kind) {
        switch (kind) {
            case "BOOLEAN": return r.nextBoolean();
            case "INT8": return (byte) integer();
            case "INT16": return (short) integer();
            case "INT32": return (int) integer();
            case "INT64": return integer();
            case "CHAR": return codeUnit();
            case "FLOAT32": {
                if (r.nextInt(4) == 0) {
                    return FLOAT_EDGES[r.nextInt(FLOAT_EDGES.length)];
                }
                float f = Float.intBitsToFloat(r.nextInt());
                return Float.isNaN(f) ? Float.NaN : f; // Java writes NaN in its canonical form
            }
            case "FLOAT64": {
                if (r.nextInt(4) == 0) {
                    return DOUBLE_EDGES[r.nextInt(DOUBLE_EDGES.length)];
                }
                double d = Double.longBitsToDouble(r.nextLong());
                return Double.isNaN(d) ? Double.NaN : d;
            }
            case "STRING": return string();
            case "DECIMAL": return new BigDecimal(new BigInteger(r.nextInt(4) == 0 ? 1 + r.nextInt(300) : 1 + r.nextInt(64), r)
                    .multiply(BigInteger.valueOf(r.nextBoolean() ? 1 : -1)), r.nextInt(60) - 20);
            case "TIME": return time();
            case "DATE": return date();
            case "TIMESTAMP": return LocalDateTime.of(date(), time());
            case "TIMESTAMP_WITH_TIMEZONE": return OffsetDateTime.of(LocalDateTime.of(date(), time()),
                    ZoneOffset.ofTotalSeconds(r.nextInt(4) == 0 ? (r.nextBoolean() ? 64800 : -64800) : r.nextInt(129601) - 64800));
            case "UUID": return new UUID(r.nextLong(), r.nextLong());
            default: throw new IllegalArgumentException("no scalar of kind " + kind);
        }
    }

    private LocalTime time() {
        return LocalTime.of(r.nextInt(24), r.nextInt(60), r.nextInt(60), r.nextInt(4) == 0 ? 999_999_999 : r.nextInt(1_000_000_000));
    }

    private LocalDate date() {
        int year = r.nextInt(8) == 0 ? (r.nextBoolean() ? Short.MAX_VALUE : Short.MIN_VALUE) : r.nextInt(4000) - 1000;
        LocalDate start = LocalDate.of(year, 1, 1);
        return start.plusDays(r.nextInt(start.lengthOfYear()));
    }

    private char codeUnit() {
        int p = r.nextInt(10);
        if (p < 5) {
            return (char) (32 + r.nextInt(95));
        }
        if (p < 7) {
            return (char) (0x80 + r.nextInt(0x780));
        }
        if (p < 8) {
            return (char) 0;
        }
        return (char) (0x800 + r.nextInt(0xD800 - 0x800)); // three-byte UTF-8, no surrogates
    }

    /** A string of ASCII, two-, three- and four-byte UTF-8 characters and NUL; rarely long. */
    String string() {
        int n = r.nextInt(20) == 0 ? 200 + r.nextInt(2000) : r.nextInt(12);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            if (r.nextInt(12) == 0) {
                sb.appendCodePoint(0x10000 + r.nextInt(0x10FFFF - 0x10000)); // a surrogate pair
            } else {
                sb.append(codeUnit());
            }
        }
        return sb.toString();
    }

    private String json(int depth) {
        if (depth > 2 || r.nextInt(3) == 0) {
            switch (r.nextInt(4)) {
                case 0: return Long.toString(integer());
                case 1: return r.nextBoolean() ? "true" : "null";
                default: return quote(string());
            }
        }
        StringBuilder sb = new StringBuilder(r.nextBoolean() ? "{" : "[");
        boolean object = sb.charAt(0) == '{';
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",");
            if (object) {
                sb.append(quote(NAMES[r.nextInt(NAMES.length)] + i)).append(':');
            }
            sb.append(json(depth + 1));
        }
        return sb.append(object ? '}' : ']').toString();
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
