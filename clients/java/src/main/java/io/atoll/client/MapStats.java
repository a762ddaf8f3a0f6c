package io.atoll.client;

/** A map's statistics summed over the members, like Hazelcast's LocalMapStats. Times are epoch milliseconds. */
public final class MapStats {
    long ownedEntryCount;
    long ownedEntryMemoryCost;
    long backupEntryCount;
    long backupEntryMemoryCost;
    long hits;
    long getCount;
    long putCount;
    long setCount;
    long removeCount;
    long evictions;
    long expirations;
    long lastAccessTime;
    long lastUpdateTime;
    long creationTime;
    int members;

    MapStats() {
    }

    void add(io.atoll.client.proto.MapStats s) {
        members++;
        ownedEntryCount += s.getOwnedEntryCount();
        ownedEntryMemoryCost += s.getOwnedEntryMemoryCost();
        backupEntryCount += s.getBackupEntryCount();
        backupEntryMemoryCost += s.getBackupEntryMemoryCost();
        hits += s.getHits();
        getCount += s.getGetCount();
        putCount += s.getPutCount();
        setCount += s.getSetCount();
        removeCount += s.getRemoveCount();
        evictions += s.getEvictions();
        expirations += s.getExpirations();
        lastAccessTime = Math.max(lastAccessTime, s.getLastAccessTimeMs());
        lastUpdateTime = Math.max(lastUpdateTime, s.getLastUpdateTimeMs());
        if (s.getCreationTimeMs() > 0 && (creationTime == 0 || s.getCreationTimeMs() < creationTime)) {
            creationTime = s.getCreationTimeMs();
        }
    }

    public long getOwnedEntryCount() {
        return ownedEntryCount;
    }

    public long getOwnedEntryMemoryCost() {
        return ownedEntryMemoryCost;
    }

    public long getBackupEntryCount() {
        return backupEntryCount;
    }

    public long getBackupEntryMemoryCost() {
        return backupEntryMemoryCost;
    }

    public long getHits() {
        return hits;
    }

    public long getGetOperationCount() {
        return getCount;
    }

    public long getPutOperationCount() {
        return putCount;
    }

    public long getSetOperationCount() {
        return setCount;
    }

    public long getRemoveOperationCount() {
        return removeCount;
    }

    public long getEvictions() {
        return evictions;
    }

    public long getExpirations() {
        return expirations;
    }

    public long getLastAccessTime() {
        return lastAccessTime;
    }

    public long getLastUpdateTime() {
        return lastUpdateTime;
    }

    /** When the map was created on the earliest member. */
    public long getCreationTime() {
        return creationTime;
    }

    /** How many members contributed. */
    public int getMemberCount() {
        return members;
    }

    @Override
    public String toString() {
        return "MapStats{owned=" + ownedEntryCount + ", cost=" + ownedEntryMemoryCost + ", hits=" + hits + ", gets=" + getCount
                + ", puts=" + putCount + ", sets=" + setCount + ", removes=" + removeCount + ", evictions=" + evictions
                + ", expirations=" + expirations + ", members=" + members + "}";
    }
}
