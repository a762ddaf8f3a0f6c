package io.atoll.client;

/** A registered entry listener; close it to stop its events. */
public interface ListenerRegistration extends AutoCloseable {
    /** Removes the listener from every member. Idempotent. */
    @Override
    void close();
}
