package io.atoll.client;

/**
 * A transaction lost a conflict with another one: a key it needed was locked by another
 * transaction or client, or a key it read changed. It took no effect; run it again
 * ({@link AtollClient#runInTransaction} does, and throws this once its attempts are spent).
 */
public class ConflictException extends AtollException {
    private static final long serialVersionUID = 1L;

    /** Why a transaction lost a conflict. */
    public enum Cause {
        /** Another transaction or client held a lock on a key. */
        LOCKED,
        /** A key the transaction read changed since. */
        CHANGED,
        /** The transaction's locks outlived their lease and were rolled back by another. */
        ABORTED,
        /** Not said. */
        UNKNOWN
    }

    private final Cause conflictCause;
    private final String mapName;
    private int attempts = 1;

    public ConflictException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        this(message, memberAddress, grpcCode, retryable, cause, Cause.UNKNOWN, null);
    }

    public ConflictException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause,
                             Cause conflictCause, String mapName) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.conflictCause = conflictCause;
        this.mapName = mapName;
    }

    /** Why the transaction lost. */
    public Cause getConflictCause() {
        return conflictCause;
    }

    /** The map of the key in conflict, or null when unknown. */
    public String getMapName() {
        return mapName;
    }

    /** How many times {@code runInTransaction} ran the transaction (1 for one committed by hand). */
    public int getAttempts() {
        return attempts;
    }

    void setAttempts(int attempts) {
        this.attempts = attempts;
    }

    @Override
    public String getMessage() {
        String m = super.getMessage();
        return attempts > 1 ? m + " (after " + attempts + " attempts)" : m;
    }
}
