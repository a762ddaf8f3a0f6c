package io.atoll.client;

/**
 * An entry with its metadata, like Hazelcast's EntryView. Times are epoch milliseconds, 0 when unset.
 * Hits and the last access and update times are 0 unless the map keeps per-entry statistics (the
 * member's {@code per-entry-stats-enabled}, off by default as in Hazelcast) or needs them: a map
 * with a default TTL, max-idle or an eviction policy, or an entry with a TTL or max-idle of its own.
 */
public final class EntryView<K, V> {
    private final K key;
    private final V value;
    private final long version;
    private final long creationTime;
    private final long lastAccessTime;
    private final long lastUpdateTime;
    private final long expirationTime;
    private final long hits;
    private final long ttl;
    private final long maxIdle;
    private final long cost;

    EntryView(K key, V value, io.atoll.client.proto.EntryView v) {
        this.key = key;
        this.value = value;
        this.version = v.getVersion();
        this.creationTime = v.getCreationTimeMs();
        this.lastAccessTime = v.getLastAccessTimeMs();
        this.lastUpdateTime = v.getLastUpdateTimeMs();
        this.expirationTime = v.getExpirationTimeMs();
        this.hits = v.getHits();
        this.ttl = v.getTtlMs();
        this.maxIdle = v.getMaxIdleMs();
        this.cost = v.getCost();
    }

    public K getKey() {
        return key;
    }

    public V getValue() {
        return value;
    }

    /** Grows with every update of the entry. */
    public long getVersion() {
        return version;
    }

    public long getCreationTime() {
        return creationTime;
    }

    public long getLastAccessTime() {
        return lastAccessTime;
    }

    public long getLastUpdateTime() {
        return lastUpdateTime;
    }

    /** When the entry expires; 0 when it never does. */
    public long getExpirationTime() {
        return expirationTime;
    }

    public long getHits() {
        return hits;
    }

    /** Time to live in milliseconds; 0 means forever. */
    public long getTtl() {
        return ttl;
    }

    /** Maximum idle time in milliseconds; 0 means forever. */
    public long getMaxIdle() {
        return maxIdle;
    }

    /** Serialized key plus value bytes. */
    public long getCost() {
        return cost;
    }

    @Override
    public String toString() {
        return "EntryView{key=" + key + ", value=" + value + ", version=" + version + ", hits=" + hits + ", ttl=" + ttl
                + ", maxIdle=" + maxIdle + ", expirationTime=" + expirationTime + ", cost=" + cost + "}";
    }
}
