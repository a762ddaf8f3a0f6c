package io.atoll.client.serialization;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fields of a {@link Portable} class version: factory id, class id, version and
 * fields in index order (the index picks the slot of the field table; in practice it
 * is also the write order). Immutable. Built with {@link ClassDefinitionBuilder},
 * derived from a first {@code writePortable} call, or rebuilt from a binary.
 */
public final class ClassDefinition {
    private final int factoryId;
    private final int classId;
    private final int version;
    private final List<FieldDefinition> fields;
    private final Map<String, FieldDefinition> byName;
    private final Map<String, ClassDefinition> nested;

    /**
     * A class definition of the given fields (their indexes must be 0..n-1) and the
     * definitions of nested portable fields by field name (may be null). Applications
     * build them with {@link ClassDefinitionBuilder}.
     */
    public ClassDefinition(int factoryId, int classId, int version, List<FieldDefinition> fields, Map<String, ClassDefinition> nested) {
        this.factoryId = factoryId;
        this.classId = classId;
        this.version = version;
        List<FieldDefinition> sorted = new ArrayList<>(fields);
        sorted.sort((a, b) -> Integer.compare(a.getIndex(), b.getIndex()));
        Map<String, FieldDefinition> m = new HashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            FieldDefinition f = sorted.get(i);
            if (f.getIndex() != i) {
                throw new IllegalArgumentException("field indexes of class (" + factoryId + "," + classId + ") must be 0.."
                        + (sorted.size() - 1) + ", found " + f);
            }
            if (m.put(f.getName(), f) != null) {
                throw new IllegalArgumentException("duplicate field '" + f.getName() + "' in class (" + factoryId + "," + classId + ")");
            }
        }
        this.fields = Collections.unmodifiableList(sorted);
        this.byName = m;
        this.nested = nested == null ? Map.of() : Map.copyOf(nested);
    }

    public int getFactoryId() {
        return factoryId;
    }

    public int getClassId() {
        return classId;
    }

    public int getVersion() {
        return version;
    }

    /** The field with this name, or null. */
    public FieldDefinition getField(String name) {
        return byName.get(name);
    }

    /** The field with this index. */
    public FieldDefinition getField(int index) {
        if (index < 0 || index >= fields.size()) {
            throw new IndexOutOfBoundsException("field index " + index + " of " + fields.size());
        }
        return fields.get(index);
    }

    /** Fields in index order. */
    public List<FieldDefinition> getFields() {
        return fields;
    }

    public boolean hasField(String name) {
        return byName.containsKey(name);
    }

    /** Field names in index order. */
    public Set<String> getFieldNames() {
        Set<String> s = new LinkedHashSet<>();
        for (FieldDefinition f : fields) {
            s.add(f.getName());
        }
        return s;
    }

    /** The field's type; throws {@link InvalidFieldException} if there is no such field. */
    public FieldType getFieldType(String name) {
        FieldDefinition f = byName.get(name);
        if (f == null) {
            throw new InvalidFieldException("unknown portable field '" + name + "' in class " + this);
        }
        return f.getType();
    }

    /** Class id of the nested class of a PORTABLE or PORTABLE_ARRAY field. */
    public int getFieldClassId(String name) {
        FieldDefinition f = byName.get(name);
        if (f == null) {
            throw new InvalidFieldException("unknown portable field '" + name + "' in class " + this);
        }
        return f.getClassId();
    }

    public int getFieldCount() {
        return fields.size();
    }

    /** Nested class definitions given to the builder, by field name (may be empty). */
    public Map<String, ClassDefinition> nestedDefinitions() {
        return nested;
    }

    /** Whether both describe the same fields (nested definitions are not compared). */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClassDefinition)) {
            return false;
        }
        ClassDefinition c = (ClassDefinition) o;
        return c.factoryId == factoryId && c.classId == classId && c.version == version && c.fields.equals(fields);
    }

    @Override
    public int hashCode() {
        return (factoryId * 31 + classId) * 31 + version;
    }

    @Override
    public String toString() {
        return "ClassDefinition{factoryId=" + factoryId + ", classId=" + classId + ", version=" + version + ", fields=" + fields + "}";
    }
}
