package io.atoll.client.serialization;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoreTest {
    private final SerializationService service = new SerializationService();

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    @Test
    void murmurHashOfPayloadOnly() {
        byte[] key1 = hex("000000056b65792d31");
        assertEquals(2132451398, MurmurHash3.hash32(key1, 0, key1.length));
        Data d = service.toData("key-1");
        assertEquals(2132451398, d.getPartitionHash());
        assertEquals(94, d.getPartitionId(271));
        assertEquals(923237662, service.toData(0).getPartitionHash());
        assertEquals(11, service.getPartitionId(0));
        assertEquals(service.toData(0).getPartitionHash(), service.toData("").getPartitionHash());
    }

    @Test
    void murmurTails() {
        byte[] b = "abcdefg".getBytes(StandardCharsets.US_ASCII);
        int h1 = MurmurHash3.hash32(b, 0, 5, 0);
        int h2 = MurmurHash3.hash32(b, 0, 6, 0);
        int h3 = MurmurHash3.hash32(b, 0, 7, 0);
        assertTrue(h1 != h2 && h2 != h3);
        assertEquals(0, MurmurHash3.hash32(new byte[0], 0, 0, 0));
        assertEquals(0x248bfa47, MurmurHash3.hash32("hello".getBytes(StandardCharsets.US_ASCII), 0, 5, 0));
    }

    @Test
    void partitionIdUsesJavaAbsWithMinValueToZero() {
        assertEquals(0, Partitioning.partitionId(Integer.MIN_VALUE, 271));
        assertEquals(Math.abs(-12345) % 271, Partitioning.partitionId(-12345, 271));
        assertEquals(7 % 5, Partitioning.partitionId(7, 5));
        SerializationService s = new SerializationService(new SerializationConfig().setPartitionCount(7));
        Data d = s.toData("key-1");
        assertEquals(Math.abs(2132451398) % 7, s.getPartitionId(d));
        assertThrows(IllegalArgumentException.class, () -> Partitioning.partitionId(1, 0));
    }

    @Test
    void partitionAwareKeysCarryTheirPartitionKeysHash() {
        class Key implements PartitionAware<String> {
            @Override
            public String getPartitionKey() {
                return "key-1";
            }
        }
        SerializationService s = new SerializationService(new SerializationConfig().addCompactSerializer(new CompactSerializer<Key>() {
            @Override
            public Key read(CompactReader reader) {
                return new Key();
            }

            @Override
            public void write(CompactWriter writer, Key object) {
                writer.writeInt32("x", 1);
            }

            @Override
            public String getTypeName() {
                return "key";
            }

            @Override
            public Class<Key> getCompactClass() {
                return Key.class;
            }
        }));
        Data d = s.toData(new Key());
        assertTrue(d.hasPartitionHash());
        assertEquals(2132451398, d.getPartitionHash());
        assertEquals(94, s.getPartitionId(d));
    }

    @Test
    void builtInsRoundTrip() {
        Object[] values = {(byte) -3, true, 'é', (short) -2, 42, Long.MIN_VALUE, -0.0f, Double.NaN, "héllo 😀", "",
            new byte[] {1, 2}, new boolean[] {true, false}, new char[] {'a', '日'}, new short[] {1, -1}, new int[] {1, 2, 3},
            new long[] {Long.MAX_VALUE}, new float[] {Float.NaN, 1f}, new double[] {0.5}, new String[] {"a", null, "é"},
            UUID.fromString("123e4567-e89b-12d3-a456-426614174000"), new JsonValue("{\"a\":1}")};
        for (Object v : values) {
            Data d = service.toData(v);
            Object back = service.toObject(d);
            assertTrue(java.util.Objects.deepEquals(new Object[] {v}, new Object[] {back}), () -> v + " -> " + back);
        }
        assertNull(service.toData(null));
        assertNull(service.toObject(null));
    }

    @Test
    void floatsAreCanonicalized() {
        float odd = Float.intBitsToFloat(0x7fc00001);
        assertArrayEquals(hex("00000000fffffff77fc00000"), service.toData(odd).toByteArray());
        double oddD = Double.longBitsToDouble(0x7ff8000000000001L);
        assertArrayEquals(hex("00000000fffffff67ff8000000000000"), service.toData(oddD).toByteArray());
        assertArrayEquals(hex("00000000fffffff780000000"), service.toData(-0.0f).toByteArray());
    }

    @Test
    void stringsAreStandardUtf8() {
        assertArrayEquals(hex("00000000fffffff500000004f09f9880"), service.toData("😀").toByteArray());
        assertArrayEquals(hex("00000000fffffff50000000100"), service.toData("\u0000").toByteArray());
        // An unpaired surrogate has no UTF-8 form: Java's encoder would write '?', so "\ud800"
        // and "?" would be one key. It is refused.
        InvalidStringException e = assertThrows(InvalidStringException.class, () -> service.toData("x\ud800"));
        assertEquals(1, e.getIndex());
        assertThrows(InvalidStringException.class, () -> service.toData("\udfff"));
        assertArrayEquals(hex("00000000fffffff50000000500f09f9880"), service.toData("\u0000\ud83d\ude00").toByteArray());
    }

    @Test
    void dataValidatesItsHeader() {
        assertThrows(TruncatedDataException.class, () -> Data.fromByteArray(new byte[7]));
        Data d = Data.fromByteArray(hex("00000000fffffff90000002a"));
        assertEquals(-7, d.getType());
        assertEquals(4, d.dataSize());
        assertFalse(d.hasPartitionHash());
        assertEquals(d, Data.of(0, -7, hex("0000002a")));
        assertThrows(TruncatedDataException.class, () -> service.toObject(Data.fromByteArray(hex("00000000fffffff9000000"))));
        assertThrows(UnknownTypeException.class, () -> service.toObject(Data.fromByteArray(hex("00000000ffffff9c00"))));
    }

    @Test
    void unknownClassesAreRejected() {
        assertThrows(UnknownTypeException.class, () -> service.toData(new Object()));
    }

    @Test
    void schemaIdIsTheRabinFingerprint() {
        Schema s = Schema.of("small", "intField", FieldKind.INT32, "longField", FieldKind.INT64, "doubleField", FieldKind.FLOAT64,
                "stringField", FieldKind.STRING);
        assertEquals(0x1cf9e356336f1f23L, s.getSchemaId());
        assertEquals(20, s.getFixedSizeFieldsLength());
        assertEquals(0, s.getField("doubleField").getOffset());
        assertEquals(8, s.getField("longField").getOffset());
        assertEquals(16, s.getField("intField").getOffset());
        assertEquals(0, s.getField("stringField").getIndex());
        assertThrows(IllegalArgumentException.class, () -> Schema.of("x", "c", FieldKind.CHAR));
    }

    @Test
    void booleansArePackedAfterOtherFixedFields() {
        Schema s = Schema.of("Flags", "level", FieldKind.INT8, "f0", FieldKind.BOOLEAN, "f1", FieldKind.BOOLEAN,
                "f2", FieldKind.BOOLEAN, "f3", FieldKind.BOOLEAN, "f4", FieldKind.BOOLEAN, "f5", FieldKind.BOOLEAN,
                "f6", FieldKind.BOOLEAN, "f7", FieldKind.BOOLEAN, "f8", FieldKind.BOOLEAN, "n", FieldKind.NULLABLE_INT32);
        assertEquals(0, s.getField("level").getOffset());
        assertEquals(1, s.getField("f0").getOffset());
        assertEquals(7, s.getField("f7").getBitOffset());
        assertEquals(2, s.getField("f8").getOffset());
        assertEquals(0, s.getField("f8").getBitOffset());
        assertEquals(3, s.getFixedSizeFieldsLength());
        assertEquals(0, s.getField("n").getIndex());
    }
}
