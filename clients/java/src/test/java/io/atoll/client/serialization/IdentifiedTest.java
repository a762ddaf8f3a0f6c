package io.atoll.client.serialization;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IdentifiedTest {
    static final class Point implements IdentifiedDataSerializable {
        int x;
        Integer boxed;
        Point next;

        @Override
        public int getFactoryId() {
            return 5;
        }

        @Override
        public int getClassId() {
            return 1;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeInt(x);
            out.writeObject(boxed);
            out.writeObject(next);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            x = in.readInt();
            boxed = in.readObject();
            next = in.readObject(Point.class);
        }
    }

    static final IdentifiedLayout POINT = IdentifiedLayout.builder(5, 1)
            .writeInt("x").writeObject("boxed", FieldKind.INT32).writeObject("next", 5, 1).build();

    @Test
    void classAndLayoutAgreeOnTheBytes() {
        SerializationService withClass = new SerializationService(new SerializationConfig().addDataSerializableFactory(5, id -> new Point()));
        SerializationService withLayout = new SerializationService(new SerializationConfig().addIdentifiedLayout(POINT));
        Point p = new Point();
        p.x = 1;
        p.boxed = 77;
        p.next = new Point();
        p.next.x = 2;
        Data d = withClass.toData(p);
        GenericRecord r = withLayout.toObject(d);
        assertEquals(1, r.getInt32("x"));
        assertEquals(Integer.valueOf(77), r.getNullableInt32("boxed"));
        assertEquals(FieldKind.NULLABLE_INT32, r.getFieldKind("boxed"));
        GenericRecord next = r.getGenericRecord("next");
        assertEquals(2, next.getInt32("x"));
        assertNull(next.getNullableInt32("boxed"));
        assertNull(next.getGenericRecord("next"));
        assertArrayEquals(d.toByteArray(), withLayout.toData(r).toByteArray());

        GenericRecord built = GenericRecordBuilder.identified(POINT).setInt32("x", 1).setInt32("boxed", 77)
                .setGenericRecord("next", GenericRecordBuilder.identified(POINT).setInt32("x", 2).setNullableInt32("boxed", null)
                        .setGenericRecord("next", null).build())
                .build();
        assertArrayEquals(d.toByteArray(), withLayout.toData(built).toByteArray());
        Point back = withClass.toObject(withLayout.toData(built));
        assertEquals(2, back.next.x);
    }

    @Test
    void inlineNestingAndArrays() {
        IdentifiedLayout small = IdentifiedLayout.builder(1, 1).writeInt("i").writeString("s").build();
        IdentifiedLayout large = IdentifiedLayout.builder(1, 2).writeDataInline("one", 1, 1).writeInlineArray("many", 1, 1)
                .writeObjectArray("objs", 1, 1).writeObjectArray("nums", FieldKind.ARRAY_OF_INT64).writeCharArray("cs").build();
        SerializationService s = new SerializationService(new SerializationConfig().addIdentifiedLayout(small).addIdentifiedLayout(large));
        GenericRecord a = GenericRecordBuilder.identified(small).setInt32("i", 1).setString("s", "a").build();
        GenericRecord b = GenericRecordBuilder.identified(small).setInt32("i", 2).setString("s", null).build();
        GenericRecord r = GenericRecordBuilder.identified(large).setGenericRecord("one", a)
                .setArrayOfGenericRecord("many", new GenericRecord[] {a, b})
                .setArrayOfGenericRecord("objs", new GenericRecord[] {b, null})
                .setArrayOfNullableInt64("nums", new Long[] {1L, null}).setArrayOfChar("cs", new char[] {'x'}).build();
        Data d = s.toData(r);
        GenericRecord back = s.toObject(d);
        assertEquals(r, back);
        assertEquals(FieldKind.ARRAY_OF_NULLABLE_INT64, back.getFieldKind("nums"));
        GenericRecord inlineNull = GenericRecordBuilder.identified(large).setGenericRecord("one", null)
                .setArrayOfGenericRecord("many", null).setArrayOfGenericRecord("objs", null)
                .setArrayOfNullableInt64("nums", null).setArrayOfChar("cs", null).build();
        assertThrows(InvalidFieldException.class, () -> s.toData(inlineNull));
    }

    /** Bytes produced by Hazelcast 5.7 for the same value, with toData and with toDataWithSchema alike. */
    @Test
    void compactValuesInsideIdentifiedDataNeverEmbedSchemas() {
        IdentifiedLayout box = IdentifiedLayout.builder(1, 9).writeString("s").writeObject("o", FieldKind.COMPACT).build();
        SerializationService s = new SerializationService(new SerializationConfig().addIdentifiedLayout(box));
        GenericRecord r = GenericRecordBuilder.identified(box).setString("s", "s")
                .setGenericRecord("o", GenericRecordBuilder.compact("x").setInt32("v", 1).build()).build();
        byte[] expected = CoreTest.hex("00000000fffffffe0100000001000000090000000173ffffffc96140a1ac01c9f88b00000001");
        assertArrayEquals(expected, s.toData(r).toByteArray());
        assertArrayEquals(expected, s.toDataWithSchema(r).toByteArray());
        assertEquals(1, s.<GenericRecord>toObject(Data.fromByteArray(expected)).getGenericRecord("o").getInt32("v"));
    }

    @Test
    void missingFactoryAndLayoutIsATypedError() {
        SerializationService w = new SerializationService(new SerializationConfig().addIdentifiedLayout(POINT));
        Data d = w.toData(GenericRecordBuilder.identified(POINT).setInt32("x", 1).setNullableInt32("boxed", null)
                .setGenericRecord("next", null).build());
        assertThrows(UnknownTypeException.class, () -> new SerializationService().toObject(d));
        byte[] plain = CoreTest.hex("00000000fffffffe00000000036a6176");
        assertThrows(UnknownTypeException.class, () -> new SerializationService().toObject(Data.fromByteArray(plain)));
    }

    @Test
    void layoutDeclaredKindsAreChecked() {
        IdentifiedLayout wrong = IdentifiedLayout.builder(5, 1).writeInt("x").writeObject("boxed", FieldKind.STRING)
                .writeObject("next", 5, 1).build();
        SerializationService withClass = new SerializationService(new SerializationConfig().addDataSerializableFactory(5, id -> new Point()));
        Point p = new Point();
        p.boxed = 1;
        Data d = withClass.toData(p);
        assertThrows(MalformedDataException.class, () -> new SerializationService(new SerializationConfig().addIdentifiedLayout(wrong)).toObject(d));
        assertThrows(IllegalArgumentException.class, () -> IdentifiedLayout.builder(1, 1).writeObject("x", FieldKind.DECIMAL));
        assertEquals(IdentifiedLayout.Op.WRITE_INLINE_ARRAY, IdentifiedLayout.Op.ofName("writeInlineArray"));
    }

    /**
     * Items of an inline array may take no bytes: a class that writes nothing, or one that
     * only inlines such a class. Their count cannot be checked against the bytes left.
     */
    @Test
    void inlineArraysOfItemsWithoutBytes() {
        IdentifiedLayout nothing = IdentifiedLayout.builder(10, 1).build();
        IdentifiedLayout wrapper = IdentifiedLayout.builder(10, 2).writeDataInline("nothing", 10, 1).build();
        IdentifiedLayout holder = IdentifiedLayout.builder(10, 3).writeInlineArray("none", 10, 2)
                .writeInlineArray("wrapped", 10, 2).build(); // last: no bytes left for its three items
        SerializationService service = new SerializationService(new SerializationConfig()
                .addIdentifiedLayout(nothing).addIdentifiedLayout(wrapper).addIdentifiedLayout(holder));
        GenericRecord empty = GenericRecordBuilder.identified(nothing).build();
        GenericRecord wrapped = GenericRecordBuilder.identified(wrapper).setGenericRecord("nothing", empty).build();
        GenericRecord rec = GenericRecordBuilder.identified(holder)
                .setArrayOfGenericRecord("wrapped", new GenericRecord[] {wrapped, wrapped, wrapped})
                .setArrayOfGenericRecord("none", null).build();
        byte[] bytes = service.toData(rec).toByteArray();
        assertArrayEquals(new byte[] {-1, -1, -1, -1, 0, 0, 0, 3}, java.util.Arrays.copyOfRange(bytes, bytes.length - 8, bytes.length));
        GenericRecord back = service.toObject(Data.fromByteArray(bytes));
        assertEquals(3, back.getArrayOfGenericRecord("wrapped").length);
        assertNull(back.getArrayOfGenericRecord("none"));
    }
}
