package io.atoll.client;

import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;
import io.atoll.client.serialization.Data;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A multi-key call (putAll, getAll): one request per owning member for the keys it owns. The
 * keys of a request that failed with a retryable error (their partitions moved, their member
 * left) are grouped again by the refreshed table and sent again with backoff until the
 * invocation timeout passes: one member may no longer own them all, so sending the same
 * request again could fail forever. The rules are the Go client's (map.go invokeByOwner).
 */
final class OwnerBatches {
    private final AtollClient client;
    private final List<Data> keys;
    private final boolean idempotent;
    private final Function<List<Integer>, PipelineRequest> build;
    private final long deadline;
    private final List<PipelineResponse> responses = new ArrayList<>();
    private final CompletableFuture<List<PipelineResponse>> result = new CompletableFuture<>();
    private long backoffNanos;
    private int attempt;

    private OwnerBatches(AtollClient client, List<Data> keys, boolean idempotent, Function<List<Integer>, PipelineRequest> build) {
        this.client = client;
        this.keys = keys;
        this.idempotent = idempotent;
        this.build = build;
        this.deadline = client.invocationDeadline();
        this.backoffNanos = client.retry.getInitialBackoff().toNanos();
    }

    /**
     * Runs the call for {@code keys}; {@code build} makes one member's request from the indexes
     * of its keys. The result holds every request's response.
     */
    static CompletableFuture<List<PipelineResponse>> run(AtollClient client, List<Data> keys, boolean idempotent,
                                                         Function<List<Integer>, PipelineRequest> build) {
        OwnerBatches b = new OwnerBatches(client, keys, idempotent, build);
        client.stats.calls.increment();
        List<Integer> all = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            all.add(i);
        }
        if (all.isEmpty()) {
            b.result.complete(b.responses);
        } else {
            b.round(all);
        }
        return b.result;
    }

    private void round(List<Integer> pending) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        Map<String, Integer> pids = new LinkedHashMap<>();
        for (int i : pending) {
            int pid = client.partitionOf(keys.get(i));
            String owner = String.valueOf(client.ownerOf(pid));
            groups.computeIfAbsent(owner, k -> new ArrayList<>()).add(i);
            pids.putIfAbsent(owner, pid);
        }
        List<Integer> retry = new ArrayList<>();
        Throwable[] errs = new Throwable[2]; // [0] the last retryable error, [1] the first fatal one
        List<CompletableFuture<?>> calls = new ArrayList<>(groups.size());
        for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
            List<Integer> idx = g.getValue();
            calls.add(Invocation.once(client, pids.get(g.getKey()), idempotent, build.apply(idx), deadline).handle((resp, err) -> {
                synchronized (this) {
                    if (err == null) {
                        responses.add(resp);
                    } else if (Invocation.retryable(client, Errors.unwrap(err), idempotent, deadline)) {
                        retry.addAll(idx);
                        errs[0] = Errors.unwrap(err);
                    } else if (errs[1] == null) {
                        errs[1] = Errors.unwrap(err);
                    }
                }
                return null;
            }));
        }
        CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).whenComplete((v, ignored) -> {
            synchronized (this) {
                if (errs[1] != null) {
                    fail(errs[1]);
                } else if (retry.isEmpty()) {
                    result.complete(responses);
                } else {
                    retryLater(retry, errs[0]);
                }
            }
        });
    }

    private void retryLater(List<Integer> retry, Throwable err) {
        client.stats.retries.increment();
        client.prepareRetry(err).whenComplete((v, perr) -> {
            if (perr != null) {
                fail(Errors.unwrap(perr));
                return;
            }
            attempt++;
            long delay = client.jitter(backoffNanos);
            backoffNanos = Math.min((long) (backoffNanos * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
            if (System.nanoTime() + delay - deadline >= 0) {
                fail(err);
                return;
            }
            try {
                client.scheduler.schedule(() -> round(retry), delay, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                fail(new ClientNotActiveException());
            }
        });
    }

    private void fail(Throwable err) {
        client.stats.failures.increment();
        result.completeExceptionally(Invocation.finalError(client, err, attempt, deadline));
    }
}
