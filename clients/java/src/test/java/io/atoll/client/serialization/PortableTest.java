package io.atoll.client.serialization;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PortableTest {
    static final int F = 9;

    static final class ItemV1 implements VersionedPortable {
        byte small;
        String name;

        @Override
        public int getFactoryId() {
            return F;
        }

        @Override
        public int getClassId() {
            return 1;
        }

        @Override
        public int getClassVersion() {
            return 1;
        }

        @Override
        public void writePortable(PortableWriter w) throws IOException {
            w.writeByte("small", small);
            w.writeString("name", name);
        }

        @Override
        public void readPortable(PortableReader r) throws IOException {
            small = r.readByte("small");
            name = r.readString("name");
        }
    }

    static final class ItemV2 implements VersionedPortable {
        long small;
        String name;
        String extra = "unset";
        int count = -1;
        int version;

        @Override
        public int getFactoryId() {
            return F;
        }

        @Override
        public int getClassId() {
            return 1;
        }

        @Override
        public int getClassVersion() {
            return 2;
        }

        @Override
        public void writePortable(PortableWriter w) throws IOException {
            w.writeLong("small", small);
            w.writeString("name", name);
            w.writeString("extra", extra);
            w.writeInt("count", count);
        }

        @Override
        public void readPortable(PortableReader r) throws IOException {
            version = r.getVersion();
            small = r.readLong("small");
            name = r.readString("name");
            extra = r.readString("extra");
            count = r.readInt("count");
        }
    }

    static final class Holder implements Portable {
        Portable item;

        @Override
        public int getFactoryId() {
            return F;
        }

        @Override
        public int getClassId() {
            return 2;
        }

        @Override
        public void writePortable(PortableWriter w) throws IOException {
            w.writePortable("item", item);
        }

        @Override
        public void readPortable(PortableReader r) throws IOException {
            item = r.readPortable("item");
        }
    }

    @Test
    void dataOfAnotherVersionReadsByNameWithDefaultsAndWidening() {
        SerializationService w = new SerializationService(new SerializationConfig().addPortableFactory(F, id -> new ItemV1()));
        SerializationService r = new SerializationService(new SerializationConfig().addPortableFactory(F, id -> new ItemV2()));
        ItemV1 v1 = new ItemV1();
        v1.small = -7;
        v1.name = "n";
        ItemV2 v2 = r.toObject(w.toData(v1));
        assertEquals(1, v2.version);
        assertEquals(-7L, v2.small);
        assertEquals("n", v2.name);
        assertNull(v2.extra);
        assertEquals(0, v2.count);
    }

    @Test
    void sameVersionIsStrict() {
        SerializationService s = new SerializationService(new SerializationConfig().addPortableFactory(F, id -> new ItemV1()));
        ItemV1 v1 = new ItemV1();
        v1.name = "n";
        Data d = s.toData(v1);
        SerializationService strict = new SerializationService(new SerializationConfig().addPortableFactory(F, id -> new VersionedPortable() {
            @Override
            public int getClassVersion() {
                return 1;
            }

            @Override
            public int getFactoryId() {
                return F;
            }

            @Override
            public int getClassId() {
                return 1;
            }

            @Override
            public void writePortable(PortableWriter writer) {
            }

            @Override
            public void readPortable(PortableReader reader) {
                reader.readInt("missing");
            }
        }));
        assertThrows(InvalidFieldException.class, () -> strict.toObject(d));
    }

    @Test
    void nullNestedPortableNeedsARegisteredClassDefinition() {
        SerializationService s = new SerializationService(new SerializationConfig().addPortableFactory(F, id -> id == 1 ? new ItemV1() : new Holder()));
        Holder h = new Holder();
        assertThrows(InvalidFieldException.class, () -> s.toData(h));
        ClassDefinition item = new ClassDefinitionBuilder(F, 1, 1).addByteField("small").addStringField("name").build();
        ClassDefinition holder = new ClassDefinitionBuilder(F, 2).addPortableField("item", item).build();
        SerializationService s2 = new SerializationService(new SerializationConfig().addClassDefinition(holder)
                .addPortableFactory(F, id -> id == 1 ? new ItemV1() : new Holder()));
        Holder back = s2.toObject(s2.toData(h));
        assertNull(back.item);
        ItemV1 i = new ItemV1();
        i.name = "x";
        h.item = i;
        Holder back2 = s2.toObject(s2.toData(h));
        assertEquals("x", ((ItemV1) back2.item).name);
    }

    @Test
    void genericPortableRecordsRoundTrip() {
        ClassDefinition inner = new ClassDefinitionBuilder(F, 3).addIntField("v").build();
        ClassDefinition cd = new ClassDefinitionBuilder(F, 4)
                .addCharField("c").addCharArrayField("cs").addDecimalField("dec").addTimeField("t").addDateField("d")
                .addTimestampField("ts").addTimestampWithTimezoneField("tz").addDateArrayField("ds").addDecimalArrayField("decs")
                .addPortableField("in", inner).addPortableArrayField("ins", inner).addStringArrayField("ss").build();
        GenericRecord in1 = GenericRecordBuilder.portable(inner).setInt32("v", 1).build();
        GenericRecord in2 = GenericRecordBuilder.portable(inner).setInt32("v", 2).build();
        GenericRecord r = GenericRecordBuilder.portable(cd)
                .setChar("c", 'é').setArrayOfChar("cs", new char[] {'a', '\ud83d'}).setDecimal("dec", new BigDecimal("1.5"))
                .setTime("t", LocalTime.of(1, 2, 3, 4)).setDate("d", LocalDate.of(2024, 2, 29))
                .setTimestamp("ts", LocalDateTime.of(2000, 1, 1, 0, 0)).setTimestampWithTimezone("tz",
                        OffsetDateTime.of(2023, 6, 15, 8, 30, 0, 0, ZoneOffset.ofHours(2)))
                .setArrayOfDate("ds", new LocalDate[] {LocalDate.of(1999, 12, 31)}).setArrayOfDecimal("decs", null)
                .setGenericRecord("in", in1).setArrayOfGenericRecord("ins", new GenericRecord[] {in1, in2})
                .setArrayOfString("ss", new String[] {null, "x"})
                .build();
        SerializationService s = new SerializationService();
        Data d = s.toData(r);
        GenericRecord back = s.toObject(d);
        assertEquals(r, back);
        assertEquals('é', back.getChar("c"));
        assertEquals(2, back.getArrayOfGenericRecord("ins")[1].getInt32("v"));
        assertEquals(cd, back.getClassDefinition());
        assertArrayEquals(d.toByteArray(), s.toData(back).toByteArray());
        assertThrows(InvalidFieldException.class, () -> GenericRecordBuilder.portable(cd).setInt32("c", 1));
        assertThrows(InvalidFieldException.class, () -> GenericRecordBuilder.portable(inner).build());
        GenericRecord far = GenericRecordBuilder.portable(new ClassDefinitionBuilder(F, 5).addDateField("d").build())
                .setDate("d", LocalDate.of(40000, 1, 1)).build();
        assertThrows(AtollSerializationException.class, () -> s.toData(far));
    }

    @Test
    void portablesNestedInIdentifiedDataUseAbsolutePositions() {
        IdentifiedLayout layout = IdentifiedLayout.builder(7, 1).writeString("s").writeObject("p", FieldKind.PORTABLE).build();
        ClassDefinition inner = new ClassDefinitionBuilder(F, 3).addIntField("v").addStringField("w").build();
        SerializationService s = new SerializationService(new SerializationConfig().addIdentifiedLayout(layout));
        GenericRecord p = GenericRecordBuilder.portable(inner).setInt32("v", 5).setString("w", "q").build();
        GenericRecord outer = GenericRecordBuilder.identified(layout).setString("s", "pad-the-position").setGenericRecord("p", p).build();
        GenericRecord back = s.toObject(s.toData(outer));
        assertEquals(5, back.getGenericRecord("p").getInt32("v"));
        assertEquals("q", back.getGenericRecord("p").getString("w"));
    }
}
