package io.atoll.client;

import com.google.protobuf.ByteString;
import io.atoll.client.proto.ClusterServiceGrpc;
import io.atoll.client.proto.ConnectRequest;
import io.atoll.client.proto.ConnectResponse;
import io.atoll.client.proto.ErrorCode;
import io.atoll.client.proto.ErrorDetail;
import io.atoll.client.proto.MapServiceGrpc;
import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;
import io.atoll.client.proto.PipelineServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's connection to one member: a gRPC channel with one Pipeline stream on which
 * calls are multiplexed by call id, as the Go client's conn. Thread-safe.
 */
final class Connection {
    final String address;
    final ManagedChannel channel;
    final ClusterServiceGrpc.ClusterServiceStub cluster;
    final MapServiceGrpc.MapServiceStub maps;
    /** A future already completed with this connection, handed out on the routing fast path. */
    final CompletableFuture<Connection> self;
    /** Completes when the pipeline has failed or ended (never exceptionally). */
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    private volatile ByteString memberUuid = ByteString.EMPTY;
    private final String clientCluster;
    /** What the member accepts (from its Connect answer). */
    volatile Limits limits;
    private final Object sendLock = new Object();
    private ClientCallStreamObserver<PipelineRequest> requests; // guarded by sendLock once set
    private final Map<Long, Pending<PipelineResponse>> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private volatile MemberConnectionException broken;
    private QueryStream queryStream; // guarded by this

    /** A call waiting for its response; the deadline lets the sweeper fail it. */
    static final class Pending<T> extends CompletableFuture<T> {
        final long deadlineNanos;

        Pending(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        /** Fails and removes the calls of {@code pending} whose deadline has passed. */
        static <T> void expire(Map<Long, Pending<T>> pending, long nowNanos, String message, String address) {
            for (Map.Entry<Long, Pending<T>> en : pending.entrySet()) {
                Pending<T> p = en.getValue();
                if (nowNanos - p.deadlineNanos >= 0 && pending.remove(en.getKey(), p)) {
                    p.completeExceptionally(new OperationTimeoutException(message, address, -1, false, null));
                }
            }
        }
    }

    private Connection(String address, ManagedChannel channel, String clientCluster, Limits limits) {
        this.address = address;
        this.channel = channel;
        this.clientCluster = clientCluster;
        this.limits = limits;
        this.cluster = ClusterServiceGrpc.newStub(channel);
        this.maps = MapServiceGrpc.newStub(channel);
        this.self = CompletableFuture.completedFuture(this);
    }

    /** The member's identity from the handshake. */
    ByteString memberUuid() {
        return memberUuid;
    }

    /**
     * Connects to a member: checks the cluster name with Connect, then opens the pipeline. An
     * address that refuses the connection fails at once; one that does not answer, after the
     * connect timeout. Fails with an exception that refuses the connection
     * ({@link Errors#refusesConnection}: another cluster, credentials, TLS) or with
     * {@link MemberConnectionException}.
     */
    static CompletableFuture<Map.Entry<Connection, ConnectResponse>> dial(String address, AtollClientConfig cfg, ByteString clientUuid) {
        CompletableFuture<Map.Entry<Connection, ConnectResponse>> result = new CompletableFuture<>();
        ManagedChannel ch;
        try {
            int colon = address.lastIndexOf(':');
            String host = address.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            ChannelCredentials creds = cfg.getTlsConfig() == null ? InsecureChannelCredentials.create() : cfg.getTlsConfig().channelCredentials();
            ManagedChannelBuilder<?> b = Grpc.newChannelBuilderForAddress(host, Integer.parseInt(address.substring(colon + 1)), creds)
                    .maxInboundMessageSize(cfg.getMaxMessageSize())
                    .keepAliveTime(cfg.getHeartbeatInterval().toNanos(), TimeUnit.NANOSECONDS)
                    .keepAliveTimeout(cfg.getHeartbeatTimeout().toNanos(), TimeUnit.NANOSECONDS)
                    .keepAliveWithoutCalls(true);
            if (cfg.authorization() != null) {
                b.intercept(authorization(cfg.authorization()));
            }
            ch = b.build();
        } catch (RuntimeException e) {
            result.completeExceptionally(new MemberConnectionException("member " + address + " cannot be dialed: " + e.getMessage(), address, false, e));
            return result;
        }
        Connection c = new Connection(address, ch, cfg.getClusterName(), Limits.of(cfg));
        ConnectRequest req = ConnectRequest.newBuilder()
                .setClusterName(cfg.getClusterName())
                .setClientName(cfg.getClientName())
                .setClientUuid(clientUuid)
                .setClientVersion("java/" + AtollClient.VERSION)
                .build();
        // Not wait-for-ready: the call waits while the channel connects, and fails at once when the
        // connection is refused or its TLS handshake fails, which waiting would only repeat.
        c.cluster.withDeadlineAfter(cfg.getConnectTimeout().toNanos(), TimeUnit.NANOSECONDS)
                .connect(req, new StreamObserver<>() {
                    private ConnectResponse hello;

                    @Override
                    public void onNext(ConnectResponse value) {
                        hello = value;
                    }

                    @Override
                    public void onError(Throwable t) {
                        ch.shutdownNow();
                        AtollException e = Errors.fromStatus(t, address, cfg.getClusterName());
                        if (Errors.refusesConnection(e)) {
                            result.completeExceptionally(e);
                            return;
                        }
                        Throwable cause = io.grpc.Status.fromThrowable(t).getCode() == io.grpc.Status.Code.DEADLINE_EXCEEDED
                                ? new ConnectionFailures.ConnectTimeout(cfg.getConnectTimeout()) : t;
                        result.completeExceptionally(new MemberConnectionException(ConnectionFailures.message(address, cause), address, false, t));
                    }

                    @Override
                    public void onCompleted() {
                        if (hello == null) {
                            onError(new IllegalStateException("the member sent no Connect response"));
                            return;
                        }
                        c.memberUuid = hello.getMemberUuid();
                        c.limits = Limits.of(cfg, hello);
                        try {
                            c.openPipeline();
                        } catch (RuntimeException e) {
                            onError(e);
                            return;
                        }
                        result.complete(Map.entry(c, hello));
                    }
                });
        return result;
    }

