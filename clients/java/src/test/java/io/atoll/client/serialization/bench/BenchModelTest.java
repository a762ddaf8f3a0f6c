package io.atoll.client.serialization.bench;

import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.GenericRecordBuilder;
import io.atoll.client.serialization.JsonValue;
import io.atoll.client.serialization.SerializationConfig;
import io.atoll.client.serialization.SerializationService;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The benchmark's model written as ordinary user classes (explicit compact serializers,
 * Portable classes, IdentifiedDataSerializable classes) reproduces the vectors of the
 * values the benchmark stores, and reads them back.
 */
class BenchModelTest {
    private final SerializationService service = new SerializationService(new SerializationConfig()
            .addCompactSerializer(new CompactSerializers.SmallSerializer())
            .addCompactSerializer(new CompactSerializers.LargeSerializer())
            .addPortableFactory(Ports.FACTORY_ID, new Ports.Factory())
            .addDataSerializableFactory(Ids.FACTORY_ID, new Ids.Factory()));

    /**
     * Compact data names only a schema id: a reader knows the schema once this client
     * wrote a value of the class (or fetched the schema from the cluster).
     */
    @BeforeEach
    void learnSchemas() {
        service.toData(Gen.largeForKey(0));
    }

    private void assertBytes(String vector, Object value) {
        Data d = service.toData(value);
        assertArrayEquals(TestVectors.bytes(vector), d.toByteArray(), vector);
        assertEquals(TestVectors.bytes(vector).length, d.totalSize());
    }

    @Test
    void compactSmallKey1() {
        assertBytes("compact_small_bench_key1", Gen.smallForKey(1));
    }

    @Test
    void compactSmallKey1000() {
        assertBytes("compact_small_bench_key1000", Gen.smallForKey(1000));
    }

    @Test
    void compactLargeKey1() {
        assertBytes("compact_large_bench_key1", Gen.largeForKey(1));
    }

    @Test
    void portableLargeKey1() {
        assertBytes("portable_large_bench_key1", new Ports.PLarge(Gen.largeForKey(1)));
    }

    @Test
    void identifiedLargeKey1() {
        assertBytes("identified_large_bench_key1", new Ids.IdsLarge(Gen.largeForKey(1)));
    }

    @Test
    void queryDocumentKey1() {
        assertBytes("identified_adoc_key1", new Ids.ADoc(1));
        assertBytes("portable_adoc_key1", new Ports.PADoc(1));
        StringBuilder json = new StringBuilder("{\"value\":1,\"payload\":[");
        int[] p = Gen.aPayload(1);
        for (int i = 0; i < p.length; i++) {
            json.append(i > 0 ? "," : "").append(p[i]);
        }
        assertBytes("json_adoc_key1", new JsonValue(json.append("]}").toString()));
        GenericRecord adoc = GenericRecordBuilder.compact("adoc")
                .setArrayOfInt32("payload", Gen.aPayload(1))
                .setInt64("value", 1L)
                .build();
        assertBytes("compact_adoc_key1", adoc);
    }

    @Test
    void compactVectorsReadIntoUserClasses() {
        Large expected = Gen.largeForKey(1);
        Large l = service.toObject(Data.fromByteArray(TestVectors.bytes("compact_large_bench_key1")));
        assertLarge(expected, l);
        Small s = service.toObject(Data.fromByteArray(TestVectors.bytes("compact_small_bench_key1000")));
        assertEquals("metin", s.stringField);
        assertEquals(Gen.smallForKey(1000).longField, s.longField);
    }

    @Test
    void schemaOrderedBytesReadAndRewriteInDeclarationOrder() {
        Large fromSchemaOrder = service.toObject(Data.fromByteArray(TestVectors.bytes("compact_large_basic_schema_order")));
        Large fromDeclOrder = service.toObject(Data.fromByteArray(TestVectors.bytes("compact_large_basic")));
        assertLarge(fromDeclOrder, fromSchemaOrder);
        assertArrayEquals(TestVectors.bytes("compact_large_basic"), service.toData(fromSchemaOrder).toByteArray());
    }

