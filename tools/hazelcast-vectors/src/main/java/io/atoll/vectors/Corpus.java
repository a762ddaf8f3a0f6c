package io.atoll.vectors;

import com.hazelcast.core.HazelcastJsonValue;
import io.atoll.bench.hazelcast.model.IdentifiedModel;
import io.atoll.bench.hazelcast.model.Large;
import io.atoll.bench.hazelcast.model.PortableModel;
import io.atoll.bench.hazelcast.model.Small;
import io.atoll.bench.hazelcast.model.Values;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * The committed vectors: one list per file of testdata/vectors. Every value is serialized by
 * Hazelcast's own serialization service; see testdata/vectors/README.md for what each file holds.
 */
final class Corpus {
    /** Vectors drawn from the random generator with a fixed seed, committed as random.json. */
    static final long RANDOM_SEED = 20261121L;
    static final int RANDOM_COUNT = 60;

    private final VectorJson json;

    Corpus(HazelcastObjects hz) {
        this.json = new VectorJson(hz);
    }

    /** File name → vectors, in file order. */
    Map<String, List<Map<String, Object>>> files() {
        Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
        out.put("primitive.json", primitives());
        out.put("bytearray.json", byteArrays());
        out.put("json.json", jsons());
        out.put("keys.json", keys());
        out.put("compact.json", compacts());
        out.put("portable.json", portables());
        out.put("identified.json", identifieds());
        out.put("random.json", randoms());
        return out;
    }

    private List<Map<String, Object>> primitives() {
        List<Map<String, Object>> v = new ArrayList<>();
        v.add(json.builtin("int_42", "Integer 42", "INT32", 42));
        v.add(json.builtin("int_min", "Integer.MIN_VALUE", "INT32", Integer.MIN_VALUE));
        v.add(json.builtin("int_max", "Integer.MAX_VALUE", "INT32", Integer.MAX_VALUE));
        v.add(json.builtin("long_big", "Long 1234567890123456789", "INT64", 1234567890123456789L));
        v.add(json.builtin("long_min", "Long.MIN_VALUE", "INT64", Long.MIN_VALUE));
        v.add(json.builtin("byte_min", "Byte -128", "INT8", (byte) -128));
        v.add(json.builtin("short_neg", "Short -2", "INT16", (short) -2));
        v.add(json.builtin("char_e_acute", "Character U+00E9", "CHAR", 'é'));
        v.add(json.builtin("char_nul", "Character U+0000", "CHAR", '\0'));
        v.add(json.builtin("boolean_true", "Boolean true", "BOOLEAN", true));
        v.add(json.builtin("boolean_false", "Boolean false", "BOOLEAN", false));
        v.add(json.builtin("float_neg_zero", "Float -0.0", "FLOAT32", -0.0f));
        v.add(json.builtin("float_min", "Float.MIN_VALUE (smallest subnormal)", "FLOAT32", Float.MIN_VALUE));
        v.add(json.builtin("double_nan", "Double NaN (canonical 0x7ff8000000000000)", "FLOAT64", Double.NaN));
        v.add(json.builtin("double_neg_inf", "Double -Infinity", "FLOAT64", Double.NEGATIVE_INFINITY));
        v.add(json.builtin("double_tenth", "Double 0.1", "FLOAT64", 0.1));
        v.add(json.builtin("string_hello", "String hello", "STRING", "hello"));
        v.add(json.builtin("string_empty", "empty String", "STRING", ""));
        v.add(json.builtin("string_unicode", "String with 2-, 3- and 4-byte UTF-8 sequences", "STRING", "héllo wörld ✓ 日本語 😀"));
        v.add(json.builtin("string_nul", "String holding U+0000 between letters", "STRING", "a\0b"));
        v.add(json.builtin("uuid_value", "java.util.UUID", "UUID", UUID.fromString("123e4567-e89b-12d3-a456-426614174000")));
        v.add(json.builtin("uuid_zero", "UUID with all bits zero", "UUID", new UUID(0, 0)));
        v.add(json.builtin("boolean_array", "boolean[] {true, false, true}", "ARRAY_OF_BOOLEAN", new boolean[] {true, false, true}));
        v.add(json.builtin("char_array", "char[] with a surrogate pair", "ARRAY_OF_CHAR", "a\uD83D\uDE00".toCharArray()));
        v.add(json.builtin("short_array", "short[] {MIN, 0, MAX}", "ARRAY_OF_INT16", new short[] {Short.MIN_VALUE, 0, Short.MAX_VALUE}));
        v.add(json.builtin("int_array", "int[] {1, -1, MAX}", "ARRAY_OF_INT32", new int[] {1, -1, Integer.MAX_VALUE}));
        v.add(json.builtin("int_array_empty", "empty int[]", "ARRAY_OF_INT32", new int[0]));
        v.add(json.builtin("long_array", "long[] {MIN, MAX}", "ARRAY_OF_INT64", new long[] {Long.MIN_VALUE, Long.MAX_VALUE}));
        v.add(json.builtin("float_array", "float[] {NaN, -Inf, 1.5}", "ARRAY_OF_FLOAT32", new float[] {Float.NaN, Float.NEGATIVE_INFINITY, 1.5f}));
        v.add(json.builtin("double_array", "double[] {-0.0, MAX}", "ARRAY_OF_FLOAT64", new double[] {-0.0, Double.MAX_VALUE}));
        v.add(json.builtin("string_array", "String[] with a null item", "ARRAY_OF_STRING", new String[] {"a", null, "é"}));
        v.add(json.builtin("string_array_empty", "empty String[]", "ARRAY_OF_STRING", new String[0]));
        return v;
    }

