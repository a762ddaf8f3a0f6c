package io.atoll.client;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transactions and per-key locks of the Java SDK against two real Go members, and against
 * transactions of the Go SDK on the same keys (internal/interop/peer -mode tx-add).
 */
class TransactionTest {
    static GoMember first;
    static GoMember second;
    static AtollClient client;
    static AtollClient other;

    @BeforeAll
    static void start() {
        first = GoMember.start("txn");
        second = GoMember.join(first);
        client = AtollClient.newClient(first.clientConfig());
        other = AtollClient.newClient(first.clientConfig());
    }

    @AfterAll
    static void stop() {
        for (AtollClient c : new AtollClient[] {client, other}) {
            if (c != null) {
                c.close();
            }
        }
        for (GoMember m : new GoMember[] {second, first}) {
            if (m != null) {
                m.stop();
            }
        }
    }

    @Test
    void commitsAtomicallyAndReadsItsOwnWrites() {
        AtollMap<String, Long> accounts = client.getMap("jtx-accounts");
        accounts.set("alice", 100L);
        accounts.set("bob", 50L);
        String result = client.runInTransaction(tx -> {
            TransactionalMap<String, Long> a = tx.getMap("jtx-accounts");
            TransactionalMap<String, String> log = tx.getMap("jtx-log");
            long from = a.get("alice");
            a.set("alice", from - 30);
            assertEquals(50L, a.put("bob", a.get("bob") + 30));
            assertEquals(70L, a.get("alice"), "reads see the transaction's writes");
            log.set("t1", "alice->bob 30");
            assertNull(client.<String, String>getMap("jtx-log").get("t1"), "nothing is visible before the commit");
            return "done";
        });
        assertEquals("done", result);
        assertEquals(70L, accounts.get("alice"));
        assertEquals(80L, accounts.get("bob"));
        assertEquals("alice->bob 30", client.<String, String>getMap("jtx-log").get("t1"));

        client.runInTransaction(tx -> {
            TransactionalMap<String, Long> a = tx.getMap("jtx-accounts");
            assertEquals(70L, a.remove("alice"));
            assertFalse(a.containsKey("alice"));
            assertFalse(a.delete("nobody"));
            return null;
        });
        assertNull(accounts.get("alice"));
        assertTrue(client.getStats().getTransactionCommits() >= 2);
    }

    @Test
    void writeConflictThenRetry() {
        AtollMap<String, Long> m = client.getMap("jtx-ww");
        m.set("k", 1L);
        Transaction t1 = client.beginTransaction();
        Transaction t2 = other.beginTransaction();
        for (Transaction t : new Transaction[] {t1, t2}) {
            TransactionalMap<String, Long> tm = t.getMap("jtx-ww");
            long v = tm.get("k");
            tm.set("k", v + 1);
            tm.set("j", v + 1);
        }
        t1.commit();
        ConflictException e = assertThrows(ConflictException.class, t2::commit);
        assertEquals(ConflictException.Cause.CHANGED, e.getConflictCause());
        assertEquals(2L, m.get("k"));
        assertFalse(m.isLocked("k"));
        assertThrows(IllegalStateException.class, t2::commit);

        AtomicInteger attempts = new AtomicInteger();
        client.runInTransaction(tx -> {
            TransactionalMap<String, Long> tm = tx.getMap("jtx-ww");
            long v = tm.get("k");
            if (attempts.incrementAndGet() == 1) {
                other.runInTransaction(o -> {
                    o.<String, Long>getMap("jtx-ww").set("k", 100L);
                    return null;
                });
            }
            tm.set("j", v);
            tm.set("k", v + 1);
            return null;
        });
        assertEquals(2, attempts.get(), "the first attempt conflicted, the second committed");
        assertEquals(101L, m.get("k"));

        attempts.set(0);
        ConflictException spent = assertThrows(ConflictException.class, () -> client.runInTransaction(
                new TransactionOptions().setAttempts(3).setInitialBackoff(Duration.ofMillis(1)), tx -> {
                    TransactionalMap<String, Long> tm = tx.getMap("jtx-ww");
                    long v = tm.get("k");
                    attempts.incrementAndGet();
                    m.set("k", v + 1000); // a plain write changes the key every time
                    tm.set("k", v + 1);
                    return null;
                }));
        assertEquals(3, spent.getAttempts());
        assertEquals(3, attempts.get());
        assertTrue(client.getStats().getTransactionRetries() >= 3);
    }