    /** Sends the authorization header with every call of a channel. */
    private static ClientInterceptor authorization(String value) {
        Metadata.Key<String> key = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        headers.put(key, value);
                        super.start(listener, headers);
                    }
                };
            }
        };
    }

    private void openPipeline() {
        // Responses are matched to their calls on the transport's thread: completing a future
        // costs less than handing every response to another thread first. Nothing on this
        // path blocks (decoding that needs metadata composes asynchronously).
        PipelineServiceGrpc.newStub(channel).withExecutor(Runnable::run).pipeline(new ClientResponseObserver<PipelineRequest, PipelineResponse>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<PipelineRequest> requestStream) {
                synchronized (sendLock) {
                    requests = requestStream;
                }
            }

            @Override
            public void onNext(PipelineResponse resp) {
                Pending<PipelineResponse> p = pending.remove(resp.getCallId());
                if (p != null) {
                    p.complete(resp);
                }
            }

            @Override
            public void onError(Throwable t) {
                // A draining member answers every call it took before it ends the stream:
                // calls still pending then were never run.
                ErrorDetail d = Errors.detailOf(t);
                boolean shuttingDown = d != null && d.getCode() == ErrorCode.ERROR_CODE_SHUTTING_DOWN;
                fail(t, !shuttingDown);
            }

            @Override
            public void onCompleted() {
                fail(new IllegalStateException("the member ended the stream"), true);
            }
        });
    }

    /**
     * The connection's query stream, opened on first use and replaced when it broke.
     *
     * @throws MemberConnectionException (not sent) when the connection is broken
     */
    synchronized QueryStream queryStream() {
        MemberConnectionException b = broken;
        if (b != null) {
            throw notSent(b);
        }
        if (queryStream == null || !queryStream.usable()) {
            queryStream = new QueryStream(channel, address, clientCluster, limits);
        }
        return queryStream;
    }

    /** Whether new calls may use the connection. */
    boolean usable() {
        return broken == null;
    }

    /**
     * Marks the connection broken and fails the calls in flight; {@code sent} says whether
     * they may have run on the member.
     */
    void fail(Throwable cause, boolean sent) {
        MemberConnectionException e;
        synchronized (this) {
            if (broken != null) {
                return;
            }
            broken = e = new MemberConnectionException(ConnectionFailures.message(address, cause), address, sent, cause);
        }
        for (Iterator<Map.Entry<Long, Pending<PipelineResponse>>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Pending<PipelineResponse>> en = it.next();
            it.remove();
            en.getValue().completeExceptionally(e);
        }
        closed.complete(null);
    }

    /**
     * Sends a call and returns its response (which may carry an Error). Fails with
     * {@link MemberConnectionException} when the connection is or becomes broken, and with
     * {@link OperationTimeoutException} when the deadline passes (see {@link #sweep}).
     */
    CompletableFuture<PipelineResponse> send(PipelineRequest template, long deadlineNanos) {
        MemberConnectionException b = broken;
        if (b != null) {
            return CompletableFuture.failedFuture(notSent(b));
        }
        long id = nextId.incrementAndGet();
        Pending<PipelineResponse> p = new Pending<>(deadlineNanos);
        pending.put(id, p);
        // Registered after a failure's sweep? Then nobody will answer: give up.
        b = broken;
        if (b != null) {
            if (pending.remove(id) != null) {
                p.completeExceptionally(notSent(b));
            }
            return p;
        }
        long remainingMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        PipelineRequest req = template.toBuilder().setCallId(id).setTimeoutMs(remainingMs).build();
        // A key, value or message over the member's limits fails alone, unsent.
        TooLargeException tooLarge = limits.check(req);
        if (tooLarge != null) {
            if (pending.remove(id) != null) {
                p.completeExceptionally(tooLarge);
            }
            return p;
        }
        try {
            synchronized (sendLock) {
                requests.onNext(req);
            }
        } catch (RuntimeException e) {
            fail(e, true);
        }
        return p;
    }

    private MemberConnectionException notSent(MemberConnectionException b) {
        return new MemberConnectionException(b.getMessage(), address, false, b.getCause());
    }

    /** Fails the calls whose deadline has passed; run periodically by the client. */
    void sweep(long nowNanos) {
        QueryStream qs;
        synchronized (this) {
            qs = queryStream;
        }
        if (qs != null) {
            qs.sweep(nowNanos);
        }
        Pending.expire(pending, nowNanos, "member " + address + " did not answer within the call's deadline", address);
    }

    /** Ends the pipeline and the channel. */
    void close() {
        synchronized (sendLock) {
            if (requests != null) {
                try {
                    requests.onCompleted();
                } catch (RuntimeException ignored) {
                    // already closed
                }
            }
        }
        QueryStream qs;
        synchronized (this) {
            qs = queryStream;
        }
        MemberConnectionException b = broken;
        if (qs != null) {
            qs.close(b != null ? b.getCause() : new ClientNotActiveException());
        }
        fail(new ClientNotActiveException(), false);
        channel.shutdownNow();
    }
}
