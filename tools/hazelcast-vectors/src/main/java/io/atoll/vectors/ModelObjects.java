package io.atoll.vectors;

import io.atoll.bench.hazelcast.model.CompactModel;
import io.atoll.bench.hazelcast.model.IdentifiedModel;
import io.atoll.bench.hazelcast.model.Large;
import io.atoll.bench.hazelcast.model.PortableModel;
import io.atoll.bench.hazelcast.model.Small;
import io.atoll.bench.hazelcast.model.Values;

/** Descriptions of the benchmark's objects, field for field as the model's serializers write them. */
final class ModelObjects {
    private ModelObjects() {
    }

    static Obj compactSmall(Small s) {
        if (s == null) {
            return null;
        }
        return Obj.compact(CompactModel.SMALL_TYPE)
                .add("intField", "INT32", s.intField)
                .add("longField", "INT64", s.longField)
                .add("doubleField", "FLOAT64", s.doubleField)
                .add("stringField", "STRING", s.stringField);
    }

    static Obj compactLarge(Large l) {
        Obj[] items = l.smallArray == null ? null : new Obj[l.smallArray.length];
        for (int i = 0; items != null && i < items.length; i++) {
            items[i] = compactSmall(l.smallArray[i]);
        }
        Obj small = Obj.compact(CompactModel.SMALL_TYPE);
        return Obj.compact(CompactModel.LARGE_TYPE)
                .add("booleanField", "BOOLEAN", l.booleanField).add("booleanArray", "ARRAY_OF_BOOLEAN", l.booleanArray)
                .add("byteField", "INT8", l.byteField).add("byteArray", "ARRAY_OF_INT8", l.byteArray)
                .add("shortField", "INT16", l.shortField).add("shortArray", "ARRAY_OF_INT16", l.shortArray)
                .add("intField", "INT32", l.intField).add("intArray", "ARRAY_OF_INT32", l.intArray)
                .add("longField", "INT64", l.longField).add("longArray", "ARRAY_OF_INT64", l.longArray)
                .add("floatField", "FLOAT32", l.floatField).add("floatArray", "ARRAY_OF_FLOAT32", l.floatArray)
                .add("doubleField", "FLOAT64", l.doubleField).add("doubleArray", "ARRAY_OF_FLOAT64", l.doubleArray)
                .add("stringField", "STRING", l.stringField).add("stringArray", "ARRAY_OF_STRING", l.stringArray)
                .nested("small", "COMPACT", small, compactSmall(l.small))
                .nested("smallArray", "ARRAY_OF_COMPACT", small, items);
    }

    static Obj portableSmall(Small s) {
        if (s == null) {
            return null;
        }
        return Obj.portable(PortableModel.FACTORY_ID, PortableModel.SMALL_ID, 0)
                .add("intField", "INT", s.intField)
                .add("longField", "LONG", s.longField)
                .add("doubleField", "DOUBLE", s.doubleField)
                .add("stringField", "UTF", s.stringField);
    }

    static Obj portableLarge(Large l) {
        Obj[] items = l.smallArray == null ? null : new Obj[l.smallArray.length];
        for (int i = 0; items != null && i < items.length; i++) {
            items[i] = portableSmall(l.smallArray[i]);
        }
        Obj small = portableSmall(new Small());
        return Obj.portable(PortableModel.FACTORY_ID, PortableModel.LARGE_ID, 0)
                .add("booleanField", "BOOLEAN", l.booleanField).add("booleanArray", "BOOLEAN_ARRAY", l.booleanArray)
                .add("byteField", "BYTE", l.byteField).add("byteArray", "BYTE_ARRAY", l.byteArray)
                .add("shortField", "SHORT", l.shortField).add("shortArray", "SHORT_ARRAY", l.shortArray)
                .add("intField", "INT", l.intField).add("intArray", "INT_ARRAY", l.intArray)
                .add("longField", "LONG", l.longField).add("longArray", "LONG_ARRAY", l.longArray)
                .add("floatField", "FLOAT", l.floatField).add("floatArray", "FLOAT_ARRAY", l.floatArray)
                .add("doubleField", "DOUBLE", l.doubleField).add("doubleArray", "DOUBLE_ARRAY", l.doubleArray)
                .add("stringField", "UTF", l.stringField).add("stringArray", "UTF_ARRAY", l.stringArray)
                .nested("small", "PORTABLE", small, portableSmall(l.small))
                .nested("smallArray", "PORTABLE_ARRAY", small, items);
    }

    static Obj portableDoc(int k) {
        return Obj.portable(PortableModel.FACTORY_ID, PortableModel.DOC_ID, 0)
                .add("value", "LONG", (long) k)
                .add("payload", "INT_ARRAY", Values.payload(k));
    }

    static Obj identifiedSmall(Small s) {
        return Obj.identified(IdentifiedModel.FACTORY_ID, IdentifiedModel.SMALL_ID)
                .add("intField", "writeInt", s.intField)
                .add("longField", "writeLong", s.longField)
                .add("doubleField", "writeDouble", s.doubleField)
                .add("stringField", "writeString", s.stringField);
    }

    static Obj identifiedLarge(Large l) {
        Obj[] items = new Obj[l.smallArray.length];
        for (int i = 0; i < items.length; i++) {
            items[i] = identifiedSmall(l.smallArray[i]);
        }
        Obj small = identifiedSmall(new Small());
        return Obj.identified(IdentifiedModel.FACTORY_ID, IdentifiedModel.LARGE_ID)
                .add("booleanField", "writeBoolean", l.booleanField).add("booleanArray", "writeBooleanArray", l.booleanArray)
                .add("byteField", "writeByte", l.byteField).add("byteArray", "writeByteArray", l.byteArray)
                .add("shortField", "writeShort", l.shortField).add("shortArray", "writeShortArray", l.shortArray)
                .add("intField", "writeInt", l.intField).add("intArray", "writeIntArray", l.intArray)
                .add("longField", "writeLong", l.longField).add("longArray", "writeLongArray", l.longArray)
                .add("floatField", "writeFloat", l.floatField).add("floatArray", "writeFloatArray", l.floatArray)
                .add("doubleField", "writeDouble", l.doubleField).add("doubleArray", "writeDoubleArray", l.doubleArray)
                .add("stringField", "writeString", l.stringField).add("stringArray", "writeStringArray", l.stringArray)
                .nested("small", "writeDataInline", small, identifiedSmall(l.small))
                .nested("smallArray", "writeInlineArray", small, items);
    }

    static Obj identifiedDoc(int k) {
        return Obj.identified(IdentifiedModel.FACTORY_ID, IdentifiedModel.DOC_ID)
                .add("value", "writeLong", (long) k)
                .add("payload", "writeIntArray", Values.payload(k));
    }
}
