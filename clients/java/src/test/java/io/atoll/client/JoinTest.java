package io.atoll.client;

import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Small;
import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Joins through the SQL service on two member processes: the client needs nothing new; the rows
 * of each side move between the members (or not) by the strategy the plan names.
 */
class JoinTest {
    static List<String> rows(AtollClient client, String sql) {
        List<String> out = new ArrayList<>();
        try (SqlResult r = client.sql().execute(sql)) {
            int n = r.getRowMetadata().getColumnCount();
            for (SqlRow row : r) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    b.append(i > 0 ? "|" : "").append((Object) row.getObject(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    @Test
    void joinsAcrossMembers() {
        int owners = 200;
        int items = 2000;
        try (GoMember first = GoMember.start("join");
             GoMember second = GoMember.join(first);
             AtollClient client = AtollClient.newClient(first.clientConfig().setSerializationConfig(TestModel.serialization()))) {
            Await.until("the client to see two members owning partitions", () -> client.getMembers().size() == 2
                    && client.routing().partitionsByOwner().keySet().containsAll(Set.of(first.address(), second.address())));
            AtollMap<Integer, Small> owner = client.getMap("owner");
            Map<Integer, Small> batch = new HashMap<>();
            for (int k = 0; k < owners; k++) {
                Small s = Gen.smallForKey(k);
                s.intField = k % 10; // a group
                batch.put(k, s);
            }
            owner.putAll(batch);
            AtollMap<Integer, Small> item = client.getMap("item");
            batch.clear();
            for (int k = 0; k < items; k++) {
                Small s = Gen.smallForKey(k);
                s.intField = k % (owners + 50); // the owner; some have none
                s.longField = k;
                batch.put(k, s);
            }
            item.putAll(batch);
            for (String m : List.of("owner", "item")) {
                client.sql().execute("CREATE MAPPING " + m + " (__key INT, intField INT, longField BIGINT, stringField VARCHAR) TYPE IMap "
                        + "OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')").close();
            }
            // Items per owner: owners 0..199 have 8 items each (2000 = 250 * 8), owners of no item none.
            for (String hint : List.of("", "/*+ JOIN_STRATEGY(repartition) */ ", "/*+ JOIN_STRATEGY(broadcast) */ ")) {
                List<String> got = rows(client, "SELECT " + hint + "n, COUNT(*) FROM (SELECT o.__key, COUNT(i.__key) AS n "
                        + "FROM owner o LEFT JOIN item i ON i.intField = o.__key GROUP BY o.__key) AS x GROUP BY n ORDER BY n");
                assertEquals(List.of("8|200"), got, hint);
            }
            List<String> explain = rows(client, "EXPLAIN SELECT /*+ JOIN_STRATEGY(repartition) */ o.__key, i.__key "
                    + "FROM owner o JOIN item i ON i.intField = o.__key");
            assertTrue(String.join("\n", explain).contains("strategy=repartition"), String.join("\n", explain));
            assertTrue(String.join("\n", explain).contains("Exchange#1[repartition by intField"), String.join("\n", explain));
            // Semi and anti joins: items whose owner exists, and owners of no item.
            assertEquals(List.of(String.valueOf(owners * 8)), rows(client,
                    "SELECT COUNT(*) FROM item i WHERE EXISTS (SELECT 1 FROM owner o WHERE o.__key = i.intField)"));
            assertEquals(List.of("0"), rows(client,
                    "SELECT COUNT(*) FROM owner o WHERE o.__key NOT IN (SELECT intField FROM item)"));
            // The exchange's counters, one row per member.
            List<String> stats = rows(client, "SELECT member, rows_shipped FROM TABLE(exchange_stats()) ORDER BY member");
            assertEquals(2, stats.size(), String.join("\n", stats));
        }
    }
}
