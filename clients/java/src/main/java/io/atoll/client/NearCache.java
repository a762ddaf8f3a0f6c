package io.atoll.client;

import io.atoll.client.proto.EntryEvent;
import io.atoll.client.proto.EntryEventBatch;
import io.atoll.client.proto.EntryEventType;
import io.atoll.client.proto.ListenRequest;
import io.atoll.client.serialization.Data;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One map's near cache. Staleness is prevented with invalidation counters, as in the Go
 * client: a key's stripe counter grows on every invalidation and the cache's epoch on every
 * clear; a read from the cluster records both before it is sent, and its value is cached and
 * served only while both are unchanged. So a value fetched before an invalidation is never
 * served after it, however late its insertion lands; stripe collisions only cost misses.
 *
 * <p>Nothing is cached or served until the invalidation listener is confirmed by every
 * member, nor while a member's event stream is down; a gap in the events (dropped events, a
 * broken stream, a reconnection) clears the cache.
 */
final class NearCache {
    private static final int STRIPES = 1 << 12;
    private static final int SEGMENTS = 16;

    private final AtollClient client;
    private final String mapName;
    private final NearCacheConfig config;
    private final long ttlNanos;
    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
    private final AtomicLong epoch = new AtomicLong();
    private final Segment[] segments = new Segment[SEGMENTS];
    private final Set<String> down = ConcurrentHashMap.newKeySet();
    private volatile boolean subscribed;
    private volatile boolean closed;
    private volatile Subscription subscription;

    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder invalidations = new LongAdder();

    /** A cached value: serialized, or decoded with the OBJECT format. */
    static final class Entry {
        final Data data;
        final Object object;
        final long seq;
        final long epoch;
        final long storedNanos;

        Entry(Data data, Object object, long seq, long epoch, long storedNanos) {
            this.data = data;
            this.object = object;
            this.seq = seq;
            this.epoch = epoch;
            this.storedNanos = storedNanos;
        }
    }

    /** The invalidation state before a read from the cluster. */
    static final class Reservation {
        final long seq;
        final long epoch;

        Reservation(long seq, long epoch) {
            this.seq = seq;
            this.epoch = epoch;
        }
    }

    /** An LRU-ordered part of the cache. */
    private static final class Segment extends LinkedHashMap<Data, Entry> {
        private static final long serialVersionUID = 1L;
        private final int max;

        Segment(int max) {
            super(16, 0.75f, true);
            this.max = max;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<Data, Entry> eldest) {
            return size() > max;
        }
    }

    NearCache(AtollClient client, String mapName, NearCacheConfig config) {
        this.client = client;
        this.mapName = mapName;
        this.config = config;
        this.ttlNanos = config.getTtl().toNanos();
        int per = Math.max(1, (config.getMaxEntries() + SEGMENTS - 1) / SEGMENTS);
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment(per);
        }
        subscribe(client.retry.getInitialBackoff().toNanos());
    }

    boolean cachesObjects() {
        return config.getInMemoryFormat() == NearCacheConfig.InMemoryFormat.OBJECT;
    }

    private boolean ready() {
        return subscribed && down.isEmpty();
    }

    /** Listens to the map's events (without values) and invalidates; retries until it works. */
    private void subscribe(long backoffNanos) {
        if (closed || client.isClosed()) {
            return;
        }
        Subscription.start(client, ListenRequest.newBuilder().setMap(mapName).build(), new Subscription.Handler() {
            @Override
            public void batch(String member, EntryEventBatch b) {
                if (b.getDropped() > 0) {
                    clear();
                }
                for (EntryEvent e : b.getEventsList()) {
                    if (e.getType() == EntryEventType.ENTRY_EVENT_TYPE_CLEARED || e.getKey().isEmpty()) {
                        clear();
                    } else {
                        invalidate(Data.fromByteBuffer(e.getKey().asReadOnlyByteBuffer()));
                    }
                }
            }

            @Override
            public void gap(String member) {
                down.add(member);
                clear();
            }

            @Override
            public void joining(String member) {
                down.add(member);
            }

            @Override
            public void resumed(String member) {
                clear();
                down.remove(member);
            }
        }).whenComplete((s, err) -> {
            if (err == null) {
                subscription = s;
                if (closed) {
                    s.close();
                    return;
                }
                clear();
                subscribed = true;
                return;
            }
            try {
                long next = Math.min((long) (backoffNanos * client.retry.getMultiplier()), client.retry.getMaxBackoff().toNanos());
                client.scheduler.schedule(() -> subscribe(next), client.jitter(backoffNanos), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException ignored) {
                // the client is closing
            }
        });
    }

    private int stripe(Data key) {
        return (key.hashCode() & 0x7fffffff) % STRIPES;
    }

    private Segment segment(Data key) {
        return segments[(key.hashCode() >>> 16) % SEGMENTS & (SEGMENTS - 1)];
    }

    /** A valid cached entry, or null. */
    Entry get(Data key) {
        if (!ready()) {
            misses.increment();
            return null;
        }
        Segment seg = segment(key);
        Entry e;
        synchronized (seg) {
            e = seg.get(key);
        }
        if (e == null || e.epoch != epoch.get() || e.seq != stripes.get(stripe(key))
                || (ttlNanos > 0 && System.nanoTime() - e.storedNanos > ttlNanos)) {
            if (e != null) {
                synchronized (seg) {
                    seg.remove(key, e);
                }
            }
            misses.increment();
            return null;
        }
        hits.increment();
        return e;
    }

    /** Captures the invalidation state before a read from the cluster. */
    Reservation reserve(Data key) {
        return new Reservation(stripes.get(stripe(key)), epoch.get());
    }

    /** Caches a value read under reservation {@code r}, unless the key was invalidated since. */
    void put(Data key, Data value, Object object, Reservation r) {
        if (!ready() || r.seq != stripes.get(stripe(key)) || r.epoch != epoch.get()) {
            return;
        }
        Entry e = cachesObjects() ? new Entry(null, object, r.seq, r.epoch, System.nanoTime())
                : new Entry(value, null, r.seq, r.epoch, System.nanoTime());
        Segment seg = segment(key);
        synchronized (seg) {
            seg.put(key, e);
        }
    }

    void invalidate(Data key) {
        stripes.incrementAndGet(stripe(key));
        Segment seg = segment(key);
        synchronized (seg) {
            seg.remove(key);
        }
        invalidations.increment();
    }

    void clear() {
        epoch.incrementAndGet();
        for (Segment seg : segments) {
            synchronized (seg) {
                seg.clear();
            }
        }
        invalidations.increment();
    }

    long size() {
        long n = 0;
        for (Segment seg : segments) {
            synchronized (seg) {
                n += seg.size();
            }
        }
        return n;
    }

    CompletableFuture<Void> close() {
        closed = true;
        Subscription s = subscription;
        if (s != null) {
            s.close();
        }
        clear();
        return CompletableFuture.completedFuture(null);
    }
}
