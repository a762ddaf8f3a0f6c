package io.atoll.client;

import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import io.atoll.client.sql.SqlService;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Queries the members' memory circuit breaker refuses: backoff, give-up, and no retry once rows came. */
class QueryRetryTest {

    @Test
    void policyIsBinaryExponentialWithFullJitter() {
        QueryRetryConfig p = new QueryRetryConfig().setInitialBackoff(Duration.ofMillis(100))
                .setMaxBackoff(Duration.ofSeconds(1)).setAttempts(6).setRandom(() -> 0.25);
        List<Duration> bounds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            bounds.add(p.bound(i));
        }
        assertEquals(List.of(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800),
                Duration.ofSeconds(1), Duration.ofSeconds(1)), bounds);
        assertEquals(Duration.ofMillis(50 + 200), p.delay(3, Duration.ofMillis(50)));
        assertEquals(Duration.ofMillis(2500 + 5 * 50), p.budget(Duration.ofMillis(50)));
        assertEquals(Duration.ofMillis(90), new QueryRetryConfig().setInitialBackoff(Duration.ofMillis(10)).setMultiplier(3).bound(2));
        assertThrows(IllegalArgumentException.class, () -> new QueryRetryConfig().setAttempts(0));
    }

    /**
     * A member whose queries may hold one byte together stops every query that reserves: the
     * client sends it {@code attempts} times, waiting the member's retry-after plus the jittered
     * bound before each retry, then throws MemoryLimitException counting the attempts. Map
     * operations are never refused.
     */
    @Test
    void backsOffAndGivesUpWithTheAttempts() {
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        QueryRetryConfig retry = new QueryRetryConfig().setInitialBackoff(Duration.ofMillis(40))
                .setMaxBackoff(Duration.ofMillis(100)).setAttempts(5).setRandom(() -> 0.5)
                .setDelayer((task, delay) -> {
                    waits.add(delay);
                    task.run();
                });
        try (GoMember member = GoMember.start("query-retry", "query: {memory-limit-per-member: 1}\n");
             AtollClient client = AtollClient.newClient(member.clientConfig().setQueryRetryConfig(retry))) {
            SqlService sql = client.sql();
            sql.execute("CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')").close();
            AtollMap<Integer, String> m = client.getMap("m");
            for (int i = 0; i < 100; i++) {
                m.set(i, "value " + i);
            }
            MemoryLimitException e = assertThrows(MemoryLimitException.class, () -> sql.execute("SELECT this FROM m ORDER BY this"));
            assertEquals(5, e.getAttempts());
            assertTrue(e.isRetryable());
            assertTrue(e.getMessage().contains("query refused for memory after 5 attempt(s)"), e.getMessage());
            assertEquals(Duration.ofMillis(200), e.getRetryAfter());
            // retry-after 200 ms, then half of 40, 80, 100 (the cap), 100 ms.
            assertEquals(List.of(Duration.ofMillis(220), Duration.ofMillis(240), Duration.ofMillis(250), Duration.ofMillis(250)), waits);
            assertEquals("value 7", m.get(7));
        }
    }

    /** A query terminated after it returned rows is not sent again: the cursor throws. */
    @Test
    void notRetriedAfterRows() {
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        QueryRetryConfig retry = new QueryRetryConfig().setDelayer((task, delay) -> {
            waits.add(delay);
            task.run();
        });
        try (GoMember member = GoMember.start("query-rows", "query: {memory-limit-per-member: 4194304}\n");
             AtollClient client = AtollClient.newClient(member.clientConfig().setQueryRetryConfig(retry))) {
            SqlService sql = client.sql();
            sql.execute("CREATE MAPPING m TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')").close();
            AtollMap<Integer, String> m = client.getMap("m");
            java.util.Map<Integer, String> batch = new java.util.HashMap<>();
            for (int i = 0; i < 60_000; i++) {
                batch.put(i, String.format("%0200d", i));
                if (batch.size() == 1000) {
                    m.putAll(batch);
                    batch.clear();
                }
            }
            int[] n = {0};
            try (SqlResult r = sql.execute(new io.atoll.client.sql.SqlStatement("SELECT DISTINCT this FROM m").setCursorBufferSize(100))) {
                Iterator<SqlRow> it = r.iterator();
                MemoryLimitException e = assertThrows(MemoryLimitException.class, () -> {
                    while (it.hasNext()) {
                        it.next();
                        n[0]++;
                    }
                });
                assertEquals(1, e.getAttempts());
            }
            assertTrue(n[0] > 0 && n[0] < 60_000, "rows before the error: " + n[0]);
            assertEquals(List.of(), waits);
        }
    }
}
