package io.atoll.client.serialization;

import io.atoll.client.serialization.internal.core.Kinds;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The declared shape of an {@link IdentifiedDataSerializable} class: factory id, class
 * id and the fields in the exact order its {@code writeData} writes them, each with the
 * {@link ObjectDataOutput} call that writes it. The identified format has no field names
 * or offsets, so a reader without the Java class needs this to read an identified value
 * as a {@link GenericRecord}, and a writer needs it to produce one from a generic record.
 *
 * <p>Besides the plain calls ({@code writeInt}, {@code writeString}, {@code writeIntArray},
 * ...) four compound operations describe nested values:
 * <ul>
 * <li>{@code writeObject}: int type id + payload, null = int 0 (boxed numbers, strings,
 * nested identified/compact/portable values);</li>
 * <li>{@code writeObjectArray}: int length (-1 = null) + one {@code writeObject} per item;</li>
 * <li>{@code writeDataInline}: the nested value's own fields only ({@code nested.writeData(out)});</li>
 * <li>{@code writeInlineArray}: int length (-1 = null) + each item's fields inline.</li>
 * </ul>
 * Immutable.
 */
public final class IdentifiedLayout {

    /** How one field is written. The names are the {@link ObjectDataOutput} calls. */
    public enum Op {
        WRITE_BOOLEAN("writeBoolean", FieldKind.BOOLEAN),
        WRITE_BYTE("writeByte", FieldKind.INT8),
        WRITE_CHAR("writeChar", FieldKind.CHAR),
        WRITE_SHORT("writeShort", FieldKind.INT16),
        WRITE_INT("writeInt", FieldKind.INT32),
        WRITE_LONG("writeLong", FieldKind.INT64),
        WRITE_FLOAT("writeFloat", FieldKind.FLOAT32),
        WRITE_DOUBLE("writeDouble", FieldKind.FLOAT64),
        WRITE_STRING("writeString", FieldKind.STRING),
        WRITE_BYTE_ARRAY("writeByteArray", FieldKind.ARRAY_OF_INT8),
        WRITE_BOOLEAN_ARRAY("writeBooleanArray", FieldKind.ARRAY_OF_BOOLEAN),
        WRITE_CHAR_ARRAY("writeCharArray", FieldKind.ARRAY_OF_CHAR),
        WRITE_SHORT_ARRAY("writeShortArray", FieldKind.ARRAY_OF_INT16),
        WRITE_INT_ARRAY("writeIntArray", FieldKind.ARRAY_OF_INT32),
        WRITE_LONG_ARRAY("writeLongArray", FieldKind.ARRAY_OF_INT64),
        WRITE_FLOAT_ARRAY("writeFloatArray", FieldKind.ARRAY_OF_FLOAT32),
        WRITE_DOUBLE_ARRAY("writeDoubleArray", FieldKind.ARRAY_OF_FLOAT64),
        WRITE_STRING_ARRAY("writeStringArray", FieldKind.ARRAY_OF_STRING),
        WRITE_OBJECT("writeObject", null),
        WRITE_OBJECT_ARRAY("writeObjectArray", null),
        WRITE_DATA_INLINE("writeDataInline", FieldKind.IDENTIFIED),
        WRITE_INLINE_ARRAY("writeInlineArray", FieldKind.ARRAY_OF_IDENTIFIED);

        private final String opName;
        private final FieldKind fixedKind;

        Op(String opName, FieldKind fixedKind) {
            this.opName = opName;
            this.fixedKind = fixedKind;
        }

        /** The call name, e.g. {@code writeInt}. */
        public String opName() {
            return opName;
        }

        /** The op with this call name ({@code writeUTF} is accepted for {@code writeString}); null if unknown. */
        public static Op ofName(String name) {
            if ("writeUTF".equals(name)) {
                return WRITE_STRING;
            }
            for (Op op : values()) {
                if (op.opName.equals(name)) {
                    return op;
                }
            }
            return null;
        }

        /** Whether the field holds nested identified values (factory and class id required). */
        boolean nestsLayout() {
            return this == WRITE_DATA_INLINE || this == WRITE_INLINE_ARRAY;
        }
    }

