package io.atoll.client.serialization;

import io.atoll.client.serialization.internal.compact.CompactCodec;
import io.atoll.client.serialization.internal.compact.CompactRecord;
import io.atoll.client.serialization.internal.core.BufferInput;
import io.atoll.client.serialization.internal.core.BufferOutput;
import io.atoll.client.serialization.internal.core.Builtins;
import io.atoll.client.serialization.internal.core.Context;
import io.atoll.client.serialization.internal.identified.IdentifiedCodec;
import io.atoll.client.serialization.internal.portable.PortableCodec;

import java.util.Collection;
import java.util.function.Consumer;

/**
 * Turns objects into {@link Data} and back, byte-compatible with Hazelcast 5 defaults
 * (big-endian, no compression). Handles, in this order: generic records, classes with a
 * registered {@link CompactSerializer}, {@link IdentifiedDataSerializable},
 * {@link Portable}, and the built-in types (boxed primitives, String, UUID,
 * {@link JsonValue}, primitive arrays and String[]). Values whose class is not
 * registered decode to {@link GenericRecord}s. Thread-safe once constructed.
 */
public final class SerializationService {
    private final SchemaRegistry schemaRegistry;
    private final Context context = new ServiceContext();
    private final CompactCodec compact;
    private final PortableCodec portable;
    private final IdentifiedCodec identified;
    private final int partitionCount;
    private final int maxDepth;

    public SerializationService() {
        this(new SerializationConfig());
    }

    public SerializationService(SerializationConfig config) {
        this.schemaRegistry = config.getSchemaRegistry() != null ? config.getSchemaRegistry() : new SchemaRegistry();
        this.compact = new CompactCodec(context, config.getCompactSerializers());
        this.portable = new PortableCodec(context, config.getPortableFactories(), config.getClassDefinitions(), config.getPortableVersion());
        this.identified = new IdentifiedCodec(context, config.getDataSerializableFactories(), config.getIdentifiedLayouts());
        this.partitionCount = config.getPartitionCount();
        this.maxDepth = config.getMaxNestingDepth();
    }

    public SchemaRegistry getSchemaRegistry() {
        return schemaRegistry;
    }

    public int getPartitionCount() {
        return partitionCount;
    }

    /**
     * Calls {@code listener} for every Portable class definition registered or derived from
     * now on (nested definitions included), so that a client can publish it to the cluster
     * before it sends data that uses it. {@link #getClassDefinitions()} lists the earlier ones.
     */
    public void addClassDefinitionListener(Consumer<ClassDefinition> listener) {
        portable.addListener(listener);
    }

    /** A snapshot of every Portable class definition known: registered, derived or read. */
    public Collection<ClassDefinition> getClassDefinitions() {
        return portable.all();
    }

    /** Registers a class definition (and the nested ones it carries) after construction. */
    public void registerClassDefinition(ClassDefinition classDefinition) {
        portable.register(classDefinition);
    }

    /**
     * Registers a layout after construction, so that identified values of its class can be
     * read and written without the class.
     *
     * @return true if the layout was new
     * @throws IllegalArgumentException if another layout is registered for the same ids
     */
    public boolean registerIdentifiedLayout(IdentifiedLayout layout) {
        return identified.register(layout);
    }

    /** A snapshot of every registered identified layout. */
    public Collection<IdentifiedLayout> getIdentifiedLayouts() {
        return identified.all();
    }

    /** The class definition registered or derived for (factory id, class id, version), or null. */
    public ClassDefinition lookupClassDefinition(int factoryId, int classId, int version) {
        return portable.lookup(factoryId, classId, version);
    }

    /**
     * Serializes a value; compact values carry only their schema id (type -55), and their
     * schemas are registered in {@link #getSchemaRegistry()}. Returns null for null.
     *
     * @throws UnknownTypeException if nothing can serialize the value's class
     */
    public Data toData(Object obj) {
        return toData(obj, false);
    }

