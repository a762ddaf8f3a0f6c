package io.atoll.bench.hazelcast.model;

import com.hazelcast.nio.serialization.Portable;
import com.hazelcast.nio.serialization.PortableFactory;
import com.hazelcast.nio.serialization.PortableReader;
import com.hazelcast.nio.serialization.PortableWriter;

import java.io.IOException;

/** Portable forms of SMALL, LARGE and workload A's document (factory 2, class version 0). */
public final class PortableModel {
    public static final int FACTORY_ID = 2;
    public static final int SMALL_ID = 1;
    public static final int LARGE_ID = 2;
    public static final int DOC_ID = 3;

    private PortableModel() {
    }

    public static final class Factory implements PortableFactory {
        @Override
        public Portable create(int classId) {
            switch (classId) {
                case SMALL_ID:
                    return new PortableSmall(new Small());
                case LARGE_ID:
                    return new PortableLarge(new Large());
                case DOC_ID:
                    return new PortableDoc(0);
                default:
                    return null;
            }
        }
    }

    public static final class PortableSmall implements Portable {
        public final Small small;

        public PortableSmall(Small small) {
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
        public void writePortable(PortableWriter out) throws IOException {
            out.writeInt("intField", small.intField);
            out.writeLong("longField", small.longField);
            out.writeDouble("doubleField", small.doubleField);
            out.writeString("stringField", small.stringField);
        }

        @Override
        public void readPortable(PortableReader in) throws IOException {
            small.intField = in.readInt("intField");
            small.longField = in.readLong("longField");
            small.doubleField = in.readDouble("doubleField");
            small.stringField = in.readString("stringField");
        }
    }

    public static final class PortableLarge implements Portable {
        public final Large large;

        public PortableLarge(Large large) {
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
        public void writePortable(PortableWriter out) throws IOException {
            Large l = large;
            out.writeBoolean("booleanField", l.booleanField);
            out.writeBooleanArray("booleanArray", l.booleanArray);
            out.writeByte("byteField", l.byteField);
            out.writeByteArray("byteArray", l.byteArray);
            out.writeShort("shortField", l.shortField);
            out.writeShortArray("shortArray", l.shortArray);
            out.writeInt("intField", l.intField);
            out.writeIntArray("intArray", l.intArray);
            out.writeLong("longField", l.longField);
            out.writeLongArray("longArray", l.longArray);
            out.writeFloat("floatField", l.floatField);
            out.writeFloatArray("floatArray", l.floatArray);
            out.writeDouble("doubleField", l.doubleField);
            out.writeDoubleArray("doubleArray", l.doubleArray);
            out.writeString("stringField", l.stringField);
            out.writeStringArray("stringArray", l.stringArray);
            out.writePortable("small", l.small == null ? null : new PortableSmall(l.small));
            PortableSmall[] items = null;
            if (l.smallArray != null) {
                items = new PortableSmall[l.smallArray.length];
                for (int i = 0; i < items.length; i++) {
                    items[i] = new PortableSmall(l.smallArray[i]);
                }
            }
            out.writePortableArray("smallArray", items);
        }

        @Override
        public void readPortable(PortableReader in) throws IOException {
            Large l = large;
            l.booleanField = in.readBoolean("booleanField");
            l.booleanArray = in.readBooleanArray("booleanArray");
            l.byteField = in.readByte("byteField");
            l.byteArray = in.readByteArray("byteArray");
            l.shortField = in.readShort("shortField");
            l.shortArray = in.readShortArray("shortArray");
            l.intField = in.readInt("intField");
            l.intArray = in.readIntArray("intArray");
            l.longField = in.readLong("longField");
            l.longArray = in.readLongArray("longArray");
            l.floatField = in.readFloat("floatField");
            l.floatArray = in.readFloatArray("floatArray");
            l.doubleField = in.readDouble("doubleField");
            l.doubleArray = in.readDoubleArray("doubleArray");
            l.stringField = in.readString("stringField");
            l.stringArray = in.readStringArray("stringArray");
            PortableSmall s = in.readPortable("small");
            l.small = s == null ? null : s.small;
            Portable[] items = in.readPortableArray("smallArray");
            if (items != null) {
                l.smallArray = new Small[items.length];
                for (int i = 0; i < items.length; i++) {
                    l.smallArray[i] = ((PortableSmall) items[i]).small;
                }
            }
        }
    }

    /** Workload A's document: {@code value} (long) and {@code payload} (int[20]). */
    public static final class PortableDoc implements Portable {
        public long value;
        public int[] payload;

        public PortableDoc(int k) {
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
        public void writePortable(PortableWriter out) throws IOException {
            out.writeLong("value", value);
            out.writeIntArray("payload", payload);
        }

        @Override
        public void readPortable(PortableReader in) throws IOException {
            value = in.readLong("value");
            payload = in.readIntArray("payload");
        }
    }
}
