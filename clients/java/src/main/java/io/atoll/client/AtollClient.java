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
    private final Set<io.grpc.stub.ClientCallStreamObserver<?>> tableWatches = ConcurrentHashMap.newKeySet();
    /** The connection whose tables are followed across lineages ({@link #setTable}). */
    private final AtomicReference<Connection> followed = new AtomicReference<>();
    /** What the members accept, as the last one that connected reported it. */
    volatile Limits limits;
    /** Completed and replaced when the client adopts a table or connects: retries go at once. */
    private volatile CompletableFuture<Void> changed = new CompletableFuture<>();
    private final AtomicBoolean reconnecting = new AtomicBoolean();
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
        this.limits = Limits.of(config);
    }

    /**
     * Connects to the cluster through the first reachable seed address and returns the client.
     * The seeds are dialed at once: an address that refuses the connection fails at once, one
     * that does not answer fails after the connect timeout, and {@code newClient} fails within
     * the connect timeout when every seed did, with a short message saying why.
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
        try {
            c.firstOf(new ArrayList<>(new LinkedHashSet<>(config.getAddresses())), c::connectTo)
                    .get(config.getConnectTimeout().toMillis(), TimeUnit.MILLISECONDS);
            c.start();
            return c;
        } catch (ExecutionException e) {
            c.close();
            throw Errors.rethrow(e); // a refusal of the client itself (firstOf), or why no seed connected
        } catch (TimeoutException e) {
            c.close();
            throw new UnavailableException("no member reachable: " + NoMemberException.list(config.getAddresses()) + " did not answer within "
                    + ConnectionFailures.format(config.getConnectTimeout()) + " (AtollClientConfig.setConnectTimeout)", null, -1, true, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new OperationCancelledException("interrupted while connecting", null, -1, false, e);
        }
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
    }

    /** Closes the client, as Hazelcast's {@code HazelcastInstance.shutdown()}: the same as {@link #close}. */
    public void shutdown() {
        close();
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
        for (io.grpc.stub.ClientCallStreamObserver<?> w : tableWatches) {
            w.cancel("client closed", null);
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
     * client follows ({@code follow}), whatever its version (as the Go client's setTable). The
     * connections to members a newer table no longer names are closed: their calls in
     * flight fail (and are retried on the partitions' new owners when safe), and calls waiting
     * to retry go at once.
     */
    void setTable(int partitionCount, PartitionTable t, String from, boolean follow) {
        if (t == null) {
            return;
        }
        RoutingTable next = RoutingTable.from(partitionCount, t);
        RoutingTable cur;
        while (true) {
            cur = routing.get();
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
        if (cur != null && next.version > cur.version) {
            // Only a newer table: one that comes from the followed member across lineages may
            // be a cluster still forming.
            for (String m : cur.members) {
                Connection c = connections.get(m);
                if (!next.members.contains(m) && c != null && c.usable()) {
                    c.fail(new ConnectionFailures.MemberLeft(), true);
                    c.close();
                }
            }
        }
        for (Runnable r : tableListeners) {
            r.run();
        }
        notifyChange();
    }

    /** Wakes the calls waiting to retry (see {@link #retryAfter}). */
    void notifyChange() {
        CompletableFuture<Void> c = changed;
        changed = new CompletableFuture<>();
        c.complete(null);
    }

    /** Completes at the next table the client adopts or connection it opens. */
    CompletableFuture<Void> changes() {
        return changed;
    }

    /**
     * Runs {@code r} once, after {@code delayNanos} or as soon as {@code view} completes (a
     * table adopted, a connection opened since the attempt began), whichever comes first.
     */
    void retryAfter(long delayNanos, CompletableFuture<Void> view, Runnable r) {
        AtomicBoolean once = new AtomicBoolean();
        Runnable go = () -> {
            if (once.compareAndSet(false, true)) {
                r.run();
            }
        };
        try {
            if (view.isDone()) {
                scheduler.execute(go);
                return;
            }
            java.util.concurrent.ScheduledFuture<?> timer = scheduler.schedule(go, delayNanos, TimeUnit.NANOSECONDS);
            view.thenRun(() -> {
                if (timer.cancel(false)) {
                    scheduler.execute(go);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            go.run(); // the client is closing: the call fails on its next attempt
        }
    }

    /**
     * Follows the tables a connection's member pushes, while the connection lives: the followed
     * connection's tables across lineages (the first to push one becomes the followed one). A
     * stream that ends while the connection lives is opened again after a backoff.
     */
    private void watchTable(Connection c, long backoffNanos) {
        if (closed.get() || !c.usable()) {
            return;
        }
        c.cluster.watchPartitionTable(GetPartitionTableRequest.getDefaultInstance(), new io.grpc.stub.ClientResponseObserver<GetPartitionTableRequest, PartitionTable>() {
            private io.grpc.stub.ClientCallStreamObserver<GetPartitionTableRequest> call;
            private boolean received;

            @Override
            public void beforeStart(io.grpc.stub.ClientCallStreamObserver<GetPartitionTableRequest> rs) {
                call = rs;
                tableWatches.add(rs);
                if (closed.get()) {
                    rs.cancel("client closed", null);
                }
            }

            @Override
            public void onNext(PartitionTable t) {
                received = true;
                followed.compareAndSet(null, c);
                setTable(0, t, null, followed.get() == c);
            }

            @Override
            public void onError(Throwable t) {
                ended();
            }

            @Override
            public void onCompleted() {
                ended();
            }

            private void ended() {
                tableWatches.remove(call);
                long wait = received ? retry.getInitialBackoff().toNanos() : backoffNanos;
                long next = Math.min((long) (wait * retry.getMultiplier()), retry.getMaxBackoff().toNanos());
                try {
                    scheduler.schedule(() -> watchTable(c, next), jitter(wait), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.RejectedExecutionException ignored) {
                    // closed
                }
            }
        });
    }

    /** A connection was lost: another one's tables are followed, and the client reconnects if none is left. */
    private void lost(Connection c) {
        followed.compareAndSet(c, null);
        if (!closed.get() && !connected()) {
            reconnect(RECONNECT_MIN.toNanos());
        }
    }

    /** The reconnect backoff: 50 ms doubling to 1 s, so a member back on its address serves within about a second. */
    private static final Duration RECONNECT_MIN = Duration.ofMillis(50);
    private static final Duration RECONNECT_MAX = Duration.ofSeconds(1);

    /**
     * While the client has no usable connection, dials every member it knows and its seeds at
     * once, again and again with backoff (at most {@link #RECONNECT_MAX} between rounds); calls
     * that found no member wait for the connection ({@link #notifyChange}).
     */
    private void reconnect(long backoffNanos) {
        if (closed.get() || connected() || !reconnecting.compareAndSet(false, true)) {
            return;
        }
        anyConnection().whenComplete((c, err) -> {
            reconnecting.set(false);
            if (err == null || closed.get()) {
                return;
            }
            try {
                scheduler.schedule(() -> reconnect(Math.min(backoffNanos * 2, RECONNECT_MAX.toNanos())), jitter(backoffNanos), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException ignored) {
                // closed
            }
        });
    }

    private boolean connected() {
        for (Connection c : connections.values()) {
            if (c.usable()) {
                return true;
            }
        }
        return false;
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
            limits = fresh.limits;
            fresh.closed.thenRun(() -> lost(fresh));
            watchTable(fresh, retry.getInitialBackoff().toNanos());
            setTable(hello.getPartitionCount(), hello.getPartitionTable(), address);
            // Events may have been missed while disconnected.
            for (NearCache nc : nearCaches.values()) {
                nc.clear();
            }
            promise.complete(fresh);
            notifyChange();
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

    /**
     * Some usable connection: an open one, or else the first that opens of new ones to every
     * known member and seed at once (a hung or absent member costs nothing when another
     * answers).
     */
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
        return firstOf(new ArrayList<>(candidates), this::connectTo);
    }

    /**
     * Tries every address at once and completes with the first connection; fails with a
     * {@link NoMemberException} naming what happened at each address when none connects.
     */
    private CompletableFuture<Connection> firstOf(List<String> addresses, java.util.function.Function<String, CompletableFuture<Connection>> connect) {
        CompletableFuture<Connection> first = new CompletableFuture<>();
        if (addresses.isEmpty()) {
            first.completeExceptionally(new NoMemberException(List.of(), List.of()));
            return first;
        }
        Throwable[] errors = new Throwable[addresses.size()];
        AtomicInteger failed = new AtomicInteger();
        for (int i = 0; i < addresses.size(); i++) {
            int at = i;
            connect.apply(addresses.get(i)).whenComplete((c, err) -> {
                if (err == null) {
                    first.complete(c);
                    return;
                }
                errors[at] = Errors.unwrap(err);
                if (Errors.refusesConnection(errors[at])) {
                    // The cluster refused this client (its name, credentials, TLS): other
                    // members would too.
                    first.completeExceptionally(errors[at]);
                }
                if (failed.incrementAndGet() == addresses.size()) {
                    first.completeExceptionally(new NoMemberException(addresses, List.of(errors)));
                }
            });
        }
        return first;
    }

    /**
     * Does what a retryable error asks for before the next attempt: publish a schema the member
     * lacks, or refresh the partition table when the member no longer owns the partition, could
     * not be reached (it may have left the cluster) or could not serve while partitions moved.
     */
    CompletableFuture<Void> prepareRetry(Throwable err) {
        if (err instanceof UnknownCompactSchemaException) {
            return metadata.publishSchema(((UnknownCompactSchemaException) err).getSchemaId());
        }
        if (err instanceof WrongOwnerException || err instanceof UnavailableException) {
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
