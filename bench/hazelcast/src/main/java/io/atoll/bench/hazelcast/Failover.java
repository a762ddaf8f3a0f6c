package io.atoll.bench.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The failover workload against Hazelcast with its default member and client settings, as
 * Atoll's runners run it (bench/failover for the Go SDK, io.atoll.client.bench.Failover for the
 * Java SDK): 3 member JVMs, 8 writer threads each setting keys {@code "t<writer>-<i>"} to
 * themselves, the third member killed (SIGKILL) or paused (SIGSTOP) after 5 s, 15 s more, then
 * the writers stop (a paused member is continued once they have) and every acknowledged key is
 * read back with getAll, 500 at a time. The longest pause without an acknowledgement runs until
 * the writers are told to stop when none came since (Hazelcast's reference harness counts only
 * the gaps between acknowledgements). It prints one FAILOVER line:
 *
 * <pre>
 * bench/hazelcast/run failover --disruption kill|stop [--base-port P] [--member-heap 512m] [--log-dir DIR] [--json FILE]
 * </pre>
 */
public final class Failover {
    private Failover() {
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options();
        o.members = 3;
        o.memberHeap = "512m";
        o.cluster = "atoll-failover-hazelcast";
        String disruption = "kill";
        String json = null;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                usage("missing value for " + name);
            }
            String v = args[++i];
            switch (name) {
                case "--disruption": disruption = v; break;
                case "--base-port": o.basePort = Integer.parseInt(v); break;
                case "--member-heap": o.memberHeap = v; break;
                case "--log-dir": o.logDir = v; break;
                case "--cluster": o.cluster = v; break;
                case "--json": json = v; break;
                default: usage("unknown option " + name);
            }
        }
        if (!disruption.equals("kill") && !disruption.equals("stop")) {
            usage("--disruption kill or stop");
        }
        Logger.getLogger("com.hazelcast").setLevel(Level.WARNING);
        List<Process> members = Runner.startMembers(o);
        Thread stopOnExit = new Thread(() -> members.forEach(p -> {
            signal(p, "CONT");
            p.destroy();
        }));
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        Process victim = members.get(2);
        String label = disruption.equals("kill") ? "kill -9" : "SIGSTOP";
        String signal = disruption.equals("kill") ? "KILL" : "STOP";
        HazelcastInstance client = HazelcastClient.newHazelcastClient(ClusterConfig.client(o.members, o.basePort, o.cluster));
        try {
            IMap<String, String> m = client.getMap("fo");
            Map<String, String> acked = new ConcurrentHashMap<>();
            AtomicLong last = new AtomicLong(System.nanoTime());
            AtomicLong gap = new AtomicLong();
            AtomicLong slowest = new AtomicLong();
            AtomicInteger failed = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        String k = "t" + id + "-" + i;
                        long s = System.nanoTime();
                        try {
                            m.set(k, k);
                            acked.put(k, k);
                            long now = System.nanoTime();
                            synchronized (gap) {
                                gap.set(Math.max(gap.get(), now - last.get()));
                                last.set(now);
                            }
                        } catch (Exception e) {
                            failed.incrementAndGet();
                        }
                        slowest.accumulateAndGet(System.nanoTime() - s, Math::max);
                    }
                });
                th.start();
                threads.add(th);
            }
            Thread.sleep(5000);
            signal(victim, signal);
            Thread.sleep(15000);
            synchronized (gap) { // a pause still going on at the end counts too
                gap.set(Math.max(gap.get(), System.nanoTime() - last.get()));
            }
            stop.set(true);
            for (Thread th : threads) {
                th.join(300_000);
            }
            if (signal.equals("STOP")) {
                signal(victim, "CONT");
            }
            int lost = 0;
            List<String> keys = new ArrayList<>(acked.keySet());
            for (int i = 0; i < keys.size(); i += 500) {
                Set<String> batch = new HashSet<>(keys.subList(i, Math.min(keys.size(), i + 500)));
                Map<String, String> got = m.getAll(batch);
                for (String k : batch) {
                    if (!k.equals(got.get(k))) {
                        lost++;
                    }
                }
            }
            long pauseMs = gap.get() / 1_000_000;
            long slowestMs = slowest.get() / 1_000_000;
            System.out.println("FAILOVER hazelcast java, " + label + ": longest pause without an ack " + pauseMs + " ms; slowest call "
                    + slowestMs + " ms; " + acked.size() + " acknowledged, " + failed.get() + " failed, " + lost + " lost");
            if (json != null) {
                Files.writeString(Path.of(json), "{\"system\": \"hazelcast java\", \"disruption\": \"" + label + "\", \"longest_pause_ns\": "
                        + pauseMs * 1_000_000 + ", \"slowest_call_ns\": " + slowestMs * 1_000_000 + ", \"acknowledged\": " + acked.size()
                        + ", \"failed\": " + failed.get() + ", \"lost\": " + lost + "}\n", StandardCharsets.UTF_8);
            }
        } finally {
            client.shutdown();
            Runner.stopMembers(members);
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        }
        System.exit(0);
    }

    private static void signal(Process p, String signal) {
        if (!p.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + signal + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void usage(String why) {
        System.err.println("failover: " + why);
        System.err.println("usage: bench/hazelcast/run failover --disruption kill|stop [--base-port P] [--member-heap 512m] [--log-dir DIR] [--json FILE]");
        System.exit(2);
    }
}
