package io.atoll.vectors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/** The repository's committed vectors, {@code testdata/vectors} (root from the pom's {@code atoll.repo.dir}). */
public final class VectorFiles {
    private static List<VectorVerifier.Vector> cached;

    private VectorFiles() {
    }

    static Path repo() {
        String p = System.getProperty("atoll.repo.dir");
        if (p == null) {
            throw new IllegalStateException("system property atoll.repo.dir is not set (run the tests through Maven)");
        }
        return Paths.get(p).toAbsolutePath().normalize();
    }

    public static Path dir() {
        Path dir = repo().resolve("testdata").resolve("vectors");
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("test vector directory " + dir + " does not exist");
        }
        return dir;
    }

    public static synchronized List<VectorVerifier.Vector> all() {
        if (cached == null) {
            try {
                cached = VectorVerifier.load(dir());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (cached.isEmpty()) {
                throw new IllegalStateException("no vectors in " + dir());
            }
        }
        return cached;
    }
}
