package io.atoll.vectors;

import com.hazelcast.core.HazelcastJsonValue;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.impl.compact.FieldDescriptor;
import com.hazelcast.internal.serialization.impl.compact.Schema;
import com.hazelcast.nio.serialization.ClassDefinition;
import com.hazelcast.nio.serialization.FieldDefinition;
import com.hazelcast.nio.serialization.FieldType;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes vectors (the format of testdata/vectors/README.md) of values that Hazelcast
 * serializes: the bytes, partition hash and id come from Hazelcast, the tagged value and the
 * metadata (compact schemas as Hazelcast lays them out, portable class definitions,
 * identified write order) from the description. The result is the JSON object as Jackson
 * reads it back (Integer, Long, String, Boolean, List, Map), so it can be checked in memory.
 */
public final class VectorJson {
    static final String GENERIC_RECORD = "GenericRecord (schema order)";
    static final String DECLARATION_ORDER = "CompactSerializer (declaration order)";

    private final HazelcastObjects hz;

    public VectorJson(HazelcastObjects hz) {
        this.hz = hz;
    }

    /** A vector of a described object that Hazelcast serializes as a generic record (or a described identified object). */
    public Map<String, Object> object(String name, String description, Obj o) {
        return object(name, description, o, hz.toData(o), GENERIC_RECORD);
    }

    /** A compact vector with the schema in the data (type id -56). */
    public Map<String, Object> objectWithSchema(String name, String description, Obj o) {
        return object(name, description, o, hz.toDataWithSchema(o), GENERIC_RECORD);
    }

    /**
     * A vector of a model object that Hazelcast serializes with its own serializer; {@code o}
     * describes the same value, fields in the order the serializer writes them.
     */
    public Map<String, Object> modelObject(String name, String description, Obj o, Object model) {
        return object(name, description, o, hz.toData(model), DECLARATION_ORDER);
    }

    private Map<String, Object> object(String name, String description, Obj o, Data data, String writer) {
        Map<String, Object> v = header(name, o.format.jsonName(), description, data);
        v.put("value", value(o));
        Map<String, Object> meta = new LinkedHashMap<>();
        switch (o.format) {
            case COMPACT: {
                Schema top = hz.schemaOf(o);
                meta.put("type_name", o.typeName);
                meta.put("schema_id", Long.toString(top.getSchemaId()));
                meta.put("schema_id_hex", String.format("%016x", top.getSchemaId()));
                meta.put("with_schema", data.getType() == -56);
                meta.put("writer", writer);
                List<Object> order = new ArrayList<>();
                o.fields().forEach(f -> order.add(f.name()));
                if (writer.equals(GENERIC_RECORD)) {
                    order.sort(null); // a generic record writes its fields in name order
                }
                meta.put("write_order", order);
                Map<Long, Object> schemas = new LinkedHashMap<>();
                collectSchemas(o, schemas);
                meta.put("schemas", new ArrayList<>(schemas.values()));
                v.put("compact", meta);
                break;
            }
            case PORTABLE: {
                meta.put("factory_id", o.factoryId);
                meta.put("class_id", o.classId);
                meta.put("version", o.version);
                Map<String, Object> classes = new LinkedHashMap<>();
                collectClasses(o, classes);
                meta.put("class_definitions", new ArrayList<>(classes.values()));
                v.put("portable", meta);
                break;
            }
            default: {
                meta.put("factory_id", o.factoryId);
                meta.put("class_id", o.classId);
                List<Object> order = new ArrayList<>();
                o.fields().forEach(f -> order.add(f.kind() + " " + f.name()));
                meta.put("write_order", order);
                v.put("identified", meta);
            }
        }
        return v;
    }

