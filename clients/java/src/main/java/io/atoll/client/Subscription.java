package io.atoll.client;

import io.atoll.client.proto.EntryEventBatch;
import io.atoll.client.proto.ListenRequest;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A Listen stream on every member, re-opened with backoff when it breaks (listener.go of the
 * Go client). The handler learns of batches, of gaps (a stream broke: events from that member
 * may be lost until it is back) and of resumptions.
 */
final class Subscription implements ListenerRegistration {
    /** What a subscriber does with a member's stream. */
    interface Handler {
        void batch(String member, EntryEventBatch batch);

        /** The stream of {@code member} broke; events may be missing until {@link #resumed}. */
        void gap(String member);

        /** The stream of {@code member} is confirmed again after a gap or a join. */
        void resumed(String member);

        /** {@code member} joined the table; its stream is being opened. */
        default void joining(String member) {
        }
    }

    private final AtollClient client;
    private final ListenRequest request;
    private final Handler handler;
    private final Map<String, ClientCallStreamObserver<ListenRequest>> streams = new ConcurrentHashMap<>();
    private final Runnable onTableChange = this::followMembers;
    private volatile boolean closed;

    private Subscription(AtollClient client, ListenRequest request, Handler handler) {
        this.client = client;
        this.request = request;
        this.handler = handler;
    }

    /**
     * Opens the streams and completes once every member confirmed the registration: events of
     * writes made afterwards are delivered.
     */
    static CompletableFuture<Subscription> start(AtollClient client, ListenRequest request, Handler handler) {
        if (client.isClosed()) {
            return CompletableFuture.failedFuture(new ClientNotActiveException());
        }
        Subscription s = new Subscription(client, request, handler);
        return client.memberAddresses().thenCompose(members -> {
            List<CompletableFuture<Void>> opened = new ArrayList<>();
            for (String m : members) {
                opened.add(s.open(m, false));
            }
            return CompletableFuture.allOf(opened.toArray(new CompletableFuture<?>[0]));
        }).handle((v, err) -> {
            if (err != null) {
                s.close();
                throw new java.util.concurrent.CompletionException(Errors.unwrap(err));
            }
            client.register(s);
            client.addTableListener(s.onTableChange);
            if (client.isClosed()) {
                s.close();
                throw new ClientNotActiveException();
            }
            return s;
        });
    }

    /** Opens the stream to one member; completes on the member's confirmation. */
    private CompletableFuture<Void> open(String member, boolean reopening) {
        CompletableFuture<Void> confirmed = new CompletableFuture<>();
        client.connectTo(member).whenComplete((conn, err) -> {
            if (err != null) {
                confirmed.completeExceptionally(Errors.unwrap(err));
                return;
            }
            conn.maps.listen(request, new ClientResponseObserver<ListenRequest, EntryEventBatch>() {
                private ClientCallStreamObserver<ListenRequest> call;
                private boolean first = true;

                @Override
                public void beforeStart(ClientCallStreamObserver<ListenRequest> rs) {
                    call = rs;
                    if (closed) {
                        rs.cancel("listener closed", null);
                        return;
                    }
                    ClientCallStreamObserver<ListenRequest> prev = streams.put(member, rs);
                    if (prev != null && prev != rs) {
                        prev.cancel("replaced", null);
                    }
                }

                @Override
                public void onNext(EntryEventBatch b) {
                    if (first) {
                        first = false;
                        if (reopening) {
                            handler.resumed(member);
                        }
                        confirmed.complete(null);
                        return;
                    }
                    if (!closed) {
                        handler.batch(member, b);
                    }
                }

                @Override
                public void onError(Throwable t) {
                    ended(Errors.fromStatus(t, member, client.config.getClusterName()));
                }

                @Override
                public void onCompleted() {
                    ended(new UnavailableException("the member ended the listener stream", member, -1, true, null));
                }

                private void ended(AtollException e) {
                    streams.remove(member, call);
                    if (first) {
                        confirmed.completeExceptionally(e);
                        return;
                    }
                    if (closed) {
                        return;
                    }
                    handler.gap(member);
                    reopen(member, client.retry.getInitialBackoff().toNanos());
                }
            });
        });
        return confirmed;
    }

    private void reopen(String member, long backoffNanos) {
        if (closed || client.isClosed() || !client.isMember(member)) {
            return;
        }
        try {
            client.scheduler.schedule(() -> open(member, true).whenComplete((v, err) -> {
                if (err != null) {
                    long next = Math.min((long) (backoffNanos * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
                    reopen(member, next);
                }
            }), client.jitter(backoffNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException ignored) {
            // the client is closing
        }
    }

    /** Opens streams to members that joined the table. */
    private void followMembers() {
        if (closed) {
            return;
        }
        RoutingTable t = client.routing();
        if (t == null) {
            return;
        }
        for (String m : t.members) {
            if (!streams.containsKey(m)) {
                handler.joining(m);
                open(m, true).whenComplete((v, err) -> {
                    if (err != null) {
                        reopen(m, client.retry.getInitialBackoff().toNanos());
                    }
                });
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        client.removeTableListener(onTableChange);
        client.unregister(this);
        for (ClientCallStreamObserver<ListenRequest> s : streams.values()) {
            s.cancel("listener closed", null);
        }
        streams.clear();
    }
}
