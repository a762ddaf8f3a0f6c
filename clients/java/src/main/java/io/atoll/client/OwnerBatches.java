package io.atoll.client;

import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;
import io.atoll.client.serialization.Data;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * A multi-key call (putAll, getAll): requests to each owning member for the keys it owns, each
 * small enough for one message ({@code size} gives the bytes a key and its value add to a
 * request) and within the member's batch limit, sent one after the other per member while the
 * members run in parallel. A getAll answer that filled a message names the keys left, which the
 * next round asks for ({@code more}). The keys of a request that failed with a retryable error
 * (their partitions moved, their member left) are grouped again by the refreshed table and sent
 * again with backoff until the invocation timeout passes (at once when the client adopted a
 * new table meanwhile): one member may no longer own them all, so sending the same request
 * again could fail forever. The call fails at its deadline whatever it waits for then. The rules
 * are the Go client's (map.go invokeByOwner).
 */
final class OwnerBatches {
    private final AtollClient client;
    private final List<Data> keys;
    private final IntUnaryOperator size;
    private final boolean idempotent;
    private final Function<List<Integer>, PipelineRequest> build;
    private final BiFunction<List<Integer>, PipelineResponse, List<Integer>> more;
    private final long deadline;
    private final List<PipelineResponse> responses = new ArrayList<>();
    private final CompletableFuture<List<PipelineResponse>> result = new CompletableFuture<>();
    private long backoffNanos;
    private volatile int attempt;
    private volatile Throwable lastError;

    private OwnerBatches(AtollClient client, List<Data> keys, IntUnaryOperator size, boolean idempotent,
                         Function<List<Integer>, PipelineRequest> build, BiFunction<List<Integer>, PipelineResponse, List<Integer>> more) {
        this.client = client;
        this.keys = keys;
        this.size = size;
        this.idempotent = idempotent;
        this.build = build;
        this.more = more;
        this.deadline = client.invocationDeadline();
        this.backoffNanos = client.retry.getInitialBackoff().toNanos();
    }

    /**
     * Runs the call for {@code keys}; {@code build} makes one request from the indexes of its
     * keys, and {@code more} (null for none) returns the indexes a response left unanswered.
     * The result holds every request's response.
     */
    static CompletableFuture<List<PipelineResponse>> run(AtollClient client, List<Data> keys, IntUnaryOperator size, boolean idempotent,
                                                         Function<List<Integer>, PipelineRequest> build,
                                                         BiFunction<List<Integer>, PipelineResponse, List<Integer>> more) {
        OwnerBatches b = new OwnerBatches(client, keys, size, idempotent, build, more);
        client.stats.calls.increment();
        List<Integer> all = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            all.add(i);
        }
        if (all.isEmpty()) {
            b.result.complete(b.responses);
        } else {
            Invocation.failAtDeadline(client, b.result, b.deadline, () -> b.lastError, () -> b.attempt, () -> client.stats.failures.increment());
            b.round(all);
        }
        return b.result;
    }

    private void round(List<Integer> pending) {
        if (result.isDone()) {
            return; // failed at its deadline
        }
        CompletableFuture<Void> view = client.changes();
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        Map<String, Integer> pids = new LinkedHashMap<>();
        for (int i : pending) {
            int pid = client.partitionOf(keys.get(i));
            String owner = String.valueOf(client.ownerOf(pid));
            groups.computeIfAbsent(owner, k -> new ArrayList<>()).add(i);
            pids.putIfAbsent(owner, pid);
        }
        List<Integer> retry = new ArrayList<>();
        List<Integer> again = new ArrayList<>();
        Throwable[] errs = new Throwable[2]; // [0] the last retryable error, [1] the first fatal one
        List<CompletableFuture<?>> members = new ArrayList<>(groups.size());
        Limits limits = client.limits;
        for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
            int pid = pids.get(g.getKey());
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (List<Integer> batch : limits.batches(g.getValue(), size)) {
                chain = chain.thenCompose(v -> {
                    synchronized (this) {
                        if (errs[1] != null || result.isDone()) {
                            return CompletableFuture.completedFuture(null);
                        }
                    }
                    PipelineRequest req;
                    try {
                        req = build.apply(batch);
                    } catch (RuntimeException e) {
                        return CompletableFuture.failedFuture(e);
                    }
                    return Invocation.once(client, pid, idempotent, req, deadline).handle((resp, err) -> {
                        synchronized (this) {
                            if (err == null) {
                                responses.add(resp);
                                if (more != null) {
                                    again.addAll(more.apply(batch, resp));
                                }
                            } else if (Invocation.retryable(client, Errors.unwrap(err), idempotent, deadline)) {
                                retry.addAll(batch);
                                errs[0] = Errors.unwrap(err);
                            } else if (errs[1] == null) {
                                errs[1] = Errors.unwrap(err);
                            }
                        }
                        return null;
                    });
                });
            }
            members.add(chain.exceptionally(e -> {
                synchronized (this) {
                    if (errs[1] == null) {
                        errs[1] = Errors.unwrap(e);
                    }
                }
                return null;
            }));
        }
        CompletableFuture.allOf(members.toArray(new CompletableFuture<?>[0])).whenComplete((v, ignored) -> {
            synchronized (this) {
                if (errs[1] != null) {
                    fail(errs[1]);
                } else if (!retry.isEmpty()) {
                    retryLater(retry, again, errs[0], view);
                } else if (!again.isEmpty()) {
                    round(again);
                } else {
                    result.complete(responses);
                }
            }
        });
    }

    private void retryLater(List<Integer> retry, List<Integer> again, Throwable err, CompletableFuture<Void> view) {
        client.stats.retries.increment();
        lastError = err;
        client.prepareRetry(err).whenComplete((v, perr) -> {
            if (perr != null) {
                fail(Errors.unwrap(perr));
                return;
            }
            attempt++;
            long delay = client.jitter(backoffNanos);
            backoffNanos = Math.min((long) (backoffNanos * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
            delay = Math.min(delay, Math.max(0, deadline - System.nanoTime())); // then it fails at its deadline
            List<Integer> next = new ArrayList<>(again);
            next.addAll(retry);
            client.retryAfter(delay, view, () -> round(next));
        });
    }

    private void fail(Throwable err) {
        if (result.completeExceptionally(Invocation.finalError(client, err, attempt, deadline))) {
            client.stats.failures.increment();
        }
    }
}
