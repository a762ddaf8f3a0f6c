package io.atoll.client;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for conditions with generous deadlines instead of fixed sleeps. */
final class Await {
    static final Duration DEFAULT = Duration.ofSeconds(60);

    private Await() {
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT, condition);
    }

    static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 1;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
            pause = Math.min(pause * 2, 50);
        }
    }

    static <T> void untilEquals(String what, T expected, Supplier<T> actual) {
        until(what + " == " + expected, () -> expected.equals(actual.get()));
    }
}
