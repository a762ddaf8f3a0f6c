package io.atoll.client;

/**
 * Receives a map's entry events. Events of one member arrive in the order they happened per
 * partition, one at a time (never concurrently for one listener), on the client's threads:
 * a listener must not block for long.
 */
@FunctionalInterface
public interface EntryListener<K, V> {
    void onEvent(EntryEvent<K, V> event);
}
