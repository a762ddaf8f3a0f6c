package io.atoll.client;

import io.atoll.client.query.Aggregator;
import io.atoll.client.query.Aggregators;
import io.atoll.client.query.PagingPredicate;
import io.atoll.client.query.Predicate;
import io.atoll.client.query.Predicates;
import io.atoll.client.query.Projection;
import io.atoll.client.query.Projections;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A distributed map, like Hazelcast's IMap. Keys and values are serialized with the client's
 * serialization service; key equality is equality of the serialized bytes. Every keyed call
 * goes to the member that owns the key's partition, over that member's multiplexed stream.
 * Thread-safe; {@link AtollClient#getMap} returns the same instance for the same name.
 *
 * <p>Every operation has a synchronous form, which throws the {@link AtollException} subclass
 * that describes the failure, and an {@code ...Async} form returning a {@link CompletableFuture}
 * that fails with the same exception. Dependent stages attached with the non-async methods of
 * {@code CompletableFuture} run on the client's I/O threads: do not block in them (use the
 * {@code ...Async(fn, executor)} variants for blocking work). Null keys and values are
 * rejected with {@link NullPointerException}.
 *
 * <p>TTL and max-idle: without them a write uses the map's defaults; 0 means forever, a
 * positive duration is rounded up to whole milliseconds and counted from the write (TTL) or
 * from the last read or write (max idle).
 *
 * <p>Queries: {@link #entrySet(Predicate)}, {@link #keySet(Predicate)},
 * {@link #values(Predicate)}, {@link #aggregate} and {@link #project} run on the members (see
 * {@link Predicates}, {@link Aggregators}, {@link Projections}); a member coordinates the
 * query and pages the result to the client, which reads every page before it returns. The
 * collections returned are read-only snapshots that keep the entries serialized and
 * deserialize them as they are iterated (as Hazelcast's lazy query results): iterate them on
 * your own threads, not in stages running on the client's I/O threads.
 * Invalid predicates (a malformed attribute path, predicate SQL or pattern) fail with
 * {@link QueryException}. Indexes ({@link #addIndex}) make equality and range predicates on
 * the indexed attribute lookups instead of scans.
 */
public interface AtollMap<K, V> {

    /** The map's name. */
    String getName();

    /** The value of the key, or null. Served from the near cache when the map has one. */
    V get(K key);

    CompletableFuture<V> getAsync(K key);

    /** Stores the value and returns the previous one, or null. */
    V put(K key, V value);

    V put(K key, V value, long ttl, TimeUnit ttlUnit);

    V put(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit);

    CompletableFuture<V> putAsync(K key, V value);

    CompletableFuture<V> putAsync(K key, V value, long ttl, TimeUnit ttlUnit);

    CompletableFuture<V> putAsync(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit);

    /** Stores the value without returning the previous one (which saves its transfer). */
    void set(K key, V value);

    void set(K key, V value, long ttl, TimeUnit ttlUnit);

    void set(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit);

    CompletableFuture<Void> setAsync(K key, V value);

    CompletableFuture<Void> setAsync(K key, V value, long ttl, TimeUnit ttlUnit);

    CompletableFuture<Void> setAsync(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit);

    /** Stores the value only if the key has none; returns the current value (null if it was stored). */
    V putIfAbsent(K key, V value);

    V putIfAbsent(K key, V value, long ttl, TimeUnit ttlUnit);

    V putIfAbsent(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit);

    CompletableFuture<V> putIfAbsentAsync(K key, V value);

    CompletableFuture<V> putIfAbsentAsync(K key, V value, long ttl, TimeUnit ttlUnit);

    CompletableFuture<V> putIfAbsentAsync(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit);

    /** Removes the key and returns its value, or null. */
    V remove(K key);

    CompletableFuture<V> removeAsync(K key);

    /** Removes the key only if its value is {@code value} (compared serialized); returns whether it did. */
    boolean remove(K key, V value);

    CompletableFuture<Boolean> removeAsync(K key, V value);

    /** Removes the key; returns whether it was present. */
    boolean delete(K key);

    CompletableFuture<Boolean> deleteAsync(K key);

    /** Stores the value only if the key has one, keeping the entry's expiry; returns the old value or null. */
    V replace(K key, V value);

    CompletableFuture<V> replaceAsync(K key, V value);

    /** Stores {@code newValue} only if the current value is {@code oldValue} (compared serialized). */
    boolean replace(K key, V oldValue, V newValue);

    CompletableFuture<Boolean> replaceAsync(K key, V oldValue, V newValue);

    boolean containsKey(K key);

    CompletableFuture<Boolean> containsKeyAsync(K key);

    // ---- per-key locks (IMap.lock) ----
    //
    // A lock is held by this client (any of its threads may unlock it): reentrant, released by as
    // many unlocks as locks, when its lease ends, or when the client's session ends (close, or its
    // connection to the key's owner closing). Locks without a lease are renewed by the client
    // while it lives (AtollClientConfig#setLockSessionLease). While a client holds a key, other
    // clients' writes to it wait; reads do not. Transactions share the same locks.

    /** Locks the key, waiting while another client or a transaction holds it. */
    void lock(K key);

    /** Locks the key with a lease: it is released after {@code leaseTime} whatever happens. */
    void lock(K key, long leaseTime, TimeUnit leaseUnit);

    /** Locks the key if it is free now; returns whether it did. */
    boolean tryLock(K key);

    /** Locks the key if it can within {@code time}; returns whether it did. */
    boolean tryLock(K key, long time, TimeUnit unit);

    /** {@link #tryLock(Object, long, TimeUnit)} with a lease. */
    boolean tryLock(K key, long time, TimeUnit unit, long leaseTime, TimeUnit leaseUnit);

    /**
     * Releases this client's lock of the key once.
     *
     * @throws IllegalMonitorStateException when this client holds no lock on the key
     */
    void unlock(K key);

    /** Whether the key is locked, by any client or transaction. */
    boolean isLocked(K key);

    /**
     * Releases the key's lock whoever holds it. A transaction's lock is resolved instead: its
     * writes are applied if it committed, and it is aborted if it had not.
     */
    void forceUnlock(K key);

    /** Removes the key as eviction would (listeners see EVICTED); returns whether it was present. */
    boolean evict(K key);

    CompletableFuture<Boolean> evictAsync(K key);

    /** Evicts every entry (listeners see CLEARED per partition). */
    void evictAll();

    CompletableFuture<Void> evictAllAsync();

    /** Changes the TTL of an existing entry, counted from now (0 = forever); returns whether the entry exists. */
    boolean setTtl(K key, long ttl, TimeUnit unit);

    CompletableFuture<Boolean> setTtlAsync(K key, long ttl, TimeUnit unit);

    /** The entry with its metadata, or null. */
    EntryView<K, V> getEntryView(K key);

    CompletableFuture<EntryView<K, V>> getEntryViewAsync(K key);

    /** Stores every entry, in one call per owning member. */
    void putAll(Map<? extends K, ? extends V> entries);

    /** Stores every entry with a TTL, in one call per owning member. */
    void putAll(Map<? extends K, ? extends V> entries, long ttl, TimeUnit ttlUnit);

    CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries);

    CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries, long ttl, TimeUnit ttlUnit);

    /** The entries of the keys that have values, fetched in one call per owning member. */
    Map<K, V> getAll(Set<K> keys);

    CompletableFuture<Map<K, V>> getAllAsync(Set<K> keys);

    /** The number of entries across the cluster (saturated at Integer.MAX_VALUE). */
    int size();

    CompletableFuture<Integer> sizeAsync();

    boolean isEmpty();

    /** Removes every entry (listeners see CLEARED per partition). */
    void clear();

    CompletableFuture<Void> clearAsync();

    /** Removes the map and its data from the cluster (it is created again on next use). */
    void destroy();

    CompletableFuture<Void> destroyAsync();

    /** The map's statistics summed over the members. */
    MapStats getMapStats();

    CompletableFuture<MapStats> getMapStatsAsync();

    /** Configures the map on every member; members refuse it for a map already in use. */
    void configure(MapConfig config);

    CompletableFuture<Void> configureAsync(MapConfig config);

    /**
     * Every key: a query over the whole map, as {@link #keySet(Predicate)} with a predicate that
     * is always true. The result is a read-only set that holds the member's pages (8192 rows
     * each by default) and deserializes each key while it is iterated. A snapshot taken while
     * no partition moves: entries changed meanwhile may or may not appear.
     */
    Set<K> keySet();

    CompletableFuture<Set<K>> keySetAsync();

    /** Every value (see {@link #keySet}). */
    Collection<V> values();

    CompletableFuture<Collection<V>> valuesAsync();

    /** Every entry (see {@link #keySet}). */
    Set<Map.Entry<K, V>> entrySet();

    CompletableFuture<Set<Map.Entry<K, V>>> entrySetAsync();

    /**
     * Adds a listener for every entry's events. Returns once every member confirmed it: events
     * of writes made afterwards are delivered. Streams that break are re-opened with backoff;
     * the listener learns of the gap through a LOST event.
     */
    ListenerRegistration addEntryListener(EntryListener<K, V> listener, boolean includeValue);

    /** Adds a listener for one key's events. */
    ListenerRegistration addEntryListener(EntryListener<K, V> listener, K key, boolean includeValue);

    /**
     * Adds a listener for the events of one key (all keys when {@code key} is null) of the
     * given types (all when empty; LOST is always delivered).
     */
    ListenerRegistration addEntryListener(EntryListener<K, V> listener, K key, boolean includeValue, Set<EntryEventType> types);

    CompletableFuture<ListenerRegistration> addEntryListenerAsync(EntryListener<K, V> listener, K key, boolean includeValue,
                                                                  Set<EntryEventType> types);

    // ---- queries ----

    /**
     * The keys of the entries the predicate matches. A {@link PagingPredicate} returns its
     * current page, in its order.
     */
    Set<K> keySet(Predicate predicate);

    CompletableFuture<Set<K>> keySetAsync(Predicate predicate);

    /** The values of the entries the predicate matches (a paging predicate's page, in its order). */
    Collection<V> values(Predicate predicate);

    CompletableFuture<Collection<V>> valuesAsync(Predicate predicate);

    /** The entries the predicate matches (a paging predicate's page, in its order). */
    Set<Map.Entry<K, V>> entrySet(Predicate predicate);

    CompletableFuture<Set<Map.Entry<K, V>>> entrySetAsync(Predicate predicate);

    /** Runs an aggregator over every entry: {@code map.aggregate(Aggregators.longSum("amount"))}. */
    <R> R aggregate(Aggregator<R> aggregator);

    /** Runs an aggregator over the entries the predicate matches (not a paging predicate). */
    <R> R aggregate(Aggregator<R> aggregator, Predicate predicate);

    <R> CompletableFuture<R> aggregateAsync(Aggregator<R> aggregator);

    <R> CompletableFuture<R> aggregateAsync(Aggregator<R> aggregator, Predicate predicate);

    /** Projects every entry: one result per entry. */
    <R> Collection<R> project(Projection<R> projection);

    /** Projects the entries the predicate matches (a paging predicate's page, in its order). */
    <R> Collection<R> project(Projection<R> projection, Predicate predicate);

    <R> CompletableFuture<Collection<R>> projectAsync(Projection<R> projection);

    <R> CompletableFuture<Collection<R>> projectAsync(Projection<R> projection, Predicate predicate);

    /**
     * The plan of {@link #entrySet(Predicate)} (null: every entry), one line per operator: the
     * same plan EXPLAIN prints for the equivalent SQL statement.
     */
    String explain(Predicate predicate);

    /** The plan of {@link #aggregate(Aggregator, Predicate)} (null predicate: every entry). */
    String explain(Aggregator<?> aggregator, Predicate predicate);

    /** The plan of {@link #project(Projection, Predicate)} (null predicate: every entry). */
    String explain(Projection<?> projection, Predicate predicate);

    /**
     * Creates an index on the attribute on every member; queries use it from then on. Adding
     * an index that exists is not an error.
     */
    void addIndex(IndexType type, String... attributes);

    void addIndex(IndexConfig config);

    CompletableFuture<Void> addIndexAsync(IndexConfig config);
}
