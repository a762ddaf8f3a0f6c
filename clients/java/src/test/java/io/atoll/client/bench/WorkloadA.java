package io.atoll.client.bench;

import io.atoll.client.AtollClient;
import io.atoll.client.AtollClientConfig;
import io.atoll.client.AtollMap;
import io.atoll.client.IndexType;
import io.atoll.client.query.Aggregators;
import io.atoll.client.query.Predicates;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.JsonValue;
import io.atoll.client.serialization.SerializationConfig;
import io.atoll.client.serialization.bench.CompactSerializers;
import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Ids;
import io.atoll.client.serialization.bench.Ports;
import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import io.atoll.client.sql.SqlService;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Workload A of {@code bench/WORKLOADS.md} (SQL against the Predicate API on a 20-int
 * document) through the Java SDK, by the protocol of the workloads (as the Hazelcast runner,
 * {@code bench/hazelcast}, and atoll-bench do): C client threads sharing
 * one client, a validation run on a separate operation instance before timing, warm-up, R
 * rounds of D seconds, ops/s = median of the round throughputs, nearest-rank percentiles over
 * all recorded latencies, cases in the workload's order (SQL before PRED). It prints the same
 * table and writes the same JSON (readable by {@code atoll-bench compare} and {@code summarize}).
 *
 * <pre>
 * WorkloadA --addresses 127.0.0.1:15711,127.0.0.1:15712 --cluster bench --mode full [--only 'A5/.*']
 * </pre>
 *
 * The members are started by {@code clients/java/bin/bench-workload-a}; this main only
 * connects to them. Data: key k of every map holds {@code value = k} and
 * {@code payload[i] = k*31 + i}, as IDS {@code ADoc} (factory 1, class 3), Portable
 * {@code PADoc} (factory 2, class 3) and JSON, exactly the bytes the Hazelcast runner (bench/hazelcast) writes
 * (the serialization tests check them against Hazelcast's vectors).
 */
public final class WorkloadA {

    // ---------------------------------------------------------------- options
    static final class Opts {
        String mode = "smoke";
        int members = 2;
        int threads = 8;
        int aEntries;
        double aWarm;
        double aDur;
        int rounds;
        String addresses = "127.0.0.1:15711,127.0.0.1:15712";
        String cluster = "bench";
        String out = "results.json";
        String only = null; // regex on case id

        void applyMode() {
            if (mode.equals("full")) {
                aEntries = 100_000;
                aWarm = 2;
                aDur = 4;
                rounds = 3;
            } else if (mode.equals("smoke")) {
                aEntries = 2_000;
                aWarm = 0.1;
                aDur = 0.3;
                rounds = 1;
            } else {
                throw new IllegalArgumentException("mode must be smoke|full");
            }
        }
    }

    static Opts parse(String[] args) {
        Opts o = new Opts();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--mode")) {
                o.mode = args[++i];
            }
        }
        o.applyMode();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--mode":
                    i++;
                    break;
                case "--members":
                    o.members = Integer.parseInt(args[++i]);
                    break;
                case "--threads":
                    o.threads = Integer.parseInt(args[++i]);
                    break;
                case "--a-entries":
                    o.aEntries = Integer.parseInt(args[++i]);
                    break;
                case "--a-warmup":
                    o.aWarm = Double.parseDouble(args[++i]);
                    break;
                case "--a-duration":
                    o.aDur = Double.parseDouble(args[++i]);
                    break;
                case "--rounds":
                    o.rounds = Integer.parseInt(args[++i]);
                    break;
                case "--addresses":
                    o.addresses = args[++i];
                    break;
                case "--cluster":
                    o.cluster = args[++i];
                    break;
                case "--out":
                    o.out = args[++i];
                    break;
                case "--only":
                    o.only = args[++i];
                    break;
                default:
                    throw new IllegalArgumentException("unknown arg " + a);
            }
        }
        return o;
    }

    // ---------------------------------------------------------------- measurement
    interface Op {
        long run() throws Exception;
    }

    interface OpFactory {
        Op create(int thread);
    }

    static final class CaseResult {
        String id;
        String group;
        String name;
        String api;
        String map;
        String text;
        String error;
        long check = Long.MIN_VALUE;
        long expected;
        long ops;
        double[] roundTput = new double[0];
        double tput = Double.NaN;
        double p50 = Double.NaN;
        double p90 = Double.NaN;
        double p99 = Double.NaN;
        double max = Double.NaN;
        double load1 = Double.NaN;
    }

    /** 1-minute host load average (noise indicator), NaN if unavailable. */
    static double loadAvg() {
        try {
            return Double.parseDouble(new String(Files.readAllBytes(new File("/proc/loadavg").toPath()), StandardCharsets.US_ASCII).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static final double START_LOAD = loadAvg();

    static final class LongBuf {
        long[] a = new long[4096];
        int n;

        void add(long v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }
    }

    final Opts o;
    final ExecutorService pool;
    final List<CaseResult> results = new ArrayList<>();
    AtollClient client;
    SqlService sql;

    WorkloadA(Opts o) {
        this.o = o;
        this.pool = Executors.newFixedThreadPool(o.threads, r -> {
            Thread t = new Thread(r, "bench-load");
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs all ops concurrently until the deadline. Returns [elapsedNanos, count]; latencies appended to lat (may be null). */
    long[] phase(Op[] ops, double seconds, List<LongBuf> lat, AtomicReference<Throwable> err) throws Exception {
        int c = ops.length;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<LongBuf>> fs = new ArrayList<>();
        long[] endTimes = new long[c];
        final long[] startNs = new long[1];
        for (int t = 0; t < c; t++) {
            final int ti = t;
            fs.add(pool.submit(() -> {
                LongBuf b = new LongBuf();
                start.await();
                long deadline = startNs[0] + (long) (seconds * 1e9);
                try {
                    while (err.get() == null) {
                        long t0 = System.nanoTime();
                        if (t0 >= deadline) {
                            break;
                        }
                        ops[ti].run();
                        b.add(System.nanoTime() - t0);
                    }
                } catch (Throwable e) {
                    err.compareAndSet(null, e);
                }
                endTimes[ti] = System.nanoTime();
                return b;
            }));
        }
        startNs[0] = System.nanoTime();
        start.countDown();
        long count = 0;
        for (Future<LongBuf> f : fs) {
            LongBuf b = f.get();
            count += b.n;
            if (lat != null) {
                lat.add(b);
            }
        }
        long end = 0;
        for (long e : endTimes) {
            end = Math.max(end, e);
        }
        return new long[]{end - startNs[0], count};
    }

    boolean selected(String id) {
        return o.only == null || id.matches(o.only);
    }

    CaseResult runCase(String group, String name, String api, String map, String text, long expected, OpFactory f) {
        CaseResult r = new CaseResult();
        r.group = group;
        r.name = name;
        r.api = api;
        r.map = map;
        r.text = text;
        r.expected = expected;
        r.id = group + "/" + name + "/" + api;
        if (!selected(r.id)) {
            return null;
        }
        long t0 = System.nanoTime();
        try {
            Op[] ops = new Op[o.threads];
            for (int i = 0; i < o.threads; i++) {
                ops[i] = f.create(i);
            }
            r.check = f.create(o.threads + 1000).run(); // one validation run on a separate op instance
            if (r.check != expected) {
                throw new IllegalStateException("validation: check " + r.check + ", want " + expected);
            }
            AtomicReference<Throwable> err = new AtomicReference<>();
            phase(ops, o.aWarm, null, err);
            List<LongBuf> lat = new ArrayList<>();
            r.roundTput = new double[o.rounds];
            for (int round = 0; round < o.rounds && err.get() == null; round++) {
                long[] pr = phase(ops, o.aDur, lat, err);
                r.roundTput[round] = pr[1] / (pr[0] / 1e9);
                r.ops += pr[1];
            }
            if (err.get() != null) {
                throw err.get();
            }
            int total = 0;
            for (LongBuf b : lat) {
                total += b.n;
            }
            long[] all = new long[total];
            int p = 0;
            for (LongBuf b : lat) {
                System.arraycopy(b.a, 0, all, p, b.n);
                p += b.n;
            }
            Arrays.sort(all);
            r.p50 = pct(all, 0.50);
            r.p90 = pct(all, 0.90);
            r.p99 = pct(all, 0.99);
            r.max = all.length == 0 ? Double.NaN : all[all.length - 1] / 1e6;
            r.tput = median(r.roundTput);
        } catch (Throwable e) {
            r.error = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).split("\n")[0];
        }
        r.load1 = loadAvg();
        results.add(r);
        System.out.printf(Locale.ROOT, "  %-46s %-5s check=%-12s ops=%-8d ops/s=%-10.1f p50=%.3fms p99=%.3fms (%.1fs)%s%n",
                group + "/" + name, api, r.check == Long.MIN_VALUE ? "-" : Long.toString(r.check), r.ops, r.tput,
                r.p50, r.p99, (System.nanoTime() - t0) / 1e9, r.error == null ? "" : "  ERROR " + r.error);
        return r;
    }

    /** Nearest-rank percentile, in ms. */
    static double pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(idx, sorted.length - 1))] / 1e6;
    }

    static double median(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    // ---------------------------------------------------------------- SQL / map helpers
    /** Every row and every column consumed ({@code getObject} deserializes {@code this}). */
    static long sqlRows(SqlService sql, String q, Object... params) {
        long n = 0;
        try (SqlResult res = sql.execute(q, params)) {
            for (SqlRow row : res) {
                int cols = row.getMetadata().getColumnCount();
                for (int c = 0; c < cols; c++) {
                    row.getObject(c);
                }
                n++;
            }
        }
        return n;
    }

    static long sqlScalar(SqlService sql, String q) {
        try (SqlResult res = sql.execute(q)) {
            Iterator<SqlRow> it = res.iterator();
            Object v = it.next().getObject(0);
            return ((Number) v).longValue();
        }
    }

    void ddl(String stmt) {
        try (SqlResult r = sql.execute(stmt)) {
            r.updateCount();
        }
    }

    /** C loader threads; thread t puts the keys k ≡ t (mod C) in ascending order, in putAll batches of 500. */
    <V> void load(AtollMap<Integer, V> map, int n, IntFunction<V> gen) throws Exception {
        int c = o.threads;
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < c; t++) {
            final int ti = t;
            fs.add(pool.submit(() -> {
                Map<Integer, V> batch = new HashMap<>();
                for (int k = ti; k < n; k += c) {
                    batch.put(k, gen.apply(k));
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
        for (Future<?> f : fs) {
            f.get();
        }
        if (map.size() != n) {
            throw new IllegalStateException("map " + map.getName() + " size " + map.size() + " != " + n);
        }
    }

    /** The layout members read ADoc values through (the workload's 'java' mapping names the class only). */
    static IdentifiedLayout aDocLayout() {
        return IdentifiedLayout.builder(Ids.FACTORY_ID, Ids.ADOC_ID).writeLong("value").writeIntArray("payload").build();
    }

    static SerializationConfig serialization() {
        return new SerializationConfig()
                .addCompactSerializer(new CompactSerializers.SmallSerializer())
                .addCompactSerializer(new CompactSerializers.LargeSerializer())
                .addPortableFactory(Ports.FACTORY_ID, new Ports.Factory())
                .addDataSerializableFactory(Ids.FACTORY_ID, new Ids.Factory());
    }

    // ---------------------------------------------------------------- workload A
    void workloadA() throws Exception {
        int n = o.aEntries;
        System.out.println("== Workload A (SQL vs Predicate), entries=" + n);
        long tl = System.nanoTime();
        client.registerLayouts(aDocLayout());
        AtollMap<Integer, Ids.ADoc> ids = client.getMap("a_ids");
        AtollMap<Integer, Ids.ADoc> idsIdx = client.getMap("a_ids_idx");
        AtollMap<Integer, Ports.PADoc> por = client.getMap("a_portable");
        AtollMap<Integer, JsonValue> json = client.getMap("a_json");
        for (AtollMap<?, ?> m : List.of(ids, idsIdx, por, json)) {
            m.clear();
        }
        idsIdx.addIndex(IndexType.SORTED, "value");
        load(ids, n, Ids.ADoc::new);
        load(idsIdx, n, Ids.ADoc::new);
        load(por, n, Ports.PADoc::new);
        load(json, n, k -> new JsonValue(Gen.aJson(k)));
        ddl("CREATE OR REPLACE MAPPING a_ids (__key INT, \"value\" BIGINT) TYPE IMap OPTIONS "
                + "('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='io.atoll.bench.hazelcast.model.IdentifiedModel$IdsDoc')");
        ddl("CREATE OR REPLACE MAPPING a_ids_idx (__key INT, \"value\" BIGINT) TYPE IMap OPTIONS "
                + "('keyFormat'='int', 'valueFormat'='java', 'valueJavaClass'='io.atoll.bench.hazelcast.model.IdentifiedModel$IdsDoc')");
        ddl("CREATE OR REPLACE MAPPING a_portable (__key INT, \"value\" BIGINT) TYPE IMap OPTIONS "
                + "('keyFormat'='int', 'valueFormat'='portable', 'valuePortableFactoryId'='2', 'valuePortableClassId'='3')");
        ddl("CREATE OR REPLACE MAPPING a_json TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='json')");
        ddl("CREATE OR REPLACE MAPPING a_json_flat EXTERNAL NAME a_json (__key INT, \"value\" BIGINT) TYPE IMap OPTIONS "
                + "('keyFormat'='int', 'valueFormat'='json-flat')");
        System.out.printf(Locale.ROOT, "  loaded 4 maps x %d entries + mappings in %.1fs%n", n, (System.nanoTime() - tl) / 1e9);

        long all = n;
        long s = (long) n * (n - 1) / 2;
        // A1 full scan
        String q1 = "SELECT __key, this FROM a_ids";
        runCase("A1", "scan-all IDS", "SQL", "a_ids", q1, all, t -> () -> sqlRows(sql, q1));
        // IMap.entrySet() is a query with the true predicate (in Hazelcast, and in the Go harness).
        runCase("A1", "scan-all IDS", "PRED", "a_ids", "map.entrySet(Predicates.alwaysTrue())", all, t -> () -> {
            long c = 0;
            for (Map.Entry<Integer, Ids.ADoc> e : ids.entrySet(Predicates.alwaysTrue())) {
                e.getKey();
                e.getValue();
                c++;
            }
            return c;
        });
        // A2 count
        String q2 = "SELECT COUNT(*) FROM a_ids";
        runCase("A2", "count IDS", "SQL", "a_ids", q2, all, t -> () -> sqlScalar(sql, q2));
        runCase("A2", "count IDS", "PRED", "a_ids", "map.aggregate(Aggregators.count())", all,
                t -> () -> ids.aggregate(Aggregators.count()));
        // A3 sum
        String q3 = "SELECT SUM(\"value\") FROM a_ids";
        runCase("A3", "sum IDS", "SQL", "a_ids", q3, s, t -> () -> sqlScalar(sql, q3));
        runCase("A3", "sum IDS", "PRED", "a_ids", "map.aggregate(Aggregators.longSum(\"value\"))", s,
                t -> () -> ids.aggregate(Aggregators.longSum("value")));
        String q3p = "SELECT SUM(\"value\") FROM a_portable";
        runCase("A3", "sum PORTABLE", "SQL", "a_portable", q3p, s, t -> () -> sqlScalar(sql, q3p));
        runCase("A3", "sum PORTABLE", "PRED", "a_portable", "map.aggregate(Aggregators.longSum(\"value\"))", s,
                t -> () -> por.aggregate(Aggregators.longSum("value")));
        String q3j = "SELECT SUM(\"value\") FROM a_json_flat";
        runCase("A3", "sum JSON(json-flat)", "SQL", "a_json", q3j, s, t -> () -> sqlScalar(sql, q3j));
        runCase("A3", "sum JSON(json-flat)", "PRED", "a_json", "map.aggregate(Aggregators.longSum(\"value\"))", s,
                t -> () -> json.aggregate(Aggregators.longSum("value")));
        // A4 JSON_VALUE
        String q4 = "SELECT SUM(JSON_VALUE(this, '$.value' RETURNING INTEGER)) FROM a_json";
        runCase("A4", "sum JSON_VALUE", "SQL", "a_json", q4, s, t -> () -> sqlScalar(sql, q4));
        runCase("A4", "sum JSON_VALUE", "PRED", "a_json", "map.aggregate(Aggregators.longSum(\"value\"))", s,
                t -> () -> json.aggregate(Aggregators.longSum("value")));
        // A5 equality, without / with index
        for (String mn : List.of("a_ids", "a_ids_idx")) {
            AtollMap<Integer, Ids.ADoc> m = mn.equals("a_ids") ? ids : idsIdx;
            String label = mn.equals("a_ids") ? "eq no-index IDS" : "eq sorted-index IDS";
            String q5 = "SELECT __key, this FROM " + mn + " WHERE \"value\" = ?";
            runCase("A5", label, "SQL", mn, q5, 1, t -> {
                Random r = new Random(4000 + t);
                return () -> sqlRows(sql, q5, (long) r.nextInt(n));
            });
            runCase("A5", label, "PRED", mn, "map.entrySet(Predicates.equal(\"value\", v))", 1, t -> {
                Random r = new Random(4000 + t);
                return () -> {
                    long c = 0;
                    for (Map.Entry<Integer, Ids.ADoc> e : m.entrySet(Predicates.equal("value", (long) r.nextInt(n)))) {
                        e.getKey();
                        e.getValue();
                        c++;
                    }
                    return c;
                };
            });
        }
        for (AtollMap<?, ?> m : List.of(ids, idsIdx, por, json)) {
            m.destroy();
        }
    }

    // ---------------------------------------------------------------- output
    void printTable(PrintWriter pw) {
        pw.printf(Locale.ROOT, "%-28s %-20s %-5s %12s %9s %9s %9s %9s %9s %10s%n",
                "group", "case", "api", "check", "ops", "ops/s", "p50 ms", "p90 ms", "p99 ms", "max ms");
        for (CaseResult r : results) {
            if (r.error != null) {
                pw.printf(Locale.ROOT, "%-28s %-20s %-5s ERROR %s%n", r.group, r.name, r.api, r.error);
                continue;
            }
            pw.printf(Locale.ROOT, "%-28s %-20s %-5s %12d %9d %9.1f %9.3f %9.3f %9.3f %10.3f%n",
                    r.group, r.name, r.api, r.check, r.ops, r.tput, r.p50, r.p90, r.p99, r.max);
        }
        pw.flush();
    }

    static String js(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Number) {
            double dv = ((Number) v).doubleValue();
            if (Double.isNaN(dv) || Double.isInfinite(dv)) {
                return "null";
            }
            if (v instanceof Double || v instanceof Float) {
                return String.format(Locale.ROOT, "%.6g", dv);
            }
            return v.toString();
        }
        if (v instanceof Map) {
            StringBuilder sb = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(js(String.valueOf(e.getKey()))).append(':').append(js(e.getValue()));
            }
            return sb.append('}').toString();
        }
        if (v instanceof List) {
            StringBuilder sb = new StringBuilder("[");
            boolean first = true;
            for (Object x : (List<?>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(js(x));
            }
            return sb.append(']').toString();
        }
        if (v instanceof double[]) {
            List<Object> l = new ArrayList<>();
            for (double x : (double[]) v) {
                l.add(x);
            }
            return js(l);
        }
        String s = v.toString();
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                sb.append('\\').append(ch);
            } else if (ch < 0x20) {
                sb.append(String.format("\\u%04x", (int) ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.append('"').toString();
    }

    void writeJson(double totalSeconds) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("date", Instant.now().toString());
        root.put("system", "Atoll " + AtollClient.VERSION + " (Java SDK)");
        // atoll-bench summarize prints this field.
        root.put("hazelcastVersion", "none: Atoll " + AtollClient.VERSION + ", Java SDK");
        root.put("javaVersion", System.getProperty("java.version"));
        root.put("cpus", Runtime.getRuntime().availableProcessors());
        root.put("mode", o.mode);
        root.put("members", o.members);
        root.put("memberProcess", "separate atoll member process per member");
        root.put("clientThreads", o.threads);
        root.put("aEntries", o.aEntries);
        root.put("bEntries", 0);
        root.put("aWarmupSeconds", o.aWarm);
        root.put("aDurationSeconds", o.aDur);
        root.put("rounds", o.rounds);
        root.put("totalSeconds", totalSeconds);
        Map<String, Object> la = new LinkedHashMap<>();
        la.put("start", START_LOAD);
        la.put("end", loadAvg());
        root.put("loadAvg", la);
        List<Object> cases = new ArrayList<>();
        for (CaseResult r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", r.id);
            m.put("group", r.group);
            m.put("case", r.name);
            m.put("api", r.api);
            m.put("map", r.map);
            m.put("text", r.text);
            m.put("check", r.check == Long.MIN_VALUE ? null : r.check);
            m.put("ops", r.ops);
            m.put("opsPerSecMedian", r.tput);
            m.put("roundOpsPerSec", r.roundTput);
            m.put("p50ms", r.p50);
            m.put("p90ms", r.p90);
            m.put("p99ms", r.p99);
            m.put("maxms", r.max);
            m.put("load1", r.load1);
            m.put("error", r.error);
            cases.add(m);
        }
        root.put("cases", cases);
        root.put("workloadB", new LinkedHashMap<>());
        Files.write(new File(o.out).toPath(), (js(root) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    public static void main(String[] args) throws Exception {
        Opts o = parse(args);
        long t0 = System.nanoTime();
        System.out.printf(Locale.ROOT, "atoll workload A mode=%s members=%d (%s) threads=%d aEntries=%d rounds=%d%n",
                o.mode, o.members, o.addresses, o.threads, o.aEntries, o.rounds);
        WorkloadA b = new WorkloadA(o);
        int failed = 0;
        try {
            AtollClientConfig cfg = new AtollClientConfig().setClusterName(o.cluster).setSerializationConfig(serialization())
                    .setInvocationTimeout(Duration.ofSeconds(120));
            for (String a : o.addresses.split(",")) {
                cfg.addAddress(a.trim());
            }
            b.client = AtollClient.newClient(cfg);
            b.sql = b.client.sql();
            b.workloadA();
        } finally {
            double total = (System.nanoTime() - t0) / 1e9;
            System.out.println();
            System.out.printf(Locale.ROOT, "== Results (Atoll %s Java SDK, %d members, %d client threads, mode=%s, %.0fs total)%n",
                    AtollClient.VERSION, o.members, o.threads, o.mode, total);
            PrintWriter pw = new PrintWriter(System.out);
            b.printTable(pw);
            b.writeJson(total);
            System.out.println("wrote " + o.out);
            if (b.client != null) {
                b.client.close();
            }
            b.pool.shutdownNow();
            for (CaseResult r : b.results) {
                if (r.error != null) {
                    failed++;
                }
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }
}
