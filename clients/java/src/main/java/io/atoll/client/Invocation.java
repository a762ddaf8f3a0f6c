package io.atoll.client;

import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One pipeline call with its retries: routed to the owner of a partition, to one member, or
 * to any member; retried with exponential backoff and jitter while the error allows it and
 * the deadline has not passed. The rules are the Go client's (client.go invoke).
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
    private int attempt;
    private long backoffNanos;
    private Throwable lastError;

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
        inv.run();
        return inv.result;
    }

    /** Runs a call on one member. */
    static CompletableFuture<PipelineResponse> onMember(AtollClient c, String address, boolean idempotent, PipelineRequest req) {
        Invocation inv = new Invocation(c, req, -1, address, idempotent, true, c.invocationDeadline());
        c.stats.calls.increment();
        inv.run();
        return inv.result;
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
        if (client.isClosed()) {
            fail(new ClientNotActiveException());
            return;
        }
        if (lastError != null && System.nanoTime() - deadline >= 0) {
            fail(finalError(lastError));
            return;
        }
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
        client.stats.failures.increment();
        result.completeExceptionally(t);
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
            String member = err instanceof AtollException ? ((AtollException) err).getMemberAddress() : null;
            return new OperationTimeoutException("the call did not complete within the invocation timeout of "
                    + client.config.getInvocationTimeout() + " (" + attempt + " retries; last error: " + err.getMessage() + ")",
                    member, -1, false, err);
        }
        return err;
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
            try {
                client.scheduler.schedule(this::run, delay, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                fail(new ClientNotActiveException());
            }
        });
    }
}
