package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.internal.core.Context;

import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.GenericRecordBuilder;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.Schema;
import io.atoll.client.serialization.TruncatedDataException;
import io.atoll.client.serialization.internal.core.AbstractGenericRecord;
import io.atoll.client.serialization.internal.core.BufferInput;
import io.atoll.client.serialization.internal.core.Bytes;
import io.atoll.client.serialization.internal.core.RecordBuilder;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A portable value read in place. The binary is self-describing (every field entry
 * repeats its name and type), so no class definition is needed: construction reads
 * the field table and the entry headers, getters decode one value at its position.
 * Positions are absolute in the whole Data. Every value is bounded by the next field
 * entry, so corrupted positions cannot make fields overlap. Immutable and thread-safe.
 */
public final class PortableRecord extends AbstractGenericRecord {
    static final class Entry {
        final int index;
        final String name;
        final FieldType type;
        final int valuePos;
        int limit;

        Entry(int index, String name, FieldType type, int valuePos) {
            this.index = index;
            this.name = name;
            this.type = type;
            this.valuePos = valuePos;
        }
    }

    final Context service;
    final byte[] buf;
    final int factoryId;
    final int classId;
    final int version;
    /** Position of the end-position int (first byte of the object body). */
    final int bodyStart;
    /** The body's end position. */
    final int end;
    final int depth;
    private final Entry[] entries;
    private final Map<String, Entry> byName;
    private volatile ClassDefinition classDefinition;

    private PortableRecord(Context service, byte[] buf, int factoryId, int classId, int version, int bodyStart,
                           int end, int depth, Entry[] entries, Map<String, Entry> byName) {
        this.service = service;
        this.buf = buf;
        this.factoryId = factoryId;
        this.classId = classId;
        this.version = version;
        this.bodyStart = bodyStart;
        this.end = end;
        this.depth = depth;
        this.entries = entries;
        this.byName = byName;
    }

    /** Parses the object body at {@code bodyStart} that must end within {@code limit}. */
    static PortableRecord parse(Context service, byte[] buf, int factoryId, int classId, int version,
                                int bodyStart, int limit, int depth) {
        service.checkDepth(depth);
        int end = Bytes.readInt(buf, bodyStart, limit);
        int fieldCount = Bytes.readInt(buf, bodyStart + 4, limit);
        if (end > limit) {
            throw new TruncatedDataException("portable (" + factoryId + "," + classId + ") at position " + bodyStart
                    + " ends at " + end + " but the data ends at " + limit);
        }
        if (fieldCount < 0) {
            throw new MalformedDataException("negative portable field count " + fieldCount + " at position " + (bodyStart + 4));
        }
        int tableStart = bodyStart + 8;
        long tableEnd = tableStart + ((long) fieldCount + 1) * 4;
        if (tableEnd > end) {
            throw new MalformedDataException("portable field table at position " + tableStart + " (" + fieldCount
                    + " fields) runs past the end position " + end);
        }
        Entry[] entries = new Entry[fieldCount];
        Map<String, Entry> byName = new HashMap<>();
        long[] keyed = new long[fieldCount];
        for (int i = 0; i < fieldCount; i++) {
            int pos = Bytes.readInt(buf, tableStart + i * 4, end);
            if (pos < tableEnd || pos >= end) {
                throw new MalformedDataException("position " + pos + " of portable field " + i + " is outside the body ["
                        + tableEnd + ", " + end + ")");
            }
            int nameLen = Bytes.readShort(buf, pos, end);
            if (nameLen < 0) {
                throw new MalformedDataException("negative field name length at position " + pos);
            }
            Bytes.check(pos + 2, nameLen + 1, end);
            char[] name = new char[nameLen];
            for (int c = 0; c < nameLen; c++) {
                name[c] = (char) (buf[pos + 2 + c] & 0xff);
            }
            int typeId = buf[pos + 2 + nameLen];
            FieldType type = FieldType.get(typeId);
            if (type == null) {
                throw new MalformedDataException("unknown portable field type " + typeId + " at position " + (pos + 2 + nameLen));
            }
            Entry e = new Entry(i, new String(name), type, pos + 3 + nameLen);
            if (byName.put(e.name, e) != null) {
                throw new MalformedDataException("portable field '" + e.name + "' appears twice");
            }
            entries[i] = e;
            keyed[i] = ((long) pos << 32) | i;
        }
        java.util.Arrays.sort(keyed);
        for (int j = 0; j < fieldCount; j++) {
            int pos = (int) (keyed[j] >>> 32);
            int lim = end;
            if (j + 1 < fieldCount) {
                lim = (int) (keyed[j + 1] >>> 32);
                if (lim == pos) {
                    throw new MalformedDataException("two portable fields share position " + pos);
                }
            }
            entries[(int) keyed[j]].limit = lim;
        }
        return new PortableRecord(service, buf, factoryId, classId, version, bodyStart, end, depth, entries, byName);
    }

