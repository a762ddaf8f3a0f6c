package io.atoll.client.serialization.internal.identified;

import io.atoll.client.serialization.internal.core.Context;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.DataSerializableFactory;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.IdentifiedDataSerializable;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.UnknownLayoutException;
import io.atoll.client.serialization.UnknownTypeException;
import io.atoll.client.serialization.internal.core.BufferInput;
import io.atoll.client.serialization.internal.core.BufferOutput;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Identified serialization: factories, layouts, writing and reading values. */
public final class IdentifiedCodec {
    private static final int IDENTIFIED = 1;
    private static final int VERSIONED = 2;

    private final Context service;
    private final Map<Integer, DataSerializableFactory> factories;
    private final Map<String, IdentifiedLayout> layouts = new ConcurrentHashMap<>();

    public IdentifiedCodec(Context service, Map<Integer, DataSerializableFactory> factories, Iterable<IdentifiedLayout> ls) {
        this.service = service;
        this.factories = Map.copyOf(factories);
        for (IdentifiedLayout l : ls) {
            IdentifiedLayout prev = layouts.put(l.getFactoryId() + ":" + l.getClassId(), l);
            if (prev != null && !prev.equals(l)) {
                throw new IllegalArgumentException("two layouts for (" + l.getFactoryId() + "," + l.getClassId() + ")");
            }
        }
    }

    /** Registers a layout; the same layout again is a no-op, a different one for the same ids an error. */
    public boolean register(IdentifiedLayout l) {
        IdentifiedLayout prev = layouts.putIfAbsent(l.getFactoryId() + ":" + l.getClassId(), l);
        if (prev != null && !prev.equals(l)) {
            throw new IllegalArgumentException("another layout is registered for (" + l.getFactoryId() + "," + l.getClassId() + "): " + prev);
        }
        return prev == null;
    }

    public Collection<IdentifiedLayout> all() {
        return new ArrayList<>(layouts.values());
    }

    IdentifiedLayout layout(int factoryId, int classId) {
        return layouts.get(factoryId + ":" + classId);
    }

    IdentifiedLayout requireLayout(int factoryId, int classId) {
        IdentifiedLayout l = layout(factoryId, classId);
        if (l == null) {
            throw new UnknownLayoutException(factoryId, classId, "no IdentifiedLayout registered for factoryId=" + factoryId + ", classId=" + classId);
        }
        return l;
    }

    /** Header byte, factory id, class id, then the object's own writeData. */
    public void write(BufferOutput out, IdentifiedDataSerializable obj) {
        out.writeByte(IDENTIFIED);
        out.writeInt(obj.getFactoryId());
        out.writeInt(obj.getClassId());
        out.depth++;
        service.checkWriteDepth(out.depth);
        try {
            obj.writeData(out);
        } catch (IOException | RuntimeException e) {
            if (e instanceof AtollSerializationException) {
                throw (AtollSerializationException) e;
            }
            throw new AtollSerializationException("writeData of " + obj.getClass().getName() + " failed", e);
        } finally {
            out.depth--;
        }
    }

    /** Header byte, factory id, class id, then the record's fields in layout order. */
    public void writeRecord(BufferOutput out, GenericRecord r) {
        IdentifiedLayout l = r.getLayout();
        out.writeByte(IDENTIFIED);
        out.writeInt(l.getFactoryId());
        out.writeInt(l.getClassId());
        writeFields(out, r);
    }

    private void writeFields(BufferOutput out, GenericRecord r) {
        out.depth++;
        service.checkWriteDepth(out.depth);
        try {
            for (IdentifiedLayout.Field f : r.getLayout().getFields()) {
                writeField(out, f, r.getValue(f.getName()));
            }
        } finally {
            out.depth--;
        }
    }

    private static Object nonNull(IdentifiedLayout.Field f, Object v) {
        if (v == null) {
            throw new InvalidFieldException("field '" + f.getName() + "' (" + f.getOp().opName() + ") cannot be null");
        }
        return v;
    }

    private GenericRecord nested(IdentifiedLayout.Field f, Object v) {
        if (!(v instanceof GenericRecord) || ((GenericRecord) v).getFormat() != GenericRecord.Format.IDENTIFIED) {
            throw new InvalidFieldException("field '" + f.getName() + "' needs an identified record, got " + v);
        }
        IdentifiedLayout l = ((GenericRecord) v).getLayout();
        if (l.getFactoryId() != f.getNestedFactoryId() || l.getClassId() != f.getNestedClassId()) {
            throw new InvalidFieldException("field '" + f.getName() + "' needs identified (" + f.getNestedFactoryId() + ","
                    + f.getNestedClassId() + "), got (" + l.getFactoryId() + "," + l.getClassId() + ")");
        }
        return (GenericRecord) v;
    }

