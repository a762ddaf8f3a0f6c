package io.atoll.client.serialization.bench;

import io.atoll.client.serialization.Portable;
import io.atoll.client.serialization.PortableFactory;
import io.atoll.client.serialization.PortableReader;
import io.atoll.client.serialization.PortableWriter;

import java.io.IOException;

/** The benchmark's Portable classes (factory 2, version 0), ported by changing imports only. */
public final class Ports {
    public static final int FACTORY_ID = 2;
    public static final int SMALL_ID = 1;
    public static final int LARGE_ID = 2;
    public static final int ADOC_ID = 3;

    private Ports() {
    }

    public static final class Factory implements PortableFactory {
        @Override
        public Portable create(int classId) {
            switch (classId) {
                case SMALL_ID:
                    return new PSmall();
                case LARGE_ID:
                    return new PLarge();
                case ADOC_ID:
                    return new PADoc();
                default:
                    return null;
            }
        }
    }

    public static final class PSmall implements Portable {
        public int intField;
        public long longField;
        public double doubleField;
        public String stringField;

        public PSmall() {
        }

        public PSmall(Small s) {
            intField = s.intField;
            longField = s.longField;
            doubleField = s.doubleField;
            stringField = s.stringField;
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
        public void writePortable(PortableWriter w) throws IOException {
            w.writeInt("intField", intField);
            w.writeLong("longField", longField);
            w.writeDouble("doubleField", doubleField);
            w.writeString("stringField", stringField);
        }

        @Override
        public void readPortable(PortableReader r) throws IOException {
            intField = r.readInt("intField");
            longField = r.readLong("longField");
            doubleField = r.readDouble("doubleField");
            stringField = r.readString("stringField");
        }
    }

    public static final class PLarge implements Portable {
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
        public PSmall small;
        public PSmall[] smallArray;

        public PLarge() {
        }

        public PLarge(Large l) {
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
            small = new PSmall(l.small);
            smallArray = new PSmall[l.smallArray.length];
            for (int i = 0; i < smallArray.length; i++) {
                smallArray[i] = new PSmall(l.smallArray[i]);
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

        @Override
        public void writePortable(PortableWriter w) throws IOException {
            w.writeBoolean("booleanField", booleanField);
            w.writeBooleanArray("booleanArray", booleanArray);
            w.writeByte("byteField", byteField);
            w.writeByteArray("byteArray", byteArray);
            w.writeShort("shortField", shortField);
            w.writeShortArray("shortArray", shortArray);
            w.writeInt("intField", intField);
            w.writeIntArray("intArray", intArray);
            w.writeLong("longField", longField);
            w.writeLongArray("longArray", longArray);
            w.writeFloat("floatField", floatField);
            w.writeFloatArray("floatArray", floatArray);
            w.writeDouble("doubleField", doubleField);
            w.writeDoubleArray("doubleArray", doubleArray);
            w.writeString("stringField", stringField);
            w.writeStringArray("stringArray", stringArray);
            w.writePortable("small", small);
            w.writePortableArray("smallArray", smallArray);
        }

        @Override
        public void readPortable(PortableReader r) throws IOException {
            booleanField = r.readBoolean("booleanField");
            booleanArray = r.readBooleanArray("booleanArray");
            byteField = r.readByte("byteField");
            byteArray = r.readByteArray("byteArray");
            shortField = r.readShort("shortField");
            shortArray = r.readShortArray("shortArray");
            intField = r.readInt("intField");
            intArray = r.readIntArray("intArray");
            longField = r.readLong("longField");
            longArray = r.readLongArray("longArray");
            floatField = r.readFloat("floatField");
            floatArray = r.readFloatArray("floatArray");
            doubleField = r.readDouble("doubleField");
            doubleArray = r.readDoubleArray("doubleArray");
            stringField = r.readString("stringField");
            stringArray = r.readStringArray("stringArray");
            small = r.readPortable("small");
            Portable[] arr = r.readPortableArray("smallArray");
            smallArray = new PSmall[arr.length];
            for (int i = 0; i < arr.length; i++) {
                smallArray[i] = (PSmall) arr[i];
            }
        }
    }

    public static final class PADoc implements Portable {
        public long value;
        public int[] payload;

        public PADoc() {
        }

        public PADoc(int k) {
            value = k;
            payload = Gen.aPayload(k);
        }

        @Override
        public int getFactoryId() {
            return FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return ADOC_ID;
        }

        @Override
        public void writePortable(PortableWriter w) throws IOException {
            w.writeLong("value", value);
            w.writeIntArray("payload", payload);
        }

        @Override
        public void readPortable(PortableReader r) throws IOException {
            value = r.readLong("value");
            payload = r.readIntArray("payload");
        }
    }
}
