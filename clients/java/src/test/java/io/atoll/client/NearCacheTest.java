package io.atoll.client;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The near cache: hits, invalidation by other clients (Java and Go), and no stale reads. */
class NearCacheTest {
    static GoMember member;
    static AtollClient cached;
    static AtollClient writer;

    @BeforeAll
    static void start() {
        member = GoMember.start("near");
        cached = AtollClient.newClient(member.clientConfig()
                .addNearCacheConfig("nc-*", new NearCacheConfig().setMaxEntries(1000))
                .addNearCacheConfig("nc-objects", new NearCacheConfig().setInMemoryFormat(NearCacheConfig.InMemoryFormat.OBJECT)));
        writer = AtollClient.newClient(member.clientConfig());
    }

    @AfterAll
    static void stop() {
        for (AtollClient c : new AtollClient[]{cached, writer}) {
            if (c != null) {
                c.close();
            }
        }
        if (member != null) {
            member.stop();
        }
    }

    /** Reads until the near cache serves the key (the invalidation listener confirms asynchronously). */
    static void warm(AtollMap<String, String> m, String key) {
        Await.until("the near cache to serve " + key, () -> {
            long hits = cached.getStats().getNearCacheHits();
            m.get(key);
            m.get(key);
            return cached.getStats().getNearCacheHits() > hits;
        });
    }

    @Test
    void hitsAndInvalidationByAnotherJavaClient() {
        AtollMap<String, String> m = cached.getMap("nc-java");
        AtollMap<String, String> w = writer.getMap("nc-java");
        w.set("k", "v1");
        warm(m, "k");
        assertEquals("v1", m.get("k"));
        w.set("k", "v2");
        Await.until("the invalidation from the other client", () -> "v2".equals(m.get("k")));
        w.delete("k");
        Await.until("the removal to invalidate", () -> m.get("k") == null);
        // The cache's own writes invalidate at once.
        m.set("own", "a");
        warm(m, "own");
        m.set("own", "b");
        assertEquals("b", m.get("own"));
        m.clear();
        assertNull(m.get("own"));
        assertTrue(cached.getStats().getNearCacheInvalidations() > 0);
        assertTrue(cached.getStats().getNearCacheEntries() >= 0);
    }

    @Test
    void invalidationByTheGoClient() {
        AtollMap<Integer, String> m = cached.getMap("nc-go");
        member.runPeer("-mode", "write", "-format", "string", "-map", "nc-go", "-count", "3");
        Await.until("the near cache to serve key 1", () -> {
            long hits = cached.getStats().getNearCacheHits();
            m.get(1);
            m.get(1);
            return cached.getStats().getNearCacheHits() > hits;
        });
        assertEquals("välue-1-✓", m.get(1));
        member.runPeer("-mode", "write", "-format", "int", "-map", "nc-go", "-count", "3");
        Await.until("the Go client's write to invalidate", () -> Integer.valueOf(38).equals((Object) m.get(1)));
    }

    @Test
    void objectFormatSharesInstances() {
        AtollMap<String, int[]> m = cached.getMap("nc-objects");
        m.set("a", new int[]{1, 2});
        Await.until("the near cache to serve a", () -> {
            long hits = cached.getStats().getNearCacheHits();
            m.get("a");
            return cached.getStats().getNearCacheHits() > hits;
        });
        assertSame(m.get("a"), m.get("a"));
    }

    /**
     * A reader with a near cache and a writer race on a few keys; every value the reader sees
     * after the writer's acknowledged write of value n must be at least n.
     */
    @Test
    void neverServesAValueOlderThanAnAcknowledgedWrite() throws Exception {
        AtollMap<String, Long> r = cached.getMap("nc-race");
        AtollMap<String, Long> w = writer.getMap("nc-race");
        String[] keys = {"a", "b", "c", "d"};
        Map<String, AtomicLong> acked = Map.of("a", new AtomicLong(-1), "b", new AtomicLong(-1), "c", new AtomicLong(-1), "d", new AtomicLong(-1));
        for (String k : keys) {
            w.set(k, 0L);
            acked.get(k).set(0);
        }
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<?> writes = pool.submit(() -> {
                for (long n = 1; n <= 1500; n++) {
                    String k = keys[(int) (n % keys.length)];
                    w.set(k, n);
                    acked.get(k).set(n);
                }
                stop.set(true);
                return null;
            });
            Future<Long> reads = pool.submit(() -> {
                long checks = 0;
                while (!stop.get()) {
                    String k = keys[ThreadLocalRandom.current().nextInt(keys.length)];
                    long floor = acked.get(k).get();
                    Long v = r.get(k);
                    // A value acknowledged before the read began may only have been overwritten
                    // by a later one; the cache must not hand out anything older. The member's
                    // event for the write may still be in flight, so allow it to arrive.
                    if (v < floor) {
                        long deadline = System.nanoTime() + 30_000_000_000L;
                        while ((v = r.get(k)) < floor && System.nanoTime() < deadline) {
                            Thread.onSpinWait();
                        }
                        assertFalse(v < floor, "key " + k + ": read " + v + " after write " + floor + " was acknowledged");
                    }
                    checks++;
                }
                return checks;
            });
            writes.get();
            assertTrue(reads.get() > 0);
        } finally {
            pool.shutdownNow();
        }
        // Once the writes stop, every key converges to its last value.
        for (String k : keys) {
            long last = acked.get(k).get();
            Await.until("key " + k + " to show " + last, () -> r.get(k) == last);
        }
    }
}
