package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.Schema;
import io.atoll.client.serialization.internal.core.BufferOutput;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * Writes one compact value body for a known schema: reserves the data length and the
 * fixed-size section, appends variable-size bodies in call order, then writes the
 * offset table in index order.
 */
public final class DefaultCompactWriter extends AbstractCompactWriter {
    private final CompactCodec codec;
    private final BufferOutput out;
    private final Schema schema;
    private final boolean includeSchema;
    private final int depth;
    private final int dataLengthPos;
    private final int fixedStart;
    private final int[] offsets;
    private final java.util.Set<String> written = new java.util.HashSet<>();

    /** Starts the body; the schema id (and embedded schema) must already be written. */
    DefaultCompactWriter(CompactCodec codec, BufferOutput out, Schema schema, boolean includeSchema, int depth) {
        this.codec = codec;
        this.out = out;
        this.schema = schema;
        this.includeSchema = includeSchema;
        this.depth = depth;
        int varCount = schema.getNumberOfVariableSizeFields();
        if (varCount > 0) {
            dataLengthPos = out.position();
            out.writeInt(0);
        } else {
            dataLengthPos = -1;
        }
        fixedStart = out.position();
        out.writeZeroBytes(schema.getFixedSizeFieldsLength());
        offsets = new int[varCount];
    }

    @Override
    void write(String fieldName, FieldKind kind, Object value) {
        FieldDescriptor fd = schema.getField(fieldName);
        if (fd == null) {
            throw new InvalidFieldException("compact type '" + schema.getTypeName() + "' has no field '" + fieldName
                    + "' (a serializer must write the same fields for every value)");
        }
        if (fd.getKind() != kind) {
            throw new InvalidFieldException("field '" + fieldName + "' of compact type '" + schema.getTypeName() + "' is "
                    + fd.getKind() + ", not " + kind);
        }
        if (!written.add(fieldName)) {
            throw new InvalidFieldException("field '" + fieldName + "' of compact type '" + schema.getTypeName() + "' is written twice");
        }
        int at = fixedStart + fd.getOffset();
        switch (kind) {
            case BOOLEAN:
                if (nonNull(fieldName, value, kind) == Boolean.TRUE) {
                    out.writeByteAt(at, out.byteAt(at) | (1 << fd.getBitOffset()));
                }
                return;
            case INT8:
                out.writeByteAt(at, (Byte) nonNull(fieldName, value, kind));
                return;
            case INT16:
                out.writeShortAt(at, (Short) nonNull(fieldName, value, kind));
                return;
            case INT32:
                out.writeIntAt(at, (Integer) nonNull(fieldName, value, kind));
                return;
            case INT64:
                out.writeLongAt(at, (Long) nonNull(fieldName, value, kind));
                return;
            case FLOAT32:
                out.writeIntAt(at, Float.floatToIntBits((Float) nonNull(fieldName, value, kind)));
                return;
            case FLOAT64:
                out.writeLongAt(at, Double.doubleToLongBits((Double) nonNull(fieldName, value, kind)));
                return;
            default:
                break;
        }
        if (value == null) {
            offsets[fd.getIndex()] = -1;
            return;
        }
        offsets[fd.getIndex()] = out.position() - fixedStart;
        writeBody(fieldName, kind, value);
    }

    private static Object nonNull(String fieldName, Object value, FieldKind kind) {
        if (value == null) {
            throw new InvalidFieldException("field '" + fieldName + "' of kind " + kind + " cannot be null");
        }
        return value;
    }

