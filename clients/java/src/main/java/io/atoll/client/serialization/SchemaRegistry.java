package io.atoll.client.serialization;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Compact schemas by id. Compact data (type -55) carries only the schema id, so a
 * reader must know the schema: a client fills this registry from the cluster
 * (through {@link #setSource}, asked on a miss) and sends the schemas it creates
 * locally to the cluster before data that uses them (through the listeners added
 * with {@link #addListener}). Thread-safe.
 */
public final class SchemaRegistry {
    /** Looks a schema up somewhere else (the cluster); returns null when it is unknown there too. */
    @FunctionalInterface
    public interface Source {
        Schema fetch(long schemaId);
    }

    private final ConcurrentMap<Long, Schema> schemas = new ConcurrentHashMap<>();
    private final List<Consumer<Schema>> listeners = new CopyOnWriteArrayList<>();
    private volatile Source source;

    /**
     * Registers a schema. Registering the same schema again is a no-op.
     *
     * @return true if the schema was new
     * @throws AtollSerializationException if another schema with the same id is registered
     */
    public boolean register(Schema schema) {
        Schema prev = schemas.putIfAbsent(schema.getSchemaId(), schema);
        if (prev == null) {
            for (Consumer<Schema> l : listeners) {
                l.accept(schema);
            }
            return true;
        }
        if (!prev.equals(schema)) {
            throw new AtollSerializationException("schema id collision: " + prev + " and " + schema);
        }
        return false;
    }

    /** The schema with this id, asking the {@link Source} on a miss; null if unknown. */
    public Schema get(long schemaId) {
        Schema s = schemas.get(schemaId);
        if (s == null) {
            Source src = source;
            if (src != null) {
                s = src.fetch(schemaId);
                if (s != null) {
                    if (s.getSchemaId() != schemaId) {
                        throw new AtollSerializationException("schema source answered id " + schemaId + " with " + s);
                    }
                    schemas.putIfAbsent(schemaId, s);
                }
            }
        }
        return s;
    }

    /** Like {@link #get} but throws {@link UnknownSchemaException} on a miss. */
    public Schema require(long schemaId) {
        Schema s = get(schemaId);
        if (s == null) {
            throw new UnknownSchemaException(schemaId);
        }
        return s;
    }

    /** Sets where unknown schema ids are looked up (null for nowhere). */
    public void setSource(Source source) {
        this.source = source;
    }

    /** Called once for every schema registered for the first time (not for those fetched from the source). */
    public void addListener(Consumer<Schema> listener) {
        listeners.add(listener);
    }

    /** A snapshot of all known schemas. */
    public Collection<Schema> all() {
        return new ArrayList<>(schemas.values());
    }
}
