package io.atoll.client;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Java client process of the bank-transfer test (internal/txtest/bank_test.go, which starts it
 * when the environment names the java command): it makes transfers between random accounts
 * with {@code runInTransaction}, 4 threads at a time, until its standard input closes, and
 * reports each on standard output exactly as the Go workers do ("commit ID FROM TO AMOUNT" before the commit,
 * then "ok", "skip", "conflict", "unknown" or "error" with the id). Each transfer records its
 * id in the transfers map in the same transaction.
 */
public final class BankWorker {
    private BankWorker() {
    }

    public static void main(String[] args) throws Exception {
        String name = System.getenv("ATOLL_BANK_WORKER");
        int accounts = Integer.parseInt(System.getenv().getOrDefault("ATOLL_BANK_ACCOUNTS", "200"));
        AtollClientConfig cfg = new AtollClientConfig().setClusterName(System.getenv("ATOLL_BANK_CLUSTER"))
                .setClientName(name).setInvocationTimeout(Duration.ofSeconds(20));
        for (String a : System.getenv("ATOLL_BANK_ADDRS").split(",")) {
            cfg.addAddress(a);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        AtomicBoolean stop = new AtomicBoolean();
        TransactionOptions options = new TransactionOptions().setAttempts(20).setInitialBackoff(Duration.ofMillis(5))
                .setMaxBackoff(Duration.ofMillis(200)).setLease(Duration.ofSeconds(2));
        try (AtollClient client = AtollClient.newClient(cfg)) {
            List<Thread> threads = new ArrayList<>();
            for (int g = 0; g < 4; g++) {
                int thread = g;
                Thread t = new Thread(() -> {
                    Random rng = new Random(ProcessHandle.current().pid() * 31 + thread);
                    for (long seq = 0; !stop.get(); seq++) {
                        String id = name + "-" + thread + "-" + seq;
                        int from = rng.nextInt(accounts);
                        int to = rng.nextInt(accounts - 1);
                        if (to >= from) {
                            to++;
                        }
                        line(out, transfer(client, options, id, from, to, 1 + rng.nextInt(100), out));
                    }
                }, "bank-" + g);
                t.start();
                threads.add(t);
            }
            InputStream in = System.in;
            while (in.read() >= 0) {
                // the test closes standard input to stop the worker
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    private static void line(PrintStream out, String s) {
        synchronized (out) {
            out.println(s);
        }
    }

    private static String transfer(AtollClient client, TransactionOptions options, String id, int from, int to, long amount, PrintStream out) {
        try {
            boolean moved = client.runInTransaction(options, tx -> {
                TransactionalMap<Integer, Long> acc = tx.getMap("bank-accounts");
                long a = acc.get(from);
                long b = acc.get(to);
                boolean enough = a >= amount;
                if (enough) {
                    acc.set(from, a - amount);
                    acc.set(to, b + amount);
                    tx.<String, String>getMap("bank-transfers").set(id, from + "," + to + "," + amount);
                }
                line(out, "commit " + id + " " + from + " " + to + " " + amount);
                return enough;
            });
            return (moved ? "ok " : "skip ") + id;
        } catch (ConflictException e) {
            return "conflict " + id;
        } catch (TransactionOutcomeUnknownException e) {
            return "unknown " + id;
        } catch (RuntimeException e) {
            return "error " + id + " " + String.valueOf(e.getMessage()).replace('\n', ' ');
        }
    }
}
