package io.atoll.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.atoll.client.proto.Entry;
import io.atoll.client.proto.EntryEventBatch;
import io.atoll.client.proto.GetAllRequest;
import io.atoll.client.proto.KeyRequest;
import io.atoll.client.proto.ListenRequest;
import io.atoll.client.proto.LockRequest;
import io.atoll.client.proto.MapRequest;
import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;
import io.atoll.client.proto.PutAllRequest;
import io.atoll.client.proto.PutRequest;
import io.atoll.client.proto.ReplaceIfSameRequest;
import io.atoll.client.proto.SetRequest;
import io.atoll.client.proto.SetTtlRequest;
import io.atoll.client.proto.ValueResponse;
import io.atoll.client.proto.AddIndexRequest;
import io.atoll.client.proto.Empty;
import io.atoll.client.proto.ExecuteRequest;
import io.atoll.client.proto.PredicateQuery;
import io.atoll.client.proto.PredicateResult;
import io.atoll.client.proto.QueryServiceGrpc;
import io.atoll.client.query.Aggregator;
import io.atoll.client.query.Predicate;
import io.atoll.client.query.Projection;
import io.atoll.client.serialization.Data;
import io.grpc.stub.StreamObserver;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** The client's {@link AtollMap}: serialization, routing and the near cache around pipeline calls. */
final class ClientMap<K, V> implements AtollMap<K, V> {
    private static final System.Logger LOG = System.getLogger(ClientMap.class.getName());
    private static final long UNSET = Long.MIN_VALUE;

    private final AtollClient client;
    private final String name;
    private final NearCache near;

