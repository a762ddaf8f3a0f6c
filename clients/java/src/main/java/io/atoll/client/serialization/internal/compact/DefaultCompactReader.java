package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.InvalidFieldException;

/** {@link CompactReader} over an in-place {@link CompactRecord}; nested values become registered classes. */
public final class DefaultCompactReader extends AbstractCompactReader {
    private final CompactRecord record;

    DefaultCompactReader(CompactRecord record) {
        this.record = record;
    }

    @Override
    public FieldKind getFieldKind(String fieldName) {
        return record.getFieldKind(fieldName);
    }

    @Override
    Object read(String fieldName, FieldKind kind) {
        return record.read(fieldName, kind);
    }

    private FieldDescriptor field(String fieldName, FieldKind kind) {
        FieldDescriptor fd = record.schema.getField(fieldName);
        if (fd == null) {
            throw new InvalidFieldException("unknown field '" + fieldName + "' in compact '" + record.schema.getTypeName() + "'");
        }
        if (fd.getKind() != kind) {
            throw new InvalidFieldException("field '" + fieldName + "' of compact '" + record.schema.getTypeName() + "' is "
                    + fd.getKind() + ", not " + kind);
        }
        return fd;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readCompact(String fieldName) {
        FieldDescriptor fd = field(fieldName, FieldKind.COMPACT);
        int p = record.bodyStart(fd);
        if (p < 0) {
            return null;
        }
        return (T) CompactRecord.readBody(record.service, record.buf, p, record.bodyLimit(fd), FieldKind.COMPACT,
                record.withSchema, record.depth, r -> record.service.compact().toObject(r));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T[] readArrayOfCompact(String fieldName, Class<T> componentType) {
        FieldDescriptor fd = field(fieldName, FieldKind.ARRAY_OF_COMPACT);
        int p = record.bodyStart(fd);
        if (p < 0) {
            return null;
        }
        Object a = CompactRecord.readVarArray(record.service, record.buf, p, record.bodyLimit(fd), FieldKind.COMPACT,
                componentType, record.withSchema, record.depth, r -> record.service.compact().toObject(r));
        return (T[]) a;
    }
}
