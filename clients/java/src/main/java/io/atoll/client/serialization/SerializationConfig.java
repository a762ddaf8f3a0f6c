package io.atoll.client.serialization;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link SerializationService} knows: compact serializers, portable factories
 * and class definitions, identified factories and layouts, the partition count. A
 * config is read once when the service is created; later changes do not affect it.
 */
public final class SerializationConfig {
    /** Default limit of nested objects inside one value. */
    public static final int DEFAULT_MAX_NESTING_DEPTH = 256;

    private final List<CompactSerializer<?>> compactSerializers = new ArrayList<>();
    private final Map<Integer, PortableFactory> portableFactories = new HashMap<>();
    private final List<ClassDefinition> classDefinitions = new ArrayList<>();
    private int portableVersion;
    private final Map<Integer, DataSerializableFactory> dataSerializableFactories = new HashMap<>();
    private final List<IdentifiedLayout> identifiedLayouts = new ArrayList<>();
    private int partitionCount = Partitioning.DEFAULT_PARTITION_COUNT;
    private int maxNestingDepth = DEFAULT_MAX_NESTING_DEPTH;
    private SchemaRegistry schemaRegistry;

    /** Registers a compact serializer for its class and type name. */
    public SerializationConfig addCompactSerializer(CompactSerializer<?> serializer) {
        compactSerializers.add(Objects.requireNonNull(serializer, "serializer"));
        return this;
    }

    public SerializationConfig addPortableFactory(int factoryId, PortableFactory factory) {
        if (portableFactories.putIfAbsent(factoryId, Objects.requireNonNull(factory, "factory")) != null) {
            throw new IllegalArgumentException("a PortableFactory is already registered for factory id " + factoryId);
        }
        return this;
    }

    /** Registers a class definition (and the nested ones given to its builder). */
    public SerializationConfig addClassDefinition(ClassDefinition classDefinition) {
        classDefinitions.add(Objects.requireNonNull(classDefinition, "classDefinition"));
        return this;
    }

    /** Version of Portable classes that do not implement {@link VersionedPortable} (default 0). */
    public SerializationConfig setPortableVersion(int portableVersion) {
        if (portableVersion < 0) {
            throw new IllegalArgumentException("portable version must be >= 0");
        }
        this.portableVersion = portableVersion;
        return this;
    }

    public SerializationConfig addDataSerializableFactory(int factoryId, DataSerializableFactory factory) {
        if (dataSerializableFactories.putIfAbsent(factoryId, Objects.requireNonNull(factory, "factory")) != null) {
            throw new IllegalArgumentException("a DataSerializableFactory is already registered for factory id " + factoryId);
        }
        return this;
    }

    /** Registers a layout so identified values of its class can be read and written without the class. */
    public SerializationConfig addIdentifiedLayout(IdentifiedLayout layout) {
        identifiedLayouts.add(Objects.requireNonNull(layout, "layout"));
        return this;
    }

    /** Number of partitions of the cluster (default 271). */
    public SerializationConfig setPartitionCount(int partitionCount) {
        if (partitionCount <= 0) {
            throw new IllegalArgumentException("partition count must be positive");
        }
        this.partitionCount = partitionCount;
        return this;
    }

    /** Deepest nesting of objects accepted when reading or writing one value (default 256). */
    public SerializationConfig setMaxNestingDepth(int maxNestingDepth) {
        if (maxNestingDepth < 1) {
            throw new IllegalArgumentException("max nesting depth must be >= 1");
        }
        this.maxNestingDepth = maxNestingDepth;
        return this;
    }

    /** Uses an existing schema registry (for example one shared with a client); a new one by default. */
    public SerializationConfig setSchemaRegistry(SchemaRegistry schemaRegistry) {
        this.schemaRegistry = schemaRegistry;
        return this;
    }

    public List<CompactSerializer<?>> getCompactSerializers() {
        return Collections.unmodifiableList(compactSerializers);
    }

    public Map<Integer, PortableFactory> getPortableFactories() {
        return Collections.unmodifiableMap(portableFactories);
    }

    public List<ClassDefinition> getClassDefinitions() {
        return Collections.unmodifiableList(classDefinitions);
    }

    public int getPortableVersion() {
        return portableVersion;
    }

    public Map<Integer, DataSerializableFactory> getDataSerializableFactories() {
        return Collections.unmodifiableMap(dataSerializableFactories);
    }

    public List<IdentifiedLayout> getIdentifiedLayouts() {
        return Collections.unmodifiableList(identifiedLayouts);
    }

    public int getPartitionCount() {
        return partitionCount;
    }

    public int getMaxNestingDepth() {
        return maxNestingDepth;
    }

    public SchemaRegistry getSchemaRegistry() {
        return schemaRegistry;
    }
}