    /**
     * Like {@link #toData} but a compact value embeds its schema and the schemas of its
     * nested compact fields (type -56), so it can be read without a schema registry.
     * Other values are serialized as by {@link #toData}.
     */
    public Data toDataWithSchema(Object obj) {
        return toData(obj, true);
    }

    private Data toData(Object obj, boolean includeSchema) {
        if (obj == null) {
            return null;
        }
        if (obj instanceof Data) {
            return (Data) obj;
        }
        BufferOutput out = new BufferOutput(context, 64);
        out.includeSchema = includeSchema;
        out.writeInt(0);
        out.writeInt(0);
        int typeId = writePayload(out, obj);
        out.writeIntAt(Data.TYPE_OFFSET, typeId);
        if (obj instanceof PartitionAware) {
            Object key = ((PartitionAware<?>) obj).getPartitionKey();
            if (key == null) {
                throw new AtollSerializationException("PartitionAware " + obj.getClass().getName() + " returned a null partition key");
            }
            out.writeIntAt(0, toData(key, false).getPartitionHash());
        }
        return new Data(out.toByteArray());
    }

    /**
     * Deserializes: registered classes become their instances, other compact / portable /
     * identified values become {@link GenericRecord}s (identified ones need a layout).
     * Returns null for null.
     *
     * @throws AtollSerializationException (a subclass naming the problem) for bytes that cannot be decoded
     */
    @SuppressWarnings("unchecked")
    public <T> T toObject(Data data) {
        if (data == null) {
            return null;
        }
        return (T) read(data, false);
    }

    /**
     * Reads a compact, portable or identified value as a {@link GenericRecord} whatever
     * classes are registered (identified values need a layout).
     */
    public GenericRecord toGenericRecord(Data data) {
        Object o = read(data, true);
        if (!(o instanceof GenericRecord)) {
            throw new AtollSerializationException("type " + data.getType() + " is not a compact, portable or identified value");
        }
        return (GenericRecord) o;
    }

    /** Like {@link #toObject} but compact, portable and identified values always become generic records. */
    public Object toGenericObject(Data data) {
        return data == null ? null : read(data, true);
    }

    private Object read(Data data, boolean generic) {
        byte[] b = data.bytes();
        BufferInput in = new BufferInput(context, b, Data.HEADER_SIZE, b.length, 0);
        in.generic = generic;
        return readPayload(in, data.getType());
    }

    /** Partition id of a serialized key. */
    public int getPartitionId(Data key) {
        return key.getPartitionId(partitionCount);
    }

    /** Partition id of a key object (serialized first). */
    public int getPartitionId(Object key) {
        return toData(key).getPartitionId(partitionCount);
    }

    // ---- internals shared by the codecs ----

    /** The service as the format codecs see it. */
    private final class ServiceContext implements Context {
        @Override
        public SchemaRegistry getSchemaRegistry() {
            return schemaRegistry;
        }

        @Override
        public void checkDepth(int depth) {
            SerializationService.this.checkDepth(depth);
        }

        @Override
        public void checkWriteDepth(int depth) {
            SerializationService.this.checkWriteDepth(depth);
        }

        @Override
        public CompactCodec compact() {
            return compact;
        }

        @Override
        public void writeObject(BufferOutput out, Object obj) {
            SerializationService.this.writeObject(out, obj);
        }

        @Override
        public Object readObject(BufferInput in) {
            return SerializationService.this.readObject(in);
        }
    }

    void checkDepth(int depth) {
        if (depth > maxDepth) {
            throw new MalformedDataException("objects nested deeper than " + maxDepth + " levels");
        }
    }

    void checkWriteDepth(int depth) {
        if (depth > maxDepth) {
            throw new AtollSerializationException("objects nested deeper than " + maxDepth + " levels (a cycle?)");
        }
    }

