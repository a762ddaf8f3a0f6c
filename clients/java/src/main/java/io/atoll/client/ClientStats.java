package io.atoll.client;

/** The client's statistics since it was created. */
public final class ClientStats {
    private final long calls;
    private final long retries;
    private final long failures;
    private final int connections;
    private final long nearCacheHits;
    private final long nearCacheMisses;
    private final long nearCacheInvalidations;
    private final long nearCacheEntries;

    ClientStats(long calls, long retries, long failures, int connections, long hits, long misses, long invalidations, long entries) {
        this.calls = calls;
        this.retries = retries;
        this.failures = failures;
        this.connections = connections;
        this.nearCacheHits = hits;
        this.nearCacheMisses = misses;
        this.nearCacheInvalidations = invalidations;
        this.nearCacheEntries = entries;
    }

    /** Pipeline calls made (map operations and metadata), each counted once however often it was retried. */
    public long getCalls() {
        return calls;
    }

    /** Extra attempts the calls took. */
    public long getRetries() {
        return retries;
    }

    /** Calls that ended with an error. */
    public long getFailures() {
        return failures;
    }

    /** Open member connections. */
    public int getConnections() {
        return connections;
    }

    public long getNearCacheHits() {
        return nearCacheHits;
    }

    public long getNearCacheMisses() {
        return nearCacheMisses;
    }

    public long getNearCacheInvalidations() {
        return nearCacheInvalidations;
    }

    public long getNearCacheEntries() {
        return nearCacheEntries;
    }

    @Override
    public String toString() {
        return "ClientStats{calls=" + calls + ", retries=" + retries + ", failures=" + failures + ", connections=" + connections
                + ", nearCacheHits=" + nearCacheHits + ", nearCacheMisses=" + nearCacheMisses
                + ", nearCacheInvalidations=" + nearCacheInvalidations + ", nearCacheEntries=" + nearCacheEntries + "}";
    }
}