    /** Value kinds a {@code writeObject} field may declare. */
    static final Set<FieldKind> OBJECT_KINDS = EnumSet.of(
            FieldKind.NULLABLE_BOOLEAN, FieldKind.NULLABLE_INT8, FieldKind.CHAR, FieldKind.NULLABLE_INT16,
            FieldKind.NULLABLE_INT32, FieldKind.NULLABLE_INT64, FieldKind.NULLABLE_FLOAT32, FieldKind.NULLABLE_FLOAT64,
            FieldKind.STRING, FieldKind.ARRAY_OF_BOOLEAN, FieldKind.ARRAY_OF_INT8, FieldKind.ARRAY_OF_CHAR,
            FieldKind.ARRAY_OF_INT16, FieldKind.ARRAY_OF_INT32, FieldKind.ARRAY_OF_INT64, FieldKind.ARRAY_OF_FLOAT32,
            FieldKind.ARRAY_OF_FLOAT64, FieldKind.ARRAY_OF_STRING, FieldKind.IDENTIFIED, FieldKind.COMPACT, FieldKind.PORTABLE);

    /** Value kinds a {@code writeObjectArray} field may declare. */
    static final Set<FieldKind> OBJECT_ARRAY_KINDS = EnumSet.of(
            FieldKind.ARRAY_OF_NULLABLE_BOOLEAN, FieldKind.ARRAY_OF_NULLABLE_INT8, FieldKind.ARRAY_OF_NULLABLE_INT16,
            FieldKind.ARRAY_OF_NULLABLE_INT32, FieldKind.ARRAY_OF_NULLABLE_INT64, FieldKind.ARRAY_OF_NULLABLE_FLOAT32,
            FieldKind.ARRAY_OF_NULLABLE_FLOAT64, FieldKind.ARRAY_OF_STRING, FieldKind.ARRAY_OF_IDENTIFIED,
            FieldKind.ARRAY_OF_COMPACT, FieldKind.ARRAY_OF_PORTABLE);

    /** One field: name, write call, value kind and, for nested identified values, their ids. */
    public static final class Field {
        private final String name;
        private final Op op;
        private final FieldKind kind;
        private final int nestedFactoryId;
        private final int nestedClassId;

        Field(String name, Op op, FieldKind kind, int nestedFactoryId, int nestedClassId) {
            this.name = name;
            this.op = op;
            this.kind = kind;
            this.nestedFactoryId = nestedFactoryId;
            this.nestedClassId = nestedClassId;
        }

        public String getName() {
            return name;
        }

        public Op getOp() {
            return op;
        }

        /** Kind of the value as a {@link GenericRecord} reports it. */
        public FieldKind getKind() {
            return kind;
        }

        /** Factory id of nested identified values (IDENTIFIED / ARRAY_OF_IDENTIFIED kinds), else 0. */
        public int getNestedFactoryId() {
            return nestedFactoryId;
        }

        /** Class id of nested identified values (IDENTIFIED / ARRAY_OF_IDENTIFIED kinds), else 0. */
        public int getNestedClassId() {
            return nestedClassId;
        }

