package io.atoll.vectors;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/verify-vectors, with its output on a pipe rather than a terminal, prints no escape
 * codes, also when it builds the tool first. Maven 3.8 writes reset codes ("ESC[0m") even in
 * batch mode; the stand-in mvn on the PATH here does the same, so the test needs no nested
 * build: it sets the tool's classpath file aside so the script sees a stale build, and the
 * stand-in puts it back.
 */
class VerifyVectorsScriptTest {
    @Test
    void noEscapeCodesWhenOutputIsNotATerminal() throws Exception {
        Path module = VectorFiles.repo().resolve("tools").resolve("hazelcast-vectors");
        Path classpath = module.resolve("target").resolve("runtime.classpath");
        Path saved = Files.createTempFile("runtime", ".classpath");
        Files.copy(classpath, saved, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path bin = Files.createTempDirectory("fake-mvn");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\nprintf '\\033[0m\\033[0m[INFO] building\\n'\nprintf '\\033[0m' >&2\n"
                + "cp '" + saved + "' '" + classpath + "'\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.delete(classpath);
        try {
            ProcessBuilder pb = new ProcessBuilder(module.resolve("bin").resolve("verify-vectors").toString(),
                    VectorFiles.dir().toString()).redirectErrorStream(true);
            pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "verify-vectors did not finish");
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("verify-vectors: building the vector tool"), out);
            assertFalse(out.contains("\u001b"), "escape codes in the output: " + out);
            String[] lines = out.split("\n");
            assertTrue(lines[lines.length - 1].matches("\\d+ passed, 0 failed"), out);
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
