package io.atoll.client;

import io.atoll.client.proto.ClassField;
import io.atoll.client.proto.GetLayoutRequest;
import io.atoll.client.proto.GetSchemaRequest;
import io.atoll.client.proto.Layout;
import io.atoll.client.proto.LayoutField;
import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PutClassDefinitionsRequest;
import io.atoll.client.proto.PutLayoutsRequest;
import io.atoll.client.proto.PutSchemasRequest;
import io.atoll.client.proto.SchemaField;
import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.Schema;
import io.atoll.client.serialization.UnknownLayoutException;
import io.atoll.client.serialization.UnknownSchemaException;
import io.atoll.client.serialization.UnknownTypeException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Publishes the Compact schemas and Portable class definitions the client's serialization
 * learns, before data that needs them is written, and fetches the schemas and layouts it
 * meets in data it reads (metadata.go of the Go client).
 */
final class MetadataSync {
    /** Bounds the metadata fetched to decode one value. */
    private static final int MAX_FETCHES = 32;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final AtollClient client;
    private final Set<Long> published = ConcurrentHashMap.newKeySet();
    private final Set<String> publishedClasses = ConcurrentHashMap.newKeySet();
    private List<Schema> pendingSchemas = new ArrayList<>();           // guarded by this
    private List<ClassDefinition> pendingClasses = new ArrayList<>();  // guarded by this
    private volatile boolean hasPending;
    private volatile CompletableFuture<Void> inFlight = DONE;

    MetadataSync(AtollClient client) {
        this.client = client;
        client.serialization.getSchemaRegistry().addListener(this::schemaAdded);
        client.serialization.addClassDefinitionListener(this::classAdded);
        for (Schema s : client.serialization.getSchemaRegistry().all()) {
            schemaAdded(s);
        }
        for (ClassDefinition cd : client.serialization.getClassDefinitions()) {
            classAdded(cd);
        }
    }

    private synchronized void schemaAdded(Schema s) {
        if (!published.contains(s.getSchemaId())) {
            pendingSchemas.add(s);
            hasPending = true;
        }
    }

    private synchronized void classAdded(ClassDefinition cd) {
        if (!publishedClasses.contains(classKey(cd))) {
            pendingClasses.add(cd);
            hasPending = true;
        }
    }

    private static String classKey(ClassDefinition cd) {
        return cd.getFactoryId() + ":" + cd.getClassId() + ":" + cd.getVersion();
    }

    /**
     * Publishes pending metadata; writers call it after serializing and before sending. It
     * costs two volatile reads when nothing is pending. Concurrent writers wait for the
     * publication in flight, so that no data overtakes its schema.
     */
    CompletableFuture<Void> flush() {
        if (!hasPending && inFlight.isDone()) {
            return DONE;
        }
        synchronized (this) {
            CompletableFuture<Void> current = inFlight;
            if (!current.isDone()) {
                return current.handle((v, e) -> null).thenCompose(v -> flush());
            }
            if (!hasPending) {
                return DONE;
            }
            List<Schema> schemas = pendingSchemas;
            List<ClassDefinition> classes = pendingClasses;
            pendingSchemas = new ArrayList<>();
            pendingClasses = new ArrayList<>();
            hasPending = false;
            CompletableFuture<Void> sent = send(schemas, classes).whenComplete((v, e) -> {
                if (e != null) {
                    requeue(schemas, classes);
                } else {
                    for (Schema s : schemas) {
                        published.add(s.getSchemaId());
                    }
                    for (ClassDefinition cd : classes) {
                        publishedClasses.add(classKey(cd));
                    }
                }
            });
            inFlight = sent;
            return sent;
        }
    }

    private synchronized void requeue(List<Schema> schemas, List<ClassDefinition> classes) {
        schemas.addAll(pendingSchemas);
        classes.addAll(pendingClasses);
        pendingSchemas = schemas;
        pendingClasses = classes;
        hasPending = true;
    }

