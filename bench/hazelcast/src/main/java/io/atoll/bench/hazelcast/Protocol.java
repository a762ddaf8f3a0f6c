package io.atoll.bench.hazelcast;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/** The measurement protocol of a case (bench/WORKLOADS.md): validation, warm-up, rounds, figures. */
final class Protocol {
    /** One operation; returns its check (rows, an aggregate, or 1). */
    interface Op {
        long run() throws Exception;
    }

    /** Makes the operation of thread t (each thread keeps its own for the whole case). */
    interface OpFactory {
        Op create(int thread);
    }

    /** The figures of one case through one API. */
    static final class CaseResult {
        String id;
        String group;
        String name;
        String api;
        String map;
        String text;
        Long check;
        long ops;
        double[] roundOpsPerSec = new double[0];
        double opsPerSecMedian = Double.NaN;
        double p50 = Double.NaN;
        double p90 = Double.NaN;
        double p99 = Double.NaN;
        double max = Double.NaN;
        double load1 = Double.NaN;
        String error;
    }

    private final ExecutorService pool;
    private final int threads;
    private final int rounds;
    private final Pattern only;
    final List<CaseResult> results = new ArrayList<>();

    Protocol(ExecutorService pool, int threads, int rounds, String only) {
        this.pool = pool;
        this.threads = threads;
        this.rounds = rounds;
        this.only = only == null ? null : Pattern.compile(only);
    }

    boolean selected(String id) {
        return only == null || only.matcher(id).matches();
    }

    /** Runs a case unless --only leaves it out, records and prints its figures. */
    void run(String group, String name, String api, String map, String text, long expected, double warmup, double duration,
            OpFactory factory) {
        CaseResult r = new CaseResult();
        r.group = group;
        r.name = name;
        r.api = api;
        r.map = map;
        r.text = text;
        r.id = group + "/" + name + "/" + api;
        if (!selected(r.id)) {
            return;
        }
        long start = System.nanoTime();
        try {
            Op[] ops = new Op[threads];
            for (int t = 0; t < threads; t++) {
                ops[t] = factory.create(t);
            }
            r.check = factory.create(threads + 1000).run();
            if (r.check != expected) {
                throw new IllegalStateException("check " + r.check + ", expected " + expected);
            }
            phase(ops, warmup, null);
            List<long[]> latencies = new ArrayList<>();
            r.roundOpsPerSec = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                long[] p = phase(ops, duration, latencies);
                r.roundOpsPerSec[round] = p[1] / (p[0] / 1e9);
                r.ops += p[1];
            }
            long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            r.p50 = percentile(all, 0.50);
            r.p90 = percentile(all, 0.90);
            r.p99 = percentile(all, 0.99);
            r.max = all.length == 0 ? Double.NaN : all[all.length - 1] / 1e6;
            r.opsPerSecMedian = median(r.roundOpsPerSec);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null && e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
            r.error = cause.getClass().getSimpleName() + ": " + String.valueOf(cause.getMessage()).split("\n")[0];
        }
        r.load1 = loadAverage();
        results.add(r);
        System.out.printf(Locale.ROOT, "  %-44s %-5s check=%-12s ops=%-8d ops/s=%-10.1f p50=%.3fms p99=%.3fms (%.1fs)%s%n",
                group + "/" + name, api, r.check == null ? "-" : r.check.toString(), r.ops, r.opsPerSecMedian, r.p50, r.p99,
                (System.nanoTime() - start) / 1e9, r.error == null ? "" : "  ERROR " + r.error);
    }

    /**
     * All threads loop until the deadline; returns {elapsed ns, operations}. Latencies (ns) are
     * added per thread when {@code latencies} is not null.
     */
    private long[] phase(Op[] ops, double seconds, List<long[]> latencies) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        long[] start = new long[1];
        long[] ends = new long[ops.length];
        List<Future<long[]>> done = new ArrayList<>();
        AtomicReference<Exception> failed = new AtomicReference<>();
        for (int t = 0; t < ops.length; t++) {
            int ti = t;
            done.add(pool.submit(() -> {
                go.await();
                long deadline = start[0] + (long) (seconds * 1e9);
                long[] lat = new long[1024];
                int n = 0;
                try {
                    while (failed.get() == null) {
                        long t0 = System.nanoTime();
                        if (t0 >= deadline) {
                            break;
                        }
                        ops[ti].run();
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, n * 2);
                        }
                        lat[n++] = System.nanoTime() - t0;
                    }
                } catch (Exception e) {
                    failed.compareAndSet(null, e);
                }
                ends[ti] = System.nanoTime();
                return Arrays.copyOf(lat, n);
            }));
        }
        start[0] = System.nanoTime();
        go.countDown();
        long count = 0;
        for (Future<long[]> f : done) {
            long[] lat = f.get();
            count += lat.length;
            if (latencies != null) {
                latencies.add(lat);
            }
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        long end = Arrays.stream(ends).max().orElse(start[0]);
        return new long[] {end - start[0], count};
    }

    /** Nearest-rank percentile of sorted nanoseconds, in milliseconds. */
    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(i, sorted.length - 1))] / 1e6;
    }

    static double median(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** The host's one-minute load average, NaN where /proc/loadavg is missing. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(new File("/proc/loadavg").toPath()).split(" ")[0]);
        } catch (Exception e) {
            return Double.NaN;
        }
    }
}
