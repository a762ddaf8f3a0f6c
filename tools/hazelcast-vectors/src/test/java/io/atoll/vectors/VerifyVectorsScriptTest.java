package io.atoll.vectors;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/verify-vectors, with its output on a pipe rather than a terminal, prints no escape
 * codes when it builds the tool first, whether the build succeeds or fails (then it shows the
 * build's log). Maven 3.8 writes reset codes ("ESC[0m") even in batch mode; the stand-in mvn
 * on the PATH here does the same, so the test needs no nested build: it sets the tool's
 * classpath file aside so the script sees a stale build, and the stand-in puts it back (or
 * fails).
 */
class VerifyVectorsScriptTest {
    /** What the stand-in mvn prints, on both streams, before it succeeds or fails. */
    private static final String MAVEN_OUTPUT = "printf '\\033[0m\\033[0m[INFO] building\\n'\n"
            + "printf '\\033[1;31m[ERROR] a red line\\033[m\\n\\033[0m' >&2\n";

    @Test
    void noEscapeCodesWhenOutputIsNotATerminal() throws Exception {
        Result r = runWithStaleBuild(true);
        assertEquals(0, r.status, r.out);
        assertTrue(r.out.contains("verify-vectors: building the vector tool"), r.out);
        assertFalse(r.out.contains("\u001b"), "escape codes in the output: " + r.out);
        assertFalse(r.out.contains("[INFO] building"), "the log of a build that succeeded is shown: " + r.out);
        String[] lines = r.out.split("\n");
        assertTrue(lines[lines.length - 1].matches("\\d+ passed, 0 failed"), r.out);
    }

    @Test
    void aFailedBuildShowsItsLogWithoutEscapeCodes() throws Exception {
        Result r = runWithStaleBuild(false);
        assertEquals(2, r.status, r.out);
        assertTrue(r.out.contains("[INFO] building") && r.out.contains("[ERROR] a red line"), "the build's log is not shown: " + r.out);
        assertTrue(r.out.contains("verify-vectors: the build failed"), r.out);
        assertFalse(r.out.contains("\u001b"), "escape codes in the output: " + r.out);
    }

    private record Result(int status, String out) {
    }

    /** Runs the script on the committed vectors with a stand-in mvn that succeeds or fails. */
    private static Result runWithStaleBuild(boolean buildSucceeds) throws Exception {
        Path module = VectorFiles.repo().resolve("tools").resolve("hazelcast-vectors");
        Path classpath = module.resolve("target").resolve("runtime.classpath");
        Path saved = Files.createTempFile("runtime", ".classpath");
        Files.copy(classpath, saved, StandardCopyOption.REPLACE_EXISTING);
        Path bin = Files.createTempDirectory("fake-mvn");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\n" + MAVEN_OUTPUT
                + (buildSucceeds ? "cp '" + saved + "' '" + classpath + "'\n" : "exit 1\n"));
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.delete(classpath);
        try {
            ProcessBuilder pb = new ProcessBuilder(module.resolve("bin").resolve("verify-vectors").toString(),
                    VectorFiles.dir().toString()).redirectErrorStream(true);
            pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "verify-vectors did not finish");
            return new Result(p.exitValue(), out);
        } finally {
            if (!Files.exists(classpath)) {
                Files.copy(saved, classpath);
            }
            Files.delete(saved);
            Files.delete(mvn);
            Files.delete(bin);
        }
    }
}
