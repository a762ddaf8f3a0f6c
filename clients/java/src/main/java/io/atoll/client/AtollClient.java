package io.atoll.client;

import com.google.protobuf.ByteString;
import io.atoll.client.proto.ConnectResponse;
import io.atoll.client.proto.GetPartitionTableRequest;
import io.atoll.client.proto.PartitionTable;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.SerializationService;
import io.grpc.stub.StreamObserver;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * A connection to an Atoll cluster, like Hazelcast's client instance. Create one per process
 * with {@link #newClient}, share it between threads, and {@link #close} it at the end.
 *
 * <pre>{@code
 * try (AtollClient client = AtollClient.newClient(new AtollClientConfig().addAddress("127.0.0.1:5701"))) {
 *     AtollMap<String, String> greetings = client.getMap("greetings");
 *     greetings.set("hello", "world");
 *     String v = greetings.get("hello");
 * }
 * }</pre>
 *
 * <p>The client keeps the cluster's partition table and sends every keyed call straight to
 * the member that owns the key's partition (smart routing), over one multiplexed stream per
 * member. Retryable failures are retried with exponential backoff and jitter within the
 * invocation timeout ({@link RetryConfig}). Compact schemas and Portable class definitions
 * the client's serialization defines are published to the cluster before data that needs
 * them; schemas and layouts the client lacks are fetched when it reads data that uses them.
 */
public final class AtollClient implements AutoCloseable {
    /** The SDK version reported to members. */
    public static final String VERSION = "0.1.0";

    private static final Duration SWEEP_INTERVAL = Duration.ofMillis(50);

    final AtollClientConfig config;
    final RetryConfig retry;
    final QueryRetryConfig queryRetry;
    final SerializationService serialization;
    final ByteString clientUuid;
    final ScheduledThreadPoolExecutor scheduler;
    final ClientStatsCounters stats = new ClientStatsCounters();
    final MetadataSync metadata;
    final SessionLocks sessionLocks = new SessionLocks(this);

    private final Map<String, Connection> connections = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Connection>> dialing = new ConcurrentHashMap<>();
    private final AtomicReference<RoutingTable> routing = new AtomicReference<>();
    private final Map<String, ClientMap<?, ?>> maps = new ConcurrentHashMap<>();
    private final Map<String, NearCache> nearCaches = new ConcurrentHashMap<>();
    private final List<Runnable> tableListeners = new CopyOnWriteArrayList<>();
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile StreamObserver<?> tableWatch;
    private final ClientSqlService sql = new ClientSqlService(this);

    /** Per-client call counters. */
    static final class ClientStatsCounters {
        final LongAdder calls = new LongAdder();
        final LongAdder retries = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder txCommits = new LongAdder();
        final LongAdder txRetries = new LongAdder();
        final LongAdder txConflicts = new LongAdder();
    }

    private AtollClient(AtollClientConfig config) {
        this.config = config;
        this.retry = config.getRetryConfig().copy();
        this.queryRetry = config.getQueryRetryConfig().copy();
        this.serialization = new SerializationService(config.getSerializationConfig());
        byte[] uuid = new byte[16];
        new SecureRandom().nextBytes(uuid);
        this.clientUuid = ByteString.copyFrom(uuid);
        AtomicInteger n = new AtomicInteger();
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "atoll-client-scheduler-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.metadata = new MetadataSync(this);
    }

    /**
     * Connects to the cluster through the first reachable seed address and returns the client.
     *
     * @throws ClusterNameMismatchException if a member belongs to another cluster
     * @throws AuthenticationException      if the members refuse the client's credentials, or serve TLS
     *                                      and the client has none
     * @throws TlsHandshakeException        if the TLS handshake fails (a plaintext member, a refused
     *                                      certificate)
     * @throws UnavailableException         if no seed member could be reached
     */
    public static AtollClient newClient(AtollClientConfig config) {
        config.checkCredentialsTransport();
        AtollClient c = new AtollClient(config);
        List<Throwable> errors = new ArrayList<>();
        for (String addr : config.getAddresses()) {
            try {
                c.connectTo(addr).get(config.getConnectTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS);
                c.start();
                return c;
            } catch (ExecutionException e) {
                Throwable cause = Errors.unwrap(e);
                if (Errors.refusesConnection(cause)) {
                    c.close();
                    throw (AtollException) cause;
                }
                errors.add(cause);
            } catch (TimeoutException e) {
                errors.add(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                c.close();
                throw new OperationCancelledException("interrupted while connecting", null, -1, false, e);
            }
        }
        c.close();
        UnavailableException e = new UnavailableException("no member of cluster \"" + config.getClusterName()
                + "\" could be reached at " + config.getAddresses(), null, -1, true, errors.isEmpty() ? null : errors.get(0));
        for (int i = 1; i < errors.size(); i++) {
            e.addSuppressed(errors.get(i));
        }
        throw e;
    }

    private void start() {
        long sweep = SWEEP_INTERVAL.toNanos();
        scheduler.scheduleWithFixedDelay(() -> {
            long now = System.nanoTime();
            for (Connection c : connections.values()) {
                c.sweep(now);
            }
        }, sweep, sweep, TimeUnit.NANOSECONDS);
        long renew = config.getLockSessionLease().toNanos() / 3;
        scheduler.scheduleWithFixedDelay(sessionLocks::renew, renew, renew, TimeUnit.NANOSECONDS);
        watchTable(retry.getInitialBackoff().toNanos());
    }

    /**
     * Returns the map called {@code name}; it is created on the cluster on first use.
     *
     * @throws InvalidArgumentException if a member would refuse the name: empty, over 1024 bytes of
     *     UTF-8, or with an unpaired surrogate
     */
    @SuppressWarnings("unchecked")
    public <K, V> AtollMap<K, V> getMap(String name) {
        RequestChecks.mapName(name);
        checkOpen();
        return (AtollMap<K, V>) maps.computeIfAbsent(name, n -> new ClientMap<>(this, n, nearCacheFor(n)));
    }

    /**
     * Runs {@code task} in a transaction and commits it, with the default
     * {@link TransactionOptions}: see {@link #runInTransaction(TransactionOptions, TransactionalTask)}.
     */
    public <T> T runInTransaction(TransactionalTask<T> task) {
        return runInTransaction(TransactionOptions.getDefault(), task);
    }

    /**
     * Runs {@code task} in a transaction and commits it, returning what the task returned. When
     * the task or the commit meets a conflict ({@link ConflictException}) it rolls back and runs
     * the task again in a new transaction, after a backoff with jitter, until the options'
     * attempts are spent; it then throws the last {@link ConflictException}. Any other exception
     * of the task rolls the transaction back and propagates as is. The task may run more than
     * once: it should have no effects outside the transaction.
     */
    public <T> T runInTransaction(TransactionOptions options, TransactionalTask<T> task) {
        Objects.requireNonNull(task, "task");
        TransactionOptions o = options.copy();
        for (int attempt = 1; ; attempt++) {
            ClientTransaction tx = new ClientTransaction(this, o);
            ConflictException conflict;
            try {
                T result = task.execute(tx);
                tx.commit();
                return result;
            } catch (ConflictException e) {
                tx.abort();
                conflict = e;
            } catch (RuntimeException | Error e) {
                tx.abort();
                throw e;
            }
            if (attempt >= o.getAttempts()) {
                stats.txConflicts.increment();
                conflict.setAttempts(attempt);
                throw conflict;
            }
            stats.txRetries.increment();
            try {
                TimeUnit.NANOSECONDS.sleep(o.backoffNanos(attempt - 1, ThreadLocalRandom.current().nextDouble()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OperationCancelledException("interrupted while waiting to run a transaction again", null, -1, false, e);
            }
        }
    }

    /** Starts a transaction by hand, with the default options; {@link Transaction#commit} or rollback ends it. */
    public Transaction beginTransaction() {
        return beginTransaction(TransactionOptions.getDefault());
    }

    /** Starts a transaction by hand; {@link Transaction#commit} or rollback ends it. */
    public Transaction beginTransaction(TransactionOptions options) {
        checkOpen();
        return new ClientTransaction(this, options.copy());
    }

    /**
     * The SQL service: statements in Hazelcast's dialect over the cluster's maps
     * ({@code client.sql().execute("SELECT ...", params...)}).
     */
    public io.atoll.client.sql.SqlService sql() {
        checkOpen();
        return sql;
    }

    /** The client's serialization service (the one its maps use). */
    public SerializationService getSerializationService() {
        return serialization;
    }

    /** The cluster name the client is connected to. */
    public String getClusterName() {
        return config.getClusterName();
    }

    /** The number of partitions of the cluster. */
    public int getPartitionCount() {
        RoutingTable t = routing.get();
        return t == null ? config.getSerializationConfig().getPartitionCount() : t.partitionCount;
    }

    /** The partition of a key, computed from its serialized form exactly as the members do. */
    public int getPartitionId(Object key) {
        return partitionOf(toData(key, "key"));
    }

    /** The members' addresses, as in the current partition table. */
    public List<String> getMembers() {
        RoutingTable t = routing.get();
        return t == null ? List.of() : t.members;
    }

    /**
     * Registers IdentifiedDataSerializable layouts locally and with the cluster, so that
     * members (and other clients) can read values of those classes without the classes.
     */
    public void registerLayouts(IdentifiedLayout... layouts) {
        await(registerLayoutsAsync(layouts));
    }

    /** Asynchronous {@link #registerLayouts}. */
    public CompletableFuture<Void> registerLayoutsAsync(IdentifiedLayout... layouts) {
        return metadata.registerLayouts(layouts);
    }

    /** The client's call, connection and near cache statistics. */
    public ClientStats getStats() {
        int conns = 0;
        for (Connection c : connections.values()) {
            if (c.usable()) {
                conns++;
            }
        }
        long hits = 0, misses = 0, invalidations = 0, entries = 0;
        for (NearCache nc : nearCaches.values()) {
            hits += nc.hits.sum();
            misses += nc.misses.sum();
            invalidations += nc.invalidations.sum();
            entries += nc.size();
        }
        return new ClientStats(stats.calls.sum(), stats.retries.sum(), stats.failures.sum(), conns, hits, misses, invalidations, entries,
                stats.txCommits.sum(), stats.txRetries.sum(), stats.txConflicts.sum());
    }

    /** Closes every connection and listener; calls in progress fail with {@link ClientNotActiveException}. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        StreamObserver<?> w = tableWatch;
        if (w instanceof io.grpc.stub.ClientCallStreamObserver) {
            ((io.grpc.stub.ClientCallStreamObserver<?>) w).cancel("client closed", null);
        }
        for (Subscription s : subscriptions) {
            s.close();
        }
        for (NearCache nc : nearCaches.values()) {
            nc.close();
        }
        for (Connection c : connections.values()) {
            c.close();
        }
        connections.clear();
        for (CompletableFuture<Connection> f : dialing.values()) {
            f.thenAccept(Connection::close);
        }
        scheduler.shutdownNow();
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    // ---- internals ----

    void checkOpen() {
        if (closed.get()) {
            throw new ClientNotActiveException();
        }
    }

    Data toData(Object o, String what) {
        if (o == null) {
            throw new NullPointerException(what + " must not be null");
        }
        return serialization.toData(o);
    }

    int partitionOf(Data key) {
        return key.getPartitionId(getPartitionCount());
    }

    RoutingTable routing() {
        return routing.get();
    }

    /** The owner of a partition, or null. */
    String ownerOf(int partitionId) {
        RoutingTable t = routing.get();
        return t == null ? null : t.owner(partitionId);
    }

    /** Addresses of the members to run a whole-map operation on. */
    CompletableFuture<List<String>> memberAddresses() {
        RoutingTable t = routing.get();
        if (t != null && !t.members.isEmpty()) {
            return CompletableFuture.completedFuture(t.members);
        }
        return anyConnection().thenApply(c -> List.of(c.address));
    }

    boolean isMember(String address) {
        RoutingTable t = routing.get();
        return t == null || t.members.isEmpty() || t.members.contains(address);
    }

    void addTableListener(Runnable r) {
        tableListeners.add(r);
    }

    void removeTableListener(Runnable r) {
        tableListeners.remove(r);
    }

    void register(Subscription s) {
        subscriptions.add(s);
    }

    void unregister(Subscription s) {
        subscriptions.remove(s);
    }

    void setTable(int partitionCount, PartitionTable t) {
        setTable(partitionCount, t, null, false);
    }

    void setTable(int partitionCount, PartitionTable t, String from) {
        setTable(partitionCount, t, from, false);
    }

    /**
     * Installs a table if it is newer than the current one, or if it comes from a member
     * ({@code from}) that the current table does not list: single members restart with
     * version 1, so versions only order the tables of one cluster lifetime. Likewise versions
     * only order the tables of one lineage: after a network partition healed, the members of
     * the smaller side adopt the larger side's history, whose versions may be lower, so a table
     * of another lineage is installed when it comes from the member whose table stream the
     * client follows ({@code follow}), whatever its version (as the Go client's setTable).
     */
    void setTable(int partitionCount, PartitionTable t, String from, boolean follow) {
        if (t == null) {
            return;
        }
        RoutingTable next = RoutingTable.from(partitionCount, t);
        while (true) {
            RoutingTable cur = routing.get();
            if (!next.replaces(cur, from, follow)) {
                return;
            }
            if (cur != null && partitionCount <= 0) {
                next = RoutingTable.from(cur.partitionCount, t);
            }
            if (routing.compareAndSet(cur, next)) {
                break;
            }
        }
        for (Runnable r : tableListeners) {
            r.run();
        }
    }

    /** Follows partition table changes from one member at a time. */
    private void watchTable(long backoffNanos) {
        if (closed.get()) {
            return;
        }
        anyConnection().whenComplete((c, err) -> {
            if (err != null) {
                retryWatch(backoffNanos);
                return;
            }
            io.grpc.stub.ClientResponseObserver<GetPartitionTableRequest, PartitionTable> obs = new io.grpc.stub.ClientResponseObserver<>() {
                private boolean received;

                @Override
                public void beforeStart(io.grpc.stub.ClientCallStreamObserver<GetPartitionTableRequest> rs) {
                    tableWatch = rs;
                    if (closed.get()) {
                        rs.cancel("client closed", null);
                    }
                }

                @Override
                public void onNext(PartitionTable t) {
                    received = true;
                    setTable(0, t, null, true);
                }

                @Override
                public void onError(Throwable t) {
                    retryWatch(received ? retry.getInitialBackoff().toNanos() : backoffNanos);
                }

                @Override
                public void onCompleted() {
                    retryWatch(received ? retry.getInitialBackoff().toNanos() : backoffNanos);
                }
            };
            c.cluster.watchPartitionTable(GetPartitionTableRequest.getDefaultInstance(), obs);
        });
    }

    private void retryWatch(long backoffNanos) {
        if (closed.get()) {
            return;
        }
        long next = Math.min((long) (backoffNanos * retry.getMultiplier()), retry.getMaxBackoff().toNanos());
        try {
            scheduler.schedule(() -> watchTable(next), jitter(backoffNanos), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException ignored) {
            // closed
        }
    }

    /** The deadline of a call that starts now: the invocation timeout from now (System.nanoTime). */
    long invocationDeadline() {
        return System.nanoTime() + config.getInvocationTimeout().toNanos();
    }

    long jitter(long nanos) {
        double j = retry.getJitter();
        return (long) (nanos * (1 - j + 2 * j * ThreadLocalRandom.current().nextDouble()));
    }

    /** A connection to the owner of a partition (any member when pid < 0 or the owner is unreachable). */
    CompletableFuture<Connection> connectionFor(int partitionId) {
        if (partitionId >= 0) {
            String owner = ownerOf(partitionId);
            if (owner != null) {
                Connection c = connections.get(owner);
                if (c != null && c.usable()) {
                    return c.self;
                }
                return connectTo(owner).exceptionallyCompose(e -> {
                    Throwable cause = Errors.unwrap(e);
                    if (Errors.refusesConnection(cause)) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    return anyConnection();
                });
            }
        }
        return anyConnection();
    }

    /** A usable connection to {@code address}, dialing (once at a time) when needed. */
    CompletableFuture<Connection> connectTo(String address) {
        Connection c = connections.get(address);
        if (c != null && c.usable()) {
            return c.self;
        }
        if (closed.get()) {
            return CompletableFuture.failedFuture(new ClientNotActiveException());
        }
        CompletableFuture<Connection> promise = new CompletableFuture<>();
        CompletableFuture<Connection> existing = dialing.putIfAbsent(address, promise);
        if (existing != null) {
            return existing;
        }
        c = connections.get(address);
        if (c != null && c.usable()) {
            dialing.remove(address, promise);
            promise.complete(c);
            return promise;
        }
        Connection.dial(address, config, clientUuid).whenComplete((entry, err) -> {
            if (err != null) {
                dialing.remove(address, promise);
                promise.completeExceptionally(Errors.unwrap(err));
                return;
            }
            Connection fresh = entry.getKey();
            ConnectResponse hello = entry.getValue();
            if (closed.get()) {
                fresh.close();
                dialing.remove(address, promise);
                promise.completeExceptionally(new ClientNotActiveException());
                return;
            }
            Connection old = connections.put(address, fresh);
            if (old != null) {
                old.close();
            }
            dialing.remove(address, promise);
            setTable(hello.getPartitionCount(), hello.getPartitionTable(), address);
            // Events may have been missed while disconnected.
            for (NearCache nc : nearCaches.values()) {
                nc.clear();
            }
            promise.complete(fresh);
        });
        return promise;
    }

    /**
     * A connection to coordinate a query: a random member among those the client is connected
     * to (spreading coordination over the cluster), or any reachable one.
     */
    CompletableFuture<Connection> queryConnection() {
        RoutingTable t = routing.get();
        if (t != null && t.members.size() > 1) {
            List<Connection> usable = new ArrayList<>(t.members.size());
            for (String m : t.members) {
                Connection c = connections.get(m);
                if (c != null && c.usable()) {
                    usable.add(c);
                }
            }
            if (!usable.isEmpty()) {
                return usable.get(ThreadLocalRandom.current().nextInt(usable.size())).self;
            }
        }
        return anyConnection();
    }

    /** Some usable connection: an open one, or a new one to a known member or a seed. */
    CompletableFuture<Connection> anyConnection() {
        for (Connection c : connections.values()) {
            if (c.usable()) {
                return c.self;
            }
        }
        Set<String> candidates = new LinkedHashSet<>();
        RoutingTable t = routing.get();
        if (t != null) {
            candidates.addAll(t.members);
        }
        candidates.addAll(config.getAddresses());
        return tryConnect(new ArrayList<>(candidates), 0, null);
    }

    private CompletableFuture<Connection> tryConnect(List<String> candidates, int i, Throwable last) {
        if (i >= candidates.size()) {
            return CompletableFuture.failedFuture(new MemberConnectionException("no member reachable at " + candidates
                    + (last == null ? "" : ": " + last.getMessage()), null, false, last));
        }
        return connectTo(candidates.get(i)).exceptionallyCompose(e -> {
            Throwable cause = Errors.unwrap(e);
            if (Errors.refusesConnection(cause) || cause instanceof ClientNotActiveException) {
                return CompletableFuture.failedFuture(cause);
            }
            return tryConnect(candidates, i + 1, cause);
        });
    }

    /** Does what a retryable error asks for before the next attempt. */
    CompletableFuture<Void> prepareRetry(Throwable err) {
        if (err instanceof UnknownCompactSchemaException) {
            return metadata.publishSchema(((UnknownCompactSchemaException) err).getSchemaId());
        }
        if (err instanceof WrongOwnerException) {
            return anyConnection().thenCompose(c -> {
                CompletableFuture<Void> done = new CompletableFuture<>();
                c.cluster.withDeadlineAfter(config.getConnectTimeout().toMillis(), TimeUnit.MILLISECONDS)
                        .getPartitionTable(GetPartitionTableRequest.getDefaultInstance(), new StreamObserver<>() {
                            @Override
                            public void onNext(PartitionTable t) {
                                setTable(0, t);
                            }

                            @Override
                            public void onError(Throwable t) {
                                done.complete(null);
                            }

                            @Override
                            public void onCompleted() {
                                done.complete(null);
                            }
                        });
                return done;
            }).exceptionally(e -> null);
        }
        return CompletableFuture.completedFuture(null);
    }

    /** The near cache of a map, created on first use, or null when none is configured. */
    private NearCache nearCacheFor(String mapName) {
        NearCacheConfig cfg = config.nearCacheConfigFor(mapName);
        if (cfg == null) {
            return null;
        }
        return nearCaches.computeIfAbsent(mapName, n -> new NearCache(this, n, cfg));
    }

    /** Waits for a future as the synchronous methods do, rethrowing its failure unwrapped. */
    static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw Errors.rethrow(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException("interrupted while waiting for the call", null, -1, false, e);
        }
    }
}
