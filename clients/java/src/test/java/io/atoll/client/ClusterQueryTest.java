package io.atoll.client;

import io.atoll.client.query.Aggregators;
import io.atoll.client.query.Predicates;
import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Small;
import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import io.atoll.client.sql.SqlStatement;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queries on a cluster of two member processes: any member coordinates (the client picks one
 * at random), the rows of both come back, and a cursor's pages come from the member that holds
 * it, over that member's query stream.
 */
class ClusterQueryTest {
    @Test
    void queriesCoverEveryMemberAndPageFromTheirCoordinator() {
        int n = 3000;
        try (GoMember first = GoMember.start("cluster-query");
             GoMember second = GoMember.join(first);
             AtollClient client = AtollClient.newClient(first.clientConfig().setSerializationConfig(TestModel.serialization()))) {
            Await.until("the client to see two members owning partitions", () -> client.getMembers().size() == 2
                    && client.routing().partitionsByOwner().keySet().containsAll(Set.of(first.address(), second.address())));
            AtollMap<Integer, Small> m = client.getMap("spread");
            Map<Integer, Small> batch = new HashMap<>();
            long sum = 0;
            for (int k = 0; k < n; k++) {
                Small s = Gen.smallForKey(k);
                s.intField = k;
                batch.put(k, s);
                sum += k;
            }
            m.putAll(batch); // connects to both owners
            client.sql().execute("CREATE MAPPING spread (__key INT, intField INT, stringField VARCHAR) TYPE IMap "
                    + "OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')").close();

            Set<String> coordinators = new HashSet<>();
            for (int i = 0; i < 40 && coordinators.size() < 2 || i < 6; i++) {
                try (SqlResult r = client.sql().execute(new SqlStatement("SELECT __key, intField FROM spread").setCursorBufferSize(500))) {
                    coordinators.add(((ClientSqlResult) r).cursor().member);
                    Set<Integer> keys = new HashSet<>();
                    for (SqlRow row : r) {
                        assertEquals(row.getInt(0), row.getInt(1));
                        keys.add(row.getInt(0));
                    }
                    assertEquals(n, keys.size(), "every row, from both members, over several pages");
                }
                assertEquals(batch.keySet(), m.keySet(Predicates.greaterEqual("intField", 0)));
                assertEquals(sum, m.aggregate(Aggregators.integerSum("intField")));
                assertEquals((long) (n / Gen.METIN_EVERY), m.aggregate(Aggregators.count(), Predicates.equal("stringField", Gen.METIN)));
            }
            assertEquals(Set.of(first.address(), second.address()), coordinators, "both members coordinated queries");
        }
    }

    /**
     * While partitions move to a joining member, size() is exact (no partition is missed or
     * counted twice) and putAll/getAll complete: their per-owner batches are regrouped when a
     * member no longer owns all of a batch's partitions.
     */
    @Test
    void sizeAndBatchesWhilePartitionsMove() {
        int n = 20000;
        try (GoMember first = GoMember.start("cluster-moving");
             AtollClient client = AtollClient.newClient(first.clientConfig())) {
            AtollMap<Integer, String> m = client.getMap("moving");
            Map<Integer, String> all = new HashMap<>();
            for (int k = 0; k < n; k++) {
                all.put(k, "v" + k);
            }
            m.putAll(all);
            try (GoMember second = GoMember.join(first)) {
                int rounds = 0;
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (client.routing().partitionsByOwner().getOrDefault(second.address(), List.of()).size() < 271 / 2) {
                    assertTrue(System.nanoTime() < deadline, "the joining member took over half the partitions within 2 minutes");
                    Map<Integer, String> batch = new HashMap<>();
                    Set<Integer> keys = new HashSet<>();
                    for (int k = rounds % 10; k < n; k += 10) {
                        batch.put(k, all.get(k));
                        keys.add(k);
                    }
                    m.putAll(batch);
                    assertEquals(batch, m.getAll(keys), "getAll while partitions move (round " + rounds + ")");
                    assertEquals(n, m.size(), "size while partitions move (round " + rounds + ")");
                    rounds++;
                }
                assertEquals(n, m.size());
                assertEquals(all, m.getAll(all.keySet()));
            }
        }
    }
    /**
     * While partitions move to a joining member, clear() empties the map: a partition in
     * flight is cleared by its old or its new owner, never by neither.
     */
    @Test
    void clearWhilePartitionsMove() {
        int n = 20000;
        try (GoMember first = GoMember.start("cluster-clearing");
             AtollClient client = AtollClient.newClient(first.clientConfig())) {
            AtollMap<Integer, String> m = client.getMap("clearing");
            Map<Integer, String> all = new HashMap<>();
            for (int k = 0; k < n; k++) {
                all.put(k, "v" + k);
            }
            m.putAll(all);
            Map<Integer, String> batch = new HashMap<>();
            for (int k = 0; k < 1000; k++) {
                batch.put(k, "v" + k);
            }
            try (GoMember second = GoMember.join(first)) {
                int rounds = 0;
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (client.routing().partitionsByOwner().getOrDefault(second.address(), List.of()).size() < 271 / 2) {
                    assertTrue(System.nanoTime() < deadline, "the joining member took over half the partitions within 2 minutes");
                    m.clear();
                    assertEquals(0, m.size(), "entries left after a clear while partitions move (round " + rounds + ")");
                    m.putAll(batch);
                    rounds++;
                }
            }
        }
    }
}
