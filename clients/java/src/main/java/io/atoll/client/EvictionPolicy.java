package io.atoll.client;

/** Which entries leave a map that reached its size limit. */
public enum EvictionPolicy {
    /** No eviction: writes beyond the limit fail. */
    NONE,
    /** Least recently used first. */
    LRU,
    /** Least frequently used first. */
    LFU
}
