package io.atoll.client;

/**
 * A change to a map entry. Values are present only when the listener was added with
 * {@code includeValue}: the new value of ADDED and UPDATED, the old value of UPDATED, REMOVED,
 * EVICTED and EXPIRED.
 */
public final class EntryEvent<K, V> {
    private final EntryEventType type;
    private final K key;
    private final V value;
    private final V oldValue;
    private final int partitionId;
    private final String memberAddress;
    private final long lostCount;

    EntryEvent(EntryEventType type, K key, V value, V oldValue, int partitionId, String memberAddress, long lostCount) {
        this.type = type;
        this.key = key;
        this.value = value;
        this.oldValue = oldValue;
        this.partitionId = partitionId;
        this.memberAddress = memberAddress;
        this.lostCount = lostCount;
    }

    /** The kind of change. */
    public EntryEventType getType() {
        return type;
    }

    /** The kind of change, under the name Hazelcast's {@code EntryEvent} gives it. */
    public EntryEventType getEventType() {
        return type;
    }

    /** The key; null for CLEARED and LOST. */
    public K getKey() {
        return key;
    }

    /** The new value, or null. */
    public V getValue() {
        return value;
    }

    /** The old value, or null. */
    public V getOldValue() {
        return oldValue;
    }

    /** The partition of the key, as the member computed it (-1 for LOST). */
    public int getPartitionId() {
        return partitionId;
    }

    /** Address of the member that reported the event. */
    public String getMemberAddress() {
        return memberAddress;
    }

    /** For LOST: how many events are known to be missing (0 when unknown). */
    public long getLostCount() {
        return lostCount;
    }

    @Override
    public String toString() {
        return "EntryEvent{" + type + ", key=" + key + ", value=" + value + ", oldValue=" + oldValue + ", partition=" + partitionId
                + (type == EntryEventType.LOST ? ", lost=" + lostCount : "") + ", member=" + memberAddress + "}";
    }
}
