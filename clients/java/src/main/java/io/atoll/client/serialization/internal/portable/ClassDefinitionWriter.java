package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.ClassDefinitionBuilder;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.Portable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Derives a class definition from the calls of a first {@code writePortable}. */
public final class ClassDefinitionWriter extends AbstractPortableWriter {
    private final PortableCodec codec;
    private final int factoryId;
    private final int classId;
    private final int version;
    private final int depth;
    private final List<FieldDefinition> fields = new ArrayList<>();
    private final Map<String, ClassDefinition> nested = new HashMap<>();
    private final Set<String> names = new HashSet<>();

    ClassDefinitionWriter(PortableCodec codec, int factoryId, int classId, int version, int depth) {
        this.codec = codec;
        this.factoryId = factoryId;
        this.classId = classId;
        this.version = version;
        this.depth = depth;
    }

    private void add(String name, FieldType type, ClassDefinition def) {
        PortableCodec.checkFieldName(name);
        if (!names.add(name)) {
            throw new InvalidFieldException("portable field '" + name + "' is written twice");
        }
        if (def == null) {
            fields.add(new FieldDefinition(fields.size(), name, type));
        } else {
            fields.add(new FieldDefinition(fields.size(), name, type, def.getFactoryId(), def.getClassId(), def.getVersion()));
            nested.put(name, def);
        }
    }

    @Override
    void write(String fieldName, FieldType type, Object value) {
        if (type == FieldType.PORTABLE) {
            if (value == null) {
                throw new InvalidFieldException("cannot derive the class definition of (" + factoryId + "," + classId
                        + ") from a null portable field '" + fieldName + "': register the class definition or use writeNullPortable");
            }
            add(fieldName, type, codec.classDefinitionOf((Portable) value, depth + 1));
        } else if (type == FieldType.PORTABLE_ARRAY) {
            Portable[] items = (Portable[]) value;
            if (items == null || items.length == 0) {
                throw new InvalidFieldException("cannot derive the class definition of (" + factoryId + "," + classId
                        + ") from a null or empty portable array field '" + fieldName + "': register the class definition");
            }
            add(fieldName, type, codec.classDefinitionOf(items[0], depth + 1));
        } else {
            add(fieldName, type, null);
        }
    }

    @Override
    public void writeNullPortable(String fieldName, int fid, int cid) {
        ClassDefinition def = codec.lookup(fid, cid, codec.portableVersion());
        if (def == null) {
            throw new InvalidFieldException("writeNullPortable('" + fieldName + "'): no class definition registered for ("
                    + fid + "," + cid + ",v" + codec.portableVersion() + ")");
        }
        add(fieldName, FieldType.PORTABLE, def);
    }

    ClassDefinition build() {
        return new ClassDefinition(factoryId, classId, version, fields, nested);
    }
}
