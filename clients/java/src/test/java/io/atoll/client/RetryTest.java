package io.atoll.client;

import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Small;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Retries across member restarts, schema re-publication, and a closed client. */
class RetryTest {

    /**
     * Threads keep writing (plain and Compact values, which need their schema on the member)
     * and reading while the member restarts gracefully; every call completes.
     */
    @Test
    void callsInFlightSurviveAGracefulRestart() throws Exception {
        try (GoMember member = GoMember.start("retry");
             AtollClient client = AtollClient.newClient(member.clientConfig()
                     .setSerializationConfig(TestModel.serialization())
                     .setRetryConfig(new RetryConfig().setMaxBackoff(Duration.ofMillis(250))))) {
            AtollMap<Integer, Small> m = client.getMap("restart");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong done = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                workers.add(pool.submit(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        int k = thread * 1_000_000 + i % 100;
                        m.set(k, Gen.smallForKey(k));
                        Small s = m.get(k);
                        // A restarted member is empty: the value is there unless the restart
                        // came between the set and the get.
                        if (s != null) {
                            assertEquals(Gen.smallForKey(k).stringField, s.stringField);
                        }
                        m.setAsync(k + 500, Gen.smallForKey(k)).get();
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            Await.until("calls before the restart", () -> done.get() > 100);
            member.restart();
            long after = done.get();
            Await.until("calls after the restart", () -> done.get() > after + 200);
            stop.set(true);
            for (Future<?> f : workers) {
                f.get();
            }
            pool.shutdown();
            assertTrue(client.getStats().getRetries() > 0, client.getStats().toString());
            assertEquals(0, client.getStats().getFailures(), client.getStats().toString());
            // The new member learned the schema again from the client.
            m.set(-1, Gen.smallForKey(1));
            try (AtollClient reader = AtollClient.newClient(member.clientConfig())) {
                Object v = reader.getMap("restart").get(-1);
                assertEquals("small", ((io.atoll.client.serialization.GenericRecord) v).getTypeName());
            }
        }
    }

    /**
     * After a crash (SIGKILL) reads are retried until the member is back; writes whose
     * outcome is unknown fail with a MemberConnectionException that says they were sent, unless
     * redoOperation is on.
     */
    @Test
    void crashAndRedoOperation() throws Exception {
        try (GoMember member = GoMember.start("crash");
             AtollClient strict = AtollClient.newClient(member.clientConfig()
                     .setRetryConfig(new RetryConfig().setMaxBackoff(Duration.ofMillis(250))));
             AtollClient redo = AtollClient.newClient(member.clientConfig()
                     .setRetryConfig(new RetryConfig().setMaxBackoff(Duration.ofMillis(250)).setRedoOperation(true)))) {
            AtollMap<Integer, Integer> s = strict.getMap("crash");
            AtollMap<Integer, Integer> r = redo.getMap("crash");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger unknownOutcomes = new AtomicInteger();
            AtomicLong redoCalls = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            Future<?> strictWriter = pool.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    try {
                        s.set(i % 50, i);
                    } catch (MemberConnectionException e) {
                        assertTrue(e.isSent(), e.toString());
                        unknownOutcomes.incrementAndGet();
                    }
                    s.get(i % 50);
                }
                return null;
            });
            Future<?> redoWriter = pool.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    r.set(i % 50, i);
                    r.get(i % 50);
                    redoCalls.incrementAndGet();
                }
                return null;
            });
            Await.until("calls before the crash", () -> redoCalls.get() > 100);
            member.kill();
            member.restart();
            long after = redoCalls.get();
            Await.until("calls after the crash", () -> redoCalls.get() > after + 100);
            stop.set(true);
            strictWriter.get();
            redoWriter.get();
            pool.shutdown();
            assertEquals(0, redo.getStats().getFailures(), redo.getStats().toString());
            assertTrue(unknownOutcomes.get() >= 0);
        }
    }

    @Test
    void timeoutWhenNoMemberComesBack() {
        GoMember member = GoMember.start("gone");
        AtollClient client = AtollClient.newClient(member.clientConfig()
                .setInvocationTimeout(Duration.ofSeconds(2))
                .setRetryConfig(new RetryConfig().setMaxBackoff(Duration.ofMillis(100))));
        try {
            AtollMap<String, String> m = client.getMap("gone");
            m.set("a", "b");
            member.stop();
            long start = System.nanoTime();
            OperationTimeoutException e = assertThrows(OperationTimeoutException.class, () -> m.get("a"));
            assertTrue(System.nanoTime() - start >= 1_500_000_000L, "gave up early: " + e);
            assertTrue(e.getCause() instanceof AtollException, String.valueOf(e.getCause()));
        } finally {
            client.close();
            member.stop();
        }
    }

    /**
     * A member that hangs (SIGSTOP) keeps its TCP connection open; the heartbeat closes it after
     * the heartbeat interval and timeout, and the client uses the member again once it answers.
     */
    @Test
    void heartbeatClosesTheConnectionToAHungMember() {
        try (GoMember member = GoMember.start("retry-heartbeat");
             AtollClient client = AtollClient.newClient(member.clientConfig().setHeartbeatTimeout(Duration.ofSeconds(1)))) {
            AtollMap<String, String> m = client.getMap("hb");
            m.put("k", "v");
            assertEquals(1, client.getStats().getConnections());
            member.pause();
            try {
                Await.until("the heartbeat to close the connection to the hung member",
                        () -> client.getStats().getConnections() == 0);
            } finally {
                member.resume();
            }
            assertEquals("v", m.get("k"));
            assertEquals(1, client.getStats().getConnections());
        }
    }

    @Test
    void closedClientRejectsCalls() {
        try (GoMember member = GoMember.start("closed")) {
            AtollClient client = AtollClient.newClient(member.clientConfig());
            AtollMap<String, String> m = client.getMap("m");
            m.set("a", "b");
            client.close();
            client.close();
            assertTrue(client.isClosed());
            assertThrows(ClientNotActiveException.class, () -> m.get("a"));
            assertThrows(ClientNotActiveException.class, () -> m.setAsync("a", "c"));
            assertThrows(ClientNotActiveException.class, () -> client.getMap("other"));
        }
    }
}