    ClientMap(AtollClient client, String name, NearCache near) {
        this.client = client;
        this.name = name;
        this.near = near;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String toString() {
        return "AtollMap{" + name + "}";
    }

    // ---- helpers ----

    static ByteString bytes(Data d) {
        return UnsafeByteOperations.unsafeWrap(d.asReadOnlyByteBuffer());
    }

    static Data data(ByteString b) {
        return Data.fromByteBuffer(b.asReadOnlyByteBuffer());
    }

    private Data key(Object key) {
        client.checkOpen();
        return client.toData(key, "key");
    }

    private Data value(Object value) {
        return client.toData(value, "value");
    }

    /** Milliseconds of a TTL or max-idle argument: positive durations round up so they never become 0 (forever). */
    static long toMs(long amount, TimeUnit unit, String what) {
        Objects.requireNonNull(unit, what + " unit");
        if (amount < 0) {
            throw new IllegalArgumentException(what + " must not be negative, got " + amount + " " + unit);
        }
        if (amount == 0) {
            return 0;
        }
        long nanos = unit.toNanos(amount);
        if (nanos == Long.MAX_VALUE) {
            return unit.toMillis(amount);
        }
        return (nanos + 999_999) / 1_000_000;
    }

    static long toMs(java.time.Duration d) {
        if (d.isZero()) {
            return 0;
        }
        try {
            long nanos = d.toNanos();
            return (nanos + 999_999) / 1_000_000;
        } catch (ArithmeticException e) {
            return d.toMillis();
        }
    }

    private <T> CompletableFuture<T> decode(Data d) {
        return client.metadata.toObject(d);
    }

    private CompletableFuture<V> valueResult(PipelineResponse resp) {
        ValueResponse r = resp.getValue();
        if (!r.getFound()) {
            return CompletableFuture.completedFuture(null);
        }
        return decode(data(r.getValue()));
    }

    private CompletableFuture<PipelineResponse> read(Data key, PipelineRequest req) {
        return Invocation.onPartition(client, client.partitionOf(key), true, req);
    }

    /**
     * A keyed write: publishes pending metadata first, and invalidates the near cache entry
     * after the call (also when it failed: the outcome may be unknown) and before the caller
     * sees the result.
     */
    private CompletableFuture<PipelineResponse> write(Data key, PipelineRequest req) {
        int pid = client.partitionOf(key);
        CompletableFuture<Void> meta = client.metadata.flush();
        CompletableFuture<PipelineResponse> r = meta.isDone() && !meta.isCompletedExceptionally()
                ? Invocation.onPartition(client, pid, false, req)
                : meta.thenCompose(v -> Invocation.onPartition(client, pid, false, req));
        if (near == null) {
            return r;
        }
        return r.whenComplete((resp, err) -> near.invalidate(key));
    }

    private CompletableFuture<List<PipelineResponse>> onEveryMember(PipelineRequest req, boolean idempotent) {
        return client.memberAddresses().thenCompose(members -> {
            List<CompletableFuture<PipelineResponse>> calls = new ArrayList<>();
            for (String m : members) {
                calls.add(Invocation.onMember(client, m, idempotent, req));
            }
            return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
                List<PipelineResponse> out = new ArrayList<>(calls.size());
                for (CompletableFuture<PipelineResponse> c : calls) {
                    out.add(c.join());
                }
                return out;
            });
        });
    }

    private static <T> T await(CompletableFuture<T> f) {
        return AtollClient.await(f);
    }

    // ---- get ----

    @Override
    public V get(K key) {
        return await(getAsync(key));
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<V> getAsync(K key) {
        Data kd = key(key);
        NearCache.Reservation res = null;
        if (near != null) {
            NearCache.Entry e = near.get(kd);
            if (e != null) {
                return e.data == null ? CompletableFuture.completedFuture((V) e.object) : decode(e.data);
            }
            res = near.reserve(kd);
        }
        NearCache.Reservation reservation = res;
        PipelineRequest req = PipelineRequest.newBuilder().setGet(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build();
        return read(kd, req).thenCompose(resp -> {
            ValueResponse r = resp.getValue();
            if (!r.getFound()) {
                return CompletableFuture.completedFuture(null);
            }
            Data vd = data(r.getValue());
            CompletableFuture<V> v = decode(vd);
            if (near == null) {
                return v;
            }
            return v.thenApply(obj -> {
                near.put(kd, vd, obj, reservation);
                return obj;
            });
        });
    }

    // ---- put / set / putIfAbsent ----

    private PutRequest.Builder putRequest(Data kd, Data vd, long ttlMs, long maxIdleMs) {
        PutRequest.Builder b = PutRequest.newBuilder().setMap(name).setKey(bytes(kd)).setValue(bytes(vd));
        if (ttlMs != UNSET) {
            b.setTtlMs(ttlMs);
        }
        if (maxIdleMs != UNSET) {
            b.setMaxIdleMs(maxIdleMs);
        }
        return b;
    }

    private CompletableFuture<V> doPut(K key, V value, long ttlMs, long maxIdleMs) {
        Data kd = key(key);
        Data vd = value(value);
        return write(kd, PipelineRequest.newBuilder().setPut(putRequest(kd, vd, ttlMs, maxIdleMs)).build()).thenCompose(this::valueResult);
    }

    @Override
    public V put(K key, V value) {
        return await(putAsync(key, value));
    }

    @Override
    public V put(K key, V value, long ttl, TimeUnit ttlUnit) {
        return await(putAsync(key, value, ttl, ttlUnit));
    }

    @Override
    public V put(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit) {
        return await(putAsync(key, value, ttl, ttlUnit, maxIdle, maxIdleUnit));
    }

    @Override
    public CompletableFuture<V> putAsync(K key, V value) {
        return doPut(key, value, UNSET, UNSET);
    }

    @Override
    public CompletableFuture<V> putAsync(K key, V value, long ttl, TimeUnit ttlUnit) {
        return doPut(key, value, toMs(ttl, ttlUnit, "ttl"), UNSET);
    }

    @Override
    public CompletableFuture<V> putAsync(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit) {
        return doPut(key, value, toMs(ttl, ttlUnit, "ttl"), toMs(maxIdle, maxIdleUnit, "maxIdle"));
    }

    private CompletableFuture<Void> doSet(K key, V value, long ttlMs, long maxIdleMs) {
        Data kd = key(key);
        Data vd = value(value);
        SetRequest.Builder b = SetRequest.newBuilder().setMap(name).setKey(bytes(kd)).setValue(bytes(vd));
        if (ttlMs != UNSET) {
            b.setTtlMs(ttlMs);
        }
        if (maxIdleMs != UNSET) {
            b.setMaxIdleMs(maxIdleMs);
        }
        return write(kd, PipelineRequest.newBuilder().setSet(b).build()).thenApply(r -> null);
    }

    @Override
    public void set(K key, V value) {
        await(setAsync(key, value));
    }

    @Override
    public void set(K key, V value, long ttl, TimeUnit ttlUnit) {
        await(setAsync(key, value, ttl, ttlUnit));
    }

    @Override
    public void set(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit) {
        await(setAsync(key, value, ttl, ttlUnit, maxIdle, maxIdleUnit));
    }

    @Override
    public CompletableFuture<Void> setAsync(K key, V value) {
        return doSet(key, value, UNSET, UNSET);
    }

    @Override
    public CompletableFuture<Void> setAsync(K key, V value, long ttl, TimeUnit ttlUnit) {
        return doSet(key, value, toMs(ttl, ttlUnit, "ttl"), UNSET);
    }

    @Override
    public CompletableFuture<Void> setAsync(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit) {
        return doSet(key, value, toMs(ttl, ttlUnit, "ttl"), toMs(maxIdle, maxIdleUnit, "maxIdle"));
    }

    private CompletableFuture<V> doPutIfAbsent(K key, V value, long ttlMs, long maxIdleMs) {
        Data kd = key(key);
        Data vd = value(value);
        return write(kd, PipelineRequest.newBuilder().setPutIfAbsent(putRequest(kd, vd, ttlMs, maxIdleMs)).build())
                .thenCompose(this::valueResult);
    }

    @Override
    public V putIfAbsent(K key, V value) {
        return await(putIfAbsentAsync(key, value));
    }

    @Override
    public V putIfAbsent(K key, V value, long ttl, TimeUnit ttlUnit) {
        return await(putIfAbsentAsync(key, value, ttl, ttlUnit));
    }

    @Override
    public V putIfAbsent(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit) {
        return await(putIfAbsentAsync(key, value, ttl, ttlUnit, maxIdle, maxIdleUnit));
    }

    @Override
    public CompletableFuture<V> putIfAbsentAsync(K key, V value) {
        return doPutIfAbsent(key, value, UNSET, UNSET);
    }

    @Override
    public CompletableFuture<V> putIfAbsentAsync(K key, V value, long ttl, TimeUnit ttlUnit) {
        return doPutIfAbsent(key, value, toMs(ttl, ttlUnit, "ttl"), UNSET);
    }

    @Override
    public CompletableFuture<V> putIfAbsentAsync(K key, V value, long ttl, TimeUnit ttlUnit, long maxIdle, TimeUnit maxIdleUnit) {
        return doPutIfAbsent(key, value, toMs(ttl, ttlUnit, "ttl"), toMs(maxIdle, maxIdleUnit, "maxIdle"));
    }

    // ---- remove / delete / replace ----

    @Override
    public V remove(K key) {
        return await(removeAsync(key));
    }

    @Override
    public CompletableFuture<V> removeAsync(K key) {
        Data kd = key(key);
        return write(kd, PipelineRequest.newBuilder().setRemove(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build())
                .thenCompose(this::valueResult);
    }

    @Override
    public boolean remove(K key, V value) {
        return await(removeAsync(key, value));
    }

    @Override
    public CompletableFuture<Boolean> removeAsync(K key, V value) {
        Data kd = key(key);
        Data vd = value(value);
        return write(kd, PipelineRequest.newBuilder().setRemoveIfSame(
                ReplaceIfSameRequest.newBuilder().setMap(name).setKey(bytes(kd)).setExpected(bytes(vd))).build())
                .thenApply(r -> r.getBool().getValue());
    }

    @Override
    public boolean delete(K key) {
        return await(deleteAsync(key));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(K key) {
        Data kd = key(key);
        return write(kd, PipelineRequest.newBuilder().setDelete(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build())
                .thenApply(r -> r.getBool().getValue());
    }

    @Override
    public V replace(K key, V value) {
        return await(replaceAsync(key, value));
    }

    @Override
    public CompletableFuture<V> replaceAsync(K key, V value) {
        Data kd = key(key);
        Data vd = value(value);
        return write(kd, PipelineRequest.newBuilder().setReplace(putRequest(kd, vd, UNSET, UNSET)).build()).thenCompose(this::valueResult);
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        return await(replaceAsync(key, oldValue, newValue));
    }

    @Override
    public CompletableFuture<Boolean> replaceAsync(K key, V oldValue, V newValue) {
        Data kd = key(key);
        Data od = client.toData(oldValue, "oldValue");
        Data nd = client.toData(newValue, "newValue");
        return write(kd, PipelineRequest.newBuilder().setReplaceIfSame(ReplaceIfSameRequest.newBuilder().setMap(name)
                .setKey(bytes(kd)).setExpected(bytes(od)).setValue(bytes(nd))).build())
                .thenApply(r -> r.getBool().getValue());
    }

    // ---- containsKey / evict / setTtl / entry view ----

    @Override
    public boolean containsKey(K key) {
        return await(containsKeyAsync(key));
    }

    @Override
    public CompletableFuture<Boolean> containsKeyAsync(K key) {
        Data kd = key(key);
        return read(kd, PipelineRequest.newBuilder().setContainsKey(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build())
                .thenApply(r -> r.getBool().getValue());
    }

    // ---- locks ----

    /** One lock request's longest wait at the member; a longer wait sends another. */
    private long lockWaitChunkMs() {
        return Math.max(1, Math.min(30_000, client.config.getInvocationTimeout().toMillis() / 2));
    }

    /** One lock request: waits up to waitMs at the member; leaseMs < 0 asks for a session lock. */
    private boolean lockOnce(Data kd, long waitMs, long leaseMs) {
        LockRequest.Builder b = LockRequest.newBuilder().setMap(name).setKey(bytes(kd)).setWaitMs(waitMs);
        if (leaseMs >= 0) {
            b.setLeaseMs(leaseMs);
        } else {
            b.setSessionLeaseMs(client.config.getLockSessionLease().toMillis());
        }
        boolean acquired = await(read(kd, PipelineRequest.newBuilder().setLock(b).build())).getLock().getAcquired();
        if (acquired && leaseMs < 0) {
            client.sessionLocks.add(name, kd);
        }
        return acquired;
    }

    private static long leaseMs(long leaseTime, TimeUnit unit) {
        long ms = toMs(leaseTime, unit, "lease time");
        if (ms < 1) {
            throw new IllegalArgumentException("lease time must be positive, got " + leaseTime + " " + unit);
        }
        return ms;
    }

    private boolean lockUntil(K key, long deadlineNanos, long leaseMs) {
        Data kd = key(key);
        while (true) {
            long leftMs = deadlineNanos == Long.MAX_VALUE ? lockWaitChunkMs()
                    : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
            if (lockOnce(kd, Math.min(leftMs, lockWaitChunkMs()), leaseMs)) {
                return true;
            }
            if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos >= 0) {
                return false;
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new OperationCancelledException("interrupted while waiting for a lock", null, -1, false, null);
            }
        }
    }

    @Override
    public void lock(K key) {
        lockUntil(key, Long.MAX_VALUE, -1);
    }

    @Override
    public void lock(K key, long leaseTime, TimeUnit leaseUnit) {
        lockUntil(key, Long.MAX_VALUE, leaseMs(leaseTime, leaseUnit));
    }

    @Override
    public boolean tryLock(K key) {
        return lockUntil(key, System.nanoTime(), -1);
    }

    @Override
    public boolean tryLock(K key, long time, TimeUnit unit) {
        return lockUntil(key, System.nanoTime() + unit.toNanos(Math.max(0, time)), -1);
    }

    @Override
    public boolean tryLock(K key, long time, TimeUnit unit, long leaseTime, TimeUnit leaseUnit) {
        return lockUntil(key, System.nanoTime() + unit.toNanos(Math.max(0, time)), leaseMs(leaseTime, leaseUnit));
    }

    @Override
    public void unlock(K key) {
        Data kd = key(key);
        try {
            await(write(kd, PipelineRequest.newBuilder().setUnlock(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build()));
        } catch (NotLockOwnerException e) {
            IllegalMonitorStateException ise = new IllegalMonitorStateException(e.getMessage());
            ise.initCause(e);
            throw ise;
        }
        client.sessionLocks.remove(name, kd);
    }

    @Override
    public boolean isLocked(K key) {
        Data kd = key(key);
        return await(read(kd, PipelineRequest.newBuilder().setIsLocked(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build()))
                .getLockState().getLocked();
    }

    @Override
    public void forceUnlock(K key) {
        Data kd = key(key);
        await(write(kd, PipelineRequest.newBuilder().setForceUnlock(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build()));
    }

    @Override
    public boolean evict(K key) {
        return await(evictAsync(key));
    }

    @Override
    public CompletableFuture<Boolean> evictAsync(K key) {
        Data kd = key(key);
        return write(kd, PipelineRequest.newBuilder().setEvict(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build())
                .thenApply(r -> r.getBool().getValue());
    }

    @Override
    public boolean setTtl(K key, long ttl, TimeUnit unit) {
        return await(setTtlAsync(key, ttl, unit));
    }

    @Override
    public CompletableFuture<Boolean> setTtlAsync(K key, long ttl, TimeUnit unit) {
        long ms = toMs(ttl, unit, "ttl");
        Data kd = key(key);
        return write(kd, PipelineRequest.newBuilder().setSetTtl(SetTtlRequest.newBuilder().setMap(name).setKey(bytes(kd)).setTtlMs(ms)).build())
                .thenApply(r -> r.getBool().getValue());
    }

    @Override
    public EntryView<K, V> getEntryView(K key) {
        return await(getEntryViewAsync(key));
    }

    @Override
    public CompletableFuture<EntryView<K, V>> getEntryViewAsync(K key) {
        Data kd = key(key);
        return read(kd, PipelineRequest.newBuilder().setGetEntryView(KeyRequest.newBuilder().setMap(name).setKey(bytes(kd))).build())
                .thenCompose(r -> {
                    if (!r.getEntryView().getFound()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    io.atoll.client.proto.EntryView v = r.getEntryView().getView();
                    return this.<V>decode(data(v.getValue())).thenApply(val -> new EntryView<>(key, val, v));
                });
    }

    // ---- batches ----

    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        await(putAllAsync(entries));
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries, long ttl, TimeUnit ttlUnit) {
        await(putAllAsync(entries, ttl, ttlUnit));
    }

    @Override
    public CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries) {
        return doPutAll(entries, UNSET);
    }

    @Override
    public CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries, long ttl, TimeUnit ttlUnit) {
        return doPutAll(entries, toMs(ttl, ttlUnit, "ttl"));
    }

    private CompletableFuture<Void> doPutAll(Map<? extends K, ? extends V> entries, long ttlMs) {
        client.checkOpen();
        List<Data> keys = new ArrayList<>(entries.size());
        List<Data> values = new ArrayList<>(entries.size());
        for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
            keys.add(key(e.getKey()));
            values.add(value(e.getValue()));
        }
        if (keys.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        java.util.function.IntUnaryOperator size = i -> keys.get(i).totalSize() + values.get(i).totalSize() + Limits.ENTRY_OVERHEAD;
        CompletableFuture<Void> done = client.metadata.flush().thenCompose(v -> OwnerBatches.run(client, keys, size, false, idx -> {
            PutAllRequest.Builder req = PutAllRequest.newBuilder().setMap(name);
            if (ttlMs != UNSET) {
                req.setTtlMs(ttlMs);
            }
            for (int i : idx) {
                req.addEntries(Entry.newBuilder().setKey(bytes(keys.get(i))).setValue(bytes(values.get(i))));
            }
            return PipelineRequest.newBuilder().setPutAll(req).build();
        }, null)).thenApply(rs -> null);
        if (near == null) {
            return done;
        }
        return done.whenComplete((v, err) -> keys.forEach(near::invalidate));
    }

    @Override
    public Map<K, V> getAll(Set<K> keys) {
        return await(getAllAsync(keys));
    }

    @Override
    public CompletableFuture<Map<K, V>> getAllAsync(Set<K> keys) {
        client.checkOpen();
        List<Data> kds = new ArrayList<>(keys.size());
        for (K k : keys) {
            kds.add(key(k));
        }
        // The member answers what fits in one message and names the keys left, which the next
        // round asks for.
        return OwnerBatches.run(client, kds, i -> kds.get(i).totalSize() + Limits.ENTRY_OVERHEAD, true, idx -> {
            GetAllRequest.Builder req = GetAllRequest.newBuilder().setMap(name).setPartial(true);
            for (int i : idx) {
                req.addKeys(bytes(kds.get(i)));
            }
            return PipelineRequest.newBuilder().setGetAll(req).build();
        }, (idx, resp) -> {
            List<Integer> left = new ArrayList<>();
            for (int j : resp.getEntries().getUnansweredList()) {
                if (j < 0 || j >= idx.size()) {
                    throw new InternalException("the member left key " + j + " of a request of " + idx.size() + " unanswered", null, -1, false, null);
                }
                left.add(idx.get(j));
            }
            return left;
        }).thenCompose(rs -> {
            List<Data> flat = new ArrayList<>();
            for (PipelineResponse r : rs) {
                for (Entry e : r.getEntries().getEntriesList()) {
                    flat.add(data(e.getKey()));
                    flat.add(data(e.getValue()));
                }
            }
            return decodeAll(flat).thenApply(objs -> {
                Map<K, V> out = new HashMap<>();
                for (int i = 0; i < objs.size(); i += 2) {
                    @SuppressWarnings("unchecked") K k = (K) objs.get(i);
                    @SuppressWarnings("unchecked") V val = (V) objs.get(i + 1);
                    out.put(k, val);
                }
                return out;
            });
        });
    }

    /** Decodes in order; synchronous unless a schema or layout must be fetched. */
    private CompletableFuture<List<Object>> decodeAll(List<Data> items) {
        List<Object> out = new ArrayList<>(items.size());
        return decodeFrom(items, 0, out);
    }

    private CompletableFuture<List<Object>> decodeFrom(List<Data> items, int from, List<Object> out) {
        for (int i = from; i < items.size(); i++) {
            Data d = items.get(i);
            if (d == null) {
                out.add(null);
                continue;
            }
            CompletableFuture<Object> f = decode(d);
            if (f.isDone() && !f.isCompletedExceptionally()) {
                out.add(f.join());
                continue;
            }
            int next = i + 1;
            return f.thenCompose(obj -> {
                out.add(obj);
                return decodeFrom(items, next, out);
            });
        }
        return CompletableFuture.completedFuture(out);
    }

    // ---- whole map ----

    @Override
    public int size() {
        return await(sizeAsync());
    }

    @Override
    public CompletableFuture<Integer> sizeAsync() {
        PipelineRequest req = PipelineRequest.newBuilder().setSize(MapRequest.newBuilder().setMap(name)).build();
        return everyPartition(req, true, "counted").thenApply(total -> (int) Math.min(Integer.MAX_VALUE, total));
    }

    /**
     * Runs a whole-map call (size, clear) on every member in rounds until the members' answers
     * cover every partition: exactly once when {@code exact}, at least once otherwise. Each
     * member names the partitions it owned while it answered; partitions that move during a
     * round may be covered twice or not at all, and the round is then repeated after a
     * backoff. Completes with the sum of the members' sizes.
     */
    private CompletableFuture<Long> everyPartition(PipelineRequest req, boolean exact, String what) {
        client.checkOpen();
        CompletableFuture<Long> out = new CompletableFuture<>();
        long deadline = System.nanoTime() + client.config.getInvocationTimeout().toNanos();
        partitionRound(req, exact, what, deadline, client.retry.getInitialBackoff().toNanos(), out);
        return out;
    }

    private void partitionRound(PipelineRequest req, boolean exact, String what, long deadline, long backoffNanos, CompletableFuture<Long> out) {
        onEveryMember(req, true).whenComplete((rs, err) -> {
            if (err != null) {
                out.completeExceptionally(Errors.unwrap(err));
                return;
            }
            String moved = null;
            int count = client.getPartitionCount();
            boolean[] seen = new boolean[count];
            long total = 0;
            for (PipelineResponse r : rs) {
                for (int p : r.getSize().getPartitionsList()) {
                    if (p < 0 || p >= count || (seen[p] && exact)) {
                        moved = "partition " + p + " was " + what + " twice";
                        break;
                    }
                    seen[p] = true;
                }
                total += r.getSize().getSize();
            }
            for (int p = 0; moved == null && p < count; p++) {
                if (!seen[p]) {
                    moved = "partition " + p + " was not " + what;
                }
            }
            if (moved == null) {
                out.complete(total);
                return;
            }
            long delay = client.jitter(backoffNanos);
            if (System.nanoTime() + delay - deadline >= 0) {
                out.completeExceptionally(new OperationTimeoutException(req.getOpCase().name().toLowerCase(java.util.Locale.ROOT)
                        + " did not complete within the invocation timeout of " + client.config.getInvocationTimeout()
                        + ": partitions kept moving (" + moved + ")", null, -1, false, null));
                return;
            }
            long next = Math.min((long) (backoffNanos * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
            try {
                client.scheduler.schedule(() -> partitionRound(req, exact, what, deadline, next, out), delay, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                out.completeExceptionally(new ClientNotActiveException());
            }
        });
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    private CompletableFuture<Void> wholeMapWrite(PipelineRequest req) {
        client.checkOpen();
        CompletableFuture<Void> f = onEveryMember(req, false).thenApply(r -> null);
        if (near == null) {
            return f;
        }
        return f.whenComplete((v, e) -> near.clear());
    }

    @Override
    public void clear() {
        await(clearAsync());
    }

    /**
     * Every partition is cleared by its owner at the time; a partition that moves meanwhile is
     * cleared again by its new owner.
     */
    @Override
    public CompletableFuture<Void> clearAsync() {
        PipelineRequest req = PipelineRequest.newBuilder().setClear(MapRequest.newBuilder().setMap(name)).build();
        CompletableFuture<Void> f = everyPartition(req, false, "cleared").thenApply(total -> null);
        return near == null ? f : f.whenComplete((v, e) -> near.clear());
    }

    @Override
    public void evictAll() {
        await(evictAllAsync());
    }

    @Override
    public CompletableFuture<Void> evictAllAsync() {
        return wholeMapWrite(PipelineRequest.newBuilder().setEvictAll(MapRequest.newBuilder().setMap(name)).build());
    }

    @Override
    public void destroy() {
        await(destroyAsync());
    }

    @Override
    public CompletableFuture<Void> destroyAsync() {
        return wholeMapWrite(PipelineRequest.newBuilder().setDestroy(MapRequest.newBuilder().setMap(name)).build());
    }

    @Override
    public MapStats getMapStats() {
        return await(getMapStatsAsync());
    }

    @Override
    public CompletableFuture<MapStats> getMapStatsAsync() {
        client.checkOpen();
        return onEveryMember(PipelineRequest.newBuilder().setGetMapStats(MapRequest.newBuilder().setMap(name)).build(), true)
                .thenApply(rs -> {
                    MapStats st = new MapStats();
                    for (PipelineResponse r : rs) {
                        st.add(r.getMapStats());
                    }
                    return st;
                });
    }

    @Override
    public void configure(MapConfig config) {
        await(configureAsync(config));
    }

    @Override
    public CompletableFuture<Void> configureAsync(MapConfig config) {
        Objects.requireNonNull(config, "config");
        client.checkOpen();
        io.atoll.client.proto.MapConfig.Builder b = io.atoll.client.proto.MapConfig.newBuilder().setMap(name);
        if (config.getTtl() != null) {
            b.setTtlMs(toMs(config.getTtl()));
        }
        if (config.getMaxIdle() != null) {
            b.setMaxIdleMs(toMs(config.getMaxIdle()));
        }
        if (config.getEvictionPolicy() != null) {
            switch (config.getEvictionPolicy()) {
                case NONE:
                    b.setEvictionPolicy(io.atoll.client.proto.EvictionPolicy.EVICTION_POLICY_NONE);
                    break;
                case LRU:
                    b.setEvictionPolicy(io.atoll.client.proto.EvictionPolicy.EVICTION_POLICY_LRU);
                    break;
                default:
                    b.setEvictionPolicy(io.atoll.client.proto.EvictionPolicy.EVICTION_POLICY_LFU);
                    break;
            }
        }
        if (config.getMaxEntries() != null) {
            b.setMaxEntries(config.getMaxEntries());
        }
        if (config.getMaxBytes() != null) {
            b.setMaxBytes(config.getMaxBytes());
        }
        if (config.getBackupCount() != null) {
            b.setBackupCount(config.getBackupCount());
        }
        if (config.getAsyncBackupCount() != null) {
            b.setAsyncBackupCount(config.getAsyncBackupCount());
        }
        return onEveryMember(PipelineRequest.newBuilder().setConfigureMap(b).build(), true).thenApply(r -> null);
    }

    // ---- keys, values and entries ----

    // Without a predicate, as with one: a query over every entry, whose rows arrive page by
    // page and are deserialized one at a time while the result is iterated.

    @Override
    public Set<K> keySet() {
        return await(keySetAsync());
    }

    @Override
    public CompletableFuture<Set<K>> keySetAsync() {
        return query(PredicateResult.PREDICATE_RESULT_KEYS, null, null).thenApply(this::keysOf);
    }

    @Override
    public Collection<V> values() {
        return await(valuesAsync());
    }

    @Override
    public CompletableFuture<Collection<V>> valuesAsync() {
        return query(PredicateResult.PREDICATE_RESULT_VALUES, null, null).thenApply(this::valuesOf);
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return await(entrySetAsync());
    }

    @Override
    public CompletableFuture<Set<Map.Entry<K, V>>> entrySetAsync() {
        return query(PredicateResult.PREDICATE_RESULT_ENTRIES, null, null).thenApply(this::entriesOf);
    }

    // ---- listeners ----

    @Override
    public ListenerRegistration addEntryListener(EntryListener<K, V> listener, boolean includeValue) {
        return await(addEntryListenerAsync(listener, null, includeValue, Set.of()));
    }

    @Override
    public ListenerRegistration addEntryListener(EntryListener<K, V> listener, K key, boolean includeValue) {
        Objects.requireNonNull(key, "key");
        return await(addEntryListenerAsync(listener, key, includeValue, Set.of()));
    }

    @Override
    public ListenerRegistration addEntryListener(EntryListener<K, V> listener, K key, boolean includeValue, Set<EntryEventType> types) {
        return await(addEntryListenerAsync(listener, key, includeValue, types));
    }

    @Override
    public CompletableFuture<ListenerRegistration> addEntryListenerAsync(EntryListener<K, V> listener, K key, boolean includeValue,
                                                                         Set<EntryEventType> types) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(types, "types");
        client.checkOpen();
        ListenRequest.Builder req = ListenRequest.newBuilder().setMap(name).setIncludeValues(includeValue);
        if (key != null) {
            req.setKey(bytes(key(key)));
        }
        for (EntryEventType t : types) {
            if (t != EntryEventType.LOST) {
                req.addTypes(toProto(t));
            }
        }
        Object lock = new Object();
        Consumer<EntryEvent<K, V>> deliver = ev -> {
            synchronized (lock) {
                try {
                    listener.onEvent(ev);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "entry listener of map " + name + " threw", e);
                }
            }
        };
        return Subscription.start(client, req.build(), new Subscription.Handler() {
            @Override
            public void batch(String member, EntryEventBatch b) {
                if (b.getDropped() > 0) {
                    deliver.accept(new EntryEvent<>(EntryEventType.LOST, null, null, null, -1, member, b.getDropped()));
                }
                for (io.atoll.client.proto.EntryEvent e : b.getEventsList()) {
                    EntryEventType type = fromProto(e.getType());
                    if (type == null) {
                        continue;
                    }
                    try {
                        K k = e.getKey().isEmpty() ? null : decodeNow(data(e.getKey()));
                        V v = e.getValue().isEmpty() ? null : decodeNow(data(e.getValue()));
                        V old = e.getOldValue().isEmpty() ? null : decodeNow(data(e.getOldValue()));
                        deliver.accept(new EntryEvent<>(type, k, v, old, e.getPartitionId(), member, 0));
                    } catch (RuntimeException ex) {
                        LOG.log(System.Logger.Level.WARNING, "dropping an entry event of map " + name + " that does not decode", ex);
                    }
                }
            }

            @Override
            public void gap(String member) {
                deliver.accept(new EntryEvent<>(EntryEventType.LOST, null, null, null, -1, member, 0));
            }

            @Override
            public void resumed(String member) {
            }
        }).thenApply(s -> s);
    }

    /** Decodes on the listener's thread, waiting for metadata fetches, to keep events in order. */
    private <T> T decodeNow(Data d) {
        CompletableFuture<T> f = decode(d);
        try {
            return f.get(client.config.getInvocationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw Errors.rethrow(e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e);
        }
    }

    static io.atoll.client.proto.EntryEventType toProto(EntryEventType t) {
        switch (t) {
            case ADDED:
                return io.atoll.client.proto.EntryEventType.ENTRY_EVENT_TYPE_ADDED;
            case UPDATED:
                return io.atoll.client.proto.EntryEventType.ENTRY_EVENT_TYPE_UPDATED;
            case REMOVED:
                return io.atoll.client.proto.EntryEventType.ENTRY_EVENT_TYPE_REMOVED;
            case EVICTED:
                return io.atoll.client.proto.EntryEventType.ENTRY_EVENT_TYPE_EVICTED;
            case EXPIRED:
                return io.atoll.client.proto.EntryEventType.ENTRY_EVENT_TYPE_EXPIRED;
            case CLEARED:
                return io.atoll.client.proto.EntryEventType.ENTRY_EVENT_TYPE_CLEARED;
            default:
                throw new IllegalArgumentException("cannot listen for " + t);
        }
    }

    static EntryEventType fromProto(io.atoll.client.proto.EntryEventType t) {
        switch (t) {
            case ENTRY_EVENT_TYPE_ADDED:
                return EntryEventType.ADDED;
            case ENTRY_EVENT_TYPE_UPDATED:
                return EntryEventType.UPDATED;
            case ENTRY_EVENT_TYPE_REMOVED:
                return EntryEventType.REMOVED;
            case ENTRY_EVENT_TYPE_EVICTED:
                return EntryEventType.EVICTED;
            case ENTRY_EVENT_TYPE_EXPIRED:
                return EntryEventType.EXPIRED;
            case ENTRY_EVENT_TYPE_CLEARED:
                return EntryEventType.CLEARED;
            default:
                return null;
        }
    }

    // ---- queries ----

    /**
     * Runs a predicate query and fetches every page without decoding it: {@link QueryCursor#pages()}
     * (lazy results) or {@link QueryCursor#rows()} decode on the thread that reads them.
     */
    private CompletableFuture<QueryCursor> query(PredicateResult result, Predicate p, Consumer<PredicateQuery.Builder> build) {
        return start(result, p, build, false).thenCompose(QueryCursor::fetchAll);
    }

    private CompletableFuture<QueryCursor> start(PredicateResult result, Predicate p, Consumer<PredicateQuery.Builder> build, boolean explain) {
        client.checkOpen();
        PredicateQuery.Builder q = PredicateQuery.newBuilder().setMap(name).setResult(result);
        if (p != null) {
            q.setPredicate(QueryCodec.predicate(p, client.serialization));
        }
        if (build != null) {
            build.accept(q);
        }
        return Queries.execute(client, ExecuteRequest.newBuilder().setPredicate(q).setExplain(explain));
    }

    /** A value of a row, deserialized on this thread when it is an object. */
    private Object object(Object v) {
        return v instanceof Data ? await(decode((Data) v)) : v;
    }

    /** Deserializes the objects among values (others pass through), in order. */
    private CompletableFuture<List<Object>> decodeValues(List<Object> values) {
        List<Data> objects = new ArrayList<>();
        for (Object v : values) {
            if (v instanceof Data) {
                objects.add((Data) v);
            }
        }
        if (objects.isEmpty()) {
            return CompletableFuture.completedFuture(values);
        }
        return decodeAll(objects).thenApply(decoded -> {
            List<Object> out = new ArrayList<>(values.size());
            int j = 0;
            for (Object v : values) {
                out.add(v instanceof Data ? decoded.get(j++) : v);
            }
            return out;
        });
    }

    private static List<Object> column(List<Object[]> rows, int col) {
        List<Object> out = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            out.add(r[col]);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private Set<K> keysOf(QueryCursor c) {
        return c.pages().asSet(r -> (K) object(r[0]));
    }

    @SuppressWarnings("unchecked")
    private Collection<V> valuesOf(QueryCursor c) {
        return c.pages().asCollection(r -> (V) object(r[0]));
    }

    @SuppressWarnings("unchecked")
    private Set<Map.Entry<K, V>> entriesOf(QueryCursor c) {
        return c.pages().asSet(r -> new AbstractMap.SimpleImmutableEntry<>((K) object(r[0]), (V) object(r[1])));
    }

    @Override
    public Set<K> keySet(Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return keysOf(await(query(PredicateResult.PREDICATE_RESULT_KEYS, predicate, null)));
    }

    @Override
    public CompletableFuture<Set<K>> keySetAsync(Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return query(PredicateResult.PREDICATE_RESULT_KEYS, predicate, null).thenApply(this::keysOf);
    }

    @Override
    public Collection<V> values(Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return valuesOf(await(query(PredicateResult.PREDICATE_RESULT_VALUES, predicate, null)));
    }

    @Override
    public CompletableFuture<Collection<V>> valuesAsync(Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return query(PredicateResult.PREDICATE_RESULT_VALUES, predicate, null).thenApply(this::valuesOf);
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet(Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return entriesOf(await(query(PredicateResult.PREDICATE_RESULT_ENTRIES, predicate, null)));
    }

    @Override
    public CompletableFuture<Set<Map.Entry<K, V>>> entrySetAsync(Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return query(PredicateResult.PREDICATE_RESULT_ENTRIES, predicate, null).thenApply(this::entriesOf);
    }

    private CompletableFuture<QueryCursor> aggregateRows(Aggregator<?> aggregator, Predicate predicate) {
        return aggregateStart(aggregator, predicate).thenCompose(QueryCursor::fetchAll);
    }

    private CompletableFuture<QueryCursor> aggregateStart(Aggregator<?> aggregator, Predicate predicate) {
        Objects.requireNonNull(aggregator, "aggregator");
        return start(PredicateResult.PREDICATE_RESULT_AGGREGATE, predicate, q -> q.setAggregator(QueryCodec.aggregator(aggregator)), false);
    }

    /** The aggregator's result from its rows, as the Go client's Map.Aggregate reads them. */
    @SuppressWarnings("unchecked")
    private <R> CompletableFuture<R> aggregateResult(Aggregator<R> a, List<Object[]> rows) {
        switch (a.getKind()) {
            case DISTINCT:
                return decodeValues(column(rows, 0)).thenApply(objs -> (R) new LinkedHashSet<>(objs));
            case MIN_BY:
            case MAX_BY:
                if (rows.isEmpty() || rows.get(0)[0] == null) {
                    return CompletableFuture.completedFuture(null);
                }
                return decodeValues(Arrays.asList(rows.get(0)[0], rows.get(0)[1]))
                        .thenApply(kv -> (R) new AbstractMap.SimpleImmutableEntry<>((K) kv.get(0), (V) kv.get(1)));
            default:
                break;
        }
        Object v = rows.isEmpty() ? null : rows.get(0)[0];
        return decodeValues(Collections.singletonList(v)).thenApply(list -> {
            Object x = list.get(0);
            switch (a.getKind()) {
                case COUNT:
                case INTEGER_SUM:
                case LONG_SUM:
                case FIXED_POINT_SUM:
                    return (R) (x == null ? Long.valueOf(0) : Long.valueOf(((Number) x).longValue()));
                case DOUBLE_SUM:
                case FLOATING_POINT_SUM:
                    return (R) (x == null ? Double.valueOf(0) : Double.valueOf(((Number) x).doubleValue()));
                case INTEGER_AVG:
                case LONG_AVG:
                case DOUBLE_AVG:
                case NUMBER_AVG:
                    return (R) (x == null ? null : Double.valueOf(((Number) x).doubleValue()));
                default:
                    return (R) x;
            }
        });
    }

    @Override
    public <R> R aggregate(Aggregator<R> aggregator) {
        return await(aggregateResult(aggregator, await(aggregateRows(aggregator, null)).rows()));
    }

    @Override
    public <R> R aggregate(Aggregator<R> aggregator, Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return await(aggregateResult(aggregator, await(aggregateRows(aggregator, predicate)).rows()));
    }

    @Override
    public <R> CompletableFuture<R> aggregateAsync(Aggregator<R> aggregator) {
        return aggregateRows(aggregator, null).thenCompose(c -> aggregateResult(aggregator, c.rows()));
    }

    @Override
    public <R> CompletableFuture<R> aggregateAsync(Aggregator<R> aggregator, Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return aggregateRows(aggregator, predicate).thenCompose(c -> aggregateResult(aggregator, c.rows()));
    }

    private CompletableFuture<QueryCursor> projectRows(Projection<?> projection, Predicate predicate) {
        return projectStart(projection, predicate).thenCompose(QueryCursor::fetchAll);
    }

    private CompletableFuture<QueryCursor> projectStart(Projection<?> projection, Predicate predicate) {
        Objects.requireNonNull(projection, "projection");
        return start(PredicateResult.PREDICATE_RESULT_PROJECT, predicate, q -> q.addAllProjection(projection.getAttributes()), false);
    }

    @SuppressWarnings("unchecked")
    private <R> Collection<R> projected(Projection<R> projection, QueryCursor c) {
        int width = projection.getAttributes().size();
        if (c.width() != width) {
            throw new InternalException("projection of " + width + " attributes returned " + c.width() + " columns", c.member, -1, false, null);
        }
        return c.pages().asCollection(r -> {
            if (!projection.isMultiAttribute()) {
                return (R) object(r[0]);
            }
            Object[] out = new Object[width];
            for (int i = 0; i < width; i++) {
                out[i] = object(r[i]);
            }
            return (R) out;
        });
    }

    @Override
    public <R> Collection<R> project(Projection<R> projection) {
        return projected(projection, await(projectRows(projection, null)));
    }

    @Override
    public <R> Collection<R> project(Projection<R> projection, Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return projected(projection, await(projectRows(projection, predicate)));
    }

    @Override
    public <R> CompletableFuture<Collection<R>> projectAsync(Projection<R> projection) {
        return projectRows(projection, null).thenApply(c -> projected(projection, c));
    }

    @Override
    public <R> CompletableFuture<Collection<R>> projectAsync(Projection<R> projection, Predicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return projectRows(projection, predicate).thenApply(c -> projected(projection, c));
    }

    @Override
    public String explain(Predicate predicate) {
        return ClientSqlService.planText(await(start(PredicateResult.PREDICATE_RESULT_ENTRIES, predicate, null, true)));
    }

    @Override
    public String explain(Aggregator<?> aggregator, Predicate predicate) {
        Objects.requireNonNull(aggregator, "aggregator");
        return ClientSqlService.planText(await(start(PredicateResult.PREDICATE_RESULT_AGGREGATE, predicate,
                q -> q.setAggregator(QueryCodec.aggregator(aggregator)), true)));
    }

    @Override
    public String explain(Projection<?> projection, Predicate predicate) {
        Objects.requireNonNull(projection, "projection");
        return ClientSqlService.planText(await(start(PredicateResult.PREDICATE_RESULT_PROJECT, predicate,
                q -> q.addAllProjection(projection.getAttributes()), true)));
    }

    // ---- indexes ----

    @Override
    public void addIndex(IndexType type, String... attributes) {
        await(addIndexAsync(new IndexConfig(type, attributes)));
    }

    @Override
    public void addIndex(IndexConfig config) {
        await(addIndexAsync(config));
    }

    @Override
    public CompletableFuture<Void> addIndexAsync(IndexConfig config) {
        Objects.requireNonNull(config, "config");
        client.checkOpen();
        if (config.getAttributes().size() != 1) {
            throw new IllegalArgumentException("an index covers exactly one attribute, got " + config.getAttributes());
        }
        AddIndexRequest.Builder req = AddIndexRequest.newBuilder().setMap(name).addAllAttributes(config.getAttributes())
                .setType(config.getType() == IndexType.HASH ? io.atoll.client.proto.IndexType.INDEX_TYPE_HASH
                        : io.atoll.client.proto.IndexType.INDEX_TYPE_SORTED);
        if (config.getName() != null) {
            req.setName(config.getName());
        }
        return client.anyConnection().thenCompose(c -> {
            CompletableFuture<Void> done = new CompletableFuture<>();
            QueryServiceGrpc.newStub(c.channel).withDeadlineAfter(client.config.getInvocationTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .addIndex(req.build(), new StreamObserver<Empty>() {
                        @Override
                        public void onNext(Empty value) {
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.completeExceptionally(Errors.fromStatus(t, c.address, client.config.getClusterName()));
                        }

                        @Override
                        public void onCompleted() {
                            done.complete(null);
                        }
                    });
            return done;
        });
    }
}