    @Test
    void portableAndIdentifiedVectorsReadIntoUserClasses() {
        Large expected = Gen.largeForKey(1);
        Ports.PLarge p = service.toObject(Data.fromByteArray(TestVectors.bytes("portable_large_bench_key1")));
        assertEquals(expected.longField, p.longField);
        assertEquals(expected.smallArray[2].stringField, p.smallArray[2].stringField);
        assertArrayEquals(expected.doubleArray, p.doubleArray);
        Ids.IdsLarge i = service.toObject(Data.fromByteArray(TestVectors.bytes("identified_large_bench_key1")));
        assertEquals(expected.small.intField, i.small.intField);
        assertArrayEquals(expected.stringArray, i.stringArray);
        Ids.ADoc a = service.toObject(Data.fromByteArray(TestVectors.bytes("identified_adoc_key1")));
        assertArrayEquals(Gen.aPayload(1), a.payload);
    }

    @Test
    void genericRecordsReadTheSameBytesWithoutClasses() {
        SerializationService plain = new SerializationService(new SerializationConfig()
                .setSchemaRegistry(service.getSchemaRegistry()));
        service.toData(Gen.largeForKey(1));
        GenericRecord r = plain.toObject(Data.fromByteArray(TestVectors.bytes("compact_large_bench_key1")));
        Large expected = Gen.largeForKey(1);
        assertEquals(expected.intField, r.getInt32("intField"));
        assertEquals(expected.small.stringField, r.getGenericRecord("small").getString("stringField"));
        assertEquals(expected.smallArray[1].longField, r.getArrayOfGenericRecord("smallArray")[1].getInt64("longField"));
        GenericRecord p = plain.toObject(Data.fromByteArray(TestVectors.bytes("portable_large_bench_key1")));
        assertInstanceOf(GenericRecord.class, p);
        assertEquals(expected.shortField, p.getInt16("shortField"));
        assertEquals(expected.smallArray[0].doubleField, p.getArrayOfGenericRecord("smallArray")[0].getFloat64("doubleField"));
    }

    static void assertLarge(Large a, Large b) {
        assertEquals(a.booleanField, b.booleanField);
        assertArrayEquals(a.booleanArray, b.booleanArray);
        assertEquals(a.byteField, b.byteField);
        assertArrayEquals(a.byteArray, b.byteArray);
        assertEquals(a.shortField, b.shortField);
        assertArrayEquals(a.shortArray, b.shortArray);
        assertEquals(a.intField, b.intField);
        assertArrayEquals(a.intArray, b.intArray);
        assertEquals(a.longField, b.longField);
        assertArrayEquals(a.longArray, b.longArray);
        assertEquals(Float.floatToIntBits(a.floatField), Float.floatToIntBits(b.floatField));
        assertArrayEquals(a.floatArray, b.floatArray);
        assertEquals(Double.doubleToLongBits(a.doubleField), Double.doubleToLongBits(b.doubleField));
        assertArrayEquals(a.doubleArray, b.doubleArray);
        assertEquals(a.stringField, b.stringField);
        assertArrayEquals(a.stringArray, b.stringArray);
        assertSmall(a.small, b.small);
        assertEquals(a.smallArray.length, b.smallArray.length);
        for (int i = 0; i < a.smallArray.length; i++) {
            assertSmall(a.smallArray[i], b.smallArray[i]);
        }
    }

    static void assertSmall(Small a, Small b) {
        assertEquals(a.intField, b.intField);
        assertEquals(a.longField, b.longField);
        assertEquals(Double.doubleToLongBits(a.doubleField), Double.doubleToLongBits(b.doubleField));
        assertEquals(a.stringField, b.stringField, () -> Arrays.toString(new Object[] {a, b}));
    }
}
