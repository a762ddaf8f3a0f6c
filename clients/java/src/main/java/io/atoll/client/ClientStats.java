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
    private final long txCommits;
    private final long txRetries;
    private final long txConflicts;

    ClientStats(long calls, long retries, long failures, int connections, long hits, long misses, long invalidations, long entries,
                long txCommits, long txRetries, long txConflicts) {
        this.txCommits = txCommits;
        this.txRetries = txRetries;
        this.txConflicts = txConflicts;
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

    /** Transactions committed. */
    public long getTransactionCommits() {
        return txCommits;
    }

    /** Transactions run again after a conflict ({@code runInTransaction}). */
    public long getTransactionRetries() {
        return txRetries;
    }

    /** Transactions that failed with a conflict once their attempts were spent. */
    public long getTransactionConflicts() {
        return txConflicts;
    }

    @Override
    public String toString() {
        return "ClientStats{calls=" + calls + ", retries=" + retries + ", failures=" + failures + ", connections=" + connections
                + ", nearCacheHits=" + nearCacheHits + ", nearCacheMisses=" + nearCacheMisses
                + ", nearCacheInvalidations=" + nearCacheInvalidations + ", nearCacheEntries=" + nearCacheEntries
                + ", transactionCommits=" + txCommits + ", transactionRetries=" + txRetries + ", transactionConflicts=" + txConflicts + "}";
    }
}
