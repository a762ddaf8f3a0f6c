package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.internal.core.Context;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
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

import java.lang.reflect.Array;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A compact value read in place from its bytes. Construction validates the envelope
 * (schema id, embedded schema, data length, offset table) against the region the
 * value may occupy; each getter then decodes one field at its offset. Every
 * variable-size body is bounded by the next body's start, so corrupted offsets
 * cannot make bodies overlap. Immutable and thread-safe.
 */
public final class CompactRecord extends AbstractGenericRecord {
    final Context service;
    final byte[] buf;
    /** Position of the schema id. */
    final int start;
    /** Position right after the value (end of the offset table or of the fixed section). */
    public final int end;
    final boolean withSchema;
    final int depth;
    final Schema schema;
    final int fixedStart;
    /** Absolute start of each variable-size body by offset-table index, -1 for null. */
    private final int[] varStart;
    /** Exclusive limit of each variable-size body. */
    private final int[] varLimit;

    private CompactRecord(Context service, byte[] buf, int start, int end, boolean withSchema, int depth,
                          Schema schema, int fixedStart, int[] varStart, int[] varLimit) {
        this.service = service;
        this.buf = buf;
        this.start = start;
        this.end = end;
        this.withSchema = withSchema;
        this.depth = depth;
        this.schema = schema;
        this.fixedStart = fixedStart;
        this.varStart = varStart;
        this.varLimit = varLimit;
    }

    /** Parses the compact value whose schema id is at {@code start}, within {@code [start, limit)}. */
    public static CompactRecord parse(Context service, byte[] buf, int start, int limit, boolean withSchema, int depth) {
        service.checkDepth(depth);
        long schemaId = Bytes.readLong(buf, start, limit);
        int p = start + 8;
        Schema schema;
        if (withSchema) {
            int size = Bytes.readInt(buf, p, limit);
            if (size < 0) {
                throw new MalformedDataException("negative embedded schema size " + size + " at position " + p);
            }
            Bytes.check(p + 4, size, limit);
            schema = service.compact().readEmbeddedSchema(buf, p + 4, p + 4 + size, schemaId);
            p += 4 + size;
        } else {
            schema = service.getSchemaRegistry().require(schemaId);
        }
        int fixedLen = schema.getFixedSizeFieldsLength();
        int varCount = schema.getNumberOfVariableSizeFields();
        if (varCount == 0) {
            Bytes.check(p, fixedLen, limit);
            return new CompactRecord(service, buf, start, p + fixedLen, withSchema, depth, schema, p, null, null);
        }
        int dataLength = Bytes.readInt(buf, p, limit);
        int fixedStart = p + 4;
        if (dataLength < fixedLen) {
            throw new MalformedDataException("compact data length " + dataLength + " at position " + p
                    + " is smaller than the fixed-size section (" + fixedLen + " bytes) of " + schema.getTypeName());
        }
        Bytes.check(fixedStart, dataLength, limit);
        int varEnd = fixedStart + dataLength;
        int width = offsetWidth(dataLength);
        Bytes.check(varEnd, varCount * width, limit);
        int[] starts = new int[varCount];
        for (int i = 0; i < varCount; i++) {
            int off = readOffset(buf, varEnd + i * width, width);
            if (off == -1) {
                starts[i] = -1;
            } else if (off < fixedLen || off >= dataLength) {
                throw new MalformedDataException("offset " + off + " of field '" + schema.varField(i).getName()
                        + "' is outside the variable-size section [" + fixedLen + ", " + dataLength + ")");
            } else {
                starts[i] = fixedStart + off;
            }
        }
        int[] limits = bodyLimits(starts, varEnd);
        return new CompactRecord(service, buf, start, varEnd + varCount * width, withSchema, depth, schema, fixedStart, starts, limits);
    }

    /** Offset entry width for a data length: 1 byte below 255, 2 below 65535, else 4. */
    static int offsetWidth(int dataLength) {
        if (dataLength < 0xff) {
            return 1;
        }
        if (dataLength < 0xffff) {
            return 2;
        }
        return 4;
    }

    /** An offset entry; -1 for null (all ones), any other negative 4-byte value is malformed. */
    static int readOffset(byte[] buf, int p, int width) {
        switch (width) {
            case 1: {
                int v = buf[p] & 0xff;
                return v == 0xff ? -1 : v;
            }
            case 2: {
                int v = (buf[p] & 0xff) << 8 | (buf[p + 1] & 0xff);
                return v == 0xffff ? -1 : v;
            }
            default: {
                int v = Bytes.readIntBE(buf, p);
                if (v < -1) {
                    throw new MalformedDataException("negative offset " + v + " at position " + p);
                }
                return v;
            }
        }
    }

