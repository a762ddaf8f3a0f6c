package io.atoll.client;

import io.atoll.client.bench.Failover;
import io.atoll.client.serialization.InvalidStringException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client against member processes under failure: oversized requests, members that are
 * gone, a member killed under writers, one back on its address, strings that cannot be
 * encoded exactly, and the messages and names Hazelcast users expect.
 */
class FailureTest {

    /**
     * A 70 MB value among 400 small asynchronous writes fails alone, before anything is sent,
     * with a TooLargeException naming the member's limit; the 400 succeed. A putAll of values
     * each under the value limit but together over the message limit succeeds (split by bytes),
     * and getAll reads them back.
     */
    @Test
    void oversizedValueFailsAlone() throws Exception {
        try (GoMember member = GoMember.start("oversized");
             AtollClient client = AtollClient.newClient(member.clientConfig())) {
            AtollMap<String, byte[]> m = client.getMap("big");
            List<CompletableFuture<Void>> small = new ArrayList<>();
            CompletableFuture<Void> huge = null;
            for (int i = 0; i < 400; i++) {
                small.add(m.setAsync("small-" + i, new byte[] {1}));
                if (i == 200) {
                    huge = m.setAsync("huge", new byte[70_000_000]);
                }
            }
            for (CompletableFuture<Void> f : small) {
                f.get(60, TimeUnit.SECONDS);
            }
            CompletableFuture<Void> hugeCall = huge;
            ExecutionException failed = assertThrows(ExecutionException.class, () -> hugeCall.get(60, TimeUnit.SECONDS));
            TooLargeException tooLarge = assertInstanceOf(TooLargeException.class, failed.getCause());
            assertEquals(16 << 20, tooLarge.getLimit());
            assertNull(tooLarge.getMemberAddress(), "it was sent");
            assertTrue(tooLarge.getMessage().contains("limits.max-value-size"), tooLarge.getMessage());
            assertEquals(400, m.size());

            Map<String, byte[]> large = new HashMap<>();
            for (int i = 0; i < 5; i++) {
                byte[] v = new byte[15_000_000];
                v[0] = (byte) i;
                large.put("large-" + i, v);
            }
            m.putAll(large);
            Map<String, byte[]> got = m.getAll(Set.of("large-0", "large-1", "large-2", "large-3", "large-4", "small-1"));
            assertEquals(6, got.size());
            for (int i = 0; i < 5; i++) {
                assertEquals(15_000_000, got.get("large-" + i).length);
                assertEquals((byte) i, got.get("large-" + i)[0]);
            }
            assertArrayEquals(new byte[] {1}, got.get("small-1"));
            assertEquals(1, client.getStats().getConnections(), "the oversized requests cost the connection");
        }
    }

