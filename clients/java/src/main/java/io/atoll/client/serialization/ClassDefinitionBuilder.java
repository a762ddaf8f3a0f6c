package io.atoll.client.serialization;

import io.atoll.client.serialization.internal.portable.PortableCodec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds a {@link ClassDefinition}; field indexes follow the order of the add calls.
 * Field names must be ASCII: the binary stores one byte per character.
 */
public final class ClassDefinitionBuilder {
    private final int factoryId;
    private final int classId;
    private final int version;
    private final List<FieldDefinition> fields = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private final Map<String, ClassDefinition> nested = new HashMap<>();
    private boolean done;

    /** A builder for class version 0. */
    public ClassDefinitionBuilder(int factoryId, int classId) {
        this(factoryId, classId, 0);
    }

    public ClassDefinitionBuilder(int factoryId, int classId, int version) {
        this.factoryId = factoryId;
        this.classId = classId;
        this.version = version;
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

    private ClassDefinitionBuilder add(String name, FieldType type, ClassDefinition def) {
        if (done) {
            throw new IllegalStateException("ClassDefinition is already built for " + classId);
        }
        PortableCodec.checkFieldName(name);
        if (!names.add(name)) {
            throw new IllegalArgumentException("field '" + name + "' is already defined");
        }
        if (def != null) {
            fields.add(new FieldDefinition(fields.size(), name, type, def.getFactoryId(), def.getClassId(), def.getVersion()));
            nested.put(name, def);
        } else {
            fields.add(new FieldDefinition(fields.size(), name, type));
        }
        return this;
    }

    /** Adds a field with nested class ids given explicitly (PORTABLE / PORTABLE_ARRAY) or 0. */
    public ClassDefinitionBuilder addField(FieldDefinition fd) {
        if (fd.getIndex() != fields.size()) {
            throw new IllegalArgumentException("field index must be " + fields.size() + ": " + fd);
        }
        PortableCodec.checkFieldName(fd.getName());
        if (!names.add(fd.getName())) {
            throw new IllegalArgumentException("field '" + fd.getName() + "' is already defined");
        }
        fields.add(fd);
        return this;
    }

    public ClassDefinitionBuilder addIntField(String name) {
        return add(name, FieldType.INT, null);
    }

    public ClassDefinitionBuilder addLongField(String name) {
        return add(name, FieldType.LONG, null);
    }

    public ClassDefinitionBuilder addStringField(String name) {
        return add(name, FieldType.UTF, null);
    }

    public ClassDefinitionBuilder addBooleanField(String name) {
        return add(name, FieldType.BOOLEAN, null);
    }

    public ClassDefinitionBuilder addByteField(String name) {
        return add(name, FieldType.BYTE, null);
    }

    public ClassDefinitionBuilder addCharField(String name) {
        return add(name, FieldType.CHAR, null);
    }

    public ClassDefinitionBuilder addShortField(String name) {
        return add(name, FieldType.SHORT, null);
    }

    public ClassDefinitionBuilder addFloatField(String name) {
        return add(name, FieldType.FLOAT, null);
    }

    public ClassDefinitionBuilder addDoubleField(String name) {
        return add(name, FieldType.DOUBLE, null);
    }

    public ClassDefinitionBuilder addDecimalField(String name) {
        return add(name, FieldType.DECIMAL, null);
    }

    public ClassDefinitionBuilder addTimeField(String name) {
        return add(name, FieldType.TIME, null);
    }

    public ClassDefinitionBuilder addDateField(String name) {
        return add(name, FieldType.DATE, null);
    }

    public ClassDefinitionBuilder addTimestampField(String name) {
        return add(name, FieldType.TIMESTAMP, null);
    }

    public ClassDefinitionBuilder addTimestampWithTimezoneField(String name) {
        return add(name, FieldType.TIMESTAMP_WITH_TIMEZONE, null);
    }

    /** A nested portable of the given class. */
    public ClassDefinitionBuilder addPortableField(String name, ClassDefinition def) {
        return add(name, FieldType.PORTABLE, def);
    }

    public ClassDefinitionBuilder addByteArrayField(String name) {
        return add(name, FieldType.BYTE_ARRAY, null);
    }

    public ClassDefinitionBuilder addBooleanArrayField(String name) {
        return add(name, FieldType.BOOLEAN_ARRAY, null);
    }

    public ClassDefinitionBuilder addCharArrayField(String name) {
        return add(name, FieldType.CHAR_ARRAY, null);
    }

    public ClassDefinitionBuilder addShortArrayField(String name) {
        return add(name, FieldType.SHORT_ARRAY, null);
    }

    public ClassDefinitionBuilder addIntArrayField(String name) {
        return add(name, FieldType.INT_ARRAY, null);
    }

    public ClassDefinitionBuilder addLongArrayField(String name) {
        return add(name, FieldType.LONG_ARRAY, null);
    }

    public ClassDefinitionBuilder addFloatArrayField(String name) {
        return add(name, FieldType.FLOAT_ARRAY, null);
    }

    public ClassDefinitionBuilder addDoubleArrayField(String name) {
        return add(name, FieldType.DOUBLE_ARRAY, null);
    }

    public ClassDefinitionBuilder addStringArrayField(String name) {
        return add(name, FieldType.UTF_ARRAY, null);
    }

    public ClassDefinitionBuilder addDecimalArrayField(String name) {
        return add(name, FieldType.DECIMAL_ARRAY, null);
    }

    public ClassDefinitionBuilder addTimeArrayField(String name) {
        return add(name, FieldType.TIME_ARRAY, null);
    }

    public ClassDefinitionBuilder addDateArrayField(String name) {
        return add(name, FieldType.DATE_ARRAY, null);
    }

    public ClassDefinitionBuilder addTimestampArrayField(String name) {
        return add(name, FieldType.TIMESTAMP_ARRAY, null);
    }

    public ClassDefinitionBuilder addTimestampWithTimezoneArrayField(String name) {
        return add(name, FieldType.TIMESTAMP_WITH_TIMEZONE_ARRAY, null);
    }

    /** An array of nested portables of the given class (items cannot be null). */
    public ClassDefinitionBuilder addPortableArrayField(String name, ClassDefinition def) {
        return add(name, FieldType.PORTABLE_ARRAY, def);
    }

    public ClassDefinition build() {
        done = true;
        return new ClassDefinition(factoryId, classId, version, fields, nested);
    }
}
