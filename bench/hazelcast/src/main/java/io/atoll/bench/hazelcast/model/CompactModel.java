package io.atoll.bench.hazelcast.model;

import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.compact.CompactWriter;

/** Compact serializers of SMALL ("small") and LARGE ("large"), writing fields in declaration order. */
public final class CompactModel {
    public static final String SMALL_TYPE = "small";
    public static final String LARGE_TYPE = "large";

    private CompactModel() {
    }

    public static final class SmallSerializer implements CompactSerializer<Small> {
        @Override
        public Small read(CompactReader in) {
            Small s = new Small();
            s.intField = in.readInt32("intField");
            s.longField = in.readInt64("longField");
            s.doubleField = in.readFloat64("doubleField");
            s.stringField = in.readString("stringField");
            return s;
        }

        @Override
        public void write(CompactWriter out, Small s) {
            out.writeInt32("intField", s.intField);
            out.writeInt64("longField", s.longField);
            out.writeFloat64("doubleField", s.doubleField);
            out.writeString("stringField", s.stringField);
        }

        @Override
        public String getTypeName() {
            return SMALL_TYPE;
        }

        @Override
        public Class<Small> getCompactClass() {
            return Small.class;
        }
    }

    public static final class LargeSerializer implements CompactSerializer<Large> {
        @Override
        public Large read(CompactReader in) {
            Large l = new Large();
            l.booleanField = in.readBoolean("booleanField");
            l.booleanArray = in.readArrayOfBoolean("booleanArray");
            l.byteField = in.readInt8("byteField");
            l.byteArray = in.readArrayOfInt8("byteArray");
            l.shortField = in.readInt16("shortField");
            l.shortArray = in.readArrayOfInt16("shortArray");
            l.intField = in.readInt32("intField");
            l.intArray = in.readArrayOfInt32("intArray");
            l.longField = in.readInt64("longField");
            l.longArray = in.readArrayOfInt64("longArray");
            l.floatField = in.readFloat32("floatField");
            l.floatArray = in.readArrayOfFloat32("floatArray");
            l.doubleField = in.readFloat64("doubleField");
            l.doubleArray = in.readArrayOfFloat64("doubleArray");
            l.stringField = in.readString("stringField");
            l.stringArray = in.readArrayOfString("stringArray");
            l.small = in.readCompact("small");
            l.smallArray = in.readArrayOfCompact("smallArray", Small.class);
            return l;
        }

        @Override
        public void write(CompactWriter out, Large l) {
            out.writeBoolean("booleanField", l.booleanField);
            out.writeArrayOfBoolean("booleanArray", l.booleanArray);
            out.writeInt8("byteField", l.byteField);
            out.writeArrayOfInt8("byteArray", l.byteArray);
            out.writeInt16("shortField", l.shortField);
            out.writeArrayOfInt16("shortArray", l.shortArray);
            out.writeInt32("intField", l.intField);
            out.writeArrayOfInt32("intArray", l.intArray);
            out.writeInt64("longField", l.longField);
            out.writeArrayOfInt64("longArray", l.longArray);
            out.writeFloat32("floatField", l.floatField);
            out.writeArrayOfFloat32("floatArray", l.floatArray);
            out.writeFloat64("doubleField", l.doubleField);
            out.writeArrayOfFloat64("doubleArray", l.doubleArray);
            out.writeString("stringField", l.stringField);
            out.writeArrayOfString("stringArray", l.stringArray);
            out.writeCompact("small", l.small);
            out.writeArrayOfCompact("smallArray", l.smallArray);
        }

        @Override
        public String getTypeName() {
            return LARGE_TYPE;
        }

        @Override
        public Class<Large> getCompactClass() {
            return Large.class;
        }
    }
}
