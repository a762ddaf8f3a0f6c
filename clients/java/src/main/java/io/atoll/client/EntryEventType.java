package io.atoll.client;

/** What happened to an entry. */
public enum EntryEventType {
    ADDED,
    UPDATED,
    REMOVED,
    /** Removed by eviction (a size limit, or {@link AtollMap#evict}). */
    EVICTED,
    /** Removed because its TTL or max-idle time passed. */
    EXPIRED,
    /** The map was cleared or evicted as a whole on a partition (the event has no key). */
    CLEARED,
    /**
     * Events were lost: the member dropped some because the listener fell behind
     * ({@link EntryEvent#getLostCount()} says how many), or the stream to a member broke and
     * was re-established (the count is then unknown, 0). Always delivered.
     */
    LOST
}
