package io.atoll.client.serialization;

/**
 * One field of a {@link ClassDefinition}. For PORTABLE and PORTABLE_ARRAY fields
 * the factory id, class id and version name the nested class; otherwise they are 0.
 */
public final class FieldDefinition {
    private final int index;
    private final String name;
    private final FieldType type;
    private final int factoryId;
    private final int classId;
    private final int version;

    public FieldDefinition(int index, String name, FieldType type, int factoryId, int classId, int version) {
        this.index = index;
        this.name = name;
        this.type = type;
        this.factoryId = factoryId;
        this.classId = classId;
        this.version = version;
    }

    public FieldDefinition(int index, String name, FieldType type) {
        this(index, name, type, 0, 0, 0);
    }

    public int getIndex() {
        return index;
    }

    public String getName() {
        return name;
    }

    public FieldType getType() {
        return type;
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

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FieldDefinition)) {
            return false;
        }
        FieldDefinition f = (FieldDefinition) o;
        return f.index == index && f.name.equals(name) && f.type == type && f.factoryId == factoryId
                && f.classId == classId && f.version == version;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + index;
    }

    @Override
    public String toString() {
        return index + ":" + name + ":" + type + (type == FieldType.PORTABLE || type == FieldType.PORTABLE_ARRAY
                ? "(" + factoryId + "," + classId + ",v" + version + ")" : "");
    }
}