    private List<Map<String, Object>> byteArrays() {
        byte[] b300 = new byte[300];
        for (int i = 0; i < b300.length; i++) {
            b300[i] = (byte) i;
        }
        return List.of(
                json.builtin("bytes_empty", "empty byte[]", "ARRAY_OF_INT8", new byte[0]),
                json.builtin("bytes_small", "byte[] {0,1,2,-1}", "ARRAY_OF_INT8", new byte[] {0, 1, 2, -1}),
                json.builtin("bytes_300", "300-byte byte[] 0..255,0..43", "ARRAY_OF_INT8", b300),
                json.builtin("bytes_bench_small_key1", "byte[] the benchmark stores under key 1 of a SMALL map (43 bytes)",
                        "ARRAY_OF_INT8", Values.bytesForKey(1, 43)));
    }

    private List<Map<String, Object>> jsons() {
        return List.of(
                json.builtin("json_object", "HazelcastJsonValue object", "JSON", new HazelcastJsonValue("{\"a\":1,\"b\":[true,null]}")),
                json.builtin("json_array", "HazelcastJsonValue array", "JSON", new HazelcastJsonValue("[1,2.5,\"x\"]")),
                json.builtin("json_adoc_key1", "Query document for key 1 as the benchmark writes it", "JSON", new HazelcastJsonValue(Values.json(1))),
                json.builtin("json_unicode", "HazelcastJsonValue with non-ASCII text", "JSON", new HazelcastJsonValue("{\"name\":\"Zoë 😀\"}")),
                json.builtin("json_empty", "HazelcastJsonValue of empty text (not validated)", "JSON", new HazelcastJsonValue("")));
    }

    private List<Map<String, Object>> keys() {
        List<Map<String, Object>> v = new ArrayList<>();
        String[] strings = {"0", "key-1", "key-42", "user@example.com", "", "über-😀"};
        for (int i = 0; i < strings.length; i++) {
            v.add(key(json.builtin("key_string_" + i, "String key \"" + strings[i] + "\"", "STRING", strings[i])));
        }
        for (int k : new int[] {0, -1, 271, 99999}) {
            v.add(key(json.builtin("key_int_" + (k < 0 ? "m" + -k : k), "Integer key " + k, "INT32", k)));
        }
        v.add(key(json.builtin("key_long_9999999999", "Long key 9999999999", "INT64", 9999999999L)));
        v.add(key(json.builtin("key_bytes_123", "byte[] key {1,2,3}", "ARRAY_OF_INT8", new byte[] {1, 2, 3})));
        v.add(key(json.builtin("key_uuid", "java.util.UUID key", "UUID", UUID.fromString("3f2504e0-4f89-11d3-9a0c-0305e82c3301"))));
        return v;
    }

    private static Map<String, Object> key(Map<String, Object> v) {
        v.put("role", "key");
        return v;
    }

    private static Large fixedLarge() {
        Large l = Values.large(new Random(Values.FIXED_SEED));
        l.stringField = "large";
        return l;
    }

