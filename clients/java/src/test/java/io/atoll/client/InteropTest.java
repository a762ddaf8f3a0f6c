package io.atoll.client;

import io.atoll.client.serialization.JsonValue;
import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Ids;
import io.atoll.client.serialization.bench.Large;
import io.atoll.client.serialization.bench.Ports;
import io.atoll.client.serialization.bench.Small;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Values written by the Go client are read by the Java client and the other way round, for
 * every format, through a real member; and both SDKs and the member agree on the partition of
 * every key. The Go side is internal/interop/peer, which prints values canonically.
 */
class InteropTest {
    static final int COUNT = 60;
    static GoMember member;
    static AtollClient client;

    @BeforeAll
    static void start() {
        member = GoMember.start("interop");
        client = AtollClient.newClient(member.clientConfig().setSerializationConfig(TestModel.serialization()));
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

    /** The value of key k in format f: the same function as the peer's valueFor. */
    static Object valueFor(String f, int k) {
        switch (f) {
            case "string":
                return "välue-" + k + "-✓";
            case "int":
                return k * 31 + 7;
            case "long":
                return (long) k * 1_000_003 + 7;
            case "double":
                return k / 7.0 + 0.125;
            case "boolean":
                return k % 3 == 0;
            case "bytes": {
                byte[] b = new byte[16];
                new Random(Gen.VALUE_SEED_BASE + k).nextBytes(b);
                return b;
            }
            case "json":
                return new JsonValue(Gen.aJson(k));
            case "compact-small":
                return Gen.smallForKey(k);
            case "compact-large":
                return Gen.largeForKey(k);
            case "portable-small":
                return new Ports.PSmall(Gen.smallForKey(k));
            case "portable-large":
                return new Ports.PLarge(Gen.largeForKey(k));
            case "ids-small":
                return new Ids.IdsSmall(Gen.smallForKey(k));
            case "ids-large":
                return new Ids.IdsLarge(Gen.largeForKey(k));
            default:
                throw new IllegalArgumentException(f);
        }
    }

    // ---- the canonical text form, as the peer prints it ----

    static String canonical(Object v) {
        if (v instanceof String) {
            return "s:" + v;
        } else if (v instanceof Integer) {
            return "i:" + v;
        } else if (v instanceof Long) {
            return "l:" + v;
        } else if (v instanceof Double) {
            return String.format("d:%016x", Double.doubleToRawLongBits((Double) v));
        } else if (v instanceof Boolean) {
            return "b:" + v;
        } else if (v instanceof byte[]) {
            StringBuilder sb = new StringBuilder("B:");
            for (byte b : (byte[]) v) {
                sb.append(String.format("%02x", b & 0xff));
            }
            return sb.toString();
        } else if (v instanceof JsonValue) {
            return "j:" + ((JsonValue) v).getValue();
        } else if (v instanceof Small) {
            return small((Small) v);
        } else if (v instanceof Ports.PSmall) {
            Ports.PSmall p = (Ports.PSmall) v;
            return small(p.intField, p.longField, p.doubleField, p.stringField);
        } else if (v instanceof Ids.IdsSmall) {
            Ids.IdsSmall p = (Ids.IdsSmall) v;
            return small(p.intField, p.longField, p.doubleField, p.stringField);
        } else if (v instanceof Large) {
            Large l = (Large) v;
            List<String> smalls = new ArrayList<>();
            for (Small s : l.smallArray) {
                smalls.add(small(s));
            }
            return large(l, small(l.small), smalls);
        } else if (v instanceof Ports.PLarge) {
            Ports.PLarge p = (Ports.PLarge) v;
            List<String> smalls = new ArrayList<>();
            for (Ports.PSmall s : p.smallArray) {
                smalls.add(canonical(s));
            }
            return large(p.booleanField, p.booleanArray, p.byteField, p.byteArray, p.shortField, p.shortArray, p.intField, p.intArray,
                    p.longField, p.longArray, p.floatField, p.floatArray, p.doubleField, p.doubleArray, p.stringField, p.stringArray,
                    canonical(p.small), smalls);
        } else if (v instanceof Ids.IdsLarge) {
            Ids.IdsLarge p = (Ids.IdsLarge) v;
            List<String> smalls = new ArrayList<>();
            for (Ids.IdsSmall s : p.smallArray) {
                smalls.add(canonical(s));
            }
            return large(p.booleanField, p.booleanArray, p.byteField, p.byteArray, p.shortField, p.shortArray, p.intField, p.intArray,
                    p.longField, p.longArray, p.floatField, p.floatArray, p.doubleField, p.doubleArray, p.stringField, p.stringArray,
                    canonical(p.small), smalls);
        }
        return "?" + (v == null ? "null" : v.getClass().getName() + ":" + v);
    }

    static String small(Small s) {
        return small(s.intField, s.longField, s.doubleField, s.stringField);
    }

    static String small(int i, long l, double d, String s) {
        return String.format("S{%d,%d,%016x,%s}", i, l, Double.doubleToRawLongBits(d), s);
    }

    static String large(Large l, String small, List<String> smalls) {
        return large(l.booleanField, l.booleanArray, l.byteField, l.byteArray, l.shortField, l.shortArray, l.intField, l.intArray,
                l.longField, l.longArray, l.floatField, l.floatArray, l.doubleField, l.doubleArray, l.stringField, l.stringArray,
                small, smalls);
    }

    static <T> String list(int n, Function<Integer, String> item) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(item.apply(i));
        }
        return "[" + String.join(" ", parts) + "]";
    }

    @SuppressWarnings("checkstyle:ParameterNumber")
    static String large(boolean bo, boolean[] boa, byte by, byte[] bya, short sh, short[] sha, int in, int[] ina, long lo, long[] loa,
                        float fl, float[] fla, double db, double[] dba, String st, String[] sta, String small, List<String> smalls) {
        StringBuilder b = new StringBuilder("L{");
        b.append(bo).append(',').append(boa == null ? "null" : list(boa.length, i -> String.valueOf(boa[i]))).append(',');
        b.append(by).append(',').append(bya == null ? "null" : list(bya.length, i -> String.valueOf(bya[i]))).append(',');
        b.append(sh).append(',').append(sha == null ? "null" : list(sha.length, i -> String.valueOf(sha[i]))).append(',');
        b.append(in).append(',').append(ina == null ? "null" : list(ina.length, i -> String.valueOf(ina[i]))).append(',');
        b.append(lo).append(',').append(loa == null ? "null" : list(loa.length, i -> String.valueOf(loa[i]))).append(',');
        b.append(String.format("%08x", Float.floatToRawIntBits(fl))).append(',')
                .append(fla == null ? "null" : list(fla.length, i -> String.format("%08x", Float.floatToRawIntBits(fla[i])))).append(',');
        b.append(String.format("%016x", Double.doubleToRawLongBits(db))).append(',')
                .append(dba == null ? "null" : list(dba.length, i -> String.format("%016x", Double.doubleToRawLongBits(dba[i])))).append(',');
        b.append(st).append(',').append(sta == null ? "null" : list(sta.length, i -> sta[i])).append(',');
        b.append(small).append(',').append("[").append(String.join(" ", smalls)).append("]}");
        return b.toString();
    }

    static List<String> expectedLines(String format) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < COUNT; k++) {
            out.add(k + "\t" + canonical(valueFor(format, k)));
        }
        return out;
    }

    static List<String> lines(String text) {
        List<String> out = new ArrayList<>(List.of(text.split("\n")));
        out.removeIf(String::isEmpty);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"string", "int", "long", "double", "boolean", "bytes", "json",
            "compact-small", "compact-large", "portable-small", "portable-large", "ids-small", "ids-large"})
    void goWritesJavaReads(String format) {
        String map = "go-to-java-" + format;
        String written = member.runPeer("-mode", "write", "-format", format, "-map", map, "-count", String.valueOf(COUNT));
        // The generators agree: what Go wrote is what Java would have written.
        assertEquals(expectedLines(format), lines(written));
        AtollMap<Integer, Object> m = client.getMap(map);
        List<String> read = new ArrayList<>();
        for (int k = 0; k < COUNT; k++) {
            read.add(k + "\t" + canonical(m.get(k)));
        }
        assertEquals(expectedLines(format), read);
        // Batched and streamed reads decode the same values.
        Set<Integer> keys = new HashSet<>();
        for (int k = 0; k < COUNT; k++) {
            keys.add(k);
        }
        Map<Integer, Object> all = m.getAll(keys);
        assertEquals(COUNT, all.size());
        for (Map.Entry<Integer, Object> e : m.entrySet()) {
            assertEquals(canonical(valueFor(format, e.getKey())), canonical(e.getValue()));
            assertEquals(canonical(valueFor(format, e.getKey())), canonical(all.get(e.getKey())));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"string", "int", "long", "double", "boolean", "bytes", "json",
            "compact-small", "compact-large", "portable-small", "portable-large", "ids-small", "ids-large"})
    void javaWritesGoReads(String format) {
        String map = "java-to-go-" + format;
        AtollMap<Integer, Object> m = client.getMap(map);
        for (int k = 0; k < COUNT; k++) {
            m.set(k, valueFor(format, k));
        }
        String read = member.runPeer("-mode", "read", "-format", format, "-map", map, "-count", String.valueOf(COUNT));
        assertEquals(expectedLines(format), lines(read));
    }

    /** Both SDKs compute the same partition for thousands of keys, and so does the member. */
    @Test
    void sdksAndMemberAgreeOnPartitions() {
        int n = 2000;
        List<String> goLines = lines(GoMember.runCommand(List.of(GoMember.peer().toString(), "-mode", "partitions",
                "-count", String.valueOf(n), "-partition-count", String.valueOf(client.getPartitionCount()))));
        assertEquals(3 * n, goLines.size());
        List<Object> keys = new ArrayList<>();
        for (String line : goLines) {
            String[] f = line.split("\t");
            Object key = f[0].equals("int") ? (Object) Integer.valueOf(f[1]) : f[0].equals("long") ? (Object) Long.valueOf(f[1]) : f[1];
            keys.add(key);
            assertEquals(Integer.parseInt(f[2]), client.getPartitionId(key), "partition of " + f[0] + " " + f[1]);
        }
        // The member reports the partition of every key it stores in its events.
        AtollMap<Object, Integer> m = client.getMap("partitions");
        Map<Object, Integer> reported = new ConcurrentHashMap<>();
        try (ListenerRegistration reg = m.addEntryListener(e -> reported.put(e.getKey(), e.getPartitionId()), false)) {
            Map<Object, Integer> batch = new java.util.HashMap<>();
            for (Object k : keys) {
                batch.put(k, 1);
            }
            m.putAll(batch);
            Await.until("an event per key", () -> reported.size() == keys.size());
        }
        for (Object k : keys) {
            assertEquals(client.getPartitionId(k), reported.get(k), "member's partition of " + k);
        }
    }
}
