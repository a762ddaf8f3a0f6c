package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.FieldType;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.Portable;

import java.util.Set;

/**
 * {@link PortableReader} over an in-place {@link PortableRecord}. In morphing mode
 * (the data's version differs from the reading class's) missing fields read as
 * defaults and narrower numeric types widen.
 */
public final class DefaultPortableReader extends AbstractPortableReader {
    private final PortableCodec codec;
    private final PortableRecord record;
    private final boolean morphing;

    DefaultPortableReader(PortableCodec codec, PortableRecord record, boolean morphing) {
        this.codec = codec;
        this.record = record;
        this.morphing = morphing;
    }

    @Override
    public int getVersion() {
        return record.version;
    }

    @Override
    public boolean hasField(String fieldName) {
        return record.entry(fieldName) != null;
    }

    @Override
    public Set<String> getFieldNames() {
        return record.getFieldNames();
    }

    @Override
    public FieldType getFieldType(String fieldName) {
        return entry(fieldName).type;
    }

    @Override
    public int getFieldClassId(String fieldName) {
        return record.getClassDefinition().getFieldClassId(fieldName);
    }

    private PortableRecord.Entry entry(String fieldName) {
        PortableRecord.Entry e = record.entry(fieldName);
        if (e == null) {
            throw new InvalidFieldException("unknown field '" + fieldName + "' in portable (" + record.factoryId + ","
                    + record.classId + ",v" + record.version + ")");
        }
        return e;
    }

    private static Object defaultValue(FieldType type) {
        switch (type) {
            case BYTE:
                return (byte) 0;
            case BOOLEAN:
                return false;
            case CHAR:
                return (char) 0;
            case SHORT:
                return (short) 0;
            case INT:
                return 0;
            case LONG:
                return 0L;
            case FLOAT:
                return 0f;
            case DOUBLE:
                return 0d;
            default:
                return null;
        }
    }

    @Override
    Object read(String fieldName, FieldType type) {
        PortableRecord.Entry e = record.entry(fieldName);
        if (e == null) {
            if (morphing) {
                return defaultValue(type);
            }
            entry(fieldName);
        }
        if (e.type == type) {
            return record.value(e, null);
        }
        if (morphing) {
            Object v = widen(record.value(e, null), e.type, type);
            if (v != null) {
                return v;
            }
        }
        throw new InvalidFieldException("portable field '" + fieldName + "' is " + e.type + ", not " + type);
    }

    /** Widening of a number read as a larger type; null if not allowed. */
    private static Object widen(Object v, FieldType from, FieldType to) {
        long l;
        switch (from) {
            case BYTE:
                l = (Byte) v;
                break;
            case SHORT:
                l = (Short) v;
                break;
            case CHAR:
                l = (Character) v;
                break;
            case INT:
                l = (Integer) v;
                break;
            case LONG:
                l = (Long) v;
                break;
            case FLOAT:
                return to == FieldType.DOUBLE ? (double) (Float) v : null;
            default:
                return null;
        }
        switch (to) {
            case SHORT:
                return from == FieldType.BYTE ? (short) l : null;
            case INT:
                return from == FieldType.BYTE || from == FieldType.SHORT || from == FieldType.CHAR ? (int) l : null;
            case LONG:
                return from != FieldType.LONG ? l : null;
            case FLOAT:
                return from != FieldType.LONG ? (float) l : null;
            case DOUBLE:
                return (double) l;
            default:
                return null;
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <P extends Portable> P readPortable(String fieldName) {
        PortableRecord.Entry e = record.entry(fieldName);
        if (e == null && morphing) {
            return null;
        }
        e = entry(fieldName);
        if (e.type != FieldType.PORTABLE) {
            throw new InvalidFieldException("portable field '" + fieldName + "' is " + e.type + ", not PORTABLE");
        }
        return (P) record.value(e, codec::toPortable);
    }

    @Override
    public Portable[] readPortableArray(String fieldName) {
        PortableRecord.Entry e = record.entry(fieldName);
        if (e == null && morphing) {
            return null;
        }
        e = entry(fieldName);
        if (e.type != FieldType.PORTABLE_ARRAY) {
            throw new InvalidFieldException("portable field '" + fieldName + "' is " + e.type + ", not PORTABLE_ARRAY");
        }
        Object[] items = (Object[]) record.value(e, codec::toPortable);
        if (items == null) {
            return null;
        }
        Portable[] out = new Portable[items.length];
        for (int i = 0; i < items.length; i++) {
            out[i] = (Portable) items[i];
        }
        return out;
    }
}
