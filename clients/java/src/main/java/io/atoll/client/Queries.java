package io.atoll.client;

import io.atoll.client.proto.ExecuteRequest;
import io.atoll.client.proto.QueryCall;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends a statement or predicate query to a coordinating member and returns its first page
 * (the Go client's Client.execute). A query is retried — on another member when several are
 * known — when it never reached a member, when the member asks for a schema first, or when
 * its error is retryable; at most {@value #MAX_ATTEMPTS} attempts within the invocation
 * timeout. A query that may have run (a DML statement whose stream broke) is not repeated.
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
        meta.whenComplete((v, err) -> {
            if (err != null) {
                fail(client, out, Errors.unwrap(err));
                return;
            }
            attempt(client, built, deadline, 0, client.retry.getInitialBackoff().toNanos(), out);
        });
        return out;
    }

    private static void fail(AtollClient client, CompletableFuture<QueryCursor> out, Throwable t) {
        client.stats.failures.increment();
        out.completeExceptionally(client.isClosed() ? new ClientNotActiveException() : t);
    }

    private static void attempt(AtollClient client, ExecuteRequest req, long deadline, int attempt, long backoff,
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
                out.complete(cursor);
                return;
            }
            Throwable e = Errors.unwrap(err);
            boolean time = System.nanoTime() - deadline < 0;
            if (attempt + 1 >= MAX_ATTEMPTS || !time || client.isClosed()) {
                fail(client, out, e);
                return;
            }
            if (e instanceof MemberConnectionException && !((MemberConnectionException) e).isSent()) {
                client.stats.retries.increment();
                attempt(client, req, deadline, attempt + 1, backoff, out);
            } else if (e instanceof UnknownCompactSchemaException) {
                client.stats.retries.increment();
                client.metadata.publishSchema(((UnknownCompactSchemaException) e).getSchemaId()).whenComplete((v, perr) -> {
                    if (perr != null) {
                        fail(client, out, e);
                    } else {
                        attempt(client, req, deadline, attempt + 1, backoff, out);
                    }
                });
            } else if (e instanceof AtollException && ((AtollException) e).isRetryable() && !(e instanceof MemberConnectionException)) {
                client.stats.retries.increment();
                double j = client.retry.getJitter();
                long delay = (long) (backoff * (1 - j + 2 * j * ThreadLocalRandom.current().nextDouble()));
                long next = Math.min((long) (backoff * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
                try {
                    client.scheduler.schedule(() -> attempt(client, req, deadline, attempt + 1, next, out), delay, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException rex) {
                    fail(client, out, new ClientNotActiveException());
                }
            } else {
                fail(client, out, e);
            }
        });
    }
}
