package io.atoll.client;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requests the client cannot send fail alone, at once, with a typed exception: the calls of eight
 * writers sharing the connection all succeed, and none is retried.
 */
class BadRequestTest {
    static GoMember member;
    static AtollClient client;

    @BeforeAll
    static void start() {
        member = GoMember.start("bad-requests");
        client = AtollClient.newClient(member.clientConfig().setMaxMessageSize(1 << 20));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (member != null) {
            member.stop();
        }
    }

    @Test
    void badRequestsFailAlone() throws Exception {
        AtollMap<Integer, String> healthy = client.getMap("healthy");
        healthy.set(0, "warm");
        try (var r = client.sql().execute("SELECT 1")) {
            r.iterator().next(); // opens the query stream
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            int first = w;
            Thread t = new Thread(() -> {
                for (int k = first; !stop.get(); k += 8) {
                    try {
                        healthy.set(k, "v");
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                    writes.incrementAndGet();
                }
            });
            t.start();
            writers.add(t);
        }
        Await.until("writes under way", () -> writes.get() > 200);
        long retries = client.getStats().getRetries();

        long start = System.nanoTime();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> client.getMap("bad\uD800name"));
        assertNull(e.getMemberAddress(), "refused by the client, not a member");
        assertThrows(InvalidArgumentException.class, () -> client.getMap(""));
        assertThrows(InvalidArgumentException.class, () -> client.getMap("m".repeat(1025)));
        assertInstanceOf(InvalidArgumentException.class, assertThrows(RuntimeException.class,
                () -> client.sql().execute("SELECT '\uDC00'")));
        TooLargeException big = assertThrows(TooLargeException.class, () -> healthy.set(-1, "x".repeat(2 << 20)));
        assertNull(big.getMemberAddress(), "refused by the client, not a member");
        assertEquals(1 << 20, big.getLimit());
        assertTrue(System.nanoTime() - start < 1_000_000_000L, "the bad requests took over a second");

        long after = writes.get();
        Await.until("writes after the bad requests", () -> writes.get() > after + 200);
        stop.set(true);
        for (Thread t : writers) {
            t.join();
        }
        assertEquals(0, failed.get(), () -> failed.get() + " healthy writes failed; the first: " + firstFailure.get());
        assertEquals(retries, client.getStats().getRetries());
        assertEquals(1, client.getStats().getConnections());
    }
}
