package io.atoll.client.serialization.vectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/verify-vectors} as a script reads it: output piped (not a terminal), the jar
 * built first. The build runs through an {@code mvn} on the PATH that writes terminal
 * escapes even in batch mode, as Debian's Maven 3.8 does, and packages the compiled
 * classes; the script's output must carry none of them, so that {@code grep 'passed, 0
 * failed'} finds the summary.
 */
class VerifyVectorsScriptTest {
    @Test
    void pipedOutputHasNoTerminalEscapes(@TempDir Path dir) throws Exception {
        Path project = dir.resolve("client");
        Files.createDirectories(project.resolve("bin"));
        Files.createDirectories(project.resolve("src/main"));
        Path script = project.resolve("bin/verify-vectors");
        Files.copy(Paths.get("bin/verify-vectors"), script);
        Files.copy(Paths.get("pom.xml"), project.resolve("pom.xml"));
        Path classes = Paths.get("target/classes").toAbsolutePath();
        Path jarTool = Paths.get(System.getProperty("java.home"), "bin", "jar");
        Path fakeBin = Files.createDirectories(dir.resolve("fakebin"));
        // Packages the compiled classes into the jar the script names (the version
        // from the pom), talking as that Maven does.
        executable(fakeBin.resolve("mvn"), String.join("\n",
                "#!/usr/bin/env bash",
                "set -euo pipefail",
                "printf '\\033[0m\\033[0m' >&2",
                "version=\"$(sed -n 's:^  <version>\\(.*\\)</version>$:\\1:p' " + project.resolve("pom.xml") + " | head -n 1)\"",
                "mkdir -p " + project.resolve("target"),
                "'" + jarTool + "' cf " + project.resolve("target") + "/atoll-client-$version.jar -C '" + classes + "' .",
                "printf '\\033[0m\\033[0m' >&2",
                ""));
        executable(script, null);

        ProcessBuilder pb = new ProcessBuilder(script.toString(), VectorFiles.dir().toString()).redirectErrorStream(true);
        pb.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "verify-vectors did not end");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        assertFalse(text.contains("\u001b"), () -> "terminal escapes in piped output: " + text.replace("\u001b", "ESC"));
        assertTrue(text.lines().anyMatch(l -> l.matches("\\d+ passed, 0 failed")), text);
    }

    private static void executable(Path file, String text) throws IOException {
        if (text != null) {
            Files.writeString(file, text);
        }
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