    private CompletableFuture<Void> send(List<Schema> schemas, List<ClassDefinition> classes) {
        CompletableFuture<Void> f = DONE;
        if (!schemas.isEmpty()) {
            PutSchemasRequest.Builder req = PutSchemasRequest.newBuilder();
            for (Schema s : schemas) {
                req.addSchemas(toProto(s));
            }
            f = Invocation.onPartition(client, -1, true, PipelineRequest.newBuilder().setPutSchemas(req).build()).thenApply(r -> null);
        }
        if (!classes.isEmpty()) {
            PutClassDefinitionsRequest.Builder req = PutClassDefinitionsRequest.newBuilder();
            for (ClassDefinition cd : classes) {
                req.addDefinitions(toProto(cd));
            }
            PipelineRequest pr = PipelineRequest.newBuilder().setPutClassDefinitions(req).build();
            f = f.thenCompose(v -> Invocation.onPartition(client, -1, true, pr)).thenApply(r -> null);
        }
        return f;
    }

    /** Sends one schema again after a member reported it unknown (a member restarted, say). */
    CompletableFuture<Void> publishSchema(long schemaId) {
        Schema s = client.serialization.getSchemaRegistry().get(schemaId);
        if (s == null) {
            return CompletableFuture.failedFuture(new UnknownCompactSchemaException("the cluster does not know compact schema "
                    + schemaId + " and neither does the client", null, -1, false, null, schemaId));
        }
        // Portable class definitions may be lost too: send them again with the schema.
        return send(List.of(s), new ArrayList<>(client.serialization.getClassDefinitions()))
                .thenRun(() -> published.add(schemaId));
    }

