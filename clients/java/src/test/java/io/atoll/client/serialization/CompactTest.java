package io.atoll.client.serialization;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompactTest {

    /** Version 1 of a user class. */
    static final class PersonV1 {
        String name;
        int age;
    }

    /** Version 2 adds a field; its reader copes with data written by version 1. */
    static final class PersonV2 {
        String name;
        int age;
        String email;
        long score;
    }

    static final class PersonV1Serializer implements CompactSerializer<PersonV1> {
        @Override
        public PersonV1 read(CompactReader r) {
            PersonV1 p = new PersonV1();
            p.name = r.readString("name");
            p.age = r.readInt32("age");
            return p;
        }

        @Override
        public void write(CompactWriter w, PersonV1 p) {
            w.writeString("name", p.name);
            w.writeInt32("age", p.age);
        }

        @Override
        public String getTypeName() {
            return "person";
        }

        @Override
        public Class<PersonV1> getCompactClass() {
            return PersonV1.class;
        }
    }

    static final class PersonV2Serializer implements CompactSerializer<PersonV2> {
        @Override
        public PersonV2 read(CompactReader r) {
            PersonV2 p = new PersonV2();
            p.name = r.readString("name");
            p.age = r.readInt32("age");
            p.email = r.getFieldKind("email") == FieldKind.STRING ? r.readString("email") : "unknown";
            p.score = r.readInt64("score", -1L);
            return p;
        }

        @Override
        public void write(CompactWriter w, PersonV2 p) {
            w.writeString("name", p.name);
            w.writeInt32("age", p.age);
            w.writeString("email", p.email);
            w.writeInt64("score", p.score);
        }

        @Override
        public String getTypeName() {
            return "person";
        }

        @Override
        public Class<PersonV2> getCompactClass() {
            return PersonV2.class;
        }
    }

    @Test
    void readerOfANewerVersionReadsOldData() {
        SchemaRegistry shared = new SchemaRegistry();
        SerializationService v1 = new SerializationService(new SerializationConfig().setSchemaRegistry(shared)
                .addCompactSerializer(new PersonV1Serializer()));
        SerializationService v2 = new SerializationService(new SerializationConfig().setSchemaRegistry(shared)
                .addCompactSerializer(new PersonV2Serializer()));
        PersonV1 p = new PersonV1();
        p.name = "ann";
        p.age = 41;
        PersonV2 read = v2.toObject(v1.toData(p));
        assertEquals("ann", read.name);
        assertEquals(41, read.age);
        assertEquals("unknown", read.email);
        assertEquals(-1L, read.score);

        GenericRecord g = new SerializationService(new SerializationConfig().setSchemaRegistry(shared)).toObject(v1.toData(p));
        assertEquals(FieldKind.NOT_AVAILABLE, g.getFieldKind("email"));
        assertThrows(InvalidFieldException.class, () -> g.getString("email"));
        assertThrows(InvalidFieldException.class, () -> g.getInt64("age"));
    }

    @Test
    void unknownSchemaIsATypedErrorAndTheSourceIsAsked() {
        SerializationService writer = new SerializationService(new SerializationConfig().addCompactSerializer(new PersonV1Serializer()));
        PersonV1 p = new PersonV1();
        p.name = "x";
        Data d = writer.toData(p);
        SerializationService reader = new SerializationService();
        UnknownSchemaException e = assertThrows(UnknownSchemaException.class, () -> reader.toObject(d));
        List<Long> asked = new ArrayList<>();
        reader.getSchemaRegistry().setSource(id -> {
            asked.add(id);
            return writer.getSchemaRegistry().get(id);
        });
        GenericRecord r = reader.toObject(d);
        assertEquals("x", r.getString("name"));
        assertEquals(List.of(e.getSchemaId()), asked);
    }

    @Test
    void newSchemasAreAnnounced() {
        SchemaRegistry reg = new SchemaRegistry();
        List<Schema> seen = new ArrayList<>();
        reg.addListener(seen::add);
        SerializationService s = new SerializationService(new SerializationConfig().setSchemaRegistry(reg));
        s.toData(GenericRecordBuilder.compact("t").setInt32("a", 1).build());
        s.toData(GenericRecordBuilder.compact("t").setInt32("a", 2).build());
        assertEquals(1, seen.size());
        assertEquals("t", seen.get(0).getTypeName());
    }

    static GenericRecord everything() {
        GenericRecord nested = GenericRecordBuilder.compact("inner").setString("s", "n").setNullableInt32("ni", null).build();
        return GenericRecordBuilder.compact("all")
                .setBoolean("b", true).setInt8("i8", (byte) -1).setInt16("i16", (short) 300).setInt32("i32", 7)
                .setInt64("i64", Long.MIN_VALUE).setFloat32("f32", 1.5f).setFloat64("f64", -0.0)
                .setString("s", "héllo").setDecimal("dec", new BigDecimal("-12345.6789"))
                .setTime("t", LocalTime.of(23, 59, 58, 999_999_999)).setDate("d", LocalDate.of(-5, 1, 1))
                .setTimestamp("ts", LocalDateTime.of(1969, 12, 31, 23, 59, 59, 1000))
                .setTimestampWithTimezone("tz", OffsetDateTime.of(2023, 6, 15, 8, 30, 0, 0, ZoneOffset.ofHours(-5)))
                .setGenericRecord("inner", nested)
                .setArrayOfBoolean("ab", new boolean[] {true, false, true, true, false, false, false, false, true})
                .setArrayOfInt8("a8", new byte[] {1, -1}).setArrayOfInt16("a16", new short[] {2})
                .setArrayOfInt32("a32", new int[] {}).setArrayOfInt64("a64", new long[] {5})
                .setArrayOfFloat32("af32", new float[] {Float.NaN}).setArrayOfFloat64("af64", new double[] {1e300})
                .setArrayOfString("as", new String[] {"a", null, ""})
                .setArrayOfDecimal("adec", new BigDecimal[] {BigDecimal.ZERO, null})
                .setArrayOfTime("at", new LocalTime[] {LocalTime.MIDNIGHT})
                .setArrayOfDate("ad", new LocalDate[] {LocalDate.of(2024, 2, 29)})
                .setArrayOfTimestamp("ats", new LocalDateTime[] {null})
                .setArrayOfTimestampWithTimezone("atz", new OffsetDateTime[] {})
                .setArrayOfGenericRecord("ainner", new GenericRecord[] {nested, null, nested})
                .setNullableBoolean("nb", null).setNullableInt8("n8", (byte) 1).setNullableInt16("n16", null)
                .setNullableInt32("n32", 3).setNullableInt64("n64", null).setNullableFloat32("nf32", 2f)
                .setNullableFloat64("nf64", null)
                .setArrayOfNullableBoolean("anb", new Boolean[] {true, null}).setArrayOfNullableInt8("an8", new Byte[] {null})
                .setArrayOfNullableInt16("an16", new Short[] {1}).setArrayOfNullableInt32("an32", new Integer[] {1, null, 3})
                .setArrayOfNullableInt64("an64", null).setArrayOfNullableFloat32("anf32", new Float[] {0.5f, null})
                .setArrayOfNullableFloat64("anf64", new Double[] {})
                .build();
    }

    @Test
    void everyKindRoundTripsAndReadsInPlace() {
        SerializationService s = new SerializationService();
        GenericRecord r = everything();
        Data d = s.toData(r);
        GenericRecord back = s.toObject(d);
        assertEquals(r, back);
        assertEquals("n", back.getGenericRecord("inner").getString("s"));
        assertEquals(3, back.getArrayOfGenericRecord("ainner").length);
        assertNull(back.getArrayOfGenericRecord("ainner")[1]);
        assertEquals(Integer.valueOf(3), back.getNullableInt32("n32"));
        assertEquals(3, back.getInt32("n32"));
        assertThrows(InvalidFieldException.class, () -> back.getInt64("n64"));
        assertArrayEquals(new Integer[] {1, null, 3}, back.getArrayOfNullableInt32("an32"));
        assertThrows(InvalidFieldException.class, () -> back.getArrayOfInt32("an32"));
        assertArrayEquals(new Integer[] {}, back.getArrayOfNullableInt32("a32"));
        assertEquals(LocalDate.of(-5, 1, 1), back.getDate("d"));
        // a decoded record re-serializes to the same bytes, whatever order it was written in
        assertArrayEquals(d.toByteArray(), s.toData(back).toByteArray());
        // and a clone with one change keeps the rest
        GenericRecord changed = back.newBuilderWithClone().setInt32("i32", 8).build();
        assertEquals(8, s.<GenericRecord>toObject(s.toData(changed)).getInt32("i32"));
        assertEquals("héllo", changed.getString("s"));
    }

    @Test
    void withSchemaDataReadsWithoutARegistry() {
        SerializationService writer = new SerializationService();
        GenericRecord r = everything();
        Data d = writer.toDataWithSchema(r);
        assertEquals(SerializationConstants.CONSTANT_TYPE_COMPACT_WITH_SCHEMA, d.getType());
        SerializationService reader = new SerializationService();
        GenericRecord back = reader.toObject(d);
        assertEquals(r, back);
        assertTrue(reader.getSchemaRegistry().get(r.getSchema().getSchemaId()) != null);
        assertArrayEquals(d.toByteArray(), reader.toDataWithSchema(back).toByteArray());
        // the same record without schemas is smaller and different
        assertNotEquals(d, writer.toData(r));
    }

    @Test
    void builderWritesVariableSizeFieldsInSetOrder() {
        SerializationService s = new SerializationService();
        Data ab = s.toData(GenericRecordBuilder.compact("o").setString("a", "x").setString("b", "y").build());
        Data ba = s.toData(GenericRecordBuilder.compact("o").setString("b", "y").setString("a", "x").build());
        assertNotEquals(ab, ba);
        assertEquals(s.<GenericRecord>toObject(ab), s.<GenericRecord>toObject(ba));
        assertThrows(InvalidFieldException.class, () -> GenericRecordBuilder.compact("o").setString("a", "x").setInt32("a", 1));
        GenericRecord proto = s.toObject(ab);
        assertThrows(InvalidFieldException.class, () -> proto.newBuilder().setString("a", "1").build());
        assertThrows(InvalidFieldException.class, () -> proto.newBuilder().setInt32("a", 1));
    }

    @Test
    void offsetWidthFollowsTheDataLength() {
        SerializationService s = new SerializationService();
        for (int len : new int[] {250, 251, 65530, 65531, 70000}) {
            GenericRecord r = GenericRecordBuilder.compact("one").setString("s", "x".repeat(len)).build();
            byte[] b = s.toData(r).toByteArray();
            int dataLength = 4 + len;
            int width = dataLength < 255 ? 1 : dataLength < 65535 ? 2 : 4;
            assertEquals(8 + 8 + 4 + dataLength + width, b.length, "length " + len);
            assertEquals(r, s.toObject(Data.fromByteArray(b)));
        }
    }

    @Test
    void serializersMustWriteConsistentFields() {
        SerializationService s = new SerializationService(new SerializationConfig().addCompactSerializer(new CompactSerializer<StringBuilder>() {
            @Override
            public StringBuilder read(CompactReader reader) {
                return new StringBuilder(reader.readString("a"));
            }

            @Override
            public void write(CompactWriter writer, StringBuilder object) {
                if (object.length() > 0) {
                    writer.writeString("a", object.toString());
                } else {
                    writer.writeInt32("a", 0);
                }
            }

            @Override
            public String getTypeName() {
                return "sb";
            }

            @Override
            public Class<StringBuilder> getCompactClass() {
                return StringBuilder.class;
            }
        }));
        assertEquals("abc", s.<StringBuilder>toObject(s.toData(new StringBuilder("abc"))).toString());
        assertThrows(InvalidFieldException.class, () -> s.toData(new StringBuilder()));
    }

    @Test
    void arraysOfCompactNeedOneSchema() {
        GenericRecord a = GenericRecordBuilder.compact("x").setInt32("v", 1).build();
        GenericRecord b = GenericRecordBuilder.compact("y").setInt32("v", 1).build();
        GenericRecord holder = GenericRecordBuilder.compact("h").setArrayOfGenericRecord("items", new GenericRecord[] {a, b}).build();
        assertThrows(InvalidFieldException.class, () -> new SerializationService().toData(holder));
    }

    @Test
    void cyclesAreReportedNotOverflowed() {
        SerializationService s = new SerializationService(new SerializationConfig().setMaxNestingDepth(50));
        GenericRecord r = GenericRecordBuilder.compact("n").setGenericRecord("next", null).build();
        for (int i = 0; i < 60; i++) {
            r = GenericRecordBuilder.compact("n").setGenericRecord("next", r).build();
        }
        GenericRecord deep = r;
        assertThrows(AtollSerializationException.class, () -> s.toData(deep));
        Data ok = new SerializationService().toData(deep);
        SerializationService shallow = new SerializationService(new SerializationConfig().setMaxNestingDepth(50));
        shallow.getSchemaRegistry().register(deep.getSchema());
        GenericRecord top = shallow.toObject(ok);
        GenericRecord cur = top;
        MalformedDataException e = assertThrows(MalformedDataException.class, () -> {
            GenericRecord c = top;
            while (c != null) {
                c = c.getGenericRecord("next");
            }
        });
        assertTrue(e.getMessage().contains("deeper"));
        assertEquals("n", cur.getTypeName());
    }
}
