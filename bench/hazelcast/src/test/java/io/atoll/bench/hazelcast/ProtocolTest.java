package io.atoll.bench.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

class ProtocolTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(16);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** Answers in about a millisecond, except during a one-second stall, which a request arriving in it waits out. */
    static final class StallingSystem {
        volatile long from = Long.MAX_VALUE;
        volatile long till = Long.MAX_VALUE;

        void stallIn(long nanos) {
            from = System.nanoTime() + nanos;
            till = from + 1_000_000_000L;
        }

        Protocol.Op op() {
            return () -> {
                long now = System.nanoTime();
                if (now >= from && now < till) {
                    Thread.sleep((till - now) / 1_000_000, (int) ((till - now) % 1_000_000));
                } else {
                    Thread.sleep(1);
                }
                return 1;
            };
        }
    }

    /**
     * The open-loop schedule counts a stall's queueing delay: at 250 requests per second for 4 s with
     * a 1 s stall from 1 s, the 1% of requests due in the stall's first 40 ms wait at least 960 ms,
     * so p99 is at least that (as atoll-bench's TestStallShowsInOpenLoopOnly).
     */
    @Test
    void stallShowsInOpenLoopPercentiles() throws Exception {
        Protocol p = new Protocol(pool, 16, 1, null, id -> 250);
        StallingSystem sys = new StallingSystem();
        Protocol.Op[] ops = new Protocol.Op[16];
        for (int t = 0; t < ops.length; t++) {
            ops[t] = sys.op();
        }
        sys.stallIn(1_000_000_000L);
        Protocol.Schedule s = p.schedule(ops, 250, Protocol.scheduled(250, 4), 6_000_000_000L, true);
        assertEquals(1000, s.latency.getTotalCount());
        assertEquals(0, s.unsent);
        long p99 = s.latency.getValueAtPercentile(99);
        assertTrue(p99 >= 950_000, "p99 " + p99 + " µs shows the stall's queueing delay");
        assertTrue(s.latency.getValueAtPercentile(50) < 200_000, "most requests did not meet the stall");
    }

    @Test
    void fallingBehindIsReported() throws Exception {
        Protocol p = new Protocol(pool, 1, 1, null, id -> 200);
        Protocol.Op slow = () -> {
            Thread.sleep(20);
            return 1;
        };
        Protocol.Schedule s = p.schedule(new Protocol.Op[] {slow}, 200, 100, 750_000_000L, true);
        assertTrue(s.unsent > 0);
        assertEquals(100, s.completed + s.unsent);
        assertEquals(100, s.latency.getTotalCount(), "unsent requests are recorded with the time they waited");
        assertFalse(s.keptUp(200, 0.5));
        assertTrue(s.achievedRate(200) < 100);
    }

    @Test
    void keepingUp() throws Exception {
        Protocol p = new Protocol(pool, 4, 1, null, id -> 200);
        Protocol.Op instant = () -> 1;
        Protocol.Schedule s = p.schedule(new Protocol.Op[] {instant, instant, instant, instant}, 200, 100, 750_000_000L, true);
        assertEquals(100, s.completed);
        assertEquals(0, s.unsent);
        // An instant system keeps the schedule unless this process itself is held back (a loaded
        // machine can delay the last send past the 100 ms slack).
        long lastDue = (long) (99 * 1e9 / 200);
        assertEquals(s.lastSend - lastDue <= 100_000_000L, s.keptUp(200, 0.5), "last send " + s.lastSend + " ns");
        assertEquals(200, s.achievedRate(200), 100);
    }

    @Test
    void histogramEncodingDecodes() throws Exception {
        Histogram h = Protocol.newHistogram();
        Protocol.record(h, 2_500_000);
        Protocol.record(h, 0);
        Protocol.record(h, Long.MAX_VALUE);
        String enc = Protocol.encode(h);
        assertTrue(enc.startsWith("HISTF"), enc);
        Histogram back = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(enc)), 0);
        assertEquals(3, back.getTotalCount());
        assertEquals(h.getMaxValue(), back.getMaxValue());
    }

    @Test
    void rateOptions() {
        Options o = Options.parse(new String[] {"full", "--rate", "A5/eq sorted-index=7500", "--rate", "24"});
        assertEquals(7500, o.rateFor("A5/eq sorted-index IDS/SQL"));
        assertEquals(24, o.rateFor("A1/scan-all IDS/PRED"));
        assertEquals(64, o.threads);
        assertEquals(60, o.aDuration);
        assertEquals(5, o.aWarmup);
        assertEquals(1, o.rounds);
        Options only = Options.parse(new String[] {"smoke", "--rate", "A1/=24", "--threads", "8"});
        assertTrue(Double.isNaN(only.rateFor("A2/count IDS/SQL")));
        assertEquals(8, only.threads);
        assertEquals(1, only.aDuration);
        assertNull(Options.parse(new String[] {"full"}).only);
        for (String bad : new String[] {"0", "fast", "(=3", "A1=-2"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.parse(new String[] {"full", "--rate", bad}));
            assertTrue(e.getMessage().contains("--rate"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Options.parse(new String[] {"full", "--rate", "5", "--rounds", "2"}));
    }

    @Test
    void onlyFindsLikeAtollBench() {
        Protocol p = new Protocol(pool, 1, 1, "A1/|A5/eq sorted", null);
        assertTrue(p.selected("A1/scan-all IDS/SQL"));
        assertTrue(p.selected("A5/eq sorted-index IDS/PRED"));
        assertFalse(p.selected("A2/count IDS/SQL"));
        Protocol rated = new Protocol(pool, 1, 1, null, id -> id.startsWith("A1") ? 24 : Double.NaN);
        assertTrue(rated.selected("A1/scan-all IDS/SQL"));
        assertFalse(rated.selected("A2/count IDS/SQL"), "a case without a rate is left out");
    }
}
