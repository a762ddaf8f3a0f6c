package io.atoll.vectors;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.ClassDefinitionBuilder;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.GenericRecordBuilder;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.JsonValue;
import io.atoll.client.serialization.Partitioning;
import io.atoll.client.serialization.Schema;
import io.atoll.client.serialization.SchemaRegistry;
import io.atoll.client.serialization.SerializationConfig;
import io.atoll.client.serialization.SerializationService;

import java.io.IOException;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Checks serialization test vectors (the JSON format of {@code testdata/vectors}, described in
 * its README: one file holds {@code {"partition_count", "vectors": [...]}}, each vector names its
 * format, the serialized bytes and the type-tagged value). For each vector it checks, using only the
 * public serialization API:
 * <ul>
 * <li>decode: the bytes decode (as generic records where the value is an object) to the value;</li>
 * <li>encode: the value, rebuilt from JSON, serializes to exactly the bytes;</li>
 * <li>partition: partition hash and partition id of the bytes;</li>
 * <li>layout: for compact, each schema's id and field layout; for portable, the class
 * definition rebuilt from the bytes.</li>
 * </ul>
 * Every check returns a list of problems, empty when the vector passes.
 */
public final class VectorVerifier {

    /** One vector, or a file that could not be read as vectors. */
    public static final class Vector {
        private final String name;
        private final Path file;
        private final Map<String, Object> json;
        private final int partitionCount;
        private final String loadError;

        /** A vector held in memory: {@code json} is one entry of a file's "vectors" array. */
        public static Vector of(Map<String, Object> json, int partitionCount) {
            return new Vector(String.valueOf(json.get("name")), null, json, partitionCount, null);
        }

        Vector(String name, Path file, Map<String, Object> json, int partitionCount, String loadError) {
            this.name = name;
            this.file = file;
            this.json = json;
            this.partitionCount = partitionCount;
            this.loadError = loadError;
        }

        public String name() {
            return name;
        }

        public Path file() {
            return file;
        }

        /** The vector's JSON object. */
        public Map<String, Object> json() {
            return json;
        }

        public String format() {
            return json == null ? null : (String) json.get("format");
        }