    @Override
    public Format getFormat() {
        return Format.PORTABLE;
    }

    @Override
    public String getTypeName() {
        return null;
    }

    @Override
    public Schema getSchema() {
        return null;
    }

    @Override
    public IdentifiedLayout getLayout() {
        return null;
    }

    /** The class definition rebuilt from the binary (nested ids read from the values). */
    @Override
    public ClassDefinition getClassDefinition() {
        ClassDefinition cd = classDefinition;
        if (cd == null) {
            List<FieldDefinition> fields = new ArrayList<>();
            for (Entry e : entries) {
                if (e.type == FieldType.PORTABLE || e.type == FieldType.PORTABLE_ARRAY) {
                    int fid = Bytes.readInt(buf, e.valuePos + (e.type == FieldType.PORTABLE ? 1 : 4), e.limit);
                    int cid = Bytes.readInt(buf, e.valuePos + (e.type == FieldType.PORTABLE ? 5 : 8), e.limit);
                    int v = nestedVersion(e);
                    fields.add(new FieldDefinition(e.index, e.name, e.type, fid, cid, v));
                } else {
                    fields.add(new FieldDefinition(e.index, e.name, e.type));
                }
            }
            cd = new ClassDefinition(factoryId, classId, version, fields, null);
            classDefinition = cd;
        }
        return cd;
    }

    private int nestedVersion(Entry e) {
        Object v = rawValue(e.name, e.type.toFieldKind());
        if (v instanceof PortableRecord) {
            return ((PortableRecord) v).version;
        }
        if (v instanceof GenericRecord[] && ((GenericRecord[]) v).length > 0) {
            return ((PortableRecord) ((GenericRecord[]) v)[0]).version;
        }
        return 0;
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
        Set<String> s = new LinkedHashSet<>();
        for (Entry e : entries) {
            s.add(e.name);
        }
        return s;
    }

    Entry entry(String name) {
        return byName.get(name);
    }

    @Override
    protected FieldKind kindOrNull(String name) {
        Entry e = byName.get(name);
        return e == null ? null : e.type.toFieldKind();
    }

    @Override
    protected String identity() {
        return "portable(" + factoryId + "," + classId + ",v" + version + ")";
    }

    @Override
    protected Object rawValue(String name, FieldKind kind) {
        return value(byName.get(name), null);
    }

