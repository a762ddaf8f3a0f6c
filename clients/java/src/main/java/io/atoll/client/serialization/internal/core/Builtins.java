package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.JsonValue;
import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.SerializationConstants;
import io.atoll.client.serialization.UnknownTypeException;

import java.util.UUID;

import static io.atoll.client.serialization.SerializationConstants.*;

/** Serializers of the built-in types. */
public final class Builtins {
    private Builtins() {
    }

    /** Type id of a built-in value, or 0 if its class is not built in. */
    public static int typeIdOf(Object o) {
        if (o instanceof String) {
            return CONSTANT_TYPE_STRING;
        }
        if (o instanceof Integer) {
            return CONSTANT_TYPE_INTEGER;
        }
        if (o instanceof Long) {
            return CONSTANT_TYPE_LONG;
        }
        if (o instanceof Boolean) {
            return CONSTANT_TYPE_BOOLEAN;
        }
        if (o instanceof Double) {
            return CONSTANT_TYPE_DOUBLE;
        }
        if (o instanceof Float) {
            return CONSTANT_TYPE_FLOAT;
        }
        if (o instanceof Byte) {
            return CONSTANT_TYPE_BYTE;
        }
        if (o instanceof Short) {
            return CONSTANT_TYPE_SHORT;
        }
        if (o instanceof Character) {
            return CONSTANT_TYPE_CHAR;
        }
        if (o instanceof UUID) {
            return CONSTANT_TYPE_UUID;
        }
        if (o instanceof JsonValue) {
            return JAVASCRIPT_JSON_SERIALIZATION_TYPE;
        }
        if (o instanceof byte[]) {
            return CONSTANT_TYPE_BYTE_ARRAY;
        }
        if (o instanceof boolean[]) {
            return CONSTANT_TYPE_BOOLEAN_ARRAY;
        }
        if (o instanceof char[]) {
            return CONSTANT_TYPE_CHAR_ARRAY;
        }
        if (o instanceof short[]) {
            return CONSTANT_TYPE_SHORT_ARRAY;
        }
        if (o instanceof int[]) {
            return CONSTANT_TYPE_INTEGER_ARRAY;
        }
        if (o instanceof long[]) {
            return CONSTANT_TYPE_LONG_ARRAY;
        }
        if (o instanceof float[]) {
            return CONSTANT_TYPE_FLOAT_ARRAY;
        }
        if (o instanceof double[]) {
            return CONSTANT_TYPE_DOUBLE_ARRAY;
        }
        if (o instanceof String[]) {
            return CONSTANT_TYPE_STRING_ARRAY;
        }
        return 0;
    }

    public static boolean isBuiltin(int typeId) {
        return typeId <= CONSTANT_TYPE_BYTE && typeId >= CONSTANT_TYPE_UUID || typeId == JAVASCRIPT_JSON_SERIALIZATION_TYPE;
    }

    public static void write(BufferOutput out, int typeId, Object o) {
        switch (typeId) {
            case CONSTANT_TYPE_BYTE:
                out.writeByte((Byte) o);
                return;
            case CONSTANT_TYPE_BOOLEAN:
                out.writeBoolean((Boolean) o);
                return;
            case CONSTANT_TYPE_CHAR:
                out.writeChar((Character) o);
                return;
            case CONSTANT_TYPE_SHORT:
                out.writeShort((Short) o);
                return;
            case CONSTANT_TYPE_INTEGER:
                out.writeInt((Integer) o);
                return;
            case CONSTANT_TYPE_LONG:
                out.writeLong((Long) o);
                return;
            case CONSTANT_TYPE_FLOAT:
                out.writeFloat((Float) o);
                return;
            case CONSTANT_TYPE_DOUBLE:
                out.writeDouble((Double) o);
                return;
            case CONSTANT_TYPE_STRING:
                out.writeString((String) o);
                return;
            case CONSTANT_TYPE_BYTE_ARRAY:
                out.writeByteArray((byte[]) o);
                return;
            case CONSTANT_TYPE_BOOLEAN_ARRAY:
                out.writeBooleanArray((boolean[]) o);
                return;
            case CONSTANT_TYPE_CHAR_ARRAY:
                out.writeCharArray((char[]) o);
                return;
            case CONSTANT_TYPE_SHORT_ARRAY:
                out.writeShortArray((short[]) o);
                return;
            case CONSTANT_TYPE_INTEGER_ARRAY:
                out.writeIntArray((int[]) o);
                return;
            case CONSTANT_TYPE_LONG_ARRAY:
                out.writeLongArray((long[]) o);
                return;
            case CONSTANT_TYPE_FLOAT_ARRAY:
                out.writeFloatArray((float[]) o);
                return;
            case CONSTANT_TYPE_DOUBLE_ARRAY:
                out.writeDoubleArray((double[]) o);
                return;
            case CONSTANT_TYPE_STRING_ARRAY:
                out.writeStringArray((String[]) o);
                return;
            case CONSTANT_TYPE_UUID: {
                UUID u = (UUID) o;
                out.writeLong(u.getMostSignificantBits());
                out.writeLong(u.getLeastSignificantBits());
                return;
            }
            case JAVASCRIPT_JSON_SERIALIZATION_TYPE:
                out.writeString(((JsonValue) o).getValue());
                return;
            default:
                throw new UnknownTypeException("type id " + typeId + " is not built in");
        }
    }

    public static Object read(BufferInput in, int typeId) {
        switch (typeId) {
            case CONSTANT_TYPE_BYTE:
                return in.readByte();
            case CONSTANT_TYPE_BOOLEAN:
                return in.readBoolean();
            case CONSTANT_TYPE_CHAR:
                return in.readChar();
            case CONSTANT_TYPE_SHORT:
                return in.readShort();
            case CONSTANT_TYPE_INTEGER:
                return in.readInt();
            case CONSTANT_TYPE_LONG:
                return in.readLong();
            case CONSTANT_TYPE_FLOAT:
                return in.readFloat();
            case CONSTANT_TYPE_DOUBLE:
                return in.readDouble();
            case CONSTANT_TYPE_STRING:
                return in.readString();
            case CONSTANT_TYPE_BYTE_ARRAY:
                return in.readByteArray();
            case CONSTANT_TYPE_BOOLEAN_ARRAY:
                return in.readBooleanArray();
            case CONSTANT_TYPE_CHAR_ARRAY:
                return in.readCharArray();
            case CONSTANT_TYPE_SHORT_ARRAY:
                return in.readShortArray();
            case CONSTANT_TYPE_INTEGER_ARRAY:
                return in.readIntArray();
            case CONSTANT_TYPE_LONG_ARRAY:
                return in.readLongArray();
            case CONSTANT_TYPE_FLOAT_ARRAY:
                return in.readFloatArray();
            case CONSTANT_TYPE_DOUBLE_ARRAY:
                return in.readDoubleArray();
            case CONSTANT_TYPE_STRING_ARRAY:
                return in.readStringArray();
            case CONSTANT_TYPE_UUID:
                return new UUID(in.readLong(), in.readLong());
            case JAVASCRIPT_JSON_SERIALIZATION_TYPE: {
                String s = in.readString();
                if (s == null) {
                    throw new MalformedDataException("JSON value with a null text");
                }
                return new JsonValue(s);
            }
            default:
                throw new UnknownTypeException("type id " + typeId + " is not built in");
        }
    }
}
