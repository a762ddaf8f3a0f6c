package io.atoll.client;

import io.atoll.client.proto.ExecuteResponse;
import io.atoll.client.proto.QueryCall;
import io.atoll.client.proto.QueryReply;
import io.atoll.client.proto.QueryServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The query calls (Execute, Fetch, Close) to one member, multiplexed by call id over one
 * {@code QueryService.Pipeline} stream, as the map calls share the connection's pipeline
 * (the Go client's queryStream). Opened on first use by {@link Connection#queryStream()};
 * a broken stream fails its calls in flight and is replaced on the next call. Thread-safe.
 */
final class QueryStream {
    private final String address;
    private final String clientCluster;
    private final Limits limits;
    private final Object sendLock = new Object();
    private ClientCallStreamObserver<QueryCall> requests; // guarded by sendLock
    private final Map<Long, Connection.Pending<ExecuteResponse>> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private volatile MemberConnectionException broken;

    QueryStream(ManagedChannel channel, String address, String clientCluster, Limits limits) {
        this.address = address;
        this.clientCluster = clientCluster;
        this.limits = limits;
        // Replies complete futures on the transport's thread; nothing on this path blocks.
        QueryServiceGrpc.newStub(channel).withExecutor(Runnable::run).pipeline(new ClientResponseObserver<QueryCall, QueryReply>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<QueryCall> requestStream) {
                synchronized (sendLock) {
                    requests = requestStream;
                }
            }

            @Override
            public void onNext(QueryReply r) {
                Connection.Pending<ExecuteResponse> p = pending.remove(r.getCallId());
                if (p == null) {
                    return;
                }
                if (r.hasError()) {
                    p.completeExceptionally(Errors.fromPipeline(r.getError(), address, clientCluster));
                } else {
                    p.complete(r.getResult());
                }
            }

            @Override
            public void onError(Throwable t) {
                fail(t);
            }

            @Override
            public void onCompleted() {
                fail(new IllegalStateException("the member ended the query stream"));
            }
        });
    }

    /** Whether new calls may use the stream. */
    boolean usable() {
        return broken == null;
    }

    /** Ends the stream and fails the calls in flight (their outcome is unknown). */
    void fail(Throwable cause) {
        MemberConnectionException e;
        synchronized (this) {
            if (broken != null) {
                return;
            }
            broken = e = new MemberConnectionException(ConnectionFailures.message(address, cause), address, true, cause);
        }
        for (Iterator<Map.Entry<Long, Connection.Pending<ExecuteResponse>>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Connection.Pending<ExecuteResponse>> en = it.next();
            it.remove();
            en.getValue().completeExceptionally(e);
        }
    }

    /**
     * Sends a call and returns its result. Fails with the call's {@link AtollException}, with
     * {@link MemberConnectionException} when the stream is or becomes broken, and with
     * {@link OperationTimeoutException} when the deadline passes (see {@link #sweep}).
     */
    CompletableFuture<ExecuteResponse> call(QueryCall.Builder call, long deadlineNanos) {
        MemberConnectionException b = broken;
        if (b != null) {
            return CompletableFuture.failedFuture(notSent(b));
        }
        long id = nextId.incrementAndGet();
        Connection.Pending<ExecuteResponse> p = new Connection.Pending<>(deadlineNanos);
        pending.put(id, p);
        b = broken;
        if (b != null) {
            if (pending.remove(id) != null) {
                p.completeExceptionally(notSent(b));
            }
            return p;
        }
        QueryCall req = call.setCallId(id).build();
        TooLargeException tooLarge = limits.message(req.getSerializedSize());
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
            fail(e);
        }
        return p;
    }

    private MemberConnectionException notSent(MemberConnectionException b) {
        return new MemberConnectionException(b.getMessage(), address, false, b.getCause());
    }

    /** Fails the calls whose deadline has passed. */
    void sweep(long nowNanos) {
        Connection.Pending.expire(pending, nowNanos, "member " + address + " did not answer the query call within its deadline", address);
    }

    /** Ends the stream; calls in flight fail with {@code why}. */
    void close(Throwable why) {
        synchronized (sendLock) {
            if (requests != null) {
                try {
                    requests.onCompleted();
                } catch (RuntimeException ignored) {
                    // already ended
                }
            }
        }
        fail(why);
    }
}
