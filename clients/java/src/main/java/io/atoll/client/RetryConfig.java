package io.atoll.client;

import java.time.Duration;
import java.util.Objects;

/**
 * The retry policy: exponential backoff with jitter, as the Go client's. Calls that fail with
 * a retryable error (a member shutting down, a partition that moved, an unknown schema, a
 * member that is overloaded or unavailable), calls that could not be sent, and reads whose
 * connection broke are retried until the invocation timeout. Writes whose connection broke
 * after they were sent have an unknown outcome and are retried only with
 * {@link #setRedoOperation redoOperation} (they may then apply twice).
 */
public final class RetryConfig {
    private Duration initialBackoff = Duration.ofMillis(20);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private double multiplier = 2;
    private double jitter = 0.2;
    private boolean redoOperation;

    /** The first wait; default 20 ms. */
    public RetryConfig setInitialBackoff(Duration d) {
        this.initialBackoff = positive(d, "initialBackoff");
        return this;
    }

    /** The longest wait; default 2 s. */
    public RetryConfig setMaxBackoff(Duration d) {
        this.maxBackoff = positive(d, "maxBackoff");
        return this;
    }

    /** Growth of the wait after each attempt; default 2, at least 1. */
    public RetryConfig setMultiplier(double multiplier) {
        if (!(multiplier >= 1)) {
            throw new IllegalArgumentException("multiplier must be >= 1, got " + multiplier);
        }
        this.multiplier = multiplier;
        return this;
    }

    /** Each wait is randomized by ±jitter (a fraction in [0, 1)); default 0.2. */
    public RetryConfig setJitter(double jitter) {
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1), got " + jitter);
        }
        this.jitter = jitter;
        return this;
    }

    /** Also retry writes whose outcome is unknown because the connection broke after they were sent. */
    public RetryConfig setRedoOperation(boolean redoOperation) {
        this.redoOperation = redoOperation;
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

    public double getJitter() {
        return jitter;
    }

    public boolean isRedoOperation() {
        return redoOperation;
    }

    RetryConfig copy() {
        RetryConfig c = new RetryConfig();
        c.initialBackoff = initialBackoff;
        c.maxBackoff = maxBackoff;
        c.multiplier = multiplier;
        c.jitter = jitter;
        c.redoOperation = redoOperation;
        return c;
    }

    static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + d);
        }
        return d;
    }
}