    private void writeField(BufferOutput out, IdentifiedLayout.Field f, Object v) {
        switch (f.getOp()) {
            case WRITE_BOOLEAN:
                out.writeBoolean((Boolean) nonNull(f, v));
                return;
            case WRITE_BYTE:
                out.writeByte((Byte) nonNull(f, v));
                return;
            case WRITE_CHAR:
                out.writeChar((Character) nonNull(f, v));
                return;
            case WRITE_SHORT:
                out.writeShort((Short) nonNull(f, v));
                return;
            case WRITE_INT:
                out.writeInt((Integer) nonNull(f, v));
                return;
            case WRITE_LONG:
                out.writeLong((Long) nonNull(f, v));
                return;
            case WRITE_FLOAT:
                out.writeFloat((Float) nonNull(f, v));
                return;
            case WRITE_DOUBLE:
                out.writeDouble((Double) nonNull(f, v));
                return;
            case WRITE_STRING:
                out.writeString((String) v);
                return;
            case WRITE_BYTE_ARRAY:
                out.writeByteArray((byte[]) v);
                return;
            case WRITE_BOOLEAN_ARRAY:
                out.writeBooleanArray((boolean[]) v);
                return;
            case WRITE_CHAR_ARRAY:
                out.writeCharArray((char[]) v);
                return;
            case WRITE_SHORT_ARRAY:
                out.writeShortArray((short[]) v);
                return;
            case WRITE_INT_ARRAY:
                out.writeIntArray((int[]) v);
                return;
            case WRITE_LONG_ARRAY:
                out.writeLongArray((long[]) v);
                return;
            case WRITE_FLOAT_ARRAY:
                out.writeFloatArray((float[]) v);
                return;
            case WRITE_DOUBLE_ARRAY:
                out.writeDoubleArray((double[]) v);
                return;
            case WRITE_STRING_ARRAY:
                out.writeStringArray((String[]) v);
                return;
            case WRITE_OBJECT:
                if (v != null && f.getKind() == FieldKind.IDENTIFIED) {
                    nested(f, v);
                }
                out.writeObject(v);
                return;
            case WRITE_OBJECT_ARRAY: {
                Object[] items = (Object[]) v;
                if (items == null) {
                    out.writeInt(-1);
                    return;
                }
                out.writeInt(items.length);
                for (Object item : items) {
                    if (item != null && f.getKind() == FieldKind.ARRAY_OF_IDENTIFIED) {
                        nested(f, item);
                    }
                    out.writeObject(item);
                }
                return;
            }
            case WRITE_DATA_INLINE:
                writeFields(out, nested(f, nonNull(f, v)));
                return;
            case WRITE_INLINE_ARRAY: {
                Object[] items = (Object[]) v;
                if (items == null) {
                    out.writeInt(-1);
                    return;
                }
                out.writeInt(items.length);
                for (Object item : items) {
                    writeFields(out, nested(f, nonNull(f, item)));
                }
                return;
            }
            default:
                throw new InvalidFieldException("unsupported layout op " + f.getOp());
        }
    }

    /** Reads header, ids and fields at the input's position (after the type id). */
    public Object read(BufferInput in, boolean generic) {
        int at = in.pos;
        int header = in.readByte();
        if ((header & IDENTIFIED) == 0) {
            throw new UnknownTypeException("data at position " + at + " is a plain DataSerializable (Java class name), which only "
                    + "Java members can read; use IdentifiedDataSerializable");
        }
        if ((header & VERSIONED) != 0 || (header & ~(IDENTIFIED | VERSIONED)) != 0) {
            throw new MalformedDataException("unsupported identified header 0x" + Integer.toHexString(header & 0xff)
                    + " at position " + at);
        }
        int fid = in.readInt();
        int cid = in.readInt();
        if (!generic) {
            DataSerializableFactory f = factories.get(fid);
            IdentifiedDataSerializable obj = f == null ? null : f.create(cid);
            if (obj != null) {
                try {
                    obj.readData(in);
                } catch (IOException | RuntimeException e) {
                    if (e instanceof AtollSerializationException) {
                        throw (AtollSerializationException) e;
                    }
                    throw new AtollSerializationException("readData of " + obj.getClass().getName() + " failed", e);
                }
                return obj;
            }
        }
        IdentifiedLayout l = layout(fid, cid);
        if (l == null) {
            throw new UnknownLayoutException(fid, cid, "no DataSerializableFactory or IdentifiedLayout for factoryId=" + fid + ", classId=" + cid);
        }
        boolean wasGeneric = in.generic;
        in.generic = true;
        try {
            return IdentifiedRecord.read(this, in, l);
        } finally {
            in.generic = wasGeneric;
        }
    }
}
