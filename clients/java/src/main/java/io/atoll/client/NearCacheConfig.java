package io.atoll.client;

import java.time.Duration;
import java.util.Objects;

/**
 * A near cache: values of one map (or of the maps matching a pattern) kept in the client.
 * Entries are invalidated by the members' change events; a value read before an
 * invalidation is never served after it. When events may have been missed (the member
 * dropped some because the client fell behind, or a connection broke) the cache is cleared,
 * and nothing is cached while a member's event stream is down.
 */
public final class NearCacheConfig {
    /** How cached values are kept. */
    public enum InMemoryFormat {
        /** Serialized values, decoded on every hit (callers get fresh objects). */
        BINARY,
        /** Decoded values: faster hits, but callers share the objects and must not modify them. */
        OBJECT
    }

    private int maxEntries = 10_000;
    private Duration ttl = Duration.ZERO;
    private InMemoryFormat inMemoryFormat = InMemoryFormat.BINARY;

    /** Bound of the cache (least recently used entries leave first); default 10 000. */
    public NearCacheConfig setMaxEntries(int maxEntries) {
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("maxEntries must be positive, got " + maxEntries);
        }
        this.maxEntries = maxEntries;
        return this;
    }

    /** How long an entry is served after it was cached; zero (the default) means until invalidated. */
    public NearCacheConfig setTtl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must not be negative, got " + ttl);
        }
        this.ttl = ttl;
        return this;
    }

    public NearCacheConfig setInMemoryFormat(InMemoryFormat format) {
        this.inMemoryFormat = Objects.requireNonNull(format, "format");
        return this;
    }

    public int getMaxEntries() {
        return maxEntries;
    }

    public Duration getTtl() {
        return ttl;
    }

    public InMemoryFormat getInMemoryFormat() {
        return inMemoryFormat;
    }
}