        boolean hasNestedIds() {
            return kind == FieldKind.IDENTIFIED || kind == FieldKind.ARRAY_OF_IDENTIFIED;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Field)) {
                return false;
            }
            Field f = (Field) o;
            return f.name.equals(name) && f.op == op && f.kind == kind && f.nestedFactoryId == nestedFactoryId
                    && f.nestedClassId == nestedClassId;
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, op, kind);
        }

        @Override
        public String toString() {
            return op.opName() + " " + name + (op.fixedKind == null ? ":" + kind : "")
                    + (hasNestedIds() ? "(" + nestedFactoryId + "," + nestedClassId + ")" : "");
        }
    }

    private final int factoryId;
    private final int classId;
    private final List<Field> fields;
    private final Map<String, Field> byName;

    private IdentifiedLayout(int factoryId, int classId, List<Field> fields) {
        this.factoryId = factoryId;
        this.classId = classId;
        this.fields = Collections.unmodifiableList(new ArrayList<>(fields));
        Map<String, Field> m = new HashMap<>();
        for (Field f : fields) {
            m.put(f.name, f);
        }
        this.byName = m;
    }

    /** Starts a layout; add fields in the order {@code writeData} writes them. */
    public static Builder builder(int factoryId, int classId) {
        return new Builder(factoryId, classId);
    }

    public int getFactoryId() {
        return factoryId;
    }

    public int getClassId() {
        return classId;
    }

    /** Fields in write order. */
    public List<Field> getFields() {
        return fields;
    }

    /** The field with this name, or null. */
    public Field getField(String name) {
        return byName.get(name);
    }

    public int getFieldCount() {
        return fields.size();
    }

    /** Field names in write order. */
    public Set<String> getFieldNames() {
        Set<String> s = new LinkedHashSet<>();
        for (Field f : fields) {
            s.add(f.name);
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IdentifiedLayout)) {
            return false;
        }
        IdentifiedLayout l = (IdentifiedLayout) o;
        return l.factoryId == factoryId && l.classId == classId && l.fields.equals(fields);
    }

    @Override
    public int hashCode() {
        return factoryId * 31 + classId;
    }

    @Override
    public String toString() {
        return "IdentifiedLayout{factoryId=" + factoryId + ", classId=" + classId + ", fields=" + fields + "}";
    }

    /** Builds an {@link IdentifiedLayout}; one method per write call. */
    public static final class Builder {
        private final int factoryId;
        private final int classId;
        private final List<Field> fields = new ArrayList<>();
        private final Set<String> names = new LinkedHashSet<>();

        private Builder(int factoryId, int classId) {
            this.factoryId = factoryId;
            this.classId = classId;
        }

        private Builder add(String name, Op op, FieldKind kind, int fid, int cid) {
            Objects.requireNonNull(name, "name");
            if (!names.add(name)) {
                throw new IllegalArgumentException("field '" + name + "' is already in the layout");
            }
            fields.add(new Field(name, op, kind, fid, cid));
            return this;
        }

        /**
         * Adds a field by call name ({@code "writeInt"}, ...). {@code kind} is needed only for
         * {@code writeObject} / {@code writeObjectArray}; {@code nestedFactoryId} / {@code nestedClassId}
         * only for nested identified values.
         */
        public Builder field(String name, Op op, FieldKind kind, int nestedFactoryId, int nestedClassId) {
            switch (op) {
                case WRITE_OBJECT:
                    return writeObject(name, kind, nestedFactoryId, nestedClassId);
                case WRITE_OBJECT_ARRAY:
                    return writeObjectArray(name, kind, nestedFactoryId, nestedClassId);
                case WRITE_DATA_INLINE:
                    return writeDataInline(name, nestedFactoryId, nestedClassId);
                case WRITE_INLINE_ARRAY:
                    return writeInlineArray(name, nestedFactoryId, nestedClassId);
                default:
                    return add(name, op, op.fixedKind, 0, 0);
            }
        }

        public Builder writeBoolean(String name) {
            return add(name, Op.WRITE_BOOLEAN, FieldKind.BOOLEAN, 0, 0);
        }

        public Builder writeByte(String name) {
            return add(name, Op.WRITE_BYTE, FieldKind.INT8, 0, 0);
        }

        public Builder writeChar(String name) {
            return add(name, Op.WRITE_CHAR, FieldKind.CHAR, 0, 0);
        }

        public Builder writeShort(String name) {
            return add(name, Op.WRITE_SHORT, FieldKind.INT16, 0, 0);
        }

        public Builder writeInt(String name) {
            return add(name, Op.WRITE_INT, FieldKind.INT32, 0, 0);
        }

        public Builder writeLong(String name) {
            return add(name, Op.WRITE_LONG, FieldKind.INT64, 0, 0);
        }

        public Builder writeFloat(String name) {
            return add(name, Op.WRITE_FLOAT, FieldKind.FLOAT32, 0, 0);
        }

        public Builder writeDouble(String name) {
            return add(name, Op.WRITE_DOUBLE, FieldKind.FLOAT64, 0, 0);
        }

        public Builder writeString(String name) {
            return add(name, Op.WRITE_STRING, FieldKind.STRING, 0, 0);
        }

        public Builder writeByteArray(String name) {
            return add(name, Op.WRITE_BYTE_ARRAY, FieldKind.ARRAY_OF_INT8, 0, 0);
        }

        public Builder writeBooleanArray(String name) {
            return add(name, Op.WRITE_BOOLEAN_ARRAY, FieldKind.ARRAY_OF_BOOLEAN, 0, 0);
        }

        public Builder writeCharArray(String name) {
            return add(name, Op.WRITE_CHAR_ARRAY, FieldKind.ARRAY_OF_CHAR, 0, 0);
        }

        public Builder writeShortArray(String name) {
            return add(name, Op.WRITE_SHORT_ARRAY, FieldKind.ARRAY_OF_INT16, 0, 0);
        }

        public Builder writeIntArray(String name) {
            return add(name, Op.WRITE_INT_ARRAY, FieldKind.ARRAY_OF_INT32, 0, 0);
        }

        public Builder writeLongArray(String name) {
            return add(name, Op.WRITE_LONG_ARRAY, FieldKind.ARRAY_OF_INT64, 0, 0);
        }

        public Builder writeFloatArray(String name) {
            return add(name, Op.WRITE_FLOAT_ARRAY, FieldKind.ARRAY_OF_FLOAT32, 0, 0);
        }

        public Builder writeDoubleArray(String name) {
            return add(name, Op.WRITE_DOUBLE_ARRAY, FieldKind.ARRAY_OF_FLOAT64, 0, 0);
        }

        public Builder writeStringArray(String name) {
            return add(name, Op.WRITE_STRING_ARRAY, FieldKind.ARRAY_OF_STRING, 0, 0);
        }

        /**
         * A value written with {@code writeObject}: a boxed number ({@code NULLABLE_INT32} for
         * {@code Integer}, ...), {@code CHAR}, {@code STRING}, a primitive array kind, or a nested
         * {@code COMPACT} / {@code PORTABLE} value. Non-nullable number kinds are taken as their
         * NULLABLE_ twins. Use {@link #writeObject(String, int, int)} for nested identified values.
         */
        public Builder writeObject(String name, FieldKind kind) {
            return writeObject(name, kind, 0, 0);
        }

        /** A nested identified value written with {@code writeObject} (may be null). */
        public Builder writeObject(String name, int nestedFactoryId, int nestedClassId) {
            return add(name, Op.WRITE_OBJECT, FieldKind.IDENTIFIED, nestedFactoryId, nestedClassId);
        }

        private Builder writeObject(String name, FieldKind kind, int fid, int cid) {
            FieldKind k = Kinds.boxedScalar(kind);
            if (k == FieldKind.IDENTIFIED) {
                return add(name, Op.WRITE_OBJECT, k, fid, cid);
            }
            if (!OBJECT_KINDS.contains(k)) {
                throw new IllegalArgumentException("writeObject field '" + name + "' cannot hold kind " + kind);
            }
            return add(name, Op.WRITE_OBJECT, k, 0, 0);
        }

        /**
         * An array written as int length (-1 = null) + {@code writeObject} per item;
         * {@code arrayKind} is e.g. {@code ARRAY_OF_NULLABLE_INT32} or {@code ARRAY_OF_STRING}.
         */
        public Builder writeObjectArray(String name, FieldKind arrayKind) {
            return writeObjectArray(name, arrayKind, 0, 0);
        }

        /** An array of nested identified values written with {@code writeObject} each (null items allowed). */
        public Builder writeObjectArray(String name, int nestedFactoryId, int nestedClassId) {
            return add(name, Op.WRITE_OBJECT_ARRAY, FieldKind.ARRAY_OF_IDENTIFIED, nestedFactoryId, nestedClassId);
        }

        private Builder writeObjectArray(String name, FieldKind kind, int fid, int cid) {
            FieldKind k = Kinds.boxedArray(kind);
            if (k == FieldKind.ARRAY_OF_IDENTIFIED) {
                return add(name, Op.WRITE_OBJECT_ARRAY, k, fid, cid);
            }
            if (!OBJECT_ARRAY_KINDS.contains(k)) {
                throw new IllegalArgumentException("writeObjectArray field '" + name + "' cannot hold kind " + kind);
            }
            return add(name, Op.WRITE_OBJECT_ARRAY, k, 0, 0);
        }

        /** A nested identified value whose fields are written inline ({@code nested.writeData(out)}); never null. */
        public Builder writeDataInline(String name, int nestedFactoryId, int nestedClassId) {
            return add(name, Op.WRITE_DATA_INLINE, FieldKind.IDENTIFIED, nestedFactoryId, nestedClassId);
        }

        /** Int length (-1 = null) + each nested identified item's fields inline; items are never null. */
        public Builder writeInlineArray(String name, int nestedFactoryId, int nestedClassId) {
            return add(name, Op.WRITE_INLINE_ARRAY, FieldKind.ARRAY_OF_IDENTIFIED, nestedFactoryId, nestedClassId);
        }

        public IdentifiedLayout build() {
            return new IdentifiedLayout(factoryId, classId, fields);
        }
    }
}
