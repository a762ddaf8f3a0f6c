package io.atoll.vectors;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Command line: {@code VerifyVectors DIR...} checks every vector of every {@code *.json}
 * file in the directories, prints one line per failing vector and ends with
 * {@code N passed, M failed}. Exit status 0 if all passed, 1 if any failed, 2 on usage
 * errors.
 */
public final class VerifyVectors {
    private VerifyVectors() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.exit(run(args, out, System.err));
    }

    /** Runs the check and returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println("usage: verify-vectors DIR...");
            return 2;
        }
        List<VectorVerifier.Vector> vectors = new ArrayList<>();
        for (String a : args) {
            Path dir = Paths.get(a);
            if (!Files.isDirectory(dir)) {
                err.println("verify-vectors: not a directory: " + a);
                return 2;
            }
            try {
                vectors.addAll(VectorVerifier.load(dir));
            } catch (IOException e) {
                err.println("verify-vectors: cannot read " + a + ": " + e.getMessage());
                return 2;
            }
        }
        VectorVerifier verifier = new VectorVerifier();
        int passed = 0;
        int failed = 0;
        for (VectorVerifier.Vector v : vectors) {
            List<String> problems;
            try {
                problems = verifier.verify(v);
            } catch (RuntimeException | StackOverflowError e) {
                problems = List.of("verifier crashed: " + e);
            }
            if (problems.isEmpty()) {
                passed++;
            } else {
                failed++;
                String line = v.name() + ": " + String.join("; ", problems);
                if (line.length() > 2000) {
                    line = line.substring(0, 2000) + " ...";
                }
                out.println(line);
            }
        }
        out.println(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
