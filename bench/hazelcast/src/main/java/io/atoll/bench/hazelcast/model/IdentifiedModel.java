package io.atoll.bench.hazelcast.model;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

import java.io.IOException;

/**
 * IdentifiedDataSerializable forms of SMALL, LARGE and workload A's document (factory 1).
 * LARGE writes its nested SMALL objects inline: their four fields, with no header.
 */
public final class IdentifiedModel {
    public static final int FACTORY_ID = 1;
    public static final int SMALL_ID = 1;
    public static final int LARGE_ID = 2;
    public static final int DOC_ID = 3;

    private IdentifiedModel() {
    }

    public static final class Factory implements DataSerializableFactory {
        @Override
        public IdentifiedDataSerializable create(int classId) {
            switch (classId) {
                case SMALL_ID:
                    return new IdsSmall(new Small());
                case LARGE_ID:
                    return new IdsLarge(new Large());
                case DOC_ID:
                    return new IdsDoc();
                default:
                    return null;
            }
        }
    }

    static void writeSmall(ObjectDataOutput out, Small s) throws IOException {
        out.writeInt(s.intField);
        out.writeLong(s.longField);
        out.writeDouble(s.doubleField);
        out.writeString(s.stringField);
    }

    static Small readSmall(ObjectDataInput in) throws IOException {
        Small s = new Small();
        s.intField = in.readInt();
        s.longField = in.readLong();
        s.doubleField = in.readDouble();
        s.stringField = in.readString();
        return s;
    }

    public static final class IdsSmall implements IdentifiedDataSerializable {
        public Small small;

        public IdsSmall(Small small) {
            this.small = small;
        }

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return SMALL_ID;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            writeSmall(out, small);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            small = readSmall(in);
        }

        // SQL reads fields of 'java' values through getters.
        public int getIntField() {
            return small.intField;
        }

        public long getLongField() {
            return small.longField;
        }

        public double getDoubleField() {
            return small.doubleField;
        }

        public String getStringField() {
            return small.stringField;
        }
    }

    public static final class IdsLarge implements IdentifiedDataSerializable {
        public Large large;

        public IdsLarge(Large large) {
            this.large = large;
        }

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return LARGE_ID;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            Large l = large;
            out.writeBoolean(l.booleanField);
            out.writeBooleanArray(l.booleanArray);
            out.writeByte(l.byteField);
            out.writeByteArray(l.byteArray);
            out.writeShort(l.shortField);
            out.writeShortArray(l.shortArray);
            out.writeInt(l.intField);
            out.writeIntArray(l.intArray);
            out.writeLong(l.longField);
            out.writeLongArray(l.longArray);
            out.writeFloat(l.floatField);
            out.writeFloatArray(l.floatArray);
            out.writeDouble(l.doubleField);
            out.writeDoubleArray(l.doubleArray);
            out.writeString(l.stringField);
            out.writeStringArray(l.stringArray);
            writeSmall(out, l.small);
            out.writeInt(l.smallArray.length);
            for (Small s : l.smallArray) {
                writeSmall(out, s);
            }
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            Large l = new Large();
            l.booleanField = in.readBoolean();
            l.booleanArray = in.readBooleanArray();
            l.byteField = in.readByte();
            l.byteArray = in.readByteArray();
            l.shortField = in.readShort();
            l.shortArray = in.readShortArray();
            l.intField = in.readInt();
            l.intArray = in.readIntArray();
            l.longField = in.readLong();
            l.longArray = in.readLongArray();
            l.floatField = in.readFloat();
            l.floatArray = in.readFloatArray();
            l.doubleField = in.readDouble();
            l.doubleArray = in.readDoubleArray();
            l.stringField = in.readString();
            l.stringArray = in.readStringArray();
            l.small = readSmall(in);
            l.smallArray = new Small[in.readInt()];
            for (int i = 0; i < l.smallArray.length; i++) {
                l.smallArray[i] = readSmall(in);
            }
            large = l;
        }

        public boolean getBooleanField() {
            return large.booleanField;
        }

        public byte getByteField() {
            return large.byteField;
        }

        public short getShortField() {
            return large.shortField;
        }

        public int getIntField() {
            return large.intField;
        }

        public long getLongField() {
            return large.longField;
        }

        public float getFloatField() {
            return large.floatField;
        }

        public double getDoubleField() {
            return large.doubleField;
        }

        public String getStringField() {
            return large.stringField;
        }
    }

    /** Workload A's document: writeLong(value), writeIntArray(payload). */
    public static final class IdsDoc implements IdentifiedDataSerializable {
        public long value;
        public int[] payload;

        public IdsDoc() {
        }

        public IdsDoc(int k) {
            this.value = k;
            this.payload = Values.payload(k);
        }

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return DOC_ID;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeLong(value);
            out.writeIntArray(payload);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            value = in.readLong();
            payload = in.readIntArray();
        }

        public long getValue() {
            return value;
        }
    }
}
