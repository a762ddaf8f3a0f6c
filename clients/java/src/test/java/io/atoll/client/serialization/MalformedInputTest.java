package io.atoll.client.serialization;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Hand-made hostile inputs: lengths and offsets that lie. */
class MalformedInputTest {
    private final SerializationService service = new SerializationService();

    private Object decode(String hex) {
        return service.toObject(Data.fromByteArray(CoreTest.hex(hex)));
    }

    @Test
    void hugeLengthsAreCheckedBeforeAllocating() {
        assertThrows(TruncatedDataException.class, () -> decode("00000000fffffff57fffffff41"));
        assertThrows(TruncatedDataException.class, () -> decode("00000000fffffff07fffffff00000001"));
        assertThrows(TruncatedDataException.class, () -> decode("00000000ffffffec7fffffff"));
        assertThrows(MalformedDataException.class, () -> decode("00000000fffffff5fffffffe"));
        assertThrows(TruncatedDataException.class, () -> decode("00000000ffffffeb0000000000000001"));
    }

    @Test
    void compactOffsetsMustStayInTheirSection() {
        Schema s = Schema.of("two", "a", FieldKind.STRING, "b", FieldKind.STRING);
        service.getSchemaRegistry().register(s);
        String id = String.format("%016x", s.getSchemaId());
        // a = "x" at offset 0, b = "y" at offset 5: valid
        String body = "00000001" + "78" + "00000001" + "79";
        GenericRecord ok = (GenericRecord) decode("00000000ffffffc9" + id + "0000000a" + body + "0005");
        assertEquals("y", ok.getString("b"));
        // both offsets point at the same body
        assertThrows(MalformedDataException.class, () -> decode("00000000ffffffc9" + id + "0000000a" + body + "0000"));
        // offset past the data
        assertThrows(MalformedDataException.class, () -> decode("00000000ffffffc9" + id + "0000000a" + body + "000a"));
        // data length larger than the buffer
        assertThrows(TruncatedDataException.class, () -> decode("00000000ffffffc9" + id + "7fffffff" + body + "0005"));
        // string length running into the next body
        GenericRecord lying = (GenericRecord) decode("00000000ffffffc9" + id + "0000000a" + "00000003" + "78" + "00000001" + "79" + "0005");
        assertThrows(TruncatedDataException.class, () -> lying.getString("a"));
    }

    @Test
    void compactArrayCountsAreBounded() {
        Schema s = Schema.of("arr", "a", FieldKind.ARRAY_OF_STRING);
        service.getSchemaRegistry().register(s);
        String id = String.format("%016x", s.getSchemaId());
        GenericRecord r = (GenericRecord) decode("00000000ffffffc9" + id + "00000008" + "00000000" + "7fffffff" + "00");
        assertThrows(TruncatedDataException.class, () -> r.getArrayOfString("a"));
    }

    @Test
    void portablePositionsMustStayInTheBody() {
        // factory 1, class 1, version 0; body at 20: end 44, 1 field, table [36, 0], field "a" INT 7 at 36
        String good = "00000000ffffffff" + "00000001" + "00000001" + "00000000" + "0000002c" + "00000001" + "00000024" + "00000000"
                + "0001" + "61" + "05" + "00000007";
        assertEquals(7, ((GenericRecord) decode(good)).getInt32("a"));
        String inHeader = good.replace("0000002400000000", "0000000c00000000");
        assertThrows(MalformedDataException.class, () -> decode(inHeader));
        String pastEnd = good.replace("0000002c00000001", "0000004c00000001");
        assertThrows(TruncatedDataException.class, () -> decode(pastEnd));
        String unknownType = good.substring(0, good.length() - 10) + "63" + "00000007";
        assertThrows(MalformedDataException.class, () -> decode(unknownType));
    }

    @Test
    void deepNestingIsRefused() {
        IdentifiedLayout l = IdentifiedLayout.builder(1, 1).writeObject("o", 1, 1).build();
        SerializationService w = new SerializationService(new SerializationConfig().addIdentifiedLayout(l));
        GenericRecord r = GenericRecordBuilder.identified(l).setGenericRecord("o", null).build();
        for (int i = 0; i < 20; i++) {
            r = GenericRecordBuilder.identified(l).setGenericRecord("o", r).build();
        }
        byte[] bytes = w.toData(r).toByteArray();
        SerializationService reader = new SerializationService(new SerializationConfig().addIdentifiedLayout(l).setMaxNestingDepth(8));
        assertThrows(MalformedDataException.class, () -> reader.toObject(Data.fromByteArray(bytes)));
        assertEquals(r, w.toObject(Data.fromByteArray(bytes)));
    }

    @Test
    void invalidDatesAreMalformed() {
        Schema s = Schema.of("d", "d", FieldKind.DATE);
        service.getSchemaRegistry().register(s);
        String id = String.format("%016x", s.getSchemaId());
        GenericRecord r = (GenericRecord) decode("00000000ffffffc9" + id + "00000006" + "000007e8" + "0d" + "01" + "00");
        assertThrows(MalformedDataException.class, () -> r.getDate("d"));
    }
}
