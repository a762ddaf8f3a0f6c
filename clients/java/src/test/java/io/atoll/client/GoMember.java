package io.atoll.client;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Atoll member for tests: the {@code atoll} binary built from this repository
 * ({@code go build ./cmd/atoll}, once per test run), started as a process on a free
 * loopback port, and stopped with SIGTERM. The address comes from the member's
 * {@code msg="member started"} log line, as in internal/testcluster.
 */
final class GoMember implements AutoCloseable {
    private static final Pattern STARTED = Pattern.compile("msg=\"member started\".* address=(\\S+) admin=(\\S*)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static Path binary;
    private static Path peer;

    final String clusterName;
    private final String configYaml;
    private Process process;
    private volatile String address;
    private volatile String admin;
    private String join;
    private final StringBuffer logs = new StringBuffer();

    private GoMember(String clusterName, String configYaml) {
        this.clusterName = clusterName;
        this.configYaml = configYaml;
    }

    static Path repoDir() {
        String p = System.getProperty("atoll.repo.dir");
        return (p != null ? Paths.get(p) : Paths.get("../..")).toAbsolutePath().normalize();
    }

    static Path buildDir() {
        String p = System.getProperty("atoll.build.dir");
        return (p != null ? Paths.get(p) : Paths.get("target")).toAbsolutePath().normalize();
    }

    /** The member binary, built once per test run. */
    static synchronized Path binary() {
        if (binary == null) {
            binary = goBuild("atoll", "./cmd/atoll");
        }
        return binary;
    }

    /** The interoperability peer (internal/interop/peer), built once per test run. */
    static synchronized Path peer() {
        if (peer == null) {
            peer = goBuild("atoll-interop-peer", "./internal/interop/peer");
        }
        return peer;
    }

    private static Path goBuild(String name, String pkg) {
        Path out = buildDir().resolve("go-bin").resolve(name);
        try {
            Files.createDirectories(out.getParent());
            Process p = new ProcessBuilder("go", "build", "-o", out.toString(), pkg)
                    .directory(repoDir().toFile()).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("go build " + pkg + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("go build " + pkg + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** Starts a member of {@code clusterName} on a free port. */
    static GoMember start(String clusterName) {
        return start(clusterName, "");
    }

    /** Starts a member with extra YAML configuration (limits, maps). */
    static GoMember start(String clusterName, String configYaml) {
        GoMember m = new GoMember(clusterName, configYaml);
        m.launch("127.0.0.1:0");
        return m;
    }

    /** Starts a member that joins the cluster of {@code seed}. */
    static GoMember join(GoMember seed) {
        GoMember m = new GoMember(seed.clusterName, seed.configYaml);
        m.join = seed.address();
        m.launch("127.0.0.1:0");
        return m;
    }

    String address() {
        return address;
    }

    String logs() {
        return logs.toString();
    }

    private void launch(String bind) {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "member", "start",
                "--bind", bind, "--admin", "127.0.0.1:0", "--cluster-name", clusterName));
        if (join != null) {
            cmd.add("--join");
            cmd.add(join);
        }
        try {
            if (!configYaml.isEmpty()) {
                File f = File.createTempFile("atoll-member-", ".yaml");
                f.deleteOnExit();
                Files.writeString(f.toPath(), configYaml);
                cmd.add("--config");
                cmd.add(f.getPath());
            }
            process = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IllegalStateException("starting " + cmd + ": " + e, e);
        }
        CompletableFuture<String[]> started = new CompletableFuture<>();
        Process p = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    logs.append(line).append('\n');
                    Matcher m = STARTED.matcher(line);
                    if (m.find()) {
                        started.complete(new String[] {m.group(1), m.group(2)});
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
            started.completeExceptionally(new IllegalStateException("member exited before it started:\n" + logs));
        }, "member-log-" + clusterName);
        reader.setDaemon(true);
        reader.start();
        try {
            String[] addrs = started.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            address = addrs[0];
            admin = addrs[1];
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IllegalStateException("member did not start: " + e + "\n" + logs, e);
        }
    }

    /** Stops the member gracefully (SIGTERM) and waits for it to exit. */
    void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy(); // SIGTERM
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                throw new IllegalStateException("member did not stop within 60s:\n" + logs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the member (SIGKILL): no graceful shutdown. */
    void kill() {
        Process p = process;
        if (p != null && p.isAlive()) {
            try {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the member process with SIGSTOP: it neither answers nor notices anything until resume(). */
    void pause() {
        signal("-STOP");
    }

    /** Continues a paused member (SIGCONT). */
    void resume() {
        signal("-CONT");
    }

    private void signal(String sig) {
        try {
            Process k = new ProcessBuilder("kill", sig, Long.toString(process.pid())).inheritIO().start();
            if (!k.waitFor(30, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new IllegalStateException("kill " + sig + " " + process.pid() + " failed");
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("kill " + sig + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the member again on the same address (a new member: empty maps, no metadata). */
    void restart() {
        stop();
        String addr = address;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                launch(addr);
                return;
            } catch (IllegalStateException e) {
                // The port may linger briefly after the old process exited.
                if (System.nanoTime() > deadline || !logs.toString().contains("address already in use")) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The process id of the running member. */
    long pid() {
        return process.pid();
    }

    /**
     * Waits until the member is ready (its admin address's /readyz: every partition owned and
     * backed up, no migration, the table unchanged for 2 s).
     */
    void awaitReady() {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest req = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://" + admin + "/readyz")).build();
        Await.until("member " + address + " to be ready", Duration.ofMinutes(2), () -> {
            try {
                return http.send(req, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /**
     * A client configured for this member. Its connect timeout is a minute rather than the
     * default 10 s: on a busy machine a fresh client's first connection (classes loaded,
     * HTTP/2 handshake) to a member that has just started can take longer than 10 s.
     */
    AtollClientConfig clientConfig() {
        return new AtollClientConfig().addAddress(address).setClusterName(clusterName)
                .setConnectTimeout(Duration.ofMinutes(1));
    }

    @Override
    public void close() {
        stop();
    }

    /** Runs the interop peer against this member and returns its standard output. */
    String runPeer(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(peer().toString());
        cmd.add("-addr");
        cmd.add(address);
        cmd.add("-cluster-name");
        cmd.add(clusterName);
        cmd.addAll(List.of(args));
        return runCommand(cmd);
    }

    static String runCommand(List<String> cmd) {
        try {
            File err = File.createTempFile("atoll-peer-", ".err");
            err.deleteOnExit();
            Process p = new ProcessBuilder(cmd).redirectError(err).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(cmd + " timed out");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(cmd + " exited with " + p.exitValue() + ":\n" + Files.readString(err.toPath()));
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(cmd + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