    private List<Map<String, Object>> compacts() {
        List<Map<String, Object>> v = new ArrayList<>();
        Small s1 = Values.smallForKey(1);
        Small s1000 = Values.smallForKey(1000);
        Large l1 = Values.largeForKey(1);
        v.add(json.modelObject("compact_small_bench_key1", "SMALL value the benchmark stores under key 1", ModelObjects.compactSmall(s1), s1));
        v.add(json.modelObject("compact_small_bench_key1000", "SMALL value the benchmark stores under key 1000 (\"metin\")",
                ModelObjects.compactSmall(s1000), s1000));
        v.add(json.modelObject("compact_large_bench_key1", "LARGE value the benchmark stores under key 1", ModelObjects.compactLarge(l1), l1));
        Large fixed = fixedLarge();
        v.add(json.modelObject("compact_large_basic", "LARGE (declaration-order serializer, as in the benchmark) with nested SMALL and SMALL[3]",
                ModelObjects.compactLarge(fixed), fixed));
        v.add(json.object("compact_large_basic_schema_order",
                "Same object as compact_large_basic written as a GenericRecord (schema order): same schema id, other variable-size layout",
                ModelObjects.compactLarge(fixed)));
        Large empty = fixedLarge();
        empty.booleanArray = new boolean[0];
        empty.byteArray = new byte[0];
        empty.intArray = new int[0];
        empty.stringField = "";
        empty.stringArray = new String[0];
        empty.smallArray = new Small[0];
        v.add(json.modelObject("compact_large_empty", "LARGE with empty arrays and an empty string", ModelObjects.compactLarge(empty), empty));
        Large nulls = fixedLarge();
        nulls.booleanArray = null;
        nulls.longArray = null;
        nulls.stringField = null;
        nulls.stringArray = new String[] {"x", null};
        nulls.small = null;
        nulls.smallArray = null;
        v.add(json.modelObject("compact_large_nulls", "LARGE with null arrays, string, nested object and a null string item",
                ModelObjects.compactLarge(nulls), nulls));
        v.add(json.objectWithSchema("compact_small_with_schema", "SMALL with its schema embedded (type id -56)", ModelObjects.compactSmall(s1)));
        v.add(json.object("compact_adoc_key1", "Query document for key 1: long value + int[20] payload",
                Obj.compact("adoc").add("value", "INT64", 1L).add("payload", "ARRAY_OF_INT32", Values.payload(1))));
        v.add(json.object("compact_every_kind", "Every compact kind once, with values", everyCompactKind(false)));
        v.add(json.object("compact_every_kind_null", "Every compact kind once: every variable-size and nullable field null",
                everyCompactKind(true)));
        Obj bools = Obj.compact("bools").add("b", "INT8", (byte) 7);
        for (int i = 0; i < 20; i++) {
            bools.add("flag" + (char) ('a' + i), "BOOLEAN", i % 3 == 0);
        }
        bools.add("bitArray", "ARRAY_OF_BOOLEAN", new boolean[] {true, false, true, true, false, false, true, true, true, false, true});
        v.add(json.object("compact_many_booleans", "20 BOOLEAN fields bit-packed after an INT8, and an 11-item boolean[]", bools));
        v.add(json.object("compact_fixed_only", "Only fixed-size fields: no data length and no offset table",
                Obj.compact("fixedOnly").add("i", "INT32", -5).add("d", "FLOAT64", -0.0).add("t", "BOOLEAN", true)));
        v.add(json.object("compact_empty", "A compact type with no fields", Obj.compact("empty")));
        v.add(json.object("compact_offsets_1byte_boundary", "One STRING; data length 4+250 = 254: one-byte offsets",
                Obj.compact("str").add("s", "STRING", "x".repeat(246))));
        v.add(json.object("compact_offsets_2byte_boundary", "One STRING; data length 4+251 = 255: two-byte offsets",
                Obj.compact("str").add("s", "STRING", "x".repeat(247))));
        byte[] big = new byte[65536];
        new Random(1).nextBytes(big);
        v.add(json.object("compact_offsets_4byte", "A 65536-byte int8 array: data length above 65535, four-byte offsets",
                Obj.compact("big").add("bytes", "ARRAY_OF_INT8", big).add("tail", "STRING", "end")));
        Obj smallType = Obj.compact("small");
        v.add(json.object("compact_nested_array_with_null", "Array of compact with a null item, and a null nested compact",
                Obj.compact("Holder")
                        .nested("items", "ARRAY_OF_COMPACT", smallType, new Obj[] {ModelObjects.compactSmall(s1), null, ModelObjects.compactSmall(s1000)})
                        .nested("single", "COMPACT", smallType, null)));
        Obj leaf = Obj.compact("node").add("name", "STRING", "leaf");
        Obj mid = Obj.compact("mid").add("name", "STRING", "mid").nested("child", "COMPACT", leaf.sameType(), leaf);
        v.add(json.object("compact_nested_three_levels", "Compact in compact in compact",
                Obj.compact("top").add("id", "INT32", 1).nested("child", "COMPACT", mid.sameType(), mid)));
        // Schema evolution: one type name, three schemas; readers know all three at once.
        v.add(json.object("compact_evolution_v1", "Type 'person', first schema (name, age)",
                Obj.compact("person").add("name", "STRING", "Ada").add("age", "INT32", 36)));
        v.add(json.object("compact_evolution_v2", "Type 'person', a field added (email): another schema id",
                Obj.compact("person").add("name", "STRING", "Ada").add("age", "INT32", 36).add("email", "STRING", "ada@example.com")));
        v.add(json.object("compact_evolution_v3", "Type 'person', a field's kind changed (age: NULLABLE_INT64) and one removed",
                Obj.compact("person").add("name", "STRING", "Ada").add("age", "NULLABLE_INT64", null)));
        return v;
    }

