package io.atoll.client;

import java.time.Duration;
import java.util.Objects;

/**
 * Configuration of a map on every member, applied with {@link AtollMap#configure}. Fields left
 * unset (null) keep the member's configuration. Members accept a configuration only before the
 * map is first used.
 */
public final class MapConfig {
    private Duration ttl;
    private Duration maxIdle;
    private EvictionPolicy evictionPolicy;
    private Long maxEntries;
    private Long maxBytes;
    private Integer backupCount;
    private Integer asyncBackupCount;

    /** Default time to live of entries; zero means forever. */
    public MapConfig setTtl(Duration ttl) {
        this.ttl = nonNegative(ttl, "ttl");
        return this;
    }

    /** Default maximum idle time of entries; zero means forever. */
    public MapConfig setMaxIdle(Duration maxIdle) {
        this.maxIdle = nonNegative(maxIdle, "maxIdle");
        return this;
    }

    public MapConfig setEvictionPolicy(EvictionPolicy evictionPolicy) {
        this.evictionPolicy = Objects.requireNonNull(evictionPolicy, "evictionPolicy");
        return this;
    }

    /** Maximum entries per member; 0 means no limit. */
    public MapConfig setMaxEntries(long maxEntries) {
        this.maxEntries = maxEntries;
        return this;
    }

    /** Maximum bytes of entry memory per member; 0 means no limit. */
    public MapConfig setMaxBytes(long maxBytes) {
        this.maxBytes = maxBytes;
        return this;
    }

    public MapConfig setBackupCount(int backupCount) {
        this.backupCount = backupCount;
        return this;
    }

    public MapConfig setAsyncBackupCount(int asyncBackupCount) {
        this.asyncBackupCount = asyncBackupCount;
        return this;
    }

    public Duration getTtl() {
        return ttl;
    }

    public Duration getMaxIdle() {
        return maxIdle;
    }

    public EvictionPolicy getEvictionPolicy() {
        return evictionPolicy;
    }

    public Long getMaxEntries() {
        return maxEntries;
    }

    public Long getMaxBytes() {
        return maxBytes;
    }

    public Integer getBackupCount() {
        return backupCount;
    }

    public Integer getAsyncBackupCount() {
        return asyncBackupCount;
    }

    private static Duration nonNegative(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + d);
        }
        return d;
    }
}
