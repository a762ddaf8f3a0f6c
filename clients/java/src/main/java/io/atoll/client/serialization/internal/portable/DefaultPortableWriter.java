package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.internal.core.BufferOutput;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.Set;

/**
 * Writes one portable object body for a class definition: end position, field count,
 * field table (one absolute position per field plus an unused raw-data slot), then per
 * field in call order its name, type id and value.
 */
public final class DefaultPortableWriter extends AbstractPortableWriter {
    private final PortableCodec codec;
    private final BufferOutput out;
    private final ClassDefinition cd;
    private final int depth;
    private final int begin;
    private final int tableStart;
    private final Set<String> written = new HashSet<>();

    DefaultPortableWriter(PortableCodec codec, BufferOutput out, ClassDefinition cd, int depth) {
        this.codec = codec;
        this.out = out;
        this.cd = cd;
        this.depth = depth;
        this.begin = out.position();
        out.writeInt(0);
        out.writeInt(cd.getFieldCount());
        this.tableStart = out.position();
        out.writeZeroBytes((cd.getFieldCount() + 1) * 4);
    }

    private FieldDefinition start(String fieldName, FieldType type) {
        FieldDefinition fd = cd.getField(fieldName);
        if (fd == null) {
            throw new InvalidFieldException("portable class (" + cd.getFactoryId() + "," + cd.getClassId() + ",v" + cd.getVersion()
                    + ") has no field '" + fieldName + "'");
        }
        if (fd.getType() != type) {
            throw new InvalidFieldException("portable field '" + fieldName + "' is " + fd.getType() + ", not " + type);
        }
        if (!written.add(fieldName)) {
            throw new InvalidFieldException("portable field '" + fieldName + "' is written twice");
        }
        out.writeIntAt(tableStart + fd.getIndex() * 4, out.position());
        out.writeAsciiName(fieldName);
        out.writeByte(type.getId());
        return fd;
    }

    @Override
    public void writeNullPortable(String fieldName, int factoryId, int classId) {
        start(fieldName, FieldType.PORTABLE);
        out.writeBoolean(true);
        out.writeInt(factoryId);
        out.writeInt(classId);
    }

    private static Object nonNull(String fieldName, Object v, FieldType type) {
        if (v == null) {
            throw new InvalidFieldException("portable field '" + fieldName + "' of type " + type + " cannot be null");
        }
        return v;
    }

    @Override
    void write(String fieldName, FieldType type, Object value) {
        FieldDefinition fd = start(fieldName, type);
        switch (type) {
            case BYTE:
                out.writeByte((Byte) nonNull(fieldName, value, type));
                return;
            case BOOLEAN:
                out.writeBoolean((Boolean) nonNull(fieldName, value, type));
                return;
            case CHAR:
                out.writeChar((Character) nonNull(fieldName, value, type));
                return;
            case SHORT:
                out.writeShort((Short) nonNull(fieldName, value, type));
                return;
            case INT:
                out.writeInt((Integer) nonNull(fieldName, value, type));
                return;
            case LONG:
                out.writeLong((Long) nonNull(fieldName, value, type));
                return;
            case FLOAT:
                out.writeFloat((Float) nonNull(fieldName, value, type));
                return;
            case DOUBLE:
                out.writeDouble((Double) nonNull(fieldName, value, type));
                return;
            case UTF:
                out.writeString((String) value);
                return;
            case BYTE_ARRAY:
                out.writeByteArray((byte[]) value);
                return;
            case BOOLEAN_ARRAY:
                out.writeBooleanArray((boolean[]) value);
                return;
            case CHAR_ARRAY:
                out.writeCharArray((char[]) value);
                return;
            case SHORT_ARRAY:
                out.writeShortArray((short[]) value);
                return;
            case INT_ARRAY:
                out.writeIntArray((int[]) value);
                return;
            case LONG_ARRAY:
                out.writeLongArray((long[]) value);
                return;
            case FLOAT_ARRAY:
                out.writeFloatArray((float[]) value);
                return;
            case DOUBLE_ARRAY:
                out.writeDoubleArray((double[]) value);
                return;
            case UTF_ARRAY:
                out.writeStringArray((String[]) value);
                return;
            case PORTABLE:
                out.writeBoolean(value == null);
                out.writeInt(fd.getFactoryId());
                out.writeInt(fd.getClassId());
                if (value != null) {
                    codec.writeBody(out, value, fd.getFactoryId(), fd.getClassId(), depth + 1);
                }
                return;
            case PORTABLE_ARRAY: {
                Object[] items = (Object[]) value;
                out.writeInt(items == null ? -1 : items.length);
                out.writeInt(fd.getFactoryId());
                out.writeInt(fd.getClassId());
                if (items != null && items.length > 0) {
                    int table = out.position();
                    out.writeZeroBytes(items.length * 4);
                    for (int i = 0; i < items.length; i++) {
                        if (items[i] == null) {
                            throw new InvalidFieldException("portable array field '" + fieldName + "' cannot hold null items");
                        }
                        out.writeIntAt(table + i * 4, out.position());
                        codec.writeBody(out, items[i], fd.getFactoryId(), fd.getClassId(), depth + 1);
                    }
                }
                return;
            }
            case DECIMAL:
            case TIME:
            case DATE:
            case TIMESTAMP:
            case TIMESTAMP_WITH_TIMEZONE:
                out.writeBoolean(value == null);
                if (value != null) {
                    writeItem(type, value);
                }
                return;
            case DECIMAL_ARRAY:
                writeItems(fieldName, (Object[]) value, FieldType.DECIMAL);
                return;
            case TIME_ARRAY:
                writeItems(fieldName, (Object[]) value, FieldType.TIME);
                return;
            case DATE_ARRAY:
                writeItems(fieldName, (Object[]) value, FieldType.DATE);
                return;
            case TIMESTAMP_ARRAY:
                writeItems(fieldName, (Object[]) value, FieldType.TIMESTAMP);
                return;
            case TIMESTAMP_WITH_TIMEZONE_ARRAY:
                writeItems(fieldName, (Object[]) value, FieldType.TIMESTAMP_WITH_TIMEZONE);
                return;
            default:
                throw new InvalidFieldException("unsupported portable field type " + type);
        }
    }

    private void writeItem(FieldType type, Object v) {
        switch (type) {
            case DECIMAL:
                out.writeDecimal((BigDecimal) v);
                return;
            case TIME:
                out.writeTime((LocalTime) v);
                return;
            case DATE:
                out.writePortableDate((LocalDate) v);
                return;
            case TIMESTAMP:
                out.writeTimestamp((LocalDateTime) v, true);
                return;
            default:
                out.writeTimestampWithTimezone((OffsetDateTime) v, true);
        }
    }

    private void writeItems(String fieldName, Object[] items, FieldType itemType) {
        if (items == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(items.length);
        int table = out.position();
        out.writeZeroBytes(items.length * 4);
        for (int i = 0; i < items.length; i++) {
            if (items[i] == null) {
                throw new InvalidFieldException("portable array field '" + fieldName + "' cannot hold null items");
            }
            out.writeIntAt(table + i * 4, out.position());
            writeItem(itemType, items[i]);
        }
    }

    /** Checks every field was written and stores the end position. */
    void end() {
        if (written.size() != cd.getFieldCount()) {
            for (FieldDefinition f : cd.getFields()) {
                if (!written.contains(f.getName())) {
                    throw new InvalidFieldException("portable field '" + f.getName() + "' of class (" + cd.getFactoryId() + ","
                            + cd.getClassId() + ") was not written");
                }
            }
        }
        out.writeIntAt(begin, out.position());
    }
}
