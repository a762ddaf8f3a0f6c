package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.internal.core.Context;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.CompactSerializer;
import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.Schema;
import io.atoll.client.serialization.SchemaRegistry;
import io.atoll.client.serialization.SerializationConstants;
import io.atoll.client.serialization.UnknownTypeException;
import io.atoll.client.serialization.internal.core.BufferInput;
import io.atoll.client.serialization.internal.core.BufferOutput;
import io.atoll.client.serialization.internal.core.BuiltRecord;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Compact serialization: schemas of registered classes, writing and reading values. */
public final class CompactCodec {
    private final Context service;
    private final Map<Class<?>, CompactSerializer<?>> byClass = new HashMap<>();
    private final Map<String, CompactSerializer<?>> byTypeName = new HashMap<>();
    private final ConcurrentMap<Class<?>, Schema> schemaByClass = new ConcurrentHashMap<>();

    public CompactCodec(Context service, Iterable<CompactSerializer<?>> serializers) {
        this.service = service;
        for (CompactSerializer<?> s : serializers) {
            if (byClass.put(s.getCompactClass(), s) != null) {
                throw new IllegalArgumentException("two compact serializers for " + s.getCompactClass().getName());
            }
            if (byTypeName.put(s.getTypeName(), s) != null) {
                throw new IllegalArgumentException("two compact serializers for type name '" + s.getTypeName() + "'");
            }
        }
    }

    public boolean handles(Class<?> c) {
        return byClass.containsKey(c);
    }

    private SchemaRegistry registry() {
        return service.getSchemaRegistry();
    }

    /** The schema a serializer produces for its class (derived once by a recording write). */
    @SuppressWarnings("unchecked")
    Schema schemaOf(CompactSerializer<?> serializer, Object value) {
        Schema s = schemaByClass.get(value.getClass());
        if (s == null) {
            SchemaBuildingWriter w = new SchemaBuildingWriter(serializer.getTypeName());
            try {
                ((CompactSerializer<Object>) serializer).write(w, value);
            } catch (AtollSerializationException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new AtollSerializationException("compact serializer for '" + serializer.getTypeName() + "' failed", e);
            }
            s = w.build();
            registry().register(s);
            Schema prev = schemaByClass.putIfAbsent(value.getClass(), s);
            if (prev != null) {
                s = prev;
            }
        }
        return s;
    }

    /**
     * Writes schema id [+ embedded schema] + body of a compact value (an object of a
     * registered class or a compact generic record); returns the schema id.
     */
    @SuppressWarnings("unchecked")
    public long writeNested(BufferOutput out, Object value, boolean includeSchema, int depth) {
        service.checkWriteDepth(depth);
        if (value instanceof GenericRecord) {
            GenericRecord r = (GenericRecord) value;
            if (r.getFormat() != GenericRecord.Format.COMPACT) {
                throw new InvalidFieldException("a " + r.getFormat() + " record cannot be written as a compact value");
            }
            Schema schema = r.getSchema();
            if (r instanceof CompactRecord && ((CompactRecord) r).withSchema == includeSchema) {
                CompactRecord cr = (CompactRecord) r;
                out.write(cr.buf, cr.start, cr.end - cr.start);
                return schema.getSchemaId();
            }
            registry().register(schema);
            writeHeader(out, schema, includeSchema);
            DefaultCompactWriter w = new DefaultCompactWriter(this, out, schema, includeSchema, depth);
            Iterable<String> order = r instanceof BuiltRecord ? ((BuiltRecord) r).writeOrder() : r.getFieldNames();
            for (String f : order) {
                w.write(f, r.getFieldKind(f), r.getValue(f));
            }
            w.end();
            return schema.getSchemaId();
        }
        CompactSerializer<Object> serializer = (CompactSerializer<Object>) byClass.get(value.getClass());
        if (serializer == null) {
            throw new UnknownTypeException("no compact serializer registered for " + value.getClass().getName());
        }
        Schema schema = schemaOf(serializer, value);
        writeHeader(out, schema, includeSchema);
        DefaultCompactWriter w = new DefaultCompactWriter(this, out, schema, includeSchema, depth);
        try {
            serializer.write(w, value);
        } catch (AtollSerializationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new AtollSerializationException("compact serializer for '" + serializer.getTypeName() + "' failed", e);
        }
        w.end();
        return schema.getSchemaId();
    }

