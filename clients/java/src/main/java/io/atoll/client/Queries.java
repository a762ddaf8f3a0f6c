package io.atoll.client;

import io.atoll.client.proto.ExecuteRequest;
import io.atoll.client.proto.QueryCall;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends a statement or predicate query to a coordinating member and returns its first page
 * (the Go client's Client.execute). A query is retried — on another member when several are
 * known — when it never reached a member, when the member asks for a schema first, or when
 * its error is retryable; at most {@value #MAX_ATTEMPTS} attempts within the invocation
 * timeout. A query the memory circuit breaker refused is retried by the client's
 * {@link QueryRetryConfig} instead (binary exponential backoff, full jitter, after the
 * member's retry-after), then fails with a {@link MemoryLimitException} that counts the
 * attempts. A query that may have run (a DML statement whose stream broke) is not repeated;
 * one that returned rows is never sent again (its cursor reports the error).
 */
final class Queries {
    static final int MAX_ATTEMPTS = 3;

    private Queries() {
    }

    static CompletableFuture<QueryCursor> execute(AtollClient client, ExecuteRequest.Builder req) {
        if (client.isClosed()) {
            return CompletableFuture.failedFuture(new ClientNotActiveException());
        }
        long deadline = System.nanoTime() + client.config.getInvocationTimeout().toNanos();
        if (req.getTimeoutMs() == 0) {
            // The member stops the query when the caller stops waiting for it.
            req.setTimeoutMs(Math.max(1, client.config.getInvocationTimeout().toMillis()));
        }
        ExecuteRequest built = req.build();
        client.stats.calls.increment();
        CompletableFuture<Void> meta = client.metadata.flush();
        CompletableFuture<QueryCursor> out = new CompletableFuture<>();
        // It fails at its deadline whatever it waits for then (a connection, an answer).
        Invocation.failAtDeadline(client, out, deadline, () -> null, () -> 0, () -> client.stats.failures.increment());
        meta.whenComplete((v, err) -> {
            if (err != null) {
                fail(client, out, Errors.unwrap(err));
                return;
            }
            attempt(client, built, deadline, 0, 0, client.retry.getInitialBackoff().toNanos(), out);
        });
        return out;
    }

    private static void fail(AtollClient client, CompletableFuture<QueryCursor> out, Throwable t) {
        if (out.completeExceptionally(client.isClosed() ? new ClientNotActiveException() : t)) {
            client.stats.failures.increment();
        }
    }

    /**
     * One attempt: {@code attempt} counts the earlier attempts that failed otherwise than for
     * memory (at most {@value #MAX_ATTEMPTS}), {@code memory} those the breaker refused.
     */
    private static void attempt(AtollClient client, ExecuteRequest req, long deadline, int attempt, int memory, long backoff,
                                CompletableFuture<QueryCursor> out) {
        if (client.isClosed()) {
            fail(client, out, new ClientNotActiveException());
            return;
        }
        client.queryConnection().thenCompose(c -> {
            QueryStream qs = c.queryStream();
            return qs.call(QueryCall.newBuilder().setExecute(req), deadline)
                    .thenApply(resp -> new QueryCursor(client, c.address, qs, resp));
        }).whenComplete((cursor, err) -> {
            if (err == null) {
                if (!out.complete(cursor)) {
                    cursor.closeAsync(); // its caller stopped waiting: the member's cursor must not linger
                }
                return;
            }
            if (out.isDone()) {
                return;
            }
            Throwable e = Errors.unwrap(err);
            if (e instanceof MemoryLimitException && ((MemoryLimitException) e).isRetryable()) {
                retryMemory(client, req, deadline, attempt, memory + 1, backoff, (MemoryLimitException) e, out);
                return;
            }
            boolean time = System.nanoTime() - deadline < 0;
            if (attempt + 1 >= MAX_ATTEMPTS || !time || client.isClosed()) {
                fail(client, out, e);
                return;
            }
            if (e instanceof MemberConnectionException && !((MemberConnectionException) e).isSent()) {
                client.stats.retries.increment();
                attempt(client, req, deadline, attempt + 1, memory, backoff, out);
            } else if (e instanceof UnknownCompactSchemaException) {
                client.stats.retries.increment();
                client.metadata.publishSchema(((UnknownCompactSchemaException) e).getSchemaId()).whenComplete((v, perr) -> {
                    if (perr != null) {
                        fail(client, out, e);
                    } else {
                        attempt(client, req, deadline, attempt + 1, memory, backoff, out);
                    }
                });
            } else if (e instanceof AtollException && ((AtollException) e).isRetryable() && !(e instanceof MemberConnectionException)) {
                client.stats.retries.increment();
                double j = client.retry.getJitter();
                long delay = (long) (backoff * (1 - j + 2 * j * ThreadLocalRandom.current().nextDouble()));
                long next = Math.min((long) (backoff * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
                try {
                    client.scheduler.schedule(() -> attempt(client, req, deadline, attempt + 1, memory, next, out), delay, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException rex) {
                    fail(client, out, new ClientNotActiveException());
                }
            } else {
                fail(client, out, e);
            }
        });
    }

    /**
     * The breaker refused the query for the {@code memory}-th time: wait and send it again, or
     * give up with the refusal and the number of attempts.
     */
    private static void retryMemory(AtollClient client, ExecuteRequest req, long deadline, int attempt, int memory, long backoff,
                                    MemoryLimitException e, CompletableFuture<QueryCursor> out) {
        QueryRetryConfig policy = client.queryRetry;
        if (memory >= policy.getAttempts() || client.isClosed()) {
            fail(client, out, e.afterAttempts(memory));
            return;
        }
        Duration delay = policy.delay(memory - 1, e.getRetryAfter());
        if (System.nanoTime() + delay.toNanos() - deadline >= 0) {
            fail(client, out, e.afterAttempts(memory)); // the next attempt would come after the timeout
            return;
        }
        client.stats.retries.increment();
        Runnable next = () -> attempt(client, req, deadline, attempt, memory, backoff, out);
        try {
            if (policy.getDelayer() != null) {
                policy.getDelayer().schedule(next, delay);
            } else {
                client.scheduler.schedule(next, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        } catch (RejectedExecutionException rex) {
            fail(client, out, new ClientNotActiveException());
        }
    }
}