    /** Decodes a field; nested portables pass through {@code nested} when given. */
    Object value(Entry e, java.util.function.Function<PortableRecord, Object> nested) {
        BufferInput in = new BufferInput(service, buf, e.valuePos, e.limit, depth);
        switch (e.type) {
            case BYTE:
                return in.readByte();
            case BOOLEAN:
                return in.readBoolean();
            case CHAR:
                return in.readChar();
            case SHORT:
                return in.readShort();
            case INT:
                return in.readInt();
            case LONG:
                return in.readLong();
            case FLOAT:
                return in.readFloat();
            case DOUBLE:
                return in.readDouble();
            case UTF:
                return in.readString();
            case BYTE_ARRAY:
                return in.readByteArray();
            case BOOLEAN_ARRAY:
                return in.readBooleanArray();
            case CHAR_ARRAY:
                return in.readCharArray();
            case SHORT_ARRAY:
                return in.readShortArray();
            case INT_ARRAY:
                return in.readIntArray();
            case LONG_ARRAY:
                return in.readLongArray();
            case FLOAT_ARRAY:
                return in.readFloatArray();
            case DOUBLE_ARRAY:
                return in.readDoubleArray();
            case UTF_ARRAY:
                return in.readStringArray();
            case PORTABLE: {
                boolean isNull = in.readBoolean();
                int fid = in.readInt();
                int cid = in.readInt();
                if (isNull) {
                    return null;
                }
                int v = in.readInt();
                PortableRecord r = parse(service, buf, fid, cid, v, in.pos, e.limit, depth + 1);
                return nested == null ? r : nested.apply(r);
            }
            case PORTABLE_ARRAY:
                return readPortableArray(in, e.limit, nested);
            case DECIMAL:
                return in.readBoolean() ? null : in.readDecimal();
            case TIME:
                return in.readBoolean() ? null : in.readTime();
            case DATE:
                return in.readBoolean() ? null : in.readDate(true);
            case TIMESTAMP:
                return in.readBoolean() ? null : in.readTimestamp(true);
            case TIMESTAMP_WITH_TIMEZONE:
                return in.readBoolean() ? null : in.readTimestampWithTimezone(true);
            case DECIMAL_ARRAY:
                return readItems(in, e.limit, BigDecimal.class, FieldType.DECIMAL);
            case TIME_ARRAY:
                return readItems(in, e.limit, LocalTime.class, FieldType.TIME);
            case DATE_ARRAY:
                return readItems(in, e.limit, LocalDate.class, FieldType.DATE);
            case TIMESTAMP_ARRAY:
                return readItems(in, e.limit, LocalDateTime.class, FieldType.TIMESTAMP);
            case TIMESTAMP_WITH_TIMEZONE_ARRAY:
                return readItems(in, e.limit, OffsetDateTime.class, FieldType.TIMESTAMP_WITH_TIMEZONE);
            default:
                throw new MalformedDataException("unsupported portable field type " + e.type);
        }
    }

    /** Reads a table of {@code n} absolute item positions; items must follow the table in increasing order. */
    private static int[] itemPositions(BufferInput in, int n, int limit) {
        int[] pos = new int[n];
        int tableEnd = in.pos + n * 4;
        int prev = tableEnd - 1;
        for (int i = 0; i < n; i++) {
            pos[i] = in.readInt();
            if (pos[i] <= prev || pos[i] >= limit) {
                throw new MalformedDataException("array item position " + pos[i] + " at " + (in.pos - 4)
                        + " is out of order or outside [" + tableEnd + ", " + limit + ")");
            }
            prev = pos[i];
        }
        return pos;
    }

    private Object readPortableArray(BufferInput in, int limit, java.util.function.Function<PortableRecord, Object> nested) {
        int n = in.readInt();
        int fid = in.readInt();
        int cid = in.readInt();
        Bytes.checkCount(n, in.pos, limit, 4, "portable array");
        if (n < 0) {
            return null;
        }
        int[] pos = itemPositions(in, n, limit);
        Object[] out = nested == null ? new GenericRecord[n] : new Object[n];
        for (int i = 0; i < n; i++) {
            int itemLimit = i + 1 < n ? pos[i + 1] : limit;
            int v = Bytes.readInt(buf, pos[i], itemLimit);
            PortableRecord r = parse(service, buf, fid, cid, v, pos[i] + 4, itemLimit, depth + 1);
            out[i] = nested == null ? r : nested.apply(r);
        }
        return out;
    }

    private Object readItems(BufferInput in, int limit, Class<?> component, FieldType itemType) {
        int n = in.readInt();
        Bytes.checkCount(n, in.pos, limit, 4, itemType + " array");
        if (n < 0) {
            return null;
        }
        int[] pos = itemPositions(in, n, limit);
        Object out = java.lang.reflect.Array.newInstance(component, n);
        for (int i = 0; i < n; i++) {
            BufferInput item = new BufferInput(service, buf, pos[i], i + 1 < n ? pos[i + 1] : limit, depth);
            Object v;
            switch (itemType) {
                case DECIMAL:
                    v = item.readDecimal();
                    break;
                case TIME:
                    v = item.readTime();
                    break;
                case DATE:
                    v = item.readDate(true);
                    break;
                case TIMESTAMP:
                    v = item.readTimestamp(true);
                    break;
                default:
                    v = item.readTimestampWithTimezone(true);
                    break;
            }
            java.lang.reflect.Array.set(out, i, v);
        }
        return out;
    }
}
