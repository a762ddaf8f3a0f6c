package io.atoll.client.serialization.internal.identified;

import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.GenericRecordBuilder;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.Schema;
import io.atoll.client.serialization.internal.core.AbstractGenericRecord;
import io.atoll.client.serialization.internal.core.BufferInput;
import io.atoll.client.serialization.internal.core.Bytes;
import io.atoll.client.serialization.internal.core.Kinds;
import io.atoll.client.serialization.internal.core.RecordBuilder;

import java.lang.reflect.Array;
import java.util.LinkedHashMap;
import java.util.Set;

/**
 * An identified value read through its {@link IdentifiedLayout}. The identified format
 * has no offsets, so the value is decoded in one pass over its bytes (which also
 * checks that they are complete); nested values are generic as well. Immutable.
 */
public final class IdentifiedRecord extends AbstractGenericRecord {
    private final IdentifiedLayout layout;
    private final LinkedHashMap<String, Object> values;

    private IdentifiedRecord(IdentifiedLayout layout, LinkedHashMap<String, Object> values) {
        this.layout = layout;
        this.values = values;
    }

    /** Reads the fields of {@code layout} at the input's position (after header and ids). */
    static IdentifiedRecord read(IdentifiedCodec codec, BufferInput in, IdentifiedLayout layout) {
        LinkedHashMap<String, Object> values = new LinkedHashMap<>();
        for (IdentifiedLayout.Field f : layout.getFields()) {
            values.put(f.getName(), readField(codec, in, f));
        }
        return new IdentifiedRecord(layout, values);
    }

    private static Object readField(IdentifiedCodec codec, BufferInput in, IdentifiedLayout.Field f) {
        switch (f.getOp()) {
            case WRITE_BOOLEAN:
                return in.readBoolean();
            case WRITE_BYTE:
                return in.readByte();
            case WRITE_CHAR:
                return in.readChar();
            case WRITE_SHORT:
                return in.readShort();
            case WRITE_INT:
                return in.readInt();
            case WRITE_LONG:
                return in.readLong();
            case WRITE_FLOAT:
                return in.readFloat();
            case WRITE_DOUBLE:
                return in.readDouble();
            case WRITE_STRING:
                return in.readString();
            case WRITE_BYTE_ARRAY:
                return in.readByteArray();
            case WRITE_BOOLEAN_ARRAY:
                return in.readBooleanArray();
            case WRITE_CHAR_ARRAY:
                return in.readCharArray();
            case WRITE_SHORT_ARRAY:
                return in.readShortArray();
            case WRITE_INT_ARRAY:
                return in.readIntArray();
            case WRITE_LONG_ARRAY:
                return in.readLongArray();
            case WRITE_FLOAT_ARRAY:
                return in.readFloatArray();
            case WRITE_DOUBLE_ARRAY:
                return in.readDoubleArray();
            case WRITE_STRING_ARRAY:
                return in.readStringArray();
            case WRITE_OBJECT:
                return checkObject(f, f.getKind(), in.service.readObject(in));
            case WRITE_OBJECT_ARRAY: {
                int n = in.readLength(4, "object array");
                if (n < 0) {
                    return null;
                }
                FieldKind itemKind = itemKind(f.getKind());
                Object out = Array.newInstance(Kinds.javaType(f.getKind()).getComponentType(), n);
                for (int i = 0; i < n; i++) {
                    Array.set(out, i, checkObject(f, itemKind, in.service.readObject(in)));
                }
                return out;
            }
            case WRITE_DATA_INLINE:
                return readNested(codec, in, f);
            case WRITE_INLINE_ARRAY: {
                int n = in.readLength(0, "inline array");
                if (n < 0) {
                    return null;
                }
                IdentifiedLayout nested = n == 0 ? null : codec.requireLayout(f.getNestedFactoryId(), f.getNestedClassId());
                int itemSize = nested == null ? 0 : minSize(codec, nested, 0);
                if (itemSize > 0) {
                    Bytes.checkCount(n, in.pos, in.limit, itemSize, "inline array");
                } else if (n > 65536) {
                    throw new MalformedDataException("inline array of " + n + " empty items at position " + (in.pos - 4));
                }
                GenericRecord[] out = new GenericRecord[n];
                for (int i = 0; i < n; i++) {
                    out[i] = readNested(codec, in, f);
                }
                return out;
            }
            default:
                throw new MalformedDataException("unsupported layout op " + f.getOp());
        }
    }