    /** Schema id, then for type -56 the int size and the schema object. */
    private static void writeHeader(BufferOutput out, Schema schema, boolean includeSchema) {
        out.writeLong(schema.getSchemaId());
        if (!includeSchema) {
            return;
        }
        int sizeAt = out.position();
        out.writeInt(0);
        int begin = out.position();
        out.writeInt(SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE);
        out.writeByte(1);
        out.writeInt(SerializationConstants.SCHEMA_FACTORY_ID);
        out.writeInt(SerializationConstants.SCHEMA_CLASS_ID);
        out.writeString(schema.getTypeName());
        out.writeInt(schema.getFieldCount());
        for (FieldDescriptor f : schema.getFields()) {
            out.writeString(f.getName());
            out.writeInt(f.getKind().getId());
        }
        out.writeIntAt(sizeAt, out.position() - begin);
    }

    /** Parses a schema embedded in type -56 data in {@code [p, limit)} and registers it. */
    Schema readEmbeddedSchema(byte[] buf, int p, int limit, long expectedId) {
        BufferInput in = new BufferInput(service, buf, p, limit, 0);
        int typeId = in.readInt();
        int header = in.readByte();
        int factoryId = in.readInt();
        int classId = in.readInt();
        if (typeId != SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE || header != 1
                || factoryId != SerializationConstants.SCHEMA_FACTORY_ID || classId != SerializationConstants.SCHEMA_CLASS_ID) {
            throw new MalformedDataException("embedded schema at position " + p + " has type " + typeId + ", header " + header
                    + ", factory " + factoryId + ", class " + classId);
        }
        String typeName = in.readString();
        if (typeName == null) {
            throw new MalformedDataException("embedded schema at position " + p + " has a null type name");
        }
        int n = in.readLength(8, "embedded schema fields");
        if (n < 0) {
            throw new MalformedDataException("embedded schema at position " + p + " has a null field list");
        }
        Map<String, FieldKind> fields = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String name = in.readString();
            int kindId = in.readInt();
            FieldKind kind = FieldKind.ofId(kindId);
            if (name == null || kind == null || !kind.isCompactKind()) {
                throw new MalformedDataException("embedded schema field " + i + " at position " + in.pos + " is invalid (name "
                        + name + ", kind id " + kindId + ")");
            }
            if (fields.put(name, kind) != null) {
                throw new MalformedDataException("embedded schema repeats field '" + name + "'");
            }
        }
        if (in.pos != limit) {
            throw new MalformedDataException("embedded schema size does not match its content (" + (limit - in.pos) + " byte(s) left)");
        }
        Schema schema = new Schema(typeName, fields);
        if (schema.getSchemaId() != expectedId) {
            throw new MalformedDataException("embedded schema of '" + typeName + "' has id " + schema.getSchemaId()
                    + " but the data names schema id " + expectedId);
        }
        Schema known = registry().get(expectedId);
        if (known == null) {
            registry().register(schema);
        } else if (!known.equals(schema)) {
            throw new MalformedDataException("embedded schema " + schema + " collides with registered " + known);
        }
        return known == null ? schema : known;
    }

    /** An instance of the class registered for the record's type name, or the record itself. */
    public Object toObject(CompactRecord r) {
        CompactSerializer<?> s = byTypeName.get(r.schema.getTypeName());
        if (s == null) {
            return r;
        }
        try {
            return s.read(new DefaultCompactReader(r));
        } catch (AtollSerializationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new AtollSerializationException("compact serializer for '" + s.getTypeName() + "' failed to read", e);
        }
    }
}
