package io.atoll.client;

/** The work of a transaction ({@link AtollClient#runInTransaction}); it may run more than once. */
@FunctionalInterface
public interface TransactionalTask<T> {
    T execute(Transaction tx);
}
