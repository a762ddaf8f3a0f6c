package io.atoll.client;

/**
 * An optimistic transaction over any keys of any maps, like Hazelcast's
 * {@code TransactionContext}: reads go to the keys' owners and remember each key's version,
 * writes stay in the client until {@link #commit}, which locks the written keys at their owners
 * (each lock a check that the key still has the version read), checks that the keys only read
 * did not change, and commits; then the writes are applied. It takes effect entirely or not at
 * all. A transaction is meant for one thread.
 *
 * <pre>{@code
 * client.runInTransaction(tx -> {
 *     TransactionalMap<String, Long> accounts = tx.getMap("accounts");
 *     long from = accounts.get("alice");
 *     accounts.set("alice", from - 10);
 *     accounts.set("bob", accounts.get("bob") + 10);
 *     return null;
 * });
 * }</pre>
 *
 * Go clients run the same protocol on the same keys: their transactions and Java's conflict
 * with each other as they do among themselves.
 */
public interface Transaction {
    /** The map called {@code name} in this transaction. */
    <K, V> TransactionalMap<K, V> getMap(String name);

    /**
     * Commits: the transaction takes effect entirely, or fails with a {@link ConflictException}
     * (it then took no effect and released its locks), or with a
     * {@link TransactionOutcomeUnknownException} when its outcome could not be learned.
     *
     * @throws IllegalStateException when the transaction ended already
     */
    void commit();

    /**
     * Ends the transaction without effect, releasing the locks {@code getForUpdate} took.
     *
     * @throws IllegalStateException when the transaction ended already
     */
    void rollback();
}