    /** One field of every compact kind (nested compact included). */
    private static Obj everyCompactKind(boolean nulls) {
        Obj o = Obj.compact("everyKind");
        o.add("boolean", "BOOLEAN", true).add("int8", "INT8", Byte.MIN_VALUE).add("int16", "INT16", Short.MAX_VALUE)
                .add("int32", "INT32", Integer.MIN_VALUE).add("int64", "INT64", Long.MAX_VALUE)
                .add("float32", "FLOAT32", Float.NaN).add("float64", "FLOAT64", Double.NEGATIVE_INFINITY);
        o.add("string", "STRING", nulls ? null : "ünïcødé 😀");
        o.add("decimal", "DECIMAL", nulls ? null : new BigDecimal(new BigInteger("-123456789012345678901234567890"), 7));
        o.add("time", "TIME", nulls ? null : LocalTime.of(23, 59, 59, 999_999_999));
        o.add("date", "DATE", nulls ? null : LocalDate.of(-1, 12, 31));
        o.add("timestamp", "TIMESTAMP", nulls ? null : LocalDateTime.of(2024, 2, 29, 12, 0));
        o.add("timestampTz", "TIMESTAMP_WITH_TIMEZONE", nulls ? null
                : OffsetDateTime.of(2023, 6, 15, 8, 30, 0, 1, ZoneOffset.ofHoursMinutesSeconds(-18, 0, 0)));
        Obj inner = Obj.compact("inner").add("x", "INT32", 9);
        o.nested("compact", "COMPACT", inner.sameType(), nulls ? null : inner);
        o.add("arrayOfBoolean", "ARRAY_OF_BOOLEAN", nulls ? null : new boolean[] {true, false});
        o.add("arrayOfInt8", "ARRAY_OF_INT8", nulls ? null : new byte[] {-1, 0, 1});
        o.add("arrayOfInt16", "ARRAY_OF_INT16", nulls ? null : new short[] {1});
        o.add("arrayOfInt32", "ARRAY_OF_INT32", nulls ? null : new int[] {});
        o.add("arrayOfInt64", "ARRAY_OF_INT64", nulls ? null : new long[] {Long.MIN_VALUE});
        o.add("arrayOfFloat32", "ARRAY_OF_FLOAT32", nulls ? null : new float[] {-0.0f});
        o.add("arrayOfFloat64", "ARRAY_OF_FLOAT64", nulls ? null : new double[] {Double.MIN_VALUE});
        o.add("arrayOfString", "ARRAY_OF_STRING", nulls ? null : new String[] {"", null, "x"});
        o.add("arrayOfDecimal", "ARRAY_OF_DECIMAL", nulls ? null : new BigDecimal[] {BigDecimal.ONE, null, new BigDecimal("-0.001")});
        o.add("arrayOfTime", "ARRAY_OF_TIME", nulls ? null : new LocalTime[] {LocalTime.MIDNIGHT, null});
        o.add("arrayOfDate", "ARRAY_OF_DATE", nulls ? null : new LocalDate[] {LocalDate.of(1970, 1, 1)});
        o.add("arrayOfTimestamp", "ARRAY_OF_TIMESTAMP", nulls ? null : new LocalDateTime[] {null, LocalDateTime.of(1, 1, 1, 0, 0)});
        o.add("arrayOfTimestampTz", "ARRAY_OF_TIMESTAMP_WITH_TIMEZONE", nulls ? null
                : new OffsetDateTime[] {OffsetDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.ofTotalSeconds(64800))});
        o.nested("arrayOfCompact", "ARRAY_OF_COMPACT", inner.sameType(), nulls ? null : new Obj[] {inner, null});
        o.add("nullableBoolean", "NULLABLE_BOOLEAN", nulls ? null : false);
        o.add("nullableInt8", "NULLABLE_INT8", nulls ? null : (byte) 1);
        o.add("nullableInt16", "NULLABLE_INT16", nulls ? null : (short) -1);
        o.add("nullableInt32", "NULLABLE_INT32", nulls ? null : 0);
        o.add("nullableInt64", "NULLABLE_INT64", nulls ? null : -1L);
        o.add("nullableFloat32", "NULLABLE_FLOAT32", nulls ? null : Float.POSITIVE_INFINITY);
        o.add("nullableFloat64", "NULLABLE_FLOAT64", nulls ? null : -0.0);
        o.add("arrayOfNullableBoolean", "ARRAY_OF_NULLABLE_BOOLEAN", nulls ? null : new Boolean[] {true, null});
        o.add("arrayOfNullableInt8", "ARRAY_OF_NULLABLE_INT8", nulls ? null : new Byte[] {null, 5});
        o.add("arrayOfNullableInt16", "ARRAY_OF_NULLABLE_INT16", nulls ? null : new Short[] {7});
        o.add("arrayOfNullableInt32", "ARRAY_OF_NULLABLE_INT32", nulls ? null : new Integer[] {null});
        o.add("arrayOfNullableInt64", "ARRAY_OF_NULLABLE_INT64", nulls ? null : new Long[] {Long.MAX_VALUE, null});
        o.add("arrayOfNullableFloat32", "ARRAY_OF_NULLABLE_FLOAT32", nulls ? null : new Float[] {Float.NaN});
        o.add("arrayOfNullableFloat64", "ARRAY_OF_NULLABLE_FLOAT64", nulls ? null : new Double[] {null, 1e-300});
        return o;
    }

    private List<Map<String, Object>> portables() {
        List<Map<String, Object>> v = new ArrayList<>();
        Large l1 = Values.largeForKey(1);
        Small s1 = Values.smallForKey(1);
        v.add(json.modelObject("portable_small_bench_key1", "SMALL value the benchmark stores under key 1",
                ModelObjects.portableSmall(s1), new PortableModel.PortableSmall(s1)));
        v.add(json.modelObject("portable_large_bench_key1", "LARGE value the benchmark stores under key 1",
                ModelObjects.portableLarge(l1), new PortableModel.PortableLarge(l1)));
        v.add(json.modelObject("portable_adoc_key1", "Query document for key 1: long value + int[20] payload",
                ModelObjects.portableDoc(1), new PortableModel.PortableDoc(1)));
        Large nulls = fixedLarge();
        nulls.booleanArray = null;
        nulls.stringField = null;
        nulls.stringArray = new String[] {null, "b"};
        nulls.small = null;
        nulls.smallArray = null;
        v.add(json.modelObject("portable_large_nulls", "LARGE with a null array, string, nested portable and portable array",
                ModelObjects.portableLarge(nulls), new PortableModel.PortableLarge(nulls)));
        Large empty = fixedLarge();
        empty.intArray = new int[0];
        empty.stringField = "";
        empty.smallArray = new Small[0];
        v.add(json.modelObject("portable_large_empty", "LARGE with empty arrays, an empty string and an empty portable array",
                ModelObjects.portableLarge(empty), new PortableModel.PortableLarge(empty)));
        v.add(json.object("portable_every_type", "Every portable field type once, with values", everyPortableType(false)));
        v.add(json.object("portable_every_type_null", "Every portable field type once, null wherever a type allows it",
                everyPortableType(true)));
        v.add(json.object("portable_versioned_v1", "Class 2/9 at version 1: (name)",
                Obj.portable(2, 9, 1).add("name", "UTF", "Ada")));
        v.add(json.object("portable_versioned_v2", "Class 2/9 at version 2: a field added (age)",
                Obj.portable(2, 9, 2).add("name", "UTF", "Ada").add("age", "INT", 36)));
        return v;
    }

    private static Obj everyPortableType(boolean nulls) {
        Obj inner = Obj.portable(2, 21, 0).add("x", "INT", 9);
        Obj o = Obj.portable(2, 20, nulls ? 1 : 0);
        o.add("boolean", "BOOLEAN", true).add("byte", "BYTE", (byte) -1).add("char", "CHAR", '\uFFFF')
                .add("short", "SHORT", Short.MIN_VALUE).add("int", "INT", 7).add("long", "LONG", Long.MIN_VALUE)
                .add("float", "FLOAT", -0.0f).add("double", "DOUBLE", Double.NaN);
        o.add("utf", "UTF", nulls ? null : "ünïcødé 😀");
        o.add("decimal", "DECIMAL", nulls ? null : new BigDecimal("-12345.6789"));
        o.add("time", "TIME", nulls ? null : LocalTime.of(1, 2, 3, 4));
        o.add("date", "DATE", nulls ? null : LocalDate.of(2024, 2, 29));
        o.add("timestamp", "TIMESTAMP", nulls ? null : LocalDateTime.of(2000, 1, 1, 0, 0));
        o.add("timestampTz", "TIMESTAMP_WITH_TIMEZONE", nulls ? null
                : OffsetDateTime.of(2023, 6, 15, 8, 30, 0, 0, ZoneOffset.ofHours(2)));
        o.nested("portable", "PORTABLE", inner, nulls ? null : inner);
        o.add("booleanArray", "BOOLEAN_ARRAY", nulls ? null : new boolean[] {false});
        o.add("byteArray", "BYTE_ARRAY", nulls ? null : new byte[] {1, 2});
        o.add("charArray", "CHAR_ARRAY", nulls ? null : "a日\uD83D\uDE00".toCharArray());
        o.add("shortArray", "SHORT_ARRAY", nulls ? null : new short[] {-3});
        o.add("intArray", "INT_ARRAY", nulls ? null : new int[0]);
        o.add("longArray", "LONG_ARRAY", nulls ? null : new long[] {1, 2, 3});
        o.add("floatArray", "FLOAT_ARRAY", nulls ? null : new float[] {Float.MAX_VALUE});
        o.add("doubleArray", "DOUBLE_ARRAY", nulls ? null : new double[] {Double.MIN_NORMAL});
        o.add("utfArray", "UTF_ARRAY", nulls ? null : new String[] {"a", null, ""});
        o.add("decimalArray", "DECIMAL_ARRAY", nulls ? null : new BigDecimal[] {BigDecimal.TEN, new BigDecimal("1e-40")});
        o.add("timeArray", "TIME_ARRAY", nulls ? null : new LocalTime[] {LocalTime.NOON});
        o.add("dateArray", "DATE_ARRAY", nulls ? null : new LocalDate[] {LocalDate.of(1999, 12, 31)});
        o.add("timestampArray", "TIMESTAMP_ARRAY", nulls ? null : new LocalDateTime[] {LocalDateTime.of(1, 1, 1, 1, 1)});
        o.add("timestampTzArray", "TIMESTAMP_WITH_TIMEZONE_ARRAY", nulls ? null
                : new OffsetDateTime[] {OffsetDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(-5))});
        o.nested("portableArray", "PORTABLE_ARRAY", inner, nulls ? null : new Obj[] {inner, inner});
        return o;
    }

    private List<Map<String, Object>> identifieds() {
        List<Map<String, Object>> v = new ArrayList<>();
        Large l1 = Values.largeForKey(1);
        Small s1 = Values.smallForKey(1);
        v.add(json.modelObject("identified_small_bench_key1", "SMALL value the benchmark stores under key 1",
                ModelObjects.identifiedSmall(s1), new IdentifiedModel.IdsSmall(s1)));
        v.add(json.modelObject("identified_large_bench_key1", "LARGE value the benchmark stores under key 1 (nested SMALL inline)",
                ModelObjects.identifiedLarge(l1), new IdentifiedModel.IdsLarge(l1)));
        v.add(json.modelObject("identified_adoc_key1", "Query document ADoc for key 1: writeLong(value), writeIntArray(payload)",
                ModelObjects.identifiedDoc(1), new IdentifiedModel.IdsDoc(1)));
        int f = HazelcastObjects.FIRST_DYNAMIC_FACTORY;
        Obj item = Obj.identified(f, 2).add("i", "writeInt", 1).add("s", "writeString", "item");
        Obj every = Obj.identified(f, 1)
                .add("boolean", "writeBoolean", true).add("byte", "writeByte", (byte) -128).add("char", "writeChar", 'é')
                .add("short", "writeShort", (short) 300).add("int", "writeInt", -1).add("long", "writeLong", Long.MAX_VALUE)
                .add("float", "writeFloat", Float.NaN).add("double", "writeDouble", -0.0).add("string", "writeString", "日本 😀")
                .add("nullString", "writeString", null)
                .add("booleans", "writeBooleanArray", new boolean[] {true}).add("bytes", "writeByteArray", new byte[] {1, -1})
                .add("chars", "writeCharArray", "hé".toCharArray()).add("shorts", "writeShortArray", new short[0])
                .add("ints", "writeIntArray", null).add("longs", "writeLongArray", new long[] {Long.MIN_VALUE})
                .add("floats", "writeFloatArray", new float[] {1.5f}).add("doubles", "writeDoubleArray", new double[] {0.1})
                .add("strings", "writeStringArray", new String[] {"a", null})
                .add("boxedInt", "writeObject", "NULLABLE_INT32", null, 77)
                .add("boxedLong", "writeObject", "NULLABLE_INT64", null, null)
                .add("boxedDouble", "writeObject", "NULLABLE_FLOAT64", null, 0.5)
                .add("objectString", "writeObject", "STRING", null, "via writeObject")
                .add("objectChar", "writeObject", "CHAR", null, 'Z')
                .add("nested", "writeObject", "OBJECT", item.sameType(), item)
                .add("nullNested", "writeObject", "OBJECT", item.sameType(), null)
                .add("objects", "writeObjectArray", "ARRAY_OF_OBJECT", item.sameType(), new Obj[] {item, null})
                .add("boxedInts", "writeObjectArray", "ARRAY_OF_NULLABLE_INT32", null, new Integer[] {1, null})
                .nested("inline", "writeDataInline", item, item)
                .nested("inlineArray", "writeInlineArray", item, new Obj[] {item, item});
        v.add(json.object("identified_every_call", "Every ObjectDataOutput call and compound form, nulls included", every));
        v.add(json.object("identified_empty", "An identified object that writes nothing", Obj.identified(f, 3)));
        // Found by the random comparison: Go refused these three, the Java SDK the third
        // (fixed in pkg/serialization/layout.go and IdentifiedRecord.java).
        Obj nothing = Obj.identified(f, 4);
        v.add(json.object("identified_inline_array_of_empty_items", "writeInlineArray of three items whose class writes nothing",
                Obj.identified(f, 5).nested("items", "writeInlineArray", nothing, new Obj[] {nothing, nothing, nothing})));
        Obj wrapsNothing = Obj.identified(f, 7).nested("nothing", "writeDataInline", nothing, nothing);
        v.add(json.object("identified_inline_array_of_items_inlining_nothing",
                "writeInlineArray of three items whose one field inlines an object that writes nothing: zero bytes per item",
                Obj.identified(f, 8).nested("items", "writeInlineArray", wrapsNothing, new Obj[] {wrapsNothing, wrapsNothing, wrapsNothing})));
        v.add(json.object("identified_inline_array_null", "writeInlineArray of a null array: length -1",
                Obj.identified(f, 6).nested("items", "writeInlineArray", item, null).add("after", "writeInt", 7)));
        return v;
    }

    private List<Map<String, Object>> randoms() {
        RandomObjects r = new RandomObjects(RANDOM_SEED);
        List<Map<String, Object>> v = new ArrayList<>();
        for (int i = 0; i < RANDOM_COUNT; i++) {
            v.add(json.random("random_" + RANDOM_SEED + "_" + i, r.next()));
        }
        return v;
    }
}
