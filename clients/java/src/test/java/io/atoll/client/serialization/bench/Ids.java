package io.atoll.client.serialization.bench;

import io.atoll.client.serialization.DataSerializableFactory;
import io.atoll.client.serialization.IdentifiedDataSerializable;
import io.atoll.client.serialization.ObjectDataInput;
import io.atoll.client.serialization.ObjectDataOutput;

import java.io.IOException;

/** The benchmark's IdentifiedDataSerializable classes (factory 1), ported by changing imports only. */
public final class Ids {
    public static final int FACTORY_ID = 1;
    public static final int SMALL_ID = 1;
    public static final int LARGE_ID = 2;
    public static final int ADOC_ID = 3;

    private Ids() {
    }

    public static final class Factory implements DataSerializableFactory {
        @Override
        public IdentifiedDataSerializable create(int typeId) {
            switch (typeId) {
                case SMALL_ID:
                    return new IdsSmall();
                case LARGE_ID:
                    return new IdsLarge();
                case ADOC_ID:
                    return new ADoc();
                default:
                    return null;
            }
        }
    }

    public static final class IdsSmall implements IdentifiedDataSerializable {
        public int intField;
        public long longField;
        public double doubleField;
        public String stringField;

        public IdsSmall() {
        }

        public IdsSmall(Small s) {
            intField = s.intField;
            longField = s.longField;
            doubleField = s.doubleField;
            stringField = s.stringField;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeInt(intField);
            out.writeLong(longField);
            out.writeDouble(doubleField);
            out.writeString(stringField);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            intField = in.readInt();
            longField = in.readLong();
            doubleField = in.readDouble();
            stringField = in.readString();
        }

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return SMALL_ID;
        }
    }

    public static final class IdsLarge implements IdentifiedDataSerializable {
        public boolean booleanField;
        public boolean[] booleanArray;
        public byte byteField;
        public byte[] byteArray;
        public short shortField;
        public short[] shortArray;
        public int intField;
        public int[] intArray;
        public long longField;
        public long[] longArray;
        public float floatField;
        public float[] floatArray;
        public double doubleField;
        public double[] doubleArray;
        public String stringField;
        public String[] stringArray;
        public IdsSmall small;
        public IdsSmall[] smallArray;

        public IdsLarge() {
        }

        public IdsLarge(Large l) {
            booleanField = l.booleanField;
            booleanArray = l.booleanArray;
            byteField = l.byteField;
            byteArray = l.byteArray;
            shortField = l.shortField;
            shortArray = l.shortArray;
            intField = l.intField;
            intArray = l.intArray;
            longField = l.longField;
            longArray = l.longArray;
            floatField = l.floatField;
            floatArray = l.floatArray;
            doubleField = l.doubleField;
            doubleArray = l.doubleArray;
            stringField = l.stringField;
            stringArray = l.stringArray;
            small = new IdsSmall(l.small);
            smallArray = new IdsSmall[l.smallArray.length];
            for (int i = 0; i < smallArray.length; i++) {
                smallArray[i] = new IdsSmall(l.smallArray[i]);
            }
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeBoolean(booleanField);
            out.writeBooleanArray(booleanArray);
            out.writeByte(byteField);
            out.writeByteArray(byteArray);
            out.writeShort(shortField);
            out.writeShortArray(shortArray);
            out.writeInt(intField);
            out.writeIntArray(intArray);
            out.writeLong(longField);
            out.writeLongArray(longArray);
            out.writeFloat(floatField);
            out.writeFloatArray(floatArray);
            out.writeDouble(doubleField);
            out.writeDoubleArray(doubleArray);
            out.writeString(stringField);
            out.writeStringArray(stringArray);
            small.writeData(out);
            out.writeInt(smallArray.length);
            for (IdsSmall s : smallArray) {
                s.writeData(out);
            }
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            booleanField = in.readBoolean();
            booleanArray = in.readBooleanArray();
            byteField = in.readByte();
            byteArray = in.readByteArray();
            shortField = in.readShort();
            shortArray = in.readShortArray();
            intField = in.readInt();
            intArray = in.readIntArray();
            longField = in.readLong();
            longArray = in.readLongArray();
            floatField = in.readFloat();
            floatArray = in.readFloatArray();
            doubleField = in.readDouble();
            doubleArray = in.readDoubleArray();
            stringField = in.readString();
            stringArray = in.readStringArray();
            small = new IdsSmall();
            small.readData(in);
            int n = in.readInt();
            if (n < 0 || n > in.available()) {
                throw new IOException("invalid SMALL[] length " + n);
            }
            smallArray = new IdsSmall[n];
            for (int i = 0; i < n; i++) {
                smallArray[i] = new IdsSmall();
                smallArray[i].readData(in);
            }
        }

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return LARGE_ID;
        }
    }

    public static final class ADoc implements IdentifiedDataSerializable {
        public long value;
        public int[] payload;

        public ADoc() {
        }

        public ADoc(int k) {
            value = k;
            payload = Gen.aPayload(k);
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

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return ADOC_ID;
        }
    }
}
