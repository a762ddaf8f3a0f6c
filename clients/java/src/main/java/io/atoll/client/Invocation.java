package io.atoll.client;

import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One pipeline call with its retries: routed to the owner of a partition, to one member, or
 * to any member; retried with exponential backoff and jitter while the error allows it and
 * the deadline has not passed, at once when the client adopted a new partition table or
 * connected to a member meanwhile. The call fails at its deadline whatever it waits for then.
 * The rules are the Go client's (client.go invoke).
 */
final class Invocation {
    private final AtollClient client;
    private final PipelineRequest request;
    private final int partitionId;   // -1: not keyed
    private final String target;     // a member address, or null
    private final boolean idempotent;
    private final boolean retries;   // false: one attempt, the caller retries (OwnerBatches)
    private final long deadline;
    private final CompletableFuture<PipelineResponse> result = new CompletableFuture<>();
    private volatile int attempt;
    private long backoffNanos;
    private volatile Throwable lastError;
    /** Completes when the client adopted a table or connected since the current attempt began. */
    private CompletableFuture<Void> view;

    private Invocation(AtollClient client, PipelineRequest request, int partitionId, String target, boolean idempotent,
                       boolean retries, long deadline) {
        this.client = client;
        this.request = request;
        this.partitionId = partitionId;
        this.target = target;
        this.idempotent = idempotent;
        this.retries = retries;
        this.deadline = deadline;
        this.backoffNanos = client.retry.getInitialBackoff().toNanos();
    }

    /** Runs a call on the owner of a partition (any member when partitionId < 0). */
    static CompletableFuture<PipelineResponse> onPartition(AtollClient c, int partitionId, boolean idempotent, PipelineRequest req) {
        Invocation inv = new Invocation(c, req, partitionId, null, idempotent, true, c.invocationDeadline());
        c.stats.calls.increment();
        inv.start();
        return inv.result;
    }

    /** Runs a call on one member. */
    static CompletableFuture<PipelineResponse> onMember(AtollClient c, String address, boolean idempotent, PipelineRequest req) {
        Invocation inv = new Invocation(c, req, -1, address, idempotent, true, c.invocationDeadline());
        c.stats.calls.increment();
        inv.start();
        return inv.result;
    }

    /**
     * Starts the first attempt, and fails the call at its deadline whatever it waits for then
     * (a connection, a member's answer, a retry's turn).
     */
    private void start() {
        failAtDeadline(client, result, deadline, () -> lastError, () -> attempt, () -> client.stats.failures.increment());
        run();
    }

    /**
     * Completes {@code result} with an {@link OperationTimeoutException} at {@code deadline}
     * unless it completed before.
     */
    static void failAtDeadline(AtollClient client, CompletableFuture<?> result, long deadline,
                               java.util.function.Supplier<Throwable> last, java.util.function.IntSupplier attempts, Runnable counted) {
        try {
            java.util.concurrent.ScheduledFuture<?> timer = client.scheduler.schedule(() -> {
                Throwable t = timeout(client, last.get(), attempts.getAsInt());
                if (result.completeExceptionally(t)) {
                    counted.run();
                }
            }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            result.whenComplete((v, err) -> timer.cancel(false));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            result.completeExceptionally(new ClientNotActiveException());
        }
    }

    /**
     * Makes one attempt on the owner of a partition and fails with the error as it is: the
     * caller decides about retries ({@link #retryable}) and counts the call.
     */
    static CompletableFuture<PipelineResponse> once(AtollClient c, int partitionId, boolean idempotent, PipelineRequest req, long deadline) {
        Invocation inv = new Invocation(c, req, partitionId, null, idempotent, false, deadline);
        inv.run();
        return inv.result;
    }

    private void run() {
        if (result.isDone()) {
            return; // failed at its deadline
        }
        if (client.isClosed()) {
            fail(new ClientNotActiveException());
            return;
        }
        if (lastError != null && System.nanoTime() - deadline >= 0) {
            fail(finalError(lastError));
            return;
        }
        view = client.changes();
        CompletableFuture<Connection> conn = target != null ? client.connectTo(target) : client.connectionFor(partitionId);
        conn.whenComplete((c, err) -> {
            if (err != null) {
                onFailure(err);
                return;
            }
            c.send(request, deadline).whenComplete((resp, err2) -> {
                if (err2 != null) {
                    onFailure(err2);
                } else if (resp.hasError()) {
                    onFailure(Errors.fromPipeline(resp.getError(), c.address, client.config.getClusterName()));
                } else {
                    result.complete(resp);
                }
            });
        });
    }

    private void fail(Throwable t) {
        if (result.completeExceptionally(t)) {
            client.stats.failures.increment();
        }
    }

    /** Whether a failed call may be tried again before its deadline (the Go client's shouldRetry). */
    static boolean retryable(AtollClient client, Throwable err, boolean idempotent, long deadline) {
        if (client.isClosed() || System.nanoTime() - deadline >= 0) {
            return false;
        }
        if (err instanceof MemberConnectionException) {
            return !((MemberConnectionException) err).isSent() || idempotent || client.retry.isRedoOperation();
        }
        return err instanceof AtollException && ((AtollException) err).isRetryable();
    }

    private Throwable finalError(Throwable err) {
        return finalError(client, err, attempt, deadline);
    }

    /** The error a call that will not be retried fails with, after {@code attempt} retries. */
    static Throwable finalError(AtollClient client, Throwable err, int attempt, long deadline) {
        if (client.isClosed()) {
            return new ClientNotActiveException();
        }
        if (System.nanoTime() - deadline >= 0 && !(err instanceof OperationTimeoutException)) {
            return timeout(client, err, attempt);
        }
        return err;
    }

    /** The failure of a call whose deadline passed, after {@code attempt} retries, with the last error it met. */
    static OperationTimeoutException timeout(AtollClient client, Throwable last, int attempt) {
        if (client.isClosed()) {
            return new OperationTimeoutException("the client was closed before the call completed", null, -1, false, last);
        }
        String msg = "the call did not complete within the invocation timeout of " + ConnectionFailures.format(client.config.getInvocationTimeout());
        if (attempt > 0) {
            msg += " (" + attempt + (attempt == 1 ? " retry" : " retries") + ")";
        }
        if (last != null) {
            msg += "; before, " + last.getMessage();
        }
        return new OperationTimeoutException(msg, null, -1, false, last);
    }

    private void onFailure(Throwable t) {
        Throwable err = Errors.unwrap(t);
        lastError = err;
        if (!retries) {
            result.completeExceptionally(err);
            return;
        }
        if (!retryable(client, err, idempotent, deadline)) {
            fail(finalError(err));
            return;
        }
        client.stats.retries.increment();
        client.prepareRetry(err).whenComplete((v, perr) -> {
            if (perr != null) {
                fail(finalError(Errors.unwrap(perr)));
                return;
            }
            boolean immediate = attempt == 0 && err instanceof UnknownCompactSchemaException;
            attempt++;
            if (immediate) {
                run();
                return;
            }
            double j = client.retry.getJitter();
            long delay = (long) (backoffNanos * (1 - j + 2 * j * ThreadLocalRandom.current().nextDouble()));
            backoffNanos = Math.min((long) (backoffNanos * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
            if (System.nanoTime() + delay - deadline >= 0) {
                delay = Math.max(0, deadline - System.nanoTime());
            }
            // A table adopted or a connection opened meanwhile: go at once.
            client.retryAfter(delay, view, this::run);
        });
    }
}