    /** Registers layouts locally and with the cluster. */
    CompletableFuture<Void> registerLayouts(IdentifiedLayout... layouts) {
        PutLayoutsRequest.Builder req = PutLayoutsRequest.newBuilder();
        try {
            for (IdentifiedLayout l : layouts) {
                client.serialization.registerIdentifiedLayout(l);
                req.addLayouts(toProto(l));
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return Invocation.onPartition(client, -1, true, PipelineRequest.newBuilder().setPutLayouts(req).build()).thenApply(r -> null);
    }

    /** Deserializes, fetching the schemas and layouts the data needs and the client lacks. */
    <T> CompletableFuture<T> toObject(Data d) {
        return toObject(d, 0);
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> toObject(Data d, int fetches) {
        try {
            return CompletableFuture.completedFuture((T) client.serialization.toObject(d));
        } catch (UnknownSchemaException e) {
            if (fetches >= MAX_FETCHES) {
                return CompletableFuture.failedFuture(e);
            }
            return fetchSchema(e.getSchemaId()).thenCompose(v -> toObject(d, fetches + 1));
        } catch (UnknownLayoutException e) {
            if (fetches >= MAX_FETCHES) {
                return CompletableFuture.failedFuture(e);
            }
            return fetchLayout(e.getFactoryId(), e.getClassId(), e).thenCompose(v -> toObject(d, fetches + 1));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Void> fetchSchema(long id) {
        PipelineRequest req = PipelineRequest.newBuilder().setGetSchema(GetSchemaRequest.newBuilder().setId(id)).build();
        return Invocation.onPartition(client, -1, true, req).thenAccept(resp -> {
            Schema s = fromProto(resp.getSchema());
            if (s.getSchemaId() != id) {
                throw new InvalidDataException("the cluster answered schema " + id + " with schema " + s.getSchemaId(), null, -1, false, null);
            }
            published.add(id);
            client.serialization.getSchemaRegistry().register(s);
        });
    }

    private CompletableFuture<Void> fetchLayout(int factoryId, int classId, UnknownLayoutException cause) {
        PipelineRequest req = PipelineRequest.newBuilder()
                .setGetLayout(GetLayoutRequest.newBuilder().setFactoryId(factoryId).setClassId(classId)).build();
        return Invocation.onPartition(client, -1, true, req)
                .handle((resp, err) -> {
                    if (err != null) {
                        Throwable t = Errors.unwrap(err);
                        if (t instanceof NotFoundException || t instanceof UnknownClassException) {
                            // Nobody registered the layout: report what the decoder said.
                            throw cause;
                        }
                        throw t instanceof RuntimeException ? (RuntimeException) t : new AtollException(t.getMessage(), t);
                    }
                    client.serialization.registerIdentifiedLayout(fromProto(resp.getLayout()));
                    return null;
                });
    }

    // ---- conversions between serialization metadata and the protocol's messages ----

    static io.atoll.client.proto.Schema toProto(Schema s) {
        io.atoll.client.proto.Schema.Builder b = io.atoll.client.proto.Schema.newBuilder()
                .setId(s.getSchemaId()).setTypeName(s.getTypeName());
        for (FieldDescriptor f : s.getFields()) {
            b.addFields(SchemaField.newBuilder().setName(f.getName()).setKind(f.getKind().getId()));
        }
        return b.build();
    }

    static Schema fromProto(io.atoll.client.proto.Schema p) {
        Map<String, FieldKind> fields = new LinkedHashMap<>();
        for (SchemaField f : p.getFieldsList()) {
            FieldKind k;
            try {
                k = FieldKind.ofId(f.getKind());
            } catch (RuntimeException e) {
                k = null;
            }
            if (k == null || fields.put(f.getName(), k) != null) {
                throw new InvalidDataException("invalid compact schema " + p.getId() + " from the cluster: field " + f.getName(),
                        null, -1, false, null);
            }
        }
        return new Schema(p.getTypeName(), fields);
    }

    static io.atoll.client.proto.ClassDefinition toProto(ClassDefinition cd) {
        io.atoll.client.proto.ClassDefinition.Builder b = io.atoll.client.proto.ClassDefinition.newBuilder()
                .setFactoryId(cd.getFactoryId()).setClassId(cd.getClassId()).setVersion(cd.getVersion());
        for (FieldDefinition f : cd.getFields()) {
            b.addFields(ClassField.newBuilder().setName(f.getName()).setKind(f.getType().toFieldKind().getId())
                    .setFactoryId(f.getFactoryId()).setClassId(f.getClassId()).setVersion(f.getVersion()));
        }
        return b.build();
    }

    static Layout toProto(IdentifiedLayout l) {
        Layout.Builder b = Layout.newBuilder().setFactoryId(l.getFactoryId()).setClassId(l.getClassId());
        for (IdentifiedLayout.Field f : l.getFields()) {
            b.addFields(LayoutField.newBuilder().setName(f.getName()).setOp(f.getOp().opName())
                    .setFactoryId(f.getNestedFactoryId()).setClassId(f.getNestedClassId()));
        }
        return b.build();
    }

    /**
     * A layout from the cluster. The protocol does not say what a writeObject field holds,
     * so layouts with untyped writeObject fields cannot be used by this client.
     */
    static IdentifiedLayout fromProto(Layout p) {
        IdentifiedLayout.Builder b = IdentifiedLayout.builder(p.getFactoryId(), p.getClassId());
        for (LayoutField f : p.getFieldsList()) {
            IdentifiedLayout.Op op = IdentifiedLayout.Op.ofName(f.getOp());
            if (op == null) {
                throw new UnknownTypeException("layout " + p.getFactoryId() + "/" + p.getClassId() + " from the cluster has field '"
                        + f.getName() + "' with unknown op " + f.getOp());
            }
            boolean nested = f.getFactoryId() != 0 || f.getClassId() != 0;
            if ((op == IdentifiedLayout.Op.WRITE_OBJECT || op == IdentifiedLayout.Op.WRITE_OBJECT_ARRAY) && !nested) {
                throw new UnknownTypeException("layout " + p.getFactoryId() + "/" + p.getClassId() + " from the cluster has "
                        + op.opName() + " field '" + f.getName() + "' whose value kind the protocol does not carry; register the "
                        + "layout locally (SerializationConfig.addIdentifiedLayout)");
            }
            FieldKind kind = op == IdentifiedLayout.Op.WRITE_OBJECT ? FieldKind.IDENTIFIED
                    : op == IdentifiedLayout.Op.WRITE_OBJECT_ARRAY ? FieldKind.ARRAY_OF_IDENTIFIED : null;
            b.field(f.getName(), op, kind, f.getFactoryId(), f.getClassId());
        }
        return b.build();
    }
}
