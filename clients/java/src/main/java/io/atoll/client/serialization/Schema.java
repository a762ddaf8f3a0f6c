package io.atoll.client.serialization;

import io.atoll.client.serialization.internal.compact.RabinFingerprint;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A compact schema: a type name and its fields. The layout and the schema id follow
 * from the fields alone:
 * <ul>
 * <li>fields are sorted by name ({@link String#compareTo});</li>
 * <li>fixed-size fields other than booleans get consecutive offsets from 0, largest
 * size first (8, 4, 2, 1), name order among equal sizes;</li>
 * <li>BOOLEAN fields follow, 8 per byte, bit 0 first;</li>
 * <li>variable-size fields (everything else, including NULLABLE_* kinds) get offset
 * table slots 0..n-1 in name order;</li>
 * <li>the id is the 64-bit Rabin fingerprint of type name, field count and
 * (name, kind id) per field.</li>
 * </ul>
 * Schemas are immutable and thread-safe.
 */
public final class Schema {
    private final String typeName;
    private final List<FieldDescriptor> fields;
    private final Map<String, FieldDescriptor> byName;
    private final FieldDescriptor[] varFields;
    private final int fixedSizeLength;
    private final long schemaId;

    /**
     * A schema from field names and kinds in any order.
     *
     * @throws IllegalArgumentException on a duplicate name or a kind compact cannot hold
     */
    public Schema(String typeName, Map<String, FieldKind> fieldKinds) {
        this.typeName = Objects.requireNonNull(typeName, "typeName");
        List<String> names = new ArrayList<>(fieldKinds.keySet());
        for (String n : names) {
            Objects.requireNonNull(n, "field name");
            FieldKind k = fieldKinds.get(n);
            if (k == null || !k.isCompactKind()) {
                throw new IllegalArgumentException("field '" + n + "' of compact type '" + typeName + "' has kind " + k
                        + ", which compact does not support");
            }
        }
        Collections.sort(names);
        int n = names.size();
        String[] sortedNames = names.toArray(new String[0]);
        FieldKind[] kinds = new FieldKind[n];
        for (int i = 0; i < n; i++) {
            kinds[i] = fieldKinds.get(sortedNames[i]);
        }
        this.schemaId = RabinFingerprint.schemaId(typeName, sortedNames, kinds);

        FieldDescriptor[] out = new FieldDescriptor[n];
        int offset = 0;
        for (int size = 8; size >= 1; size /= 2) {
            for (int i = 0; i < n; i++) {
                if (kinds[i].compactFixedSize() == size) {
                    out[i] = new FieldDescriptor(sortedNames[i], kinds[i], offset, -1, -1);
                    offset += size;
                }
            }
        }
        int booleans = 0;
        for (int i = 0; i < n; i++) {
            if (kinds[i] == FieldKind.BOOLEAN) {
                out[i] = new FieldDescriptor(sortedNames[i], kinds[i], offset + booleans / 8, booleans % 8, -1);
                booleans++;
            }
        }
        this.fixedSizeLength = offset + (booleans + 7) / 8;
        List<FieldDescriptor> var = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (kinds[i].compactFixedSize() < 0) {
                out[i] = new FieldDescriptor(sortedNames[i], kinds[i], -1, -1, var.size());
                var.add(out[i]);
            }
        }
        this.varFields = var.toArray(new FieldDescriptor[0]);
        List<FieldDescriptor> list = new ArrayList<>(n);
        Map<String, FieldDescriptor> map = new HashMap<>();
        for (FieldDescriptor f : out) {
            list.add(f);
            map.put(f.getName(), f);
        }
        this.fields = Collections.unmodifiableList(list);
        this.byName = map;
    }

    /** A schema from (name, kind) pairs given as alternating arguments, for tests and tools. */
    public static Schema of(String typeName, Object... nameKindPairs) {
        if (nameKindPairs.length % 2 != 0) {
            throw new IllegalArgumentException("expected name/kind pairs");
        }
        Map<String, FieldKind> m = new LinkedHashMap<>();
        for (int i = 0; i < nameKindPairs.length; i += 2) {
            if (m.put((String) nameKindPairs[i], (FieldKind) nameKindPairs[i + 1]) != null) {
                throw new IllegalArgumentException("duplicate field " + nameKindPairs[i]);
            }
        }
        return new Schema(typeName, m);
    }

    public String getTypeName() {
        return typeName;
    }

    /** The 64-bit Rabin fingerprint that identifies this schema on the wire. */
    public long getSchemaId() {
        return schemaId;
    }

    /** Fields in name order. */
    public List<FieldDescriptor> getFields() {
        return fields;
    }

    public int getFieldCount() {
        return fields.size();
    }

    /** The field with this name, or null. */
    public FieldDescriptor getField(String name) {
        return byName.get(name);
    }

    public boolean hasField(String name) {
        return byName.containsKey(name);
    }

    /** Size of the fixed-size section in bytes. */
    public int getFixedSizeFieldsLength() {
        return fixedSizeLength;
    }

    /** Number of variable-size fields = entries in the offset table. */
    public int getNumberOfVariableSizeFields() {
        return varFields.length;
    }

    /** Variable-size field with the given offset-table slot. */
    public FieldDescriptor varField(int index) {
        return varFields[index];
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Schema)) {
            return false;
        }
        Schema s = (Schema) o;
        if (s.schemaId != schemaId || !s.typeName.equals(typeName) || s.fields.size() != fields.size()) {
            return false;
        }
        for (int i = 0; i < fields.size(); i++) {
            FieldDescriptor a = fields.get(i);
            FieldDescriptor b = s.fields.get(i);
            if (!a.getName().equals(b.getName()) || a.getKind() != b.getKind()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(schemaId);
    }

    @Override
    public String toString() {
        return "Schema{" + typeName + ", id=" + schemaId + ", fields=" + fields + "}";
    }
}
