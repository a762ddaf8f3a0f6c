package io.atoll.vectors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An object of one of the three object formats, described without any serializer: its
 * identity and its fields in the order they are written, each with its kind and Java value.
 * {@link HazelcastObjects} turns it into what Hazelcast serializes; {@link VectorJson} writes
 * it as a vector's tagged value, which the SDK (VectorVerifier) and Go rebuild.
 *
 * <p>Field kinds are Hazelcast's names: a compact {@code FieldKind} ({@code INT32},
 * {@code ARRAY_OF_COMPACT}, ...), a portable {@code FieldType} ({@code INT}, {@code UTF_ARRAY},
 * ...) or, for identified objects, the {@code ObjectDataOutput} call ({@code writeInt},
 * {@code writeObject}, ...). Values are the Java values a generic record holds: boxed scalars,
 * primitive arrays (boxed arrays for nullable items), {@code String[]}, {@code BigDecimal},
 * {@code java.time} values, and {@link Obj} / {@code Obj[]} for nested objects.
 */
public final class Obj {
    /** The object formats. */
    public enum Format {
        COMPACT, PORTABLE, IDENTIFIED;

        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One field. {@code itemType} names the type of nested objects; for portable fields and
     * identified inline fields it is an object of that type whose fields give the class
     * definition or layout (their values do not matter), otherwise the identity suffices. {@code valueKind} is the format-neutral kind of the value (INT32,
     * OBJECT, ARRAY_OF_NULLABLE_INT64, ...).
     */
    public record Field(String name, String kind, String valueKind, Obj itemType, Object value) {
    }

    public final Format format;
    public final String typeName;
    public final int factoryId;
    public final int classId;
    public final int version;
    private final List<Field> fields = new ArrayList<>();

    private Obj(Format format, String typeName, int factoryId, int classId, int version) {
        this.format = format;
        this.typeName = typeName;
        this.factoryId = factoryId;
        this.classId = classId;
        this.version = version;
    }

    public static Obj compact(String typeName) {
        return new Obj(Format.COMPACT, typeName, 0, 0, 0);
    }

    public static Obj portable(int factoryId, int classId, int version) {
        return new Obj(Format.PORTABLE, null, factoryId, classId, version);
    }

    public static Obj identified(int factoryId, int classId) {
        return new Obj(Format.IDENTIFIED, null, factoryId, classId, 0);
    }

    /** An object of the same type without fields: the identity of nested items, or a new object to fill. */
    public Obj sameType() {
        return new Obj(format, typeName, factoryId, classId, version);
    }

    /** Adds a scalar or array field; its value kind follows from the kind. */
    public Obj add(String name, String kind, Object value) {
        return add(name, kind, Kinds.valueKind(format, kind, value), null, value);
    }

    /** Adds a field of nested objects ({@code itemType} names their type; value Obj, Obj[] or null). */
    public Obj nested(String name, String kind, Obj itemType, Object value) {
        return add(name, kind, Kinds.valueKind(format, kind, value), itemType, value);
    }

    /** Adds a field with an explicit value kind (identified writeObject of boxed values). */
    public Obj add(String name, String kind, String valueKind, Obj itemType, Object value) {
        for (Field f : fields) {
            if (f.name().equals(name)) {
                throw new IllegalArgumentException("field " + name + " twice in " + identity());
            }
        }
        fields.add(new Field(name, kind, valueKind, itemType, value));
        return this;
    }

    public List<Field> fields() {
        return Collections.unmodifiableList(fields);
    }

    /** A key naming the type: compact type name, portable factory/class/version, identified factory/class. */
    public String identity() {
        switch (format) {
            case COMPACT:
                return typeName;
            case PORTABLE:
                return factoryId + "/" + classId + "/v" + version;
            default:
                return factoryId + "/" + classId;
        }
    }

    @Override
    public String toString() {
        return format.jsonName() + " " + identity() + " " + fields;
    }
}