    @Test
    void readOnlyTransactionsValidateWhatTheyRead() {
        AtollMap<String, String> m = client.getMap("jtx-ro");
        for (int i = 0; i < 4; i++) {
            m.set("ro-" + i, "v0");
        }
        Transaction t = client.beginTransaction();
        for (int i = 0; i < 4; i++) {
            t.<String, String>getMap("jtx-ro").get("ro-" + i);
        }
        t.commit();
        Transaction changed = client.beginTransaction();
        for (int i = 0; i < 4; i++) {
            changed.<String, String>getMap("jtx-ro").get("ro-" + i);
        }
        other.<String, String>getMap("jtx-ro").set("ro-3", "v1");
        assertEquals(ConflictException.Cause.CHANGED, assertThrows(ConflictException.class, changed::commit).getConflictCause());
    }

    @Test
    void getForUpdateLocksAtOnce() {
        AtollMap<String, Long> m = client.getMap("jtx-gfu");
        m.set("k", 5L);
        Transaction t1 = client.beginTransaction();
        assertEquals(5L, t1.<String, Long>getMap("jtx-gfu").getForUpdate("k"));
        assertTrue(m.isLocked("k"));
        Transaction t2 = other.beginTransaction(new TransactionOptions().setLockWait(Duration.ofMillis(100)));
        assertEquals(ConflictException.Cause.LOCKED,
                assertThrows(ConflictException.class, () -> t2.<String, Long>getMap("jtx-gfu").getForUpdate("k")).getConflictCause());
        t2.rollback();
        assertEquals(5L, m.get("k"), "a plain read does not wait for a read lock");
        t1.<String, Long>getMap("jtx-gfu").set("k", 10L);
        t1.commit();
        assertEquals(10L, m.get("k"));
    }

    @Test
    void mapLocks() throws Exception {
        AtollMap<String, String> m = client.getMap("jlocks");
        AtollMap<String, String> o = other.getMap("jlocks");
        m.set("k", "v0");
        m.lock("k");
        m.lock("k");
        assertTrue(o.isLocked("k"));
        assertFalse(o.tryLock("k", 50, TimeUnit.MILLISECONDS));
        assertThrows(IllegalMonitorStateException.class, () -> o.unlock("k"));
        m.set("k", "v1"); // the holder writes
        assertEquals("v1", o.get("k"), "reads do not wait");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> o.set("k", "other"), pool);
            assertThrows(TimeoutException.class, () -> write.get(300, TimeUnit.MILLISECONDS), "another client's write waits");
            m.unlock("k");
            assertThrows(TimeoutException.class, () -> write.get(100, TimeUnit.MILLISECONDS), "one unlock of two");
            m.unlock("k");
            write.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals("other", m.get("k"));
        m.lock("leased", 300, TimeUnit.MILLISECONDS);
        assertTrue(o.tryLock("leased", 10, TimeUnit.SECONDS), "free once the lease ended");
        o.forceUnlock("leased");
        assertFalse(m.isLocked("leased"));
    }

    @Test
    void goAndJavaTransactionsExcludeEachOther() {
        AtollMap<Integer, Long> m = client.getMap("jtx-interop");
        m.set(0, 10L);
        // A Java transaction reads the key; a Go transaction changes it before the Java one commits.
        Transaction t = client.beginTransaction();
        TransactionalMap<Integer, Long> tm = t.getMap("jtx-interop");
        long v = tm.get(0);
        tm.set(0, v + 1);
        assertEquals("ok\n", first.runPeer("-mode", "tx-add", "-map", "jtx-interop", "-count", "1", "-delta", "100"));
        assertEquals(ConflictException.Cause.CHANGED, assertThrows(ConflictException.class, t::commit).getConflictCause());
        assertEquals(110L, m.get(0));
        // A key Java locked (a client lock, then getForUpdate) is locked for Go transactions too.
        m.lock(0);
        assertEquals("conflict locked\n", first.runPeer("-mode", "tx-add", "-map", "jtx-interop", "-count", "1", "-attempts", "1"));
        m.unlock(0);
        Transaction holder = client.beginTransaction();
        holder.<Integer, Long>getMap("jtx-interop").getForUpdate(0);
        assertEquals("conflict locked\n", first.runPeer("-mode", "tx-add", "-map", "jtx-interop", "-count", "1", "-attempts", "1"));
        holder.rollback();
        assertEquals("ok\n", first.runPeer("-mode", "tx-add", "-map", "jtx-interop", "-count", "1", "-delta", "5"));
        assertEquals(115L, m.get(0));
    }
}