    /**
     * A vector of a built-in value: {@code kind} is its value kind (INT32, ARRAY_OF_STRING, UUID,
     * ...); a {@code byte[]} is format "bytearray", a {@link HazelcastJsonValue} format "json".
     */
    public Map<String, Object> builtin(String name, String description, String kind, Object value) {
        Data data = hz.toData(value);
        String format = value instanceof byte[] ? "bytearray" : value instanceof HazelcastJsonValue ? "json" : "primitive";
        Map<String, Object> v = header(name, format, description, data);
        Map<String, Object> val = new LinkedHashMap<>();
        val.put("kind", kind);
        val.put("java_type", javaType(value));
        if (value instanceof byte[]) {
            val.put("hex", HexFormat.of().formatHex((byte[]) value));
        } else if (value instanceof HazelcastJsonValue) {
            String text = value.toString();
            val.put("value", text);
            val.put("utf8_hex", HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8)));
        } else {
            val.put("value", encode(kind, value));
            if (value instanceof String) {
                val.put("utf8_hex", HexFormat.of().formatHex(((String) value).getBytes(StandardCharsets.UTF_8)));
            }
        }
        v.put("value", val);
        return v;
    }

    /** A vector of a random value. */
    public Map<String, Object> random(String name, RandomObjects.Item item) {
        if (item.object() != null) {
            return object(name, "random " + item.object().format.jsonName() + " object", item.object());
        }
        return builtin(name, "random " + item.kind(), item.kind(), item.builtin());
    }

    private static String javaType(Object value) {
        return value instanceof HazelcastJsonValue ? "HazelcastJsonValue" : value.getClass().getSimpleName();
    }

    private static Map<String, Object> header(String name, String format, String description, Data data) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", name);
        v.put("format", format);
        v.put("description", description);
        v.put("type_id", data.getType());
        v.put("partition_hash", data.getPartitionHash());
        v.put("partition_id", HazelcastObjects.partitionId(data));
        v.put("data_hex", HexFormat.of().formatHex(data.toByteArray()));
        return v;
    }

    private static Map<String, Object> identity(Obj o) {
        Map<String, Object> m = new LinkedHashMap<>();
        switch (o.format) {
            case COMPACT:
                m.put("type_name", o.typeName);
                break;
            case PORTABLE:
                m.put("factory_id", o.factoryId);
                m.put("class_id", o.classId);
                m.put("version", o.version);
                break;
            default:
                m.put("factory_id", o.factoryId);
                m.put("class_id", o.classId);
        }
        return m;
    }

    /** The tagged value of an object. */
    static Map<String, Object> value(Obj o) {
        Map<String, Object> m = identity(o);
        List<Object> fields = new ArrayList<>();
        for (Obj.Field f : o.fields()) {
            Map<String, Object> fm = new LinkedHashMap<>();
            fm.put("name", f.name());
            if (o.format == Obj.Format.IDENTIFIED) {
                fm.put("op", f.kind());
            } else {
                fm.put("kind", f.kind());
                fm.put("kind_id", Kinds.kindId(o.format, f.kind()));
            }
            fm.put("value_kind", f.valueKind());
            if (f.itemType() != null) {
                fm.put("item_type", identity(f.itemType()));
            }
            fm.put("value", encode(f.valueKind(), f.value()));
            fields.add(fm);
        }
        m.put("fields", fields);
        return m;
    }

    /** The JSON encoding of a value of a value kind (see the README's table). */
    static Object encode(String vk, Object v) {
        if (v == null) {
            return null;
        }
        if (vk.startsWith("ARRAY_OF_")) {
            String item = vk.substring("ARRAY_OF_".length());
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < Array.getLength(v); i++) {
                out.add(encode(item, Array.get(v, i)));
            }
            return out;
        }
        if (v instanceof Obj) {
            return value((Obj) v);
        }
        String k = vk.startsWith("NULLABLE_") ? vk.substring("NULLABLE_".length()) : vk;
        switch (k) {
            case "BOOLEAN":
            case "STRING":
                return v;
            case "INT8":
            case "INT16":
            case "INT32":
                return ((Number) v).intValue();
            case "CHAR":
                return (int) (Character) v;
            case "INT64":
                return Long.toString((Long) v);
            case "FLOAT32": {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("bits", String.format("%08x", Float.floatToRawIntBits((Float) v)));
                m.put("text", v.toString());
                return m;
            }
            case "FLOAT64": {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("bits", String.format("%016x", Double.doubleToRawLongBits((Double) v)));
                m.put("text", v.toString());
                return m;
            }
            case "DECIMAL": {
                BigDecimal d = (BigDecimal) v;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("unscaled", d.unscaledValue().toString());
                m.put("scale", d.scale());
                m.put("text", d.toString());
                return m;
            }
            case "DATE":
                return date(new LinkedHashMap<>(), (LocalDate) v);
            case "TIME":
                return time(new LinkedHashMap<>(), (LocalTime) v);
            case "TIMESTAMP": {
                LocalDateTime t = (LocalDateTime) v;
                return time(date(new LinkedHashMap<>(), t.toLocalDate()), t.toLocalTime());
            }
            case "TIMESTAMP_WITH_TIMEZONE": {
                OffsetDateTime t = (OffsetDateTime) v;
                Map<String, Object> m = time(date(new LinkedHashMap<>(), t.toLocalDate()), t.toLocalTime());
                m.put("offset_seconds", t.getOffset().getTotalSeconds());
                return m;
            }
            case "UUID": {
                UUID u = (UUID) v;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("most_sig_bits", Long.toString(u.getMostSignificantBits()));
                m.put("least_sig_bits", Long.toString(u.getLeastSignificantBits()));
                m.put("text", u.toString());
                return m;
            }
            default:
                throw new IllegalArgumentException("cannot encode value kind " + vk + ": " + v);
        }
    }

    private static Map<String, Object> date(Map<String, Object> m, LocalDate d) {
        m.put("year", d.getYear());
        m.put("month", d.getMonthValue());
        m.put("day", d.getDayOfMonth());
        return m;
    }

    private static Map<String, Object> time(Map<String, Object> m, LocalTime t) {
        m.put("hour", t.getHour());
        m.put("minute", t.getMinute());
        m.put("second", t.getSecond());
        m.put("nano", t.getNano());
        return m;
    }

    /** Every schema the value uses: its own first, then those of nested values that are present. */
    private void collectSchemas(Obj o, Map<Long, Object> out) {
        Schema s = hz.schemaOf(o);
        if (!out.containsKey(s.getSchemaId())) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type_name", s.getTypeName());
            m.put("schema_id", Long.toString(s.getSchemaId()));
            m.put("schema_id_hex", String.format("%016x", s.getSchemaId()));
            m.put("fixed_size_length", s.getFixedSizeFieldsLength());
            m.put("var_size_count", s.getNumberOfVariableSizeFields());
            List<Object> fields = new ArrayList<>();
            for (FieldDescriptor fd : s.getFields()) {
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("name", fd.getFieldName());
                f.put("kind", fd.getKind().name());
                f.put("kind_id", (int) fd.getKind().getId());
                f.put("offset", fd.getOffset());
                f.put("bit_offset", (int) fd.getBitOffset());
                f.put("index", fd.getIndex());
                fields.add(f);
            }
            m.put("fields", fields);
            out.put(s.getSchemaId(), m);
        }
        forEachNested(o, n -> collectSchemas(n, out));
    }

    /** The class definition of a portable object and of every class it names. */
    private void collectClasses(Obj o, Map<String, Object> out) {
        if (out.containsKey(o.identity())) {
            return;
        }
        ClassDefinition cd = hz.classDefinition(o);
        Map<String, Object> m = identity(o);
        List<Object> fields = new ArrayList<>();
        for (int i = 0; i < cd.getFieldCount(); i++) {
            FieldDefinition fd = cd.getField(i);
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("index", fd.getIndex());
            f.put("name", fd.getName());
            f.put("type", fd.getType().name());
            f.put("type_id", (int) fd.getType().getId());
            if (fd.getType() == FieldType.PORTABLE || fd.getType() == FieldType.PORTABLE_ARRAY) {
                f.put("factory_id", fd.getFactoryId());
                f.put("class_id", fd.getClassId());
                f.put("version", fd.getVersion());
            }
            fields.add(f);
        }
        m.put("fields", fields);
        out.put(o.identity(), m);
        for (Obj.Field f : o.fields()) {
            if (f.itemType() != null) {
                collectClasses(f.itemType(), out);
            }
        }
    }

    private static void forEachNested(Obj o, java.util.function.Consumer<Obj> c) {
        for (Obj.Field f : o.fields()) {
            if (f.value() instanceof Obj) {
                c.accept((Obj) f.value());
            } else if (f.value() instanceof Obj[]) {
                for (Obj item : (Obj[]) f.value()) {
                    if (item != null) {
                        c.accept(item);
                    }
                }
            }
        }
    }
}