    /** A nested object: int type id + payload, or int 0 for null. */
    void writeObject(BufferOutput out, Object obj) {
        if (obj == null) {
            out.writeInt(SerializationConstants.CONSTANT_TYPE_NULL);
            return;
        }
        int at = out.position();
        out.writeInt(0);
        out.depth++;
        checkWriteDepth(out.depth);
        // As in Hazelcast, toDataWithSchema embeds schemas only in a top-level compact value
        // and its compact fields; objects written with writeObject use type -55.
        boolean includeSchema = out.includeSchema;
        out.includeSchema = false;
        try {
            out.writeIntAt(at, writePayload(out, obj));
        } finally {
            out.depth--;
            out.includeSchema = includeSchema;
        }
    }

    /** Writes the payload of {@code obj} and returns its type id. */
    private int writePayload(BufferOutput out, Object obj) {
        if (obj instanceof GenericRecord) {
            GenericRecord r = (GenericRecord) obj;
            switch (r.getFormat()) {
                case COMPACT:
                    compact.writeNested(out, r, out.includeSchema, out.depth);
                    return compactTypeId(out);
                case PORTABLE:
                    portable.writeTopLevel(out, r, out.depth);
                    return SerializationConstants.CONSTANT_TYPE_PORTABLE;
                default:
                    identified.writeRecord(out, r);
                    return SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE;
            }
        }
        if (compact.handles(obj.getClass())) {
            compact.writeNested(out, obj, out.includeSchema, out.depth);
            return compactTypeId(out);
        }
        if (obj instanceof IdentifiedDataSerializable) {
            identified.write(out, (IdentifiedDataSerializable) obj);
            return SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE;
        }
        if (obj instanceof Portable) {
            portable.writeTopLevel(out, obj, out.depth);
            return SerializationConstants.CONSTANT_TYPE_PORTABLE;
        }
        int typeId = Builtins.typeIdOf(obj);
        if (typeId == 0) {
            throw new UnknownTypeException("no serializer for " + obj.getClass().getName()
                    + ": register a CompactSerializer, implement Portable or IdentifiedDataSerializable, or use a GenericRecord");
        }
        Builtins.write(out, typeId, obj);
        return typeId;
    }

    private static int compactTypeId(BufferOutput out) {
        return out.includeSchema ? SerializationConstants.CONSTANT_TYPE_COMPACT_WITH_SCHEMA : SerializationConstants.CONSTANT_TYPE_COMPACT;
    }

    /** Reads a nested object written by {@link #writeObject}. */
    Object readObject(BufferInput in) {
        int typeId = in.readInt();
        if (typeId == SerializationConstants.CONSTANT_TYPE_NULL) {
            return null;
        }
        in.depth++;
        checkDepth(in.depth);
        try {
            return readPayload(in, typeId);
        } finally {
            in.depth--;
        }
    }

    private Object readPayload(BufferInput in, int typeId) {
        switch (typeId) {
            case SerializationConstants.CONSTANT_TYPE_COMPACT:
            case SerializationConstants.CONSTANT_TYPE_COMPACT_WITH_SCHEMA: {
                CompactRecord r = CompactRecord.parse(context, in.buf, in.pos, in.limit,
                        typeId == SerializationConstants.CONSTANT_TYPE_COMPACT_WITH_SCHEMA, in.depth);
                in.position(r.end);
                return in.generic ? r : compact.toObject(r);
            }
            case SerializationConstants.CONSTANT_TYPE_PORTABLE:
                return portable.read(in, in.generic);
            case SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE:
                return identified.read(in, in.generic);
            default:
                if (Builtins.isBuiltin(typeId)) {
                    return Builtins.read(in, typeId);
                }
                throw new UnknownTypeException("unsupported serializer type id " + typeId
                        + (typeId == SerializationConstants.JAVA_DEFAULT_TYPE_SERIALIZABLE
                        || typeId == SerializationConstants.JAVA_DEFAULT_TYPE_EXTERNALIZABLE ? " (Java serialization)" : ""));
        }
    }
}