    /** With the only member gone, a 2 s invocation timeout holds, for a sync and an async call. */
    @Test
    void deadlinesHoldWithNoMember() throws Exception {
        GoMember member = GoMember.start("deadline");
        try (AtollClient client = AtollClient.newClient(member.clientConfig().setInvocationTimeout(Duration.ofSeconds(2)))) {
            AtollMap<String, String> m = client.getMap("gone");
            m.set("k", "v");
            member.kill();
            long start = System.nanoTime();
            OperationTimeoutException e = assertThrows(OperationTimeoutException.class, () -> m.get("k"));
            long syncMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(syncMs <= 2500, "get took " + syncMs + " ms");
            assertTrue(e.getMessage().length() < 500, e.getMessage());
            assertTrue(e.getMessage().contains("2s"), e.getMessage());

            start = System.nanoTime();
            CompletableFuture<String> f = m.getAsync("k");
            ExecutionException ee = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
            long asyncMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ee.getCause() instanceof OperationTimeoutException, String.valueOf(ee.getCause()));
            assertTrue(asyncMs <= 2500, "getAsync completed after " + asyncMs + " ms");
            start = System.nanoTime();
            assertThrows(OperationTimeoutException.class, () -> m.set("k", "w"));
            long setMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(setMs <= 2500, "set took " + setMs + " ms");
        } finally {
            member.stop();
        }
    }

    /**
     * newClient fails within its connect timeout when no seed answers, whether the seeds refuse
     * connections or take them and never answer, with a short message saying so.
     */
    @Test
    void newClientWithEverySeedDown() throws IOException {
        List<String> refusing = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                refusing.add("127.0.0.1:" + s.getLocalPort());
            }
        }
        List<ServerSocket> silent = new ArrayList<>();
        try {
            List<String> silentAddrs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()); // the kernel accepts; nobody answers
                silent.add(s);
                silentAddrs.add("127.0.0.1:" + s.getLocalPort());
            }
            List<String> both = new ArrayList<>(refusing);
            both.addAll(silentAddrs);
            for (List<String> seeds : List.of(refusing, silentAddrs, both)) {
                Duration timeout = Duration.ofSeconds(2);
                long start = System.nanoTime();
                UnavailableException e = assertThrows(UnavailableException.class, () -> AtollClient.newClient(
                        new AtollClientConfig().setAddresses(seeds).setClusterName("none").setConnectTimeout(timeout)));
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(ms <= timeout.toMillis() + 500, "newClient failed after " + ms + " ms");
                assertTrue(e.getMessage().length() < 500, e.getMessage().length() + " characters: " + e.getMessage());
                assertTrue(e.getMessage().contains("no member reachable"), e.getMessage());
                assertFalse(e.getMessage().contains("io exception"), e.getMessage());
            }
        } finally {
            for (ServerSocket s : silent) {
                s.close();
            }
        }
    }

    /** A member killed and started again on its address serves the client within 2 s of listening. */
    @Test
    void restartedMemberServesWithin2s() throws Exception {
        try (GoMember member = GoMember.start("restart");
             AtollClient client = AtollClient.newClient(member.clientConfig().setInvocationTimeout(Duration.ofMillis(500)))) {
            AtollMap<String, String> m = client.getMap("restart");
            m.set("k", "v");
            member.kill();
            for (int i = 0; i < 3; i++) {
                assertThrows(AtollException.class, () -> m.set("k", "v"));
            }
            Thread.sleep(2000); // the reconnect backoff reaches its cap
            member.restart();
            long listening = System.nanoTime();
            while (true) {
                try {
                    m.set("k", "again");
                    break;
                } catch (AtollException e) {
                    assertTrue(System.nanoTime() - listening < TimeUnit.SECONDS.toNanos(10), "no call succeeded: " + e);
                }
            }
            long ms = (System.nanoTime() - listening) / 1_000_000;
            assertTrue(ms <= 2000, "the restarted member served after " + ms + " ms");
        }
    }

    /**
     * 8 writers keep writing while one of 3 members is killed with SIGKILL: no acknowledged key is
     * lost, the longest pause without an acknowledgement is at most 0.5 s and no call takes over
     * 2 s (the writers whose keys live on the others keep going; the benchmark's run, shorter). A
     * loaded 2-core machine starves the members for up to a second at times, so a run that misses
     * the timing goals is run once more on fresh members, and one of the two must meet them: a
     * client that waits for gossip to declare the member dead (gossip.failure-timeout, 5 s) or for
     * a connection's timeouts misses them every time.
     */
    @Test
    void killUnderWriters() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int attempt = 1; attempt <= 2; attempt++) {
            Failover.Result r = killUnderWritersOnce(lines);
            if (r.longestPauseMs <= 500 && r.slowestCallMs <= 2000) {
                return;
            }
        }
        throw new AssertionError("no run met a pause of at most 500 ms and no call over 2 s:\n" + String.join("\n", lines));
    }

    /** One failover run on fresh members, with what must hold in every run. */
    private static Failover.Result killUnderWritersOnce(List<String> lines) throws Exception {
        try (GoMember first = GoMember.start("failover");
             GoMember second = GoMember.join(first);
             GoMember third = GoMember.join(first);
             AtollClient client = AtollClient.newClient(first.clientConfig())) {
            Await.until("the client to see 3 members", () -> client.getMembers().size() == 3);
            for (GoMember g : List.of(first, second, third)) {
                g.awaitReady();
            }
            AtollMap<String, String> m = client.getMap("failover");
            Failover.Result r = Failover.run(m, 8, Duration.ofSeconds(2), Duration.ofSeconds(5), second::kill, () -> { });
            String line = r.line("atoll java", "kill -9");
            System.out.println(line + (r.firstError == null ? "" : "; first failed write: " + r.firstError));
            lines.add(line);
            assertEquals(0, r.lost, line);
            assertTrue(r.acknowledged > 1000, line);
            if (r.firstError != null) {
                assertTrue(r.firstError.contains("member " + second.address()), r.firstError);
                assertFalse(r.firstError.contains("io exception") || r.firstError.contains("Network closed"), r.firstError);
            }
            return r;
        }
    }

    /** Strings with an unpaired surrogate are refused before anything is sent, as map names, keys and values. */
    @Test
    void unpairedSurrogatesAreRefused() {
        try (GoMember member = GoMember.start("surrogates");
             AtollClient client = AtollClient.newClient(member.clientConfig())) {
            for (String bad : List.of("\uD800", "\uDFFF", "a\uDBFFb")) {
                assertThrows(InvalidArgumentException.class, () -> client.getMap(bad));
            }
            AtollMap<String, String> m = client.getMap("surrogates");
            m.set("?", "question mark");
            for (String bad : List.of("\uD800", "\uDFFF", "\uDBFF")) {
                InvalidStringException e = assertThrows(InvalidStringException.class, () -> m.set(bad, "v"));
                assertEquals(0, e.getIndex());
                assertThrows(InvalidStringException.class, () -> m.set("k", bad));
                assertThrows(InvalidStringException.class, () -> m.get(bad));
                assertThrows(InvalidStringException.class, () -> m.putAll(Map.of("k", bad)));
            }
            assertEquals("question mark", m.get("?"));
            assertEquals(1, m.size(), "a refused write changed the map");
            // A paired surrogate (an emoji) is fine.
            m.set("\uD83D\uDE00", "smile");
            assertEquals("smile", m.get("\uD83D\uDE00"));
        }
    }

    /** What Hazelcast users look for, and messages that say each fact once. */
    @Test
    void namesAndMessages() throws Exception {
        GoMember member = GoMember.start("habits");
        AtollClient client = AtollClient.newClient(member.clientConfig().setInvocationTimeout(Duration.ofSeconds(3)));
        try {
            NullPointerException npe = assertThrows(NullPointerException.class, () -> client.getMap(null));
            assertTrue(npe.getMessage().contains("must not be null"), npe.getMessage());
            InvalidArgumentException tooLong = assertThrows(InvalidArgumentException.class, () -> client.getMap("m".repeat(1025)));
            assertTrue(tooLong.getMessage().contains("1025 bytes"), tooLong.getMessage());

            // An error at run time has no position in the statement; a syntax error has one.
            QueryException q = assertThrows(QueryException.class, () -> client.sql().execute("SELECT 1/0").close());
            assertEquals(-1, q.getLine(), q.getMessage());
            assertEquals(-1, q.getColumn());
            assertFalse(q.hasPosition());
            q = assertThrows(QueryException.class, () -> client.sql().execute("SELECT * FROM nowhere").close());
            assertTrue(q.hasPosition() && q.getLine() == 1 && q.getColumn() == 15, q.getMessage());

            AtollMap<String, String> m = client.getMap("events");
            CompletableFuture<EntryEventType> seen = new CompletableFuture<>();
            m.addEntryListener(event -> seen.complete(event.getEventType()), true);
            m.set("k", "v");
            assertEquals(EntryEventType.ADDED, seen.get(30, TimeUnit.SECONDS));

            AtollMap<String, String> g = client.getMap("gone");
            member.kill();
            AtollException e = assertThrows(AtollException.class, () -> g.set("k", "v"));
            String msg = e.getMessage();
            assertEquals(-1, msg.indexOf("(member " + member.address() + ") (member"), msg);
            assertFalse(msg.contains("io exception") || msg.contains("Network closed") || msg.contains("UNAVAILABLE"), msg);
            assertTrue(msg.length() < 500, msg);
        } finally {
            client.shutdown();
            assertTrue(client.isClosed());
            member.stop();
        }
    }
}