        /** The serialized bytes, or null if the vector has none or they are not valid hex. */
        public byte[] bytes() {
            try {
                return hex(str(json, "data_hex"));
            } catch (RuntimeException e) {
                return null;
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Reads vector files: JSON numbers become Integer, Long or BigInteger, and BigDecimal. */
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Loads the vectors of every {@code *.json} file of a directory, files in name order. */
    public static List<Vector> load(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.json")) {
            for (Path p : ds) {
                if (Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        Collections.sort(files);
        List<Vector> out = new ArrayList<>();
        for (Path f : files) {
            out.addAll(loadFile(f));
        }
        return out;
    }

    /** Loads the vectors of one file; a file that is not valid yields one failing entry. */
    @SuppressWarnings("unchecked")
    public static List<Vector> loadFile(Path f) throws IOException {
        byte[] text = Files.readAllBytes(f);
        List<Vector> out = new ArrayList<>();
        String fileName = f.getFileName().toString();
        try {
            Map<String, Object> root;
            try {
                root = JSON.readValue(text, new TypeReference<Map<String, Object>>() { });
            } catch (IOException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            int pc = root.get("partition_count") == null ? Partitioning.DEFAULT_PARTITION_COUNT : intOf(root.get("partition_count"));
            List<Object> vs = (List<Object>) root.get("vectors");
            if (vs == null) {
                throw new IllegalArgumentException("no \"vectors\" array");
            }
            for (int i = 0; i < vs.size(); i++) {
                Map<String, Object> v = (Map<String, Object>) vs.get(i);
                Object n = v.get("name");
                out.add(new Vector(n instanceof String ? (String) n : fileName + "#" + i, f, v, pc, null));
            }
        } catch (RuntimeException e) {
            out.clear();
            out.add(new Vector(fileName, f, null, Partitioning.DEFAULT_PARTITION_COUNT, "cannot read vector file: " + e.getMessage()));
        }
        return out;
    }

    /** All checks; empty when the vector passes. */
    public List<String> verify(Vector v) {
        if (v.loadError != null) {
            return List.of(v.loadError);
        }
        List<String> out = new ArrayList<>();
        out.addAll(checkDecode(v));
        out.addAll(checkEncode(v));
        out.addAll(checkPartition(v));
        out.addAll(checkLayout(v));
        return out;
    }

    // ------------------------------------------------------------------ decode

    /** The bytes decode to the vector's value. */
    public List<String> checkDecode(Vector v) {
        List<String> problems = new ArrayList<>();
        guard(v, problems, "decode", () -> {
            Data data = data(v, problems);
            if (data == null) {
                return;
            }
            SerializationService service = serviceFor(v);
            Object decoded;
            try {
                decoded = service.toGenericObject(data);
            } catch (AtollSerializationException e) {
                problems.add("decode failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                return;
            }
            Map<String, Object> value = map(v.json.get("value"));
            String format = str(v.json, "format");
            switch (format) {
                case "compact":
                case "portable":
                case "identified":
                    if (!(decoded instanceof GenericRecord)) {
                        problems.add("decoded a " + typeName(decoded) + ", expected a " + format + " record");
                        return;
                    }
                    compareRecord(format, "", value, (GenericRecord) decoded, problems);
                    break;
                default: {
                    Object expected = scalarValue(value);
                    if (!deepEquals(expected, decoded)) {
                        problems.add("decoded " + show(decoded) + ", expected " + show(expected));
                    }
                    Object javaType = value.get("java_type");
                    if (javaType instanceof String && decoded != null) {
                        String want = "HazelcastJsonValue".equals(javaType) ? JsonValue.class.getSimpleName() : (String) javaType;
                        if (!decoded.getClass().getSimpleName().equals(want)) {
                            problems.add("decoded a " + decoded.getClass().getSimpleName() + ", expected a " + javaType);
                        }
                    }
                }
            }
        });
        return problems;
    }

    private void compareRecord(String format, String path, Map<String, Object> value, GenericRecord rec, List<String> problems) {
        String where = path.isEmpty() ? "value" : path;
        switch (format) {
            case "compact":
                if (rec.getFormat() != GenericRecord.Format.COMPACT || !Objects.equals(rec.getTypeName(), value.get("type_name"))) {
                    problems.add(where + ": decoded " + rec.getFormat() + " '" + rec.getTypeName() + "', expected compact '"
                            + value.get("type_name") + "'");
                    return;
                }
                break;
            case "portable": {
                ClassDefinition cd = rec.getClassDefinition();
                if (cd == null || cd.getFactoryId() != intOf(value.get("factory_id")) || cd.getClassId() != intOf(value.get("class_id"))
                        || value.get("version") != null && cd.getVersion() != intOf(value.get("version"))) {
                    problems.add(where + ": decoded " + (cd == null ? rec.getFormat() : "portable (" + cd.getFactoryId() + ","
                            + cd.getClassId() + ",v" + cd.getVersion() + ")") + ", expected (" + value.get("factory_id") + ","
                            + value.get("class_id") + ",v" + value.get("version") + ")");
                    return;
                }
                break;
            }
            default: {
                IdentifiedLayout l = rec.getLayout();
                if (l == null || l.getFactoryId() != intOf(value.get("factory_id")) || l.getClassId() != intOf(value.get("class_id"))) {
                    problems.add(where + ": decoded " + rec.getFormat() + ", expected identified (" + value.get("factory_id") + ","
                            + value.get("class_id") + ")");
                    return;
                }
            }
        }
        List<Object> fields = list(value.get("fields"));
        Set<String> names = new LinkedHashSet<>();
        for (Object o : fields) {
            names.add(str(map(o), "name"));
        }
        if (!new java.util.HashSet<>(rec.getFieldNames()).equals(names)) {
            problems.add(where + ": decoded fields " + rec.getFieldNames() + ", expected " + names);
        }
        for (Object o : fields) {
            Map<String, Object> f = map(o);
            String name = str(f, "name");
            String fpath = path.isEmpty() ? name : path + "." + name;
            if (!rec.hasField(name)) {
                continue;
            }
            FieldKind expectedKind = declaredKind(format, f);
            if (expectedKind != null && rec.getFieldKind(name) != expectedKind) {
                problems.add(fpath + ": decoded kind " + rec.getFieldKind(name) + ", expected " + expectedKind);
                continue;
            }
            String vk = str(f, "value_kind");
            Object actual;
            try {
                actual = rec.getValue(name);
            } catch (AtollSerializationException e) {
                problems.add(fpath + ": read failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                continue;
            }
            Object jv = f.get("value");
            if ("OBJECT".equals(vk)) {
                if (jv == null || actual == null) {
                    if (jv != actual) {
                        problems.add(fpath + ": decoded " + show(actual) + ", expected " + show(jv));
                    }
                } else if (actual instanceof GenericRecord) {
                    compareRecord(formatOf(map(jv), format), fpath, map(jv), (GenericRecord) actual, problems);
                } else {
                    problems.add(fpath + ": decoded a " + typeName(actual) + ", expected a record");
                }
            } else if ("ARRAY_OF_OBJECT".equals(vk)) {
                if (jv == null || actual == null) {
                    if (jv != actual) {
                        problems.add(fpath + ": decoded " + show(actual) + ", expected " + show(jv));
                    }
                    continue;
                }
                List<Object> items = list(jv);
                if (!(actual instanceof GenericRecord[]) || ((GenericRecord[]) actual).length != items.size()) {
                    problems.add(fpath + ": decoded " + show(actual) + ", expected " + items.size() + " record(s)");
                    continue;
                }
                GenericRecord[] recs = (GenericRecord[]) actual;
                for (int i = 0; i < recs.length; i++) {
                    if (items.get(i) == null || recs[i] == null) {
                        if (items.get(i) != null || recs[i] != null) {
                            problems.add(fpath + "[" + i + "]: decoded " + show(recs[i]) + ", expected " + show(items.get(i)));
                        }
                    } else {
                        compareRecord(formatOf(map(items.get(i)), format), fpath + "[" + i + "]", map(items.get(i)), recs[i], problems);
                    }
                }
            } else {
                Object expected = toJava(vk, jv);
                if (!deepEquals(expected, actual)) {
                    problems.add(fpath + ": decoded " + show(actual) + ", expected " + show(expected));
                }
            }
        }
    }

    /** Format of a nested object value: compact values name a type, portable ones a version. */
    private static String formatOf(Map<String, Object> value, String parentFormat) {
        if (value.containsKey("type_name")) {
            return "compact";
        }
        if (value.containsKey("version")) {
            return "portable";
        }
        return "compact".equals(parentFormat) || "portable".equals(parentFormat) ? parentFormat : "identified";
    }

    /** The field kind a vector field declares (compact kind id, portable type id), or null (identified). */
    private static FieldKind declaredKind(String format, Map<String, Object> f) {
        Object id = f.get("kind_id");
        if (id == null) {
            return null;
        }
        if ("compact".equals(format)) {
            FieldKind k = FieldKind.ofId(intOf(id));
            if (k == null) {
                throw new IllegalArgumentException("unknown compact kind id " + id);
            }
            return k;
        }
        if ("portable".equals(format)) {
            FieldType t = FieldType.get(intOf(id));
            if (t == null) {
                throw new IllegalArgumentException("unknown portable type id " + id);
            }
            return t.toFieldKind();
        }
        return null;
    }

    // ------------------------------------------------------------------ encode

    /** The value rebuilt from JSON serializes to exactly the vector's bytes. */
    public List<String> checkEncode(Vector v) {
        List<String> problems = new ArrayList<>();
        guard(v, problems, "encode", () -> {
            byte[] expected = hex(str(v.json, "data_hex"));
            SerializationService service = serviceFor(v);
            Object value = buildValue(v);
            Data d;
            try {
                d = isWithSchema(v) ? service.toDataWithSchema(value) : service.toData(value);
            } catch (AtollSerializationException e) {
                problems.add("encode failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                return;
            }
            byte[] actual = d.toByteArray();
            if (expected.length >= 4 && actual.length >= 4 && (expected[0] | expected[1] | expected[2] | expected[3]) != 0
                    && (actual[0] | actual[1] | actual[2] | actual[3]) == 0) {
                // a partition key chose the header hash; the value alone cannot reproduce it
                System.arraycopy(expected, 0, actual, 0, 4);
            }
            if (!Arrays.equals(actual, expected)) {
                int i = 0;
                while (i < actual.length && i < expected.length && actual[i] == expected[i]) {
                    i++;
                }
                problems.add("encoded bytes differ at offset " + i + " (" + actual.length + " bytes encoded, " + expected.length
                        + " expected; encoded " + hexAt(actual, i) + ", expected " + hexAt(expected, i) + ")");
            }
        });
        return problems;
    }

    /** The vector's value as the object to serialize: a generic record or a built-in value. */
    public Object buildValue(Vector v) {
        Map<String, Object> value = map(v.json.get("value"));
        String format = str(v.json, "format");
        switch (format) {
            case "compact": {
                Map<String, Object> meta = map(v.json.get("compact"));
                boolean schemaOrder = String.valueOf(meta.get("writer")).startsWith("GenericRecord");
                List<String> order = null;
                if (!schemaOrder && meta.get("write_order") != null) {
                    order = new ArrayList<>();
                    for (Object o : list(meta.get("write_order"))) {
                        order.add((String) o);
                    }
                }
                return buildCompact(value, schemaOrder, order);
            }
            case "portable":
                return buildPortable(value, classDefinitions(v));
            case "identified":
                return buildIdentified(value, layouts(v));
            default:
                return scalarValue(value);
        }
    }

    private GenericRecord buildCompact(Map<String, Object> value, boolean schemaOrder, List<String> order) {
        GenericRecordBuilder b = GenericRecordBuilder.compact(str(value, "type_name"));
        Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
        for (Object o : list(value.get("fields"))) {
            byName.put(str(map(o), "name"), map(o));
        }
        List<String> names = new ArrayList<>(byName.keySet());
        if (schemaOrder) {
            Collections.sort(names);
        } else if (order != null) {
            List<String> ordered = new ArrayList<>(order);
            for (String n : names) {
                if (!ordered.contains(n)) {
                    ordered.add(n);
                }
            }
            ordered.retainAll(names);
            names = ordered;
        }
        for (String n : names) {
            Map<String, Object> f = byName.get(n);
            FieldKind kind = declaredKind("compact", f);
            String vk = str(f, "value_kind");
            Object jv = f.get("value");
            Object javaValue;
            if ("OBJECT".equals(vk)) {
                javaValue = jv == null ? null : buildCompact(map(jv), schemaOrder, null);
            } else if ("ARRAY_OF_OBJECT".equals(vk)) {
                javaValue = jv == null ? null : buildRecords(list(jv), item -> buildCompact(item, schemaOrder, null));
            } else {
                javaValue = toJava(vk, jv);
            }
            set(b, n, kind, javaValue);
        }
        return b.build();
    }

    private static GenericRecord[] buildRecords(List<Object> items, java.util.function.Function<Map<String, Object>, GenericRecord> f) {
        GenericRecord[] out = new GenericRecord[items.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = items.get(i) == null ? null : f.apply(map(items.get(i)));
        }
        return out;
    }

    private static String cdKey(Object fid, Object cid, Object version) {
        return intOf(fid) + ":" + intOf(cid) + ":" + (version == null ? 0 : intOf(version));
    }

    /** Class definitions listed by a portable vector, by "factory:class:version". */
    private static Map<String, ClassDefinition> classDefinitions(Vector v) {
        Map<String, ClassDefinition> out = new LinkedHashMap<>();
        Object meta = v.json.get("portable");
        if (meta == null) {
            return out;
        }
        for (Object o : list(map(meta).get("class_definitions"))) {
            Map<String, Object> c = map(o);
            ClassDefinitionBuilder b = new ClassDefinitionBuilder(intOf(c.get("factory_id")), intOf(c.get("class_id")),
                    c.get("version") == null ? 0 : intOf(c.get("version")));
            List<Map<String, Object>> fields = new ArrayList<>();
            for (Object fo : list(c.get("fields"))) {
                fields.add(map(fo));
            }
            fields.sort((x, y) -> Integer.compare(intOf(x.get("index")), intOf(y.get("index"))));
            for (Map<String, Object> f : fields) {
                FieldType t = FieldType.get(intOf(f.get("type_id")));
                if (t == null) {
                    throw new IllegalArgumentException("unknown portable type id " + f.get("type_id"));
                }
                if (t == FieldType.PORTABLE || t == FieldType.PORTABLE_ARRAY) {
                    b.addField(new FieldDefinition(intOf(f.get("index")), str(f, "name"), t, intOf(f.get("factory_id")),
                            intOf(f.get("class_id")), f.get("version") == null ? 0 : intOf(f.get("version"))));
                } else {
                    b.addField(new FieldDefinition(intOf(f.get("index")), str(f, "name"), t));
                }
            }
            ClassDefinition cd = b.build();
            out.put(cdKey(c.get("factory_id"), c.get("class_id"), c.get("version")), cd);
        }
        return out;
    }

    private GenericRecord buildPortable(Map<String, Object> value, Map<String, ClassDefinition> cds) {
        String key = cdKey(value.get("factory_id"), value.get("class_id"), value.get("version"));
        ClassDefinition cd = cds.get(key);
        List<Object> fields = list(value.get("fields"));
        if (cd == null) {
            ClassDefinitionBuilder b = new ClassDefinitionBuilder(intOf(value.get("factory_id")), intOf(value.get("class_id")),
                    value.get("version") == null ? 0 : intOf(value.get("version")));
            int i = 0;
            for (Object o : fields) {
                Map<String, Object> f = map(o);
                FieldType t = FieldType.get(intOf(f.get("kind_id")));
                Map<String, Object> it = f.get("item_type") == null ? null : map(f.get("item_type"));
                if (it != null) {
                    b.addField(new FieldDefinition(i++, str(f, "name"), t, intOf(it.get("factory_id")), intOf(it.get("class_id")),
                            it.get("version") == null ? 0 : intOf(it.get("version"))));
                } else {
                    b.addField(new FieldDefinition(i++, str(f, "name"), t));
                }
            }
            cd = b.build();
        }
        GenericRecordBuilder b = GenericRecordBuilder.portable(cd);
        for (Object o : fields) {
            Map<String, Object> f = map(o);
            String n = str(f, "name");
            FieldKind kind = declaredKind("portable", f);
            String vk = str(f, "value_kind");
            Object jv = f.get("value");
            Object javaValue;
            if ("OBJECT".equals(vk)) {
                javaValue = jv == null ? null : buildPortable(map(jv), cds);
            } else if ("ARRAY_OF_OBJECT".equals(vk)) {
                javaValue = jv == null ? null : buildRecords(list(jv), item -> buildPortable(item, cds));
            } else {
                javaValue = toJava(vk, jv);
            }
            set(b, n, kind, javaValue);
        }
        return b.build();
    }

    /** Layouts of every identified type a vector's value contains, derived from its fields. */
    private static Map<String, IdentifiedLayout> layouts(Vector v) {
        Map<String, IdentifiedLayout> out = new LinkedHashMap<>();
        if ("identified".equals(v.json.get("format"))) {
            collectLayouts(map(v.json.get("value")), out);
        }
        return out;
    }

    private static void collectLayouts(Map<String, Object> value, Map<String, IdentifiedLayout> out) {
        IdentifiedLayout.Builder b = IdentifiedLayout.builder(intOf(value.get("factory_id")), intOf(value.get("class_id")));
        for (Object o : list(value.get("fields"))) {
            Map<String, Object> f = map(o);
            String name = str(f, "name");
            String opName = str(f, "op");
            IdentifiedLayout.Op op = IdentifiedLayout.Op.ofName(opName);
            if (op == null) {
                throw new IllegalArgumentException("unknown identified op '" + opName + "' of field " + name);
            }
            String vk = str(f, "value_kind");
            Map<String, Object> it = f.get("item_type") == null ? null : map(f.get("item_type"));
            int nfid = it == null || it.get("factory_id") == null ? 0 : intOf(it.get("factory_id"));
            int ncid = it == null || it.get("class_id") == null ? 0 : intOf(it.get("class_id"));
            FieldKind kind = null;
            if ("OBJECT".equals(vk)) {
                kind = it != null && it.get("type_name") != null ? FieldKind.COMPACT
                        : it != null && it.get("version") != null ? FieldKind.PORTABLE : FieldKind.IDENTIFIED;
            } else if ("ARRAY_OF_OBJECT".equals(vk)) {
                kind = it != null && it.get("type_name") != null ? FieldKind.ARRAY_OF_COMPACT
                        : it != null && it.get("version") != null ? FieldKind.ARRAY_OF_PORTABLE : FieldKind.ARRAY_OF_IDENTIFIED;
            } else if (op == IdentifiedLayout.Op.WRITE_OBJECT || op == IdentifiedLayout.Op.WRITE_OBJECT_ARRAY) {
                kind = FieldKind.valueOf(vk);
            }
            b.field(name, op, kind, nfid, ncid);
            Object jv = f.get("value");
            if (jv != null && (kind == FieldKind.IDENTIFIED)) {
                collectLayouts(map(jv), out);
            } else if (jv != null && kind == FieldKind.ARRAY_OF_IDENTIFIED) {
                for (Object item : list(jv)) {
                    if (item != null) {
                        collectLayouts(map(item), out);
                    }
                }
            }
        }
        IdentifiedLayout l = b.build();
        String key = l.getFactoryId() + ":" + l.getClassId();
        IdentifiedLayout prev = out.putIfAbsent(key, l);
        if (prev != null && !prev.equals(l)) {
            throw new IllegalArgumentException("identified (" + key + ") appears with two different layouts: " + prev + " and " + l);
        }
    }

    private GenericRecord buildIdentified(Map<String, Object> value, Map<String, IdentifiedLayout> layouts) {
        IdentifiedLayout l = layouts.get(intOf(value.get("factory_id")) + ":" + intOf(value.get("class_id")));
        GenericRecordBuilder b = GenericRecordBuilder.identified(l);
        for (Object o : list(value.get("fields"))) {
            Map<String, Object> f = map(o);
            String n = str(f, "name");
            String vk = str(f, "value_kind");
            Object jv = f.get("value");
            Object javaValue;
            if ("OBJECT".equals(vk)) {
                javaValue = jv == null ? null : buildNested(map(jv), layouts);
            } else if ("ARRAY_OF_OBJECT".equals(vk)) {
                javaValue = jv == null ? null : buildRecords(list(jv), item -> buildNested(item, layouts));
            } else {
                javaValue = toJava(vk, jv);
            }
            set(b, n, l.getField(n).getKind(), javaValue);
        }
        return b.build();
    }

    /** A nested value of an identified object: identified, or a compact / portable value written with writeObject. */
    private GenericRecord buildNested(Map<String, Object> value, Map<String, IdentifiedLayout> layouts) {
        switch (formatOf(value, "identified")) {
            case "compact":
                return buildCompact(value, false, null);
            case "portable":
                return buildPortable(value, Map.of());
            default:
                return buildIdentified(value, layouts);
        }
    }

    /** Registers the schemas of compact values nested in a non-compact vector value. */
    private static void registerNestedSchemas(Object json, SchemaRegistry registry) {
        if (json instanceof List) {
            for (Object o : (List<?>) json) {
                registerNestedSchemas(o, registry);
            }
        } else if (json instanceof Map) {
            Map<String, Object> m = map(json);
            if (m.get("type_name") instanceof String && m.get("fields") instanceof List) {
                Map<String, FieldKind> kinds = new LinkedHashMap<>();
                for (Object fo : list(m.get("fields"))) {
                    Map<String, Object> f = map(fo);
                    if (f.get("kind_id") != null && FieldKind.ofId(intOf(f.get("kind_id"))) != null) {
                        kinds.put(str(f, "name"), FieldKind.ofId(intOf(f.get("kind_id"))));
                    }
                }
                registry.register(new Schema(str(m, "type_name"), kinds));
            }
            for (Object o : m.values()) {
                registerNestedSchemas(o, registry);
            }
        }
    }

    // ------------------------------------------------------------------ partition

    /** Partition hash and id of the vector's bytes. */
    public List<String> checkPartition(Vector v) {
        List<String> problems = new ArrayList<>();
        guard(v, problems, "partition", () -> {
            Data d = data(v, problems);
            if (d == null) {
                return;
            }
            int hash = d.getPartitionHash();
            if (v.json.get("partition_hash") != null && hash != intOf(v.json.get("partition_hash"))) {
                problems.add("partition hash " + hash + ", expected " + v.json.get("partition_hash"));
            }
            int pid = Partitioning.partitionId(hash, v.partitionCount);
            if (v.json.get("partition_id") != null && pid != intOf(v.json.get("partition_id"))) {
                problems.add("partition id " + pid + " (of " + v.partitionCount + "), expected " + v.json.get("partition_id"));
            }
        });
        return problems;
    }

    // ------------------------------------------------------------------ layout

    /** Compact: schema ids and field layouts; portable: the class definition in the bytes. */
    public List<String> checkLayout(Vector v) {
        List<String> problems = new ArrayList<>();
        guard(v, problems, "layout", () -> {
            String format = str(v.json, "format");
            if ("compact".equals(format)) {
                checkSchemas(v, problems);
            } else if ("portable".equals(format)) {
                checkClassDefinition(v, problems);
            }
        });
        return problems;
    }

    private void checkSchemas(Vector v, List<String> problems) {
        Map<String, Object> meta = map(v.json.get("compact"));
        byte[] bytes = hex(str(v.json, "data_hex"));
        if (meta.get("schema_id_hex") != null && bytes.length >= 16) {
            String inData = toHex(Arrays.copyOfRange(bytes, 8, 16));
            if (!inData.equals(str(meta, "schema_id_hex"))) {
                problems.add("schema id in the data is " + inData + ", expected " + meta.get("schema_id_hex"));
            }
        }
        for (Object o : list(meta.get("schemas"))) {
            Map<String, Object> s = map(o);
            Schema schema = schemaOf(s);
            String t = "schema '" + s.get("type_name") + "'";
            long expectedId = new BigInteger(str(s, "schema_id")).longValue();
            if (schema.getSchemaId() != expectedId) {
                problems.add(t + ": id " + schema.getSchemaId() + ", expected " + s.get("schema_id"));
            }
            if (s.get("schema_id_hex") != null && !String.format("%016x", schema.getSchemaId()).equals(s.get("schema_id_hex"))) {
                problems.add(t + ": id hex " + String.format("%016x", schema.getSchemaId()) + ", expected " + s.get("schema_id_hex"));
            }
            if (s.get("fixed_size_length") != null && schema.getFixedSizeFieldsLength() != intOf(s.get("fixed_size_length"))) {
                problems.add(t + ": fixed size length " + schema.getFixedSizeFieldsLength() + ", expected " + s.get("fixed_size_length"));
            }
            if (s.get("var_size_count") != null && schema.getNumberOfVariableSizeFields() != intOf(s.get("var_size_count"))) {
                problems.add(t + ": " + schema.getNumberOfVariableSizeFields() + " variable-size fields, expected " + s.get("var_size_count"));
            }
            List<Object> fields = list(s.get("fields"));
            List<String> expectedOrder = new ArrayList<>();
            for (Object fo : fields) {
                Map<String, Object> f = map(fo);
                expectedOrder.add(str(f, "name"));
                FieldDescriptor fd = schema.getField(str(f, "name"));
                String got = fd.getOffset() + "/" + fd.getBitOffset() + "/" + fd.getIndex();
                String want = f.get("offset") + "/" + f.get("bit_offset") + "/" + f.get("index");
                if (!got.equals(want)) {
                    problems.add(t + " field " + fd.getName() + ": offset/bit/index " + got + ", expected " + want);
                }
            }
            List<String> actualOrder = new ArrayList<>();
            for (FieldDescriptor fd : schema.getFields()) {
                actualOrder.add(fd.getName());
            }
            if (!actualOrder.equals(expectedOrder)) {
                problems.add(t + ": field order " + actualOrder + ", expected " + expectedOrder);
            }
        }
    }

    private static Schema schemaOf(Map<String, Object> s) {
        Map<String, FieldKind> kinds = new LinkedHashMap<>();
        for (Object fo : list(s.get("fields"))) {
            Map<String, Object> f = map(fo);
            FieldKind k = FieldKind.ofId(intOf(f.get("kind_id")));
            if (k == null) {
                throw new IllegalArgumentException("unknown kind id " + f.get("kind_id"));
            }
            kinds.put(str(f, "name"), k);
        }
        return new Schema(str(s, "type_name"), kinds);
    }

    private void checkClassDefinition(Vector v, List<String> problems) {
        Data d = data(v, problems);
        if (d == null) {
            return;
        }
        GenericRecord rec;
        try {
            rec = new SerializationService().toGenericRecord(d);
        } catch (AtollSerializationException e) {
            problems.add("cannot read the class definition from the data: " + e.getMessage());
            return;
        }
        ClassDefinition inData = rec.getClassDefinition();
        Map<String, ClassDefinition> declared = classDefinitions(v);
        ClassDefinition want = declared.get(cdKey(inData.getFactoryId(), inData.getClassId(), inData.getVersion()));
        if (want == null) {
            if (!declared.isEmpty()) {
                problems.add("the data holds class (" + inData.getFactoryId() + "," + inData.getClassId() + ",v"
                        + inData.getVersion() + "), which the vector does not declare");
            }
            return;
        }
        if (want.getFieldCount() != inData.getFieldCount()) {
            problems.add("class definition in the data has " + inData.getFieldCount() + " fields, expected " + want.getFieldCount());
            return;
        }
        for (FieldDefinition w : want.getFields()) {
            FieldDefinition a = inData.getField(w.getIndex());
            boolean nested = w.getType() == FieldType.PORTABLE || w.getType() == FieldType.PORTABLE_ARRAY;
            if (!a.getName().equals(w.getName()) || a.getType() != w.getType()
                    || nested && (a.getFactoryId() != w.getFactoryId() || a.getClassId() != w.getClassId())) {
                problems.add("class definition field " + w.getIndex() + " in the data is " + a + ", expected " + w);
            }
        }
    }

    // ------------------------------------------------------------------ shared

    private interface Check {
        void run();
    }

    /** Runs a check; a vector the check cannot interpret becomes a problem, not an exception. */
    private static void guard(Vector v, List<String> problems, String what, Check c) {
        if (v.loadError != null) {
            problems.add(v.loadError);
            return;
        }
        try {
            c.run();
        } catch (RuntimeException e) {
            problems.add(what + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static Data data(Vector v, List<String> problems) {
        byte[] b;
        try {
            b = hex(str(v.json, "data_hex"));
        } catch (RuntimeException e) {
            problems.add("data_hex is not valid hex: " + e.getMessage());
            return null;
        }
        Data d;
        try {
            d = Data.fromByteArray(b);
        } catch (AtollSerializationException e) {
            problems.add("data_hex: " + e.getMessage());
            return null;
        }
        if (v.json.get("type_id") != null && d.getType() != intOf(v.json.get("type_id"))) {
            problems.add("type id in the data is " + d.getType() + ", expected " + v.json.get("type_id"));
        }
        return d;
    }

    private static boolean isWithSchema(Vector v) {
        Object meta = v.json.get("compact");
        if (meta != null && Boolean.TRUE.equals(map(meta).get("with_schema"))) {
            return true;
        }
        Object typeId = v.json.get("type_id");
        return typeId != null && intOf(typeId) == io.atoll.client.serialization.SerializationConstants.CONSTANT_TYPE_COMPACT_WITH_SCHEMA;
    }

    /**
     * A service configured for the vector: compact schemas registered (except for vectors
     * that embed their schema, which must decode on their own), portable class definitions
     * and identified layouts registered.
     */
    public SerializationService serviceFor(Vector v) {
        SerializationConfig cfg = new SerializationConfig().setPartitionCount(v.partitionCount);
        SchemaRegistry registry = new SchemaRegistry();
        cfg.setSchemaRegistry(registry);
        Object meta = v.json.get("compact");
        if (meta != null && !isWithSchema(v) && map(meta).get("schemas") != null) {
            for (Object o : list(map(meta).get("schemas"))) {
                registry.register(schemaOf(map(o)));
            }
        }
        if (meta == null && !"compact".equals(v.json.get("format"))) {
            try {
                registerNestedSchemas(v.json.get("value"), registry);
            } catch (RuntimeException e) {
                // not a compact value after all: nothing to register
            }
        }
        for (ClassDefinition cd : classDefinitions(v).values()) {
            cfg.addClassDefinition(cd);
        }
        for (IdentifiedLayout l : layouts(v).values()) {
            cfg.addIdentifiedLayout(l);
        }
        return new SerializationService(cfg);
    }

    /** Value of a non-object vector ({@code {"kind", "java_type", "value" | "hex"}}). */
    private static Object scalarValue(Map<String, Object> value) {
        String kind = str(value, "kind");
        if (value.containsKey("hex")) {
            return hex(str(value, "hex"));
        }
        Object jv = value.get("value");
        if ("JSON".equals(kind)) {
            String text = (String) jv;
            checkUtf8(value, text);
            return new JsonValue(text);
        }
        if ("STRING".equals(kind)) {
            checkUtf8(value, (String) jv);
        }
        return toJava(kind, jv);
    }

    private static void checkUtf8(Map<String, Object> value, String text) {
        Object u = value.get("utf8_hex");
        if (u != null && text != null && !toHex(text.getBytes(StandardCharsets.UTF_8)).equals(u)) {
            throw new IllegalArgumentException("the vector's text does not match its utf8_hex");
        }
    }

    /** A JSON value of the given value_kind as the Java value a record holds. */
    static Object toJava(String vk, Object jv) {
        if (jv == null) {
            return null;
        }
        if (vk.startsWith("ARRAY_OF_")) {
            String item = vk.substring("ARRAY_OF_".length());
            List<Object> items = list(jv);
            Class<?> component = componentOf(item);
            Object out = Array.newInstance(component, items.size());
            for (int i = 0; i < items.size(); i++) {
                Object x = toJava(item, items.get(i));
                if (x == null && component.isPrimitive()) {
                    throw new IllegalArgumentException("null item in " + vk);
                }
                Array.set(out, i, x);
            }
            return out;
        }
        String k = vk.startsWith("NULLABLE_") ? vk.substring("NULLABLE_".length()) : vk;
        switch (k) {
            case "BOOLEAN":
                return (Boolean) jv;
            case "INT8":
                return num(jv).byteValueExact();
            case "INT16":
                return num(jv).shortValueExact();
            case "INT32":
                return num(jv).intValueExact();
            case "INT64":
                return num(jv).longValueExact();
            case "CHAR":
                return (char) num(jv).intValueExact();
            case "FLOAT32":
                return Float.intBitsToFloat((int) Long.parseLong(str(map(jv), "bits"), 16));
            case "FLOAT64":
                return Double.longBitsToDouble(Long.parseUnsignedLong(str(map(jv), "bits"), 16));
            case "STRING":
                return (String) jv;
            case "DECIMAL": {
                Map<String, Object> m = map(jv);
                return new BigDecimal(new BigInteger(String.valueOf(m.get("unscaled"))), intOf(m.get("scale")));
            }
            case "DATE":
                return date(map(jv));
            case "TIME":
                return time(map(jv));
            case "TIMESTAMP":
                return LocalDateTime.of(date(map(jv)), time(map(jv)));
            case "TIMESTAMP_WITH_TIMEZONE": {
                Map<String, Object> m = map(jv);
                return OffsetDateTime.of(LocalDateTime.of(date(m), time(m)), ZoneOffset.ofTotalSeconds(intOf(m.get("offset_seconds"))));
            }
            case "UUID": {
                Map<String, Object> m = map(jv);
                return new UUID(num(m.get("most_sig_bits")).longValueExact(), num(m.get("least_sig_bits")).longValueExact());
            }
            default:
                throw new IllegalArgumentException("unknown value_kind " + vk);
        }
    }

    private static Class<?> componentOf(String itemKind) {
        switch (itemKind) {
            case "BOOLEAN":
                return boolean.class;
            case "INT8":
                return byte.class;
            case "INT16":
                return short.class;
            case "INT32":
                return int.class;
            case "INT64":
                return long.class;
            case "CHAR":
                return char.class;
            case "FLOAT32":
                return float.class;
            case "FLOAT64":
                return double.class;
            case "NULLABLE_BOOLEAN":
                return Boolean.class;
            case "NULLABLE_INT8":
                return Byte.class;
            case "NULLABLE_INT16":
                return Short.class;
            case "NULLABLE_INT32":
                return Integer.class;
            case "NULLABLE_INT64":
                return Long.class;
            case "NULLABLE_FLOAT32":
                return Float.class;
            case "NULLABLE_FLOAT64":
                return Double.class;
            case "STRING":
                return String.class;
            case "DECIMAL":
                return BigDecimal.class;
            case "DATE":
                return LocalDate.class;
            case "TIME":
                return LocalTime.class;
            case "TIMESTAMP":
                return LocalDateTime.class;
            case "TIMESTAMP_WITH_TIMEZONE":
                return OffsetDateTime.class;
            case "UUID":
                return UUID.class;
            default:
                throw new IllegalArgumentException("unknown array item kind " + itemKind);
        }
    }

    private static LocalDate date(Map<String, Object> m) {
        return LocalDate.of(intOf(m.get("year")), intOf(m.get("month")), intOf(m.get("day")));
    }

    private static LocalTime time(Map<String, Object> m) {
        return LocalTime.of(intOf(m.get("hour")), intOf(m.get("minute")), intOf(m.get("second")), intOf(m.get("nano")));
    }

    /** Sets a field through the typed setter of its kind. */
    static void set(GenericRecordBuilder b, String n, FieldKind kind, Object v) {
        switch (kind) {
            case BOOLEAN:
                b.setBoolean(n, (Boolean) v);
                break;
            case INT8:
                b.setInt8(n, (Byte) v);
                break;
            case CHAR:
                b.setChar(n, (Character) v);
                break;
            case INT16:
                b.setInt16(n, (Short) v);
                break;
            case INT32:
                b.setInt32(n, (Integer) v);
                break;
            case INT64:
                b.setInt64(n, (Long) v);
                break;
            case FLOAT32:
                b.setFloat32(n, (Float) v);
                break;
            case FLOAT64:
                b.setFloat64(n, (Double) v);
                break;
            case STRING:
                b.setString(n, (String) v);
                break;
            case DECIMAL:
                b.setDecimal(n, (BigDecimal) v);
                break;
            case TIME:
                b.setTime(n, (LocalTime) v);
                break;
            case DATE:
                b.setDate(n, (LocalDate) v);
                break;
            case TIMESTAMP:
                b.setTimestamp(n, (LocalDateTime) v);
                break;
            case TIMESTAMP_WITH_TIMEZONE:
                b.setTimestampWithTimezone(n, (OffsetDateTime) v);
                break;
            case COMPACT:
            case PORTABLE:
            case IDENTIFIED:
                b.setGenericRecord(n, (GenericRecord) v);
                break;
            case ARRAY_OF_BOOLEAN:
                b.setArrayOfBoolean(n, (boolean[]) v);
                break;
            case ARRAY_OF_INT8:
                b.setArrayOfInt8(n, (byte[]) v);
                break;
            case ARRAY_OF_CHAR:
                b.setArrayOfChar(n, (char[]) v);
                break;
            case ARRAY_OF_INT16:
                b.setArrayOfInt16(n, (short[]) v);
                break;
            case ARRAY_OF_INT32:
                b.setArrayOfInt32(n, (int[]) v);
                break;
            case ARRAY_OF_INT64:
                b.setArrayOfInt64(n, (long[]) v);
                break;
            case ARRAY_OF_FLOAT32:
                b.setArrayOfFloat32(n, (float[]) v);
                break;
            case ARRAY_OF_FLOAT64:
                b.setArrayOfFloat64(n, (double[]) v);
                break;
            case ARRAY_OF_STRING:
                b.setArrayOfString(n, (String[]) v);
                break;
            case ARRAY_OF_DECIMAL:
                b.setArrayOfDecimal(n, (BigDecimal[]) v);
                break;
            case ARRAY_OF_TIME:
                b.setArrayOfTime(n, (LocalTime[]) v);
                break;
            case ARRAY_OF_DATE:
                b.setArrayOfDate(n, (LocalDate[]) v);
                break;
            case ARRAY_OF_TIMESTAMP:
                b.setArrayOfTimestamp(n, (LocalDateTime[]) v);
                break;
            case ARRAY_OF_TIMESTAMP_WITH_TIMEZONE:
                b.setArrayOfTimestampWithTimezone(n, (OffsetDateTime[]) v);
                break;
            case ARRAY_OF_COMPACT:
            case ARRAY_OF_PORTABLE:
            case ARRAY_OF_IDENTIFIED:
                b.setArrayOfGenericRecord(n, (GenericRecord[]) v);
                break;
            case NULLABLE_BOOLEAN:
                b.setNullableBoolean(n, (Boolean) v);
                break;
            case NULLABLE_INT8:
                b.setNullableInt8(n, (Byte) v);
                break;
            case NULLABLE_INT16:
                b.setNullableInt16(n, (Short) v);
                break;
            case NULLABLE_INT32:
                b.setNullableInt32(n, (Integer) v);
                break;
            case NULLABLE_INT64:
                b.setNullableInt64(n, (Long) v);
                break;
            case NULLABLE_FLOAT32:
                b.setNullableFloat32(n, (Float) v);
                break;
            case NULLABLE_FLOAT64:
                b.setNullableFloat64(n, (Double) v);
                break;
            case ARRAY_OF_NULLABLE_BOOLEAN:
                b.setArrayOfNullableBoolean(n, (Boolean[]) v);
                break;
            case ARRAY_OF_NULLABLE_INT8:
                b.setArrayOfNullableInt8(n, (Byte[]) v);
                break;
            case ARRAY_OF_NULLABLE_INT16:
                b.setArrayOfNullableInt16(n, (Short[]) v);
                break;
            case ARRAY_OF_NULLABLE_INT32:
                b.setArrayOfNullableInt32(n, (Integer[]) v);
                break;
            case ARRAY_OF_NULLABLE_INT64:
                b.setArrayOfNullableInt64(n, (Long[]) v);
                break;
            case ARRAY_OF_NULLABLE_FLOAT32:
                b.setArrayOfNullableFloat32(n, (Float[]) v);
                break;
            case ARRAY_OF_NULLABLE_FLOAT64:
                b.setArrayOfNullableFloat64(n, (Double[]) v);
                break;
            default:
                throw new IllegalArgumentException("no setter for kind " + kind);
        }
    }

    /** Equality where floats compare by raw bits (NaN payloads and -0.0 matter). */
    static boolean deepEquals(Object a, Object b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a instanceof Float && b instanceof Float) {
            return Float.floatToRawIntBits((Float) a) == Float.floatToRawIntBits((Float) b);
        }
        if (a instanceof Double && b instanceof Double) {
            return Double.doubleToRawLongBits((Double) a) == Double.doubleToRawLongBits((Double) b);
        }
        if (a.getClass().isArray() && b.getClass().isArray()) {
            if (a.getClass() != b.getClass() || Array.getLength(a) != Array.getLength(b)) {
                return false;
            }
            for (int i = 0; i < Array.getLength(a); i++) {
                if (!deepEquals(Array.get(a, i), Array.get(b, i))) {
                    return false;
                }
            }
            return true;
        }
        return a.getClass() == b.getClass() && a.equals(b);
    }

    private static String show(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof Float) {
            return o + " (bits " + String.format("%08x", Float.floatToRawIntBits((Float) o)) + ")";
        }
        if (o instanceof Double) {
            return o + " (bits " + String.format("%016x", Double.doubleToRawLongBits((Double) o)) + ")";
        }
        String s = o.getClass().isArray() ? Arrays.deepToString(new Object[] {o}) : o.toString();
        if (o.getClass().isArray()) {
            s = s.substring(1, s.length() - 1);
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static String typeName(Object o) {
        return o == null ? "null" : o.getClass().getSimpleName();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object, found " + (o == null ? "null" : o.getClass().getSimpleName()));
        }
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        if (!(o instanceof List)) {
            throw new IllegalArgumentException("expected a JSON array, found " + (o == null ? "null" : o.getClass().getSimpleName()));
        }
        return (List<Object>) o;
    }

    private static String str(Map<String, Object> m, String key) {
        Object o = m.get(key);
        if (!(o instanceof String)) {
            throw new IllegalArgumentException("\"" + key + "\" should be a string, found " + o);
        }
        return (String) o;
    }

    private static BigDecimal num(Object o) {
        if (o instanceof BigDecimal) {
            return (BigDecimal) o;
        }
        if (o instanceof String) {
            return new BigDecimal((String) o);
        }
        if (o instanceof Integer || o instanceof Long || o instanceof Short || o instanceof Byte) {
            return BigDecimal.valueOf(((Number) o).longValue());
        }
        if (o instanceof BigInteger) {
            return new BigDecimal((BigInteger) o);
        }
        throw new IllegalArgumentException("expected a number, found " + o);
    }

    private static int intOf(Object o) {
        return num(o).intValueExact();
    }

    static byte[] hex(String s) {
        if (s.length() % 2 != 0) {
            throw new IllegalArgumentException("odd number of hex digits");
        }
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            int hi = Character.digit(s.charAt(2 * i), 16);
            int lo = Character.digit(s.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("invalid hex digit near offset " + (2 * i));
            }
            b[i] = (byte) (hi << 4 | lo);
        }
        return b;
    }

    static String toHex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    private static String hexAt(byte[] b, int i) {
        return i < b.length ? toHex(Arrays.copyOfRange(b, i, Math.min(b.length, i + 8))) : "<end>";
    }
}
