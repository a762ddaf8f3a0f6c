package io.atoll.bench.hazelcast.model;

import com.hazelcast.config.SerializationConfig;

/** Registers the benchmark objects' serializers, the same on members and the client. */
public final class Model {
    private Model() {
    }

    public static SerializationConfig register(SerializationConfig config) {
        config.addDataSerializableFactory(IdentifiedModel.FACTORY_ID, new IdentifiedModel.Factory());
        config.addPortableFactory(PortableModel.FACTORY_ID, new PortableModel.Factory());
        config.getCompactSerializationConfig()
                .addSerializer(new CompactModel.SmallSerializer())
                .addSerializer(new CompactModel.LargeSerializer());
        return config;
    }
}
