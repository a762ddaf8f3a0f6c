package io.atoll.client;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bank-transfer test with Java client processes ({@link BankWorker}) beside the Go ones:
 * it runs the Go test that drives it (internal/txtest TestBankTransfer: member processes killed
 * with SIGKILL and restarted, a client killed mid-commit, the total and every transfer checked)
 * with the java command and this test's class path in its environment. Its size follows the
 * system properties atoll.bank.duration, atoll.bank.kills and atoll.bank.accounts (the Go
 * test's defaults otherwise: well under a minute).
 */
class BankTransferTest {
    @Test
    void goAndJavaClientsTransferUnderMemberKills() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder("go", "test", "-count=1", "-timeout", "30m", "-v", "-run", "^TestBankTransfer$", "./internal/txtest")
                .directory(GoMember.repoDir().toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("ATOLL_BANK_JAVA", java);
        env.put("ATOLL_BANK_JAVA_CLASSPATH", cp);
        for (String p : List.of("duration", "kills", "accounts", "workers")) {
            String v = System.getProperty("atoll.bank." + p);
            if (v != null) {
                env.put("ATOLL_BANK_" + p.toUpperCase(), v);
            }
        }
        File log = File.createTempFile("atoll-bank-", ".log");
        pb.redirectOutput(log);
        Process p = pb.start();
        assertTrue(p.waitFor(40, TimeUnit.MINUTES), "the bank-transfer test did not end");
        String out = Files.readString(log.toPath(), StandardCharsets.UTF_8);
        String summary = out.lines().filter(l -> l.contains("bank_test.go") || l.startsWith("---") || l.startsWith("ok") || l.startsWith("FAIL"))
                .reduce("", (a, b) -> a + b + "\n");
        System.out.println(summary);
        assertEquals(0, p.exitValue(), "go test TestBankTransfer failed:\n" + tail(out, 20000));
        assertTrue(out.contains("killed worker java1 in the middle of a commit"), "a Java client was killed mid-commit:\n" + summary);
    }

    private static String tail(String s, int n) {
        return s.length() <= n ? s : "…" + s.substring(s.length() - n);
    }
}
