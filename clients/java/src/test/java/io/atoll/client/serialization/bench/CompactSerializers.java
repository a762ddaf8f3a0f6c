package io.atoll.client.serialization.bench;

import io.atoll.client.serialization.CompactReader;
import io.atoll.client.serialization.CompactSerializer;
import io.atoll.client.serialization.CompactWriter;

/** Hand-written compact serializers writing in declaration order, as the benchmark's do. */
public final class CompactSerializers {
    private CompactSerializers() {
    }

    public static final class SmallSerializer implements CompactSerializer<Small> {
        @Override
        public Small read(CompactReader r) {
            Small s = new Small();
            s.intField = r.readInt32("intField");
            s.longField = r.readInt64("longField");
            s.doubleField = r.readFloat64("doubleField");
            s.stringField = r.readString("stringField");
            return s;
        }

        @Override
        public void write(CompactWriter w, Small s) {
            w.writeInt32("intField", s.intField);
            w.writeInt64("longField", s.longField);
            w.writeFloat64("doubleField", s.doubleField);
            w.writeString("stringField", s.stringField);
        }

        @Override
        public String getTypeName() {
            return "small";
        }

        @Override
        public Class<Small> getCompactClass() {
            return Small.class;
        }
    }

    public static final class LargeSerializer implements CompactSerializer<Large> {
        @Override
        public Large read(CompactReader r) {
            Large l = new Large();
            l.booleanField = r.readBoolean("booleanField");
            l.booleanArray = r.readArrayOfBoolean("booleanArray");
            l.byteField = r.readInt8("byteField");
            l.byteArray = r.readArrayOfInt8("byteArray");
            l.shortField = r.readInt16("shortField");
            l.shortArray = r.readArrayOfInt16("shortArray");
            l.intField = r.readInt32("intField");
            l.intArray = r.readArrayOfInt32("intArray");
            l.longField = r.readInt64("longField");
            l.longArray = r.readArrayOfInt64("longArray");
            l.floatField = r.readFloat32("floatField");
            l.floatArray = r.readArrayOfFloat32("floatArray");
            l.doubleField = r.readFloat64("doubleField");
            l.doubleArray = r.readArrayOfFloat64("doubleArray");
            l.stringField = r.readString("stringField");
            l.stringArray = r.readArrayOfString("stringArray");
            l.small = r.readCompact("small");
            l.smallArray = r.readArrayOfCompact("smallArray", Small.class);
            return l;
        }

        @Override
        public void write(CompactWriter w, Large l) {
            w.writeBoolean("booleanField", l.booleanField);
            w.writeArrayOfBoolean("booleanArray", l.booleanArray);
            w.writeInt8("byteField", l.byteField);
            w.writeArrayOfInt8("byteArray", l.byteArray);
            w.writeInt16("shortField", l.shortField);
            w.writeArrayOfInt16("shortArray", l.shortArray);
            w.writeInt32("intField", l.intField);
            w.writeArrayOfInt32("intArray", l.intArray);
            w.writeInt64("longField", l.longField);
            w.writeArrayOfInt64("longArray", l.longArray);
            w.writeFloat32("floatField", l.floatField);
            w.writeArrayOfFloat32("floatArray", l.floatArray);
            w.writeFloat64("doubleField", l.doubleField);
            w.writeArrayOfFloat64("doubleArray", l.doubleArray);
            w.writeString("stringField", l.stringField);
            w.writeArrayOfString("stringArray", l.stringArray);
            w.writeCompact("small", l.small);
            w.writeArrayOfCompact("smallArray", l.smallArray);
        }

        @Override
        public String getTypeName() {
            return "large";
        }

        @Override
        public Class<Large> getCompactClass() {
            return Large.class;
        }
    }
}