    /**
     * The fewest bytes an object of the layout takes when written: 0 when it can take none
     * (no fields, or only inline objects that take none), so that an inline array's length is
     * checked against the input only when its items take room.
     */
    static int minSize(IdentifiedCodec codec, IdentifiedLayout layout, int depth) {
        if (depth > 64) {
            return 0;
        }
        int size = 0;
        for (IdentifiedLayout.Field f : layout.getFields()) {
            switch (f.getOp()) {
                case WRITE_BOOLEAN:
                case WRITE_BYTE:
                    size += 1;
                    break;
                case WRITE_CHAR:
                case WRITE_SHORT:
                    size += 2;
                    break;
                case WRITE_LONG:
                case WRITE_DOUBLE:
                    size += 8;
                    break;
                case WRITE_DATA_INLINE:
                    size += minSize(codec, codec.requireLayout(f.getNestedFactoryId(), f.getNestedClassId()), depth + 1);
                    break;
                default: // int, float, and the length or type id that starts every other field
                    size += 4;
            }
        }
        return size;
    }

    private static GenericRecord readNested(IdentifiedCodec codec, BufferInput in, IdentifiedLayout.Field f) {
        IdentifiedLayout nested = codec.requireLayout(f.getNestedFactoryId(), f.getNestedClassId());
        in.service.checkDepth(++in.depth);
        try {
            return read(codec, in, nested);
        } finally {
            in.depth--;
        }
    }

    static FieldKind itemKind(FieldKind arrayKind) {
        switch (arrayKind) {
            case ARRAY_OF_NULLABLE_BOOLEAN:
                return FieldKind.NULLABLE_BOOLEAN;
            case ARRAY_OF_NULLABLE_INT8:
                return FieldKind.NULLABLE_INT8;
            case ARRAY_OF_NULLABLE_INT16:
                return FieldKind.NULLABLE_INT16;
            case ARRAY_OF_NULLABLE_INT32:
                return FieldKind.NULLABLE_INT32;
            case ARRAY_OF_NULLABLE_INT64:
                return FieldKind.NULLABLE_INT64;
            case ARRAY_OF_NULLABLE_FLOAT32:
                return FieldKind.NULLABLE_FLOAT32;
            case ARRAY_OF_NULLABLE_FLOAT64:
                return FieldKind.NULLABLE_FLOAT64;
            case ARRAY_OF_STRING:
                return FieldKind.STRING;
            case ARRAY_OF_COMPACT:
                return FieldKind.COMPACT;
            case ARRAY_OF_PORTABLE:
                return FieldKind.PORTABLE;
            default:
                return FieldKind.IDENTIFIED;
        }
    }

    /** Checks a value read with readObject against the kind the layout declares. */
    private static Object checkObject(IdentifiedLayout.Field f, FieldKind kind, Object v) {
        if (v == null) {
            return null;
        }
        boolean ok;
        if (Kinds.isRecord(kind)) {
            ok = v instanceof GenericRecord && ((GenericRecord) v).getFormat().name().equals(kind.name());
            if (ok && kind == FieldKind.IDENTIFIED && (f.getNestedFactoryId() != 0 || f.getNestedClassId() != 0)) {
                IdentifiedLayout l = ((GenericRecord) v).getLayout();
                ok = l.getFactoryId() == f.getNestedFactoryId() && l.getClassId() == f.getNestedClassId();
            }
        } else {
            ok = Kinds.accepts(kind, v);
        }
        if (!ok) {
            throw new MalformedDataException("field '" + f.getName() + "' should hold " + kind + " but the data holds a "
                    + (v instanceof GenericRecord ? v.toString() : v.getClass().getSimpleName()));
        }
        return v;
    }

    @Override
    public Format getFormat() {
        return Format.IDENTIFIED;
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
    public ClassDefinition getClassDefinition() {
        return null;
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
        return layout.getFieldNames();
    }

    @Override
    protected FieldKind kindOrNull(String name) {
        IdentifiedLayout.Field f = layout.getField(name);
        return f == null ? null : f.getKind();
    }

    @Override
    protected Object rawValue(String name, FieldKind kind) {
        return values.get(name);
    }

    @Override
    protected String identity() {
        return "identified(" + layout.getFactoryId() + "," + layout.getClassId() + ")";
    }
}
