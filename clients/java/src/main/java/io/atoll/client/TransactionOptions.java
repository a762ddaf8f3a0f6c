package io.atoll.client;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of a transaction ({@link AtollClient#runInTransaction}, {@link AtollClient#beginTransaction}).
 *
 * <ul>
 *   <li>attempts: how many times {@code runInTransaction} runs a transaction that conflicts
 *       (default 10), waiting between them a random time below min(maxBackoff,
 *       initialBackoff·2^retry) (full jitter; defaults 10 ms and 1 s), as the Go client's
 *       {@code client.Backoff};</li>
 *   <li>lease: how long the transaction's locks hold before anyone who meets them may resolve
 *       them (default 10 s): a client that dies in a commit leaves nothing locked for longer;</li>
 *   <li>lockWait: how long {@link TransactionalMap#getForUpdate} waits for a key another holds
 *       before the transaction conflicts (default 1 s).</li>
 * </ul>
 */
public final class TransactionOptions {
    private int attempts = 10;
    private Duration initialBackoff = Duration.ofMillis(10);
    private Duration maxBackoff = Duration.ofSeconds(1);
    private Duration lease = Duration.ofSeconds(10);
    private Duration lockWait = Duration.ofSeconds(1);

    /** The defaults. */
    public static TransactionOptions getDefault() {
        return new TransactionOptions();
    }

    /** The most attempts of {@code runInTransaction}, the first one included; at least 1. */
    public TransactionOptions setAttempts(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
        }
        this.attempts = attempts;
        return this;
    }

    public TransactionOptions setInitialBackoff(Duration d) {
        this.initialBackoff = RetryConfig.positive(d, "initialBackoff");
        return this;
    }

    public TransactionOptions setMaxBackoff(Duration d) {
        this.maxBackoff = RetryConfig.positive(d, "maxBackoff");
        return this;
    }

    /** The lease of the transaction's locks; at least a millisecond. */
    public TransactionOptions setLease(Duration d) {
        Objects.requireNonNull(d, "lease");
        if (d.toMillis() < 1) {
            throw new IllegalArgumentException("lease must be at least a millisecond, got " + d);
        }
        this.lease = d;
        return this;
    }

    /** How long getForUpdate waits for a key another holds; zero fails at once. */
    public TransactionOptions setLockWait(Duration d) {
        Objects.requireNonNull(d, "lockWait");
        if (d.isNegative()) {
            throw new IllegalArgumentException("lockWait must not be negative, got " + d);
        }
        this.lockWait = d;
        return this;
    }

    public int getAttempts() {
        return attempts;
    }

    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    public Duration getLease() {
        return lease;
    }

    public Duration getLockWait() {
        return lockWait;
    }

    /** The wait before retry {@code retry} (0-based): uniform below min(maxBackoff, initialBackoff·2^retry). */
    long backoffNanos(int retry, double random) {
        double bound = Math.min(maxBackoff.toNanos(), initialBackoff.toNanos() * Math.pow(2, retry));
        return (long) (random * bound);
    }

    TransactionOptions copy() {
        TransactionOptions o = new TransactionOptions();
        o.attempts = attempts;
        o.initialBackoff = initialBackoff;
        o.maxBackoff = maxBackoff;
        o.lease = lease;
        o.lockWait = lockWait;
        return o;
    }
}
