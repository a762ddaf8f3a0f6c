package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.Schema;

import java.util.LinkedHashMap;
import java.util.Map;

/** Records the fields a serializer writes, to derive the schema of its class. */
public final class SchemaBuildingWriter extends AbstractCompactWriter {
    private final String typeName;
    private final Map<String, FieldKind> fields = new LinkedHashMap<>();

    SchemaBuildingWriter(String typeName) {
        this.typeName = typeName;
    }

    @Override
    void write(String fieldName, FieldKind kind, Object value) {
        if (fieldName == null) {
            throw new InvalidFieldException("compact field names cannot be null (type '" + typeName + "')");
        }
        if (fields.put(fieldName, kind) != null) {
            throw new InvalidFieldException("field '" + fieldName + "' of compact type '" + typeName + "' is written twice");
        }
    }

    Schema build() {
        return new Schema(typeName, fields);
    }
}
