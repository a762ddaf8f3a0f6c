package io.atoll.bench.hazelcast;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.hazelcast.aggregation.Aggregators;
import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.config.IndexType;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastJsonValue;
import com.hazelcast.instance.BuildInfoProvider;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.query.Predicates;
import com.hazelcast.sql.SqlResult;
import com.hazelcast.sql.SqlRow;
import com.hazelcast.sql.SqlService;
import io.atoll.bench.hazelcast.model.CompactModel;
import io.atoll.bench.hazelcast.model.IdentifiedModel;
import io.atoll.bench.hazelcast.model.PortableModel;
import io.atoll.bench.hazelcast.model.Values;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the workloads of bench/WORKLOADS.md against Hazelcast: starts member JVMs
 * ({@link MemberMain}), connects one client, runs workload A and B case by case with
 * {@link Protocol}, prints a table and writes the results file that {@code atoll-bench
 * compare} reads. {@code bench/hazelcast/run smoke|full [options]} starts it.
 */
public final class Runner {
    private final Options o;
    private final ExecutorService pool;
    private final Protocol protocol;
    private final Map<String, Object> workloadB = new LinkedHashMap<>();
    private HazelcastInstance client;
    private SqlService sql;

    private Runner(Options o) {
        this.o = o;
        this.pool = Executors.newFixedThreadPool(o.threads, r -> {
            Thread t = new Thread(r, "bench-client");
            t.setDaemon(true);
            return t;
        });
        this.protocol = new Protocol(pool, o.threads, o.rounds, o.only, o.rates.isEmpty() ? null : o::rateFor);
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("run: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        Logger.getLogger("com.hazelcast").setLevel(Level.WARNING);
        double loadStart = Protocol.loadAverage();
        long t0 = System.nanoTime();
        System.out.printf(Locale.ROOT, "Hazelcast runner: mode=%s%s members=%d threads=%d aEntries=%d bEntries=%d rounds=%d%n",
                o.mode, o.rates.isEmpty() ? "" : " (latency mode, open loop)", o.members, o.threads, o.aEntries, o.bEntries, o.rounds);
        List<Process> members = startMembers(o);
        Thread stopOnExit = new Thread(() -> members.forEach(Process::destroy));
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        Runner r = new Runner(o);
        int status = 0;
        try {
            r.client = HazelcastClient.newHazelcastClient(ClusterConfig.client(o.members, o.basePort, o.cluster));
            r.sql = r.client.getSql();
            if (o.workloads.contains("A")) {
                r.workloadA();
            }
            if (o.workloads.contains("B")) {
                r.workloadB();
            }
        } catch (Exception e) {
            System.err.println("run: " + e);
            status = 1;
        } finally {
            double total = (System.nanoTime() - t0) / 1e9;
            System.out.println();
            System.out.printf(Locale.ROOT, "== Hazelcast %s, %d members, %d client threads, mode %s, %.0f s%n",
                    BuildInfoProvider.getBuildInfo().getVersion(), o.members, o.threads, o.mode, total);
            r.printTable();
            r.writeResults(total, loadStart);
            System.out.println("wrote " + o.out);
            if (r.client != null) {
                r.client.shutdown();
            }
            stopMembers(members);
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        }
        for (Protocol.CaseResult c : r.protocol.results) {
            if (c.error != null) {
                status = 1;
            }
        }
        System.exit(status);
    }

    // ---------------------------------------------------------------- members

    static List<Process> startMembers(Options o) throws Exception {
        File logs = new File(o.logDir);
        Files.createDirectories(logs.toPath());
        String java = System.getProperty("java.home") + "/bin/java";
        List<Process> out = new ArrayList<>();
        for (int i = 0; i < o.members; i++) {
            List<String> cmd = new ArrayList<>(List.of(java, "-Xms" + o.memberHeap, "-Xmx" + o.memberHeap,
                    "-Dhazelcast.phone.home.enabled=false"));
            cmd.addAll(JvmFlags.HAZELCAST);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), MemberMain.class.getName(),
                    Integer.toString(i), Integer.toString(o.members), Integer.toString(o.basePort), o.cluster));
            File log = new File(logs, "member-" + i + ".log");
            out.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start());
            System.out.println("  member " + i + " on 127.0.0.1:" + (o.basePort + i) + ", log " + log);
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        for (int i = 0; i < o.members; i++) {
            File log = new File(logs, "member-" + i + ".log");
            while (!(log.exists() && Files.readString(log.toPath(), StandardCharsets.UTF_8).contains(MemberMain.READY))) {
                if (!out.get(i).isAlive()) {
                    stopMembers(out);
                    throw new IllegalStateException("member " + i + " exited; see " + log);
                }
                if (System.nanoTime() > deadline) {
                    stopMembers(out);
                    throw new IllegalStateException("member " + i + " not ready after 3 minutes; see " + log);
                }
                Thread.sleep(200);
            }
        }
        return out;
    }

    /** Closes the members' standard input (they shut down), then ends those that do not. */
    static void stopMembers(List<Process> members) {
        for (Process p : members) {
            try {
                p.getOutputStream().close();
            } catch (IOException ignored) {
                // the member is gone already
            }
        }
        for (Process p : members) {
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroy();
                    if (!p.waitFor(10, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Consumes every row and column of a query; returns the row count. */
    private long rows(String query, Object... params) {
        long n = 0;
        try (SqlResult res = sql.execute(query, params)) {
            for (SqlRow row : res) {
                for (int c = 0; c < row.getMetadata().getColumnCount(); c++) {
                    row.getObject(c);
                }
                n++;
            }
        }
        return n;
    }

    private long scalar(String query) {
        try (SqlResult res = sql.execute(query)) {
            Iterator<SqlRow> it = res.iterator();
            return ((Number) it.next().getObject(0)).longValue();
        }
    }

    private void ddl(String statement) {
        try (SqlResult ignored = sql.execute(statement)) {
            // a statement without rows
        }
    }

    /** Loads keys 0..n-1 with C threads, thread t the keys k ≡ t (mod C), in putAll batches of 500. */
    private <V> void load(IMap<Integer, V> map, int n, IntFunction<V> value) throws Exception {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < o.threads; t++) {
            int first = t;
            done.add(pool.submit(() -> {
                Map<Integer, V> batch = new HashMap<>();
                for (int k = first; k < n; k += o.threads) {
                    batch.put(k, value.apply(k));
                    if (batch.size() == 500) {
                        map.putAll(batch);
                        batch.clear();
                    }
                }
                if (!batch.isEmpty()) {
                    map.putAll(batch);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        if (map.size() != n) {
            throw new IllegalStateException("map " + map.getName() + " holds " + map.size() + " entries after loading " + n);
        }
    }

    // ---------------------------------------------------------------- workload A

    private void workloadA() throws Exception {
        int n = o.aEntries;
        double w = o.aWarmup;
        double d = o.aDuration;
        long sum = (long) n * (n - 1) / 2;
        System.out.println("== Workload A (SQL against the Predicate API), " + n + " entries");
        long t0 = System.nanoTime();
        IMap<Integer, IdentifiedModel.IdsDoc> ids = client.getMap("a_ids");
        IMap<Integer, IdentifiedModel.IdsDoc> idsIndexed = client.getMap("a_ids_idx");
        IMap<Integer, PortableModel.PortableDoc> portable = client.getMap("a_portable");
        IMap<Integer, HazelcastJsonValue> json = client.getMap("a_json");
        for (IMap<?, ?> m : List.of(ids, idsIndexed, portable, json)) {
            m.clear();
        }
        idsIndexed.addIndex(IndexType.SORTED, "value");
        load(ids, n, IdentifiedModel.IdsDoc::new);
        load(idsIndexed, n, IdentifiedModel.IdsDoc::new);
        load(portable, n, PortableModel.PortableDoc::new);
        load(json, n, k -> new HazelcastJsonValue(Values.json(k)));
        String idsClass = IdentifiedModel.IdsDoc.class.getName();
        for (String m : List.of("a_ids", "a_ids_idx")) {
            ddl("CREATE OR REPLACE MAPPING " + m + " (__key INT, \"value\" BIGINT) TYPE IMap OPTIONS "
                    + "('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='" + idsClass + "')");
        }
        ddl("CREATE OR REPLACE MAPPING a_portable (__key INT, \"value\" BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', "
                + "'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='3')");
        ddl("CREATE OR REPLACE MAPPING a_json TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json')");
        ddl("CREATE OR REPLACE MAPPING a_json_flat EXTERNAL NAME a_json (__key INT, \"value\" BIGINT) TYPE IMap "
                + "OPTIONS ('keyFormat'='int', 'valueFormat'='json-flat')");
        System.out.printf(Locale.ROOT, "  loaded 4 maps of %d entries and their mappings in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);

        String q1 = "SELECT __key, this FROM a_ids";
        protocol.run("A1", "scan-all IDS", "SQL", "a_ids", q1, n, w, d, t -> () -> rows(q1));
        protocol.run("A1", "scan-all IDS", "PRED", "a_ids", "map.entrySet()", n, w, d, t -> () -> {
            long c = 0;
            for (Map.Entry<Integer, IdentifiedModel.IdsDoc> e : ids.entrySet()) {
                e.getKey();
                e.getValue();
                c++;
            }
            return c;
        });
        String q2 = "SELECT COUNT(*) FROM a_ids";
        protocol.run("A2", "count IDS", "SQL", "a_ids", q2, n, w, d, t -> () -> scalar(q2));
        protocol.run("A2", "count IDS", "PRED", "a_ids", "map.aggregate(Aggregators.count())", n, w, d,
                t -> () -> ids.aggregate(Aggregators.count()));
        sumCase("sum IDS", "a_ids", "SELECT SUM(\"value\") FROM a_ids", ids, sum, w, d);
        sumCase("sum PORTABLE", "a_portable", "SELECT SUM(\"value\") FROM a_portable", portable, sum, w, d);
        String q3j = "SELECT SUM(\"value\") FROM a_json_flat";
        protocol.run("A3", "sum JSON(json-flat)", "SQL", "a_json", q3j, sum, w, d, t -> () -> scalar(q3j));
        protocol.run("A3", "sum JSON(json-flat)", "PRED", "a_json", "map.aggregate(Aggregators.longSum(\"value\"))", sum, w, d,
                t -> () -> json.aggregate(Aggregators.longSum("value")));
        String q4 = "SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json";
        protocol.run("A4", "sum JSON_VALUE", "SQL", "a_json", q4, sum, w, d, t -> () -> scalar(q4));
        protocol.run("A4", "sum JSON_VALUE", "PRED", "a_json", "map.aggregate(Aggregators.longSum(\"value\"))", sum, w, d,
                t -> () -> json.aggregate(Aggregators.longSum("value")));
        equalityCase("eq no-index IDS", ids, n, w, d);
        equalityCase("eq sorted-index IDS", idsIndexed, n, w, d);
        for (IMap<?, ?> m : List.of(ids, idsIndexed, portable, json)) {
            m.destroy();
        }
    }

    private <V> void sumCase(String name, String map, String query, IMap<Integer, V> m, long sum, double w, double d) {
        protocol.run("A3", name, "SQL", map, query, sum, w, d, t -> () -> scalar(query));
        protocol.run("A3", name, "PRED", map, "map.aggregate(Aggregators.longSum(\"value\"))", sum, w, d,
                t -> () -> m.aggregate(Aggregators.longSum("value")));
    }

    private void equalityCase(String name, IMap<Integer, IdentifiedModel.IdsDoc> m, int n, double w, double d) {
        String query = "SELECT __key, this FROM " + m.getName() + " WHERE \"value\" = ?";
        protocol.run("A5", name, "SQL", m.getName(), query, 1, w, d, t -> {
            Random r = new Random(4000 + t);
            return () -> rows(query, (long) r.nextInt(n));
        });
        protocol.run("A5", name, "PRED", m.getName(), "map.entrySet(Predicates.equal(\"value\", v))", 1, w, d, t -> {
            Random r = new Random(4000 + t);
            return () -> {
                long c = 0;
                for (Map.Entry<Integer, IdentifiedModel.IdsDoc> e : m.entrySet(Predicates.equal("value", (long) r.nextInt(n)))) {
                    e.getKey();
                    e.getValue();
                    c++;
                }
                return c;
            };
        });
    }

    // ---------------------------------------------------------------- workload B

    /** A workload B value drawn from r: the object of the kind and size, or {@code bytes} random bytes. */
    private static Object value(String kind, boolean large, Random r, int bytes) {
        switch (kind) {
            case "COMPACT":
                return large ? Values.large(r) : Values.small(r);
            case "PORTABLE":
                return large ? new PortableModel.PortableLarge(Values.large(r)) : new PortableModel.PortableSmall(Values.small(r));
            case "IDENTIFIED":
                return large ? new IdentifiedModel.IdsLarge(Values.large(r)) : new IdentifiedModel.IdsSmall(Values.small(r));
            case "BYTE_ARRAY": {
                byte[] b = new byte[bytes];
                r.nextBytes(b);
                return b;
            }
            default:
                throw new IllegalArgumentException("no workload B kind " + kind);
        }
    }

    /** The value a read/query map holds under key k. */
    private static Object valueForKey(String kind, boolean large, int k, int bytes) {
        switch (kind) {
            case "COMPACT":
                return large ? Values.largeForKey(k) : Values.smallForKey(k);
            case "PORTABLE":
                return large ? new PortableModel.PortableLarge(Values.largeForKey(k)) : new PortableModel.PortableSmall(Values.smallForKey(k));
            case "IDENTIFIED":
                return large ? new IdentifiedModel.IdsLarge(Values.largeForKey(k)) : new IdentifiedModel.IdsSmall(Values.smallForKey(k));
            default:
                return Values.bytesForKey(k, bytes);
        }
    }

    private static final String SMALL_COLUMNS = "__key INT, intField INT, longField BIGINT, doubleField DOUBLE, stringField VARCHAR";
    private static final String LARGE_COLUMNS = "__key INT, booleanField BOOLEAN, byteField TINYINT, shortField SMALLINT, "
            + "intField INT, longField BIGINT, floatField REAL, doubleField DOUBLE, stringField VARCHAR";

    private static String format(String kind, boolean large) {
        switch (kind) {
            case "COMPACT":
                return "'valueFormat'='compact', 'valueCompactTypeName'='"
                        + (large ? CompactModel.LARGE_TYPE : CompactModel.SMALL_TYPE) + "'";
            case "PORTABLE":
                return "'valueFormat'='portable', 'valuePortableFactoryId'='" + PortableModel.FACTORY_ID
                        + "', 'valuePortableClassId'='" + (large ? PortableModel.LARGE_ID : PortableModel.SMALL_ID) + "'";
            default:
                return "'valueFormat'='java', 'valueJavaClass'='"
                        + (large ? IdentifiedModel.IdsLarge.class : IdentifiedModel.IdsSmall.class).getName() + "'";
        }
    }

    private void workloadB() throws Exception {
        int n = o.bEntries;
        double w = o.bWarmup;
        double d = o.bDuration;
        long matches = (n + Values.MATCH_EVERY - 1) / Values.MATCH_EVERY;
        System.out.println("== Workload B (serialization formats), " + n + " entries");
        SerializationService ss = ((HazelcastClientProxy) client).getSerializationService();
        for (String size : o.sizes) {
            boolean large = size.equals("LARGE");
            // The byte array is as long as the IDENTIFIED payload of the fixed value.
            int bytes = ss.toData(value("IDENTIFIED", large, new Random(Values.FIXED_SEED), 0)).dataSize();
            for (String kind : o.kinds) {
                String map = "b_" + kind.toLowerCase(Locale.ROOT) + "_" + size.toLowerCase(Locale.ROOT);
                String group = "B " + kind + " " + size;
                boolean any = false;
                for (String c : List.of("read/MAP", "query/SQL", "query/PRED", "write/MAP")) {
                    any |= protocol.selected(group + "/" + c);
                }
                if (!any) {
                    continue;
                }
                Object fixed = value(kind, large, new Random(Values.FIXED_SEED), bytes);
                Data fixedData = ss.toData(fixed);
                IMap<Integer, Object> m = client.getMap(map);
                m.clear();
                long t0 = System.nanoTime();
                load(m, n, k -> valueForKey(kind, large, k, bytes));
                double loadSeconds = (System.nanoTime() - t0) / 1e9;
                long[] cost = memoryCost(map);
                Map<String, Object> info = new LinkedHashMap<>();
                info.put("map", map);
                info.put("entries", n);
                info.put("loadSeconds", loadSeconds);
                info.put("valueDataTotalSize", fixedData.totalSize());
                info.put("byteArrayLength", bytes);
                info.put("ownedEntryCount", cost[0]);
                info.put("ownedEntryMemoryCost", cost[1]);
                info.put("memoryCostPerEntry", cost[0] == 0 ? Double.NaN : (double) cost[1] / cost[0]);
                info.put("backupEntryCount", cost[2]);
                info.put("backupEntryMemoryCost", cost[3]);
                workloadB.put(kind + " " + size, info);
                System.out.printf(Locale.ROOT, "  %s: loaded %d in %.1f s, value %d B, memory cost %.1f B/entry%n",
                        group, n, loadSeconds, fixedData.totalSize(), info.get("memoryCostPerEntry"));
                protocol.run(group, "read", "MAP", map, "map.get(k), k uniform in [0,N)", 1, w, d, t -> {
                    Random r = new Random(2000 + t);
                    return () -> m.get(r.nextInt(n)) == null ? 0 : 1;
                });
                if (!kind.equals("BYTE_ARRAY")) {
                    ddl("CREATE OR REPLACE MAPPING " + map + " (" + (large ? LARGE_COLUMNS : SMALL_COLUMNS)
                            + ") TYPE IMap OPTIONS ('keyFormat'='int', " + format(kind, large) + ")");
                    String query = "SELECT * FROM " + map + " WHERE stringField = '" + Values.MATCH + "'";
                    protocol.run(group, "query", "SQL", map, query, matches, w, d, t -> () -> rows(query));
                    protocol.run(group, "query", "PRED", map, "map.values(Predicates.equal(\"stringField\", \"metin\"))",
                            matches, w, d, t -> () -> m.values(Predicates.equal("stringField", Values.MATCH)).size());
                    ddl("DROP MAPPING IF EXISTS " + map);
                }
                protocol.run(group, "write", "MAP", map, "map.set(k, FIXED), k uniform in [0,N)", 1, w, d, t -> {
                    Random r = new Random(3000 + t);
                    return () -> {
                        m.set(r.nextInt(n), fixed);
                        return 1;
                    };
                });
                m.destroy();
            }
        }
    }

    private long[] memoryCost(String map) throws Exception {
        long[] sum = new long[4];
        for (Future<long[]> f : client.getExecutorService("bench-memory").submitToAllMembers(new MemoryCost(map)).values()) {
            long[] v = f.get();
            for (int i = 0; i < sum.length; i++) {
                sum[i] += v[i];
            }
        }
        return sum;
    }

    // ---------------------------------------------------------------- output

    private void printTable() {
        if (!o.rates.isEmpty()) {
            printRateTable();
            return;
        }
        System.out.printf(Locale.ROOT, "%-28s %-20s %-5s %12s %9s %10s %9s %9s %9s %10s%n",
                "group", "case", "api", "check", "ops", "ops/s", "p50 ms", "p90 ms", "p99 ms", "max ms");
        for (Protocol.CaseResult r : protocol.results) {
            if (r.error != null) {
                System.out.printf(Locale.ROOT, "%-28s %-20s %-5s ERROR %s%n", r.group, r.name, r.api, r.error);
            } else {
                System.out.printf(Locale.ROOT, "%-28s %-20s %-5s %12d %9d %10.1f %9.3f %9.3f %9.3f %10.3f%n",
                        r.group, r.name, r.api, r.check, r.ops, r.opsPerSecMedian, r.p50, r.p90, r.p99, r.max);
            }
        }
        if (!workloadB.isEmpty()) {
            System.out.println();
            System.out.printf(Locale.ROOT, "%-22s %16s %14s %20s%n", "B kind size", "value Data bytes", "byte[] length", "memory B/entry");
            workloadB.forEach((k, v) -> {
                Map<?, ?> m = (Map<?, ?>) v;
                System.out.printf(Locale.ROOT, "%-22s %16s %14s %20.1f%n", k, m.get("valueDataTotalSize"), m.get("byteArrayLength"),
                        (Double) m.get("memoryCostPerEntry"));
            });
        }
    }

    /** The latency mode's table: rates, whether the run kept up, and the percentiles from each request's intended time. */
    private void printRateTable() {
        System.out.printf(Locale.ROOT, "%-28s %-20s %-5s %12s %8s %8s %-8s %9s %9s %9s %9s %9s %10s%n",
                "group", "case", "api", "check", "rate/s", "sent/s", "kept up", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "p99.99 ms", "max ms");
        for (Protocol.CaseResult r : protocol.results) {
            if (r.error != null) {
                System.out.printf(Locale.ROOT, "%-28s %-20s %-5s ERROR %s%n", r.group, r.name, r.api, r.error);
            } else {
                System.out.printf(Locale.ROOT, "%-28s %-20s %-5s %12d %8.1f %8.1f %-8s %9.3f %9.3f %9.3f %9.3f %9.3f %10.3f%n",
                        r.group, r.name, r.api, r.check, r.rate, r.achievedRate, r.keptUp ? "yes" : "no (" + r.unsent + ")",
                        r.p50, r.p90, r.p99, r.p999, r.p9999, r.max);
            }
        }
    }

    /** NaN and infinities are null in JSON. */
    private static Object number(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
    }

    private void writeResults(double totalSeconds, double loadStart) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("tool", "bench/hazelcast");
        root.put("date", Instant.now().toString());
        root.put("hazelcastVersion", BuildInfoProvider.getBuildInfo().getVersion());
        root.put("javaVersion", System.getProperty("java.version"));
        root.put("cpus", Runtime.getRuntime().availableProcessors());
        root.put("mode", o.mode);
        root.put("members", o.members);
        root.put("memberProcess", "separate JVM per member, -Xmx" + o.memberHeap);
        root.put("clientThreads", o.threads);
        root.put("aEntries", o.aEntries);
        root.put("bEntries", o.bEntries);
        root.put("aWarmupSeconds", o.aWarmup);
        root.put("aDurationSeconds", o.aDuration);
        root.put("bWarmupSeconds", o.bWarmup);
        root.put("bDurationSeconds", o.bDuration);
        root.put("rounds", o.rounds);
        if (!o.rates.isEmpty()) {
            root.put("rateMode", true);
        }
        root.put("totalSeconds", totalSeconds);
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("start", number(loadStart));
        load.put("end", number(Protocol.loadAverage()));
        root.put("loadAvg", load);
        List<Object> cases = new ArrayList<>();
        for (Protocol.CaseResult r : protocol.results) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("id", r.id);
            c.put("group", r.group);
            c.put("case", r.name);
            c.put("api", r.api);
            c.put("map", r.map);
            c.put("text", r.text);
            c.put("check", r.check);
            c.put("ops", r.ops);
            c.put("opsPerSecMedian", number(r.opsPerSecMedian));
            List<Object> rounds = new ArrayList<>();
            for (double x : r.roundOpsPerSec) {
                rounds.add(number(x));
            }
            c.put("roundOpsPerSec", rounds);
            c.put("p50ms", number(r.p50));
            c.put("p90ms", number(r.p90));
            c.put("p99ms", number(r.p99));
            c.put("p999ms", number(r.p999));
            c.put("p9999ms", number(r.p9999));
            c.put("maxms", number(r.max));
            if (r.histogram != null) {
                c.put("histogram", r.histogram);
            }
            if (!Double.isNaN(r.rate)) {
                c.put("rate", r.rate);
                c.put("achievedRate", number(r.achievedRate));
                c.put("keptUp", r.keptUp);
                c.put("scheduled", r.scheduled);
                c.put("unsent", r.unsent);
            }
            c.put("load1", number(r.load1));
            c.put("error", r.error);
            cases.add(c);
        }
        root.put("cases", cases);
        Map<String, Object> b = new LinkedHashMap<>();
        workloadB.forEach((k, v) -> {
            Map<String, Object> m = new LinkedHashMap<>((Map<String, Object>) v);
            m.put("memoryCostPerEntry", number((Double) m.get("memoryCostPerEntry")));
            b.put(k, m);
        });
        root.put("workloadB", b);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(new File(o.out), root);
    }
}