    /**
     * Limit of each body: the next greater start, or {@code end}. Equal starts mean
     * overlapping bodies and are rejected (no valid body is empty).
     */
    static int[] bodyLimits(int[] starts, int end) {
        int n = starts.length;
        int[] limits = new int[n];
        int nonNull = 0;
        for (int s : starts) {
            if (s >= 0) {
                nonNull++;
            }
        }
        long[] keyed = new long[nonNull];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (starts[i] >= 0) {
                keyed[k++] = ((long) starts[i] << 32) | i;
            }
        }
        java.util.Arrays.sort(keyed);
        for (int j = 0; j < nonNull; j++) {
            int s = (int) (keyed[j] >>> 32);
            int idx = (int) keyed[j];
            int lim = end;
            if (j + 1 < nonNull) {
                lim = (int) (keyed[j + 1] >>> 32);
                if (lim == s) {
                    throw new MalformedDataException("two variable-size bodies start at the same position " + s);
                }
            }
            limits[idx] = lim;
        }
        return limits;
    }

    @Override
    public Format getFormat() {
        return Format.COMPACT;
    }

    @Override
    public String getTypeName() {
        return schema.getTypeName();
    }

    @Override
    public Schema getSchema() {
        return schema;
    }

    @Override
    public ClassDefinition getClassDefinition() {
        return null;
    }

    @Override
    public IdentifiedLayout getLayout() {
        return null;
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
        for (FieldDescriptor f : schema.getFields()) {
            s.add(f.getName());
        }
        return Collections.unmodifiableSet(s);
    }

    @Override
    protected FieldKind kindOrNull(String name) {
        FieldDescriptor fd = schema.getField(name);
        return fd == null ? null : fd.getKind();
    }

    @Override
    protected String identity() {
        return "compact '" + schema.getTypeName() + "'";
    }

    /** Absolute start of a variable-size field's body, or -1 if null. */
    int bodyStart(FieldDescriptor fd) {
        return varStart[fd.getIndex()];
    }

    int bodyLimit(FieldDescriptor fd) {
        return varLimit[fd.getIndex()];
    }

    @Override
    protected Object rawValue(String name, FieldKind kind) {
        FieldDescriptor fd = schema.getField(name);
        int fixedEnd = fixedStart + schema.getFixedSizeFieldsLength();
        switch (kind) {
            case BOOLEAN:
                return (Bytes.readByte(buf, fixedStart + fd.getOffset(), fixedEnd) >> fd.getBitOffset() & 1) != 0;
            case INT8:
                return Bytes.readByte(buf, fixedStart + fd.getOffset(), fixedEnd);
            case INT16:
                return Bytes.readShort(buf, fixedStart + fd.getOffset(), fixedEnd);
            case INT32:
                return Bytes.readInt(buf, fixedStart + fd.getOffset(), fixedEnd);
            case INT64:
                return Bytes.readLong(buf, fixedStart + fd.getOffset(), fixedEnd);
            case FLOAT32:
                return Float.intBitsToFloat(Bytes.readInt(buf, fixedStart + fd.getOffset(), fixedEnd));
            case FLOAT64:
                return Double.longBitsToDouble(Bytes.readLong(buf, fixedStart + fd.getOffset(), fixedEnd));
            default:
                int p = varStart[fd.getIndex()];
                if (p < 0) {
                    return null;
                }
                return readBody(service, buf, p, varLimit[fd.getIndex()], kind, withSchema, depth, null);
        }
    }

    /**
     * Decodes a variable-size body of the given kind in {@code [p, limit)}. Nested compact
     * values become {@link CompactRecord}s, or pass through {@code nested} when given (to
     * turn them into objects of registered classes).
     */
    static Object readBody(Context service, byte[] buf, int p, int limit, FieldKind kind, boolean withSchema,
                           int depth, java.util.function.Function<CompactRecord, Object> nested) {
        BufferInput in = new BufferInput(service, buf, p, limit, depth);
        switch (kind) {
            case STRING:
                return in.readString();
            case ARRAY_OF_BOOLEAN: {
                int n = in.readInt();
                if (n < -1) {
                    throw new MalformedDataException("negative boolean array length " + n + " at position " + p);
                }
                if (n == -1) {
                    return null;
                }
                int bytes = (int) (((long) n + 7) / 8);
                Bytes.check(in.pos, bytes, limit);
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (buf[in.pos + i / 8] >> (i % 8) & 1) != 0;
                }
                return a;
            }
            case ARRAY_OF_INT8:
                return in.readByteArray();
            case ARRAY_OF_INT16:
                return in.readShortArray();
            case ARRAY_OF_INT32:
                return in.readIntArray();
            case ARRAY_OF_INT64:
                return in.readLongArray();
            case ARRAY_OF_FLOAT32:
                return in.readFloatArray();
            case ARRAY_OF_FLOAT64:
                return in.readDoubleArray();
            case DECIMAL:
                return in.readDecimal();
            case TIME:
                return in.readTime();
            case DATE:
                return in.readDate(false);
            case TIMESTAMP:
                return in.readTimestamp(false);
            case TIMESTAMP_WITH_TIMEZONE:
                return in.readTimestampWithTimezone(false);
            case COMPACT: {
                CompactRecord r = parse(service, buf, p, limit, withSchema, depth + 1);
                return nested == null ? r : nested.apply(r);
            }
            case NULLABLE_BOOLEAN:
                return in.readBoolean();
            case NULLABLE_INT8:
                return in.readByte();
            case NULLABLE_INT16:
                return in.readShort();
            case NULLABLE_INT32:
                return in.readInt();
            case NULLABLE_INT64:
                return in.readLong();
            case NULLABLE_FLOAT32:
                return in.readFloat();
            case NULLABLE_FLOAT64:
                return in.readDouble();
            case ARRAY_OF_STRING:
                return readVarArray(service, buf, p, limit, FieldKind.STRING, String.class, withSchema, depth, null);
            case ARRAY_OF_DECIMAL:
                return readVarArray(service, buf, p, limit, FieldKind.DECIMAL, java.math.BigDecimal.class, withSchema, depth, null);
            case ARRAY_OF_TIME:
                return readVarArray(service, buf, p, limit, FieldKind.TIME, java.time.LocalTime.class, withSchema, depth, null);
            case ARRAY_OF_DATE:
                return readVarArray(service, buf, p, limit, FieldKind.DATE, java.time.LocalDate.class, withSchema, depth, null);
            case ARRAY_OF_TIMESTAMP:
                return readVarArray(service, buf, p, limit, FieldKind.TIMESTAMP, java.time.LocalDateTime.class, withSchema, depth, null);
            case ARRAY_OF_TIMESTAMP_WITH_TIMEZONE:
                return readVarArray(service, buf, p, limit, FieldKind.TIMESTAMP_WITH_TIMEZONE, java.time.OffsetDateTime.class,
                        withSchema, depth, null);
            case ARRAY_OF_COMPACT:
                return readVarArray(service, buf, p, limit, FieldKind.COMPACT, GenericRecord.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_BOOLEAN:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_BOOLEAN, Boolean.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_INT8:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_INT8, Byte.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_INT16:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_INT16, Short.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_INT32:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_INT32, Integer.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_INT64:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_INT64, Long.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_FLOAT32:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_FLOAT32, Float.class, withSchema, depth, null);
            case ARRAY_OF_NULLABLE_FLOAT64:
                return readVarArray(service, buf, p, limit, FieldKind.NULLABLE_FLOAT64, Double.class, withSchema, depth, null);
            default:
                throw new MalformedDataException("kind " + kind + " cannot appear in a compact schema");
        }
    }

    /**
     * An array of variable-size items: int item data length, int count, item bodies,
     * offset table (relative to the first item body, width from the item data length).
     */
    static Object readVarArray(Context service, byte[] buf, int p, int limit, FieldKind itemKind,
                               Class<?> component, boolean withSchema, int depth,
                               java.util.function.Function<CompactRecord, Object> nested) {
        int itemDataLength = Bytes.readInt(buf, p, limit);
        int count = Bytes.readInt(buf, p + 4, limit);
        if (itemDataLength < 0 || count < 0) {
            throw new MalformedDataException("array of " + itemKind + " at position " + p + " has item data length "
                    + itemDataLength + " and count " + count);
        }
        int itemsStart = p + 8;
        Bytes.check(itemsStart, itemDataLength, limit);
        int itemsEnd = itemsStart + itemDataLength;
        int width = offsetWidth(itemDataLength);
        if ((long) count * width > limit - itemsEnd) {
            throw new TruncatedDataException("offset table of " + count + " item(s) at position " + itemsEnd
                    + " does not fit in the " + (limit - itemsEnd) + " remaining byte(s)");
        }
        int[] starts = new int[count];
        for (int i = 0; i < count; i++) {
            int off = readOffset(buf, itemsEnd + i * width, width);
            if (off == -1) {
                starts[i] = -1;
            } else if (off >= itemDataLength) {
                throw new MalformedDataException("item offset " + off + " at position " + (itemsEnd + i * width)
                        + " is outside the item data (" + itemDataLength + " bytes)");
            } else {
                starts[i] = itemsStart + off;
            }
        }
        int[] limits = bodyLimits(starts, itemsEnd);
        Object out = Array.newInstance(component, count);
        for (int i = 0; i < count; i++) {
            if (starts[i] >= 0) {
                Object item = readBody(service, buf, starts[i], limits[i], itemKind, withSchema, depth, nested);
                try {
                    Array.set(out, i, item);
                } catch (IllegalArgumentException e) {
                    throw new AtollSerializationException("array item " + i + " is a " + item.getClass().getName()
                            + ", not a " + component.getName(), e);
                }
            }
        }
        return out;
    }
}
