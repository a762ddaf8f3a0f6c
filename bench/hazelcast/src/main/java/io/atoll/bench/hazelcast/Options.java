package io.atoll.bench.hazelcast;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The runner's options: a mode (smoke or full, bench/WORKLOADS.md) and overrides of its figures. */
final class Options {
    /** A latency-mode rate: requests per second of the cases whose id {@code cases} finds (every case when null). */
    record Rate(Pattern cases, double perSecond) {
    }

    /** The latency mode's requests in flight at most, warm-up and schedule (full mode) unless given. */
    static final int RATE_THREADS = 64;
    static final double RATE_WARMUP = 5;
    static final double RATE_DURATION = 60;

    String mode = "smoke";
    int members = 2;
    int threads = 8;
    int aEntries;
    int bEntries;
    double aWarmup;
    double aDuration;
    double bWarmup;
    double bDuration;
    int rounds;
    String workloads = "AB";
    String only;
    List<String> sizes = List.of("SMALL", "LARGE");
    List<String> kinds = List.of("COMPACT", "PORTABLE", "IDENTIFIED", "BYTE_ARRAY");
    String memberHeap = "3g";
    int basePort = 15701;
    String cluster = "atoll-bench-hazelcast";
    String out;
    String logDir = "logs";
    /** The latency mode's rates (empty: throughput mode), the first that matches a case applies. */
    final List<Rate> rates = new ArrayList<>();

    static final String USAGE = String.join("\n",
            "usage: run smoke|full [options]",
            "  --members N            member JVMs (2)",
            "  --threads C            client threads (8)",
            "  --a-entries N, --b-entries N   entries per map (mode: 2000 or 100000)",
            "  --a-warmup S, --a-duration S, --b-warmup S, --b-duration S   seconds",
            "  --rounds R             measured rounds per case",
            "  --workloads A|B|AB     workloads to run (AB)",
            "  --only REGEX           only the cases whose id matches",
            "  --sizes SMALL,LARGE    --kinds COMPACT,PORTABLE,IDENTIFIED,BYTE_ARRAY",
            "  --member-heap SIZE     member -Xms/-Xmx (3g)",
            "  --base-port P          first member port (15701)",
            "  --cluster NAME         cluster name",
            "  --out FILE             results JSON (results-MODE.json)",
            "  --log-dir DIR          member logs (logs)",
            "  --rate N | --rate REGEX=N   latency mode: N requests per second per API, open loop, for every",
            "                         case or those whose id matches (repeat; the first match wins; cases",
            "                         no rate matches are left out). The durations become the warm-up and",
            "                         the schedule (full: 5 s and 60 s, smoke: 0.1 s and 1 s), --threads the",
            "                         requests in flight at most (64)");

    static Options parse(String[] args) {
        Options o = new Options();
        if (args.length == 0 || args[0].startsWith("-")) {
            throw new IllegalArgumentException("the first argument is the mode, smoke or full");
        }
        o.mode = args[0];
        switch (o.mode) {
            case "smoke":
                o.aEntries = 2_000;
                o.bEntries = 2_000;
                o.aWarmup = 0.1;
                o.aDuration = 0.3;
                o.bWarmup = 0.1;
                o.bDuration = 0.2;
                o.rounds = 1;
                break;
            case "full":
                o.aEntries = 100_000;
                o.bEntries = 100_000;
                o.aWarmup = 2;
                o.aDuration = 4;
                o.bWarmup = 2;
                o.bDuration = 3;
                o.rounds = 3;
                break;
            default:
                throw new IllegalArgumentException("mode " + o.mode + ": want smoke or full");
        }
        o.out = "results-" + o.mode + ".json";
        List<String> given = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String v = args[++i];
            given.add(name);
            switch (name) {
                case "--members": o.members = positive(name, v); break;
                case "--threads": o.threads = positive(name, v); break;
                case "--a-entries": o.aEntries = positive(name, v); break;
                case "--b-entries": o.bEntries = positive(name, v); break;
                case "--a-warmup": o.aWarmup = seconds(name, v); break;
                case "--a-duration": o.aDuration = seconds(name, v); break;
                case "--b-warmup": o.bWarmup = seconds(name, v); break;
                case "--b-duration": o.bDuration = seconds(name, v); break;
                case "--rounds": o.rounds = positive(name, v); break;
                case "--workloads": o.workloads = v; break;
                case "--only": o.only = v; break;
                case "--sizes": o.sizes = List.of(v.split(",")); break;
                case "--kinds": o.kinds = List.of(v.split(",")); break;
                case "--member-heap": o.memberHeap = v; break;
                case "--base-port": o.basePort = positive(name, v); break;
                case "--cluster": o.cluster = v; break;
                case "--out": o.out = v; break;
                case "--log-dir": o.logDir = v; break;
                case "--rate": o.rates.add(rate(v)); break;
                default: throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (!o.rates.isEmpty()) {
            if (given.contains("--rounds")) {
                throw new IllegalArgumentException("--rounds does not apply with --rate: the latency mode runs one schedule per case");
            }
            o.rounds = 1;
            if (!given.contains("--threads")) {
                o.threads = RATE_THREADS;
            }
            boolean smoke = o.mode.equals("smoke");
            if (!given.contains("--a-warmup")) {
                o.aWarmup = smoke ? 0.1 : RATE_WARMUP;
            }
            if (!given.contains("--b-warmup")) {
                o.bWarmup = smoke ? 0.1 : RATE_WARMUP;
            }
            if (!given.contains("--a-duration")) {
                o.aDuration = smoke ? 1 : RATE_DURATION;
            }
            if (!given.contains("--b-duration")) {
                o.bDuration = smoke ? 1 : RATE_DURATION;
            }
            if (o.aDuration <= 0 || o.bDuration <= 0) {
                throw new IllegalArgumentException("--rate needs a schedule longer than 0 seconds");
            }
        }
        return o;
    }

    /** The latency mode's rate of a case id, or NaN when no rate matches it. */
    double rateFor(String id) {
        for (Rate r : rates) {
            if (r.cases() == null || r.cases().matcher(id).find()) {
                return r.perSecond();
            }
        }
        return Double.NaN;
    }

    /** Reads a --rate value: N, or REGEX=N. */
    static Rate rate(String v) {
        int eq = v.lastIndexOf('=');
        String pattern = eq < 0 ? "" : v.substring(0, eq);
        double n;
        try {
            n = Double.parseDouble(v.substring(eq + 1).trim());
        } catch (NumberFormatException e) {
            n = Double.NaN;
        }
        if (!(n > 0) || Double.isInfinite(n)) {
            throw new IllegalArgumentException("--rate " + v + ": want N or REGEX=N with N a positive number of requests per second");
        }
        try {
            return new Rate(pattern.isEmpty() ? null : Pattern.compile(pattern), n);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("--rate " + v + ": " + e.getDescription());
        }
    }

    private static int positive(String name, String v) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " " + v + ": not a number");
        }
        if (n < 1) {
            throw new IllegalArgumentException(name + " " + v + ": want at least 1");
        }
        return n;
    }

    private static double seconds(String name, String v) {
        try {
            double d = Double.parseDouble(v);
            if (d >= 0) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " " + v + ": want seconds, at least 0");
    }
}
