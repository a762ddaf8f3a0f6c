package io.atoll.client;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rough figure, not a benchmark: synchronous get and set of 100-byte values from 8 threads
 * against one member on the same machine, for a few seconds each. Prints ops/s.
 */
class ThroughputTest {
    static final int THREADS = 8;
    static final int KEYS = 10_000;
    static final long NANOS = Long.getLong("atoll.throughput.seconds", 3) * 1_000_000_000L;

    @Test
    void getAndSetFromEightThreads() throws Exception {
        try (GoMember member = GoMember.start("throughput");
             AtollClient client = AtollClient.newClient(member.clientConfig())) {
            AtollMap<Integer, byte[]> m = client.getMap("throughput");
            byte[] value = new byte[100];
            for (int k = 0; k < KEYS; k++) {
                m.set(k, value);
            }
            double sets = run(() -> m.set(ThreadLocalRandom.current().nextInt(KEYS), value));
            double gets = run(() -> m.get(ThreadLocalRandom.current().nextInt(KEYS)));
            System.out.printf("throughput (%d threads, one member, 100-byte values): set %.0f ops/s, get %.0f ops/s%n", THREADS, sets, gets);
            assertTrue(sets > 0 && gets > 0);
        }
    }

    static double run(Runnable op) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            // Warm up briefly, then measure.
            measure(pool, op, NANOS / 3);
            return measure(pool, op, NANOS);
        } finally {
            pool.shutdown();
        }
    }

    static double measure(ExecutorService pool, Runnable op, long nanos) throws Exception {
        long start = System.nanoTime();
        long end = start + nanos;
        List<Future<Long>> fs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            fs.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    op.run();
                    n++;
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> f : fs) {
            total += f.get();
        }
        return total / ((System.nanoTime() - start) / 1e9);
    }
}
