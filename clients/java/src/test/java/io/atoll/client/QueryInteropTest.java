package io.atoll.client;

import io.atoll.client.query.Aggregators;
import io.atoll.client.query.Predicates;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Ids;
import io.atoll.client.serialization.bench.Small;
import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Go client writes (internal/interop/peer), the Java client queries: SQL and the Predicate
 * API give the same rows, aggregates and plans in both SDKs, and both equal what the values'
 * generator says. The Go side of the queries is the {@code atoll} command line (pkg/client).
 */
class QueryInteropTest {
    static final int COUNT = 300;
    static GoMember member;
    static AtollClient client;

    @BeforeAll
    static void start() {
        member = GoMember.start("query-interop");
        client = AtollClient.newClient(member.clientConfig().setSerializationConfig(TestModel.serialization()));
        // IDS values are read on the member through their layout.
        client.registerLayouts(IdentifiedLayout.builder(Ids.FACTORY_ID, Ids.SMALL_ID)
                .writeInt("intField").writeLong("longField").writeDouble("doubleField").writeString("stringField").build());
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

    /** Runs the Go command line against the member and returns its standard output. */
    static String cli(String... args) {
        List<String> cmd = new ArrayList<>(List.of(GoMember.binary().toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--addr", member.address(), "--cluster-name", member.clusterName));
        return GoMember.runCommand(cmd);
    }

    /** CSV lines without the header, split into fields (the values here need no quoting). */
    static List<String[]> csv(String out) {
        List<String[]> rows = new ArrayList<>();
        List<String> lines = new ArrayList<>(out.lines().toList());
        assertTrue(!lines.isEmpty(), "no CSV header in " + out);
        for (String line : lines.subList(1, lines.size())) {
            rows.add(line.split(",", -1));
        }
        return rows;
    }

    static String mapping(String map, String format) {
        String opts;
        switch (format) {
            case "compact-small":
                opts = "'valueFormat'='compact', 'valueCompactTypeName'='small'";
                break;
            case "portable-small":
                opts = "'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='1'";
                break;
            default:
                opts = "'valueFormat'='java', 'valueJavaClass'='hzb.model.Ids$IdsSmall'";
        }
        return "CREATE MAPPING " + map + " (__key INT, intField INT, longField BIGINT, doubleField DOUBLE, stringField VARCHAR) "
                + "TYPE IMap OPTIONS ('keyFormat'='int', " + opts + ")";
    }

    static final String WHERE = "longField > 0 AND stringField LIKE '%e%'";

    @ParameterizedTest
    @ValueSource(strings = {"compact-small", "portable-small", "ids-small"})
    void goWritesJavaQueries(String format) {
        String map = "qi_" + format.replace('-', '_');
        member.runPeer("-mode", "write", "-format", format, "-map", map, "-count", String.valueOf(COUNT));
        client.sql().execute(mapping(map, format)).close();

        // What the generator says the queries return.
        Map<Integer, Small> want = new HashMap<>();
        for (int k = 0; k < COUNT; k++) {
            want.put(k, Gen.smallForKey(k));
        }
        Set<Integer> wantKeys = new TreeSet<>();
        long wantSum = 0;
        for (Map.Entry<Integer, Small> e : want.entrySet()) {
            Small s = e.getValue();
            if (s.longField > 0 && s.stringField.contains("e")) {
                wantKeys.add(e.getKey());
                wantSum += s.intField;
            }
        }
        assertTrue(wantKeys.size() > 0 && wantKeys.size() < COUNT, "the condition selects some entries: " + wantKeys.size());

        // SQL rows: Java, Go and the generator agree, double bits included.
        String stmt = "SELECT __key, intField, longField, doubleField, stringField FROM " + map + " WHERE " + WHERE + " ORDER BY __key";
        List<String> javaRows = new ArrayList<>();
        try (SqlResult r = client.sql().execute(stmt)) {
            for (SqlRow row : r) {
                javaRows.add(row.getInt(0) + "|" + row.getInt(1) + "|" + row.getLong(2) + "|"
                        + Double.doubleToLongBits(row.getDouble(3)) + "|" + row.getString(4));
            }
        }
        List<String> goRows = new ArrayList<>();
        for (String[] f : csv(cli("sql", "--format", "csv", stmt))) {
            goRows.add(f[0] + "|" + f[1] + "|" + f[2] + "|" + Double.doubleToLongBits(Double.parseDouble(f[3])) + "|" + f[4]);
        }
        List<String> genRows = new ArrayList<>();
        for (int k : wantKeys) {
            Small s = want.get(k);
            genRows.add(k + "|" + s.intField + "|" + s.longField + "|" + Double.doubleToLongBits(s.doubleField) + "|" + s.stringField);
        }
        assertEquals(genRows, javaRows);
        assertEquals(genRows, goRows);

        // A parameterized aggregate.
        String agg = "SELECT COUNT(*), SUM(intField) FROM " + map + " WHERE longField > ? AND stringField LIKE '%e%'";
        long javaCount;
        long javaSum;
        try (SqlResult r = client.sql().execute(agg, 0L)) {
            SqlRow row = r.iterator().next();
            javaCount = row.getLong(0);
            javaSum = row.getLong(1);
        }
        String[] go = csv(cli("sql", "--format", "csv", "--param", "long:0", agg)).get(0);
        assertEquals(wantKeys.size(), javaCount);
        assertEquals(wantSum, javaSum);
        assertEquals(javaCount + "," + javaSum, go[0] + "," + go[1]);

        // The Predicate API: the same keys, the same plan.
        AtollMap<Integer, Object> m = client.getMap(map);
        Set<Integer> javaKeys = new TreeSet<>(m.keySet(Predicates.sql(WHERE)));
        Set<Integer> goKeys = new TreeSet<>();
        for (String line : cli("map", "query", map, WHERE, "--keys", "--key-type", "int").lines().toList()) {
            goKeys.add(Integer.parseInt(line.trim()));
        }
        assertEquals(wantKeys, javaKeys);
        assertEquals(wantKeys, goKeys);
        assertEquals(wantKeys, new TreeSet<>(m.keySet(Predicates.and(Predicates.greaterThan("longField", 0L), Predicates.like("stringField", "%e%")))));
        assertEquals(wantSum, m.aggregate(Aggregators.integerSum("intField"), Predicates.sql(WHERE)));
        assertEquals(cli("map", "query", map, WHERE, "--explain", "--key-type", "int").strip(), m.explain(Predicates.sql(WHERE)).strip());
    }

    /** The other way round: Java writes, the Go client's SQL reads the same rows. */
    @Test
    void javaWritesGoQueries() {
        AtollMap<Integer, Small> m = client.getMap("qi_java");
        Map<Integer, Small> batch = new HashMap<>();
        for (int k = 0; k < COUNT; k++) {
            batch.put(k, Gen.smallForKey(k));
        }
        m.putAll(batch);
        client.sql().execute(mapping("qi_java", "compact-small")).close();
        String stmt = "SELECT __key, longField, stringField FROM qi_java WHERE stringField = 'metin' OR __key < 3 ORDER BY __key";
        List<String> javaRows = new ArrayList<>();
        try (SqlResult r = client.sql().execute(stmt)) {
            r.forEach(row -> javaRows.add(row.getInt(0) + "," + row.getLong(1) + "," + row.getString(2)));
        }
        List<String> goRows = new ArrayList<>();
        csv(cli("sql", "--format", "csv", stmt)).forEach(f -> goRows.add(String.join(",", f)));
        assertEquals(List.of("0," + batch.get(0).longField + ",metin", "1," + batch.get(1).longField + "," + batch.get(1).stringField,
                "2," + batch.get(2).longField + "," + batch.get(2).stringField), javaRows);
        assertEquals(javaRows, goRows);
    }
}
