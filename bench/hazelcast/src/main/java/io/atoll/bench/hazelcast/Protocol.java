package io.atoll.bench.hazelcast;

import org.HdrHistogram.Histogram;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * The measurement protocols of a case (bench/WORKLOADS.md). Throughput mode (closed loop):
 * validation, warm-up, rounds on every thread. Latency mode (open loop, as wrk2 runs it):
 * requests scheduled at a fixed rate, each timed from its intended send time. Latencies go into
 * HdrHistograms in microseconds from 1 µs to an hour at 3 significant digits, the geometry of
 * atoll-bench's (bench/latency), and travel in the results file in HdrHistogram's compressed
 * encoding.
 */
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
        double p999 = Double.NaN;
        double p9999 = Double.NaN;
        double max = Double.NaN;
        /** The latency histogram, compressed and base64 (null when the case failed). */
        String histogram;
        /** Latency mode: the rate scheduled and achieved, whether it kept up, requests scheduled and never sent. */
        double rate = Double.NaN;
        double achievedRate = Double.NaN;
        Boolean keptUp;
        long scheduled;
        long unsent;
        double load1 = Double.NaN;
        String error;
    }

    /** What one run of a schedule did. */
    static final class Schedule {
        long scheduled;
        long completed;
        long unsent;
        /** Nanoseconds from the schedule's start to the last request sent. */
        long lastSend;
        Histogram latency;

        /** The rate requests were sent at (one interval added, so that a schedule kept exactly gives the rate). */
        double achievedRate(double rate) {
            long sent = scheduled - unsent;
            return sent == 0 ? 0 : sent / ((lastSend + 1e9 / rate) / 1e9);
        }

        /** Every request sent, the last at most a hundredth of the schedule (or 100 ms) behind its time. */
        boolean keptUp(double rate, double seconds) {
            long lastDue = (long) ((scheduled - 1) * 1e9 / rate);
            long slack = Math.max((long) (seconds * 1e9 / 100), 100_000_000L);
            return unsent == 0 && lastSend - lastDue <= slack;
        }
    }

    static final long HIGHEST_MICROS = 3_600_000_000L;

    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_MICROS, 3);
    }

    /** Records nanoseconds as microseconds, within the histogram's range. */
    static void record(Histogram h, long nanos) {
        h.recordValue(Math.min(HIGHEST_MICROS, Math.max(1, nanos / 1000)));
    }

    /** HdrHistogram's compressed V2 encoding, base64, as hdrhistogram-go decodes it. */
    static String encode(Histogram h) {
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(b);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(b.array(), n));
    }

    private final ExecutorService pool;
    private final int threads;
    private final int rounds;
    private final Pattern only;
    private final ToDoubleFunction<String> rateFor;
    final List<CaseResult> results = new ArrayList<>();

    /** rateFor gives a case id's rate in latency mode, NaN when it has none; null: throughput mode. */
    Protocol(ExecutorService pool, int threads, int rounds, String only, ToDoubleFunction<String> rateFor) {
        this.pool = pool;
        this.threads = threads;
        this.rounds = rounds;
        this.only = only == null ? null : Pattern.compile(only);
        this.rateFor = rateFor;
    }

    /** Whether a case runs: --only finds its id, and in latency mode a rate matches it. */
    boolean selected(String id) {
        if (rateFor != null && Double.isNaN(rateFor.applyAsDouble(id))) {
            return false;
        }
        return only == null || only.matcher(id).find();
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
            Histogram all;
            if (rateFor != null) {
                r.rate = rateFor.applyAsDouble(r.id);
                if (warmup > 0) {
                    schedule(ops, r.rate, scheduled(r.rate, warmup), 0, false);
                }
                Schedule s = schedule(ops, r.rate, scheduled(r.rate, duration), (long) (duration * 1.5e9), true);
                all = s.latency;
                r.scheduled = s.scheduled;
                r.unsent = s.unsent;
                r.ops = s.completed;
                r.achievedRate = s.achievedRate(r.rate);
                r.keptUp = s.keptUp(r.rate, duration);
                r.roundOpsPerSec = new double[] {r.achievedRate};
                r.opsPerSecMedian = r.achievedRate;
            } else {
                phase(ops, warmup, null);
                all = newHistogram();
                r.roundOpsPerSec = new double[rounds];
                for (int round = 0; round < rounds; round++) {
                    long[] p = phase(ops, duration, all);
                    r.roundOpsPerSec[round] = p[1] / (p[0] / 1e9);
                    r.ops += p[1];
                }
                r.opsPerSecMedian = median(r.roundOpsPerSec);
            }
            r.p50 = all.getValueAtPercentile(50) / 1e3;
            r.p90 = all.getValueAtPercentile(90) / 1e3;
            r.p99 = all.getValueAtPercentile(99) / 1e3;
            r.p999 = all.getValueAtPercentile(99.9) / 1e3;
            r.p9999 = all.getValueAtPercentile(99.99) / 1e3;
            r.max = all.getMaxValue() / 1e3;
            r.histogram = encode(all);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null && e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
            r.error = cause.getClass().getSimpleName() + ": " + String.valueOf(cause.getMessage()).split("\n")[0];
            r.opsPerSecMedian = Double.NaN;
        }
        r.load1 = loadAverage();
        results.add(r);
        if (rateFor != null) {
            System.out.printf(Locale.ROOT, "  %-44s %-5s check=%-12s rate=%.1f/s sent=%.1f/s %s p50=%.3fms p99=%.3fms p99.9=%.3fms max=%.3fms (%.1fs)%s%n",
                    group + "/" + name, api, r.check == null ? "-" : r.check.toString(), r.rate, r.achievedRate,
                    r.keptUp == null ? "-" : r.keptUp ? "kept up" : "DID NOT KEEP UP (" + r.unsent + " unsent)", r.p50, r.p99, r.p999, r.max,
                    (System.nanoTime() - start) / 1e9, r.error == null ? "" : "  ERROR " + r.error);
        } else {
            System.out.printf(Locale.ROOT, "  %-44s %-5s check=%-12s ops=%-8d ops/s=%-10.1f p50=%.3fms p99=%.3fms (%.1fs)%s%n",
                    group + "/" + name, api, r.check == null ? "-" : r.check.toString(), r.ops, r.opsPerSecMedian, r.p50, r.p99,
                    (System.nanoTime() - start) / 1e9, r.error == null ? "" : "  ERROR " + r.error);
        }
    }

    /** The requests a schedule of that many seconds holds at the rate (at least one). */
    static long scheduled(double rate, double seconds) {
        return Math.max(1, (long) Math.ceil(seconds * rate));
    }

    /**
     * All threads loop until the deadline; returns {elapsed ns, operations}. Latencies are recorded
     * into {@code latencies} when it is not null.
     */
    private long[] phase(Op[] ops, double seconds, Histogram latencies) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        long[] start = new long[1];
        long[] ends = new long[ops.length];
        List<Future<Histogram>> done = new ArrayList<>();
        AtomicReference<Exception> failed = new AtomicReference<>();
        for (int t = 0; t < ops.length; t++) {
            int ti = t;
            done.add(pool.submit(() -> {
                go.await();
                long deadline = start[0] + (long) (seconds * 1e9);
                Histogram lat = newHistogram();
                try {
                    while (failed.get() == null) {
                        long t0 = System.nanoTime();
                        if (t0 >= deadline) {
                            break;
                        }
                        ops[ti].run();
                        record(lat, System.nanoTime() - t0);
                    }
                } catch (Exception e) {
                    failed.compareAndSet(null, e);
                }
                ends[ti] = System.nanoTime();
                return lat;
            }));
        }
        start[0] = System.nanoTime();
        go.countDown();
        long count = 0;
        for (Future<Histogram> f : done) {
            Histogram lat = f.get();
            count += lat.getTotalCount();
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

    /**
     * Sends n requests at rate per second from now over the threads' operations (open loop): a free
     * thread takes the next request, waits for its time if it is early and sends it at once if it is
     * late. With record, each completed request's latency from its intended time is recorded, and
     * requests whose time came but that are not sent giveUpNanos after the start are not sent and are
     * recorded with the time they had waited (giveUpNanos 0: wait for every request). Without record
     * (the warm-up), requests not sent by the end of the schedule are dropped.
     */
    Schedule schedule(Op[] ops, double rate, long n, long giveUpNanos, boolean record) throws Exception {
        AtomicLong next = new AtomicLong();
        AtomicReference<Exception> failed = new AtomicReference<>();
        double perRequest = 1e9 / rate;
        long end = (long) (n * perRequest);
        List<Future<long[]>> done = new ArrayList<>();
        Histogram[] hists = new Histogram[ops.length];
        long start = System.nanoTime();
        for (int t = 0; t < ops.length; t++) {
            int ti = t;
            hists[t] = newHistogram();
            done.add(pool.submit(() -> {
                long completed = 0;
                long unsent = 0;
                long lastSend = 0;
                try {
                    while (failed.get() == null) {
                        long i = next.getAndIncrement();
                        if (i >= n) {
                            break;
                        }
                        long at = (long) (i * perRequest);
                        for (long wait = at - (System.nanoTime() - start); wait > 0; wait = at - (System.nanoTime() - start)) {
                            LockSupport.parkNanos(wait);
                        }
                        long sent = System.nanoTime() - start;
                        if (record ? giveUpNanos > 0 && sent > giveUpNanos : sent > end) {
                            if (record) {
                                record(hists[ti], sent - at);
                                unsent++;
                            }
                            continue;
                        }
                        ops[ti].run();
                        if (record) {
                            record(hists[ti], System.nanoTime() - start - at);
                        }
                        lastSend = Math.max(lastSend, sent);
                        completed++;
                    }
                } catch (Exception e) {
                    failed.compareAndSet(null, e);
                }
                return new long[] {completed, unsent, lastSend};
            }));
        }
        Schedule s = new Schedule();
        s.scheduled = n;
        s.latency = newHistogram();
        for (int t = 0; t < ops.length; t++) {
            long[] v = done.get(t).get();
            s.completed += v[0];
            s.unsent += v[1];
            s.lastSend = Math.max(s.lastSend, v[2]);
            s.latency.add(hists[t]);
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        return s;
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
