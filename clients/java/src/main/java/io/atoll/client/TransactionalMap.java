package io.atoll.client;

/**
 * A map seen through a {@link Transaction}, like Hazelcast's {@code TransactionalMap}: reads see
 * the transaction's own writes and return the same value when repeated; writes take effect at
 * commit. Null keys and values are rejected with {@link NullPointerException}.
 */
public interface TransactionalMap<K, V> {
    /** The map's name. */
    String getName();

    /** The key's value in the transaction, or null. */
    V get(K key);

    /**
     * {@link #get} that also locks the key at once until the transaction ends: no other
     * transaction or client can change it meanwhile. Waits up to the transaction's lock wait
     * for a key another holds, then throws a {@link ConflictException}.
     */
    V getForUpdate(K key);

    /** Whether the key has a value in the transaction. */
    boolean containsKey(K key);

    /** Writes the value at commit and returns the key's value in the transaction now, or null. */
    V put(K key, V value);

    /**
     * Writes the value at commit without reading the key: the transaction does not conflict
     * with a change of a key it never read.
     */
    void set(K key, V value);

    /** Removes the key at commit and returns its value in the transaction now, or null. */
    V remove(K key);

    /** Removes the key at commit; returns whether it has a value in the transaction now. */
    boolean delete(K key);
}
