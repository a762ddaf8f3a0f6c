package io.atoll.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * How a query (SQL or predicate) that the members' memory circuit breaker refused or
 * terminated is sent again: binary exponential backoff with full jitter, as the Go client's
 * {@code client.Backoff}. Before retry {@code i} (0 for the first) the client waits the
 * member's retry-after hint, then a uniform random time below
 * {@code min(maxBackoff, initialBackoff * multiplier^i)}; after {@link #setAttempts attempts}
 * attempts in all (or when the invocation timeout would pass) the query fails with a
 * {@link MemoryLimitException} whose {@link MemoryLimitException#getAttempts()} says how many
 * were made. On by default (100 ms doubling to 5 s, 10 attempts); {@code setAttempts(1)} turns
 * it off. A query that has returned rows is never sent again.
 */
public final class QueryRetryConfig {
    /** Runs a retry after a delay; the client's scheduler by default. Tests record the delays. */
    @FunctionalInterface
    public interface Delayer {
        /** Runs {@code task} once {@code delay} has passed; may throw RejectedExecutionException. */
        void schedule(Runnable task, Duration delay);
    }

    private Duration initialBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(5);
    private double multiplier = 2;
    private int attempts = 10;
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
    private Delayer delayer;

    /** The bound of the first wait; default 100 ms. */
    public QueryRetryConfig setInitialBackoff(Duration d) {
        this.initialBackoff = RetryConfig.positive(d, "initialBackoff");
        return this;
    }

    /** The cap of every wait's bound; default 5 s. */
    public QueryRetryConfig setMaxBackoff(Duration d) {
        this.maxBackoff = RetryConfig.positive(d, "maxBackoff");
        return this;
    }

    /** Growth of the bound after each retry; default 2, at least 1. */
    public QueryRetryConfig setMultiplier(double multiplier) {
        if (!(multiplier >= 1)) {
            throw new IllegalArgumentException("multiplier must be >= 1, got " + multiplier);
        }
        this.multiplier = multiplier;
        return this;
    }

    /** The most attempts, the first included; default 10; 1 turns retrying off. */
    public QueryRetryConfig setAttempts(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
        }
        this.attempts = attempts;
        return this;
    }

    /** The uniform random source in [0, 1) of the jitter (tests make it fixed). */
    public QueryRetryConfig setRandom(DoubleSupplier random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /** What waits before a retry (null: the client's scheduler). */
    public QueryRetryConfig setDelayer(Delayer delayer) {
        this.delayer = delayer;
        return this;
    }

    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    public double getMultiplier() {
        return multiplier;
    }

    public int getAttempts() {
        return attempts;
    }

    Delayer getDelayer() {
        return delayer;
    }

    /** The longest wait before retry {@code retry} (0-based), the hint apart. */
    public Duration bound(int retry) {
        double d = initialBackoff.toNanos() * Math.pow(multiplier, retry);
        return Duration.ofNanos((long) Math.min(d, maxBackoff.toNanos()));
    }

    /** The wait before retry {@code retry}: the hint, then a uniform draw below the bound. */
    public Duration delay(int retry, Duration hint) {
        long jitter = (long) (random.getAsDouble() * bound(retry).toNanos());
        return hint.plusNanos(jitter);
    }

    /** The longest all retries of one query can wait, with a hint of at most {@code hint} each. */
    public Duration budget(Duration hint) {
        Duration sum = Duration.ZERO;
        for (int i = 0; i < attempts - 1; i++) {
            sum = sum.plus(bound(i)).plus(hint);
        }
        return sum;
    }

    QueryRetryConfig copy() {
        QueryRetryConfig c = new QueryRetryConfig();
        c.initialBackoff = initialBackoff;
        c.maxBackoff = maxBackoff;
        c.multiplier = multiplier;
        c.attempts = attempts;
        c.random = random;
        c.delayer = delayer;
        return c;
    }
}
