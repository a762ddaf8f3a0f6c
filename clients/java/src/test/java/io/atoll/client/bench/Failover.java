package io.atoll.client.bench;

import io.atoll.client.AtollClient;
import io.atoll.client.AtollClientConfig;
import io.atoll.client.AtollMap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The failover workload through the Java SDK, as {@code bench/failover} runs it through the Go
 * SDK and the Hazelcast runner ({@code bench/hazelcast}, Failover) through Hazelcast's client:
 * writer threads each set keys {@code "t<writer>-<i>"} to themselves with the synchronous
 * {@code set}, a member is disrupted after {@code before}, the writers go on for {@code after},
 * and every acknowledged key is read back with {@code getAll}, 500 at a time. It prints one
 * line:
 *
 * <pre>
 * FAILOVER atoll java, kill -9: longest pause without an ack 310 ms; slowest call 820 ms; 61234 acknowledged, 4 failed, 0 lost
 * </pre>
 *
 * <p>As a program (run by {@code atoll-bench failover --sdk java}) it connects to members that
 * are running and signals the process {@code --pid} itself:
 * {@code Failover --addresses A,B,C --cluster NAME --pid PID --signal KILL|STOP [--json FILE]}
 * (a stopped member is continued once the writers stopped, before the keys are read back).
 */
public final class Failover {
    private Failover() {
    }

    /** What a run measured. */
    public static final class Result {
        public long longestPauseMs;
        public long slowestCallMs;
        public int acknowledged;
        public int failed;
        public int lost;
        public String firstError;

        public String line(String system, String disruption) {
            return "FAILOVER " + system + ", " + disruption + ": longest pause without an ack " + longestPauseMs + " ms; slowest call "
                    + slowestCallMs + " ms; " + acknowledged + " acknowledged, " + failed + " failed, " + lost + " lost";
        }

        String json(String system, String disruption) {
            return "{\"system\": \"" + system + "\", \"disruption\": \"" + disruption + "\", \"longest_pause_ns\": " + longestPauseMs * 1_000_000
                    + ", \"slowest_call_ns\": " + slowestCallMs * 1_000_000 + ", \"acknowledged\": " + acknowledged + ", \"failed\": " + failed
                    + ", \"lost\": " + lost + ", \"first_error\": " + quote(firstError) + "}\n";
        }
    }

    /** Runs the workload on {@code map} with {@code writers} threads; {@code settle} runs once they stopped. */
    public static Result run(AtollMap<String, String> map, int writers, Duration before, Duration after, Runnable disrupt, Runnable settle)
            throws InterruptedException {
        Set<String> acked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicLong last = new AtomicLong(System.nanoTime());
        AtomicLong gap = new AtomicLong();
        AtomicLong slowest = new AtomicLong();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String k = "t" + id + "-" + i;
                    long s = System.nanoTime();
                    try {
                        map.set(k, k);
                        acked.add(k);
                        long now = System.nanoTime();
                        synchronized (gap) {
                            gap.set(Math.max(gap.get(), now - last.get()));
                            last.set(now);
                        }
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
                    }
                    slowest.accumulateAndGet(System.nanoTime() - s, Math::max);
                }
            }, "failover-writer-" + t);
            th.start();
            threads.add(th);
        }
        Thread.sleep(before.toMillis());
        disrupt.run();
        Thread.sleep(after.toMillis());
        synchronized (gap) { // a pause still going on at the end counts too
            gap.set(Math.max(gap.get(), System.nanoTime() - last.get()));
        }
        stop.set(true);
        for (Thread th : threads) {
            th.join(300_000);
        }
        settle.run();
        Result r = new Result();
        r.longestPauseMs = gap.get() / 1_000_000;
        r.slowestCallMs = slowest.get() / 1_000_000;
        r.acknowledged = acked.size();
        r.failed = failed.get();
        r.firstError = firstError.get();
        List<String> keys = new ArrayList<>(acked);
        for (int i = 0; i < keys.size(); i += 500) {
            Set<String> batch = new HashSet<>(keys.subList(i, Math.min(keys.size(), i + 500)));
            Map<String, String> got = map.getAll(batch);
            for (String k : batch) {
                if (!k.equals(got.get(k))) {
                    r.lost++;
                }
            }
        }
        return r;
    }

    public static void main(String[] args) throws Exception {
        String addresses = null;
        String cluster = "dev";
        String json = null;
        String signal = "KILL";
        long pid = -1;
        int writers = 8;
        Duration before = Duration.ofSeconds(5);
        Duration after = Duration.ofSeconds(15);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--addresses": addresses = args[++i]; break;
                case "--cluster": cluster = args[++i]; break;
                case "--pid": pid = Long.parseLong(args[++i]); break;
                case "--signal": signal = args[++i]; break;
                case "--writers": writers = Integer.parseInt(args[++i]); break;
                case "--before": before = Duration.ofMillis(Long.parseLong(args[++i])); break;
                case "--after": after = Duration.ofMillis(Long.parseLong(args[++i])); break;
                case "--json": json = args[++i]; break;
                default:
                    System.err.println("Failover: unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        if (addresses == null || pid <= 0 || !(signal.equals("KILL") || signal.equals("STOP"))) {
            System.err.println("usage: Failover --addresses A,B,C --cluster NAME --pid PID --signal KILL|STOP [--writers N] [--before MS] [--after MS] [--json FILE]");
            System.exit(2);
        }
        AtollClientConfig cfg = new AtollClientConfig().setClusterName(cluster);
        for (String a : addresses.split(",")) {
            cfg.addAddress(a);
        }
        String disruption = signal.equals("KILL") ? "kill -9" : "SIGSTOP";
        long victim = pid;
        String sig = signal;
        try (AtollClient client = AtollClient.newClient(cfg)) {
            AtollMap<String, String> map = client.getMap("fo");
            Result r = run(map, writers, before, after, () -> kill(victim, sig), () -> {
                if (sig.equals("STOP")) {
                    kill(victim, "CONT");
                }
            });
            System.out.println(r.line("atoll java", disruption));
            if (r.firstError != null) {
                System.out.println("first failed write: " + r.firstError);
            }
            if (json != null) {
                Files.writeString(Path.of(json), r.json("atoll java", disruption), StandardCharsets.UTF_8);
            }
        }
    }

    private static void kill(long pid, String signal) {
        try {
            Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + signal + " " + pid + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
