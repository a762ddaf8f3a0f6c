package io.atoll.client;

import io.atoll.client.serialization.SerializationConfig;
import io.atoll.client.serialization.bench.CompactSerializers;
import io.atoll.client.serialization.bench.Ids;
import io.atoll.client.serialization.bench.Ports;

/** The benchmark model's serialization setup, shared by the client tests. */
final class TestModel {
    private TestModel() {
    }

    static SerializationConfig serialization() {
        return new SerializationConfig()
                .addCompactSerializer(new CompactSerializers.SmallSerializer())
                .addCompactSerializer(new CompactSerializers.LargeSerializer())
                .addPortableFactory(Ports.FACTORY_ID, new Ports.Factory())
                .addDataSerializableFactory(Ids.FACTORY_ID, new Ids.Factory());
    }
}
