package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecordBuilder;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.Schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** A record made by {@link GenericRecordBuilder}: values in memory, in set order. */
public final class BuiltRecord extends AbstractGenericRecord {
    final Format format;
    final Schema schema;
    final ClassDefinition classDefinition;
    final IdentifiedLayout layout;
    /** Values in set order (compact) or declaration order (portable, identified). */
    final LinkedHashMap<String, Object> values;
    final Map<String, FieldKind> kinds;

    BuiltRecord(Format format, Schema schema, ClassDefinition cd, IdentifiedLayout layout,
                LinkedHashMap<String, Object> values, Map<String, FieldKind> kinds) {
        this.format = format;
        this.schema = schema;
        this.classDefinition = cd;
        this.layout = layout;
        this.values = values;
        this.kinds = kinds;
    }

    @Override
    public Format getFormat() {
        return format;
    }

    @Override
    public String getTypeName() {
        return schema == null ? null : schema.getTypeName();
    }

    @Override
    public Schema getSchema() {
        return schema;
    }

    @Override
    public ClassDefinition getClassDefinition() {
        return classDefinition;
    }

    @Override
    public IdentifiedLayout getLayout() {
        return layout;
    }

    @Override
    public GenericRecordBuilder newBuilder() {
        return RecordBuilder.like(this, false);
    }

    @Override
    public GenericRecordBuilder newBuilderWithClone() {
        return RecordBuilder.like(this, true);
    }

    @Override
    public Set<String> getFieldNames() {
        switch (format) {
            case COMPACT: {
                Set<String> s = new LinkedHashSet<>();
                for (FieldDescriptor f : schema.getFields()) {
                    s.add(f.getName());
                }
                return Collections.unmodifiableSet(s);
            }
            case PORTABLE:
                return classDefinition.getFieldNames();
            default:
                return layout.getFieldNames();
        }
    }

    /** Field names in the order their values are written (compact: set order). */
    public Set<String> writeOrder() {
        return values.keySet();
    }

    @Override
    protected FieldKind kindOrNull(String name) {
        return kinds.get(name);
    }

    @Override
    protected Object rawValue(String name, FieldKind kind) {
        return values.get(name);
    }

    @Override
    protected String identity() {
        switch (format) {
            case COMPACT:
                return "compact '" + schema.getTypeName() + "'";
            case PORTABLE:
                return "portable(" + classDefinition.getFactoryId() + "," + classDefinition.getClassId() + ",v"
                        + classDefinition.getVersion() + ")";
            default:
                return "identified(" + layout.getFactoryId() + "," + layout.getClassId() + ")";
        }
    }
}