    private void writeBody(String fieldName, FieldKind kind, Object value) {
        switch (kind) {
            case STRING:
                out.writeString((String) value);
                return;
            case ARRAY_OF_BOOLEAN: {
                boolean[] a = (boolean[]) value;
                out.writeInt(a.length);
                int b = 0;
                for (int i = 0; i < a.length; i++) {
                    if (a[i]) {
                        b |= 1 << (i % 8);
                    }
                    if (i % 8 == 7 || i == a.length - 1) {
                        out.writeByte(b);
                        b = 0;
                    }
                }
                return;
            }
            case ARRAY_OF_INT8:
                out.writeByteArray((byte[]) value);
                return;
            case ARRAY_OF_INT16:
                out.writeShortArray((short[]) value);
                return;
            case ARRAY_OF_INT32:
                out.writeIntArray((int[]) value);
                return;
            case ARRAY_OF_INT64:
                out.writeLongArray((long[]) value);
                return;
            case ARRAY_OF_FLOAT32:
                out.writeFloatArray((float[]) value);
                return;
            case ARRAY_OF_FLOAT64:
                out.writeDoubleArray((double[]) value);
                return;
            case DECIMAL:
                out.writeDecimal((BigDecimal) value);
                return;
            case TIME:
                out.writeTime((LocalTime) value);
                return;
            case DATE:
                out.writeDate((LocalDate) value);
                return;
            case TIMESTAMP:
                out.writeTimestamp((LocalDateTime) value, false);
                return;
            case TIMESTAMP_WITH_TIMEZONE:
                out.writeTimestampWithTimezone((OffsetDateTime) value, false);
                return;
            case COMPACT:
                codec.writeNested(out, value, includeSchema, depth + 1);
                return;
            case NULLABLE_BOOLEAN:
                out.writeBoolean((Boolean) value);
                return;
            case NULLABLE_INT8:
                out.writeByte((Byte) value);
                return;
            case NULLABLE_INT16:
                out.writeShort((Short) value);
                return;
            case NULLABLE_INT32:
                out.writeInt((Integer) value);
                return;
            case NULLABLE_INT64:
                out.writeLong((Long) value);
                return;
            case NULLABLE_FLOAT32:
                out.writeFloat((Float) value);
                return;
            case NULLABLE_FLOAT64:
                out.writeDouble((Double) value);
                return;
            case ARRAY_OF_STRING:
                writeVarArray(fieldName, (Object[]) value, FieldKind.STRING);
                return;
            case ARRAY_OF_DECIMAL:
                writeVarArray(fieldName, (Object[]) value, FieldKind.DECIMAL);
                return;
            case ARRAY_OF_TIME:
                writeVarArray(fieldName, (Object[]) value, FieldKind.TIME);
                return;
            case ARRAY_OF_DATE:
                writeVarArray(fieldName, (Object[]) value, FieldKind.DATE);
                return;
            case ARRAY_OF_TIMESTAMP:
                writeVarArray(fieldName, (Object[]) value, FieldKind.TIMESTAMP);
                return;
            case ARRAY_OF_TIMESTAMP_WITH_TIMEZONE:
                writeVarArray(fieldName, (Object[]) value, FieldKind.TIMESTAMP_WITH_TIMEZONE);
                return;
            case ARRAY_OF_COMPACT:
                writeVarArray(fieldName, (Object[]) value, FieldKind.COMPACT);
                return;
            case ARRAY_OF_NULLABLE_BOOLEAN:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_BOOLEAN);
                return;
            case ARRAY_OF_NULLABLE_INT8:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_INT8);
                return;
            case ARRAY_OF_NULLABLE_INT16:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_INT16);
                return;
            case ARRAY_OF_NULLABLE_INT32:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_INT32);
                return;
            case ARRAY_OF_NULLABLE_INT64:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_INT64);
                return;
            case ARRAY_OF_NULLABLE_FLOAT32:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_FLOAT32);
                return;
            case ARRAY_OF_NULLABLE_FLOAT64:
                writeVarArray(fieldName, (Object[]) value, FieldKind.NULLABLE_FLOAT64);
                return;
            default:
                throw new InvalidFieldException("kind " + kind + " cannot be written to compact field '" + fieldName + "'");
        }
    }

    private void writeVarArray(String fieldName, Object[] items, FieldKind itemKind) {
        int dataLengthAt = out.position();
        out.writeInt(0);
        out.writeInt(items.length);
        int itemsStart = out.position();
        int[] itemOffsets = new int[items.length];
        Long schemaId = null;
        for (int i = 0; i < items.length; i++) {
            Object item = items[i];
            if (item == null) {
                itemOffsets[i] = -1;
                continue;
            }
            itemOffsets[i] = out.position() - itemsStart;
            if (itemKind == FieldKind.COMPACT) {
                long id = codec.writeNested(out, item, includeSchema, depth + 1);
                if (schemaId == null) {
                    schemaId = id;
                } else if (schemaId != id) {
                    throw new InvalidFieldException("items of compact array field '" + fieldName + "' must all have one schema");
                }
            } else {
                writeBody(fieldName, itemKind, item);
            }
        }
        int itemDataLength = out.position() - itemsStart;
        writeOffsets(itemOffsets, itemDataLength);
        out.writeIntAt(dataLengthAt, itemDataLength);
    }

    private void writeOffsets(int[] offs, int dataLength) {
        int width = CompactRecord.offsetWidth(dataLength);
        for (int off : offs) {
            if (width == 1) {
                out.writeByte(off);
            } else if (width == 2) {
                out.writeShort(off);
            } else {
                out.writeInt(off);
            }
        }
    }

    /** Finishes the body: checks every field was written, writes the offset table and data length. */
    void end() {
        if (written.size() != schema.getFieldCount()) {
            for (FieldDescriptor f : schema.getFields()) {
                if (!written.contains(f.getName())) {
                    throw new InvalidFieldException("field '" + f.getName() + "' of compact type '" + schema.getTypeName()
                            + "' was not written");
                }
            }
        }
        if (offsets.length > 0) {
            int dataLength = out.position() - fixedStart;
            writeOffsets(offsets, dataLength);
            out.writeIntAt(dataLengthPos, dataLength);
        }
    }
}
